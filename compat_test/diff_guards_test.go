package compat

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lockredis/lockredis"
)

// The server-state refusals (engine/guards.go): BUSY while a script runs
// past lua-time-limit, OOM past maxmemory, MISCONF on a failing disk. The
// busy and OOM scenarios are Redis's own Tcl tests (unit/scripting.tcl
// "Timedout ..." and unit/multi.tcl "... script timeout", "... OOM"),
// played on several connections against redis-server and lockredis side
// by side: every reply is compared.

// gOp is what a scenario step does on its connection.
type gOp int

const (
	gDo        gOp = iota // send a command, record its reply
	gSend                 // send a command, do not read (the script runner)
	gRead                 // read the reply of what was sent
	gUntilBusy            // repeat the command until it answers BUSY; record that reply
	gUntilOK              // repeat the command until it answers without an error; record that reply
)

// gStep is one step of a scenario on connection conn (0, 1, 2...).
type gStep struct {
	conn int
	op   gOp
	args []string
}

func gdo(conn int, cmd ...string) gStep   { return gStep{conn, gDo, cmd} }
func gsend(conn int, cmd ...string) gStep { return gStep{conn, gSend, cmd} }
func gread(conn int) gStep                { return gStep{conn: conn, op: gRead} }
func gbusy(conn int, cmd ...string) gStep { return gStep{conn, gUntilBusy, cmd} }
func gok(conn int, cmd ...string) gStep   { return gStep{conn, gUntilOK, cmd} }

func (s gStep) String() string {
	return fmt.Sprintf("conn %d %v %q", s.conn, []string{"do", "send", "read", "until BUSY", "until OK"}[s.op], s.args)
}

// playScenario runs steps against addr on fresh connections and returns
// each recorded reply.
func playScenario(t *testing.T, addr string, steps []gStep) []string {
	t.Helper()
	conns := map[int]*rawConn{}
	conn := func(i int) *rawConn {
		if c, ok := conns[i]; ok {
			return c
		}
		c := dialRaw(t, addr)
		conns[i] = c
		return c
	}
	var out []string
	for _, st := range steps {
		c := conn(st.conn)
		switch st.op {
		case gDo:
			out = append(out, c.do(t, st.args...))
		case gSend:
			if _, err := c.c.Write(encodeCommand(st.args)); err != nil {
				t.Fatalf("%s: %v", st, err)
			}
		case gRead:
			c.c.SetDeadline(time.Now().Add(replyTimeout))
			r, err := readReply(c.r)
			if err != nil {
				t.Fatalf("%s on %s: %v", st, addr, err)
			}
			out = append(out, string(r))
		case gUntilBusy, gUntilOK:
			// A bound for a broken server, not a timing assertion.
			deadline := time.Now().Add(10 * time.Second)
			for {
				r := c.do(t, st.args...)
				if (st.op == gUntilBusy && strings.HasPrefix(r, "-BUSY")) || (st.op == gUntilOK && r[0] != '-') {
					out = append(out, r)
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("%s on %s: still %q", st, addr, r)
				}
				time.Sleep(2 * time.Millisecond)
			}
		}
	}
	return out
}

// runScenarioDiff plays each scenario on a fresh redis-server and a fresh
// lockredis and compares the replies.
func runScenarioDiff(t *testing.T, scenarios map[string][]gStep, lockOpts lockredis.Options, redisArgs ...string) {
	for name, steps := range scenarios {
		t.Run(name, func(t *testing.T) {
			redisAddr := startRedis(t, redisArgs...)
			lockAddr := startEmbedded(t, lockOpts).Addr()
			var want, got []string
			var wg sync.WaitGroup
			wg.Add(2)
			// Both at once: the scenarios wait for busy scripts.
			go func() { defer wg.Done(); want = playScenario(t, redisAddr, steps) }()
			go func() { defer wg.Done(); got = playScenario(t, lockAddr, steps) }()
			wg.Wait()
			if t.Failed() {
				return
			}
			if len(want) != len(got) {
				t.Fatalf("replies: redis %d, lockredis %d", len(want), len(got))
			}
			for i := range want {
				if want[i] != got[i] {
					t.Errorf("reply %d: redis-server %q, lockredis %q", i, want[i], got[i])
				}
			}
		})
	}
}

const loop = "while true do end"

