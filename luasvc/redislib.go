package luasvc

import (
	"crypto/sha1"
	"encoding/hex"
	"strconv"
	"strings"
	"unsafe"

	"github.com/lockredis/lockredis/engine"
	lua "github.com/yuin/gopher-lua"
)

// Texts of the errors the redis library raises, as Redis 7.0 words them
// (refusals of the command itself come from engine.Dispatch).
const (
	msgNoArgs       = "Please specify at least one argument for this redis lib call"
	msgBadArgType   = "Lua redis lib command arguments must be strings or integers"
	msgNoScriptCtx  = "redis.call/pcall can only be called inside a script invocation"
	msgWrongArgs    = "wrong number of arguments"
	msgWrongArgType = "wrong number or type of arguments"
)

// Log levels of redis.log and the names Options.Logf receives.
var logLevels = [...]string{"debug", "verbose", "notice", "warning"}

// redisLib builds the redis table.
func (v *vm) redisLib() *lua.LTable {
	L := v.L
	t := L.CreateTable(0, 32)
	setFuncs(L, t, map[string]lua.LGFunction{
		"call":               func(L *lua.LState) int { return v.redisCall(L, true) },
		"pcall":              func(L *lua.LState) int { return v.redisCall(L, false) },
		"sha1hex":            redisSHA1Hex,
		"error_reply":        redisErrorReply,
		"status_reply":       redisStatusReply,
		"log":                v.redisLog,
		"setresp":            v.redisSetResp,
		"set_repl":           v.redisSetRepl,
		"replicate_commands": func(L *lua.LState) int { L.Push(lua.LTrue); return 1 },
		"breakpoint":         func(L *lua.LState) int { L.Push(lua.LFalse); return 1 },
		"debug":              func(L *lua.LState) int { return 0 },
		"acl_check_cmd":      v.redisACLCheckCmd,
	})
	for i, name := range []string{"LOG_DEBUG", "LOG_VERBOSE", "LOG_NOTICE", "LOG_WARNING"} {
		t.RawSetString(name, lua.LNumber(i))
	}
	t.RawSetString("REPL_NONE", lua.LNumber(0))
	t.RawSetString("REPL_AOF", lua.LNumber(1))
	t.RawSetString("REPL_SLAVE", lua.LNumber(2))
	t.RawSetString("REPL_REPLICA", lua.LNumber(2))
	t.RawSetString("REPL_ALL", lua.LNumber(3))
	t.RawSetString("REDIS_VERSION", lua.LString(engine.Version))
	t.RawSetString("REDIS_VERSION_NUM", lua.LNumber(versionNum(engine.Version)))
	return t
}

// versionNum is "7.0.15" as Redis's REDIS_VERSION_NUM (0x00070f0f-style:
// major<<16 | minor<<8 | patch).
func versionNum(v string) int {
	n := 0
	for _, p := range strings.SplitN(v, ".", 3) {
		x, _ := strconv.Atoi(p)
		n = n<<8 | x&0xff
	}
	return n
}

// raiseOrReturn raises err (redis.call) or returns it (redis.pcall).
func raiseOrReturn(L *lua.LState, raise bool, err *lua.LTable) int {
	if raise {
		L.Error(err, 0)
	}
	L.Push(err)
	return 1
}

// emptyArg is an empty argument; never written to.
var emptyArg = []byte{}

// args turns redis.call's arguments into a command line: strings as they
// are, numbers formatted as Redis does. The vectors live in v.cmdv until
// the run ends, so a command may keep them until its transaction commits.
func (v *vm) args(L *lua.LState) ([][]byte, string) {
	n := L.GetTop()
	if n == 0 {
		return nil, msgNoArgs
	}
	start := len(v.cmdv)
	for i := 1; i <= n; i++ {
		switch a := L.Get(i).(type) {
		case lua.LString:
			// Commands never modify their arguments: share the bytes. An
			// empty string stays a present, empty argument: handlers
			// take a nil one for a missing one (SET k v PX "").
			if len(a) == 0 {
				v.cmdv = append(v.cmdv, emptyArg)
				continue
			}
			v.cmdv = append(v.cmdv, unsafe.Slice(unsafe.StringData(string(a)), len(a)))
		case lua.LNumber:
			v.cmdv = append(v.cmdv, appendArgNumber(nil, float64(a)))
		default:
			v.cmdv = v.cmdv[:start]
			return nil, msgBadArgType
		}
	}
	return v.cmdv[start:len(v.cmdv):len(v.cmdv)], ""
}

// redisCall is redis.call (raises set) and redis.pcall.
func (v *vm) redisCall(L *lua.LState, raises bool) int {
	if v.call == nil {
		return raiseOrReturn(L, true, errorTable(L, "ERR "+msgNoScriptCtx, false))
	}
	argv, bad := v.args(L)
	if bad != "" {
		return raiseOrReturn(L, raises, errorTable(L, "ERR "+bad, false))
	}
	w := &v.w
	w.reset(L, v.resp)
	if !v.runCommand(argv) {
		raise(L, "%s", errStopPanic.Error())
	}
	if !w.done {
		// A handler must write exactly one reply.
		w.reset(L, v.resp)
		w.Null()
	}
	res := w.result
	isErr := w.isErr
	w.drop()
	if isErr && raises {
		L.Error(res, 0)
	}
	L.Push(res)
	return 1
}

