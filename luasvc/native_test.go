package luasvc

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestNativeScriptsMatchLua runs every native lock script beside its Lua
// on two engines in the same random states, with random arguments: the
// replies, the keys left behind (type, value, TTL) and the statistics
// (commandstats, errorstats) must be the same.
func TestNativeScriptsMatchLua(t *testing.T) {
	native := newTestService(t)
	lua := newTestService(t, Options{LuaOnly: true})
	both := func(args ...string) (string, string) {
		return native.do(args...).String(), lua.do(args...).String()
	}
	// States a lock key can be in before a script runs.
	setups := [][][]string{
		{{"DEL", "k"}},
		{{"SET", "k", "tok-a"}},
		{{"SET", "k", "tok-a", "PX", "50"}},
		{{"SET", "k", "tok-b", "PX", "5000"}},
		{{"DEL", "k"}, {"HSET", "k", "uuid-1:1", "1"}, {"PEXPIRE", "k", "30000"}},
		{{"DEL", "k"}, {"HSET", "k", "uuid-2:1", "3"}},
		{{"DEL", "k"}, {"HSET", "k", "uuid-1:1", "2", "uuid-2:1", "1"}, {"PEXPIRE", "k", "70"}},
		{{"DEL", "k"}, {"HSET", "k", "uuid-1:1", "notanumber"}},
		{{"DEL", "k"}, {"RPUSH", "k", "x"}},
		{{"SET", "k", ""}},
	}
	// Arguments: tokens, hash fields and lease times, in any position.
	pool := []string{"tok-a", "tok-b", "uuid-1:1", "uuid-1:1", "uuid-2:1", "",
		"30000", "30000", "1", "0", "-5", "abc", "99999999999999999999", "10"}
	rng := rand.New(rand.NewPCG(1, 2))
	runs := 0
	for _, ns := range nativeScripts {
		sha := sha1hex(ns.src)
		if r := native.do("SCRIPT", "LOAD", ns.src).Str; r != sha {
			t.Fatalf("%s: SCRIPT LOAD gave %s, want %s", ns.name, r, sha)
		}
		lua.do("SCRIPT", "LOAD", ns.src)
		for i := 0; i < 600; i++ {
			for _, c := range setups[rng.IntN(len(setups))] {
				if a, b := both(c...); a != b {
					t.Fatalf("setup %q: %s vs %s", c, a, b)
				}
			}
			if rng.IntN(4) == 0 {
				d := time.Duration(rng.IntN(80)) * time.Millisecond
				native.e.Clock.FastForward(d)
				lua.e.Clock.FastForward(d)
			}
			keys := []string{"k"}
			if rng.IntN(5) == 0 {
				keys = append(keys, "other")
			}
			var args []string
			nargs := ns.args + rng.IntN(2)
			if rng.IntN(10) == 0 {
				nargs = rng.IntN(ns.args + 1) // too few: Lua's errors
			}
			for j := 0; j < nargs; j++ {
				args = append(args, pool[rng.IntN(len(pool))])
			}
			call := []string{"EVALSHA", sha}
			if rng.IntN(2) == 0 {
				call = []string{"EVAL", ns.src}
			}
			call = append(call, strconv.Itoa(len(keys)))
			call = append(append(call, keys...), args...)
			a, b := both(call...)
			if a != b {
				t.Errorf("%s %q:\n\tnative %s\n\tlua    %s", ns.name, call[2:], a, b)
			}
			runs++
			for _, q := range [][]string{{"TYPE", "k"}, {"PTTL", "k"}, {"GET", "k"}, {"HGETALL", "k"}} {
				if a, b := both(q...); a != b {
					t.Fatalf("%s %q left %q: native %s, lua %s", ns.name, call[2:], q, a, b)
				}
			}
		}
	}
	// The same commands ran, with the same errors.
	stats := func(ts *testService) string {
		var out []string
		for _, l := range strings.Split(ts.do("INFO", "commandstats").Str+ts.do("INFO", "errorstats").Str, "\r\n") {
			if i := strings.Index(l, ",usec="); i >= 0 {
				j := strings.Index(l, ",rejected_calls")
				l = l[:i] + l[j:]
			}
			out = append(out, l)
		}
		return strings.Join(out, "\n")
	}
	if a, b := stats(native), stats(lua); a != b {
		t.Errorf("statistics differ:\nnative:\n%s\nlua:\n%s", a, b)
	}
	t.Logf("%d runs of %d scripts", runs, len(nativeScripts))
}

// TestNativeScriptsRun checks that the native bodies are the ones that
// ran: a script with a native body answers without a Lua state's help.
func TestNativeScriptsRun(t *testing.T) {
	ts := newTestService(t)
	for _, ns := range nativeScripts {
		sc, err := ts.svc.load([]byte(ns.src))
		if err != nil {
			t.Fatal(err)
		}
		if sc.native == nil || sc.native.src != ns.src {
			t.Errorf("%s: not recognised", ns.name)
		}
	}
	lua := newTestService(t, Options{LuaOnly: true})
	if sc, _ := lua.svc.load([]byte(nativeScripts[0].src)); sc.native != nil {
		t.Error("LuaOnly service recognised a native script")
	}
}