// TestDiffBusyScript: past lua-time-limit other clients get BUSY at once,
// allow_busy commands run, SCRIPT KILL stops a script that did not write
// (Redis's "Timedout read-only scripts can be killed by SCRIPT KILL" and
// multi.tcl's script timeout tests).
func TestDiffBusyScript(t *testing.T) {
	requireTool(t, "redis-server")
	scenarios := map[string][]gStep{
		"kill-read-only": {
			gdo(0, "CONFIG", "SET", "lua-time-limit", "10"),
			gdo(0, "SET", "k", "v"),
			gsend(1, "EVAL", "redis.call('get', 'k') "+loop, "0"),
			gbusy(2, "PING"),
			gdo(2, "GET", "k"),
			gdo(2, "SET", "k", "w"),
			gdo(2, "EVAL", "return 1", "0"),
			gdo(2, "INFO"),
			gdo(2, "CONFIG", "GET", "maxmemory"),
			// allow_busy commands run
			gdo(2, "AUTH", "x"),
			gdo(2, "UNWATCH"),
			gdo(2, "MULTI"),
			gdo(2, "INCR", "k"),
			gdo(2, "DISCARD"),
			gdo(2, "SCRIPT", "KILL"),
			gread(1),
			gok(2, "PING"),
			gdo(2, "GET", "k"),
			gdo(2, "SCRIPT", "KILL"),
		},
		"kill-with-pcall": {
			gdo(0, "CONFIG", "SET", "lua-time-limit", "10"),
			gsend(1, "EVAL", "local f = function() while 1 do redis.call('ping') end end while 1 do pcall(f) end", "0"),
			gbusy(2, "PING"),
			gdo(2, "SCRIPT", "KILL"),
			gread(1),
			gok(2, "PING"),
		},
		// "Timedout script does not cause a false dead client": the
		// runner's pipelined PING is answered after the script.
		"pipelined-after-script": {
			gdo(0, "CONFIG", "SET", "lua-time-limit", "10"),
			gsend(1, "EVAL", "while 1 do redis.call('ping') end", "0"),
			gsend(1, "PING"),
			gbusy(2, "PING"),
			gdo(2, "SCRIPT", "KILL"),
			gread(1),
			gread(1),
			gok(2, "PING"),
		},
		"link-usable-after-lua-returns": {
			gdo(0, "CONFIG", "SET", "lua-time-limit", "10"),
			gdo(0, "EVAL", "for i=1,100000 do redis.call('ping') end return 'ok'", "0"),
			gdo(0, "PING"),
		},
		"multi-and-script-timeout": {
			gdo(0, "CONFIG", "SET", "lua-time-limit", "10"),
			gdo(0, "SET", "xx", "1"),
			gsend(1, "EVAL", loop, "0"),
			gbusy(0, "PING"),
			gdo(2, "MULTI"),
			gdo(2, "INCR", "xx"),
			gdo(0, "SCRIPT", "KILL"),
			gread(1),
			gok(0, "PING"),
			gdo(2, "INCR", "xx"),
			gdo(2, "EXEC"),
			gdo(0, "GET", "xx"),
			gdo(2, "PING", "asdf"),
		},
		"exec-and-script-timeout": {
			gdo(0, "CONFIG", "SET", "lua-time-limit", "10"),
			gdo(0, "SET", "xx", "1"),
			gdo(2, "MULTI"),
			gdo(2, "INCR", "xx"),
			gsend(1, "EVAL", loop, "0"),
			gbusy(0, "PING"),
			gdo(2, "INCR", "xx"),
			gdo(2, "EXEC"),
			gdo(0, "SCRIPT", "KILL"),
			gread(1),
			gok(0, "PING"),
			gdo(0, "GET", "xx"),
			gdo(2, "PING", "asdf"),
		},
		"multi-exec-body-and-script-timeout": {
			gdo(0, "CONFIG", "SET", "lua-time-limit", "10"),
			gdo(0, "SET", "xx", "1"),
			gdo(2, "MULTI"),
			gdo(2, "INCR", "xx"),
			gsend(1, "EVAL", loop, "0"),
			gbusy(0, "PING"),
			gdo(2, "INCR", "xx"),
			gdo(0, "SCRIPT", "KILL"),
			gread(1),
			gok(0, "PING"),
			gdo(2, "EXEC"),
			gdo(0, "GET", "xx"),
			gdo(2, "PING", "asdf"),
		},
		"just-exec-and-script-timeout": {
			gdo(0, "CONFIG", "SET", "lua-time-limit", "10"),
			gdo(0, "SET", "xx", "1"),
			gdo(2, "MULTI"),
			gdo(2, "INCR", "xx"),
			gsend(1, "EVAL", loop, "0"),
			gbusy(0, "PING"),
			gdo(2, "EXEC"),
			gdo(0, "SCRIPT", "KILL"),
			gread(1),
			gok(0, "PING"),
			gdo(0, "GET", "xx"),
			gdo(2, "PING", "asdf"),
		},
		"busy-threshold-config": {
			gdo(0, "CONFIG", "GET", "lua-time-limit"),
			gdo(0, "CONFIG", "SET", "busy-reply-threshold", "25"),
			gdo(0, "CONFIG", "GET", "lua-time-limit"),
			gdo(0, "CONFIG", "GET", "busy-reply-threshold"),
			gdo(0, "SCRIPT", "KILL"),
		},
	}
	runScenarioDiff(t, scenarios, lockredis.Options{})
}

