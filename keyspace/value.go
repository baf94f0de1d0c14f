package keyspace

import (
	"encoding/binary"
	"math"
)

// Type is the Redis type of a key.
type Type byte

// The types, each stored as one byte in front of the value.
const (
	TypeString Type = 's'
	TypeHash   Type = 'h'
	TypeList   Type = 'l'
	TypeSet    Type = 'S'
	TypeZSet   Type = 'z'
	TypeStream Type = 'x'
)

// Name is what TYPE replies for the type.
func (t Type) Name() string {
	switch t {
	case TypeString:
		return "string"
	case TypeHash:
		return "hash"
	case TypeList:
		return "list"
	case TypeSet:
		return "set"
	case TypeZSet:
		return "zset"
	case TypeStream:
		return "stream"
	}
	return "none"
}

// A stored item is one buntdb value per Redis key, in one of two layouts.
// Every value written today is compact:
//
//	flags (1 byte) | [type (1 byte)] | [expireAt (6 or 8 bytes, big-endian unix ms)] | token (uvarint) | payload
//
// flags is 0b10EETTTT: EE is the expiry's width (00: none, 01: 6 bytes,
// until the year 10889; 11: 8 bytes), TTTT the type's index in
// compactTypes (15: the type byte follows). A key without a TTL spends no
// byte on it, and a lock's expiry takes 6 bytes, not 8: beside a short
// lock key and owner the item fits a smaller allocation (32 bytes instead
// of 48 for SET lock:123456 owner-123 PX). Values written before (and read
// from older files) have the long layout:
//
//	type (1 byte) | expireAt (8 bytes, big-endian unix ms; noExpire if none) | [token (uvarint)] | payload
//
// whose type byte is an ASCII letter (0x40-0x7f), with the high bit set
// when a token follows; so a first byte 0b10xxxxxx is compact, anything
// else long. The token is the key's fencing token (token.go). The expiry
// has a fixed width, not a uvarint, because it is read on every lookup.
//
// The expiry lives inside the value, with millisecond precision, so the key,
// its contents and its TTL always change together in one buntdb Set. The
// sweeper finds what to delete in the store's own expiry queue
// (expiryqueue.go), not in a buntdb index.
const (
	headerLen = 9 // the long layout's fixed part
	noExpire  = math.MaxUint64

	compactMark    = 0x80 // flags & compactMask == compactMark: compact
	compactMask    = 0xc0
	compactExpiry  = 0x30 // the expiry's width:
	compactExp6    = 0x10 // 6 bytes
	compactExp8    = 0x30 // 8 bytes
	compactTypeOwn = 0x0f // type index: the type byte follows
)

// compactTypes are the type bytes a compact value names by index.
var compactTypes = [...]byte{byte(TypeString), byte(TypeHash), byte(TypeList), byte(TypeSet),
	byte(TypeZSet), byte(TypeStream), typeRawString, typeFloatString}

// compactIndex is a type byte's index in compactTypes, compactTypeOwn if
// it has none.
func compactIndex(t byte) byte {
	for i, c := range compactTypes {
		if c == t {
			return byte(i)
		}
	}
	return compactTypeOwn
}

// Value is a decoded item. ExpireAt is unix milliseconds, 0 when the key
// has no expiry. Payload is the type-specific encoding (a string's bytes).
// Enc remembers how a string was built, for OBJECT ENCODING.
type Value struct {
	Type     Type
	ExpireAt int64
	Payload  string
	Enc      StringEnc
	Token    uint64 // fencing token; Put sets it, callers leave it 0
}

// StringEnc is what Redis's encoding of a string depends on beyond its
// content: APPEND and SETRANGE leave a "raw" string, INCRBYFLOAT an
// "embstr" or "raw" one even when the result is an integer. Everything
// else (SET, INCR...) is judged by content: int, embstr or raw.
type StringEnc uint8

// The string encoding hints: judged by content, left raw, or from
// INCRBYFLOAT.
const (
	EncNatural StringEnc = iota
	EncRaw
	EncFloat
)

