package keyspace

import (
	"encoding/binary"
	"testing"
)

// FuzzValueEncoding: DecodeValue on any bytes does not panic, agrees with
// the partial readers (expireAtOf, tokenOf), and EncodeValue(DecodeValue(x))
// is a fixed point; a Value built from the input survives a round trip.
func FuzzValueEncoding(f *testing.F) {
	for _, v := range []Value{
		{Type: TypeString, Payload: "v"},
		{Type: TypeString, Payload: "12", Enc: EncRaw, ExpireAt: 1700000000000, Token: 7},
		{Type: TypeString, Payload: "1.5", Enc: EncFloat, Token: 1 << 40},
		{Type: TypeHash, Payload: "\x00\x01\x01f\x01v"},
		{Type: TypeZSet, Payload: "\x01", ExpireAt: 1},
	} {
		f.Add([]byte(EncodeValue(v)))
	}
	f.Add([]byte{})
	f.Add([]byte("s\xff\xff\xff\xff\xff\xff\xff\xff"))            // no token, no expiry
	f.Add([]byte("\xf3\x80\x00\x00\x00\x00\x00\x00\x00\xff\xff")) // token bit, negative expiry, bad varint
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzWatch(data)()
		s := string(data)
		v := DecodeValue(s)
		if got := expireAtOf(s); got != v.ExpireAt {
			t.Fatalf("%q: expireAtOf %d, DecodeValue %d", s, got, v.ExpireAt)
		}
		if got := tokenOf(s); got != v.Token {
			t.Fatalf("%q: tokenOf %d, DecodeValue %d", s, got, v.Token)
		}
		_ = v.Type.Name()
		enc := EncodeValue(v)
		again := DecodeValue(enc)
		want := v
		if want.ExpireAt < 0 {
			// An expiry past int64 (only a corrupt file has one) reads
			// negative and is written back as none.
			want.ExpireAt = 0
		}
		if again != want {
			t.Fatalf("%q: decoded %+v, after a round trip %+v", s, want, again)
		}
		if enc2 := EncodeValue(again); enc2 != enc {
			t.Fatalf("%q: encodes to %q, then to %q", s, enc, enc2)
		}

		// A value made from the input round-trips exactly.
		if len(data) < 10 {
			return
		}
		types := []Type{TypeString, TypeHash, TypeList, TypeSet, TypeZSet}
		built := Value{
			Type:     types[int(data[0])%len(types)],
			ExpireAt: int64(binary.BigEndian.Uint64(data[1:9]) &^ (1 << 63)),
			Token:    uint64(data[9]) * 0x0101010101,
			Payload:  string(data[10:]),
		}
		if built.Type == TypeString {
			built.Enc = StringEnc(data[0] % 3)
		}
		if got := DecodeValue(EncodeValue(built)); got != built {
			t.Fatalf("built %+v, decoded %+v", built, got)
		}
	})
}
