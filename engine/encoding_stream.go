package engine

import (
	"encoding/binary"
	"math"
	"sort"
	"strconv"
)

// A stream (t_stream.c) decoded: its entries in ID order, grouped in nodes
// the way Redis 7.0 groups them in radix tree nodes (listpacks of at most
// streamNodeMaxEntries entries or streamNodeMaxBytes bytes). The nodes are
// kept, deleted entries (tombstones) included, because Redis's approximate
// trimming (MAXLEN ~, MINID ~) removes whole nodes only: to trim the same
// entries lockredis must cut the stream at the same places.
//
// Payload:
//
//	flags | uvarint length | lastID | firstID | maxDeletedID | uvarint entriesAdded
//	| uvarint nodes × (uvarint n, n master fields, uvarint entries ×
//	    (flags, id, values when the fields are the master's,
//	     else uvarint nfields, nfields × (field, value)))
//	| uvarint groups × (name, lastID, zigzag entriesRead,
//	    uvarint consumers × (name, zigzag seenTime),
//	    uvarint pending × (id, zigzag deliveryTime, uvarint count, uvarint consumer+1))
//
// flags is 0 (reserved). An ID is two uvarints, a string its uvarint
// length and bytes. Groups are in name order, consumers too, pending
// entries in ID order: the orders of Redis's radix trees. As for the other
// collections, a command decodes the whole stream and encodes it back.
type streamID struct{ ms, seq uint64 }

var maxStreamID = streamID{math.MaxUint64, math.MaxUint64}

func (a streamID) cmp(b streamID) int {
	switch {
	case a.ms != b.ms:
		if a.ms < b.ms {
			return -1
		}
		return 1
	case a.seq < b.seq:
		return -1
	case a.seq > b.seq:
		return 1
	}
	return 0
}

func (a streamID) isZero() bool { return a.ms == 0 && a.seq == 0 }

func (a streamID) String() string {
	return strconv.FormatUint(a.ms, 10) + "-" + strconv.FormatUint(a.seq, 10)
}

// incr is streamIncrID: false (and 0-0) past the last possible ID.
func (a streamID) incr() (streamID, bool) {
	switch {
	case a.seq != math.MaxUint64:
		a.seq++
	case a.ms != math.MaxUint64:
		a.ms++
		a.seq = 0
	default:
		return streamID{}, false
	}
	return a, true
}

// decr is streamDecrID: false (and the max ID) before 0-0.
func (a streamID) decr() (streamID, bool) {
	switch {
	case a.seq != 0:
		a.seq--
	case a.ms != 0:
		a.ms--
		a.seq = math.MaxUint64
	default:
		return maxStreamID, false
	}
	return a, true
}

type streamEntry struct {
	id      streamID
	fields  []string // field, value, field, value...
	deleted bool
}

type streamNode struct {
	master  []string // the master entry's field names
	entries []streamEntry
	live    int
}

type streamNACK struct {
	id            streamID
	deliveryTime  int64
	deliveryCount uint64
	consumer      *streamConsumer
}

type streamConsumer struct {
	name     string
	seenTime int64
	pending  int // entries of the group PEL owned by this consumer
}

type streamGroup struct {
	name        string
	lastID      streamID
	entriesRead int64 // -1: unknown (SCG_INVALID_ENTRIES_READ)
	consumers   []*streamConsumer
	pel         []*streamNACK
}

type streamObj struct {
	nodes        []*streamNode
	length       uint64
	lastID       streamID
	firstID      streamID
	maxDeletedID streamID
	entriesAdded uint64
	groups       []*streamGroup
}

// Redis 7.0's defaults for stream-node-max-bytes and -entries.
const (
	streamNodeMaxBytes   = 4096
	streamNodeMaxEntries = 100
)

const (
	streamFlagDeleted    = 1
	streamFlagSameFields = 2
)

// sameFields reports whether an entry's field names are its node's master
// fields (STREAM_ITEM_FLAG_SAMEFIELDS): only values are stored then.
func (n *streamNode) sameFields(e *streamEntry) bool {
	if len(e.fields) != 2*len(n.master) {
		return false
	}
	for i, f := range n.master {
		if e.fields[2*i] != f {
			return false
		}
	}
	return true
}

