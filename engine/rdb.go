package engine

import (
	"encoding/binary"
	"errors"
	"math"
	"sort"
	"strconv"
)

// The DUMP payload: a value serialized as Redis 7.0 writes it in an RDB
// file (rdb.c), followed by the RDB version (2 bytes) and a CRC64 of
// everything before it (8 bytes), both little-endian.
//
// dumpPayload writes what redis-server writes for the same value, byte for
// byte, where Redis's own output is deterministic: strings (integer, plain
// or LZF-compressed), listpack hashes and sorted sets, intsets, skiplist
// sorted sets and lists. Hashtable hashes and sets come out in lockredis's
// order (Redis's is its dict's). Two things depend on history in Redis and
// are computed from the content here: a list's nodes are cut as RPUSH would
// have cut them (Redis's depend on how the list grew, or on the payload it
// was restored from), and an intset's integer width is the smallest that
// holds its members (Redis never narrows it after SREM).
//
// RESTORE checks more than Redis does without sanitize-dump-payload: a
// listpack sorted set whose entries are out of order is sorted here (Redis
// keeps the broken order), and duplicates are refused.
//
// restorePayload reads what Redis 7.0 DUMP writes, and what older
// versions wrote that 7.0 still reads (plain lists, string-scored sorted
// sets, ziplists); zipmaps (Redis 2.4), streams and module values, which
// lockredis does not have, are refused as "Bad data format". It
// checks everything, allocates at most a bounded multiple of the payload,
// and never panics (FuzzRestorePayload).

const rdbVersion = 10

// RDB object types.
const (
	rdbTypeString         = 0
	rdbTypeList           = 1
	rdbTypeSet            = 2
	rdbTypeZset           = 3
	rdbTypeHash           = 4
	rdbTypeZset2          = 5
	rdbTypeListZiplist    = 10
	rdbTypeSetIntset      = 11
	rdbTypeZsetZiplist    = 12
	rdbTypeHashZiplist    = 13
	rdbTypeListQuicklist1 = 14
	rdbTypeHashListpack   = 16
	rdbTypeZsetListpack   = 17
	rdbTypeListQuicklist  = 18
)

// Length and string encodings.
const (
	rdbEncInt8  = 0xC0
	rdbEncInt16 = 0xC1
	rdbEncInt32 = 0xC2
	rdbEncLZF   = 0xC3
)

// quicklistNodeLimit is list-max-listpack-size -2: a node's listpack
// takes another element while it stays within 8 kB (quicklist.c
// _quicklistNodeAllowInsert, with its 8 bytes of estimated overhead).
const (
	quicklistNodeLimit    = 8192
	quicklistSizeOverhead = 8
	quicklistPacked       = 2
	quicklistPlain        = 1
)

var (
	errBadDataFormat = errors.New("ERR Bad data format")
)

// ------------------------------------------------------------- writing

// canDump reports whether dumpPayload can write v: streams are not
// serialized (Redis's RDB stream format is not implemented), and their DUMP
// or MIGRATE is refused rather than answered with a payload nobody could
// restore.
func canDump(v Value) bool { return v.Type != TypeStream }

func dumpPayload(v Value) []byte {
	var b []byte
	switch v.Type {
	case TypeString:
		b = append(b, rdbTypeString)
		b = AppendRDBString(b, v.Payload)
	case TypeList:
		b = append(b, rdbTypeListQuicklist)
		b = rdbAppendQuicklist(b, decodeList(v.Payload).elems)
	case TypeSet:
		s := decodeSet(v.Payload)
		if s.intset {
			b = append(b, rdbTypeSetIntset)
			b = AppendRDBString(b, b2s(intsetBlob(s.ints)))
		} else {
			b = append(b, rdbTypeSet)
			b = rdbAppendLen(b, uint64(len(s.members)))
			for _, m := range s.members {
				b = AppendRDBString(b, m)
			}
		}
	case TypeZSet:
		z := decodeZset(v.Payload)
		if z.large {
			// From the greatest to the smallest, as Redis walks its
			// skiplist backwards.
			b = append(b, rdbTypeZset2)
			b = rdbAppendLen(b, uint64(len(z.ents)))
			for i := len(z.ents) - 1; i >= 0; i-- {
				b = AppendRDBString(b, z.ents[i].member)
				b = binary.LittleEndian.AppendUint64(b, math.Float64bits(z.ents[i].score))
			}
		} else {
			var lp listpack
			for _, e := range z.ents {
				lp.add(e.member)
				lp.add(listpackScoreText(e.score))
			}
			b = append(b, rdbTypeZsetListpack)
			b = AppendRDBString(b, b2s(lp.bytes()))
		}
	case TypeHash:
		h := decodeHash(v.Payload)
		if h.large {
			b = append(b, rdbTypeHash)
			b = rdbAppendLen(b, uint64(h.live))
			h.each(func(f, val string) {
				b = AppendRDBString(b, f)
				b = AppendRDBString(b, val)
			})
		} else {
			var lp listpack
			h.each(func(f, val string) {
				lp.add(f)
				lp.add(val)
			})
			b = append(b, rdbTypeHashListpack)
			b = AppendRDBString(b, b2s(lp.bytes()))
		}
	}
	return AppendRDBTrailer(b)
}

