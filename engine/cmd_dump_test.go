package engine

import (
	"bytes"
	"fmt"
	"math"
	"math/rand"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestCRC64Redis(t *testing.T) {
	// crc64.c's own test vector.
	if got := crc64Redis(0, []byte("123456789")); got != 0xe9c6d914c4b8d9ca {
		t.Fatalf("crc64(123456789) = %#x", got)
	}
}

// TestLZF: known outputs of Redis's lzf_compress, and round trips of
// random inputs of every compressibility.
func TestLZF(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		// From redis-server 7.0.15's DUMP of these strings.
		{"aaaaaaaaaaaaaaaaaaaaa", "\x01aa\xe0\n\x00"},
		{strings.Repeat("abcdefgh", 10), "\x08abcdefgha\xe0<\x07\x01gh"},
	} {
		got := lzfCompress([]byte(tc.in), len(tc.in)-4)
		if string(got) != tc.want {
			t.Errorf("lzfCompress(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := lzfCompress([]byte("abcdefghijklmnopqrstu"), 17); got != nil {
		t.Errorf("incompressible input compressed to %q", got)
	}
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 500; i++ {
		n := rng.Intn(20000) + 3
		alpha := rng.Intn(255) + 1
		in := make([]byte, n)
		for j := range in {
			if j > 8 && rng.Intn(4) == 0 {
				in[j] = in[j-1-rng.Intn(8)]
			} else {
				in[j] = byte(rng.Intn(alpha))
			}
		}
		c := lzfCompress(in, n+n/32+64)
		if c == nil {
			t.Fatalf("len %d: does not fit", n)
		}
		out, ok := lzfDecompress(c, n)
		if !ok || !bytes.Equal(out, in) {
			t.Fatalf("len %d alphabet %d: round trip failed", n, alpha)
		}
		if _, ok := lzfDecompress(c, n-1); ok {
			t.Fatalf("len %d: decompressed into a shorter buffer", n)
		}
	}
	if _, ok := lzfDecompress([]byte{0xe0}, 10); ok {
		t.Error("truncated back reference accepted")
	}
	if _, ok := lzfDecompress([]byte{0x20, 0x05}, 10); ok {
		t.Error("back reference before the start accepted")
	}
}

// TestRDBStrings: strings of every length encoding read back, and the
// integer and LZF encodings Redis writes (LZF lengths may be encoding
// bytes, read as their low 6 bits as rdbLoadLen does).
func TestRDBStrings(t *testing.T) {
	for _, n := range []int{0, 1, 20, 63, 64, 16383, 16384, 70000} {
		s := strings.Repeat("x", n)
		if n > 0 {
			s = strconv.Itoa(n) + s // not compressible to nothing
		}
		r := NewRDBReader(AppendRDBString(nil, s))
		if got := r.Str(); r.Bad() || got != s || r.More() {
			t.Errorf("%d bytes: %d bytes back, bad %v", n, len(got), r.Bad())
		}
	}
	for _, c := range []struct {
		enc  string
		want string
	}{
		{"\xc0\xfe", "-2"},
		{"\xc1\x39\x30", "12345"},
		{"\xc2\x15\xcd\x5b\x07", "123456789"},
		{"\xc3\x06\x15\x01aa\xe0\n\x00", strings.Repeat("a", 21)},
		{"\xc3\xc6\xd5\x01aa\xe0\n\x00", strings.Repeat("a", 21)},
	} {
		r := NewRDBReader([]byte(c.enc))
		if got := r.Str(); r.Bad() || got != c.want || r.More() {
			t.Errorf("%q: %q (bad %v), want %q", c.enc, got, r.Bad(), c.want)
		}
	}
	for _, enc := range []string{"", "\x05abc", "\xc2\x01", "\xc4", "\x82", "\xc3\x06\x14\x01aa\xe0\n\x00"} {
		if r := NewRDBReader([]byte(enc)); r.Str() != "" || !r.Bad() {
			t.Errorf("%q: accepted", enc)
		}
	}
}

// TestDumpRestoreRoundTrip: every type and encoding survives DUMP and
// RESTORE with its content, encoding and TTL.
func TestDumpRestoreRoundTrip(t *testing.T) {
	te := newTestEngine(t)
	long := strings.Repeat("x", 100)
	many := func(cmd string, n int, pair bool) []string {
		out := []string{cmd, "k"}
		for i := 0; i < n; i++ {
			if pair {
				out = append(out, strconv.Itoa(i))
			}
			out = append(out, "m"+strconv.Itoa(i))
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		build []string
		read  []string
	}{
		{"int", cmd("SET", "k", "-12345"), cmd("GET", "k")},
		{"lzf", cmd("SET", "k", long), cmd("GET", "k")},
		{"list", cmd("RPUSH", "k", "a", "1", "-70000", long), cmd("LRANGE", "k", "0", "-1")},
		{"biglist", many("RPUSH", 3000, false), cmd("LRANGE", "k", "2990", "-1")},
		{"intset", cmd("SADD", "k", "1", "-5", "100000", "5000000000"), cmd("SMEMBERS", "k")},
		{"hashtable-set", cmd("SADD", "k", "a", "b", "1"), cmd("SMEMBERS", "k")},
		{"listpack-zset", cmd("ZADD", "k", "1.5", "a", "-0", "b", "inf", "c"), cmd("ZRANGE", "k", "0", "-1", "WITHSCORES")},
		{"skiplist-zset", cmd("ZADD", "k", "-0", "a", "2", long), cmd("ZRANGE", "k", "0", "-1", "WITHSCORES")},
		{"big-zset", many("ZADD", 200, true), cmd("ZRANGE", "k", "0", "3", "WITHSCORES")},
		{"listpack-hash", cmd("HSET", "k", "z", "1", "a", "2"), cmd("HGETALL", "k")},
		{"hashtable-hash", cmd("HSET", "k", "z", long, "a", "2"), cmd("HGETALL", "k")},
		{"big-hash", many("HSET", 600, true), cmd("HLEN", "k")},
	} {
		te.do("FLUSHALL")
		te.do(tc.build...)
		te.do("PEXPIRE", "k", "5000")
		want, enc := te.do(tc.read...).String(), te.do("OBJECT", "ENCODING", "k").String()
		dump := te.do("DUMP", "k").Str
		te.do("RENAME", "k", "old")
		if r := te.do("RESTORE", "k", "5000", dump).String(); r != "OK" {
			t.Errorf("%s: RESTORE: %s", tc.name, r)
			continue
		}
		if got := te.do(tc.read...).String(); got != want {
			t.Errorf("%s: restored %s, want %s", tc.name, got, want)
		}
		if got := te.do("OBJECT", "ENCODING", "k").String(); got != enc {
			t.Errorf("%s: restored encoding %s, want %s", tc.name, got, enc)
		}
		if got := te.do("PTTL", "k").String(); got != "(integer) 5000" {
			t.Errorf("%s: PTTL %s", tc.name, got)
		}
		if again := te.do("DUMP", "k").Str; again != dump {
			t.Errorf("%s: DUMP after RESTORE differs", tc.name)
		}
	}
}

// TestRestoreRejects: damaged payloads are refused, whatever is damaged.
func TestRestoreRejects(t *testing.T) {
	withTrailer := func(body string) string { return string(AppendRDBTrailer([]byte(body))) }
	lp := func(items ...string) string {
		var l listpack
		for _, it := range items {
			l.add(it)
		}
		return string(l.bytes())
	}
	str := func(s string) string { return string(AppendRDBString(nil, s)) }
	te := newTestEngine(t)
	for _, tc := range []struct {
		name, payload, want string
	}{
		{"ok", withTrailer("\x00" + str("v")), "OK"},
		{"short", "123456789", "(error) ERR DUMP payload version or checksum are wrong"},
		{"crc", withTrailer("\x00" + str("v"))[:12] + "\x00", "(error) ERR DUMP payload version or checksum are wrong"},
		{"empty body", withTrailer(""), "(error) ERR Bad data format"},
		{"unknown type", withTrailer("\x07" + str("v")), "(error) ERR Bad data format"},
		{"ziplist", withTrailer("\x0a" + str("v")), "(error) ERR Bad data format"},
		{"truncated string", withTrailer("\x00\x05ab"), "(error) ERR Bad data format"},
		{"huge length", withTrailer("\x00\x81\xff\xff\xff\xff\xff\xff\xff\xff"), "(error) ERR Bad data format"},
		{"lzf bomb", withTrailer("\x00\xc3\x02\x80\x7f\xff\xff\xff\x00a"), "(error) ERR Bad data format"},
		{"lzf short", withTrailer("\x00\xc3\x02\x05\x00a"), "(error) ERR Bad data format"},
		{"empty list", withTrailer("\x12\x00"), "(error) ERR Bad data format"},
		{"empty listpack", withTrailer("\x12\x01\x02" + str(lp())), "(error) ERR Bad data format"},
		{"bad container", withTrailer("\x12\x01\x03" + str(lp("a"))), "(error) ERR Bad data format"},
		{"list count", withTrailer("\x12\x7f\x02" + str(lp("a"))), "(error) ERR Bad data format"},
		{"listpack size", withTrailer("\x12\x01\x02" + str(lp("a")[:6]+"\xff")), "(error) ERR Bad data format"},
		{"dup set", withTrailer("\x02\x02" + str("a") + str("a")), "(error) ERR Bad data format"},
		{"dup intset", withTrailer("\x02\x02" + str("1") + str("1")), "(error) ERR Bad data format"},
		{"unsorted intset", withTrailer("\x0b" + str("\x02\x00\x00\x00\x02\x00\x00\x00\x05\x00\x01\x00")), "(error) ERR Bad data format"},
		{"intset width", withTrailer("\x0b" + str("\x03\x00\x00\x00\x01\x00\x00\x00\x05\x00\x01")), "(error) ERR Bad data format"},
		{"nan score", withTrailer("\x05\x01" + str("a") + "\x00\x00\x00\x00\x00\x00\xf8\x7f"), "(error) ERR Bad data format"},
		{"bad score", withTrailer("\x11" + str(lp("a", "x"))), "(error) ERR Bad data format"},
		{"odd zset", withTrailer("\x11" + str(lp("a", "1", "b"))), "(error) ERR Bad data format"},
		{"dup zset", withTrailer("\x11" + str(lp("a", "1", "a", "2"))), "(error) ERR Bad data format"},
		{"dup hash", withTrailer("\x10" + str(lp("f", "1", "f", "2"))), "(error) ERR Bad data format"},
		{"old zset", withTrailer("\x03\x01" + str("a") + "\x031.5"), "OK"},
		{"old list", withTrailer("\x01\x02" + str("a") + str("b")), "OK"},
		{"version 11", "\x00\x01v\x0b\x00" + withTrailer("")[2:], "(error) ERR DUMP payload version or checksum are wrong"},
	} {
		got := te.do("RESTORE", "k", "0", tc.payload, "REPLACE").String()
		if got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

// TestCopyTokens: a copy that creates its destination gets a new fencing
// token; one that replaces a key keeps that key's token, as any write does.
func TestCopyTokens(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("SET", "a", "1"), "OK"},
		{cmd("SET", "b", "2"), "OK"},
	})
	ta, tb := te.tokenOfKey("a"), te.tokenOfKey("b")
	te.run([]step{{cmd("COPY", "a", "c"), "(integer) 1"}})
	if tc := te.tokenOfKey("c"); tc <= tb || tc == ta {
		t.Fatalf("new copy has token %d (source %d, last %d)", tc, ta, tb)
	}
	te.run([]step{{cmd("COPY", "a", "b", "REPLACE"), "(integer) 1"}})
	if got := te.tokenOfKey("b"); got != tb {
		t.Fatalf("replaced key has token %d, want its own %d", got, tb)
	}
}

func FuzzRestorePayload(f *testing.F) {
	for _, v := range []Value{
		{Type: TypeString, Payload: strings.Repeat("ab", 30)},
		{Type: TypeString, Payload: "-300"},
		{Type: TypeList, Payload: encodeList(&listObj{elems: []string{"a", "1", "-5000", strings.Repeat("z", 70)}})},
		{Type: TypeSet, Payload: encodeSet(&setObj{intset: true, ints: []int64{-70000, 1, 1 << 40}})},
		{Type: TypeSet, Payload: encodeSet(&setObj{members: []string{"a", "b"}})},
		{Type: TypeZSet, Payload: encodeZset(&zsetObj{ents: []zent{{"a", 1.5}, {"b", math.Inf(1)}}})},
		{Type: TypeZSet, Payload: encodeZset(&zsetObj{large: true, ents: []zent{{"a", -1}, {"b", 2}}})},
		{Type: TypeHash, Payload: encodeHash(&hashObj{ents: []hashEntry{{field: "f", value: "v"}}, live: 1})},
		{Type: TypeHash, Payload: encodeHash(&hashObj{large: true, ents: []hashEntry{{field: "f", value: "12"}}, live: 1})},
	} {
		p := dumpPayload(v)
		f.Add(p[:len(p)-10])
	}
	f.Add([]byte("\x03\x01\x01a\x03nan"))
	f.Add([]byte("\x0a\x0f\x0f\x00\x00\x00\x0c\x00\x00\x00\x02\x00\x00\xf3\x02\xf6\xff")) // ziplist
	f.Add([]byte("\x00\xc3\x02\x80\x7f\xff\xff\xff\x00a"))
	f.Fuzz(func(t *testing.T, body []byte) {
		defer fuzzWatch(body)()
		v, err := restorePayload(body)
		if err != nil {
			return
		}
		// What was accepted dumps and restores to the same value.
		p := dumpPayload(v)
		again, err := restorePayload(p[:len(p)-10])
		if err != nil {
			t.Fatalf("%q: the dump of the restored value is refused: %v", body, err)
		}
		if again.Type != v.Type || again.Payload != v.Payload {
			t.Fatalf("%q: restore(dump(v)) != v", body)
		}
	})
}

// TestRestoreZiplists: the ziplist encodings Redis 6 dumped, which Redis
// 7.0 still restores.
func TestRestoreZiplists(t *testing.T) {
	payload := func(body string) string {
		b := append([]byte(body), 9, 0) // RDB version 9, Redis 6
		c := crc64Redis(0, b)
		for i := 0; i < 8; i++ {
			b = append(b, byte(c>>(8*i)))
		}
		return string(b)
	}
	str := func(s string) string { return string(AppendRDBString(nil, s)) }
	// ziplist.c's own example: "2" and "5".
	two5 := "\x0f\x00\x00\x00\x0c\x00\x00\x00\x02\x00\x00\xf3\x02\xf6\xff"
	// "a" 1 (immediate), "b" -2 (int8): 22 bytes, the last entry at 18.
	pairs := "\x16\x00\x00\x00\x12\x00\x00\x00\x04\x00" + "\x00\x01a" + "\x03\xf2" + "\x02\x01b" + "\x03\xfe\xfe" + "\xff"
	te := newTestEngine(t)
	for _, tc := range []struct {
		name, body string
		read       []string
		want       string
	}{
		{"list ziplist", "\x0a" + str(two5), cmd("LRANGE", "k", "0", "-1"), `["2" "5"]`},
		{"quicklist of ziplists", "\x0e\x02" + str(two5) + str(two5), cmd("LRANGE", "k", "0", "-1"), `["2" "5" "2" "5"]`},
		{"hash ziplist", "\x0d" + str(pairs), cmd("HGETALL", "k"), `["a" "1" "b" "-2"]`},
		{"zset ziplist", "\x0c" + str(pairs), cmd("ZRANGE", "k", "0", "-1", "WITHSCORES"), `["b" -2 "a" 1]`},
		{"bad prevlen", "\x0a" + str(strings.Replace(two5, "\x02\xf6", "\x03\xf6", 1)), nil, "(error) ERR Bad data format"},
		{"bad tail", "\x0a" + str(strings.Replace(two5, "\x0c", "\x0b", 1)), nil, "(error) ERR Bad data format"},
		{"bad count", "\x0a" + str(strings.Replace(two5, "\x02\x00\x00", "\x03\x00\x00", 1)), nil, "(error) ERR Bad data format"},
	} {
		got := te.do("RESTORE", "k", "0", payload(tc.body), "REPLACE").String()
		if tc.read != nil {
			if got != "OK" {
				t.Errorf("%s: RESTORE %s", tc.name, got)
				continue
			}
			got = te.do(tc.read...).String()
		}
		if got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

// TestDumpHashFieldExpiry: Redis 7.0's format has no field expiries, so
// DUMP leaves them out, and leaves out the fields already expired; SORT's
// GET and BY do not see expired fields.
func TestDumpHashFieldExpiry(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("HSET", "plain", "a", "1", "b", "2"), "(integer) 2"},
		{cmd("HSET", "onlyb", "b", "2"), "(integer) 1"},
		{cmd("HSET", "h_x", "a", "1", "b", "2"), "(integer) 2"},
		{cmd("HPEXPIRE", "h_x", "100", "FIELDS", "1", "a"), "[(integer) 1]"},
		{cmd("RPUSH", "l", "x"), "(integer) 1"},
		{cmd("SORT", "l", "BY", "nosort", "GET", "h_*->a"), `["1"]`},
	})
	if got, want := te.do("DUMP", "h_x").Str, te.do("DUMP", "plain").Str; got != want {
		t.Errorf("DUMP with a pending field expiry = %q, want %q", got, want)
	}
	te.Clock.FastForward(200 * time.Millisecond)
	te.run([]step{{cmd("SORT", "l", "ALPHA", "GET", "h_*->a", "GET", "h_*->b"), `[(nil) "2"]`}})
	if got, want := te.do("DUMP", "h_x").Str, te.do("DUMP", "onlyb").Str; got != want {
		t.Errorf("DUMP after the field expired = %q, want %q", got, want)
	}
	te.run([]step{
		{cmd("HPEXPIRE", "h_x", "100", "FIELDS", "1", "b"), "[(integer) 1]"},
	})
	te.Clock.FastForward(200 * time.Millisecond)
	te.run([]step{{cmd("DUMP", "h_x"), "(nil)"}})
}

// A stream is not serialized: DUMP says so instead of writing a payload
// nobody could restore.
func TestDumpStreamRefused(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("XADD", "st", "1-1", "f", "v"), `"1-1"`},
		{cmd("DUMP", "st"), "(error) ERR lockredis cannot DUMP or MIGRATE a stream: Redis's RDB stream format is not implemented"},
		{cmd("DUMP", "missing"), "(nil)"},
	})
}