// A string's encoding hint rides in the type byte, so strings with a hint
// are stored as these pseudo-types and decoded back to TypeString.
const (
	typeRawString   = 'r'
	typeFloatString = 'f'
)

// hasToken marks, in the type byte, a value that carries a token.
const hasToken = 0x80

// EncodeValue is v's stored form: the bytes buntdb keeps, and a
// ChangePut carries.
func EncodeValue(v Value) string {
	return b2s(appendValue(make([]byte, 0, encodedCap(v, v.Token)), v))
}

// encodedCap is the length of v's stored form with a token no larger
// than maxToken.
func encodedCap(v Value, maxToken uint64) int {
	n := 1 + uvarintLen(maxToken) + len(v.Payload)
	if compactIndex(storedType(v)) == compactTypeOwn {
		n++
	}
	n += expiryWidth(v.ExpireAt)
	return n
}

// expiryWidth is the bytes a compact value spends on an expiry.
func expiryWidth(at int64) int {
	switch {
	case at <= 0:
		return 0
	case at < 1<<48:
		return 6
	}
	return 8
}

// uvarintLen is the length of x as a uvarint.
func uvarintLen(x uint64) int {
	n := 1
	for ; x >= 0x80; x >>= 7 {
		n++
	}
	return n
}

// storedType is the type byte v is stored under: a string's encoding
// hint rides in it.
func storedType(v Value) byte {
	if v.Type == TypeString {
		switch v.Enc {
		case EncRaw:
			return typeRawString
		case EncFloat:
			return typeFloatString
		}
	}
	return byte(v.Type)
}

// appendValue appends v's stored form (compact) to b.
func appendValue(b []byte, v Value) []byte {
	t := storedType(v)
	idx := compactIndex(t)
	flags := compactMark | idx
	w := expiryWidth(v.ExpireAt)
	switch w {
	case 6:
		flags |= compactExp6
	case 8:
		flags |= compactExp8
	}
	b = append(b, flags)
	if idx == compactTypeOwn {
		b = append(b, t)
	}
	if w > 0 {
		var e [8]byte
		binary.BigEndian.PutUint64(e[:], uint64(v.ExpireAt))
		b = append(b, e[8-w:]...)
	}
	b = binary.AppendUvarint(b, v.Token)
	return append(b, v.Payload...)
}

// header is what a stored value says about itself before its payload.
type header struct {
	typ      byte   // the stored type byte (pseudo-types 'r', 'f' included)
	expireAt int64  // unix ms, 0: none
	token    uint64 // 0: none
	off      int    // where the payload starts
}

// parseHeader reads the header of a stored value in either layout. Bytes
// too short or malformed (a damaged file) read as an empty string with no
// expiry and no token (ok false); a malformed token, in either layout,
// reads as none.
func parseHeader(s string) (h header, ok bool) {
	at, i, ok := fixedHeader(s)
	if !ok {
		return header{typ: byte(TypeString), off: len(s)}, false
	}
	b0 := s[0]
	h = header{expireAt: at, off: i}
	if b0&compactMask != compactMark {
		h.typ = b0 &^ hasToken
		if b0&hasToken == 0 {
			return h, true
		}
	} else if idx := b0 & compactTypeOwn; idx == compactTypeOwn {
		h.typ = s[1]
	} else {
		h.typ = compactTypes[idx]
	}
	tok, n := UvarintString(s[i:])
	h.token, h.off = tok, i+n
	return h, true
}

