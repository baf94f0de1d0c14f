package luasvc

import (
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lockredis/lockredis/engine"
)

func TestTimeLimitRollsBack(t *testing.T) {
	ts := newTestService(t, Options{TimeLimit: 50 * time.Millisecond})
	ts.do("SET", "before", "1")
	loops := []string{
		`redis.call('set', 'k', 'v') redis.call('del', 'before') while true do end`,
		`redis.call('set', 'k', 'v') while true do pcall(function() while true do end end) end`,
		`redis.call('set', 'k', 'v') local co = coroutine.wrap(function() while true do end end) co()`,
		`redis.call('set', 'k', 'v') local s = string.rep('a', 40) string.find(s, string.rep('a?', 40) .. s)`,
		`redis.call('set', 'k', 'v') local function f() return f() end return f()`,
	}
	for _, script := range loops {
		want := "(error) ERR Script killed: it ran longer than lua-hard-time-limit (50 ms). Its writes were rolled back. script: " + sha(script) + ", on @user_script:1."
		if got := ts.eval(script, "0").String(); got != want {
			t.Errorf("%s:\n\tgot  %s\n\twant %s", script, got, want)
		}
		ts.run([]step{
			{cmd("EXISTS", "k"), "(integer) 0"},
			{cmd("GET", "before"), `"1"`},
		})
	}
	// The state is usable afterwards.
	ts.scripts([]scriptCase{{`return redis.call('set', 'k', 'v')`, `OK`}})
}

// waitKill sends SCRIPT KILL until a script is running to be killed.
func waitKill(t *testing.T, ts *testService) {
	t.Helper()
	s := ts.newSession()
	for i := 0; ; i++ {
		r := ts.doOn(s, "SCRIPT", "KILL")
		if r.String() == "OK" {
			return
		}
		if r.Str != "NOTBUSY No scripts in execution right now." {
			t.Fatalf("SCRIPT KILL: %s", r)
		}
		if i > 2000 {
			t.Fatal("the script never started")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestScriptKill(t *testing.T) {
	ts := newTestService(t, Options{TimeLimit: -1})
	ts.do("SET", "a", "1")
	// A script that wrote is rolled back and says so; one that did not
	// gets Redis's own text.
	rolledBack := " Its writes were rolled back."
	for _, c := range []struct{ cmd, script, suffix string }{
		{"EVAL", `redis.call('set', 'k', 'v') redis.call('incr', 'a') while true do end`, rolledBack},
		{"EVAL", `redis.call('set', 'k', 'v') while true do pcall(function() while true do end end) end`, rolledBack},
		{"EVAL_RO", `redis.call('get', 'a') while true do end`, ""},
		{"EVAL", `redis.call('get', 'a') while true do end`, ""},
	} {
		want := "ERR Script killed by user with SCRIPT KILL..." + c.suffix + " script: " + sha(c.script) + ", on @user_script:1."
		// SCRIPT KILL can land before the script's first redis.call:
		// then nothing was written and the text rightly has no suffix.
		// Run again until the kill comes after the writes.
		unwritten := "ERR Script killed by user with SCRIPT KILL... script: " + sha(c.script) + ", on @user_script:1."
		for try := 0; ; try++ {
			done := make(chan engine.Reply)
			s := ts.newSession()
			go func() { done <- ts.doOn(s, c.cmd, c.script, "0") }()
			waitKill(t, ts)
			r := <-done
			if c.suffix != "" && r.Kind == engine.KindError && r.Str == unwritten && try < 50 {
				continue
			}
			if r.Kind != engine.KindError || r.Str != want {
				t.Errorf("%s: got %s, want %s", c.script, r, want)
			}
			break
		}
		ts.run([]step{
			{cmd("EXISTS", "k"), "(integer) 0"},
			{cmd("GET", "a"), `"1"`},
			{cmd("SCRIPT", "KILL"), "(error) NOTBUSY No scripts in execution right now."},
		})
	}
}

func TestScriptsAreAtomic(t *testing.T) {
	ts := newTestService(t)
	const n = 50
	// Each script writes one generation to n keys; readers must never see
	// two generations.
	script := `for i = 1, ` + strconv.Itoa(n) + ` do redis.call('set', 'k' .. i, ARGV[1]) end return 1`
	mget := []string{"MGET"}
	for i := 1; i <= n; i++ {
		mget = append(mget, "k"+strconv.Itoa(i))
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	errs := make(chan string, 4)
	for r := 0; r < 2; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := ts.newSession()
			for {
				select {
				case <-stop:
					return
				default:
				}
				reply := ts.doOn(s, mget...)
				first := reply.Elems[0]
				for _, e := range reply.Elems {
					if e.String() != first.String() {
						errs <- "half-done script seen: " + reply.String()
						return
					}
				}
			}
		}()
	}
	w := ts.newSession()
	for gen := 0; gen < 300; gen++ {
		if r := ts.doOn(w, "EVAL", script, "0", strconv.Itoa(gen)); r.Int != 1 {
			t.Fatal(r)
		}
	}
	close(stop)
	wg.Wait()
	select {
	case e := <-errs:
		t.Fatal(e)
	default:
	}
}

func TestReadOnlyScriptsRunTogether(t *testing.T) {
	ts := newTestService(t, Options{TimeLimit: -1})
	ts.do("SET", "k", "v")
	// Past lua-time-limit (5 s) a running script makes others answer
	// BUSY; a loaded machine must not turn that into a failure here.
	ts.do("CONFIG", "SET", "lua-time-limit", "600000")
	// Two EVAL_RO share the keyspace: each needs its own Lua state.
	script := `local n = 0 for i = 1, 20000 do n = n + #redis.call('get', 'k') end return n`
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := ts.newSession()
			for j := 0; j < 5; j++ {
				if r := ts.doOn(s, "EVAL_RO", script, "0"); r.Int != 20000 {
					t.Error(r)
					return
				}
			}
		}()
	}
	wg.Wait()
	if len(ts.svc.all) < 1 {
		t.Fatal("no states")
	}
}