// ------------------------------------------------------------ encoding

func appendID(b []byte, id streamID) []byte {
	b = binary.AppendUvarint(b, id.ms)
	return binary.AppendUvarint(b, id.seq)
}

func (r *payloadReader) id() streamID {
	ms := r.uvarint()
	return streamID{ms, r.uvarint()}
}

func (r *payloadReader) varint() int64 {
	u := r.uvarint()
	return int64(u>>1) ^ -int64(u&1)
}

func encodeStream(s *streamObj) string {
	b := make([]byte, 0, 64)
	b = append(b, 0)
	b = binary.AppendUvarint(b, s.length)
	b = appendID(b, s.lastID)
	b = appendID(b, s.firstID)
	b = appendID(b, s.maxDeletedID)
	b = binary.AppendUvarint(b, s.entriesAdded)
	b = binary.AppendUvarint(b, uint64(len(s.nodes)))
	for _, n := range s.nodes {
		b = binary.AppendUvarint(b, uint64(len(n.master)))
		for _, f := range n.master {
			b = appendStr(b, f)
		}
		b = binary.AppendUvarint(b, uint64(len(n.entries)))
		for i := range n.entries {
			e := &n.entries[i]
			flags := byte(0)
			if e.deleted {
				flags |= streamFlagDeleted
			}
			same := n.sameFields(e)
			if same {
				flags |= streamFlagSameFields
			}
			b = append(b, flags)
			b = appendID(b, e.id)
			if !same {
				b = binary.AppendUvarint(b, uint64(len(e.fields)/2))
			}
			for j := 0; j < len(e.fields); j += 2 {
				if !same {
					b = appendStr(b, e.fields[j])
				}
				b = appendStr(b, e.fields[j+1])
			}
		}
	}
	b = binary.AppendUvarint(b, uint64(len(s.groups)))
	for _, g := range s.groups {
		b = appendStr(b, g.name)
		b = appendID(b, g.lastID)
		b = binary.AppendVarint(b, g.entriesRead)
		b = binary.AppendUvarint(b, uint64(len(g.consumers)))
		index := make(map[*streamConsumer]int, len(g.consumers))
		for i, c := range g.consumers {
			index[c] = i
			b = appendStr(b, c.name)
			b = binary.AppendVarint(b, c.seenTime)
		}
		b = binary.AppendUvarint(b, uint64(len(g.pel)))
		for _, p := range g.pel {
			b = appendID(b, p.id)
			b = binary.AppendVarint(b, p.deliveryTime)
			b = binary.AppendUvarint(b, p.deliveryCount)
			ci := 0
			if p.consumer != nil {
				ci = index[p.consumer] + 1
			}
			b = binary.AppendUvarint(b, uint64(ci))
		}
	}
	return b2s(b)
}

func decodeStream(payload string) *streamObj {
	r := newPayloadReader(payload)
	r.byte()
	s := &streamObj{}
	s.length = r.uvarint()
	s.lastID = r.id()
	s.firstID = r.id()
	s.maxDeletedID = r.id()
	s.entriesAdded = r.uvarint()
	nn := r.count()
	s.nodes = make([]*streamNode, 0, nn)
	for i := 0; i < nn && r.ok; i++ {
		n := &streamNode{}
		nm := r.count()
		n.master = make([]string, 0, nm)
		for j := 0; j < nm && r.ok; j++ {
			n.master = append(n.master, r.str())
		}
		ne := r.count()
		n.entries = make([]streamEntry, 0, ne)
		for j := 0; j < ne && r.ok; j++ {
			flags := r.byte()
			e := streamEntry{id: r.id(), deleted: flags&streamFlagDeleted != 0}
			if flags&streamFlagSameFields != 0 {
				e.fields = make([]string, 0, 2*len(n.master))
				for _, f := range n.master {
					e.fields = append(e.fields, f, r.str())
				}
			} else {
				nf := r.count()
				e.fields = make([]string, 0, 2*nf)
				for k := 0; k < nf && r.ok; k++ {
					f := r.str()
					e.fields = append(e.fields, f, r.str())
				}
			}
			if !e.deleted {
				n.live++
			}
			n.entries = append(n.entries, e)
		}
		s.nodes = append(s.nodes, n)
	}
	ng := r.count()
	for i := 0; i < ng && r.ok; i++ {
		g := &streamGroup{name: r.str(), lastID: r.id(), entriesRead: r.varint()}
		nc := r.count()
		for j := 0; j < nc && r.ok; j++ {
			g.consumers = append(g.consumers, &streamConsumer{name: r.str(), seenTime: r.varint()})
		}
		np := r.count()
		for j := 0; j < np && r.ok; j++ {
			p := &streamNACK{id: r.id(), deliveryTime: r.varint(), deliveryCount: r.uvarint()}
			if ci := r.uvarint(); ci > 0 && ci <= uint64(len(g.consumers)) {
				p.consumer = g.consumers[ci-1]
				p.consumer.pending++
			}
			g.pel = append(g.pel, p)
		}
		s.groups = append(s.groups, g)
	}
	return s
}

func loadStream(tx *Tx, key []byte, read bool) (*streamObj, int64, error) {
	v, ok, err := lookupTyped(tx, key, TypeStream, read)
	if !ok {
		return nil, 0, err
	}
	return decodeStream(v.Payload), v.ExpireAt, nil
}

// storeStream writes the stream back. Unlike the other collections an
// empty stream stays: Redis keeps it (with its last ID and groups).
func storeStream(tx *Tx, key []byte, s *streamObj, expireAt int64) {
	tx.Put(key, Value{Type: TypeStream, ExpireAt: expireAt, Payload: encodeStream(s)})
}

// storeStreamQuiet is storeStream for the changes Redis makes without
// signalModifiedKey (consumer group state, XSETID): they do not break a
// WATCH nor invalidate a tracking client's cache.
func storeStreamQuiet(tx *Tx, key []byte, s *streamObj, expireAt int64) {
	tx.quiet = true
	defer func() { tx.quiet = false }()
	storeStream(tx, key, s, expireAt)
}

// ------------------------------------------------- listpack size model

// lpIntSize is the bytes a listpack spends on an integer element,
// encoding and back-length included.
func lpIntSize(v int64) int {
	switch {
	case v >= 0 && v <= 127:
		return 2
	case v >= -4096 && v <= 4095:
		return 3
	case v >= math.MinInt16 && v <= math.MaxInt16:
		return 4
	case v >= -(1<<23) && v < 1<<23:
		return 5
	case v >= math.MinInt32 && v <= math.MaxInt32:
		return 6
	}
	return 10
}

// lpStrSize is the bytes of a string element: an integer when it reads
// as one (lpStringToInt64), else a header, the bytes and a back-length.
func lpStrSize(s string) int {
	if v, ok := ParseInt([]byte(s)); ok {
		return lpIntSize(v)
	}
	l := len(s)
	switch {
	case l <= 63:
		l++
	case l <= 4095:
		l += 2
	default:
		l += 5
	}
	switch {
	case l <= 127:
		return l + 1
	case l < 16383:
		return l + 2
	case l < 2097151:
		return l + 3
	case l < 268435455:
		return l + 4
	}
	return l + 5
}

// bytes is lpBytes of the node's listpack in Redis.
func (n *streamNode) bytes() int {
	size := 6 + 1 // header and end byte
	master := n.entries[0].id
	size += lpIntSize(int64(n.live)) + lpIntSize(int64(len(n.entries)-n.live))
	size += lpIntSize(int64(len(n.master))) + lpIntSize(0)
	for _, f := range n.master {
		size += lpStrSize(f)
	}
	for i := range n.entries {
		e := &n.entries[i]
		nf := len(e.fields) / 2
		flags := int64(0)
		if e.deleted {
			flags |= streamFlagDeleted
		}
		same := n.sameFields(e)
		lpCount := int64(nf + 3)
		if same {
			flags |= streamFlagSameFields
		} else {
			lpCount += int64(nf + 1)
			size += lpIntSize(int64(nf))
		}
		size += lpIntSize(flags) + lpIntSize(int64(e.id.ms-master.ms)) + lpIntSize(int64(e.id.seq-master.seq))
		for j := 0; j < len(e.fields); j += 2 {
			if !same {
				size += lpStrSize(e.fields[j])
			}
			size += lpStrSize(e.fields[j+1])
		}
		size += lpIntSize(lpCount)
	}
	return size
}

// ------------------------------------------------------------ operations

// appendEntry adds an entry with a new, greater ID, opening a new node
// when the tail one is full, as streamAppendItem.
func (s *streamObj) appendEntry(id streamID, fields []string) {
	tot := 0
	for _, f := range fields {
		tot += len(f)
	}
	var tail *streamNode
	if len(s.nodes) > 0 {
		tail = s.nodes[len(s.nodes)-1]
		if tail.bytes()+tot >= streamNodeMaxBytes || len(tail.entries) >= streamNodeMaxEntries {
			tail = nil
		}
	}
	if tail == nil {
		tail = &streamNode{master: make([]string, 0, len(fields)/2)}
		for i := 0; i < len(fields); i += 2 {
			tail.master = append(tail.master, fields[i])
		}
		s.nodes = append(s.nodes, tail)
	}
	tail.entries = append(tail.entries, streamEntry{id: id, fields: fields})
	tail.live++
	s.length++
	s.entriesAdded++
	s.lastID = id
	if s.length == 1 {
		s.firstID = id
	}
}

// seek returns the position of the first entry (tombstones included)
// with an ID >= id.
func (s *streamObj) seek(id streamID) (int, int) {
	ni := sort.Search(len(s.nodes), func(i int) bool {
		es := s.nodes[i].entries
		return es[len(es)-1].id.cmp(id) >= 0
	})
	if ni == len(s.nodes) {
		return ni, 0
	}
	es := s.nodes[ni].entries
	return ni, sort.Search(len(es), func(i int) bool { return es[i].id.cmp(id) >= 0 })
}

// find returns the live entry with this ID.
func (s *streamObj) find(id streamID) *streamEntry {
	ni, ei := s.seek(id)
	if ni == len(s.nodes) {
		return nil
	}
	e := &s.nodes[ni].entries[ei]
	if e.id != id || e.deleted {
		return nil
	}
	return e
}

// rangeEntries calls fn for the live entries in [start, end], forward or
// in reverse, until fn returns false.
func (s *streamObj) rangeEntries(start, end streamID, rev bool, fn func(e *streamEntry) bool) {
	if start.cmp(end) > 0 {
		return
	}
	if !rev {
		ni, ei := s.seek(start)
		for ; ni < len(s.nodes); ni, ei = ni+1, 0 {
			es := s.nodes[ni].entries
			for ; ei < len(es); ei++ {
				e := &es[ei]
				if e.id.cmp(end) > 0 {
					return
				}
				if !e.deleted && !fn(e) {
					return
				}
			}
		}
		return
	}
	ni, ei := s.seek(end)
	if ni < len(s.nodes) && s.nodes[ni].entries[ei].id.cmp(end) <= 0 {
		ei++ // end itself is in range
	}
	// Walk back from just before (ni, ei).
	for {
		if ei == 0 {
			if ni == 0 {
				return
			}
			ni--
			ei = len(s.nodes[ni].entries)
			continue
		}
		if ni == len(s.nodes) {
			ni--
			ei = len(s.nodes[ni].entries)
			continue
		}
		ei--
		e := &s.nodes[ni].entries[ei]
		if e.id.cmp(start) < 0 {
			return
		}
		if !e.deleted && !fn(e) {
			return
		}
	}
}

// lastValidID is the ID of the last live entry (streamLastValidID).
func (s *streamObj) lastValidID() streamID {
	var id streamID
	s.rangeEntries(streamID{}, maxStreamID, true, func(e *streamEntry) bool {
		id = e.id
		return false
	})
	return id
}

// firstValidID is the first live entry's ID, or 0-0.
func (s *streamObj) firstValidID() streamID {
	var id streamID
	s.rangeEntries(streamID{}, maxStreamID, false, func(e *streamEntry) bool {
		id = e.id
		return false
	})
	return id
}