// TestBusyScriptThatWroteIsRolledBack: where Redis answers UNKILLABLE,
// lockredis stops the script and rolls its writes back (no redis-server
// to compare with: the behaviour is ours).
func TestBusyScriptThatWroteIsRolledBack(t *testing.T) {
	var mu sync.Mutex
	var logs []string
	srv := startEmbedded(t, lockredis.Options{
		LuaTimeLimit: 10 * time.Millisecond,
		Logf: func(level, format string, args ...any) {
			mu.Lock()
			logs = append(logs, level+" "+fmt.Sprintf(format, args...))
			mu.Unlock()
		},
	})
	script := "redis.call('set', KEYS[1], 'y') " + loop
	sha := sha1hex(script)
	got := playScenario(t, srv.Addr(), []gStep{
		gdo(0, "SET", "x", "before"),
		gsend(1, "EVAL", script, "1", "x"),
		// PING first: a GET sent while the script is only starting could
		// queue for the keyspace behind it instead of getting BUSY.
		gbusy(0, "PING"),
		gbusy(0, "GET", "x"),
		gdo(0, "SCRIPT", "KILL"),
		gread(1),
		gok(0, "GET", "x"),
		gdo(0, "SCRIPT", "KILL"),
	})
	want := []string{
		"+OK\r\n",
		"-BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.\r\n",
		"-BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.\r\n",
		"+OK\r\n",
		"-ERR Script killed by user with SCRIPT KILL... Its writes were rolled back. script: " + sha + ", on @user_script:1.\r\n",
		"$6\r\nbefore\r\n",
		"-NOTBUSY No scripts in execution right now.\r\n",
	}
	if strings.Join(got, "") != strings.Join(want, "") {
		t.Errorf("got %q\nwant %q", got, want)
	}
	// Redis 7.0's log line (script.c scriptInterrupt), naming the SHA.
	re := regexp.MustCompile(`^warning Slow script detected: still in execution after \d+ milliseconds\. You can try killing the script using the SCRIPT KILL command\. Script name is: ` + sha + `\.$`)
	mu.Lock()
	defer mu.Unlock()
	found := false
	for _, l := range logs {
		found = found || re.MatchString(l)
	}
	if !found {
		t.Errorf("no slow script log line in %q", logs)
	}
}

// TestScriptHardTimeLimit: a runaway nobody kills is stopped at
// lua-hard-time-limit and rolled back; BUSY ends with it.
func TestScriptHardTimeLimit(t *testing.T) {
	srv := startEmbedded(t, lockredis.Options{LuaTimeLimit: 10 * time.Millisecond})
	script := "redis.call('set', 'k', 'v') " + loop
	cases := []struct {
		name  string
		steps []gStep
		want  []string
	}{{
		name: "default",
		steps: []gStep{
			gdo(0, "CONFIG", "GET", "lua-hard-time-limit"),
		},
		want: []string{"*2\r\n$19\r\nlua-hard-time-limit\r\n$5\r\n60000\r\n"},
	}, {
		name: "stopped",
		steps: []gStep{
			gdo(0, "CONFIG", "SET", "lua-hard-time-limit", "200"),
			gsend(1, "EVAL", script, "0"),
			gbusy(0, "PING"),
			gread(1),
			gok(0, "PING"),
			gdo(0, "EXISTS", "k"),
		},
		want: []string{
			"+OK\r\n",
			"-BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.\r\n",
			"-ERR Script killed: it ran longer than lua-hard-time-limit (200 ms). Its writes were rolled back. script: " + sha1hex(script) + ", on @user_script:1.\r\n",
			"+PONG\r\n",
			":0\r\n",
		},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := playScenario(t, srv.Addr(), c.steps)
			if strings.Join(got, "") != strings.Join(c.want, "") {
				t.Errorf("got %q\nwant %q", got, c.want)
			}
		})
	}
}

