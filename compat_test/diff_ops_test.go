package compat

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lockredis/lockredis"
)

// Operations commands beside redis-server: SLOWLOG, LATENCY, MEMORY,
// DEBUG, ROLE, SWAPDB, SHUTDOWN's errors and MONITOR, in RESP2 and RESP3.
// Timings, ids, timestamps and client ports differ between the servers:
// masked steps compare the rest.

var (
	addrRe = regexp.MustCompile(`127\.0\.0\.1:[0-9]+`)
	tsRe   = regexp.MustCompile(`^[0-9]+\.[0-9]{6} `)
	// A MONITOR line's timestamp, after the simple string's '+'.
	monitorTSRe = regexp.MustCompile(`^\+[0-9]+\.[0-9]{6} `)
	// DEBUG OBJECT's internals: address, serialized length, LRU clock.
	objRe = regexp.MustCompile(`Value at:0x[0-9a-f]+|serializedlength:[0-9]+|lru:[0-9]+|lru_seconds_idle:[0-9]+|ql_uncompressed_size:[0-9]+`)
)

// maskNode replaces client addresses and MONITOR timestamps in a reply.
func maskNode(n node) node {
	n.line = tsRe.ReplaceAllString(addrRe.ReplaceAllString(n.line, "ADDR"), "TS ")
	n.line = objRe.ReplaceAllStringFunc(n.line, func(m string) string { return m[:strings.LastIndexByte(m, ':')+1] })
	n.blob = addrRe.ReplaceAllString(n.blob, "ADDR")
	elems := make([]node, len(n.elems))
	for i, e := range n.elems {
		elems[i] = maskNode(e)
	}
	n.elems = elems
	return n
}

func masked(cmd string) diffStep { return diffStep{args: splitCommand(cmd), mode: modeMasked} }

func TestDiffOps(t *testing.T) {
	big := strings.Repeat("x", 200)
	push := "RPUSH l"
	for i := 1; i <= 40; i++ {
		push += fmt.Sprintf(" %d", i)
	}
	runDiffCases(t, []diffCase{
		{name: "slowlog", steps: steps(
			"CONFIG GET slowlog-max-len",
			"CONFIG SET slowlog-log-slower-than -2",
			"CONFIG SET slowlog-max-len -1",
			"CONFIG SET slowlog-log-slower-than 0",
			"SLOWLOG RESET",
			"CLIENT SETNAME me",
			"SET big "+big,
			push,
			"AUTH pw",
			"AUTH a b c",
			`EVAL "redis.call('set','a','b') return 1" 0`,
			"EXEC",
			masked("SLOWLOG GET 9"),
			masked("SLOWLOG GET 2"),
			"SLOWLOG GET x",
			"SLOWLOG GET -2",
			"SLOWLOG GET 1 2",
			"SLOWLOG LEN x",
			"SLOWLOG FOO",
			"SLOWLOG",
			"SLOWLOG HELP",
			"CONFIG SET slowlog-max-len 3",
			"SLOWLOG LEN",
			"CONFIG SET slowlog-log-slower-than -1",
			"SLOWLOG RESET",
			"PING",
			"SLOWLOG LEN",
			"CONFIG SET slowlog-log-slower-than 10000",
			"CONFIG SET slowlog-max-len 128",
			"CONFIG GET slowlog-log-slower-than",
		)},
		{name: "latency", steps: steps(
			"LATENCY HELP",
			"LATENCY LATEST",
			"LATENCY HISTORY command",
			"LATENCY HISTORY",
			"LATENCY HISTORY a b",
			"LATENCY RESET",
			"LATENCY RESET command fast-command",
			"LATENCY GRAPH command",
			"LATENCY GRAPH",
			kind("LATENCY DOCTOR"),
			"LATENCY HISTOGRAM nosuch",
			"LATENCY FOO",
			"LATENCY LATEST x",
			"CONFIG GET latency-monitor-threshold",
			"CONFIG SET latency-monitor-threshold -1",
			"CONFIG SET latency-monitor-threshold 0",
		)},
		{name: "memory", steps: steps(
			"MEMORY HELP",
			"MEMORY USAGE nokey",
			"SET k v",
			"MEMORY USAGE k SAMPLES x",
			"MEMORY USAGE k SAMPLES -1",
			"MEMORY USAGE k FOO",
			"MEMORY USAGE k SAMPLES",
			kind("MEMORY USAGE k SAMPLES 0"),
			kind("MEMORY USAGE k"),
			"MEMORY PURGE",
			kind("MEMORY DOCTOR"),
			kind("MEMORY MALLOC-STATS"),
			kind("MEMORY STATS"),
			"MEMORY",
			"MEMORY FOO",
			"MEMORY STATS x",
		)},
		{name: "role", steps: steps("ROLE", "ROLE x")},
		{name: "swapdb", steps: steps(
			"SET a 0",
			"SET t 0 EX 100",
			"SELECT 1",
			"SADD s x",
			"SET b 1",
			"SELECT 0",
			"SWAPDB 0 x",
			"SWAPDB x 0",
			"SWAPDB 0 16",
			"SWAPDB -1 0",
			"SWAPDB 0 99999999999",
			"SWAPDB 0",
			"SWAPDB 0 0",
			unordered("KEYS *"),
			"SWAPDB 0 1",
			unordered("KEYS *"),
			"DBSIZE",
			"SMEMBERS s",
			"SELECT 1",
			unordered("KEYS *"),
			within(1, "TTL t"),
			"GET a",
			"SWAPDB 1 0",
			unordered("KEYS *"),
			"MULTI",
			"SWAPDB 0 1",
			"EXEC",
			"DBSIZE",
		)},
		{name: "shutdown errors", steps: steps(
			"SHUTDOWN ABORT",
			"SHUTDOWN NOSAVE SAVE",
			"SHUTDOWN ABORT NOW",
			"SHUTDOWN save abort",
			"SHUTDOWN FOO",
			"MULTI",
			"SHUTDOWN",
			"EXEC",
			`EVAL "return redis.call('shutdown')" 0`,
		)},
		// Neither server enables DEBUG (Redis's default "no").
		{name: "debug refused", steps: steps(
			"DEBUG SLEEP 0",
			"DEBUG HELP",
			"DEBUG",
			"MULTI",
			"DEBUG SLEEP 0",
			"EXEC",
		)},
		{name: "monitor refused inside EXEC", steps: steps(
			"MULTI",
			"MONITOR",
			"EXEC",
			`EVAL "return redis.call('monitor')" 0`,
		)},
	})
}