// deleteEntry is streamDeleteItem: it marks the entry deleted, dropping
// its node when no live entry is left.
func (s *streamObj) deleteEntry(id streamID) bool {
	ni, ei := s.seek(id)
	if ni == len(s.nodes) {
		return false
	}
	n := s.nodes[ni]
	e := &n.entries[ei]
	if e.id != id || e.deleted {
		return false
	}
	s.length--
	if n.live == 1 {
		s.nodes = append(s.nodes[:ni], s.nodes[ni+1:]...)
		return true
	}
	e.deleted = true
	n.live--
	return true
}

// trimArgs are the trimming options of XADD and XTRIM.
type trimArgs struct {
	strategy int // trimNone, trimMaxlen, trimMinid
	approx   bool
	limit    int64
	maxlen   int64
	minid    streamID
	argIdx   int
}

const (
	trimNone = iota
	trimMaxlen
	trimMinid
)

// trim is streamTrim: whole nodes go first; an exact trim then marks
// entries of the next node deleted; an approximate one stops there.
func (s *streamObj) trim(a *trimArgs) int64 {
	if a.strategy == trimNone {
		return 0
	}
	var deleted int64
	for len(s.nodes) > 0 {
		if a.strategy == trimMaxlen && s.length <= uint64(a.maxlen) {
			break
		}
		n := s.nodes[0]
		entries := int64(n.live)
		if a.limit != 0 && deleted+entries > a.limit {
			break
		}
		var remove bool
		if a.strategy == trimMaxlen {
			remove = int64(s.length)-entries >= a.maxlen
		} else {
			remove = n.entries[len(n.entries)-1].id.cmp(a.minid) < 0
		}
		if remove {
			s.nodes = s.nodes[1:]
			s.length -= uint64(entries)
			deleted += entries
			continue
		}
		if a.approx {
			break
		}
		for i := range n.entries {
			e := &n.entries[i]
			var stop bool
			if a.strategy == trimMaxlen {
				stop = s.length <= uint64(a.maxlen)
			} else {
				stop = e.id.cmp(a.minid) >= 0
			}
			if stop {
				break
			}
			if !e.deleted {
				e.deleted = true
				n.live--
				s.length--
				deleted++
			}
		}
		break
	}
	if s.length == 0 {
		s.firstID = streamID{}
	} else if deleted > 0 {
		s.firstID = s.firstValidID()
	}
	return deleted
}

// ------------------------------------------------------------- groups

// group finds a consumer group; nil when there is none, or no stream (s
// nil: a missing key).
func (s *streamObj) group(name []byte) *streamGroup {
	if s == nil {
		return nil
	}
	i := sort.Search(len(s.groups), func(i int) bool { return s.groups[i].name >= string(name) })
	if i < len(s.groups) && s.groups[i].name == string(name) {
		return s.groups[i]
	}
	return nil
}

// addGroup creates a group; nil when the name is taken.
func (s *streamObj) addGroup(name []byte, id streamID, entriesRead int64) *streamGroup {
	i := sort.Search(len(s.groups), func(i int) bool { return s.groups[i].name >= string(name) })
	if i < len(s.groups) && s.groups[i].name == string(name) {
		return nil
	}
	g := &streamGroup{name: string(name), lastID: id, entriesRead: entriesRead}
	s.groups = append(s.groups, nil)
	copy(s.groups[i+1:], s.groups[i:])
	s.groups[i] = g
	return g
}

func (s *streamObj) removeGroup(name []byte) bool {
	for i, g := range s.groups {
		if g.name == string(name) {
			s.groups = append(s.groups[:i], s.groups[i+1:]...)
			return true
		}
	}
	return false
}

func (g *streamGroup) consumer(name []byte) *streamConsumer {
	i := sort.Search(len(g.consumers), func(i int) bool { return g.consumers[i].name >= string(name) })
	if i < len(g.consumers) && g.consumers[i].name == string(name) {
		return g.consumers[i]
	}
	return nil
}

// addConsumer creates a consumer; nil when it exists.
func (g *streamGroup) addConsumer(name []byte, now int64) *streamConsumer {
	i := sort.Search(len(g.consumers), func(i int) bool { return g.consumers[i].name >= string(name) })
	if i < len(g.consumers) && g.consumers[i].name == string(name) {
		return nil
	}
	c := &streamConsumer{name: string(name), seenTime: now}
	g.consumers = append(g.consumers, nil)
	copy(g.consumers[i+1:], g.consumers[i:])
	g.consumers[i] = c
	return c
}

