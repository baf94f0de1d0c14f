package engine

import (
	"container/heap"
	"encoding/binary"
	"math"
	"sort"
	"strconv"
	"unsafe"
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
// details such as a listpack sorted set storing -0 as 0.
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

// ---------------------------------------------------------------- hashes

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

// ----------------------------------------------------------------- lists

// listObj is a decoded list, head first.
type listObj struct {
	elems []string
}

func decodeList(payload string) *listObj {
	r := newPayloadReader(payload)
	r.byte()
	n := r.count()
	l := &listObj{elems: make([]string, 0, n)}
	for i := 0; i < n && r.ok; i++ {
		if s := r.str(); r.ok {
			l.elems = append(l.elems, s)
		}
	}
	return l
}

func encodeList(l *listObj) string {
	size := 1 + uvarintLen(len(l.elems))
	for _, e := range l.elems {
		size += uvarintLen(len(e)) + len(e)
	}
	b := make([]byte, 0, size)
	b = append(b, 0)
	b = binary.AppendUvarint(b, uint64(len(l.elems)))
	for _, e := range l.elems {
		b = appendStr(b, e)
	}
	return b2s(b)
}

// ------------------------------------------------------------------ sets

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

// ----------------------------------------------------------- sorted sets

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

// -------------------------------------------------- HSCAN, SSCAN, ZSCAN

// scanItem is one element a collection SCAN may return: a member, or a
// field or member and its value or score.
type scanItem struct {
	key, val string
	ord      uint64
}

// scanOrd places an element in the iteration order of large collections:
// a hash of its bytes, never 0. A cursor is the ord of the next element to
// return, so, as with Redis's reverse-binary cursors, an element present
// for the whole iteration is returned whatever is added or removed
// meanwhile, with no state kept between calls.
func scanOrd(s string) uint64 {
	h := uint64(14695981039346656037) // FNV-1a
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	h &= math.MaxInt64
	if h == 0 {
		h = 1
	}
	return h
}

// scanOptions are the MATCH and COUNT of a collection SCAN.
type scanOptions struct {
	pattern []byte // nil: everything
	count   int64
}

// parseScanOptions parses MATCH/COUNT from args as scanGenericCommand does
// (TYPE is for the keyspace SCAN only).
func parseScanOptions(args [][]byte) (scanOptions, error) {
	opts := scanOptions{count: 10}
	for i := 0; i < len(args); i += 2 {
		more := i+1 < len(args)
		switch {
		case more && EqualFold(args[i], "count"):
			n, ok := ParseInt(args[i+1])
			if !ok {
				return opts, ErrNotInteger
			}
			if n < 1 {
				return opts, ErrSyntax
			}
			opts.count = n
		case more && EqualFold(args[i], "match"):
			opts.pattern = args[i+1]
			if len(opts.pattern) == 1 && opts.pattern[0] == '*' {
				opts.pattern = nil
			}
		default:
			return opts, ErrSyntax
		}
	}
	return opts, nil
}

// ordHeap is a max-heap on ord, to keep the count smallest ords.
type ordHeap []scanItem

func (h ordHeap) Len() int           { return len(h) }
func (h ordHeap) Less(i, j int) bool { return h[i].ord > h[j].ord }
func (h ordHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *ordHeap) Push(x any)        { *h = append(*h, x.(scanItem)) }
func (h *ordHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// replyCollectionScan answers a collection SCAN. small collections (the
// compact encodings) return everything with cursor 0, as Redis does; large
// ones return the count elements with the smallest ords >= cursor (plus
// any sharing the last ord, so none is skipped) in ord order. withVal says
// whether items are pairs.
func replyCollectionScan(c *Call, cursor uint64, small bool, items []scanItem, withVal bool, opts scanOptions) {
	next := uint64(0)
	if !small {
		k := int(min(opts.count, int64(len(items))))
		h := make(ordHeap, 0, k+1)
		for _, it := range items {
			it.ord = scanOrd(it.key)
			if it.ord < cursor {
				continue
			}
			if len(h) < k {
				heap.Push(&h, it)
			} else if it.ord < h[0].ord {
				heap.Push(&h, it)
				heap.Pop(&h)
			}
		}
		picked := []scanItem(h)
		sort.Slice(picked, func(i, j int) bool { return picked[i].ord < picked[j].ord })
		if len(picked) > 0 {
			last := picked[len(picked)-1].ord
			next = math.MaxUint64
			for _, it := range items {
				o := scanOrd(it.key)
				switch {
				case o == last && !containsKey(picked, it.key):
					picked = append(picked, scanItem{key: it.key, val: it.val, ord: o})
				case o > last && o < next:
					next = o
				}
			}
			if next == math.MaxUint64 {
				next = 0
			}
		}
		items = picked
	}
	out := items[:0:0]
	for _, it := range items {
		if opts.pattern == nil || globString(opts.pattern, it.key, false) {
			out = append(out, it)
		}
	}
	var buf [20]byte
	c.W.Array(2)
	c.W.Bulk(strconv.AppendUint(buf[:0], next, 10))
	n := len(out)
	if withVal {
		n *= 2
	}
	c.W.Array(n)
	for _, it := range out {
		c.W.BulkString(it.key)
		if withVal {
			c.W.BulkString(it.val)
		}
	}
}

func containsKey(items []scanItem, key string) bool {
	for _, it := range items {
		if it.key == key {
			return true
		}
	}
	return false
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

// The load functions return the decoded collection at key, nil when the key
// is missing, and its expiry, to be handed back to the store function:
// changing a collection never changes its TTL. The store functions delete
// the key when the collection is empty, as Redis does.

func loadHash(tx *Tx, key []byte, read bool) (*hashObj, int64, error) {
	v, ok, err := lookupTyped(tx, key, TypeHash, read)
	if !ok {
		return nil, 0, err
	}
	return decodeHash(v.Payload), v.ExpireAt, nil
}

func storeHash(tx *Tx, key []byte, h *hashObj, expireAt int64) {
	if h.live == 0 {
		tx.Delete(key)
		return
	}
	tx.Put(key, Value{Type: TypeHash, ExpireAt: expireAt, Payload: encodeHash(h)})
}

func loadList(tx *Tx, key []byte, read bool) (*listObj, int64, error) {
	v, ok, err := lookupTyped(tx, key, TypeList, read)
	if !ok {
		return nil, 0, err
	}
	return decodeList(v.Payload), v.ExpireAt, nil
}

func storeList(tx *Tx, key []byte, l *listObj, expireAt int64) {
	if len(l.elems) == 0 {
		tx.Delete(key)
		return
	}
	tx.Put(key, Value{Type: TypeList, ExpireAt: expireAt, Payload: encodeList(l)})
}

func loadSet(tx *Tx, key []byte, read bool) (*setObj, int64, error) {
	v, ok, err := lookupTyped(tx, key, TypeSet, read)
	if !ok {
		return nil, 0, err
	}
	return decodeSet(v.Payload), v.ExpireAt, nil
}

func storeSet(tx *Tx, key []byte, s *setObj, expireAt int64) {
	if s.size() == 0 {
		tx.Delete(key)
		return
	}
	tx.Put(key, Value{Type: TypeSet, ExpireAt: expireAt, Payload: encodeSet(s)})
}

func loadZset(tx *Tx, key []byte, read bool) (*zsetObj, int64, error) {
	v, ok, err := lookupTyped(tx, key, TypeZSet, read)
	if !ok {
		return nil, 0, err
	}
	return decodeZset(v.Payload), v.ExpireAt, nil
}

func storeZset(tx *Tx, key []byte, z *zsetObj, expireAt int64) {
	if len(z.ents) == 0 {
		tx.Delete(key)
		return
	}
	tx.Put(key, Value{Type: TypeZSet, ExpireAt: expireAt, Payload: encodeZset(z)})
}

// strBytes returns s's bytes without copying, for parsers that only read.
func strBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }
