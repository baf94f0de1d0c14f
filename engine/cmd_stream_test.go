package engine

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

// Unit tests of the stream type. The differential tests against
// redis-server are in compat_test/diff_stream_test.go; these pin the
// pieces lockredis adds: the engine clock, the encoding, persistence, and
// the listpack size model behind the node boundaries.

func TestStreamParseID(t *testing.T) {
	max := uint64(math.MaxUint64)
	cases := []struct {
		in              string
		missing         uint64
		strict, seqStar bool
		want            streamID
		seqGiven, ok    bool
	}{
		{"1-2", 0, false, false, streamID{1, 2}, true, true},
		{"5", 0, false, false, streamID{5, 0}, true, true},
		{"5", max, false, false, streamID{5, max}, true, true},
		{"-", 0, false, false, streamID{}, true, true},
		{"+", 0, false, false, maxStreamID, true, true},
		{"-", 0, true, false, streamID{}, false, false},
		{"+", 0, true, false, streamID{}, false, false},
		{"7-*", 0, true, true, streamID{7, 0}, false, true},
		{"7-*", 0, true, false, streamID{}, false, false},
		{"0001-02", 0, false, false, streamID{1, 2}, true, true}, // strtoull's leniency
		{" 3", 0, false, false, streamID{3, 0}, true, true},
		{"+4", 0, false, false, streamID{4, 0}, true, true},
		{"-01", 0, false, false, streamID{}, false, false}, // empty ms before the dash
		{"18446744073709551615-18446744073709551615", 0, false, false, maxStreamID, true, true},
		{"18446744073709551616", 0, false, false, streamID{}, false, false},
		{"1-2-3", 0, false, false, streamID{}, false, false},
		{"", 0, false, false, streamID{}, false, false},
		{"x", 0, false, false, streamID{}, false, false},
		{"1\x002", 0, false, false, streamID{1, 0}, true, true}, // read as a C string
		{strings.Repeat("1", 128), 0, false, false, streamID{}, false, false},
	}
	for _, tc := range cases {
		id, seqGiven, err := parseStreamID([]byte(tc.in), tc.missing, tc.strict, tc.seqStar)
		if (err == nil) != tc.ok || (tc.ok && (id != tc.want || seqGiven != tc.seqGiven)) {
			t.Errorf("parseStreamID(%q, %d, %v, %v) = %v %v %v", tc.in, tc.missing, tc.strict, tc.seqStar, id, seqGiven, err)
		}
	}
}

func TestStreamIDIncrDecr(t *testing.T) {
	cases := []struct {
		id, next streamID
		ok       bool
	}{
		{streamID{1, 1}, streamID{1, 2}, true},
		{streamID{1, math.MaxUint64}, streamID{2, 0}, true},
		{maxStreamID, streamID{}, false},
	}
	for _, tc := range cases {
		if got, ok := tc.id.incr(); got != tc.next || ok != tc.ok {
			t.Errorf("%v.incr() = %v %v", tc.id, got, ok)
		}
		if tc.ok {
			if back, _ := tc.next.decr(); back != tc.id {
				t.Errorf("%v.decr() = %v, want %v", tc.next, back, tc.id)
			}
		}
	}
	if got, ok := (streamID{}).decr(); ok || got != maxStreamID {
		t.Errorf("0-0.decr() = %v %v", got, ok)
	}
}

// TestStreamIDsFollowTheEngineClock: "*" IDs come from the engine's clock,
// so a manual clock drives them, and they never go back with it.
func TestStreamIDsFollowTheEngineClock(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("XADD", "s", "*", "a", "1"), `"1700000000000-0"`},
		{cmd("XADD", "s", "*", "a", "2"), `"1700000000000-1"`},
	})
	te.Clock.FastForward(5 * time.Millisecond)
	te.run([]step{{cmd("XADD", "s", "*", "a", "3"), `"1700000000005-0"`}})
	te.Clock.FastForward(-time.Second)
	te.run([]step{
		{cmd("XADD", "s", "*", "a", "4"), `"1700000000005-1"`},
		{cmd("XADD", "s", "1700000000005-*", "a", "5"), `"1700000000005-2"`},
		{cmd("XLEN", "s"), "(integer) 5"},
	})
}