// AppendRDBTrailer ends a payload as DUMP and FUNCTION DUMP do: the RDB
// version and the CRC64 of everything before it, both little-endian.
func AppendRDBTrailer(b []byte) []byte {
	b = binary.LittleEndian.AppendUint16(b, rdbVersion)
	return binary.LittleEndian.AppendUint64(b, crc64Redis(0, b))
}

// rdbAppendLen is rdbSaveLen: 6, 14, 32 or 64 bits.
func rdbAppendLen(b []byte, n uint64) []byte {
	switch {
	case n < 1<<6:
		return append(b, byte(n))
	case n < 1<<14:
		return append(b, byte(n>>8)|0x40, byte(n))
	case n <= math.MaxUint32:
		return binary.BigEndian.AppendUint32(append(b, 0x80), uint32(n))
	}
	return binary.BigEndian.AppendUint64(append(b, 0x81), n)
}

// AppendRDBString is rdbSaveRawString: short canonical integers that fit
// 32 bits as integers, strings over 20 bytes LZF-compressed when that
// saves at least 4 bytes (rdbcompression yes), the rest as they are.
func AppendRDBString(b []byte, s string) []byte {
	if len(s) <= 11 {
		if v, ok := ParseInt(StringBytes(s)); ok && strconv.FormatInt(v, 10) == s {
			switch {
			case v >= math.MinInt8 && v <= math.MaxInt8:
				return append(b, rdbEncInt8, byte(v))
			case v >= math.MinInt16 && v <= math.MaxInt16:
				return binary.LittleEndian.AppendUint16(append(b, rdbEncInt16), uint16(v))
			case v >= math.MinInt32 && v <= math.MaxInt32:
				return binary.LittleEndian.AppendUint32(append(b, rdbEncInt32), uint32(v))
			}
		}
	}
	if len(s) > 20 {
		if c := lzfCompress(StringBytes(s), len(s)-4); c != nil {
			b = append(b, rdbEncLZF)
			b = rdbAppendLen(b, uint64(len(c)))
			b = rdbAppendLen(b, uint64(len(s)))
			return append(b, c...)
		}
	}
	b = rdbAppendLen(b, uint64(len(s)))
	return append(b, s...)
}

// rdbAppendQuicklist is a list as RDB_TYPE_LIST_QUICKLIST_2: its nodes,
// each a listpack, cut as RPUSH fills them.
func rdbAppendQuicklist(b []byte, elems []string) []byte {
	var nodes [][]byte
	var lp listpack
	for i, e := range elems {
		if i > 0 && lp.size()+len(e)+quicklistSizeOverhead > quicklistNodeLimit {
			nodes = append(nodes, lp.bytes())
			lp = listpack{}
		}
		lp.add(e)
	}
	nodes = append(nodes, lp.bytes())
	b = rdbAppendLen(b, uint64(len(nodes)))
	for _, n := range nodes {
		b = rdbAppendLen(b, quicklistPacked)
		b = AppendRDBString(b, b2s(n))
	}
	return b
}

