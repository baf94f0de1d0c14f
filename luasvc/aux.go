package luasvc

import (
	"fmt"
	"math"

	lua "github.com/yuin/gopher-lua"
)

// Argument checks with Lua 5.1's lauxlib messages ("bad argument #1 to
// 'rep' (number expected, got no value)"); gopher-lua's own differ. Numbers
// and numeric strings convert into each other as in Lua.

// raise is luaL_error: the message gets the position of the caller of
// the running Go function when that is Lua code (gopher-lua's RaiseError
// skips Go callers: pcall(f) would get the position of pcall's caller).
func raise(L *lua.LState, format string, args ...any) {
	msg := format
	if len(args) > 0 {
		msg = fmt.Sprintf(format, args...)
	}
	L.Error(lua.LString(where(L, 1)+msg), 0)
}

// argError is luaL_argerror: the function is named as its caller called
// it (getfuncname: "r" for local r = string.rep; r(), "?" when pcall or
// another Go function called it), and a method call does not count self.
// fname is the name for a caller that cannot be inspected.
func argError(L *lua.LState, n int, fname, msg string) {
	if kind, name, known := calledAs(L); known {
		fname = name
		if kind == "method" {
			if n--; n == 0 {
				raise(L, "calling '%s' on bad self (%s)", fname, msg)
			}
		}
	}
	raise(L, "bad argument #%d to '%s' (%s)", n, fname, msg)
}

// typeName is luaL_typename: "no value" past the last argument.
func typeName(L *lua.LState, n int) string {
	if n > L.GetTop() {
		return "no value"
	}
	return L.Get(n).Type().String()
}

func typeError(L *lua.LState, n int, fname, want string) {
	argError(L, n, fname, want+" expected, got "+typeName(L, n))
}

func checkAny(L *lua.LState, n int, fname string) lua.LValue {
	if n > L.GetTop() {
		argError(L, n, fname, "value expected")
	}
	return L.Get(n)
}

func checkTable(L *lua.LState, n int, fname string) *lua.LTable {
	t, ok := L.Get(n).(*lua.LTable)
	if !ok {
		typeError(L, n, fname, "table")
	}
	return t
}

// toNumber is lua_tonumber: numbers, and strings that read as numbers.
func toNumber(v lua.LValue) (float64, bool) {
	switch x := v.(type) {
	case lua.LNumber:
		return float64(x), true
	case lua.LString:
		return str2d(string(x))
	}
	return 0, false
}

func checkNumber(L *lua.LState, n int, fname string) float64 {
	f, ok := toNumber(L.Get(n))
	if !ok {
		typeError(L, n, fname, "number")
	}
	return f
}

// toInt is lua_Number -> lua_Integer: truncation, like the C cast on
// x86-64.
func toInt(f float64) int {
	if math.IsNaN(f) || f >= math.MaxInt64 || f < math.MinInt64 {
		return math.MinInt64
	}
	return int(f)
}

func checkInt(L *lua.LState, n int, fname string) int {
	return toInt(checkNumber(L, n, fname))
}

func optInt(L *lua.LState, n int, fname string, def int) int {
	if L.Get(n) == lua.LNil {
		return def
	}
	return checkInt(L, n, fname)
}

// checkString is luaL_checklstring: strings, and numbers as "%.14g".
func checkString(L *lua.LState, n int, fname string) string {
	switch x := L.Get(n).(type) {
	case lua.LString:
		return string(x)
	case lua.LNumber:
		return luaNumberString(float64(x))
	}
	typeError(L, n, fname, "string")
	return ""
}

func optString(L *lua.LState, n int, fname, def string) string {
	if L.Get(n) == lua.LNil {
		return def
	}
	return checkString(L, n, fname)
}

// checkOption is luaL_checkoption.
func checkOption(L *lua.LState, n int, fname, def string, options []string) int {
	name := def
	if L.Get(n) != lua.LNil || def == "" {
		name = checkString(L, n, fname)
	}
	for i, o := range options {
		if o == name {
			return i
		}
	}
	argError(L, n, fname, fmt.Sprintf("invalid option '%s'", name))
	return 0
}

// setFuncs fills t with Go functions.
func setFuncs(L *lua.LState, t *lua.LTable, fns map[string]lua.LGFunction) {
	for name, fn := range fns {
		t.RawSetString(name, L.NewFunction(fn))
	}
}