// TestDiffDebugLocal: with enable-debug-command local, DEBUG from a
// loopback client, beside redis-server started the same way.
func TestDiffDebugLocal(t *testing.T) {
	p := &diffPair{owner: t, supported: map[string]bool{}}
	p.redisAddr = startRedis(t, "--enable-debug-command", "local")
	srv := lockredis.NewServer(lockredis.Options{Params: map[string]string{"enable-debug-command": "local"}})
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	p.lockAddr = srv.Addr()
	forEachProto(t, func(t *testing.T, proto int) {
		reportDiffs(t, runSteps(t, p, proto, steps(
			"FLUSHALL",
			"CONFIG GET enable-debug-command",
			"CONFIG SET enable-debug-command yes",
			"DEBUG SLEEP 0",
			"DEBUG SLEEP 0.01",
			"DEBUG SLEEP x",
			"DEBUG SLEEP",
			"DEBUG JMAP",
			"DEBUG FOO bar",
			"DEBUG OBJECT nokey",
			"DEBUG ERROR \"MYERR went wrong\"",
			"DEBUG SET-ACTIVE-EXPIRE 0",
			"DEBUG SET-ACTIVE-EXPIRE 1",
			"SET n 12",
			maskedObject("DEBUG OBJECT n"),
			"SET s hello",
			maskedObject("DEBUG OBJECT s"),
			"RPUSH l a b c",
			maskedObject("DEBUG OBJECT l"),
		)))
	})
}

// maskedObject compares DEBUG OBJECT's line without the address, the
// serialized length and the LRU clock, which are Redis's internals.
func maskedObject(cmd string) diffStep { return diffStep{args: splitCommand(cmd), mode: modeMasked} }