// intsetBlob is an intset as Redis lays it out: its width (2, 4 or 8
// bytes), its length, and the members ascending, all little-endian.
func intsetBlob(ints []int64) []byte {
	width := 2
	for _, v := range ints {
		switch {
		case v < math.MinInt32 || v > math.MaxInt32:
			width = 8
		case (v < math.MinInt16 || v > math.MaxInt16) && width < 4:
			width = 4
		}
	}
	b := make([]byte, 0, 8+width*len(ints))
	b = binary.LittleEndian.AppendUint32(b, uint32(width))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(ints)))
	for _, v := range ints {
		switch width {
		case 2:
			b = binary.LittleEndian.AppendUint16(b, uint16(v))
		case 4:
			b = binary.LittleEndian.AppendUint32(b, uint32(v))
		default:
			b = binary.LittleEndian.AppendUint64(b, uint64(v))
		}
	}
	return b
}

// listpack builds a listpack (listpack.c) by appending: a 6-byte header
// (total bytes, element count), the entries, and an 0xFF terminator.
type listpack struct {
	b []byte // header and entries, no terminator yet
	n int
}

// size is lpBytes: the listpack's size once terminated.
func (lp *listpack) size() int {
	if lp.b == nil {
		return 7
	}
	return len(lp.b) + 1
}

// add appends an element as lpAppend does: a canonical integer of up to
// 20 characters as an integer, anything else as a string.
func (lp *listpack) add(s string) {
	if lp.b == nil {
		lp.b = make([]byte, 6, 64)
	}
	start := len(lp.b)
	if v, ok := lpStringToInt64(s); ok {
		lp.b = lpAppendInt(lp.b, v)
	} else {
		switch n := len(s); {
		case n < 64:
			lp.b = append(lp.b, 0x80|byte(n))
		case n < 4096:
			lp.b = append(lp.b, 0xE0|byte(n>>8), byte(n))
		default:
			lp.b = binary.LittleEndian.AppendUint32(append(lp.b, 0xF0), uint32(n))
		}
		lp.b = append(lp.b, s...)
	}
	lp.b = lpAppendBacklen(lp.b, uint64(len(lp.b)-start))
	lp.n++
}

func (lp *listpack) bytes() []byte {
	if lp.b == nil {
		lp.b = make([]byte, 6)
	}
	out := append(lp.b, 0xFF)
	binary.LittleEndian.PutUint32(out, uint32(len(out)))
	binary.LittleEndian.PutUint16(out[4:], uint16(min(lp.n, 65535)))
	return out
}

// lpStringToInt64 is listpack.c's: strictly canonical decimal (no sign
// but '-', no leading zeros, no "-0"), shorter than 21 bytes.
func lpStringToInt64(s string) (int64, bool) {
	if len(s) == 0 || len(s) >= 21 {
		return 0, false
	}
	if s == "0" {
		return 0, true
	}
	p := s
	if p[0] == '-' {
		p = p[1:]
	}
	if len(p) == 0 || p[0] < '1' || p[0] > '9' {
		return 0, false
	}
	for i := 1; i < len(p); i++ {
		if p[i] < '0' || p[i] > '9' {
			return 0, false
		}
	}
	v, err := strconv.ParseInt(s, 10, 64)
	return v, err == nil
}

// lpAppendInt is lpEncodeIntegerGetType: the narrowest of 7, 13, 16, 24,
// 32 and 64 bits.
func lpAppendInt(b []byte, v int64) []byte {
	switch {
	case v >= 0 && v <= 127:
		return append(b, byte(v))
	case v >= -4096 && v <= 4095:
		u := uint64(v) & (1<<13 - 1)
		return append(b, byte(u>>8)|0xC0, byte(u))
	case v >= math.MinInt16 && v <= math.MaxInt16:
		return binary.LittleEndian.AppendUint16(append(b, 0xF1), uint16(v))
	case v >= -1<<23 && v <= 1<<23-1:
		u := uint32(v)
		return append(b, 0xF2, byte(u), byte(u>>8), byte(u>>16))
	case v >= math.MinInt32 && v <= math.MaxInt32:
		return binary.LittleEndian.AppendUint32(append(b, 0xF3), uint32(v))
	}
	return binary.LittleEndian.AppendUint64(append(b, 0xF4), uint64(v))
}

