package engine

import (
	"encoding/binary"
	"sort"
	"strconv"
)

// setObj is a decoded set. An intset (all members integers, at most
// setMaxIntsetEntries of them) keeps ints in ascending order, which is the
// order Redis returns them in; a hashtable set keeps members in bytewise
// order (Redis's order is arbitrary). Lookups are binary searches.
type setObj struct {
	intset  bool
	ints    []int64
	members []string
}

func decodeSet(payload string) *setObj {
	r := newPayloadReader(payload)
	s := &setObj{intset: r.byte()&encLarge == 0}
	n := r.count()
	if s.intset {
		s.ints = make([]int64, 0, n)
		for i := 0; i < n && r.ok; i++ {
			v := int64(r.uvarint())
			if r.ok {
				s.ints = append(s.ints, int64(uint64(v)>>1)^-(v&1))
			}
		}
		return s
	}
	s.members = make([]string, 0, n)
	for i := 0; i < n && r.ok; i++ {
		if m := r.str(); r.ok {
			s.members = append(s.members, m)
		}
	}
	return s
}

func encodeSet(s *setObj) string {
	if s.intset {
		b := make([]byte, 0, 1+uvarintLen(len(s.ints))+len(s.ints)*3)
		b = append(b, 0)
		b = binary.AppendUvarint(b, uint64(len(s.ints)))
		for _, v := range s.ints {
			b = binary.AppendVarint(b, v)
		}
		return b2s(b)
	}
	size := 1 + uvarintLen(len(s.members))
	for _, m := range s.members {
		size += uvarintLen(len(m)) + len(m)
	}
	b := make([]byte, 0, size)
	b = append(b, encLarge)
	b = binary.AppendUvarint(b, uint64(len(s.members)))
	for _, m := range s.members {
		b = appendStr(b, m)
	}
	return b2s(b)
}

// newSetFor makes the empty set Redis's setTypeCreate would make for a
// first member: an intset when it is an integer.
func newSetFor(first []byte) *setObj {
	_, isInt := ParseInt(first)
	return &setObj{intset: isInt}
}

func (s *setObj) size() int {
	if s.intset {
		return len(s.ints)
	}
	return len(s.members)
}

// member returns the i-th member in the set's order.
func (s *setObj) member(i int) string {
	if s.intset {
		return strconv.FormatInt(s.ints[i], 10)
	}
	return s.members[i]
}

func (s *setObj) searchInt(v int64) (int, bool) {
	i := sort.Search(len(s.ints), func(i int) bool { return s.ints[i] >= v })
	return i, i < len(s.ints) && s.ints[i] == v
}

func (s *setObj) searchStr(m []byte) (int, bool) {
	i := sort.Search(len(s.members), func(i int) bool { return s.members[i] >= string(m) })
	return i, i < len(s.members) && s.members[i] == string(m)
}

func (s *setObj) has(m []byte) bool {
	if s.intset {
		v, ok := ParseInt(m)
		if !ok {
			return false
		}
		_, found := s.searchInt(v)
		return found
	}
	_, found := s.searchStr(m)
	return found
}

// toHashtable converts an intset, as Redis's setTypeConvert.
func (s *setObj) toHashtable() {
	if !s.intset {
		return
	}
	s.members = make([]string, len(s.ints))
	for i, v := range s.ints {
		s.members[i] = strconv.FormatInt(v, 10)
	}
	sort.Strings(s.members)
	s.ints = nil
	s.intset = false
}

// add inserts m and reports whether it is new, converting like Redis's
// setTypeAdd. Adding many members this way is O(n) each; addMany batches.
func (s *setObj) add(m []byte) bool {
	if s.intset {
		v, ok := ParseInt(m)
		if ok {
			i, found := s.searchInt(v)
			if found {
				return false
			}
			s.ints = append(s.ints, 0)
			copy(s.ints[i+1:], s.ints[i:])
			s.ints[i] = v
			if len(s.ints) > setMaxIntsetEntries {
				s.toHashtable()
			}
			return true
		}
		s.toHashtable()
	}
	i, found := s.searchStr(m)
	if found {
		return false
	}
	s.members = append(s.members, "")
	copy(s.members[i+1:], s.members[i:])
	s.members[i] = string(m)
	return true
}

