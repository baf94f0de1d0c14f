package engine

import (
	"encoding/binary"
	"math"
	"sort"
	"strconv"
)

// zsetObj is a decoded sorted set, ordered by (score, member bytewise) as
// Redis orders both its encodings.
type zsetObj struct {
	large bool
	ents  []zent
}

type zent struct {
	member string
	score  float64
}

func decodeZset(payload string) *zsetObj {
	r := newPayloadReader(payload)
	z := &zsetObj{large: r.byte()&encLarge != 0}
	n := r.count()
	z.ents = make([]zent, 0, n)
	for i := 0; i < n && r.ok; i++ {
		sc := r.float()
		m := r.str()
		if r.ok {
			z.ents = append(z.ents, zent{member: m, score: sc})
		}
	}
	return z
}

func encodeZset(z *zsetObj) string {
	size := 1 + uvarintLen(len(z.ents))
	for _, e := range z.ents {
		size += 8 + uvarintLen(len(e.member)) + len(e.member)
	}
	b := make([]byte, 0, size)
	b = append(b, flagsOf(z.large))
	b = binary.AppendUvarint(b, uint64(len(z.ents)))
	for _, e := range z.ents {
		b = binary.BigEndian.AppendUint64(b, math.Float64bits(e.score))
		b = appendStr(b, e.member)
	}
	return b2s(b)
}

// zless is the sorted set order.
func zless(a, b zent) bool {
	if a.score != b.score {
		return a.score < b.score
	}
	return a.member < b.member
}

// find returns the position of member, or -1: a linear scan, cheaper than
// building an index for the one or two lookups most commands make.
func (z *zsetObj) find(member []byte) int {
	for i := range z.ents {
		if z.ents[i].member == string(member) {
			return i
		}
	}
	return -1
}

// indexer returns a lookup function for many lookups: a map for large
// inputs, a linear scan otherwise.
func (z *zsetObj) indexer(lookups int) func(member []byte) int {
	if lookups <= 4 || len(z.ents) <= 32 {
		return z.find
	}
	idx := make(map[string]int, len(z.ents))
	for i, e := range z.ents {
		idx[e.member] = i
	}
	return func(member []byte) int {
		if i, ok := idx[string(member)]; ok {
			return i
		}
		return -1
	}
}

// replace rebuilds the order after members changed: gone[i] marks entries
// to drop, add holds new or re-scored entries (members unique, none still
// present among the kept ones). O(n + m log m).
func (z *zsetObj) replace(gone []bool, add []zent) {
	sort.Slice(add, func(i, j int) bool { return zless(add[i], add[j]) })
	out := make([]zent, 0, len(z.ents)+len(add))
	j := 0
	for i, e := range z.ents {
		if gone != nil && gone[i] {
			continue
		}
		for j < len(add) && zless(add[j], e) {
			out = append(out, add[j])
			j++
		}
		out = append(out, e)
	}
	out = append(out, add[j:]...)
	z.ents = out
}

// removeRange drops ents[from:to].
func (z *zsetObj) removeRange(from, to int) {
	z.ents = append(z.ents[:from], z.ents[to:]...)
}

// double2ll is Redis's check that a double is an integer that a listpack
// stores as such (util.c double2ll).
func double2ll(d float64) (int64, bool) {
	const lim = float64(math.MaxInt64 / 2)
	if d < -lim || d > lim {
		return 0, false
	}
	ll := int64(d)
	return ll, float64(ll) == d
}

// listpackScore is how a listpack sorted set stores a score: integers as
// integers (so -0 becomes 0), others as %.17g text, which round-trips.
func listpackScore(d float64) float64 {
	if ll, ok := double2ll(d); ok {
		return float64(ll)
	}
	return d
}

// listpackScoreText is a score as a listpack entry prints (ZSCAN).
func listpackScoreText(d float64) string {
	if ll, ok := double2ll(d); ok {
		return strconv.FormatInt(ll, 10)
	}
	return FormatFloat(d)
}

func loadZset(tx *Tx, key []byte, read bool) (*zsetObj, int64, error) {
	v, ok, err := lookupTyped(tx, key, TypeZSet, read)
	if !ok {
		return nil, 0, err
	}
	o := decodeZset(v.Payload)
	if len(o.ents) == 0 {
		damaged(tx, key, v.Type)
		return nil, 0, nil
	}
	return o, v.ExpireAt, nil
}

func storeZset(tx *Tx, key []byte, z *zsetObj, expireAt int64) {
	if len(z.ents) == 0 {
		tx.Delete(key)
		return
	}
	tx.Put(key, Value{Type: TypeZSet, ExpireAt: expireAt, Payload: encodeZset(z)})
}