// fixedHeader reads the part of a stored value's header before its token:
// the expiry (unix ms, 0: none) and where the token starts; ok false when
// that part is malformed.
func fixedHeader(s string) (at int64, off int, ok bool) {
	if len(s) == 0 {
		return 0, 0, false
	}
	b0 := s[0]
	if b0&compactMask != compactMark {
		if len(s) < headerLen {
			return 0, 0, false
		}
		return expireAtLong(s), headerLen, true
	}
	i := 1
	if idx := b0 & compactTypeOwn; idx == compactTypeOwn {
		i = 2
	} else if int(idx) >= len(compactTypes) {
		return 0, 0, false
	}
	switch b0 & compactExpiry {
	case 0:
		if len(s) < i {
			return 0, 0, false
		}
		return 0, i, true
	case compactExp6:
		if len(s) < i+6 {
			return 0, 0, false
		}
		e := s[i : i+6]
		return int64(uint64(e[0])<<40 | uint64(e[1])<<32 | uint64(e[2])<<24 |
			uint64(e[3])<<16 | uint64(e[4])<<8 | uint64(e[5])), i + 6, true
	case compactExp8:
		if len(s) < i+8 {
			return 0, 0, false
		}
		e := s[i : i+8]
		return int64(uint64(e[0])<<56 | uint64(e[1])<<48 | uint64(e[2])<<40 | uint64(e[3])<<32 |
			uint64(e[4])<<24 | uint64(e[5])<<16 | uint64(e[6])<<8 | uint64(e[7])), i + 8, true
	}
	return 0, 0, false // 0b10 in EE: no writer sets it
}

// validStored reports whether s is a well-formed stored value (what a
// change batch or snapshot from elsewhere must carry).
func validStored(s string) bool {
	_, ok := parseHeader(s)
	return ok
}

// typeOf is the Redis type of a stored value.
func typeOf(s string) Type {
	h, _ := parseHeader(s)
	switch h.typ {
	case typeRawString, typeFloatString:
		return TypeString
	}
	return Type(h.typ)
}

// DecodeValue reads a stored form back. Malformed bytes (a damaged file)
// decode to something, never a panic: a too short value is an empty
// string.
func DecodeValue(s string) Value {
	h, _ := parseHeader(s)
	v := Value{Type: Type(h.typ), ExpireAt: h.expireAt, Token: h.token, Payload: s[h.off:]}
	switch h.typ {
	case typeRawString:
		v.Type, v.Enc = TypeString, EncRaw
	case typeFloatString:
		v.Type, v.Enc = TypeString, EncFloat
	}
	return v
}

// tokenOf reads only the fencing token of an encoded value.
func tokenOf(s string) uint64 {
	h, _ := parseHeader(s)
	return h.token
}

// UvarintString is binary.Uvarint on a string: the value and its length
// (0, 0 when malformed).
func UvarintString(s string) (uint64, int) {
	var x uint64
	for i := 0; i < len(s) && i < binary.MaxVarintLen64; i++ {
		b := s[i]
		if b < 0x80 {
			return x | uint64(b)<<(7*i), i + 1
		}
		x |= uint64(b&0x7f) << (7 * i)
	}
	return 0, 0
}

// expireAtOf reads only the expiry of an encoded value.
func expireAtOf(s string) int64 {
	if len(s) >= 7 && s[0]&0xf8 == compactMark|compactExp6 {
		// A compact value of a named type with a 6-byte expiry: a lock.
		_ = s[6]
		return int64(uint64(s[1])<<40 | uint64(s[2])<<32 | uint64(s[3])<<24 |
			uint64(s[4])<<16 | uint64(s[5])<<8 | uint64(s[6]))
	}
	at, _, _ := fixedHeader(s)
	return at
}

// expireAtLong reads the expiry of a long-layout value (len(s) >=
// headerLen).
func expireAtLong(s string) int64 {
	exp := uint64(s[1])<<56 | uint64(s[2])<<48 | uint64(s[3])<<40 | uint64(s[4])<<32 |
		uint64(s[5])<<24 | uint64(s[6])<<16 | uint64(s[7])<<8 | uint64(s[8])
	if exp == noExpire {
		return 0
	}
	return int64(exp)
}

// StoredExpiry is the expiry (unix ms, 0: none) of stored bytes as
// Tx.Stored returns them.
func StoredExpiry(raw string) int64 { return expireAtOf(raw) }
