package engine

import (
	"encoding/binary"
	"math"
)

// Payload encodings of the collection types. A collection is one buntdb
// item like any key (see value.go); its payload is:
//
//	hash  flags | uvarint n | n × (uvarint len, field, uvarint len, value)  insertion order
//	list  flags | uvarint n | n × (uvarint len, element)                    head to tail
//	set   flags | uvarint n | intset: n × zigzag varint, ascending
//	                        | otherwise: n × (uvarint len, member), bytewise ascending
//	zset  flags | uvarint n | n × (8-byte big-endian float64, uvarint len, member)
//	                          in (score, member) order
//
// flags bit 0 (encLarge) records that the collection has Redis's "large"
// encoding (hashtable for hashes and sets, skiplist for sorted sets). As in
// Redis 7.0 a collection never converts back, so the bit must be stored:
// it decides OBJECT ENCODING, whether HSCAN returns everything at once, and
// details such as a listpack sorted set storing -0 as 0. A hash's bit 1
// (encFieldTTL) says that its fields carry expiry times (encoding_hash.go).
//
// Every command decodes the whole value, changes it and encodes it back:
// O(n) per write, accepted because lock data is tiny. Strings in a decoded
// object share the payload's memory (no copy per element). Commands reach
// the encodings only through load*/store* so that a decoded-object cache
// can be slotted in later.
const encLarge byte = 1

// Redis 7.0's defaults for the compact encodings (as redis-server 7.0.15
// reports them in CONFIG GET).
const (
	hashMaxListpackEntries = 512
	hashMaxListpackValue   = 64
	zsetMaxListpackEntries = 128
	zsetMaxListpackValue   = 64
	setMaxIntsetEntries    = 512
)

// payloadReader walks an encoded payload. Malformed input (which only a
// bug could produce) makes it stop and report !ok, never panic.
type payloadReader struct {
	s  string
	ok bool
}

func newPayloadReader(s string) *payloadReader { return &payloadReader{s: s, ok: true} }

func (r *payloadReader) byte() byte {
	if len(r.s) == 0 {
		r.ok = false
		return 0
	}
	b := r.s[0]
	r.s = r.s[1:]
	return b
}

func (r *payloadReader) uvarint() uint64 {
	var x uint64
	var shift uint
	for i := 0; i < len(r.s) && i < binary.MaxVarintLen64; i++ {
		b := r.s[i]
		if b < 0x80 {
			r.s = r.s[i+1:]
			return x | uint64(b)<<shift
		}
		x |= uint64(b&0x7f) << shift
		shift += 7
	}
	r.ok = false
	r.s = ""
	return 0
}

// count reads an element count, bounded by what the payload can hold so
// that a corrupt count cannot make a huge allocation.
func (r *payloadReader) count() int {
	n := r.uvarint()
	if n > uint64(len(r.s)) {
		r.ok = false
		return 0
	}
	return int(n)
}

func (r *payloadReader) str() string {
	n := r.uvarint()
	if n > uint64(len(r.s)) {
		r.ok = false
		r.s = ""
		return ""
	}
	s := r.s[:n]
	r.s = r.s[n:]
	return s
}

func (r *payloadReader) float() float64 {
	if len(r.s) < 8 {
		r.ok = false
		r.s = ""
		return 0
	}
	bits := uint64(r.s[0])<<56 | uint64(r.s[1])<<48 | uint64(r.s[2])<<40 | uint64(r.s[3])<<32 |
		uint64(r.s[4])<<24 | uint64(r.s[5])<<16 | uint64(r.s[6])<<8 | uint64(r.s[7])
	r.s = r.s[8:]
	return math.Float64frombits(bits)
}

func uvarintLen(n int) int {
	l := 1
	for x := uint64(n); x >= 0x80; x >>= 7 {
		l++
	}
	return l
}

func appendStr(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func flagsOf(large bool) byte {
	if large {
		return encLarge
	}
	return 0
}

// ------------------------------------------------------ loading, storing

// lookupTyped returns key's value when it has type t: (v, false, nil) when
// missing, ErrWrongType for another type. read counts a keyspace hit or
// miss, as Redis's lookupKeyRead does (write lookups count nothing).
func lookupTyped(tx *Tx, key []byte, t Type, read bool) (Value, bool, error) {
	v, ok := tx.Get(key)
	if read {
		if ok {
			tx.e.Stats.KeyspaceHits.Add(1)
		} else {
			tx.e.Stats.KeyspaceMisses.Add(1)
			tx.notifyKeyMiss(key)
		}
	}
	if !ok {
		return v, false, nil
	}
	if v.Type != t {
		return v, false, ErrWrongType
	}
	return v, true, nil
}

// damaged logs a stored collection that decodes to no element.
func damaged(tx *Tx, key []byte, t Type) {
	tx.e.Logf("warning", "key %q holds an empty or damaged %s: read as missing", key, t.Name())
}
