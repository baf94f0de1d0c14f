package engine

import (
	"encoding/binary"

	"github.com/lockredis/lockredis/keyspace"
)

// hashObj is a decoded hash. Entries keep insertion order, which is what
// Redis returns for listpack hashes (HGETALL, HKEYS, HSCAN); deleted
// entries are marked gone and dropped when encoding.
type hashObj struct {
	large bool
	ents  []hashEntry
	live  int
	index map[string]int // field -> position, built for many lookups
	many  bool           // many lookups are coming (expect)
	// expired counts the fields hideExpired removed because their time
	// had passed (hash field expiry, cmd_hash_ttl.go).
	expired int
}

type hashEntry struct {
	field, value string
	at           int64 // field expiry, unix ms; 0 when the field has none
	gone         bool
}

// encFieldTTL, in a hash's flags byte, says that some field has an expiry
// (HEXPIRE...). Only then does the payload carry expiry times, so a hash
// without them (every Redisson lock) stays exactly as compact as before:
//
//	flags | uvarint minAt | uvarint n | n × (field, value, uvarint at (0: none))
//
// minAt, the earliest field expiry, lets a lookup and the sweeper tell in
// O(1) whether any field is due.
const encFieldTTL byte = 2

func decodeHash(payload string) *hashObj {
	r := newPayloadReader(payload)
	flags := r.byte()
	h := &hashObj{large: flags&encLarge != 0}
	ttl := flags&encFieldTTL != 0
	if ttl {
		r.uvarint() // minAt: recomputed when encoding
	}
	n := r.count()
	h.ents = make([]hashEntry, 0, n)
	for i := 0; i < n && r.ok; i++ {
		f := r.str()
		v := r.str()
		var at int64
		if ttl {
			at = int64(r.uvarint())
		}
		if r.ok {
			h.ents = append(h.ents, hashEntry{field: f, value: v, at: at})
		}
	}
	h.live = len(h.ents)
	return h
}

func encodeHash(h *hashObj) string {
	minAt := h.minExpiry()
	size := 1 + uvarintLen(h.live)
	if minAt != 0 {
		size += binary.MaxVarintLen64
	}
	for _, e := range h.ents {
		if !e.gone {
			size += uvarintLen(len(e.field)) + len(e.field) + uvarintLen(len(e.value)) + len(e.value)
			if minAt != 0 {
				size += uvarintLen(int(e.at))
			}
		}
	}
	b := make([]byte, 0, size)
	flags := flagsOf(h.large)
	if minAt != 0 {
		flags |= encFieldTTL
	}
	b = append(b, flags)
	if minAt != 0 {
		b = binary.AppendUvarint(b, uint64(minAt))
	}
	b = binary.AppendUvarint(b, uint64(h.live))
	for _, e := range h.ents {
		if !e.gone {
			b = appendStr(b, e.field)
			b = appendStr(b, e.value)
			if minAt != 0 {
				b = binary.AppendUvarint(b, uint64(e.at))
			}
		}
	}
	return b2s(b)
}

// minExpiry is the earliest expiry of a live field, 0 when none has one.
func (h *hashObj) minExpiry() int64 {
	var m int64
	for _, e := range h.ents {
		if !e.gone && e.at != 0 && (m == 0 || e.at < m) {
			m = e.at
		}
	}
	return m
}

// hashFieldExpiry reads minAt from an encoded hash payload: the earliest
// field expiry, 0 when no field has one.
func hashFieldExpiry(payload string) int64 {
	if len(payload) < 2 || payload[0]&encFieldTTL == 0 {
		return 0
	}
	at, n := keyspace.UvarintString(payload[1:])
	if n == 0 {
		return 0
	}
	return int64(at)
}

// hideExpired drops the fields whose time has passed at now (unix ms): as
// for keys, a field lives through its expiry millisecond. They count in
// h.expired. The payload's minAt makes this free for hashes with no due
// field.
func (h *hashObj) hideExpired(minAt, now int64) {
	if minAt == 0 || minAt >= now {
		return
	}
	for i := range h.ents {
		e := &h.ents[i]
		if !e.gone && e.at != 0 && e.at < now {
			e.gone = true
			h.live--
			h.expired++
		}
	}
}

// expect prepares for a number of lookups: when there are many, on a
// large hash, it indexes the fields in a map; one or two lookups are
// cheaper as linear scans than building the map.
func (h *hashObj) expect(lookups int) {
	h.many = lookups > 4
}