// lpAppendBacklen is lpEncodeBacklen: the entry's length, read backwards.
func lpAppendBacklen(b []byte, l uint64) []byte {
	switch {
	case l <= 127:
		return append(b, byte(l))
	case l < 16383:
		return append(b, byte(l>>7), byte(l&127)|128)
	case l < 2097151:
		return append(b, byte(l>>14), byte(l>>7&127)|128, byte(l&127)|128)
	case l < 268435455:
		return append(b, byte(l>>21), byte(l>>14&127)|128, byte(l>>7&127)|128, byte(l&127)|128)
	}
	return append(b, byte(l>>28), byte(l>>21&127)|128, byte(l>>14&127)|128, byte(l>>7&127)|128, byte(l&127)|128)
}

// ------------------------------------------------------------- reading

// RDBPayloadBody checks a DUMP or FUNCTION DUMP payload's trailer (a
// version Redis 7.0 can read, the checksum) and returns what precedes it;
// false when the trailer is wrong.
func RDBPayloadBody(p []byte) ([]byte, bool) {
	if len(p) < 10 {
		return nil, false
	}
	body, footer := p[:len(p)-10], p[len(p)-10:]
	if binary.LittleEndian.Uint16(footer) > rdbVersion ||
		crc64Redis(0, p[:len(p)-8]) != binary.LittleEndian.Uint64(footer[2:]) {
		return nil, false
	}
	return body, true
}

// RDBReader reads the RDB encodings of a payload's body; any malformation
// makes it Bad, and every later read returns zero values.
type RDBReader struct {
	b   []byte
	bad bool
}

// NewRDBReader reads body, a payload without its trailer.
func NewRDBReader(body []byte) *RDBReader { return &RDBReader{b: body} }

// Bad says whether anything read so far was malformed or missing.
func (r *RDBReader) Bad() bool { return r.bad }

// More says whether bytes are left to read (none once Bad).
func (r *RDBReader) More() bool { return len(r.b) > 0 }

func (r *RDBReader) fail() { r.bad, r.b = true, nil }

