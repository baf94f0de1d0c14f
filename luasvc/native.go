package luasvc

import (
	"strconv"

	"github.com/lockredis/lockredis/engine"
	lua "github.com/yuin/gopher-lua"
)

// Native lock scripts. Lock clients send the same few scripts verbatim,
// millions of times: compare-and-delete, compare-and-pexpire, Redisson's
// reentrant acquire. A script whose source is exactly one of these (known
// by its SHA1, so EVAL and EVALSHA alike) runs as Go instead of Lua.
//
// The Go body does what the Lua does, statement by statement: every
// redis.call goes through the same path as Lua's (vm.runCommand: the
// engine's dispatcher with the script's session, so ACL checks, the
// statistics, MONITOR, keyspace events, tracking and the read-only rules
// are the same), its reply is converted to the same Lua value (luaWriter),
// a raised error carries the line of the redis.call in the source, and
// the return value is written by the same writeReply. What is skipped is
// the interpreter: the Lua call, KEYS/ARGV tables, the time-limit watchdog
// (the body runs a fixed handful of commands). TestNativeScriptsMatchLua
// runs every native script and its Lua side by side on random states.
//
// A run with fewer keys or arguments than the body reads goes to Lua,
// which raises what Lua raises for the missing ones.

// nativeScript is one recognised script.
type nativeScript struct {
	name       string // who sends it
	src        string // the exact source
	keys, args int    // the body reads KEYS[1..keys] and ARGV[1..args]
	run        func(r *nativeRun) lua.LValue
}

// nativeRun is one run of a native body.
type nativeRun struct {
	v          *vm
	keys, args [][]byte
}

// nativeRaise unwinds a body whose redis.call raised, as L.Error does.
type nativeRaise struct {
	val  lua.LValue
	line int
}

// nativeStop unwinds a body whose command panicked (vm.panicked is set).
type nativeStop struct{}

// call is redis.call at the given line of the source. The command line
// is built in v.cmdv, as Lua's are (a command may keep it until commit).
func (r *nativeRun) call(line int, parts ...[]byte) lua.LValue {
	v := r.v
	start := len(v.cmdv)
	v.cmdv = append(v.cmdv, parts...)
	argv := v.cmdv[start:len(v.cmdv):len(v.cmdv)]
	w := &v.w
	w.reset(v.L, v.resp)
	if !v.runCommand(argv) {
		panic(nativeStop{})
	}
	if !w.done {
		w.reset(v.L, v.resp)
		w.Null()
	}
	res, isErr := w.result, w.isErr
	w.drop()
	if isErr {
		panic(nativeRaise{res, line})
	}
	return res
}

// Lua's view of a reply: a bulk string is an LString, a missing one
// false, an integer an LNumber, a status a table {ok=...}.

func isString(v lua.LValue, s []byte) bool {
	ls, ok := v.(lua.LString)
	return ok && string(ls) == string(s)
}

func truthy(v lua.LValue) bool { return v != lua.LNil && v != lua.LFalse }

func num(n int64) lua.LValue { return lua.LNumber(n) }

var (
	cmdGET     = []byte("GET")
	cmdDEL     = []byte("DEL")
	cmdPEXPIRE = []byte("PEXPIRE")
	cmdSET     = []byte("SET")
	cmdget     = []byte("get")
	cmddel     = []byte("del")
	cmdpexpire = []byte("pexpire")
	cmdpttl    = []byte("pttl")
	cmdexists  = []byte("exists")
	cmdhexists = []byte("hexists")
	cmdhincrby = []byte("hincrby")
	argPX      = []byte("PX")
	argNX      = []byte("NX")
	arg1       = []byte("1")
	argMinus1  = []byte("-1")
	cmdpublish = []byte("publish")
)

// compareThen is `if redis.call(get, KEYS[1]) == ARGV[1] then return
// redis.call(op, KEYS[1] [, ARGV[2]]) else return otherwise end` on one
// line, the shape most clients use.
func compareThen(get, op []byte, withArg2 bool, otherwise int64) func(r *nativeRun) lua.LValue {
	return func(r *nativeRun) lua.LValue {
		if !isString(r.call(1, get, r.keys[0]), r.args[0]) {
			return num(otherwise)
		}
		if withArg2 {
			return r.call(1, op, r.keys[0], r.args[1])
		}
		return r.call(1, op, r.keys[0])
	}
}

