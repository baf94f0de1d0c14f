package engine

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"testing"
)

func TestEncodingRoundTrips(t *testing.T) {
	h := &hashObj{large: true}
	h.set([]byte("a"), "1")
	h.set([]byte(""), "")
	h.set([]byte("b"), "x\x00y")
	h.del([]byte("a"))
	got := decodeHash(encodeHash(h))
	if !got.large || got.live != 2 || got.ents[0].field != "" || got.ents[1].value != "x\x00y" {
		t.Errorf("hash round trip: %+v", got)
	}

	l := &listObj{elems: []string{"a", "", "ccc"}}
	if got := decodeList(encodeList(l)); !reflect.DeepEqual(got.elems, l.elems) {
		t.Errorf("list round trip: %q", got.elems)
	}

	is := &setObj{intset: true, ints: []int64{math.MinInt64, -1, 0, 7, math.MaxInt64}}
	if got := decodeSet(encodeSet(is)); !got.intset || !reflect.DeepEqual(got.ints, is.ints) {
		t.Errorf("intset round trip: %+v", got)
	}
	hs := &setObj{members: []string{"", "a", "b"}}
	if got := decodeSet(encodeSet(hs)); got.intset || !reflect.DeepEqual(got.members, hs.members) {
		t.Errorf("set round trip: %+v", got)
	}

	z := &zsetObj{ents: []zent{{"m", math.Inf(-1)}, {"a", math.Copysign(0, -1)}, {"b", 0.1}, {"c", math.Inf(1)}}}
	got2 := decodeZset(encodeZset(z))
	if got2.large || len(got2.ents) != 4 || !math.Signbit(got2.ents[1].score) || got2.ents[2].score != 0.1 {
		t.Errorf("zset round trip: %+v", got2)
	}
}

// Payloads are only ever written by the engine, but a damaged one must not
// crash a command: decoding stops where the data stops making sense.
func TestEncodingCorruptPayloads(t *testing.T) {
	for _, p := range []string{"", "\x00", "\x01\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff", "\x00\x05\x01a", "\x00\x02\x09"} {
		decodeHash(p)
		decodeList(p)
		decodeSet(p)
		decodeSet("\x01" + p)
		decodeZset(p)
	}
}

// TestCollectionsStoredAsOneItem: an empty payload (as other tests create
// with a bare Value) reads as an empty collection.
func TestEncodingEmptyPayload(t *testing.T) {
	if h := decodeHash(""); h.live != 0 {
		t.Errorf("decodeHash(\"\") = %+v", h)
	}
	if got := ObjectEncoding(Value{Type: TypeHash}); got != "listpack" {
		t.Errorf("encoding of an empty hash payload: %s", got)
	}
}

func TestStrtod(t *testing.T) {
	for _, tc := range []struct {
		in     string
		val    float64
		n      int
		erange bool
	}{
		{"1.5", 1.5, 3, false},
		{"  -2e3x", -2000, 6, false},
		{"inf", math.Inf(1), 3, false},
		{"-Infinity", math.Inf(-1), 9, false},
		{"+infinit", math.Inf(1), 4, false},
		{"0x10", 16, 4, false},
		{"0x1p4", 16, 5, false},
		{"0x", 0, 1, false},
		{"0xg", 0, 1, false},
		{".5", 0.5, 2, false},
		{"5.", 5, 2, false},
		{".", 0, 0, false},
		{"1e", 1, 1, false},
		{"1e+", 1, 1, false},
		{"-", 0, 0, false},
		{"", 0, 0, false},
		{" ", 0, 0, false},
		{"1e400", math.Inf(1), 5, true},
		{"1e-400", 0, 6, true},
		{"0e-400", 0, 6, false},
		{"1_0", 1, 1, false},
	} {
		v, n, er := strtod([]byte(tc.in))
		if n != tc.n || er != tc.erange || (v != tc.val && !(math.IsNaN(v) && math.IsNaN(tc.val))) {
			t.Errorf("strtod(%q) = %v, %d, %v; want %v, %d, %v", tc.in, v, n, er, tc.val, tc.n, tc.erange)
		}
	}
	if v, n, _ := strtod([]byte("nan(abc)x")); !math.IsNaN(v) || n != 8 {
		t.Errorf("strtod(nan(abc)x) = %v, %d", v, n)
	}
}