// TestDiffMaxmemory: past maxmemory, denyoom commands get OOM, reads and
// deletes still work, MULTI refuses what it would queue, EXEC judges its
// queue, a script's first denyoom write is refused, and declared script
// flags count (unit/multi.tcl's OOM tests, unit/maxmemory.tcl). maxmemory
// 1 is below what either server uses when empty.
func TestDiffMaxmemory(t *testing.T) {
	requireTool(t, "redis-server")
	scenarios := map[string][]gStep{
		"refused-and-allowed": {
			gdo(0, "SET", "a", "1"),
			gdo(0, "RPUSH", "l", "x"),
			gdo(1, "CONFIG", "SET", "maxmemory", "1"),
			gdo(0, "SET", "b", "1"),
			gdo(0, "INCR", "a"),
			gdo(0, "RPUSH", "l", "y"),
			gdo(0, "SETNX", "c", "1"),
			gdo(0, "HSET", "h", "f", "v"),
			gdo(0, "GET", "a"),
			gdo(0, "EXPIRE", "a", "100"),
			gdo(0, "PERSIST", "a"),
			gdo(0, "LPOP", "l"),
			gdo(0, "DEL", "a"),
			gdo(0, "GETDEL", "nosuch"),
			gdo(0, "PING"),
			gdo(0, "EVAL", "return redis.call('set', 'a', 'b')", "0"),
			gdo(0, "EVAL", "return redis.call('get', 'a')", "0"),
			gdo(0, "EVAL", "return redis.call('del', 'l')", "0"),
			gdo(0, "EVAL", "redis.call('del', 'x') return redis.call('set', 'a', 'b')", "0"),
			gdo(0, "EVAL", "#!lua\nreturn 1", "0"),
			gdo(0, "EVAL", "#!lua flags=no-writes\nreturn 1", "0"),
			gdo(0, "EVAL", "#!lua flags=allow-oom\nreturn redis.call('set', 'oom', '1')", "0"),
			gdo(0, "EVAL_RO", "return redis.call('get', 'a')", "0"),
			gdo(1, "CONFIG", "SET", "maxmemory", "0"),
			gdo(0, "SET", "b", "1"),
			gdo(0, "GET", "oom"),
		},
		"discard-during-oom": {
			gdo(1, "CONFIG", "SET", "maxmemory", "1"),
			gdo(0, "MULTI"),
			gdo(0, "SET", "x", "1"),
			gdo(0, "GET", "x"),
			gdo(0, "DISCARD"),
			gdo(1, "CONFIG", "SET", "maxmemory", "0"),
			gdo(0, "PING"),
		},
		"exec-fails-on-queue-errors": {
			gdo(0, "MULTI"),
			gdo(0, "SET", "foo1", "bar1"),
			gdo(1, "CONFIG", "SET", "maxmemory", "1"),
			gdo(0, "LPUSH", "mylist", "myvalue"),
			gdo(1, "CONFIG", "SET", "maxmemory", "0"),
			gdo(0, "SET", "foo2", "bar2"),
			gdo(0, "EXEC"),
			gdo(0, "EXISTS", "foo1", "foo2"),
		},
		"exec-read-only-not-rejected": {
			gdo(0, "SET", "x", "value"),
			gdo(0, "MULTI"),
			gdo(0, "GET", "x"),
			gdo(0, "PING"),
			gdo(1, "CONFIG", "SET", "maxmemory", "1"),
			gdo(0, "EXEC"),
			gdo(1, "CONFIG", "SET", "maxmemory", "0"),
		},
		"exec-with-denyoom-fails": {
			gdo(0, "MULTI"),
			gdo(0, "SET", "x", "1"),
			gdo(0, "GET", "x"),
			gdo(1, "CONFIG", "SET", "maxmemory", "1"),
			gdo(0, "EXEC"),
			gdo(1, "CONFIG", "SET", "maxmemory", "0"),
			gdo(0, "EXISTS", "x"),
		},
		"config": {
			gdo(0, "CONFIG", "SET", "maxmemory", "1kb"),
			gdo(0, "CONFIG", "GET", "maxmemory"),
			gdo(0, "CONFIG", "SET", "maxmemory", "bla"),
			gdo(0, "CONFIG", "SET", "maxmemory-policy", "bla"),
			gdo(0, "CONFIG", "SET", "maxmemory-policy", "noeviction"),
			gdo(0, "CONFIG", "GET", "maxmemory-policy"),
			gdo(0, "CONFIG", "SET", "maxmemory", "0"),
		},
	}
	runScenarioDiff(t, scenarios, lockredis.Options{})
}

