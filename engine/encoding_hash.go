package engine

import "encoding/binary"

// hashObj is a decoded hash. Entries keep insertion order, which is what
// Redis returns for listpack hashes (HGETALL, HKEYS, HSCAN); deleted
// entries are marked gone and dropped when encoding.
type hashObj struct {
	large bool
	ents  []hashEntry
	live  int
	index map[string]int // field -> position, built for many lookups
	many  bool           // many lookups are coming (expect)
}

type hashEntry struct {
	field, value string
	gone         bool
}

func decodeHash(payload string) *hashObj {
	r := newPayloadReader(payload)
	h := &hashObj{large: r.byte()&encLarge != 0}
	n := r.count()
	h.ents = make([]hashEntry, 0, n)
	for i := 0; i < n && r.ok; i++ {
		f := r.str()
		v := r.str()
		if r.ok {
			h.ents = append(h.ents, hashEntry{field: f, value: v})
		}
	}
	h.live = len(h.ents)
	return h
}

func encodeHash(h *hashObj) string {
	size := 1 + uvarintLen(h.live)
	for _, e := range h.ents {
		if !e.gone {
			size += uvarintLen(len(e.field)) + len(e.field) + uvarintLen(len(e.value)) + len(e.value)
		}
	}
	b := make([]byte, 0, size)
	b = append(b, flagsOf(h.large))
	b = binary.AppendUvarint(b, uint64(h.live))
	for _, e := range h.ents {
		if !e.gone {
			b = appendStr(b, e.field)
			b = appendStr(b, e.value)
		}
	}
	return b2s(b)
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
// field or value is too long or there are too many fields.
func (h *hashObj) set(field []byte, value string) bool {
	if len(field) > hashMaxListpackValue || len(value) > hashMaxListpackValue {
		h.large = true
	}
	if i := h.find(field); i >= 0 {
		h.ents[i].value = value
		return false
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
	return true
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