func TestParseScore(t *testing.T) {
	for in, want := range map[string]string{
		"1": "1", "-0.5": "-0.5", "inf": "inf", "+inf": "inf", "-inf": "-inf", "0x10": "16",
		"1e-310": "9.9999999999999694e-311",
		"":       "bad", " 1": "bad", "1 ": "bad", "nan": "bad", "1e400": "bad", "1e-400": "bad", "1\x00": "bad", "abc": "bad",
	} {
		got := "bad"
		if f, ok := parseScore([]byte(in)); ok {
			got = FormatFloat(f)
		}
		if got != want {
			t.Errorf("parseScore(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestListpackScore(t *testing.T) {
	if s := listpackScore(math.Copysign(0, -1)); math.Signbit(s) {
		t.Error("a listpack stores -0 as 0")
	}
	for in, want := range map[float64]string{1e17: "100000000000000000", 0.5: "0.5", 4.7e18: "4.7000000000000000e+18", math.Inf(1): "inf"} {
		got := listpackScoreText(in)
		if want == "4.7000000000000000e+18" {
			want = FormatFloat(in) // beyond LLONG_MAX/2: printed as a double
		}
		if got != want {
			t.Errorf("listpackScoreText(%v) = %s, want %s", in, got, want)
		}
	}
}

// scanFull runs a collection SCAN (HSCAN, SSCAN, ZSCAN) to its end with
// the given COUNT, calling between(i) after the i-th call, and returns how
// often each field or member was returned.
func (te *testEngine) scanFull(cmdName, key string, count int, between func(i int)) map[string]int {
	te.t.Helper()
	pairs := cmdName != "SSCAN"
	seen := map[string]int{}
	cursor := "0"
	for i := 0; ; i++ {
		if i > 1e6 {
			te.t.Fatalf("%s does not end", cmdName)
		}
		rep := te.do(cmdName, key, cursor, "COUNT", strconv.Itoa(count))
		if rep.Kind != KindArray || len(rep.Elems) != 2 {
			te.t.Fatalf("%s %s: %s", cmdName, cursor, rep)
		}
		for j := 0; j < len(rep.Elems[1].Elems); j++ {
			seen[rep.Elems[1].Elems[j].Str]++
			if pairs {
				j++
			}
		}
		cursor = rep.Elems[0].Str
		if cursor == "0" {
			return seen
		}
		if between != nil {
			between(i)
		}
	}
}

// The tests below cross the data types. Their expected replies were
// produced by redis-server 7.0.15 (generated from the same steps run
// against it, and checked against the engine before being written down).

// TestTypesDupMembers: dup members.
func TestTypesDupMembers(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("ZADD", "z", "1", "a", "2", "a", "3", "a"), `(integer) 1`},
		{cmd("ZSCORE", "z", "a"), `3`},
		{cmd("ZADD", "z", "CH", "1", "a", "1", "a", "2", "b", "2", "b"), `(integer) 2`},
		{cmd("ZADD", "z", "NX", "5", "c", "6", "c"), `(integer) 1`},
		{cmd("ZSCORE", "z", "c"), `5`},
		{cmd("ZADD", "z", "XX", "CH", "7", "c", "8", "c", "9", "zz"), `(integer) 2`},
		{cmd("ZSCORE", "z", "c"), `8`},
		{cmd("ZADD", "z", "GT", "CH", "1", "c", "10", "c", "9", "c"), `(integer) 1`},
		{cmd("ZSCORE", "z", "c"), `10`},
		{cmd("ZADD", "z", "LT", "CH", "100", "c", "2", "c", "3", "c"), `(integer) 1`},
		{cmd("ZSCORE", "z", "c"), `2`},
		{cmd("ZRANGE", "z", "0", "-1", "WITHSCORES"), `["a" 1 "b" 2 "c" 2]`},
		{cmd("ZADD", "w", "XX", "GT", "1", "a"), `(integer) 0`},
		{cmd("ZADD", "w", "XX", "LT", "INCR", "1", "a"), `(nil)`},
		{cmd("ZADD", "w", "GT", "INCR", "1", "a"), `1`},
		{cmd("ZADD", "w", "LT", "INCR", "-1", "a"), `0`},
		{cmd("ZADD", "w", "GT", "INCR", "-1", "a"), `(nil)`},
		{cmd("ZADD", "w", "LT", "INCR", "-1", "a"), `-1`},
		{cmd("ZSCORE", "w", "a"), `-1`},
		{cmd("ZADD", "w", "CH", "INCR", "0", "a"), `-1`},
		{cmd("HSET", "h", "a", "1", "a", "2", "a", "3"), `(integer) 1`},
		{cmd("HGETALL", "h"), `["a" "3"]`},
		{cmd("SADD", "s", "a", "a", "b", "a"), `(integer) 2`},
		{cmd("SREM", "s", "a", "a"), `(integer) 1`},
		{cmd("SMEMBERS", "s"), `["b"]`},
	})
}