// TestMaxmemoryPolicyRefused: only noeviction suits locks.
func TestMaxmemoryPolicyRefused(t *testing.T) {
	srv := startEmbedded(t, lockredis.Options{})
	got := playScenario(t, srv.Addr(), []gStep{gdo(0, "CONFIG", "SET", "maxmemory-policy", "allkeys-lru")})
	want := "-ERR CONFIG SET failed (possibly related to argument 'maxmemory-policy') - lockredis only supports noeviction: evicting keys would release locks their owners still hold\r\n"
	if got[0] != want {
		t.Errorf("got %q, want %q", got[0], want)
	}
	s := lockredis.NewServer(lockredis.Options{MaxMemoryPolicy: "volatile-lru"})
	if err := s.Start(); err == nil || !strings.Contains(err.Error(), "only supports noeviction") {
		s.Close()
		t.Errorf("start with volatile-lru: %v", err)
	}
}

// infoField reads one field of an INFO reply.
func infoLineOf(info, name string) string {
	for _, line := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, name+":"); ok {
			return v
		}
	}
	return ""
}

// TestBinaryMaxmemory: the built binary with a small --maxmemory (in
// units) and --maxmemory-policy noeviction: writes until OOM with Redis's
// exact error, nothing stored is dropped, GET/EXPIRE/DEL keep working and
// a DEL frees enough to write again; INFO memory tells the truth.
func TestBinaryMaxmemory(t *testing.T) {
	addr := startBinary(t, "--maxmemory", "1mb", "--maxmemory-policy", "noeviction")
	c := dialRaw(t, addr)
	info := c.do(t, "INFO", "memory")
	for field, want := range map[string]string{
		"maxmemory": "1048576", "maxmemory_human": "1.00M", "maxmemory_policy": "noeviction",
	} {
		if got := infoLineOf(info, field); got != want {
			t.Errorf("INFO %s: %q, want %q", field, got, want)
		}
	}
	value := strings.Repeat("v", 100)
	n := 0
	var reply string
	for ; n < 100000; n++ {
		reply = c.do(t, "SET", "lock:"+strconv.Itoa(n), value, "PX", "600000")
		if reply != "+OK\r\n" {
			break
		}
	}
	if reply != "-OOM command not allowed when used memory > 'maxmemory'.\r\n" {
		t.Fatalf("after %d keys: %q", n, reply)
	}
	info = c.do(t, "INFO", "memory")
	used, _ := strconv.Atoi(infoLineOf(info, "used_memory"))
	if used <= 1<<20 || infoLineOf(info, "used_memory_human") == "" {
		t.Errorf("OOM with used_memory %d:\n%s", used, info)
	}
	t.Logf("OOM after %d keys of %d bytes; used_memory %d", n, len(value), used)
	steps := []struct{ cmd []string }{
		{[]string{"DBSIZE"}}, {[]string{"GET", "lock:0"}}, {[]string{"EXPIRE", "lock:0", "1000"}},
		{[]string{"SET", "new", "1"}}, {[]string{"DEL", "lock:0", "lock:1", "lock:2"}},
		{[]string{"SET", "new", "1"}}, {[]string{"GET", "new"}},
	}
	want := []string{":" + strconv.Itoa(n) + "\r\n", "$100\r\n" + value + "\r\n", ":1\r\n",
		"-OOM command not allowed when used memory > 'maxmemory'.\r\n", ":3\r\n", "+OK\r\n", "$1\r\n1\r\n"}
	for i, s := range steps {
		if got := c.do(t, s.cmd...); got != want[i] {
			t.Errorf("%q: %q, want %q", s.cmd, got, want[i])
		}
	}
	// CONFIG SET maxmemory applies at once.
	if r := c.do(t, "CONFIG", "SET", "maxmemory", "0"); r != "+OK\r\n" {
		t.Fatal(r)
	}
	if r := c.do(t, "SET", "more", "1"); r != "+OK\r\n" {
		t.Errorf("SET after maxmemory 0: %q", r)
	}
}