var nativeScripts = []nativeScript{
	{
		name: "compare-and-delete (redis.io, most tutorials)",
		src:  `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) else return 0 end`,
		keys: 1, args: 1,
		run: compareThen(cmdGET, cmdDEL, false, 0),
	},
	{
		name: "bsm/redislock v0.9 release",
		src:  `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end`,
		keys: 1, args: 1,
		run: compareThen(cmdget, cmddel, false, 0),
	},
	{
		name: "bsm/redislock v0.9 refresh",
		src:  `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("pexpire", KEYS[1], ARGV[2]) else return 0 end`,
		keys: 1, args: 2,
		run: compareThen(cmdget, cmdpexpire, true, 0),
	},
	{
		name: "bsm/redislock v0.9 TTL",
		src:  `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("pttl", KEYS[1]) else return -3 end`,
		keys: 1, args: 1,
		run: compareThen(cmdget, cmdpttl, false, -3),
	},
	{
		name: "redsync v4 release",
		src: "\n\tlocal val = redis.call(\"GET\", KEYS[1])\n\tif val == ARGV[1] then\n\t\treturn redis.call(\"DEL\", KEYS[1])\n" +
			"\telseif val == false then\n\t\treturn -1\n\telse\n\t\treturn 0\n\tend\n",
		keys: 1, args: 1,
		run: func(r *nativeRun) lua.LValue {
			val := r.call(2, cmdGET, r.keys[0])
			switch {
			case isString(val, r.args[0]):
				return r.call(4, cmdDEL, r.keys[0])
			case val == lua.LFalse:
				return num(-1)
			}
			return num(0)
		},
	},
	{
		name: "redsync v4 extend",
		src: "\n\tif redis.call(\"GET\", KEYS[1]) == ARGV[1] then\n\t\treturn redis.call(\"PEXPIRE\", KEYS[1], ARGV[2])\n" +
			"\telse\n\t\treturn 0\n\tend\n",
		keys: 1, args: 2,
		run: func(r *nativeRun) lua.LValue {
			if isString(r.call(2, cmdGET, r.keys[0]), r.args[0]) {
				return r.call(3, cmdPEXPIRE, r.keys[0], r.args[1])
			}
			return num(0)
		},
	},
	{
		name: "redsync v4 extend with SET NX",
		src: "\n\tif redis.call(\"GET\", KEYS[1]) == ARGV[1] then\n\t\treturn redis.call(\"PEXPIRE\", KEYS[1], ARGV[2])\n" +
			"\telseif redis.call(\"SET\", KEYS[1], ARGV[1], \"PX\", ARGV[2], \"NX\") then\n\t\treturn 1\n\telse\n\t\treturn 0\n\tend\n",
		keys: 1, args: 2,
		run: func(r *nativeRun) lua.LValue {
			if isString(r.call(2, cmdGET, r.keys[0]), r.args[0]) {
				return r.call(3, cmdPEXPIRE, r.keys[0], r.args[1])
			}
			if truthy(r.call(4, cmdSET, r.keys[0], r.args[0], argPX, r.args[1], argNX)) {
				return num(1)
			}
			return num(0)
		},
	},
	{
		name: "redis-py 4 Lock.release",
		src: "\n        local token = redis.call('get', KEYS[1])\n        if not token or token ~= ARGV[1] then\n" +
			"            return 0\n        end\n        redis.call('del', KEYS[1])\n        return 1\n    ",
		keys: 1, args: 1,
		run: func(r *nativeRun) lua.LValue {
			if !isString(r.call(2, cmdget, r.keys[0]), r.args[0]) {
				return num(0)
			}
			r.call(6, cmddel, r.keys[0])
			return num(1)
		},
	},
	{
		name: "redis-py 4 Lock.reacquire",
		src: "\n        local token = redis.call('get', KEYS[1])\n        if not token or token ~= ARGV[1] then\n" +
			"            return 0\n        end\n        redis.call('pexpire', KEYS[1], ARGV[2])\n        return 1\n    ",
		keys: 1, args: 2,
		run: func(r *nativeRun) lua.LValue {
			if !isString(r.call(2, cmdget, r.keys[0]), r.args[0]) {
				return num(0)
			}
			r.call(6, cmdpexpire, r.keys[0], r.args[1])
			return num(1)
		},
	},
	{
		name: "Redisson-style reentrant acquire (hash + pexpire)",
		src: "if ((redis.call('exists', KEYS[1]) == 0) or (redis.call('hexists', KEYS[1], ARGV[2]) == 1)) then " +
			"redis.call('hincrby', KEYS[1], ARGV[2], 1); redis.call('pexpire', KEYS[1], ARGV[1]); return nil; end; " +
			"return redis.call('pttl', KEYS[1]);",
		keys: 1, args: 2,
		run: func(r *nativeRun) lua.LValue {
			// `x == 0` on a non-number is false in Lua, never an error.
			if r.call(1, cmdexists, r.keys[0]) == num(0) || r.call(1, cmdhexists, r.keys[0], r.args[1]) == num(1) {
				r.call(1, cmdhincrby, r.keys[0], r.args[1], arg1)
				r.call(1, cmdpexpire, r.keys[0], r.args[0])
				return lua.LNil
			}
			return r.call(1, cmdpttl, r.keys[0])
		},
	},
	{
		name: "go-redisson v0.0.6 RLock acquire (Redisson's tryLockInner)",
		src: "\nif (redis.call('exists', KEYS[1]) == 0) then\n    redis.call('hincrby', KEYS[1], ARGV[2], 1);\n" +
			"    redis.call('pexpire', KEYS[1], ARGV[1]);\n    return 0;\nend;\n" +
			"if (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then\n    redis.call('hincrby', KEYS[1], ARGV[2], 1);\n" +
			"    redis.call('pexpire', KEYS[1], ARGV[1]);\n    return 0;\nend;\nreturn redis.call('pttl', KEYS[1]);\n",
		keys: 1, args: 2,
		run: func(r *nativeRun) lua.LValue {
			if r.call(2, cmdexists, r.keys[0]) == num(0) {
				r.call(3, cmdhincrby, r.keys[0], r.args[1], arg1)
				r.call(4, cmdpexpire, r.keys[0], r.args[0])
				return num(0)
			}
			if r.call(7, cmdhexists, r.keys[0], r.args[1]) == num(1) {
				r.call(8, cmdhincrby, r.keys[0], r.args[1], arg1)
				r.call(9, cmdpexpire, r.keys[0], r.args[0])
				return num(0)
			}
			return r.call(12, cmdpttl, r.keys[0])
		},
	},
	{
		name: "go-redisson v0.0.6 RLock unlock (Redisson's unlockInner)",
		src: "\nif (redis.call('hexists', KEYS[1], ARGV[3]) == 0) then\n    return nil;\nend;\n" +
			"local counter = redis.call('hincrby', KEYS[1], ARGV[3], -1);\nif (counter > 0) then\n" +
			"    redis.call('pexpire', KEYS[1], ARGV[2]);\n    return 0;\nelse\n    redis.call('del', KEYS[1]);\n" +
			"    redis.call('publish', KEYS[2], ARGV[1]);\n    return 1;\nend;\nreturn nil;\n",
		keys: 2, args: 3,
		run: func(r *nativeRun) lua.LValue {
			if r.call(2, cmdhexists, r.keys[0], r.args[2]) == num(0) {
				return lua.LNil
			}
			// HINCRBY answers an integer or raises.
			if counter := r.call(5, cmdhincrby, r.keys[0], r.args[2], argMinus1).(lua.LNumber); counter > 0 {
				r.call(7, cmdpexpire, r.keys[0], r.args[1])
				return num(0)
			}
			r.call(10, cmddel, r.keys[0])
			r.call(11, cmdpublish, r.keys[1], r.args[0])
			return num(1)
		},
	},
	{
		name: "go-redisson v0.0.6 RLock watchdog renewal (Redisson's renewExpirationAsync)",
		src: "\nif (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then\n    redis.call('pexpire', KEYS[1], ARGV[1]);\n" +
			"    return 1;\nend ;\nreturn 0\n",
		keys: 1, args: 2,
		run: func(r *nativeRun) lua.LValue {
			if r.call(2, cmdhexists, r.keys[0], r.args[1]) == num(1) {
				r.call(3, cmdpexpire, r.keys[0], r.args[0])
				return num(1)
			}
			return num(0)
		},
	},
}