// TestTypesHugeCountsAndIndexes: huge counts and indexes.
func TestTypesHugeCountsAndIndexes(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("RPUSH", "l", "a", "b", "c"), `(integer) 3`},
		{cmd("LPOP", "l", "9223372036854775807"), `["a" "b" "c"]`},
		{cmd("RPUSH", "l", "a", "b", "c"), `(integer) 3`},
		{cmd("LRANGE", "l", "-9223372036854775808", "9223372036854775807"), `["a" "b" "c"]`},
		{cmd("LRANGE", "l", "9223372036854775807", "-9223372036854775808"), `[]`},
		{cmd("LTRIM", "l", "-9223372036854775808", "9223372036854775807"), `OK`},
		{cmd("LINDEX", "l", "-9223372036854775808"), `(nil)`},
		{cmd("LINDEX", "l", "9223372036854775807"), `(nil)`},
		{cmd("LSET", "l", "-9223372036854775808", "x"), `(error) ERR index out of range`},
		{cmd("LRANGE", "l", "0", "9223372036854775808"), `(error) ERR value is not an integer or out of range`},
		{cmd("ZADD", "z", "1", "a", "2", "b", "3", "c"), `(integer) 3`},
		{cmd("ZRANGE", "z", "-9223372036854775808", "9223372036854775807"), `["a" "b" "c"]`},
		{cmd("ZRANGE", "z", "0", "-1", "BYSCORE", "LIMIT", "9223372036854775807", "9223372036854775807"), `[]`},
		{cmd("ZRANGE", "z", "-inf", "+inf", "BYSCORE", "LIMIT", "-9223372036854775808", "1"), `[]`},
		{cmd("ZRANGE", "z", "-inf", "+inf", "BYSCORE", "LIMIT", "0", "-9223372036854775808"), `["a" "b" "c"]`},
		{cmd("ZRANGE", "z", "(-inf", "(+inf", "BYSCORE"), `["a" "b" "c"]`},
		{cmd("ZRANGE", "z", "(-inf", "(-inf", "BYSCORE"), `[]`},
		{cmd("ZREMRANGEBYRANK", "z", "-9223372036854775808", "-9223372036854775808"), `(integer) 0`},
		{cmd("ZPOPMIN", "z", "9223372036854775807"), `["a" 1 "b" 2 "c" 3]`},
		{cmd("SADD", "s", "a", "b"), `(integer) 2`},
		{cmd("SPOP", "s", "9223372036854775807"), `["a" "b"]`},
		{cmd("LPOS", "l", "x", "COUNT", "9223372036854775807", "MAXLEN", "9223372036854775807"), `[]`},
		{cmd("RPUSH", "m", "a", "a", "a"), `(integer) 3`},
		{cmd("LPOS", "m", "a", "RANK", "2", "COUNT", "9223372036854775807"), `[(integer) 1 (integer) 2]`},
		{cmd("LPOS", "m", "a", "RANK", "-2", "COUNT", "1"), `[(integer) 1]`},
		{cmd("LPOS", "m", "a", "RANK", "-2", "MAXLEN", "1"), `(nil)`},
		{cmd("LPOS", "m", "a", "RANK", "9223372036854775807"), `(nil)`},
	})
}