func TestPanickingCommandRollsBack(t *testing.T) {
	ts := newTestService(t)
	ts.e.Register(&engine.Command{Name: "boom", Spec: engine.NewSpec(1, engine.FlagWrite), Handler: func(c *engine.Call) {
		panic("boom")
	}})
	script := `redis.call('set', 'k', 'v') pcall(redis.call, 'boom') while true do end`
	func() {
		defer func() {
			if r := recover(); r != "boom" {
				t.Errorf("panic %v, want boom", r)
			}
		}()
		ts.eval(script, "0")
		t.Error("no panic")
	}()
	ts.run([]step{
		{cmd("EXISTS", "k"), "(integer) 0"},
		{ev("return redis.call('set', 'k', 'v')"), "OK"},
	})
}

func TestManyScriptsInOneState(t *testing.T) {
	ts := newTestService(t)
	// Each script is compiled once and its function kept for the state.
	for i := 0; i < 100; i++ {
		src := "return " + strconv.Itoa(i)
		if r := ts.eval(src, "0"); r.Int != int64(i) {
			t.Fatal(r)
		}
		if r := ts.do("EVALSHA", sha(src), "0"); r.Int != int64(i) {
			t.Fatal(r)
		}
	}
	if n := len(ts.svc.primaryVM().fns); n != 100 {
		t.Errorf("%d functions cached, want 100", n)
	}
	ts.do("SCRIPT", "FLUSH")
	ts.eval("return 1", "0")
	if n := len(ts.svc.primaryVM().fns); n != 1 {
		t.Errorf("%d functions cached after SCRIPT FLUSH, want 1", n)
	}
	if !strings.Contains(ts.do("SCRIPT", "EXISTS", sha("return 1")).String(), "1") {
		t.Error("not cached")
	}
}

func TestMemoryWatchdog(t *testing.T) {
	ts := newTestService(t, Options{TimeLimit: -1})
	ts.svc.primaryVM().intr.memLimit = 64 << 20
	ts.do("SET", "before", "1")
	for _, script := range []string{
		// A doubling string: 2^30 bytes within a few dozen instructions.
		`redis.call('set', 'k', 'v') local s = 'x' for i = 1, 34 do s = s .. s end return #s`,
		// Many big strings kept alive.
		`redis.call('set', 'k', 'v') local t = {} for i = 1, 1e6 do t[i] = string.rep('y', 1e5) end`,
	} {
		want := "(error) ERR Script killed: it used more than 64 MB of memory. Its writes were rolled back. script: " + sha(script) + ", on @user_script:1."
		if got := ts.eval(script, "0").String(); got != want {
			t.Errorf("%s:\n\tgot  %s\n\twant %s", script, got, want)
		}
		ts.run([]step{{cmd("EXISTS", "k"), "(integer) 0"}})
	}
	// A short script that allocates is not watched.
	ts.scripts([]scriptCase{{`local t = {} for i = 1, 1000 do t[i] = string.rep('z', 1000) end return #t`, `(integer) 1000`}})
}