// MIGRATE of a stream is refused like its DUMP, before the target is
// contacted (no server listens on port 1).
func TestMigrateStreamRefused(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("XADD", "st", "1-1", "f", "v"), `"1-1"`},
		{cmd("MIGRATE", "127.0.0.1", "1", "st", "0", "100"), "(error) ERR lockredis cannot DUMP or MIGRATE a stream: Redis's RDB stream format is not implemented"},
		{cmd("XLEN", "st"), "(integer) 1"},
	})
}

// TestRestoreWorkLinear: what RESTORE does for a payload grows linearly
// with the payload. Work is counted, not timed: the bytes and objects
// allocated per payload byte (runtime.MemStats, deterministic for the same
// input) may not grow as the payload does (16 times larger). The reader
// takes each payload byte once (RDBReader.take) and an LZF string may not
// claim more than lzfMaxRatio times its size, so allocation follows the
// work; the shapes are the ones whose restore re-encodes or checks the
// whole value (listpacks converted to large encodings, intsets sorted and
// checked for duplicates, quicklists of many nodes).
func TestRestoreWorkLinear(t *testing.T) {
	strs := func(n int, f string) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf(f, i)
		}
		return out
	}
	ints := func(n int) []int64 {
		out := make([]int64, n)
		for i := range out {
			out[i] = int64(i)*7919 - 1<<20
		}
		return out
	}
	zents := func(n int) []zent {
		out := make([]zent, n)
		for i := range out {
			out[i] = zent{fmt.Sprintf("m%d", i), float64(n - i)}
		}
		return out
	}
	hents := func(n int) []hashEntry {
		out := make([]hashEntry, n)
		for i := range out {
			out[i] = hashEntry{field: fmt.Sprintf("f%d", i), value: fmt.Sprintf("v%d", i)}
		}
		return out
	}
	shapes := []struct {
		name string
		val  func(n int) Value
	}{
		{"string", func(n int) Value { return Value{Type: TypeString, Payload: strings.Repeat("abcdefgh", n)} }},
		{"compressible-string", func(n int) Value { return Value{Type: TypeString, Payload: strings.Repeat("a", 64*n)} }},
		{"list", func(n int) Value { return Value{Type: TypeList, Payload: encodeList(&listObj{elems: strs(n, "e%d")})} }},
		{"intset", func(n int) Value {
			return Value{Type: TypeSet, Payload: encodeSet(&setObj{intset: true, ints: ints(n)})}
		}},
		{"set", func(n int) Value { return Value{Type: TypeSet, Payload: encodeSet(&setObj{members: strs(n, "s%d")})} }},
		{"zset-listpack", func(n int) Value { return Value{Type: TypeZSet, Payload: encodeZset(&zsetObj{ents: zents(n)})} }},
		{"zset-large", func(n int) Value {
			return Value{Type: TypeZSet, Payload: encodeZset(&zsetObj{large: true, ents: zents(n)})}
		}},
		{"hash-listpack", func(n int) Value {
			return Value{Type: TypeHash, Payload: encodeHash(&hashObj{ents: hents(n), live: n})}
		}},
		{"hash-large", func(n int) Value {
			return Value{Type: TypeHash, Payload: encodeHash(&hashObj{large: true, ents: hents(n), live: n})}
		}},
	}
	// alloc is what restoring body allocates: bytes and objects.
	alloc := func(body []byte) (uint64, uint64) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if _, err := restorePayload(body); err != nil {
			t.Fatalf("restore: %v", err)
		}
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc, after.Mallocs - before.Mallocs
	}
	for _, s := range shapes {
		t.Run(s.name, func(t *testing.T) {
			small, large := dumpPayload(s.val(200)), dumpPayload(s.val(3200))
			small, large = small[:len(small)-10], large[:len(large)-10]
			bs, os := alloc(small)
			bl, ol := alloc(large)
			for _, m := range []struct {
				what     string
				sml, lrg uint64
			}{{"bytes", bs, bl}, {"objects", os, ol}} {
				perSmall := float64(m.sml) / float64(len(small))
				perLarge := float64(m.lrg) / float64(len(large))
				t.Logf("%s allocated per payload byte: %.2f (%d bytes), %.2f (%d bytes)", m.what, perSmall, len(small), perLarge, len(large))
				if perLarge > 2*perSmall+1 {
					t.Errorf("%s allocated per payload byte: %.2f for %d bytes, %.2f for %d: not linear", m.what, perSmall, len(small), perLarge, len(large))
				}
			}
		})
	}
}