// TestBinaryMisconf: a disk that fails. The binary runs under an
// RLIMIT_FSIZE (prlimit) a little above its append-only file: writes past
// it fail with EFBIG, so write commands get Redis's MISCONF with
// strerror's text (and PING too, as Redis), reads keep working, INFO
// persistence says why; raising the limit on the running process (the
// disk works again) lifts it. The write that failed is not acknowledged:
// its reply is MISCONF too and it is not stored.
func TestBinaryMisconf(t *testing.T) {
	prlimit := requireTool(t, "prlimit")
	bin := lockredisBinary(t)
	dir := t.TempDir()
	const limit = 64 << 10
	addr := startProcess(t, "lockredis", func(port int) *exec.Cmd {
		return exec.Command(prlimit, "--fsize="+strconv.Itoa(limit)+":unlimited", "--", bin,
			"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", dir,
			"--appendonly", "yes", "--appendfsync", "always")
	}, stopBinary)
	c := dialRaw(t, addr)
	pid := infoLineOf(c.do(t, "INFO", "server"), "process_id")
	value := strings.Repeat("v", 1000)
	misconf := "-MISCONF Errors writing to the AOF file: File too large\r\n"
	n := 0
	var reply string
	for ; n < 1000; n++ {
		if reply = c.do(t, "SET", "k"+strconv.Itoa(n), value); reply != "+OK\r\n" {
			break
		}
	}
	if reply != misconf {
		t.Fatalf("after %d writes: %q", n, reply)
	}
	failed := "k" + strconv.Itoa(n)
	steps := [][2]string{
		{"SET k x", misconf}, {"DEL k0", misconf}, {"PING", misconf},
		{"GET k0", "$1000\r\n" + value + "\r\n"}, {"EXISTS " + failed, ":0\r\n"}, {"DBSIZE", ":" + strconv.Itoa(n) + "\r\n"},
		{"EVAL return 1 0", ":1\r\n"},
		{"EVAL return redis.call('get','k0') 0", "$1000\r\n" + value + "\r\n"},
	}
	for _, s := range steps {
		args := strings.Fields(s[0])
		if args[0] == "EVAL" {
			args = []string{"EVAL", strings.Join(args[1:len(args)-1], " "), args[len(args)-1]}
		}
		if got := c.do(t, args...); got != s[1] {
			t.Errorf("%s: %q, want %q", s[0], got, s[1])
		}
	}
	// A script's first write is refused as well.
	if got := c.do(t, "EVAL", "return redis.call('set','k','v')", "0"); !strings.HasPrefix(got, "-MISCONF Errors writing to the AOF file: File too large") {
		t.Errorf("script write: %q", got)
	}
	info := c.do(t, "INFO", "persistence")
	for field, want := range map[string]string{
		"aof_last_write_status": "err", "aof_last_write_errno": "27",
		"aof_misconf": "MISCONF Errors writing to the AOF file: File too large",
	} {
		if got := infoLineOf(info, field); got != want {
			t.Errorf("INFO %s: %q, want %q", field, got, want)
		}
	}
	if out, err := exec.Command(prlimit, "--pid", pid, "--fsize=unlimited").CombinedOutput(); err != nil {
		t.Fatalf("prlimit: %v %s", err, out)
	}
	// The server finds out by itself (it probes the disk once a second).
	deadline := time.Now().Add(10 * time.Second)
	for c.do(t, "PING") != "+PONG\r\n" {
		if time.Now().After(deadline) {
			t.Fatal("still MISCONF after the disk works again")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got := c.do(t, "SET", failed, "after"); got != "+OK\r\n" {
		t.Errorf("SET after recovery: %q", got)
	}
	if got := infoLineOf(c.do(t, "INFO", "persistence"), "aof_last_write_status"); got != "ok" {
		t.Errorf("aof_last_write_status after recovery: %q", got)
	}
}

func sha1hex(s string) string {
	sum := sha1.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}
