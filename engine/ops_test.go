package engine

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

func newOpsEngine(t *testing.T, params map[string]string) *testEngine {
	t.Helper()
	e, err := New(Config{Clock: NewManualClock(time.Unix(1700000000, 0)), Params: params})
	if err != nil {
		t.Fatal(err)
	}
	te := wrapTestEngine(t, e)
	te.s.SetAddrs("127.0.0.1:50000", "127.0.0.1:6379")
	return te
}

// TestSlowlog: with slowlog-log-slower-than 0 every command is logged
// (SLOWLOG's own reads too), newest first, with Redis's argument cuts,
// redaction, the client's address and name; max-len trims at once.
func TestSlowlog(t *testing.T) {
	te := newOpsEngine(t, nil)
	te.run([]step{
		{cmd("CONFIG", "GET", "slowlog-*"), `["slowlog-log-slower-than" "10000" "slowlog-max-len" "128"]`},
		{cmd("CONFIG", "SET", "slowlog-log-slower-than", "-2"), "(error) ERR CONFIG SET failed (possibly related to argument 'slowlog-log-slower-than') - argument must be between -1 and 9223372036854775807 inclusive"},
		{cmd("CONFIG", "SET", "slowlog-log-slower-than", "0"), "OK"},
		{cmd("SLOWLOG", "RESET"), "OK"},
		{cmd("CLIENT", "SETNAME", "me"), "OK"},
		{cmd("SLOWLOG", "LEN"), "(integer) 2"}, // RESET itself, then SETNAME
		{cmd("SLOWLOG", "GET", "x"), "(error) ERR count should be greater than or equal to -1"},
		{cmd("SLOWLOG", "GET", "-2"), "(error) ERR count should be greater than or equal to -1"},
		{cmd("SLOWLOG", "GET", "1", "2"), "(error) ERR unknown subcommand or wrong number of arguments for 'GET'. Try SLOWLOG HELP."},
		{cmd("SLOWLOG", "LEN", "x"), "(error) ERR wrong number of arguments for 'slowlog|len' command"},
	})
	long := strings.Repeat("x", 200)
	args := []string{"RPUSH", "l"}
	for i := 0; i < 40; i++ {
		args = append(args, "e")
	}
	te.do("SET", "big", long)
	te.do(args...)
	te.do("AUTH", "secret")
	ents := te.do("SLOWLOG", "GET", "3").Elems
	if len(ents) != 3 {
		t.Fatalf("SLOWLOG GET 3: %d entries", len(ents))
	}
	argv := func(r Reply) []string {
		var out []string
		for _, a := range r.Elems[3].Elems {
			out = append(out, a.Str)
		}
		return out
	}
	tests := []struct {
		ent  Reply
		want []string
	}{
		{ents[0], []string{"AUTH", "(redacted)"}},
		{ents[1], append(args[:31:31], "... (11 more arguments)")},
		{ents[2], []string{"SET", "big", strings.Repeat("x", 128) + "... (72 more bytes)"}},
	}
	for i, tc := range tests {
		if got := argv(tc.ent); strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("entry %d: argv %q, want %q", i, got, tc.want)
		}
		if tc.ent.Elems[1].Int != 1700000000 || tc.ent.Elems[4].Str != "127.0.0.1:50000" || tc.ent.Elems[5].Str != "me" {
			t.Errorf("entry %d: %s", i, tc.ent)
		}
	}
	if ents[0].Elems[0].Int != ents[1].Elems[0].Int+1 {
		t.Errorf("ids not consecutive: %s", te.do("SLOWLOG", "GET"))
	}
	te.run([]step{
		{cmd("CONFIG", "SET", "slowlog-max-len", "2"), "OK"},
		{cmd("SLOWLOG", "LEN"), "(integer) 2"},
		{cmd("CONFIG", "SET", "slowlog-log-slower-than", "-1"), "OK"},
		{cmd("SLOWLOG", "RESET"), "OK"},
		{cmd("PING"), "PONG"},
		{cmd("SLOWLOG", "LEN"), "(integer) 0"},
	})
}