// addMany adds members in order and returns how many were new. It gives
// the same result as calling add for each, in O((n+m) log(n+m)).
func (s *setObj) addMany(ms [][]byte) int {
	if len(ms) <= 8 {
		added := 0
		for _, m := range ms {
			if s.add(m) {
				added++
			}
		}
		return added
	}
	before := s.size()
	if s.intset {
		ints := make([]int64, 0, len(ms))
		for _, m := range ms {
			v, ok := ParseInt(m)
			if !ok {
				s.toHashtable()
				break
			}
			ints = append(ints, v)
		}
		if s.intset {
			merged := append(append(make([]int64, 0, len(s.ints)+len(ints)), s.ints...), ints...)
			sort.Slice(merged, func(i, j int) bool { return merged[i] < merged[j] })
			s.ints = dedupeInts(merged)
			if len(s.ints) > setMaxIntsetEntries {
				s.toHashtable()
			}
			return s.size() - before
		}
	}
	merged := make([]string, 0, len(s.members)+len(ms))
	merged = append(merged, s.members...)
	for _, m := range ms {
		merged = append(merged, string(m))
	}
	sort.Strings(merged)
	s.members = dedupeStrings(merged)
	return s.size() - before
}

func dedupeInts(a []int64) []int64 {
	out := a[:0]
	for i, v := range a {
		if i == 0 || v != a[i-1] {
			out = append(out, v)
		}
	}
	return out
}

func dedupeStrings(a []string) []string {
	out := a[:0]
	for i, v := range a {
		if i == 0 || v != a[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// remove deletes m and reports whether it was there.
func (s *setObj) remove(m []byte) bool {
	if s.intset {
		v, ok := ParseInt(m)
		if !ok {
			return false
		}
		i, found := s.searchInt(v)
		if !found {
			return false
		}
		s.ints = append(s.ints[:i], s.ints[i+1:]...)
		return true
	}
	i, found := s.searchStr(m)
	if !found {
		return false
	}
	s.members = append(s.members[:i], s.members[i+1:]...)
	return true
}

// removeMany deletes members and returns how many were there, in
// O(n + m log n) whatever the number m of members given.
func (s *setObj) removeMany(ms [][]byte) int {
	if len(ms) <= 4 {
		n := 0
		for _, m := range ms {
			if s.remove(m) {
				n++
			}
		}
		return n
	}
	gone := make([]bool, s.size())
	n := 0
	for _, m := range ms {
		var i int
		var found bool
		if s.intset {
			if v, ok := ParseInt(m); ok {
				i, found = s.searchInt(v)
			}
		} else {
			i, found = s.searchStr(m)
		}
		if found && !gone[i] {
			gone[i] = true
			n++
		}
	}
	if n > 0 {
		s.removeMarked(gone)
	}
	return n
}

// removeMarked deletes the members whose position is marked.
func (s *setObj) removeMarked(gone []bool) {
	if s.intset {
		out := s.ints[:0]
		for i, v := range s.ints {
			if !gone[i] {
				out = append(out, v)
			}
		}
		s.ints = out
		return
	}
	out := s.members[:0]
	for i, m := range s.members {
		if !gone[i] {
			out = append(out, m)
		}
	}
	s.members = out
}

// removeAt deletes the i-th member.
func (s *setObj) removeAt(i int) {
	if s.intset {
		s.ints = append(s.ints[:i], s.ints[i+1:]...)
		return
	}
	s.members = append(s.members[:i], s.members[i+1:]...)
}

func loadSet(tx *Tx, key []byte, read bool) (*setObj, int64, error) {
	v, ok, err := lookupTyped(tx, key, TypeSet, read)
	if !ok {
		return nil, 0, err
	}
	o := decodeSet(v.Payload)
	if o.size() == 0 {
		damaged(tx, key, v.Type)
		return nil, 0, nil
	}
	return o, v.ExpireAt, nil
}

func storeSet(tx *Tx, key []byte, s *setObj, expireAt int64) {
	if s.size() == 0 {
		tx.Delete(key)
		return
	}
	tx.Put(key, Value{Type: TypeSet, ExpireAt: expireAt, Payload: encodeSet(s)})
}