// TestTypesCaseInsensitiveOptions: case insensitive options.
func TestTypesCaseInsensitiveOptions(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("ZADD", "z", "nX", "cH", "1", "a"), `(integer) 1`},
		{cmd("ZRANGE", "z", "0", "-1", "wItHsCoReS"), `["a" 1]`},
		{cmd("ZRANGE", "z", "-InF", "+iNf", "bYsCoRe", "LiMiT", "0", "1", "ReV"), `[]`},
		{cmd("LINSERT", "l", "BeFoRe", "a", "b"), `(integer) 0`},
		{cmd("RPUSH", "l", "a"), `(integer) 1`},
		{cmd("LINSERT", "l", "aFtEr", "a", "b"), `(integer) 2`},
		{cmd("LMOVE", "l", "l", "lEfT", "rIgHt"), `"a"`},
		{cmd("HRANDFIELD", "nokey", "1", "wItHvAlUeS"), `[]`},
		{cmd("ZRANDMEMBER", "nokey", "1", "WiThScOrEs"), `[]`},
		{cmd("SSCAN", "nokey", "0", "mAtCh", "*", "cOuNt", "1"), `["0" []]`},
		{cmd("LPOS", "l", "a", "rAnK", "1", "CoUnT", "1", "mAxLeN", "0"), `[(integer) 1]`},
	})
}

// TestTypesEncodingThresholds: Redis 7.0.15's defaults (hash 512 entries,
// intset 512, zset listpack 128) and that a collection never converts
// back to its compact encoding.
func TestTypesEncodingThresholds(t *testing.T) {
	te := newTestEngine(t)
	for _, tc := range []struct {
		add, one, del []string
		item          func(i int) []string
		small, large  string
		max           int
	}{
		{[]string{"HSET", "h"}, []string{"HSET", "h", "f512", "v"}, []string{"HDEL", "h", "f512", "f511"},
			func(i int) []string { return []string{fmt.Sprintf("f%d", i), "v"} }, "listpack", "hashtable", 512},
		{[]string{"SADD", "s"}, []string{"SADD", "s", "512"}, []string{"SREM", "s", "512", "511"},
			func(i int) []string { return []string{strconv.Itoa(i)} }, "intset", "hashtable", 512},
		{[]string{"ZADD", "z"}, []string{"ZADD", "z", "128", "m128"}, []string{"ZREM", "z", "m128", "m127"},
			func(i int) []string { return []string{strconv.Itoa(i), fmt.Sprintf("m%d", i)} }, "listpack", "skiplist", 128},
	} {
		args := tc.add
		for i := 0; i < tc.max; i++ {
			args = append(args, tc.item(i)...)
		}
		key := tc.add[1]
		te.do(args...)
		enc := func() string { return te.do("OBJECT", "ENCODING", key).Str }
		if got := enc(); got != tc.small {
			t.Errorf("%s with %d elements: %s", key, tc.max, got)
		}
		te.do(tc.one...)
		if got := enc(); got != tc.large {
			t.Errorf("%s with %d elements: %s", key, tc.max+1, got)
		}
		te.do(tc.del...)
		if got := enc(); got != tc.large {
			t.Errorf("%s back to %d elements: %s", key, tc.max-1, got)
		}
	}
}