// TestSlowlogParams: the parameters come from Config.Params at start and
// are refused there when invalid.
func TestSlowlogParams(t *testing.T) {
	te := newOpsEngine(t, map[string]string{"slowlog-max-len": "5", "latency-monitor-threshold": "7", "enable-debug-command": "LOCAL"})
	te.run([]step{
		{cmd("CONFIG", "GET", "slowlog-max-len"), `["slowlog-max-len" "5"]`},
		{cmd("CONFIG", "GET", "latency-monitor-threshold"), `["latency-monitor-threshold" "7"]`},
		{cmd("CONFIG", "GET", "enable-debug-command"), `["enable-debug-command" "local"]`},
		{cmd("CONFIG", "SET", "enable-debug-command", "yes"), "(error) ERR CONFIG SET failed (possibly related to argument 'enable-debug-command') - can't set immutable config"},
	})
	for _, bad := range []map[string]string{
		{"slowlog-max-len": "-1"},
		{"slowlog-log-slower-than": "x"},
		{"enable-debug-command": "maybe"},
	} {
		if e, err := New(Config{Params: bad}); err == nil {
			e.Close()
			t.Errorf("New with %v: no error", bad)
		}
	}
}

// TestLatencyMonitor: samples only at or above the threshold, one per
// second (the worst), LATEST/HISTORY/RESET shapes.
func TestLatencyMonitor(t *testing.T) {
	te := newOpsEngine(t, nil)
	te.LatencySample("command", 50) // threshold 0: off
	te.run([]step{
		{cmd("LATENCY", "LATEST"), "[]"},
		{cmd("CONFIG", "SET", "latency-monitor-threshold", "10"), "OK"},
	})
	te.LatencySample("command", 5) // below
	te.LatencySample("command", 20)
	te.LatencySample("command", 30) // same second: kept as the worst
	te.Clock.FastForward(time.Second)
	te.LatencySample("command", 15)
	te.LatencySample("expire-cycle", 12)
	te.run([]step{
		{cmd("LATENCY", "LATEST"), `[["command" (integer) 1700000001 (integer) 15 (integer) 30] ["expire-cycle" (integer) 1700000001 (integer) 12 (integer) 12]]`},
		{cmd("LATENCY", "HISTORY", "command"), `[[(integer) 1700000000 (integer) 30] [(integer) 1700000001 (integer) 15]]`},
		{cmd("LATENCY", "HISTORY", "nope"), "[]"},
		{cmd("LATENCY", "HISTORY"), "(error) ERR wrong number of arguments for 'latency|history' command"},
		{cmd("LATENCY", "GRAPH", "nope"), "(error) ERR No samples available for event 'nope'"},
		{cmd("LATENCY", "RESET", "COMMAND", "nope"), "(integer) 1"},
		{cmd("LATENCY", "RESET"), "(integer) 1"},
		{cmd("LATENCY", "LATEST"), "[]"},
	})
}

// TestLatencyHistogram: the bucket edges are hdr_histogram's reporting
// levels as Redis prints them, and counts are cumulative.
func TestLatencyHistogram(t *testing.T) {
	edges := []struct {
		k    int
		want int64 // µs
	}{{0, 1}, {1, 2}, {4, 16}, {5, 33}, {6, 66}, {7, 132}, {13, 8454}, {14, 16908}, {17, 135266}}
	for _, tc := range edges {
		if got := histEdge(tc.k) / 1000; got != tc.want {
			t.Errorf("histEdge(%d) = %d µs, want %d", tc.k, got, tc.want)
		}
	}
	te := newOpsEngine(t, nil)
	c := te.Table.Get([]byte("ping"))
	te.tally.of(c).hist.add(500 * time.Nanosecond)
	te.tally.of(c).hist.add(20 * time.Microsecond)
	te.tally.of(c).hist.add(30 * time.Microsecond)
	te.run([]step{
		{cmd("LATENCY", "HISTOGRAM", "ping", "nosuch"), `["ping" ["calls" (integer) 3 "histogram_usec" [(integer) 1 (integer) 1 (integer) 33 (integer) 3]]]`},
		{cmd("CONFIG", "RESETSTAT"), "OK"},
		{cmd("LATENCY", "HISTOGRAM", "ping"), `[]`},
	})
}

