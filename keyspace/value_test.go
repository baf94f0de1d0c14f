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

// TestLongLayoutDecodes: values in the layout written before the compact
// one (files and snapshots of older versions) read as they did, and are
// written back compact.
func TestLongLayoutDecodes(t *testing.T) {
	long := func(typ byte, exp uint64, token []byte, payload string) string {
		b := []byte{typ}
		b = binary.BigEndian.AppendUint64(b, exp)
		return string(append(append(b, token...), payload...))
	}
	for _, tc := range []struct {
		name string
		raw  string
		want Value
	}{
		{"string, no token, no expiry", long('s', noExpire, nil, "v"), Value{Type: TypeString, Payload: "v"}},
		{"string with token and expiry", long('s'|hasToken, 1700000000123, []byte{7}, "owner"),
			Value{Type: TypeString, ExpireAt: 1700000000123, Token: 7, Payload: "owner"}},
		{"raw string", long('r'|hasToken, noExpire, []byte{0x80, 0x01}, "12"), Value{Type: TypeString, Enc: EncRaw, Token: 128, Payload: "12"}},
		{"float string", long('f', noExpire, nil, "1.5"), Value{Type: TypeString, Enc: EncFloat, Payload: "1.5"}},
		{"hash", long('h'|hasToken, 5, []byte{3}, "\x00\x01\x01f\x01v"), Value{Type: TypeHash, ExpireAt: 5, Token: 3, Payload: "\x00\x01\x01f\x01v"}},
		{"zset", long('z', noExpire, nil, ""), Value{Type: TypeZSet}},
		{"too short", "s\xff\xff", Value{Type: TypeString}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := DecodeValue(tc.raw)
			if got != tc.want {
				t.Fatalf("decoded %+v, want %+v", got, tc.want)
			}
			if expireAtOf(tc.raw) != tc.want.ExpireAt || tokenOf(tc.raw) != tc.want.Token {
				t.Fatalf("expireAtOf %d tokenOf %d, want %d %d", expireAtOf(tc.raw), tokenOf(tc.raw), tc.want.ExpireAt, tc.want.Token)
			}
			enc := EncodeValue(got)
			if enc[0]&compactMask != compactMark {
				t.Fatalf("written back as %q, not compact", enc)
			}
			if again := DecodeValue(enc); again != got {
				t.Fatalf("written back as %q, decoded %+v", enc, again)
			}
		})
	}
}

// TestCompactLayoutSize: what the compact layout spends beside the
// payload, and that encodedCap is exact.
func TestCompactLayoutSize(t *testing.T) {
	for _, tc := range []struct {
		v        Value
		overhead int
	}{
		{Value{Type: TypeString, Payload: "v", Token: 1}, 2},                                        // flags, token
		{Value{Type: TypeString, Payload: "owner-123", Token: 999999, ExpireAt: 1764650000000}, 10}, // + 6-byte expiry, 3-byte token
		{Value{Type: TypeHash, Payload: "x", Token: 1 << 20, ExpireAt: 1}, 1 + 6 + 3},
		{Value{Type: TypeSet, Payload: "x", Token: 1, ExpireAt: 1 << 50}, 1 + 8 + 1}, // past the year 10889
		{Value{Type: TypeString, Enc: EncRaw, Payload: "12"}, 2},
		{Value{Type: Type('q'), Payload: "?", Token: 5}, 3}, // a type without an index: its byte follows
	} {
		enc := EncodeValue(tc.v)
		if got := len(enc) - len(tc.v.Payload); got != tc.overhead {
			t.Errorf("%+v: %d bytes beside the payload, want %d", tc.v, got, tc.overhead)
		}
		if c := encodedCap(tc.v, tc.v.Token); c != len(enc) {
			t.Errorf("%+v: encodedCap %d, encoded %d", tc.v, c, len(enc))
		}
		if got := DecodeValue(enc); got != tc.v {
			t.Errorf("%+v: decoded %+v", tc.v, got)
		}
		if !validStored(enc) || typeOf(enc) != tc.v.Type {
			t.Errorf("%+v: validStored %v typeOf %v", tc.v, validStored(enc), typeOf(enc))
		}
	}
	for _, bad := range []string{"", "\x90\x80", "\xb0\x01\x02\x03\x04\x05\x06\x07", "\xa0\x01", "\x8f", "\x88\x01"} {
		if validStored(bad) {
			t.Errorf("%q: valid", bad)
		}
		if v := DecodeValue(bad); v != (Value{Type: TypeString}) {
			t.Errorf("%q: decoded %+v", bad, v)
		}
	}
}