// delConsumer removes a consumer and its pending entries.
func (g *streamGroup) delConsumer(c *streamConsumer) {
	pel := g.pel[:0]
	for _, p := range g.pel {
		if p.consumer != c {
			pel = append(pel, p)
		}
	}
	g.pel = pel
	for i, x := range g.consumers {
		if x == c {
			g.consumers = append(g.consumers[:i], g.consumers[i+1:]...)
			break
		}
	}
}

// seekPEL is the position of the first pending entry with an ID >= id.
func (g *streamGroup) seekPEL(id streamID) int {
	return sort.Search(len(g.pel), func(i int) bool { return g.pel[i].id.cmp(id) >= 0 })
}

func (g *streamGroup) nack(id streamID) *streamNACK {
	i := g.seekPEL(id)
	if i < len(g.pel) && g.pel[i].id == id {
		return g.pel[i]
	}
	return nil
}

// insertNACK adds p in ID order; p's ID must not be pending.
func (g *streamGroup) insertNACK(p *streamNACK) {
	i := g.seekPEL(p.id)
	g.pel = append(g.pel, nil)
	copy(g.pel[i+1:], g.pel[i:])
	g.pel[i] = p
}

// removeNACK drops the pending entry at position i.
func (g *streamGroup) removeNACK(i int) {
	if c := g.pel[i].consumer; c != nil {
		c.pending--
	}
	g.pel = append(g.pel[:i], g.pel[i+1:]...)
}

func (p *streamNACK) setConsumer(c *streamConsumer) {
	if p.consumer != nil {
		p.consumer.pending--
	}
	p.consumer = c
	c.pending++
}

// rangeHasTombstones is streamRangeHasTombstones with no end: whether a
// deleted entry may lie at or after start.
func (s *streamObj) rangeHasTombstones(start streamID) bool {
	if s.length == 0 || s.maxDeletedID.isZero() {
		return false
	}
	// A tombstone before the first entry no longer matters.
	if s.firstID.cmp(s.maxDeletedID) > 0 {
		return false
	}
	return start.cmp(s.maxDeletedID) <= 0
}

// estimateDistance is streamEstimateDistanceFromFirstEverEntry.
func (s *streamObj) estimateDistance(id streamID) int64 {
	if s.entriesAdded == 0 {
		return 0
	}
	if s.length == 0 && id.cmp(s.lastID) < 1 {
		return int64(s.entriesAdded)
	}
	cmpLast := id.cmp(s.lastID)
	if cmpLast == 0 {
		return int64(s.entriesAdded)
	} else if cmpLast > 0 {
		return -1
	}
	cmpFirst := id.cmp(s.firstID)
	if s.maxDeletedID.isZero() || s.maxDeletedID.cmp(s.firstID) < 0 {
		if cmpFirst < 0 {
			return int64(s.entriesAdded - s.length)
		} else if cmpFirst == 0 {
			return int64(s.entriesAdded - s.length + 1)
		}
	}
	return -1
}

// lag is XINFO's lag of a group (streamReplyWithCGLag in 7.0).
func (s *streamObj) lag(g *streamGroup) (int64, bool) {
	if s.entriesAdded == 0 {
		return 0, true
	}
	valid := false
	var read int64
	if g.entriesRead != -1 && !s.rangeHasTombstones(g.lastID) {
		valid, read = true, g.entriesRead
	} else {
		if read = s.estimateDistance(g.lastID); read != -1 {
			valid = true
		}
	}
	if !valid {
		return 0, false
	}
	return int64(s.entriesAdded) - read, true
}

// collectRange gathers up to count (0: all) live entries of [start, end].
func (s *streamObj) collectRange(start, end streamID, count int64, rev bool) []*streamEntry {
	var out []*streamEntry
	s.rangeEntries(start, end, rev, func(e *streamEntry) bool {
		out = append(out, e)
		return count == 0 || int64(len(out)) < count
	})
	return out
}