// find returns the position of field, or -1.
func (h *hashObj) find(field []byte) int {
	if h.index == nil && h.many && len(h.ents) > 32 {
		h.index = make(map[string]int, len(h.ents))
		for i, e := range h.ents {
			if !e.gone {
				h.index[e.field] = i
			}
		}
	}
	if h.index != nil {
		if i, ok := h.index[string(field)]; ok {
			return i
		}
		return -1
	}
	for i := range h.ents {
		if !h.ents[i].gone && h.ents[i].field == string(field) {
			return i
		}
	}
	return -1
}

func (h *hashObj) get(field []byte) (string, bool) {
	if i := h.find(field); i >= 0 {
		return h.ents[i].value, true
	}
	return "", false
}

// set stores field=value and reports whether the field is new. Like
// Redis's hashTypeSet it converts a listpack hash to a hashtable when a
// field or value is too long or there are too many fields. An existing
// field keeps its expiry, as with Redis's HASH_SET_KEEP_TTL (HINCRBY);
// HSET uses overwrite.
func (h *hashObj) set(field []byte, value string) bool {
	_, created := h.put(field, value)
	return created
}

// overwrite is set for HSET and HMSET: a field given a new value loses
// its expiry, as in Redis.
func (h *hashObj) overwrite(field []byte, value string) bool {
	i, created := h.put(field, value)
	h.ents[i].at = 0
	return created
}

// put stores field=value and returns its position and whether it is new.
func (h *hashObj) put(field []byte, value string) (int, bool) {
	if len(field) > hashMaxListpackValue || len(value) > hashMaxListpackValue {
		h.large = true
	}
	if i := h.find(field); i >= 0 {
		h.ents[i].value = value
		return i, false
	}
	f := string(field)
	h.ents = append(h.ents, hashEntry{field: f, value: value})
	h.live++
	if h.index != nil {
		h.index[f] = len(h.ents) - 1
	}
	if h.live > hashMaxListpackEntries {
		h.large = true
	}
	return len(h.ents) - 1, true
}

// del removes field and reports whether it was there.
func (h *hashObj) del(field []byte) bool {
	i := h.find(field)
	if i < 0 {
		return false
	}
	h.ents[i].gone = true
	h.live--
	if h.index != nil {
		delete(h.index, h.ents[i].field)
	}
	return true
}

// each calls fn for every live entry in order.
func (h *hashObj) each(fn func(field, value string)) {
	for _, e := range h.ents {
		if !e.gone {
			fn(e.field, e.value)
		}
	}
}

// compact drops gone entries, so positions 0..live-1 are the live ones.
func (h *hashObj) compact() {
	if h.live == len(h.ents) {
		return
	}
	out := h.ents[:0]
	for _, e := range h.ents {
		if !e.gone {
			out = append(out, e)
		}
	}
	h.ents = out
	h.index = nil
}

// The load functions return the decoded collection at key, nil when the key
// is missing, and its expiry, to be handed back to the store function:
// changing a collection never changes its TTL. The store functions delete
// the key when the collection is empty, as Redis does, so commands may
// count on a collection they load having an element: a stored one that
// decodes to none (an empty or damaged payload, which only a corrupt file
// holds) reads as missing, with a warning, instead of crashing them
// (SPOP, HRANDFIELD... pick an element at random).

func loadHash(tx *Tx, key []byte, read bool) (*hashObj, int64, error) {
	v, ok, err := lookupTyped(tx, key, TypeHash, read)
	if !ok {
		return nil, 0, err
	}
	o := decodeHash(v.Payload)
	o.hideExpired(hashFieldExpiry(v.Payload), tx.Ms)
	if o.live == 0 {
		if o.expired == 0 {
			damaged(tx, key, v.Type)
		}
		return nil, 0, nil // every field expired: the sweeper deletes the key
	}
	return o, v.ExpireAt, nil
}

func storeHash(tx *Tx, key []byte, h *hashObj, expireAt int64) {
	if h.expired > 0 {
		// This write drops the fields loadHash hid because their time had
		// passed: they expire now, as Redis's lazy field expiry says.
		tx.Notify(NotifyHash, "hexpired", key)
		h.expired = 0
	}
	if h.live == 0 {
		tx.Delete(key)
		return
	}
	tx.Put(key, Value{Type: TypeHash, ExpireAt: expireAt, Payload: encodeHash(h)})
}
