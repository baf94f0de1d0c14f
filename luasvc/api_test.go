package luasvc

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lockredis/lockredis/engine"
	"github.com/lockredis/lockredis/pubsub"
)

// errAt is the error reply of a script that failed at line 1.
func errAt(script, msg string) string {
	return "(error) " + msg + " script: " + sha(script) + ", on @user_script:1."
}

func TestRedisAPI(t *testing.T) {
	ts := newTestService(t)
	ts.scripts([]scriptCase{
		{`return redis.sha1hex("")`, `"da39a3ee5e6b4b0d3255bfef95601890afd80709"`},
		{`return redis.sha1hex(1)`, `"356a192b7913b04c54574d18c28d46e6395428ab"`},
		{`return redis.sha1hex()`, errAt(`return redis.sha1hex()`, "ERR wrong number of arguments")},
		{`return redis.replicate_commands()`, `(integer) 1`},
		{`return redis.set_repl(redis.REPL_ALL)`, `(nil)`},
		{`return redis.set_repl(9)`, errAt(`return redis.set_repl(9)`, "ERR Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.")},
		{`return redis.set_repl()`, errAt(`return redis.set_repl()`, "ERR redis.set_repl() requires two arguments.")},
		{`return {redis.REPL_NONE, redis.REPL_AOF, redis.REPL_SLAVE, redis.REPL_REPLICA, redis.REPL_ALL}`, `[(integer) 0 (integer) 1 (integer) 2 (integer) 2 (integer) 3]`},
		{`return {redis.LOG_DEBUG, redis.LOG_VERBOSE, redis.LOG_NOTICE, redis.LOG_WARNING}`, `[(integer) 0 (integer) 1 (integer) 2 (integer) 3]`},
		{`return redis.REDIS_VERSION`, `"7.0.15"`},
		{`return redis.REDIS_VERSION_NUM`, `(integer) 458767`},
		{`return redis.breakpoint()`, `(nil)`},
		{`return redis.debug("x")`, `(nil)`},
		{`return redis.acl_check_cmd("get", "k")`, `(integer) 1`},
		{`return redis.acl_check_cmd("nosuch")`, errAt(`return redis.acl_check_cmd("nosuch")`, "ERR Invalid command passed to redis.acl_check_cmd()")},
		{`return redis.setresp(2)`, `(nil)`},
		{`return redis.setresp()`, errAt(`return redis.setresp()`, "ERR redis.setresp() requires one argument.")},
		{`return redis.log(1)`, errAt(`return redis.log(1)`, "ERR redis.log() requires two arguments or more.")},
		{`return redis.log("x", "y")`, errAt(`return redis.log("x", "y")`, "ERR First argument must be a number (log level).")},
		{`return redis.log(9, "y")`, errAt(`return redis.log(9, "y")`, "ERR Invalid debug level.")},
		{`redis.log(redis.LOG_WARNING, "lock", 42, {}, "held") return 1`, `(integer) 1`},
		{`redis.log(redis.LOG_DEBUG, "dropped") return 1`, `(integer) 1`},
		{`redis.log("3", "as string") return 1`, `(integer) 1`},
	})
	want := []string{"warning lock 42 held", "warning as string"}
	if strings.Join(ts.log, "|") != strings.Join(want, "|") {
		t.Errorf("log lines %q, want %q", ts.log, want)
	}
}