// runCommand runs one command in the script's transaction, through the
// engine's dispatcher (which refuses what scripts may not run). A panicking
// command stops the script; exec re-raises the panic once the Lua state is
// unwound, so the engine rolls the whole transaction back.
func (v *vm) runCommand(argv [][]byte) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			v.panicked = r
			v.intr.halt(stopPanic)
			ok = false
		}
	}()
	v.svc.e.Dispatch(v.sess, v.call.Tx, argv, &v.w)
	return true
}

func redisSHA1Hex(L *lua.LState) int {
	if L.GetTop() != 1 {
		L.Error(errorTable(L, "ERR "+msgWrongArgs, false), 0)
	}
	var data string
	switch a := L.Get(1).(type) {
	case lua.LString:
		data = string(a)
	case lua.LNumber:
		data = luaNumberString(float64(a))
	}
	sum := sha1.Sum([]byte(data))
	L.Push(lua.LString(hex.EncodeToString(sum[:])))
	return 1
}

func redisStatusReply(L *lua.LState) int {
	s, ok := L.Get(1).(lua.LString)
	if L.GetTop() != 1 || !ok {
		L.Push(errorTable(L, "ERR "+msgWrongArgType, false))
		return 1
	}
	t := L.CreateTable(0, 1)
	t.RawSetString("ok", s)
	L.Push(t)
	return 1
}

func redisErrorReply(L *lua.LState) int {
	s, ok := L.Get(1).(lua.LString)
	if L.GetTop() != 1 || !ok {
		L.Push(errorTable(L, "ERR "+msgWrongArgType, false))
		return 1
	}
	L.Push(errorTable(L, errorReplyText(string(s)), false))
	return 1
}

// errorReplyText is how redis.error_reply reads its argument: an optional
// '-', then "CODE message", or a message that gets "ERR ".
func errorReplyText(s string) string {
	s = strings.TrimPrefix(s, "-")
	code, msg, found := strings.Cut(s, " ")
	if !found {
		return "ERR " + trimCRLF(s)
	}
	return code + " " + trimCRLF(msg)
}

func (v *vm) redisLog(L *lua.LState) int {
	n := L.GetTop()
	if n < 2 {
		L.Error(errorTable(L, "ERR redis.log() requires two arguments or more.", false), 0)
	}
	level, ok := toNumber(L.Get(1))
	if !ok {
		L.Error(errorTable(L, "ERR First argument must be a number (log level).", false), 0)
	}
	lvl := int(level)
	if lvl < 0 || lvl > 3 {
		L.Error(errorTable(L, "ERR Invalid debug level.", false), 0)
	}
	// Redis's default verbosity (notice) drops debug and verbose lines.
	if lvl < 2 {
		return 0
	}
	var sb strings.Builder
	for i := 2; i <= n; i++ {
		a := L.Get(i)
		if !lua.LVCanConvToString(a) {
			continue
		}
		if i != 2 {
			sb.WriteByte(' ')
		}
		sb.WriteString(luaToString(a))
	}
	v.svc.opts.Logf(logLevels[lvl], "%s", sb.String())
	return 0
}

func (v *vm) redisSetResp(L *lua.LState) int {
	if v.call == nil {
		L.Error(errorTable(L, "ERR redis.setresp can only be called inside a script invocation", false), 0)
	}
	if L.GetTop() != 1 {
		L.Error(errorTable(L, "ERR redis.setresp() requires one argument.", false), 0)
	}
	n, _ := toNumber(L.Get(1))
	resp := int(n)
	if resp != 2 && resp != 3 {
		L.Error(errorTable(L, "ERR RESP version must be 2 or 3.", false), 0)
	}
	v.resp = resp
	v.sess.Proto = resp
	return 0
}

func (v *vm) redisSetRepl(L *lua.LState) int {
	if v.call == nil {
		L.Error(errorTable(L, "ERR redis.set_repl can only be called inside a script invocation", false), 0)
	}
	if L.GetTop() != 1 {
		L.Error(errorTable(L, "ERR redis.set_repl() requires two arguments.", false), 0)
	}
	n, _ := toNumber(L.Get(1))
	if int64(n)&^3 != 0 {
		L.Error(errorTable(L, "ERR Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.", false), 0)
	}
	return 0 // nothing is replicated
}

// redisACLCheckCmd is redis.acl_check_cmd: lockredis has no ACL users, so
// every existing command is allowed.
func (v *vm) redisACLCheckCmd(L *lua.LState) int {
	if v.call == nil {
		L.Error(errorTable(L, "ERR redis.acl_check_cmd can only be called inside a script invocation", false), 0)
	}
	start := len(v.cmdv)
	argv, bad := v.args(L)
	if bad != "" {
		L.Error(errorTable(L, "ERR "+bad, false), 0)
	}
	allowed, ok := v.svc.e.UserCan(v.sess, argv)
	v.cmdv = v.cmdv[:start]
	if !ok {
		L.Error(errorTable(L, "ERR Invalid command passed to redis.acl_check_cmd()", false), 0)
	}
	L.Push(lua.LBool(allowed))
	return 1
}