// TestStreamIdleTimesFollowTheEngineClock: XPENDING, XINFO CONSUMERS and
// XCLAIM's min-idle-time measure time on the engine's clock.
func TestStreamIdleTimesFollowTheEngineClock(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("XADD", "s", "1", "job", "a"), `"1-0"`},
		{cmd("XGROUP", "CREATE", "s", "g", "0"), "OK"},
		{cmd("XREADGROUP", "GROUP", "g", "w1", "STREAMS", "s", ">"), `[["s" [["1-0" ["job" "a"]]]]]`},
		{cmd("XCLAIM", "s", "g", "w2", "1000", "1", "JUSTID"), `[]`},
	})
	te.Clock.FastForward(1500 * time.Millisecond)
	te.run([]step{
		{cmd("XPENDING", "s", "g", "-", "+", "10"), `[["1-0" "w1" (integer) 1500 (integer) 1]]`},
		{cmd("XPENDING", "s", "g", "IDLE", "2000", "-", "+", "10"), `[]`},
		{cmd("XINFO", "CONSUMERS", "s", "g"), `[["name" "w1" "pending" (integer) 1 "idle" (integer) 1500]]`},
		{cmd("XCLAIM", "s", "g", "w2", "1000", "1", "JUSTID"), `["1-0"]`},
		{cmd("XPENDING", "s", "g", "-", "+", "10"), `[["1-0" "w2" (integer) 0 (integer) 1]]`},
	})
}

// TestStreamSurvivesRestart: entries, tombstones, groups, consumers and
// pending entries are all in the value bytes the AOF keeps.
func TestStreamSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	start := time.Unix(1700000000, 0)
	cfg := Config{Params: map[string]string{"dir": dir, "appendonly": "yes", "appendfsync": FsyncAlways}, Clock: NewManualClock(start)}
	te := openEngine(t, cfg)
	for i := 1; i <= 150; i++ {
		te.do("XADD", "s", fmt.Sprint(i), "f", fmt.Sprint(i*i))
	}
	te.run([]step{
		{cmd("XDEL", "s", "3", "120"), "(integer) 2"},
		{cmd("XGROUP", "CREATE", "s", "g", "0"), "OK"},
		{cmd("XREADGROUP", "GROUP", "g", "c", "COUNT", "2", "STREAMS", "s", ">"), `[["s" [["1-0" ["f" "1"]] ["2-0" ["f" "4"]]]]]`},
		{cmd("XSETID", "s", "500", "ENTRIESADDED", "160"), "OK"},
	})
	before := []string{
		te.do("XINFO", "STREAM", "s", "FULL", "COUNT", "0").String(),
		te.do("XPENDING", "s", "g", "-", "+", "10").String(),
	}
	te.Close()
	cfg.Clock = NewManualClock(start)
	te = openEngine(t, cfg)
	after := []string{
		te.do("XINFO", "STREAM", "s", "FULL", "COUNT", "0").String(),
		te.do("XPENDING", "s", "g", "-", "+", "10").String(),
	}
	for i := range before {
		if before[i] != after[i] {
			t.Errorf("after restart:\n%s\nbefore:\n%s", after[i], before[i])
		}
	}
	te.run([]step{
		{cmd("TYPE", "s"), "stream"},
		{cmd("OBJECT", "ENCODING", "s"), `"stream"`},
		{cmd("XLEN", "s"), "(integer) 148"},
		{cmd("XADD", "s", "*", "f", "x"), `"1700000000000-0"`},
	})
}

// TestStreamEncodingRoundTrip: decoding what was encoded gives the same
// bytes back, for streams with tombstones, several nodes and groups.
func TestStreamEncodingRoundTrip(t *testing.T) {
	te := newTestEngine(t)
	for i := 1; i <= 230; i++ {
		fields := []string{"f", fmt.Sprint(i)}
		if i%9 == 0 {
			fields = []string{"other", "x", "y", strings.Repeat("z", i)}
		}
		te.do(append([]string{"XADD", "s", fmt.Sprint(i)}, fields...)...)
	}
	te.do("XDEL", "s", "5", "150")
	te.do("XGROUP", "CREATE", "s", "g", "0")
	te.do("XGROUP", "CREATE", "s", "a", "$", "ENTRIESREAD", "7")
	te.do("XREADGROUP", "GROUP", "g", "c1", "COUNT", "3", "STREAMS", "s", ">")
	te.do("XREADGROUP", "GROUP", "g", "c0", "COUNT", "3", "STREAMS", "s", ">")
	te.do("XGROUP", "CREATECONSUMER", "s", "a", "idle")
	var payload string
	te.Do(false, 0, func(tx *Tx) {
		v, _ := tx.Get([]byte("s"))
		payload = v.Payload
	})
	s := decodeStream(payload)
	if got := encodeStream(s); got != payload {
		t.Fatalf("round trip changed the payload (%d -> %d bytes)", len(payload), len(got))
	}
	if s.length != 228 || len(s.nodes) != 3 || len(s.groups) != 2 || len(s.groups[1].pel) != 6 {
		t.Fatalf("decoded: length %d, %d nodes, %d groups", s.length, len(s.nodes), len(s.groups))
	}
	if s.groups[1].consumers[0].pending != 3 || s.groups[1].consumers[0].name != "c0" {
		t.Errorf("consumer c0: %+v", *s.groups[1].consumers[0])
	}
	// A damaged payload decodes to something, never panics.
	for n := 0; n < len(payload); n += 7 {
		decodeStream(payload[:n])
	}
}