func TestRedisCallErrors(t *testing.T) {
	ts := newTestService(t)
	ts.do("SET", "str", "v")
	ts.scripts([]scriptCase{
		{`return redis.call("get")`, errAt(`return redis.call("get")`, "ERR Wrong number of args calling Redis command from script")},
		{`return redis.call()`, errAt(`return redis.call()`, "ERR Please specify at least one argument for this redis lib call")},
		{`return redis.call("nosuch")`, errAt(`return redis.call("nosuch")`, "ERR Unknown Redis command called from script")},
		{`return redis.call("object", "nosuch")`, errAt(`return redis.call("object", "nosuch")`, "ERR Unknown Redis command called from script")},
		{`return redis.call("eval", "return 1", "0")`, errAt(`return redis.call("eval", "return 1", "0")`, "ERR This Redis command is not allowed from script")},
		{`return redis.call("multi")`, errAt(`return redis.call("multi")`, "ERR This Redis command is not allowed from script")},
		{`return redis.call("watch", "k")`, errAt(`return redis.call("watch", "k")`, "ERR This Redis command is not allowed from script")},
		{`return redis.call("script", "load", "return 1")`, errAt(`return redis.call("script", "load", "return 1")`, "ERR This Redis command is not allowed from script")},
		{`return redis.call("hget", "str", "f")`, errAt(`return redis.call("hget", "str", "f")`, "WRONGTYPE Operation against a key holding the wrong kind of value")},
		{`return redis.call("set", "k", "v", "px", "x")`, errAt(`return redis.call("set", "k", "v", "px", "x")`, "ERR value is not an integer or out of range")},
		{`return redis.pcall("nosuch")`, `(error) ERR Unknown Redis command called from script`},
		{`return redis.pcall("get")`, `(error) ERR Wrong number of args calling Redis command from script`},
		{`return redis.pcall("hget", "str", "f")`, `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{`return redis.pcall("hget", "str", "f").ignore_error_stats_update`, `(integer) 1`},
		// Lua's pcall turns a redis.call error into its message.
		{`local ok, e = pcall(redis.call, "nosuch") return {tostring(ok), e}`, `["false" "ERR Unknown Redis command called from script"]`},
		{`local ok, e = pcall(function() error({err="CODE x"}) end) return e`, `"CODE x"`},
		// xpcall sees the raw table.
		{`local ok, e = xpcall(function() redis.call("nosuch") end, function(m) return m end) return type(e)`, `"table"`},
	})
}

func TestScriptErrors(t *testing.T) {
	ts := newTestService(t)
	pubsub.Register(ts.e, pubsub.NewHub(pubsub.Limits{}, nil))
	ts.scripts([]scriptCase{
		{`error("boom")`, errAt(`error("boom")`, "ERR user_script:1: boom")},
		{`error("boom", 0)`, errAt(`error("boom", 0)`, "ERR boom")},
		{`error({err="CODE boom"})`, errAt(`error({err="CODE boom"})`, "CODE boom")},
		{`error()`, errAt(`error()`, "ERR nil")},
		{`error(12)`, errAt(`error(12)`, "ERR user_script:1: 12")},
		{"local x = 1\n\nerror('line three')", "(error) ERR user_script:3: line three script: " + sha("local x = 1\n\nerror('line three')") + ", on @user_script:3."},
		{`return 1 + nil`, errAt(`return 1 + nil`, "ERR user_script:1: attempt to perform arithmetic on a nil value")},
		{`return nil .. "a"`, errAt(`return nil .. "a"`, "ERR user_script:1: attempt to concatenate a nil value")},
		{`return #nil`, errAt(`return #nil`, "ERR user_script:1: attempt to get length of a nil value")},
		{`return {} < {}`, errAt(`return {} < {}`, "ERR user_script:1: attempt to compare two table values")},
		{`local a = {} a[nil] = 1`, errAt(`local a = {} a[nil] = 1`, "ERR user_script:1: table index is nil")},
		{`return string.rep()`, errAt(`return string.rep()`, "ERR user_script:1: bad argument #1 to 'rep' (string expected, got no value)")},
		{`return tonumber()`, errAt(`return tonumber()`, "ERR user_script:1: bad argument #1 to 'tonumber' (value expected)")},
		{`local function f(n) return 1 + f(n + 1) end return f(1)`, errAt(`local function f(n) return 1 + f(n + 1) end return f(1)`, "ERR user_script:1: stack overflow")},
		{`return (`, "(error) ERR Error compiling script (new function): user_script:1: unexpected symbol near '<eof>'"},
		{`return "abc`, "(error) ERR Error compiling script (new function): user_script:1: unfinished string near '<eof>'"},
		{"local a = 1\nx = = 2", "(error) ERR Error compiling script (new function): user_script:2: unexpected symbol near '='"},
	})
	ts.run([]step{
		{cmd("EVAL", "return 1"), "(error) ERR wrong number of arguments for 'eval' command"},
		{cmd("EVAL", "return 1", "2", "a"), "(error) ERR Number of keys can't be greater than number of args"},
		{cmd("EVAL", "return 1", "-1"), "(error) ERR Number of keys can't be negative"},
		{cmd("EVAL", "return 1", "x"), "(error) ERR value is not an integer or out of range"},
		{cmd("EVAL", "return 1", "01", "a"), "(error) ERR value is not an integer or out of range"},
		{cmd("EVAL", "return {KEYS[1], KEYS[2], ARGV[1], #ARGV}", "2", "a", "b", "c"), `["a" "b" "c" (integer) 1]`},
		{cmd("EVAL", "return {#KEYS, ARGV[2]}", "0", "x\x00y", "z"), `[(integer) 0 "z"]`},
		{cmd("EVAL", "#!lua flags=no-writes\nreturn redis.call('set', 'k', 'v')", "0"), "(error) ERR Write commands are not allowed from read-only scripts. script: " + sha("#!lua flags=no-writes\nreturn redis.call('set', 'k', 'v')") + ", on @user_script:2."},
		{cmd("EVAL", "#!lua\nreturn redis.call('set', 'k', 'v')", "0"), "OK"},
		{cmd("EVAL", "#!lua flags=foo\nreturn 1", "0"), "(error) ERR Unexpected flag in script shebang: foo"},
		{cmd("EVAL", "#!lua x=1\nreturn 1", "0"), "(error) ERR Unknown lua shebang option: x=1"},
		{cmd("EVAL", "#!py\nreturn 1", "0"), "(error) ERR Unexpected engine in script shebang: #!py"},
		{cmd("EVAL", "#!lua", "0"), "(error) ERR Invalid script shebang"},
		{cmd("EVAL", "#!lua\n\nerror('x')", "0"), "(error) ERR user_script:3: x script: " + sha("#!lua\n\nerror('x')") + ", on @user_script:3."},
		{cmd("EVAL_RO", "return redis.call('set', 'k', 'v')", "0"), errAt("return redis.call('set', 'k', 'v')", "ERR Write commands are not allowed from read-only scripts.")},
		{cmd("EVAL_RO", "return redis.pcall('publish', 'c', 'm')", "0"), "(error) ERR Write commands are not allowed from read-only scripts."},
		{cmd("EVAL_RO", "return redis.call('get', 'k')", "0"), `"v"`},
		{cmd("EVAL_RO", "#!lua\nreturn 1", "0"), "(error) ERR Can not execute a script with write flag using *_ro command."},
		{cmd("EVAL_RO", "#!lua flags=no-writes\nreturn 2", "0"), "(integer) 2"},
	})
}

func TestScriptCache(t *testing.T) {
	ts := newTestService(t)
	const body = "return 'cached'"
	h := sha(body)
	ts.run([]step{
		{cmd("EVALSHA", h, "0"), "(error) NOSCRIPT No matching script. Please use EVAL."},
		{cmd("EVALSHA", "abc", "notanumber"), "(error) NOSCRIPT No matching script. Please use EVAL."},
		{cmd("EVALSHA", h, "notanumber"), "(error) ERR value is not an integer or out of range"},
		{cmd("SCRIPT", "EXISTS", h, "nosuch"), "[(integer) 0 (integer) 0]"},
		{cmd("EVAL", body, "0"), `"cached"`},
		{cmd("EVALSHA", h, "0"), `"cached"`},
		{cmd("EVALSHA", strings.ToUpper(h), "0"), `"cached"`},
		{cmd("EVALSHA_RO", h, "0"), `"cached"`},
		{cmd("SCRIPT", "EXISTS", h, strings.ToUpper(h), "x"), "[(integer) 1 (integer) 1 (integer) 0]"},
		{cmd("SCRIPT", "FLUSH"), "OK"},
		{cmd("EVALSHA", h, "0"), "(error) NOSCRIPT No matching script. Please use EVAL."},
		{cmd("SCRIPT", "LOAD", body), `"` + h + `"`},
		{cmd("EVALSHA", h, "0"), `"cached"`},
		{cmd("SCRIPT", "FLUSH", "ASYNC"), "OK"},
		{cmd("SCRIPT", "FLUSH", "sync"), "OK"},
		{cmd("SCRIPT", "FLUSH", "x"), "(error) ERR SCRIPT FLUSH only support SYNC|ASYNC option"},
		{cmd("SCRIPT", "FLUSH", "sync", "x"), "(error) ERR SCRIPT FLUSH only support SYNC|ASYNC option"},
		{cmd("SCRIPT", "LOAD", "return ("), "(error) ERR Error compiling script (new function): user_script:1: unexpected symbol near '<eof>'"},
		{cmd("SCRIPT", "EXISTS", sha("return (")), "[(integer) 0]"},
		{cmd("SCRIPT", "KILL"), "(error) NOTBUSY No scripts in execution right now."},
		{cmd("SCRIPT", "DEBUG", "no"), "OK"},
		{cmd("SCRIPT", "DEBUG", "maybe"), "(error) ERR Use SCRIPT DEBUG YES/SYNC/NO"},
		{cmd("SCRIPT"), "(error) ERR wrong number of arguments for 'script' command"},
		{cmd("SCRIPT", "nosuch"), "(error) ERR unknown subcommand 'nosuch'. Try SCRIPT HELP."},
		{cmd("SCRIPT", "LOAD"), "(error) ERR wrong number of arguments for 'script|load' command"},
		{cmd("SCRIPT", "EXISTS"), "(error) ERR wrong number of arguments for 'script|exists' command"},
	})
	// A script that fails at run time stays cached; one that does not
	// compile is not cached.
	ts.eval("error('x')", "0")
	if r := ts.do("SCRIPT", "EXISTS", sha("error('x')")); r.String() != "[(integer) 1]" {
		t.Errorf("failed script not cached: %s", r)
	}
	if help := ts.do("SCRIPT", "HELP"); len(help.Elems) != len(scriptHelp) || help.Elems[0].Str != scriptHelp[0] {
		t.Errorf("SCRIPT HELP: %s", help)
	}
}

func TestScriptSelectsItsOwnDB(t *testing.T) {
	ts := newTestService(t)
	ts.run([]step{
		{cmd("SELECT", "2"), "OK"},
		{cmd("SET", "k", "db2"), "OK"},
		{ev("redis.call('select', '3') redis.call('set', 'k', 'db3') return redis.call('get', 'k')"), `"db3"`},
		// The caller is still on db 2, and the next script starts there.
		{cmd("GET", "k"), `"db2"`},
		{ev("return redis.call('get', 'k')"), `"db2"`},
		{cmd("SELECT", "3"), "OK"},
		{cmd("GET", "k"), `"db3"`},
	})
}

func TestFrozenTime(t *testing.T) {
	// Inside one script key expiry sees one frozen "now": a key set with
	// PX 1 is still there at the end of the script, however long it runs.
	e, err := engine.New(engine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	Register(e, Options{})
	s := engine.NewSession("normal")
	s.Authenticated = true
	args := [][]byte{[]byte("EVAL"), []byte("redis.call('set', 'k', 'v', 'px', 1) local t = redis.call('time') repeat local u = redis.call('time') until u[1] * 1e6 + u[2] > t[1] * 1e6 + t[2] + 5000 return {redis.call('pttl', 'k'), redis.call('exists', 'k')}"), []byte("0")}
	var rec engine.Recorder
	e.Dispatch(s, nil, args, &rec)
	if got := rec.Last().String(); got != "[(integer) 1 (integer) 1]" {
		t.Errorf("got %s", got)
	}
}

// A key a script finds expired is deleted there and then, in EVAL's write
// transaction as in EVAL_RO's read one: DBSIZE inside the script and after
// it counts one key less (as redis-server 7.0.15 with DEBUG
// SET-ACTIVE-EXPIRE 0).
func TestScriptLazyExpiry(t *testing.T) {
	for _, tc := range []struct {
		eval, script, want string
		left               int64 // DBSIZE after the script
	}{
		{"EVAL", `redis.call('exists', 'k') return redis.call('dbsize')`, `(integer) 0`, 0},
		{"EVAL_RO", `redis.call('get', 'k') return redis.call('dbsize')`, `(integer) 0`, 0},
		{"EVAL_RO", `redis.call('get', 'k') redis.call('get', 'k') return redis.call('dbsize')`, `(integer) 0`, 0},
		{"EVAL_RO", `return redis.call('dbsize')`, `(integer) 1`, 1},
		{"EVAL", `local r = redis.call('scan', '0') return {r[2], redis.call('dbsize')}`, `[[] (integer) 0]`, 0},
		{"EVAL_RO", `local r = redis.call('scan', '0') return {r[2], redis.call('dbsize')}`, `[[] (integer) 0]`, 0},
	} {
		ts := newTestService(t)
		ts.e.SetActiveExpire(false)
		ts.do("SET", "k", "v", "PX", "100")
		ts.e.Clock.FastForward(time.Second)
		if got := ts.do(tc.eval, tc.script, "0").String(); got != tc.want {
			t.Errorf("%s %s: got %s, want %s", tc.eval, tc.script, got, tc.want)
		}
		if got := ts.do("DBSIZE").Int; got != tc.left {
			t.Errorf("%s %s: DBSIZE after it %d, want %d", tc.eval, tc.script, got, tc.left)
		}
		if got := ts.e.Stats.ExpiredKeys.Load(); got != 1-tc.left {
			t.Errorf("%s %s: expired_keys %d, want %d", tc.eval, tc.script, got, 1-tc.left)
		}
	}
}

// TestScriptCacheInfo: INFO memory counts the cached scripts, and SCRIPT
// FLUSH, SYNC or ASYNC, empties the count at once (Redis's "SCRIPT FLUSH
// ASYNC" test reads it right after the flush).
func TestScriptCacheInfo(t *testing.T) {
	for _, mode := range []string{"ASYNC", "SYNC"} {
		t.Run(mode, func(t *testing.T) {
			ts := newTestService(t)
			for j := range 100 {
				ts.do("SCRIPT", "LOAD", "return "+strconv.Itoa(j))
			}
			if r := ts.eval("return 'one more'", "0").String(); r != `"one more"` {
				t.Fatalf("EVAL: %s", r)
			}
			for _, want := range []string{"number_of_cached_scripts:101\r\n", "used_memory_scripts_eval:"} {
				if info := ts.do("INFO", "memory").Str; !strings.Contains(info, want) {
					t.Fatalf("INFO memory has no %q:\n%s", want, info)
				}
			}
			ts.do("SCRIPT", "FLUSH", mode)
			for _, want := range []string{"number_of_cached_scripts:0\r\n", "used_memory_scripts_eval:0\r\n"} {
				if info := ts.do("INFO", "memory").Str; !strings.Contains(info, want) {
					t.Fatalf("after SCRIPT FLUSH %s, INFO memory has no %q:\n%s", mode, want, info)
				}
			}
		})
	}
}