// nativeBySHA indexes nativeScripts by the SHA1 of their source.
var nativeBySHA = func() map[string]*nativeScript {
	m := make(map[string]*nativeScript, len(nativeScripts))
	for i := range nativeScripts {
		m[sha1hex(nativeScripts[i].src)] = &nativeScripts[i]
	}
	return m
}()

// execNative runs sc's native body for c, as exec runs its Lua.
func (v *vm) execNative(c *engine.Call, sc *script, ns *nativeScript, keys, args [][]byte, readOnly bool) {
	callerDB := v.begin(c, sc, keys, readOnly)
	val, raised, stopped := v.runNative(ns, keys, args)
	switch {
	case stopped:
		p := v.panicked
		v.reset(c, callerDB)
		v.build()
		panic(p)
	case raised != nil:
		// As errorMessage for an error table raised by redis.call.
		msg := "ERR " + luaToString(raised.val)
		counted := false
		if t, ok := raised.val.(*lua.LTable); ok {
			if e, ok := t.RawGetString("err").(lua.LString); ok {
				msg = string(e)
				counted = errorCounted(t)
			}
		}
		msg += " script: " + sc.sha + ", on @" + scriptChunk + ":" + strconv.Itoa(raised.line) + "."
		writeError(c.W, msg, counted)
	default:
		v.writeReply(c.W, val, 0)
	}
	v.reset(c, callerDB)
}

// runNative runs the body, catching what it raises.
func (v *vm) runNative(ns *nativeScript, keys, args [][]byte) (val lua.LValue, raised *nativeRaise, stopped bool) {
	defer func() {
		if p := recover(); p != nil {
			switch x := p.(type) {
			case nativeRaise:
				raised = &x
			case nativeStop:
				stopped = true
			default:
				panic(p)
			}
		}
	}()
	v.nrun = nativeRun{v: v, keys: keys, args: args}
	val = ns.run(&v.nrun)
	v.nrun = nativeRun{}
	return val, nil, false
}

// NativeScripts lists the scripts that run as Go, by SHA1: what sends
// each.
func NativeScripts() map[string]string {
	m := make(map[string]string, len(nativeScripts))
	for sha, ns := range nativeBySHA {
		m[sha] = ns.name
	}
	return m
}