// TestStreamListpackSizes pins the listpack element sizes that decide
// where a node ends (4096 bytes), as listpack.c encodes them.
func TestStreamListpackSizes(t *testing.T) {
	cases := []struct {
		s    string
		want int
	}{
		{"0", 2}, {"127", 2}, {"128", 3}, {"-1", 3}, {"4095", 3}, {"-4096", 3}, {"4096", 4},
		{"32767", 4}, {"32768", 5}, {"8388607", 5}, {"8388608", 6}, {"2147483648", 10},
		{"-0", 4}, {"01", 4}, {"", 2}, {"a", 3}, {strings.Repeat("a", 63), 65},
		{strings.Repeat("a", 64), 67}, {strings.Repeat("a", 125), 128}, {strings.Repeat("a", 126), 130},
		{strings.Repeat("a", 4095), 4099}, {strings.Repeat("a", 4096), 4103},
	}
	for _, tc := range cases {
		if got := lpStrSize(tc.s); got != tc.want {
			t.Errorf("lpStrSize(%d bytes %.8q) = %d, want %d", len(tc.s), tc.s, got, tc.want)
		}
	}
}

// TestStreamNodeBoundaries: a node takes 100 entries, or fewer when their
// bytes reach 4096, tombstones counting like live entries.
func TestStreamNodeBoundaries(t *testing.T) {
	s := &streamObj{}
	for i := 1; i <= 250; i++ {
		s.appendEntry(streamID{uint64(i), 0}, []string{"f", "v"})
	}
	if got := []int{len(s.nodes[0].entries), len(s.nodes[1].entries), len(s.nodes[2].entries)}; fmt.Sprint(got) != "[100 100 50]" {
		t.Errorf("node sizes %v", got)
	}
	big := &streamObj{}
	for i := 1; i <= 10; i++ {
		big.appendEntry(streamID{uint64(i), 0}, []string{"f", strings.Repeat("v", 1000)})
	}
	if got := len(big.nodes[0].entries); got != 4 {
		t.Errorf("1000-byte values: %d entries in the first node, want 4", got)
	}
	s.deleteEntry(streamID{10, 0})
	if s.nodes[0].live != 99 || len(s.nodes[0].entries) != 100 || s.length != 249 {
		t.Errorf("after XDEL: live %d, entries %d, length %d", s.nodes[0].live, len(s.nodes[0].entries), s.length)
	}
	n := s.trim(&trimArgs{strategy: trimMaxlen, approx: true, maxlen: 100, limit: 10000})
	if n != 99 || s.length != 150 {
		t.Errorf("MAXLEN ~ 100 removed %d, left %d", n, s.length)
	}
}

func TestStreamCommandsTable(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("XADD", "s", "1-1", "a", "1"), `"1-1"`},
		{cmd("XADD", "s", "1-1", "a", "1"), "(error) ERR The ID specified in XADD is equal or smaller than the target stream top item"},
		{cmd("XADD", "s", "0-0", "a", "1"), "(error) ERR The ID specified in XADD must be greater than 0-0"},
		{cmd("XADD", "s", "1-*", "b", "2"), `"1-2"`},
		{cmd("XADD", "s", "MAXLEN", "~", "1", "LIMIT", "5", "3", "c", "3"), `"3-0"`},
		{cmd("XADD", "s", "LIMIT", "5", "4", "c", "3"), "(error) ERR syntax error, LIMIT cannot be used without specifying a trimming strategy"},
		{cmd("XLEN", "s"), "(integer) 3"},
		{cmd("XRANGE", "s", "(1-1", "+", "COUNT", "1"), `[["1-2" ["b" "2"]]]`},
		{cmd("XREVRANGE", "s", "+", "-", "COUNT", "1"), `[["3-0" ["c" "3"]]]`},
		{cmd("XDEL", "s", "1-2", "9"), "(integer) 1"},
		{cmd("XTRIM", "s", "MINID", "3"), "(integer) 1"},
		{cmd("XREAD", "STREAMS", "s", "0"), `[["s" [["3-0" ["c" "3"]]]]]`},
		{cmd("XREAD", "STREAMS", "s", "$"), "(nil)"},
		{cmd("XDEL", "s", "3"), "(integer) 1"},
		{cmd("EXISTS", "s"), "(integer) 1"},
		{cmd("XINFO", "STREAM", "s"), `["length" (integer) 0 "radix-tree-keys" (integer) 0 "radix-tree-nodes" (integer) 1 "last-generated-id" "3-0" "max-deleted-entry-id" "3-0" "entries-added" (integer) 3 "recorded-first-entry-id" "0-0" "groups" (integer) 0 "first-entry" (nil) "last-entry" (nil)]`},
		{cmd("SET", "str", "v"), "OK"},
		{cmd("XADD", "str", "*", "a", "b"), "(error) WRONGTYPE Operation against a key holding the wrong kind of value"},
	})
}
