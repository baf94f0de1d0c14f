package luasvc

import (
	"sort"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

func missing(script, name string) string {
	return errAt(script, "ERR user_script:1: Script attempted to access nonexistent global variable '"+name+"'")
}

const readonlyErr = "ERR user_script:1: Attempt to modify a readonly table"

func TestGlobals(t *testing.T) {
	ts := newTestService(t)
	// Exactly Redis 7.0.15's globals (pairs(_G) there, KEYS and ARGV
	// included).
	want := "ARGV KEYS _G _VERSION __redis__err__handler assert bit cjson cmsgpack collectgarbage coroutine error gcinfo getmetatable ipairs load loadstring math next pairs pcall rawequal rawget rawset redis select setmetatable string struct table tonumber tostring type unpack xpcall"
	r := ts.eval(`local g = {} for k in pairs(_G) do g[#g+1] = k end return g`, "0")
	var got []string
	for _, e := range r.Elems {
		got = append(got, e.Str)
	}
	sort.Strings(got)
	if strings.Join(got, " ") != want {
		t.Errorf("globals:\n\tgot  %s\n\twant %s", strings.Join(got, " "), want)
	}
	libs := map[string]string{
		"string":    "byte char dump find format gfind gmatch gsub len lower match rep reverse sub upper",
		"table":     "concat foreach foreachi getn insert maxn remove setn sort",
		"math":      "abs acos asin atan atan2 ceil cos cosh deg exp floor fmod frexp huge ldexp log log10 max min mod modf pi pow rad random randomseed sin sinh sqrt tan tanh",
		"coroutine": "create resume running status wrap yield",
		"cjson":     "_NAME _VERSION decode decode_invalid_numbers decode_max_depth encode encode_invalid_numbers encode_keep_buffer encode_max_depth encode_number_precision encode_sparse_array new null",
		"bit":       "arshift band bnot bor bswap bxor lshift rol ror rshift tobit tohex",
		"struct":    "pack size unpack",
		"cmsgpack":  "_COPYRIGHT _DESCRIPTION _NAME _VERSION pack unpack unpack_limit unpack_one",
		"redis":     "LOG_DEBUG LOG_NOTICE LOG_VERBOSE LOG_WARNING REDIS_VERSION REDIS_VERSION_NUM REPL_ALL REPL_AOF REPL_NONE REPL_REPLICA REPL_SLAVE acl_check_cmd breakpoint call debug error_reply log pcall replicate_commands set_repl setresp sha1hex status_reply",
	}
	for lib, want := range libs {
		r := ts.eval(`local g = {} for k in pairs(`+lib+`) do g[#g+1] = k end table.sort(g) return table.concat(g, " ")`, "0")
		if r.Str != want {
			t.Errorf("%s:\n\tgot  %s\n\twant %s", lib, r.Str, want)
		}
	}
	for _, name := range []string{"os", "io", "debug", "print", "require", "dofile", "loadfile", "module", "setfenv", "getfenv", "newproxy", "package", "_GOPHER_LUA_VERSION", "channel", "x"} {
		script := "return " + name
		if got := ts.eval(script, "0").String(); got != missing(script, name) {
			t.Errorf("%s: %s", name, got)
		}
	}
	ts.scripts([]scriptCase{
		{`return os.execute("touch /tmp/x")`, missing(`return os.execute("touch /tmp/x")`, "os")},
		{`return io.open("/etc/passwd")`, missing(`return io.open("/etc/passwd")`, "io")},
		{`return _VERSION`, `"Lua 5.1"`},
		{`return _G._G == _G`, `(integer) 1`},
		{`return rawget(_G, "nosuch")`, `(nil)`},
		{`return rawget(_G, "string") == string`, `(integer) 1`},
		{`return rawget(string, "len") == string.len`, `(integer) 1`},
		{`return getmetatable("").__index == string`, `(integer) 1`},
		{`return getmetatable(string)`, `(nil)`},
		{`return ("x"):rep(3)`, `"xxx"`},
		{`local x = 1 x = x + 1 return x`, `(integer) 2`},
		{`local t = {} t.x = 1 function t.f() return 2 end return t.x + t.f()`, `(integer) 3`},
		{`KEYS[1] = "changed" return KEYS[1]`, `"changed"`},
	})
}

func TestReadOnlyEnvironment(t *testing.T) {
	ts := newTestService(t)
	tampering := []string{
		`x = 1`,
		`_G.x = 1`,
		`redis = nil`,
		`KEYS = {}`,
		`string.upper = nil`,
		`string.foo = 1`,
		`redis.call = function() return 1 end`,
		`math.random = nil`,
		`cjson.encode = nil`,
		`getmetatable("").__index.upper = nil`,
		`getmetatable("").__index = nil`,
		`getmetatable(_G).__index = nil`,
		`function helper() end`,
	}
	for _, s := range tampering {
		if got := ts.eval(s, "0").String(); got != errAt(s, readonlyErr) {
			t.Errorf("%s: %s", s, got)
		}
	}
	rawErr := func(s string) string { return errAt(s, "ERR Attempt to modify a readonly table") }
	for _, s := range []string{
		`rawset(_G, "x", 1)`,
		`rawset(string, "upper", nil)`,
		`setmetatable(_G, nil)`,
		`setmetatable(string, {})`,
		`table.insert(string, 1)`,
		`table.insert(redis, 1, 1)`,
		`rawset(getmetatable(""), "__index", {})`,
	} {
		if got := ts.eval(s, "0").String(); got != rawErr(s) {
			t.Errorf("%s: %s", s, got)
		}
	}
	// pcall catches the error, nothing changes.
	ts.scripts([]scriptCase{
		{`return {pcall(function() x = 1 end)}`, `[(nil) "user_script:1: Attempt to modify a readonly table"]`},
		{`pcall(rawset, string, "upper", nil) return string.upper("a")`, `"A"`},
	})
	// Whatever was attempted, the next script sees the pristine
	// environment, in the same Lua state.
	ts.scripts([]scriptCase{
		{`return string.upper("a")`, `"A"`},
		{`return ("a"):upper()`, `"A"`},
		{`return type(redis.call)`, `"function"`},
		{`return x`, missing(`return x`, "x")},
		{`return #KEYS`, `(integer) 0`},
	})
	if !ts.svc.primaryVM().intact() {
		t.Error("environment reported modified")
	}
}

func TestTamperedStateIsRebuilt(t *testing.T) {
	ts := newTestService(t)
	v := ts.svc.primaryVM()
	oldL := v.L
	// Simulate a hole in the sandbox: a write that went through.
	ts.svc.primaryVM().env.RawSetString("leak", lua.LTrue)
	if v.intact() {
		t.Fatal("tampering not detected")
	}
	ts.scripts([]scriptCase{{`return 1`, `(integer) 1`}})
	if v.L == oldL {
		t.Error("state not rebuilt after tampering")
	}
	ts.scripts([]scriptCase{{`return leak`, missing(`return leak`, "leak")}})
	if len(ts.log) == 0 || !strings.Contains(ts.log[0], "rebuilding") {
		t.Errorf("no warning logged: %q", ts.log)
	}
}

func TestNoBytecode(t *testing.T) {
	ts := newTestService(t)
	ts.scripts([]scriptCase{
		{`return string.sub(string.dump(function() end), 1, 12) == "\27LuaQ\0\1\4\8\4\8\0"`, `(integer) 1`},
		{`return string.dump(tostring)`, errAt(`return string.dump(tostring)`, "ERR user_script:1: unable to dump given function")},
		{`return loadstring(string.dump(function() return 1 end))()`, errAt(`return loadstring(string.dump(function() return 1 end))()`, "ERR user_script:1: attempt to call a nil value")},
		{`local f, e = loadstring("\27LuaQ\0\1\4\8\4\8\0") return {tostring(f), e}`, `["nil" "[string \"\x1bLuaQ\"]:1: unexpected symbol near 'char(27)'"]`},
		{`local f, e = load(function() return nil end) return type(f)`, `"function"`},
		{`return loadstring("return 1 + 1")()`, `(integer) 2`},
		{`return loadstring("x = 1")()`, "(error) ERR [string \"x = 1\"]:1: Attempt to modify a readonly table script: " + sha(`return loadstring("x = 1")()`) + ", on x = 1:1."},
		{`return {loadstring("return (")}`, `[]`},
		{`return select(2, loadstring("return (", "=chunk"))`, `"chunk:1: unexpected symbol near '<eof>'"`},
		{`return load("return 1")`, errAt(`return load("return 1")`, "ERR user_script:1: bad argument #1 to 'load' (function expected, got string)")},
		{`local parts = {"return ", "4"} local i = 0 return load(function() i = i + 1 return parts[i] end)()`, `(integer) 4`},
	})
}

func TestHarmlessCollectGarbage(t *testing.T) {
	ts := newTestService(t)
	ts.scripts([]scriptCase{
		{`return collectgarbage()`, `(integer) 0`},
		{`return collectgarbage("collect")`, `(integer) 0`},
		{`return collectgarbage("count") > 0`, `(integer) 1`},
		{`return collectgarbage("step")`, `(nil)`},
		{`return gcinfo() > 0`, `(integer) 1`},
		{`return collectgarbage("bogus")`, errAt(`return collectgarbage("bogus")`, "ERR user_script:1: bad argument #1 to 'collectgarbage' (invalid option 'bogus')")},
	})
}

func TestResourceBounds(t *testing.T) {
	ts := newTestService(t)
	tooLarge := "ERR user_script:1: resulting string too large"
	ts.scripts([]scriptCase{
		{`return string.rep("x", 1e10)`, errAt(`return string.rep("x", 1e10)`, tooLarge)},
		{`return #string.rep("ab", 1e6)`, `(integer) 2000000`},
		{`local t = {} for i = 1, 200000 do t[i] = i end return #{unpack(t)}`, errAt(`local t = {} for i = 1, 200000 do t[i] = i end return #{unpack(t)}`, "ERR user_script:1: too many results to unpack")},
		{`return #{unpack({}, 1, 1e8)}`, errAt(`return #{unpack({}, 1, 1e8)}`, "ERR user_script:1: too many results to unpack")},
		{`return #{unpack({}, 1, 7000)}`, `(integer) 0`},
		{`local function f(n) return f(n + 1) + 1 end return f(1)`, errAt(`local function f(n) return f(n + 1) + 1 end return f(1)`, "ERR user_script:1: stack overflow")},
		{`local function f() pcall(f) end f() return "survived"`, `"survived"`},
		// gsub builds its result in one pass: 200000 matches.
		{`local s, n = string.gsub(string.rep("a", 200000), "a", "bb") return {#s, n}`, `[(integer) 400000 (integer) 200000]`},
		{`return #table.concat({string.rep("x", 1000), string.rep("y", 1000)}, ",")`, `(integer) 2001`},
	})
	// The state is fine after all that.
	ts.scripts([]scriptCase{{`return redis.call("set", "k", "v")`, `OK`}})
}
