package luasvc

import (
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// The base library of Redis 7.0's Lua 5.1, written for this sandbox:
// Lua 5.1 semantics and messages where gopher-lua's differ (tonumber,
// tostring, error levels), read-only tables honoured by rawset and
// setmetatable, no loading of bytecode, a harmless collectgarbage, and
// Redis's pcall (error tables become their message). dofile, loadfile,
// print, require, module, getfenv, setfenv and newproxy are absent, as in
// Redis 7.0.15.

// gcKB is what collectgarbage("count") and gcinfo() report: the Lua heap
// is Go's, so there is no meaningful figure; this one is plausible.
const gcKB = 32

func (v *vm) openBase(g *lua.LTable) {
	L := v.L
	next := L.NewFunction(v.baseNext)
	fns := map[string]lua.LGFunction{
		"assert":                baseAssert,
		"collectgarbage":        baseCollectGarbage,
		"error":                 baseError,
		"gcinfo":                baseGCInfo,
		"getmetatable":          v.baseGetMetatable,
		"ipairs":                v.baseIpairs,
		"load":                  v.baseLoad,
		"loadstring":            v.baseLoadString,
		"pcall":                 v.basePcall,
		"rawequal":              baseRawEqual,
		"rawget":                v.baseRawGet,
		"rawset":                v.baseRawSet,
		"select":                baseSelect,
		"setmetatable":          v.baseSetMetatable,
		"tonumber":              baseToNumber,
		"tostring":              v.baseToString,
		"type":                  baseType,
		"unpack":                baseUnpack,
		"xpcall":                v.baseXPcall,
		"__redis__err__handler": baseRedisErrHandler,
	}
	setFuncs(L, g, fns)
	g.RawSetString("next", next)
	g.RawSetString("pairs", L.NewFunction(func(L *lua.LState) int {
		t := checkTable(L, 1, "pairs")
		L.Push(next)
		L.Push(t)
		L.Push(lua.LNil)
		return 3
	}))
}

func baseAssert(L *lua.LState) int {
	checkAny(L, 1, "assert")
	if !lua.LVAsBool(L.Get(1)) {
		raise(L, "%s", optString(L, 2, "assert", "assertion failed!"))
	}
	return L.GetTop()
}

var gcOptions = []string{"stop", "restart", "collect", "count", "step", "setpause", "setstepmul"}

// baseCollectGarbage never collects: the heap is the whole process's.
func baseCollectGarbage(L *lua.LState) int {
	switch checkOption(L, 1, "collectgarbage", "collect", gcOptions) {
	case 3: // count
		L.Push(lua.LNumber(gcKB))
	case 4: // step
		L.Push(lua.LFalse)
	case 5, 6: // setpause, setstepmul: the previous value (Lua's default)
		L.Push(lua.LNumber(200))
	default:
		L.Push(lua.LNumber(0))
	}
	return 1
}

func baseGCInfo(L *lua.LState) int {
	L.Push(lua.LNumber(gcKB))
	return 1
}

// where is luaL_where: "chunk:line: " of the function at level (1 = the
// caller of the running Go function), empty for Go functions.
func where(L *lua.LState, level int) string {
	dbg, ok := L.GetStack(level)
	if !ok {
		return ""
	}
	if _, err := L.GetInfo("Sl", dbg, lua.LNil); err != nil || dbg.CurrentLine <= 0 {
		return ""
	}
	return dbg.Source + ":" + strconv.Itoa(dbg.CurrentLine) + ": "
}

// baseError is Lua 5.1's error: strings and numbers get the position of
// the function at level; any value can be raised, nil included.
func baseError(L *lua.LState) int {
	obj := L.Get(1)
	level := optInt(L, 2, "error", 1)
	switch x := obj.(type) {
	case lua.LString, lua.LNumber:
		if level > 0 {
			obj = lua.LString(where(L, level) + luaToString(x))
		}
	}
	L.Error(obj, 0)
	return 0
}

func (v *vm) baseGetMetatable(L *lua.LState) int {
	obj := checkAny(L, 1, "getmetatable")
	switch x := obj.(type) {
	case *lua.LTable:
		if v.isReadOnly(x) {
			// Library tables have no metatable; the globals' is shown
			// read-only.
			if x == v.env {
				L.Push(v.gMetaView)
			} else {
				L.Push(lua.LNil)
			}
			return 1
		}
	case lua.LString:
		L.Push(v.strMetaView)
		return 1
	}
	L.Push(L.GetMetatable(obj))
	return 1
}

func (v *vm) baseSetMetatable(L *lua.LState) int {
	t := checkTable(L, 1, "setmetatable")
	mt := L.Get(2)
	switch mt.(type) {
	case *lua.LNilType, *lua.LTable:
	default:
		argError(L, 2, "setmetatable", "nil or table expected")
	}
	if L.GetMetaField(t, "__metatable") != lua.LNil {
		raise(L, "cannot change a protected metatable")
	}
	if v.isReadOnly(t) {
		L.Error(lua.LString("Attempt to modify a readonly table"), 0)
	}
	t.Metatable = mt
	L.SetTop(1)
	return 1
}

func (v *vm) baseNext(L *lua.LState) int {
	t := v.realTable(checkTable(L, 1, "next"))
	k, val := t.Next(L.Get(2))
	if k == lua.LNil {
		L.Push(lua.LNil)
		return 1
	}
	L.Push(k)
	L.Push(val)
	return 2
}

func (v *vm) baseIpairs(L *lua.LState) int {
	t := checkTable(L, 1, "ipairs")
	L.Push(L.NewFunction(v.ipairsAux))
	L.Push(t)
	L.Push(lua.LNumber(0))
	return 3
}

func (v *vm) ipairsAux(L *lua.LState) int {
	t := v.realTable(checkTable(L, 1, "ipairs"))
	i := checkInt(L, 2, "ipairs") + 1
	val := t.RawGetInt(i)
	if val == lua.LNil {
		return 0
	}
	L.Push(lua.LNumber(i))
	L.Push(val)
	return 2
}

func (v *vm) baseRawGet(L *lua.LState) int {
	t := v.realTable(checkTable(L, 1, "rawget"))
	L.Push(t.RawGet(checkAny(L, 2, "rawget")))
	return 1
}

func (v *vm) baseRawSet(L *lua.LState) int {
	t := checkTable(L, 1, "rawset")
	k := checkAny(L, 2, "rawset")
	val := checkAny(L, 3, "rawset")
	if v.isReadOnly(t) {
		L.Error(lua.LString("Attempt to modify a readonly table"), 0)
	}
	L.RawSet(t, k, val)
	L.SetTop(1)
	return 1
}

func baseRawEqual(L *lua.LState) int {
	a := checkAny(L, 1, "rawequal")
	b := checkAny(L, 2, "rawequal")
	L.Push(lua.LBool(L.RawEqual(a, b)))
	return 1
}

func baseSelect(L *lua.LState) int {
	n := L.GetTop()
	if s, ok := L.Get(1).(lua.LString); ok && strings.HasPrefix(string(s), "#") {
		L.Push(lua.LNumber(n - 1))
		return 1
	}
	i := checkInt(L, 1, "select")
	if i < 0 {
		i = n + i
	} else if i > n {
		i = n
	}
	if i < 1 {
		argError(L, 1, "select", "index out of range")
	}
	return n - i
}

func baseType(L *lua.LState) int {
	L.Push(lua.LString(checkAny(L, 1, "type").Type().String()))
	return 1
}

func (v *vm) baseToString(L *lua.LState) int {
	obj := checkAny(L, 1, "tostring")
	if fn, ok := L.GetMetaField(obj, "__tostring").(*lua.LFunction); ok {
		L.Push(fn)
		L.Push(obj)
		v.callLua(L, 1, 1)
		return 1
	}
	if obj == v.null {
		L.Push(lua.LString("userdata: (nil)"))
		return 1
	}
	L.Push(lua.LString(luaToString(obj)))
	return 1
}

func baseToNumber(L *lua.LState) int {
	base := optInt(L, 2, "tonumber", 10)
	if base == 10 {
		if f, ok := toNumber(checkAny(L, 1, "tonumber")); ok {
			L.Push(lua.LNumber(f))
			return 1
		}
		L.Push(lua.LNil)
		return 1
	}
	s := checkString(L, 1, "tonumber")
	if base < 2 || base > 36 {
		argError(L, 2, "tonumber", "base out of range")
	}
	if n, end := strtoul(s, base); end > 0 && isBlank(s[end:]) {
		L.Push(lua.LNumber(n))
		return 1
	}
	L.Push(lua.LNil)
	return 1
}

func baseUnpack(L *lua.LState) int {
	t := checkTable(L, 1, "unpack")
	i := optInt(L, 2, "unpack", 1)
	var e int
	if L.Get(3) == lua.LNil {
		e = t.Len()
	} else {
		e = checkInt(L, 3, "unpack")
	}
	if i > e {
		return 0
	}
	n := e - i + 1
	if n <= 0 || n >= maxUnpack {
		raise(L, "too many results to unpack")
	}
	for ; i <= e; i++ {
		L.Push(t.RawGetInt(i))
	}
	return n
}

// protectedError is the value pcall and xpcall hand to the script: Redis
// turns an error table from redis.call into its message.
func protectedError(err error) lua.LValue {
	ae, ok := err.(*lua.ApiError)
	if !ok {
		return lua.LString(err.Error())
	}
	switch o := ae.Object.(type) {
	case *lua.LTable:
		if e, ok := o.RawGetString("err").(lua.LString); ok {
			return e
		}
	case lua.LString:
		return lua.LString(luaMessage(string(o)))
	}
	return ae.Object
}

func (v *vm) basePcall(L *lua.LState) int {
	if L.GetTop() == 0 {
		// Redis's pcall wrapper ends up calling its own placeholder.
		L.Push(lua.LFalse)
		L.Push(lua.LString("attempt to call a boolean value"))
		return 2
	}
	f := L.Get(1)
	if _, ok := f.(*lua.LFunction); !ok && L.GetMetaField(f, "__call") == lua.LNil {
		L.SetTop(0)
		L.Push(lua.LFalse)
		L.Push(lua.LString("attempt to call a " + f.Type().String() + " value"))
		return 2
	}
	v.enter(L)
	err := L.PCall(L.GetTop()-1, lua.MultRet, v.pcallFunc)
	v.leave()
	if err != nil {
		L.Push(lua.LFalse)
		L.Push(protectedError(err))
		return 2
	}
	L.Insert(lua.LTrue, 1)
	return L.GetTop()
}

// baseXPcall is Lua 5.1's xpcall: f runs without arguments and the
// handler sees the raw error value (Redis leaves xpcall alone).
func (v *vm) baseXPcall(L *lua.LState) int {
	checkAny(L, 2, "xpcall")
	f := L.Get(1)
	handler, ok := L.Get(2).(*lua.LFunction)
	if !ok {
		handler = L.NewFunction(func(L *lua.LState) int {
			L.Push(lua.LString("error in error handling"))
			return 1
		})
	}
	L.SetTop(0)
	L.Push(f)
	// The handler sees the message a caught error carries: in Lua's
	// words, naming the variable.
	named := L.NewFunction(func(L *lua.LState) int {
		obj := namedError(L, L.Get(1))
		if s, ok := obj.(lua.LString); ok {
			obj = lua.LString(luaMessage(string(s)))
		}
		L.SetTop(0)
		L.Push(handler)
		L.Push(obj)
		L.Call(1, 1)
		closeUpvalues(L, v.upvalCloser)
		return 1
	})
	v.enter(L)
	err := L.PCall(0, lua.MultRet, named)
	v.leave()
	if err != nil {
		L.Push(lua.LFalse)
		if ae, ok := err.(*lua.ApiError); ok {
			L.Push(ae.Object)
		} else {
			L.Push(lua.LString(err.Error()))
		}
		return 2
	}
	L.Insert(lua.LTrue, 1)
	return L.GetTop()
}

// baseRedisErrHandler is Redis's __redis__err__handler, callable from
// scripts as in Redis: it wraps a message in an error table with the
// caller's position.
func baseRedisErrHandler(L *lua.LState) int {
	obj := L.Get(1)
	t, ok := obj.(*lua.LTable)
	if !ok {
		t = errorTable(L, "ERR "+luaToString(obj), false)
	}
	for level := 1; level <= 2; level++ {
		dbg, ok := L.GetStack(level)
		if !ok {
			break
		}
		if _, err := L.GetInfo("Sl", dbg, lua.LNil); err == nil && dbg.CurrentLine > 0 {
			t.RawSetString("source", lua.LString("@"+dbg.Source))
			t.RawSetString("line", lua.LNumber(dbg.CurrentLine))
			break
		}
	}
	L.Push(t)
	return 1
}

func (v *vm) baseLoadString(L *lua.LState) int {
	src := checkString(L, 1, "loadstring")
	name := optString(L, 2, "loadstring", src)
	return v.loadChunk(L, src, name)
}

func (v *vm) baseLoad(L *lua.LState) int {
	reader, ok := L.Get(1).(*lua.LFunction)
	if !ok {
		typeError(L, 1, "load", "function")
	}
	name := optString(L, 2, "load", "=(load)")
	var sb strings.Builder
	for {
		L.Push(reader)
		v.callLua(L, 0, 1)
		piece := L.Get(-1)
		L.Pop(1)
		if piece == lua.LNil {
			break
		}
		s, ok := piece.(lua.LString)
		if !ok {
			if n, isNum := piece.(lua.LNumber); isNum {
				s = lua.LString(luaNumberString(float64(n)))
			} else {
				L.Push(lua.LNil)
				L.Push(lua.LString("reader function must return a string"))
				return 2
			}
		}
		if len(s) == 0 {
			break
		}
		if sb.Len()+len(s) > maxStringBytes {
			raise(L, "chunk too large")
		}
		sb.WriteString(string(s))
	}
	return v.loadChunk(L, sb.String(), name)
}

// loadChunk compiles source text; precompiled chunks are refused (they
// are parsed as text, which fails, as in Redis).
func (v *vm) loadChunk(L *lua.LState, src, name string) int {
	chunk := chunkID(name)
	proto, err := compile(src, name, v.ccalls)
	if err != nil {
		L.Push(lua.LNil)
		L.Push(lua.LString(err.Error()))
		return 2
	}
	fn := L.NewFunctionFromProto(proto)
	fn.Env = v.env
	v.src[chunk] = name
	L.Push(fn)
	return 1
}

// luaMessage rewrites gopher-lua's runtime error messages in Lua 5.1's
// words where the meaning is the same ("attempt to perform arithmetic on
// a nil value"). Lua also names the variable ("local 'x'"); gopher-lua
// does not know it, so that part is missing.
func luaMessage(msg string) string {
	pos, body := splitPosition(msg)
	switch {
	case strings.HasPrefix(body, "cannot perform concat operation between "):
		a, b, _ := strings.Cut(strings.TrimPrefix(body, "cannot perform concat operation between "), " and ")
		t := a
		if a == "string" || a == "number" {
			t = b
		}
		body = "attempt to concatenate a " + t + " value"
	case strings.HasPrefix(body, "cannot perform "):
		rest := body[strings.Index(body, " between ")+len(" between "):]
		a, b, _ := strings.Cut(rest, " and ")
		t := a
		if a == "number" {
			t = b
		}
		body = "attempt to perform arithmetic on a " + t + " value"
	case strings.HasPrefix(body, "attempt to index a non-table object("):
		t, _, _ := strings.Cut(strings.TrimPrefix(body, "attempt to index a non-table object("), ")")
		body = "attempt to index a " + t + " value"
	case body == "attempt to call a non-function object":
		body = "attempt to call a nil value"
	case body == "__len undefined":
		body = "attempt to get length of a nil value"
	case body == "__unm undefined":
		body = "attempt to perform arithmetic on a nil value"
	case strings.HasPrefix(body, "attempt to compare "):
		a, b, ok := strings.Cut(strings.TrimPrefix(body, "attempt to compare "), " with ")
		if ok && a == b {
			body = "attempt to compare two " + a + " values"
		}
	case body == "for statement init must be a number":
		body = "'for' initial value must be a number"
	case body == "for statement limit must be a number":
		body = "'for' limit must be a number"
	case body == "for statement step must be a number":
		body = "'for' step must be a number"
	default:
		return msg
	}
	return pos + body
}

// splitPosition splits "user_script:3: message" into its position prefix
// and the message.
func splitPosition(msg string) (string, string) {
	i := strings.Index(msg, ": ")
	if i < 0 {
		return "", msg
	}
	head := msg[:i]
	j := strings.LastIndexByte(head, ':')
	if j < 0 || j == len(head)-1 {
		return "", msg
	}
	for _, c := range head[j+1:] {
		if c < '0' || c > '9' {
			return "", msg
		}
	}
	return msg[:i+2], msg[i+2:]
}
