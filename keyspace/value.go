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

// A stored item is one buntdb value per Redis key:
//
//	type (1 byte) | expireAt (8 bytes, big-endian unix ms; noExpire if none) | token (uvarint) | payload
//
// The token is the key's fencing token (token.go). The type byte's high bit
// says it is there: values written before tokens existed have none (0).
//
// The expiry lives inside the value, with millisecond precision, so the key,
// its contents and its TTL always change together in one buntdb Set. The
// sweeper finds what to delete in the store's own expiry queue
// (expiryqueue.go), not in a buntdb index.
const (
	headerLen = 9
	noExpire  = math.MaxUint64
)

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
	return b2s(appendValue(make([]byte, 0, encodedCap(v)), v))
}

// encodedCap is room enough for v's stored form.
func encodedCap(v Value) int { return headerLen + binary.MaxVarintLen64 + len(v.Payload) }

// appendValue appends v's stored form to b.
func appendValue(b []byte, v Value) []byte {
	var h [headerLen + binary.MaxVarintLen64]byte
	h[0] = byte(v.Type)
	if v.Type == TypeString {
		switch v.Enc {
		case EncRaw:
			h[0] = typeRawString
		case EncFloat:
			h[0] = typeFloatString
		}
	}
	exp := uint64(noExpire)
	if v.ExpireAt > 0 {
		exp = uint64(v.ExpireAt)
	}
	binary.BigEndian.PutUint64(h[1:], exp)
	h[0] |= hasToken
	n := binary.PutUvarint(h[headerLen:], v.Token)
	b = append(b, h[:headerLen+n]...)
	return append(b, v.Payload...)
}

// DecodeValue reads a stored form back. Malformed bytes (a damaged file)
// decode to something, never a panic: a too short value is an empty
// string.
func DecodeValue(s string) Value {
	if len(s) < headerLen {
		return Value{Type: TypeString}
	}
	v := Value{Type: Type(s[0] &^ hasToken), ExpireAt: expireAtOf(s), Payload: s[headerLen:]}
	if s[0]&hasToken != 0 {
		tok, n := UvarintString(v.Payload)
		v.Token, v.Payload = tok, v.Payload[n:]
	}
	switch v.Type {
	case typeRawString:
		v.Type, v.Enc = TypeString, EncRaw
	case typeFloatString:
		v.Type, v.Enc = TypeString, EncFloat
	}
	return v
}

// tokenOf reads only the fencing token of an encoded value.
func tokenOf(s string) uint64 {
	if len(s) <= headerLen || s[0]&hasToken == 0 {
		return 0
	}
	tok, _ := UvarintString(s[headerLen:])
	return tok
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
	if len(s) < headerLen {
		return 0
	}
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