// TestAppendRepr: MONITOR's quoting is sdscatrepr's.
func TestAppendRepr(t *testing.T) {
	tests := []struct{ in, want string }{
		{"k", `"k"`},
		{"", `""`},
		{"a b", `"a b"`},
		{"q\"\\", `"q\"\\"`},
		{"\n\r\t\a\b", `"\n\r\t\a\b"`},
		{"\x00\x01\x7f\xff", `"\x00\x01\x7f\xff"`},
		{"é", `"\xc3\xa9"`},
	}
	for _, tc := range tests {
		if got := string(appendRepr(nil, []byte(tc.in))); got != tc.want {
			t.Errorf("appendRepr(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// pushLog collects what a monitor session receives.
type pushLog struct {
	mu    sync.Mutex
	lines []string
}

func (p *pushLog) take() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.lines
	p.lines = nil
	return out
}

// TestMonitorFeed: lines for commands that ran (not admin, not refused),
// in order, scripts' commands after the script, EXEC after its queue;
// the monitor itself may not touch the keyspace; RESET stops it.
func TestMonitorFeed(t *testing.T) {
	te := newOpsEngine(t, nil)
	mon := NewSession(KindClient)
	mon.Authenticated = true
	mon.SetAddrs("127.0.0.1:50001", "127.0.0.1:6379")
	te.AddSession(mon)
	var log pushLog
	mon.SetPush(func(write func(Writer)) {
		var rec Recorder
		write(&rec)
		log.mu.Lock()
		log.lines = append(log.lines, rec.Last().Str)
		log.mu.Unlock()
	})
	monDo := func(args ...string) string {
		bargs := make([][]byte, len(args))
		for i, a := range args {
			bargs[i] = []byte(a)
		}
		var rec Recorder
		te.Dispatch(mon, nil, bargs, &rec)
		mon.RunAfterReply()
		return rec.Last().String()
	}
	// The OK leaves on the push path, queued with the registration, so
	// that no line can come before it and none after it is missed.
	if r := monDo("MONITOR"); r != "(nil)" {
		t.Fatalf("MONITOR's direct reply: %s", r)
	}
	if got := log.take(); len(got) != 1 || got[0] != "OK" {
		t.Fatalf("MONITOR's reply: %q", got)
	}
	te.do("SET", "k", "v\n")
	te.do("CONFIG", "GET", "port") // admin: hidden
	te.do("GET")                   // refused: hidden
	te.do("SELECT", "2")
	te.do("MULTI")
	te.do("INCR", "n")
	te.do("EXEC")
	te.do("AUTH", "a", "b")
	if r := monDo("GET", "k"); r != "(error) ERR Replica can't interact with the keyspace" {
		t.Errorf("GET on a monitor: %s", r)
	}
	monDo("PING")
	want := []string{
		`1700000000.000000 [0 127.0.0.1:50000] "SET" "k" "v\n"`,
		`1700000000.000000 [2 127.0.0.1:50000] "SELECT" "2"`,
		`1700000000.000000 [2 127.0.0.1:50000] "MULTI"`,
		`1700000000.000000 [2 127.0.0.1:50000] "INCR" "n"`,
		`1700000000.000000 [2 127.0.0.1:50000] "EXEC"`,
		`1700000000.000000 [2 127.0.0.1:50000] "AUTH" "(redacted)" "(redacted)"`,
		`1700000000.000000 [0 127.0.0.1:50001] "PING"`,
	}
	if got := log.take(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("monitor lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if r := monDo("MONITOR"); r != "(nil)" { // no reply at all
		t.Errorf("second MONITOR: %s", r)
	}
	monDo("RESET")
	te.do("SET", "k", "v")
	if got := log.take(); len(got) != 0 {
		t.Errorf("after RESET: %q", got)
	}
	// Inside EXEC, MONITOR is refused as for Redis's DENY_BLOCKING client.
	te.run([]step{
		{cmd("MULTI"), "OK"},
		{cmd("MONITOR"), "QUEUED"},
		{cmd("EXEC"), `[(error) ERR MONITOR isn't allowed for DENY BLOCKING client]`},
	})
}

// TestDebugGate: enable-debug-command no|yes|local, and the subcommands.
func TestDebugGate(t *testing.T) {
	refused := "(error) ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server."
	tests := []struct {
		mode, addr, want string
	}{
		{"", "127.0.0.1:5", refused},
		{"no", "127.0.0.1:5", refused},
		{"yes", "10.0.0.1:5", "OK"},
		{"local", "127.0.0.1:5", "OK"},
		{"local", "[::1]:5", "OK"},
		{"local", "/tmp/redis.sock", "OK"},
		{"local", "10.0.0.1:5", refused},
		{"local", "127.0.0.2:5", refused},
	}
	for _, tc := range tests {
		params := map[string]string{}
		if tc.mode != "" {
			params["enable-debug-command"] = tc.mode
		}
		te := newOpsEngine(t, params)
		te.s.SetAddrs(tc.addr, "")
		if got := te.do("DEBUG", "SLEEP", "0").String(); got != tc.want {
			t.Errorf("%s from %s: %s", tc.mode, tc.addr, got)
		}
	}
	te := newOpsEngine(t, map[string]string{"enable-debug-command": "local"})
	te.run([]step{
		{cmd("DEBUG", "SLEEP", "x"), "OK"},
		{cmd("DEBUG", "SLEEP", "-1"), "OK"},
		{cmd("DEBUG", "JMAP"), "(error) ERR unknown subcommand or wrong number of arguments for 'JMAP'. Try DEBUG HELP."},
		{cmd("DEBUG", "SLEEP"), "(error) ERR unknown subcommand or wrong number of arguments for 'SLEEP'. Try DEBUG HELP."},
		{cmd("DEBUG", "OBJECT", "nokey"), "(error) ERR no such key"},
		{cmd("SET", "n", "12"), "OK"},
		{cmd("DEBUG", "ERROR", "MYERR boom"), "(error) MYERR boom"},
		{cmd("DEBUG", "SET-ACTIVE-EXPIRE", "0"), "OK"},
	})
	if te.Keyspace().ActiveExpire() {
		t.Error("DEBUG SET-ACTIVE-EXPIRE 0 left the sweeper on")
	}
	te.do("DEBUG", "SET-ACTIVE-EXPIRE", "x1") // atoi: 0
	te.do("DEBUG", "SET-ACTIVE-EXPIRE", "2")
	if !te.Keyspace().ActiveExpire() {
		t.Error("DEBUG SET-ACTIVE-EXPIRE 2 left the sweeper off")
	}
	if got := te.do("DEBUG", "OBJECT", "n").Str; !strings.HasPrefix(got, "Value at:0x") ||
		!strings.Contains(got, " refcount:2147483647 encoding:int serializedlength:2 lru:0 lru_seconds_idle:0") {
		t.Errorf("DEBUG OBJECT n: %q", got)
	}
}

// TestShutdownCommand: options, errors, the hook, no reply on success.
func TestShutdownCommand(t *testing.T) {
	te := newOpsEngine(t, nil)
	te.run([]step{
		{cmd("SHUTDOWN", "ABORT"), "(error) ERR No shutdown in progress."},
		{cmd("SHUTDOWN", "NOSAVE", "SAVE"), "(error) ERR syntax error"},
		{cmd("SHUTDOWN", "ABORT", "NOW"), "(error) ERR syntax error"},
		{cmd("SHUTDOWN", "FOO"), "(error) ERR syntax error"},
		{cmd("SHUTDOWN"), "(error) ERR Errors trying to SHUTDOWN. Check logs."}, // no hook
		{cmd("ROLE"), `["master" (integer) 0 []]`},
	})
	var got []ShutdownFlags
	e, err := New(Config{Shutdown: func(f ShutdownFlags) { got = append(got, f) }})
	if err != nil {
		t.Fatal(err)
	}
	te = wrapTestEngine(t, e)
	var rec Recorder
	te.Dispatch(te.s, nil, [][]byte{[]byte("SHUTDOWN"), []byte("nosave"), []byte("NOW")}, &rec)
	if len(rec.Replies) != 0 || !te.s.CloseAfterReply {
		t.Errorf("SHUTDOWN: replies %v, close %v", rec.Replies, te.s.CloseAfterReply)
	}
	if len(got) != 1 || got[0] != (ShutdownFlags{NoSave: true, Now: true}) || !e.ShuttingDown() {
		t.Errorf("hook called with %v", got)
	}
}

// TestSwapDB: contents, counters, expiry and tokens move; WATCH breaks
// only for keys that exist on either side; blocked clients are served.
func TestSwapDB(t *testing.T) {
	te := newOpsEngine(t, nil)
	te.run([]step{
		{cmd("SET", "a", "0"), "OK"},
		{cmd("SET", "t", "0", "PX", "5000"), "OK"},
		{cmd("SELECT", "1"), "OK"},
		{cmd("SET", "b", "1"), "OK"},
		{cmd("SELECT", "0"), "OK"},
	})
	tok := te.do("LOCK.TOKEN", "a").String()
	watcher := NewSession(KindClient)
	watcher.Authenticated = true
	te.AddSession(watcher)
	wdo := func(args ...string) string {
		bargs := make([][]byte, len(args))
		for i, a := range args {
			bargs[i] = []byte(a)
		}
		var rec Recorder
		te.Dispatch(watcher, nil, bargs, &rec)
		return rec.Last().String()
	}
	wdo("WATCH", "zz") // exists in neither db: not broken
	wdo("MULTI")
	wdo("PING")
	te.run([]step{
		{cmd("SWAPDB", "0", "x"), "(error) ERR invalid second DB index"},
		{cmd("SWAPDB", "x", "0"), "(error) ERR invalid first DB index"},
		{cmd("SWAPDB", "0", "16"), "(error) ERR DB index is out of range"},
		{cmd("SWAPDB", "0", "4294967296"), "(error) ERR invalid second DB index"},
		{cmd("SWAPDB", "0", "0"), "OK"},
		{cmd("SWAPDB", "0", "1"), "OK"},
		{cmd("KEYS", "*"), `["b"]`},
		{cmd("DBSIZE"), "(integer) 1"},
		{cmd("SELECT", "1"), "OK"},
		{cmd("DBSIZE"), "(integer) 2"},
		{cmd("GET", "a"), `"0"`},
		{cmd("PTTL", "t"), "(integer) 5000"},
		{cmd("LOCK.TOKEN", "a"), tok},
		{cmd("SELECT", "0"), "OK"},
	})
	if r := wdo("EXEC"); r != `[PONG]` {
		t.Errorf("EXEC after SWAPDB of unwatched keys: %s", r)
	}
	wdo("WATCH", "b") // in db 0 now
	wdo("MULTI")
	wdo("PING")
	te.do("SWAPDB", "1", "0")
	if r := wdo("EXEC"); r != "(nil)" {
		t.Errorf("EXEC after SWAPDB of a watched key: %s", r)
	}
	// The expiry moved with the key: the sweeper finds it in db 0 again.
	te.Clock.FastForward(6 * time.Second)
	te.Sweep(0)
	te.run([]step{{cmd("EXISTS", "t"), "(integer) 0"}, {cmd("DBSIZE"), "(integer) 1"}})
}

// TestMemoryUsage: MEMORY USAGE's estimate and its arguments.
func TestMemoryUsage(t *testing.T) {
	te := newOpsEngine(t, nil)
	te.do("SET", "k", "hello")
	plain := te.do("MEMORY", "USAGE", "k").Int
	te.do("PEXPIRE", "k", "100000")
	withTTL := te.do("MEMORY", "USAGE", "k").Int
	// The stored value grows by the expiry itself (6 bytes of uvarint
	// unix ms in keyspace's compact layout) and the key by its entry in
	// the expiry queue.
	if plain < int64(memItemOverhead+2+5) || withTTL != plain+6+memExpireOverhead {
		t.Errorf("MEMORY USAGE: %d, with a TTL %d", plain, withTTL)
	}
	te.run([]step{
		{cmd("MEMORY", "USAGE", "nokey"), "(nil)"},
		{cmd("MEMORY", "USAGE", "k", "SAMPLES", "x"), "(error) ERR value is not an integer or out of range"},
		{cmd("MEMORY", "USAGE", "k", "SAMPLES", "-1"), "(error) ERR syntax error"},
		{cmd("MEMORY", "USAGE", "k", "FOO"), "(error) ERR syntax error"},
		{cmd("MEMORY", "PURGE"), "OK"},
	})
	stats := te.do("MEMORY", "STATS")
	if stats.Kind != KindMap || stats.Elems[0].Str != "peak.allocated" || len(stats.Elems) != 2*28 { // 27 fields and db.0
		t.Errorf("MEMORY STATS: kind %d, %s", stats.Kind, stats)
	}
	for i := 0; i+1 < len(stats.Elems); i += 2 {
		if v := stats.Elems[i+1]; v.Kind == KindInt && v.Int < 0 && !strings.HasSuffix(stats.Elems[i].Str, ".bytes") {
			t.Errorf("MEMORY STATS %s = %d", stats.Elems[i].Str, v.Int)
		}
	}
}

// TestClientKillLogs: CLIENT KILL logs each connection it closes.
func TestClientKillLogs(t *testing.T) {
	var mu sync.Mutex
	var lines []string
	e, err := New(Config{Logf: func(level, format string, args ...any) {
		mu.Lock()
		lines = append(lines, level+" "+fmt.Sprintf(format, args...))
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	te := wrapTestEngine(t, e)
	te.s.SetAddrs("127.0.0.1:50000", "127.0.0.1:6379")
	victim := NewSession(KindClient)
	victim.SetAddrs("127.0.0.1:50001", "127.0.0.1:6379")
	victim.SetName("w")
	closed := false
	victim.Close = func() { closed = true }
	te.AddSession(victim)
	te.run([]step{{cmd("CLIENT", "KILL", "ADDR", "127.0.0.1:50001"), "(integer) 1"}})
	want := fmt.Sprintf("notice Client id=%d addr=127.0.0.1:50001 laddr=127.0.0.1:6379 name=w killed by CLIENT KILL from id=%d addr=127.0.0.1:50000", victim.ID, te.s.ID)
	mu.Lock()
	defer mu.Unlock()
	if !closed || len(lines) == 0 || lines[len(lines)-1] != want {
		t.Errorf("closed %v, log %q, want %q", closed, lines, want)
	}
}