// TestSwapDBServesBlocked: a client blocked on a list in db 1 is served
// when SWAPDB brings a list there, on both servers.
func TestSwapDBServesBlocked(t *testing.T) {
	p := newDiffPair(t, "")
	for _, addr := range []string{p.redisAddr, p.lockAddr} {
		t.Run(addr, func(t *testing.T) {
			a, b := dialRaw(t, addr), dialRaw(t, addr)
			b.do(t, "FLUSHALL")
			a.do(t, "SELECT", "1")
			if _, err := a.c.Write(encodeCommand([]string{"BLPOP", "q", "5"})); err != nil {
				t.Fatal(err)
			}
			waitOneBlocked(t, b)
			b.do(t, "RPUSH", "q", "job")
			if r := b.do(t, "SWAPDB", "0", "1"); r != "+OK\r\n" {
				t.Fatalf("SWAPDB: %q", r)
			}
			a.c.SetDeadline(time.Now().Add(5 * time.Second))
			r, err := readReply(a.r)
			if err != nil || string(r) != "*2\r\n$1\r\nq\r\n$3\r\njob\r\n" {
				t.Errorf("BLPOP after SWAPDB: %q, %v", r, err)
			}
			if r := b.do(t, "DBSIZE"); r != ":0\r\n" {
				t.Errorf("DBSIZE 0 after the pop: %q", r)
			}
		})
	}
}