func (r *RDBReader) take(n uint64) []byte {
	if r.bad || n > uint64(len(r.b)) {
		r.fail()
		return nil
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

// Byte reads one byte (0 past the end, which fails the reader).
func (r *RDBReader) Byte() byte {
	if b := r.take(1); b != nil {
		return b[0]
	}
	return 0
}

// Length is rdbLoadLenByRef; enc is the string encoding (0xC0..0xC3)
// when the length byte is one, and -1 when not. n is then the encoding's
// low 6 bits, the length rdbLoadLen (which ignores encodings) reads.
func (r *RDBReader) Length() (n uint64, enc int) {
	first := r.Byte()
	switch first >> 6 {
	case 0:
		return uint64(first & 0x3F), -1
	case 1:
		return uint64(first&0x3F)<<8 | uint64(r.Byte()), -1
	case 3:
		return uint64(first & 0x3F), int(first)
	}
	switch first {
	case 0x80:
		if b := r.take(4); b != nil {
			return uint64(binary.BigEndian.Uint32(b)), -1
		}
	case 0x81:
		if b := r.take(8); b != nil {
			return binary.BigEndian.Uint64(b), -1
		}
	default:
		r.fail()
	}
	return 0, -1
}

// count reads a number of elements, each of which takes at least min
// bytes: a count the rest of the payload cannot hold is malformed.
func (r *RDBReader) count(minBytes uint64) uint64 {
	n, enc := r.Length()
	if enc >= 0 || n == 0 || n > uint64(len(r.b))/minBytes {
		r.fail()
		return 0
	}
	return n
}

// lzfMaxRatio bounds what an LZF string may claim to expand to: a 3-byte
// back reference yields at most 264 bytes.
const lzfMaxRatio = 88

// Str is rdbGenericLoadStringObject: a plain, integer or LZF string.
func (r *RDBReader) Str() string {
	n, enc := r.Length()
	switch enc {
	case -1:
		return string(r.take(n))
	case rdbEncInt8:
		return strconv.Itoa(int(int8(r.Byte())))
	case rdbEncInt16:
		if b := r.take(2); b != nil {
			return strconv.Itoa(int(int16(binary.LittleEndian.Uint16(b))))
		}
	case rdbEncInt32:
		if b := r.take(4); b != nil {
			return strconv.Itoa(int(int32(binary.LittleEndian.Uint32(b))))
		}
	case rdbEncLZF:
		// Both lengths as rdbLoadLen reads them: an encoding byte counts
		// as its low 6 bits.
		clen, _ := r.Length()
		ulen, _ := r.Length()
		if r.bad || ulen > clen*lzfMaxRatio+lzfMaxRatio {
			r.fail()
			return ""
		}
		c := r.take(clen)
		if r.bad {
			return ""
		}
		out, ok := lzfDecompress(c, int(ulen))
		if !ok {
			r.fail()
			return ""
		}
		return b2s(out)
	default:
		r.fail()
	}
	return ""
}

func (r *RDBReader) binaryDouble() float64 {
	if b := r.take(8); b != nil {
		return math.Float64frombits(binary.LittleEndian.Uint64(b))
	}
	return 0
}

// oldDouble is rdbLoadDoubleValue (RDB_TYPE_ZSET): a length byte, 253..255
// for nan, inf and -inf, else that many bytes of text.
func (r *RDBReader) oldDouble() float64 {
	switch n := r.Byte(); n {
	case 253:
		return math.NaN()
	case 254:
		return math.Inf(1)
	case 255:
		return math.Inf(-1)
	default:
		f, ok := parseScoreText(b2s(r.take(uint64(n))))
		if !ok {
			r.fail()
		}
		return f
	}
}

// parseScoreText reads a score a listpack or an old RDB stores as text.
func parseScoreText(s string) (float64, bool) {
	f, n, _ := strtod(StringBytes(s))
	return f, n == len(s) && n > 0 && !math.IsNaN(f)
}

// restorePayload decodes a DUMP payload's body (see RDBPayloadBody) into
// a value with the encoding Redis 7.0 would give it on RESTORE.
func restorePayload(body []byte) (Value, error) {
	r := NewRDBReader(body)
	v, ok := r.object()
	if !ok || r.bad {
		return Value{}, errBadDataFormat
	}
	return v, nil
}

func (r *RDBReader) object() (Value, bool) {
	switch t := r.Byte(); t {
	case rdbTypeString:
		s := r.Str()
		return Value{Type: TypeString, Payload: s}, !r.bad
	case rdbTypeList:
		n := r.count(1)
		l := &listObj{}
		for i := uint64(0); i < n && !r.bad; i++ {
			l.elems = append(l.elems, r.Str())
		}
		return Value{Type: TypeList, Payload: encodeList(l)}, !r.bad && len(l.elems) > 0
	case rdbTypeListQuicklist, rdbTypeListQuicklist1:
		return r.quicklist(t == rdbTypeListQuicklist1)
	case rdbTypeListZiplist:
		items, ok := parseZiplist(r.Str())
		if !ok || r.bad || len(items) == 0 {
			return Value{}, false
		}
		return Value{Type: TypeList, Payload: encodeList(&listObj{elems: items})}, true
	case rdbTypeSet:
		n := r.count(1)
		members := make([]string, 0, min(n, 1024))
		for i := uint64(0); i < n && !r.bad; i++ {
			members = append(members, r.Str())
		}
		if r.bad {
			return Value{}, false
		}
		return restoredSet(members, n > setMaxIntsetEntries)
	case rdbTypeSetIntset:
		ints, ok := parseIntset(r.Str())
		if !ok || r.bad {
			return Value{}, false
		}
		members := make([]string, len(ints))
		for i, v := range ints {
			members[i] = strconv.FormatInt(v, 10)
		}
		return restoredSet(members, len(ints) > setMaxIntsetEntries)
	case rdbTypeZset, rdbTypeZset2:
		n := r.count(2)
		ents := make([]zent, 0, min(n, 1024))
		maxLen := 0
		for i := uint64(0); i < n && !r.bad; i++ {
			m := r.Str()
			var sc float64
			if t == rdbTypeZset2 {
				sc = r.binaryDouble()
			} else {
				sc = r.oldDouble()
			}
			if math.IsNaN(sc) {
				return Value{}, false
			}
			maxLen = max(maxLen, len(m))
			ents = append(ents, zent{member: m, score: sc})
		}
		if r.bad {
			return Value{}, false
		}
		large := len(ents) > zsetMaxListpackEntries || maxLen > zsetMaxListpackValue
		return restoredZset(ents, large)
	case rdbTypeZsetListpack, rdbTypeZsetZiplist:
		parse := parseListpack
		if t == rdbTypeZsetZiplist {
			parse = parseZiplist
		}
		items, ok := parse(r.Str())
		if !ok || r.bad || len(items) == 0 || len(items)%2 != 0 {
			return Value{}, false
		}
		ents := make([]zent, 0, len(items)/2)
		for i := 0; i < len(items); i += 2 {
			sc, ok := parseScoreText(items[i+1])
			if !ok {
				return Value{}, false
			}
			ents = append(ents, zent{member: items[i], score: sc})
		}
		return restoredZset(ents, len(ents) > zsetMaxListpackEntries)
	case rdbTypeHash:
		n := r.count(2)
		h := &hashObj{large: n > hashMaxListpackEntries}
		for i := uint64(0); i < n && !r.bad; i++ {
			f, val := r.Str(), r.Str()
			if len(f) > hashMaxListpackValue || len(val) > hashMaxListpackValue {
				h.large = true
			}
			h.ents = append(h.ents, hashEntry{field: f, value: val})
		}
		if r.bad {
			return Value{}, false
		}
		return restoredHash(h)
	case rdbTypeHashListpack, rdbTypeHashZiplist:
		parse := parseListpack
		if t == rdbTypeHashZiplist {
			parse = parseZiplist
		}
		items, ok := parse(r.Str())
		if !ok || r.bad || len(items) == 0 || len(items)%2 != 0 {
			return Value{}, false
		}
		h := &hashObj{large: len(items)/2 > hashMaxListpackEntries}
		for i := 0; i < len(items); i += 2 {
			h.ents = append(h.ents, hashEntry{field: items[i], value: items[i+1]})
		}
		return restoredHash(h)
	}
	return Value{}, false
}

// quicklist reads RDB_TYPE_LIST_QUICKLIST_2: nodes holding a listpack (or
// one element, a plain node), or the older RDB_TYPE_LIST_QUICKLIST:
// ziplist nodes. Empty nodes are skipped as in Redis.
func (r *RDBReader) quicklist(ziplists bool) (Value, bool) {
	n := r.count(1)
	l := &listObj{}
	for i := uint64(0); i < n && !r.bad; i++ {
		container := uint64(quicklistPacked)
		if !ziplists {
			var enc int
			container, enc = r.Length()
			if enc >= 0 || (container != quicklistPacked && container != quicklistPlain) {
				return Value{}, false
			}
		}
		data := r.Str()
		if r.bad || len(data) == 0 {
			return Value{}, false
		}
		if container == quicklistPlain {
			l.elems = append(l.elems, data)
			continue
		}
		parse := parseListpack
		if ziplists {
			parse = parseZiplist
		}
		items, ok := parse(data)
		if !ok {
			return Value{}, false
		}
		l.elems = append(l.elems, items...)
	}
	if r.bad || len(l.elems) == 0 {
		return Value{}, false
	}
	return Value{Type: TypeList, Payload: encodeList(l)}, true
}

// restoredSet builds a set as rdbLoadObject does: an intset while every
// member is an integer and there are few enough, else a hashtable.
// Duplicates are malformed.
func restoredSet(members []string, large bool) (Value, bool) {
	s := &setObj{intset: !large}
	if s.intset {
		for _, m := range members {
			v, ok := ParseInt(StringBytes(m))
			if !ok {
				s.intset = false
				break
			}
			s.ints = append(s.ints, v)
		}
	}
	if s.intset {
		sort.Slice(s.ints, func(i, j int) bool { return s.ints[i] < s.ints[j] })
		for i := 1; i < len(s.ints); i++ {
			if s.ints[i] == s.ints[i-1] {
				return Value{}, false
			}
		}
	} else {
		s.ints = nil
		s.members = append([]string(nil), members...)
		sort.Strings(s.members)
		for i := 1; i < len(s.members); i++ {
			if s.members[i] == s.members[i-1] {
				return Value{}, false
			}
		}
	}
	return Value{Type: TypeSet, Payload: encodeSet(s)}, s.size() > 0
}

// restoredZset orders the entries; a listpack stores integral scores as
// integers (so -0 reads as 0). Duplicate members are malformed.
func restoredZset(ents []zent, large bool) (Value, bool) {
	if !large {
		for i := range ents {
			ents[i].score = listpackScore(ents[i].score)
		}
	}
	seen := make(map[string]struct{}, len(ents))
	for _, e := range ents {
		if _, dup := seen[e.member]; dup {
			return Value{}, false
		}
		seen[e.member] = struct{}{}
	}
	sort.Slice(ents, func(i, j int) bool { return zless(ents[i], ents[j]) })
	z := &zsetObj{large: large, ents: ents}
	return Value{Type: TypeZSet, Payload: encodeZset(z)}, len(ents) > 0
}

// restoredHash keeps the payload's field order. Duplicate fields are
// malformed.
func restoredHash(h *hashObj) (Value, bool) {
	seen := make(map[string]struct{}, len(h.ents))
	for _, e := range h.ents {
		if _, dup := seen[e.field]; dup {
			return Value{}, false
		}
		seen[e.field] = struct{}{}
	}
	h.live = len(h.ents)
	return Value{Type: TypeHash, Payload: encodeHash(h)}, h.live > 0
}

// parseIntset checks and reads an intset blob: a width of 2, 4 or 8, a
// length matching the blob, members strictly ascending.
func parseIntset(blob string) ([]int64, bool) {
	if len(blob) < 8 {
		return nil, false
	}
	b := StringBytes(blob)
	width := binary.LittleEndian.Uint32(b)
	n := uint64(binary.LittleEndian.Uint32(b[4:]))
	if (width != 2 && width != 4 && width != 8) || uint64(len(b)-8) != n*uint64(width) || n == 0 {
		return nil, false
	}
	out := make([]int64, n)
	for i := range out {
		at := b[8+i*int(width):]
		switch width {
		case 2:
			out[i] = int64(int16(binary.LittleEndian.Uint16(at)))
		case 4:
			out[i] = int64(int32(binary.LittleEndian.Uint32(at)))
		default:
			out[i] = int64(binary.LittleEndian.Uint64(at))
		}
		if i > 0 && out[i] <= out[i-1] {
			return nil, false
		}
	}
	return out, true
}

// parseListpack checks and reads a listpack: its header's size, every
// entry and back length, the count (unless 65535, "unknown"), and the
// terminator at the very end.
func parseListpack(blob string) ([]string, bool) {
	b := StringBytes(blob)
	if len(b) < 7 || binary.LittleEndian.Uint32(b) != uint32(len(b)) || b[len(b)-1] != 0xFF {
		return nil, false
	}
	count := int(binary.LittleEndian.Uint16(b[4:]))
	var out []string
	p := 6
	for p < len(b)-1 {
		s, n, ok := lpEntry(b[p : len(b)-1])
		if !ok {
			return nil, false
		}
		// The back length must follow and say n.
		bl := lpAppendBacklen(nil, uint64(n))
		if p+n+len(bl) > len(b)-1 || string(b[p+n:p+n+len(bl)]) != string(bl) {
			return nil, false
		}
		out = append(out, s)
		p += n + len(bl)
	}
	if p != len(b)-1 || (count != 65535 && count != len(out)) {
		return nil, false
	}
	return out, true
}

// lpEntry decodes the entry at the start of b: its value as a string and
// the length of its encoding and data.
func lpEntry(b []byte) (string, int, bool) {
	if len(b) == 0 {
		return "", 0, false
	}
	e := b[0]
	switch {
	case e&0x80 == 0: // 7-bit unsigned
		return strconv.Itoa(int(e)), 1, true
	case e&0xC0 == 0x80: // 6-bit string length
		return entryStr(b, 1, int(e&0x3F))
	case e&0xE0 == 0xC0: // 13-bit int
		if len(b) < 2 {
			return "", 0, false
		}
		u := uint64(e&0x1F)<<8 | uint64(b[1])
		v := int64(u<<51) >> 51
		return strconv.FormatInt(v, 10), 2, true
	case e&0xF0 == 0xE0: // 12-bit string length
		if len(b) < 2 {
			return "", 0, false
		}
		return entryStr(b, 2, int(e&0x0F)<<8|int(b[1]))
	case e == 0xF0: // 32-bit string length
		if len(b) < 5 {
			return "", 0, false
		}
		return entryStr(b, 5, int(binary.LittleEndian.Uint32(b[1:])))
	case e == 0xF1:
		return entryInt(b, 2, 16)
	case e == 0xF2:
		return entryInt(b, 3, 24)
	case e == 0xF3:
		return entryInt(b, 4, 32)
	case e == 0xF4:
		return entryInt(b, 8, 64)
	}
	return "", 0, false
}

// entryStr is the string of n bytes after a listpack or ziplist entry's
// hdr-byte header at the start of b, and the entry's length. A negative n
// (a 32-bit length where int is 32 bits) is malformed.
func entryStr(b []byte, hdr, n int) (string, int, bool) {
	if n < 0 || len(b)-hdr < n {
		return "", 0, false
	}
	return string(b[hdr : hdr+n]), hdr + n, true
}

// entryInt is the integer of n little-endian bytes (bits wide, signed)
// after a listpack or ziplist entry's encoding byte at the start of b, as
// a string, and the entry's length.
func entryInt(b []byte, n int, bits uint) (string, int, bool) {
	if len(b) < 1+n {
		return "", 0, false
	}
	var u uint64
	for i := n; i >= 1; i-- {
		u = u<<8 | uint64(b[i])
	}
	v := int64(u<<(64-bits)) >> (64 - bits) // sign-extend
	return strconv.FormatInt(v, 10), 1 + n, true
}

// parseZiplist checks and reads a ziplist (ziplist.c, what Redis before 7.0
// wrote): its size, tail offset and count (unless 65535) in the header,
// every entry's previous-entry length, and the 0xFF terminator at the end.
func parseZiplist(blob string) ([]string, bool) {
	b := StringBytes(blob)
	if len(b) < 11 || binary.LittleEndian.Uint32(b) != uint32(len(b)) || b[len(b)-1] != 0xFF {
		return nil, false
	}
	tail := int(binary.LittleEndian.Uint32(b[4:]))
	count := int(binary.LittleEndian.Uint16(b[8:]))
	var out []string
	p, prev, last := 10, 0, 10
	end := len(b) - 1
	for p < end {
		// The previous entry's length: one byte, or 0xFE and four.
		var prevlen, hdr int
		if b[p] < 0xFE {
			prevlen, hdr = int(b[p]), 1
		} else if b[p] == 0xFE && p+5 <= end {
			prevlen, hdr = int(binary.LittleEndian.Uint32(b[p+1:])), 5
		} else {
			return nil, false
		}
		if prevlen != prev {
			return nil, false
		}
		s, n, ok := zlEntry(b[p+hdr : end])
		if !ok {
			return nil, false
		}
		out = append(out, s)
		last, prev = p, hdr+n
		p += hdr + n
	}
	if p != end || tail != last || (count != 65535 && count != len(out)) {
		return nil, false
	}
	return out, true
}

// zlEntry decodes a ziplist entry's encoding and data at the start of b:
// the value as a string and the length of encoding and data.
func zlEntry(b []byte) (string, int, bool) {
	if len(b) == 0 {
		return "", 0, false
	}
	e := b[0]
	switch {
	case e>>6 == 0:
		return entryStr(b, 1, int(e&0x3F))
	case e>>6 == 1:
		if len(b) < 2 {
			return "", 0, false
		}
		return entryStr(b, 2, int(e&0x3F)<<8|int(b[1]))
	case e == 0x80:
		if len(b) < 5 {
			return "", 0, false
		}
		return entryStr(b, 5, int(binary.BigEndian.Uint32(b[1:])))
	case e == 0xC0:
		return entryInt(b, 2, 16)
	case e == 0xD0:
		return entryInt(b, 4, 32)
	case e == 0xE0:
		return entryInt(b, 8, 64)
	case e == 0xF0:
		return entryInt(b, 3, 24)
	case e == 0xFE:
		return entryInt(b, 1, 8)
	case e >= 0xF1 && e <= 0xFD:
		return strconv.Itoa(int(e&0x0F) - 1), 1, true
	}
	return "", 0, false
}
