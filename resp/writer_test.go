package resp

import (
	"math"
	"testing"
)

// TestEncoder: every Writer call in both protocols. The RESP3 bytes are
// redis-server 7.0's (addReplyNull, addReplyMapLen, addReplyDouble,
// addReplyBool, addReplyVerbatim, addReplyBigNum...).
func TestEncoder(t *testing.T) {
	for _, tc := range []struct {
		name         string
		write        func(e *Encoder)
		resp2, resp3 string
	}{
		{"status", func(e *Encoder) { e.Status("OK") }, "+OK\r\n", "+OK\r\n"},
		{"status CR LF", func(e *Encoder) { e.Status("a\r\nb") }, "+a  b\r\n", "+a  b\r\n"},
		{"error", func(e *Encoder) { e.Error("ERR x") }, "-ERR x\r\n", "-ERR x\r\n"},
		{"int", func(e *Encoder) { e.Int(-3) }, ":-3\r\n", ":-3\r\n"},
		{"bulk", func(e *Encoder) { e.Bulk([]byte("ab")) }, "$2\r\nab\r\n", "$2\r\nab\r\n"},
		{"null", func(e *Encoder) { e.Null() }, "$-1\r\n", "_\r\n"},
		{"null array", func(e *Encoder) { e.NullArray() }, "*-1\r\n", "_\r\n"},
		{"array", func(e *Encoder) { e.Array(1); e.Int(1) }, "*1\r\n:1\r\n", "*1\r\n:1\r\n"},
		{"map", func(e *Encoder) { e.Map(1); e.BulkString("k"); e.Int(1) }, "*2\r\n$1\r\nk\r\n:1\r\n", "%1\r\n$1\r\nk\r\n:1\r\n"},
		{"empty map", func(e *Encoder) { e.Map(0) }, "*0\r\n", "%0\r\n"},
		{"set", func(e *Encoder) { e.Set(1); e.BulkString("m") }, "*1\r\n$1\r\nm\r\n", "~1\r\n$1\r\nm\r\n"},
		{"push", func(e *Encoder) { e.Push(1); e.BulkString("m") }, "*1\r\n$1\r\nm\r\n", ">1\r\n$1\r\nm\r\n"},
		{"double", func(e *Encoder) { e.Double(1.5) }, "$3\r\n1.5\r\n", ",1.5\r\n"},
		{"double 0.1", func(e *Encoder) { e.Double(0.1) }, "$19\r\n0.10000000000000001\r\n", ",0.10000000000000001\r\n"},
		{"double integer", func(e *Encoder) { e.Double(3) }, "$1\r\n3\r\n", ",3\r\n"},
		{"double inf", func(e *Encoder) { e.Double(math.Inf(1)) }, "$3\r\ninf\r\n", ",inf\r\n"},
		{"double -inf", func(e *Encoder) { e.Double(math.Inf(-1)) }, "$4\r\n-inf\r\n", ",-inf\r\n"},
		{"double text", func(e *Encoder) { e.DoubleText(13.361389338970184, "13.36138933897018433") },
			"$20\r\n13.36138933897018433\r\n", ",13.36138933897018433\r\n"},
		{"true", func(e *Encoder) { e.Bool(true) }, ":1\r\n", "#t\r\n"},
		{"false", func(e *Encoder) { e.Bool(false) }, ":0\r\n", "#f\r\n"},
		{"verbatim", func(e *Encoder) { e.Verbatim("txt", "a\nb") }, "$3\r\na\nb\r\n", "=7\r\ntxt:a\nb\r\n"},
		{"verbatim long format", func(e *Encoder) { e.Verbatim("markdown", "x") }, "$1\r\nx\r\n", "=5\r\nmar:x\r\n"},
		{"verbatim short format", func(e *Encoder) { e.Verbatim("x", "y") }, "$1\r\ny\r\n", "=5\r\nx  :y\r\n"},
		{"big number", func(e *Encoder) { e.BigNumber("12345678901234567890") }, "$20\r\n12345678901234567890\r\n", "(12345678901234567890\r\n"},
	} {
		for proto, want := range map[int]string{2: tc.resp2, 3: tc.resp3} {
			e := &Encoder{Proto: proto}
			tc.write(e)
			if got := string(e.Buf); got != want {
				t.Errorf("%s in RESP%d: %q, want %q", tc.name, proto, got, want)
			}
		}
	}
}

// TestEncoderSetProto: HELLO switches mid-reply; what was written stays.
func TestEncoderSetProto(t *testing.T) {
	e := &Encoder{Proto: 2}
	e.Null()
	e.SetProto(3)
	e.Null()
	if got := string(e.Buf); got != "$-1\r\n_\r\n" {
		t.Errorf("got %q", got)
	}
}