// waitOneBlocked waits until a client is blocked (INFO clients).
func waitOneBlocked(t *testing.T, c *rawConn) {
	t.Helper()
	for i := 0; i < 500; i++ {
		if strings.Contains(c.do(t, "INFO", "clients"), "blocked_clients:1") {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("no client blocked")
}

// TestDiffMonitor: a MONITOR connection sees the same lines from both
// servers, timestamps and client ports masked, in RESP2 and RESP3.
func TestDiffMonitor(t *testing.T) {
	p := newDiffPair(t, "")
	cmds := [][]string{
		{"SET", "k", "v \"q\"\n\x01\xff\\"},
		{"AUTH", "pw"},
		{"AUTH", "u", "pw"},
		{"AUTH", "a", "b", "c"},
		{"HELLO", "2", "AUTH", "default", "pw"},
		{"HELLO", "2", "SETNAME", "n"},
		{"SELECT", "3"},
		{"SET", "n", "12345"},
		{"MULTI"},
		{"INCR", "n"},
		{"GET"},
		{"EXEC"},
		{"MULTI"},
		{"INCR", "n"},
		{"EXEC"},
		{"EVAL", "redis.call('set','a','b') return 1", "0"},
		{"EVALSHA", "0000000000000000000000000000000000000000", "0"},
		{"CONFIG", "GET", "port"},
		{"NOSUCH", "x"},
		{"CLIENT", "SETNAME", "zz"},
		{"SELECT", "0"},
		{"SLOWLOG", "LEN"},
		{"BLPOP", "nolist", "0.01"},
		{"SWAPDB", "0", "1"},
		{"ECHO", "end"},
	}
	diffMonitor(t, p, cmds,
		// The monitor's own commands are answered, not shown.
		func(mon *rawConn) []string { return []string{mon.do(t, "GET", "x"), mon.do(t, "PING")} },
		// After RESET it monitors no more: the client's PING is not shown.
		func(mon, cl *rawConn) []string {
			reset := mon.do(t, "RESET")
			cl.do(t, "PING")
			return []string{reset, mon.do(t, "ECHO", "after reset")}
		})
}

// diffMonitor compares, in RESP2 and RESP3, what a MONITOR connection
// reads from each server while another client sends cmds, the last of
// which is ECHO end: MONITOR's reply, before's lines (the monitor's own
// commands, nil for none), the lines up to ECHO end's, then after's.
// Timestamps and client addresses are masked.
func diffMonitor(t *testing.T, p *diffPair, cmds [][]string, before func(mon *rawConn) []string, after func(mon, cl *rawConn) []string) {
	t.Helper()
	forEachProto(t, func(t *testing.T, proto int) {
		var got [2][]string
		for i, addr := range []string{p.redisAddr, p.lockAddr} {
			mon, cl := dialRaw(t, addr), dialRaw(t, addr)
			if proto == 3 {
				helloResp3(t, mon, "")
				helloResp3(t, cl, "")
			}
			lines := []string{mon.do(t, "MONITOR")}
			if before != nil {
				lines = append(lines, before(mon)...)
			}
			for _, c := range cmds {
				cl.do(t, c...)
			}
			mon.c.SetDeadline(time.Now().Add(5 * time.Second))
			for {
				r, err := readReply(mon.r)
				if err != nil {
					t.Fatalf("reading MONITOR lines: %v (so far %q)", err, lines)
				}
				lines = append(lines, string(r))
				if strings.Contains(string(r), `"ECHO" "end"`) {
					break
				}
			}
			if after != nil {
				lines = append(lines, after(mon, cl)...)
			}
			for j, l := range lines {
				lines[j] = addrRe.ReplaceAllString(monitorTSRe.ReplaceAllString(l, "+TS "), "ADDR")
			}
			got[i] = lines
		}
		if strings.Join(got[0], "") != strings.Join(got[1], "") {
			t.Errorf("MONITOR lines differ:\nredis:     %q\nlockredis: %q", got[0], got[1])
		}
	})
}

// TestShutdownOnBinary: SHUTDOWN closes the caller's connection without a
// reply, the process exits with status 0 and Redis's log lines, the state
// file records a clean stop and the AOF has every key.
func TestShutdownOnBinary(t *testing.T) {
	n := newNode(t, "", "--appendonly", "yes", "--appendfsync", "everysec")
	n.start()
	c := dialRaw(t, n.addr())
	for i := 0; i < 50; i++ {
		c.do(t, "SET", fmt.Sprintf("k%d", i), "v")
	}
	reply, err := c.roundTrip(encodeCommand([]string{"SHUTDOWN", "NOSAVE", "NOW"}))
	if err == nil {
		t.Fatalf("SHUTDOWN answered %q", reply)
	}
	n.mu.Lock()
	exited := n.exited
	n.mu.Unlock()
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		t.Fatalf("no exit after SHUTDOWN:\n%s", n.out.String())
	}
	n.mu.Lock()
	exitErr := n.err
	n.cmd = nil
	n.mu.Unlock()
	if exitErr != nil {
		t.Fatalf("exit after SHUTDOWN: %v\n%s", exitErr, n.out.String())
	}
	out := n.out.String()
	for _, want := range []string{"# User requested shutdown...", "* Calling fsync() on the AOF file.", "# Redis is now ready to exit, bye bye..."} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
	state, err := os.ReadFile(filepath.Join(n.dir, "lockredis.state"))
	if err != nil || !strings.Contains(string(state), "marker clean") {
		t.Errorf("state file after SHUTDOWN: %q, %v", state, err)
	}
	// Restarted on the same files: every key is there, no fence.
	n.start()
	rc := dialRaw(t, n.addr())
	if r := rc.do(t, "DBSIZE"); r != ":50\r\n" {
		t.Errorf("DBSIZE after restart: %q\n%s", r, n.out.String())
	}
	if r := rc.do(t, "SET", "new", "1", "NX"); r != "+OK\r\n" {
		t.Errorf("SET NX after a clean SHUTDOWN: %q", r)
	}
	n.term()
}

// TestSlowlogFlagsOnBinary: the parameters as flags and config directives.
func TestSlowlogFlagsOnBinary(t *testing.T) {
	conf := filepath.Join(t.TempDir(), "redis.conf")
	if err := os.WriteFile(conf, []byte("slowlog-max-len 7\nlatency-monitor-threshold 3\nenable-debug-command local\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := startBinary(t, conf, "--slowlog-log-slower-than", "0")
	c := dialRaw(t, addr)
	for _, tc := range []struct{ cmd, want string }{
		{"slowlog-log-slower-than", "*2\r\n$23\r\nslowlog-log-slower-than\r\n$1\r\n0\r\n"},
		{"slowlog-max-len", "*2\r\n$15\r\nslowlog-max-len\r\n$1\r\n7\r\n"},
		{"latency-monitor-threshold", "*2\r\n$25\r\nlatency-monitor-threshold\r\n$1\r\n3\r\n"},
		{"enable-debug-command", "*2\r\n$20\r\nenable-debug-command\r\n$5\r\nlocal\r\n"},
	} {
		if r := c.do(t, "CONFIG", "GET", tc.cmd); r != tc.want {
			t.Errorf("CONFIG GET %s: %q", tc.cmd, r)
		}
	}
	if r := c.do(t, "DEBUG", "SLEEP", "0.005"); r != "+OK\r\n" {
		t.Errorf("DEBUG SLEEP from loopback: %q", r)
	}
	r := c.do(t, "LATENCY", "LATEST")
	if !strings.HasPrefix(r, "*1\r\n*4\r\n$7\r\ncommand\r\n") {
		t.Errorf("LATENCY LATEST after a 5 ms DEBUG SLEEP: %q", r)
	}
	if r := c.do(t, "SLOWLOG", "LEN"); r == ":0\r\n" {
		t.Errorf("SLOWLOG LEN: %q", r)
	}
}
