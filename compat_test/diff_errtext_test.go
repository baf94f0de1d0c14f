package compat

// Differential cases for error texts that were found differing by random
// command streams (issue #25): errors raised inside scripts (redis.call
// misuse, runtime errors with Lua 5.1's variable names, the "script: ..."
// location), scripts that do not compile, and the unknown-command error
// when an argument holds a NUL byte (Redis prints with %.*s and stops
// there) or CR/LF (replaced by spaces).

import (
	"strconv"
	"strings"
	"testing"
)

// luaErrorScripts raise an error inside a script; the reply is the error
// text with its location part.
var luaErrorScripts = []string{
	// Type errors name the variable as Lua 5.1 does: local, global,
	// field, upvalue, method.
	"local t = nil; return t.x",
	"local t = nil; return t[1]",
	"return KEYS[1].x",
	"local a = {} ; a()",
	"local x = 1 \n local y = nil \n return y.z",
	"return nosuch.x",
	"return nosuch()",
	"nosuch()",
	"local t = {} ; return t.a.b",
	"local t = {} ; t.a.b = 1",
	"local t = {} ; t.a()",
	"local t = {} ; t:m()",
	"local s = 'x' ; s:nosuch()",
	"local u = nil ; local f = function() return u.x end ; return f()",
	"local u = 5 ; local f = function() return u() end ; return f()",
	"return redis.nosuch()",
	"return redis.call.x",
	"return ARGV[1].x",
	"return KEYS[1]()",
	"local t = {1,2}; return t[1].x",
	"local t = {}; local k = 'a'; return t[k].x",
	"return #nosuch",
	"local a; return #a",
	"return nosuch + 1",
	"local a; return a + 1",
	"local a = {}; return a .. 'x'",
	"return -nosuch",
	"local x = 1; x.y = 2",
	"local x = true; return x.y",
	"local f = 1; f()",
	"return (nil)()",
	"return ({})()",
	"local a, b = 1; return b.x",
	"for i = 1, 2 do local t; t.x = i end",
	"local function f(a) return a.x end; return f(nil)",
	"local function f(...) local a = ...; return a.x end; return f(nil)",
	"local t = setmetatable({}, {__index = function(t, k) return nil end}); return t.x.y",
	"return string.nosuch()",
	"return math.huge.x",
	"local t = {f = 5}; return t.f()",
	"local t = {f = 5}; return t:f()",
	"return tostring(nil).x.y",
	"if true then local q; return q.z end",
	"local x = {}; do local y; end; return x.a.b",
	"local r = redis.call('get', 'nokey'); return r.x",
	"local r = redis.call('get', 'nokey'); return r()",
	"local a = {}; return 'x' .. a",
	"local a = {}; local b = 'q'; return a .. b .. 'x'",
	"local a = {}; local b = {}; return a .. b",
	"local a = {}; return 'p' .. a .. 'x' .. 1",
	"local a = 1; local b = {}; return a * b",
	"local a = '3'; local b; return a - b",
	"local a = 'z'; return a - 1",
	"local a; return 1 - a",
	"local a; return -a",
	"local t = {}; return t.x + 1",
	"local t = {}; return 2 ^ t.x",
	"local t = {}; return t.x % t.y",
	"return KEYS[1] .. {}",
	"local n = nil; return 'a' .. n",
	"return redis.call()",
	"return redis.call('get')",
	"return redis.call('get','a','b')",
	"return redis.call('set','a')",
	"return redis.call({})",
	"return redis.call('get', {})",
	"return redis.call('get', nil)",
	"return redis.call('get', true)",
	"return redis.call(1)",
	"return redis.call('nosuch')",
	"return redis.pcall('nosuch')",
	"return redis.pcall('get','a','b')",
	"return redis.pcall()",
	"return redis.call('get', 'a', 1.5)",
	"return redis.call('ping', 'a', 'b')",
	"return redis.call('eval','return 1','0')",
	"return redis.call('multi')",
	"return redis.call('subscribe','x')",
	"return redis.call('expire','a','x')",
	"return redis.call('hset','h')",
	"redis.call('set','a','b','ex','x')",
	"redis.call('set','a','b','ex','0')",
	"local ok, e = pcall(redis.call, 'nosuch'); return e",
	"local ok, e = pcall(redis.call, 'get','a','b'); return e",
	"return x.y",
	"error('boom')",
	"error('boom', 0)",
	"error({err='my err'})",
	"error({err='ERR my err'})",
	"error()",
	"error(12)",
	"error('a\\r\\nb')",
	"return 1 + {}",
	"return 'a' + 1",
	"return #nil",
	"return nil .. 'a'",
	"foo()",
	"a = 1",
	"return string.rep()",
	"return math.floor('x')",
	"return cjson.decode('{')",
	"return struct.pack('q')",
	"return bit.band('x')",
	"return redis.error_reply()",
	"return redis.status_reply()",
	"return redis.setresp(5)",
	"return redis.set_repl(99)",
	"return {err='x'}",
	"return {err=''}",
	"return {err='-ERR x'}",
	"return {err='-MYCODE x'}",
	"return {err='x\\r\\ny'}",
	// Binary (precompiled) code never loads, as Redis's Lua refuses it.
	"return loadstring(string.dump(function() return 1 end))()",
	"local f, e = loadstring(string.dump(function() return 1 end)); return e",
	"return {loadstring(string.dump(function() return 1 end))}",
	"return string.sub(string.dump(function() return 1 end), 1, 12)",
	"return string.dump(tostring)",
	"return loadstring('\\27LuaQ')",
}

// luaSyntaxScripts do not compile; Lua 5.1's parser (luasvc/syntax.go)
// names the first error, its line and the token near it. Each is sent as
// EVAL, SCRIPT LOAD and FUNCTION LOAD.
var luaSyntaxScripts = []string{
	// Lexer errors.
	"x = 'abc",
	"x = 'abc\ny'",
	"x = \"a\\tb\ny\"",
	"x = 'a\\400'",
	"x = 'a\\",
	"x = 'abc\\\n",
	"x = [[abc",
	"return [[\nabc]] .. [[\n",
	"--[[ abc",
	"x = [==x",
	"x = [=[ a ]] ",
	"x = 1.2.3",
	"x = 0x",
	"x = 1e",
	"return .5e+",
	"x = 0x1p-4",
	"return 3..2",
	"x = 1\x00 y",
	"return 1\x00 garbage",
	"x = 1 'a\x00b'",
	"x = \x80",
	"x = @",
	"return \x01",
	"x = \x00",
	// Parser errors.
	"x = = 1",
	"for i=1 do end",
	"goto continue",
	"::a::",
	"f\n(1)",
	"function f() return ... end",
	"break",
	"if x then break end",
	"while true do break; x = 1 end",
	"if x then\n\nelse",
	"local function f(a, 1) end",
	"for i in x",
	"for i x",
	"(a) = 1",
	"a, f() = 1",
	"x = ~1",
	"x = a // b",
	"x = 1 & 2",
	"local x <const> = 1",
	"return 1 +",
	"x = }",
	"local t = {1, 2",
	"local t = {1,\n2\n",
	"f(1,\n2",
	"x = (1",
	"x = a[1",
	"a.b:c = 1",
	"x = a:b",
	"local 1 = 2",
	"function 1() end",
	"function t:m.x() end",
	"return 1 x = 2",
	"do return 1 print(2) end",
	"repeat x = 1",
	"repeat\n x = 1\n\n",
	"while x do\nend end",
	"if x then else elseif y then end",
	"local function f() \n\n",
	"x = function(a,) end",
	"x = function(..., a) end",
	"x",
	"x.y",
	"x = 1,,",
	"return return",
	"x = not",
	"local a = {f = }",
	"t = {[1] 2}",
	"if x y",
	"for k, v in pairs(t) do\n x = 1\n",
	"x = 'a' .. ",
	"return f{",
	"\r\nx = = 1",
	"\n\rx = = 1",
	"\r\rx = = 1",
	"x = \"a\\0b\" y",
	"local t = {a b}",
	"return 08 09",
	"local s = [[\n\n]] x",
	// Limits.
	"local " + luaNames("v", 201),
	"local function f()\n" + "local " + luaNames("v", 200) + "\nend",
	"local " + luaNames("u", 61) + "\nlocal function f() return " + luaNames("u", 61) + " end",
	"return " + strings.Repeat("(", 199) + "1" + strings.Repeat(")", 199),
	"x = " + strings.Repeat("{", 200) + strings.Repeat("}", 200),
	"local a\n" + strings.Repeat("a,", 199) + "a = 1",
	strings.Repeat("do ", 200) + strings.Repeat(" end", 200),
	// Registers: a function may use 250.
	"return 1" + strings.Repeat(",1", 249),
	"f(1" + strings.Repeat(",1", 248) + ")",
	"local " + luaNames("v", 198) + "\nreturn o:m(" + luaNames("", 50) + ")",
	"local " + luaNames("v", 199) + "\nlocal t = {" + strings.Repeat("1,", 51) + "}",
	"local " + luaNames("v", 190) + "\nfor k in f, s, c, " + strings.Repeat("x,", 59) + "x do end",
	"local " + luaNames("v", 150) + "\nlocal a, b = " + strings.Repeat("f(), ", 99) + "1",
	"local " + luaNames("v", 150) + "\nreturn " + strings.Repeat("x and f(), ", 99) + "1",
	"local " + luaNames("v", 150) + "\nreturn " + strings.Repeat("t.a.b, ", 99) + "1",
	"local " + luaNames("v", 150) + "\nreturn " + strings.Repeat("o:m(1), ", 99) + "1",
	"local " + luaNames("v", 190) + "\nreturn " + strings.Repeat("x .. ", 59) + "x",
	"local " + luaNames("v", 190) + "\nf(" + strings.Repeat("not x, ", 58) + "#t, -y, t[k], ...)",
	"local " + luaNames("v", 190) + "\nt.x, t[k], y = " + strings.Repeat("1 + x, ", 58) + "{}",
}

// luaNames is "p0,p1,...": n variable names.
func luaNames(p string, n int) string {
	names := make([]string, n)
	for i := range names {
		names[i] = p + strconv.Itoa(i)
	}
	return strings.Join(names, ",")
}

// luaSyntaxSteps sends every script that does not compile as EVAL,
// SCRIPT LOAD and FUNCTION LOAD, and through loadstring (another chunk
// name, and one C call deeper, so the nesting limit is one less).
func luaSyntaxSteps() []diffStep {
	var out []diffStep
	for i, s := range luaSyntaxScripts {
		out = append(out,
			args("EVAL", s, "0"),
			args("SCRIPT", "LOAD", s),
			args("FUNCTION", "LOAD", "#!lua name=syn"+strconv.Itoa(i)+"\n"+s),
		)
	}
	for _, s := range []string{
		"x = = 1",
		"if x then\n\nelse",
		"return " + strings.Repeat("(", 198) + "1" + strings.Repeat(")", 198),
		"return " + strings.Repeat("(", 197) + "1" + strings.Repeat(")", 197),
	} {
		out = append(out,
			evalStep("local f, e = loadstring(ARGV[1]); return e", nil, s),
			evalStep("local f, e = loadstring(ARGV[1], '=mine'); return e", nil, s),
			evalStep("local ok, f, e = pcall(loadstring, ARGV[1]); return e", nil, s),
		)
	}
	return out
}

// luaCaughtErrorScripts catch a runtime error with pcall, xpcall, a
// coroutine or a library callback and return its message, which names
// the variable as Lua 5.1 does, like an uncaught error.
var luaCaughtErrorScripts = []string{
	// A closure made by a function an error ended keeps its upvalue.
	"local f; pcall(function() local x = 1; f = function() return x end; error('e') end); pcall(function() local y, z = 99, 98; return y end); return f()",
	"local f; xpcall(function() local x = 2; f = function() return x end; local n; return n.x end, function(m) return m end); xpcall(function() local y, z = 99, 98; return y end, print); return f()",
	"local f; local ok, e = pcall(function() local x = 3; f = function() x = x + 1; return x end; f(); error('e') end); return {f(), f(), e}",
	"return {pcall(function() local x; return x.y end)}",
	"local ok, e = pcall(function() local x; return x.y end) return e",
	"local ok, e = pcall(function() return nosuch.y end) return e",
	"local ok, e = pcall(function() local t = {} return t.a.b end) return e",
	"local ok, e = pcall(function() local f = 1; f() end) return e",
	"local ok, e = pcall(function() local a; return a + 1 end) return e",
	"local ok, e = pcall(function() local a = {}; return 'x' .. a end) return e",
	"local ok, e = pcall(function() local a; return #a end) return e",
	"local ok, e = pcall(function(x) return x.y end) return e",
	"local ok, e = pcall(function(x) return x.y end, 5) return e",
	"local ok, e = xpcall(function() local x; return x.y end, function(m) return 'H:' .. m end) return e",
	"local ok, e = pcall(error) return e",
	"local ok, e = pcall(function() error('boom') end) return e",
	"local ok, e = pcall(function() local s = 'x'; s:nosuch() end) return e",
	"local ok, e = pcall(function() local u; local function g() return u.x end; return g() end) return e",
	"local ok, e = pcall(function() return redis.nosuch() end) return e",
	"local ok, e = pcall(function() local t = setmetatable({}, {__index = function(t, k) local z; return z.q end}); return t.x end) return e",
	"local ok, e = pcall(function() return pcall(function() local q; return q.w end) end) return e",
	"return {pcall(function() return pcall(function() local q; return q.w end) end)}",
	"local ok, e = pcall(function() return nosuch + 1 end) return e",
	"local ok, e = pcall(function() local a = 5; a.b = 1 end) return e",
	"local t = {}; local ok, e = pcall(table.sort, {3,2,1}, function(a, b) local z; return z.x end); return e",
	"local s, e = pcall(string.gsub, 'abc', 'b', function(c) local z; return z.x end); return e",
}

// luaArgErrorScripts misuse library functions; Lua 5.1 names the function
// as its caller called it (a local's name, a field, a method, whose self
// is then not counted), and '?' when pcall called it.
var luaArgErrorScripts = []string{
	"local s = {rep = string.rep}; return s:rep(2)",
	"local s = {rep = string.rep}; return s:rep()",
	"local r = string.rep; local function g() return r() end; return g()",
	"local function g() return string.rep() end; return g()",
	"g = string.rep; return g()",
	"return string.rep(nil, 1)",
	"return (string.rep or 1)()",
	"local t = {string.rep}; return t[1]()",
	"return table.sort({3, 1, 2}, 5)",
	"return table.insert()",
	"return setmetatable({}, 5)",
	"return ('x'):format()",
	"local ok, e = pcall(function() return ('x'):rep({}) end); return e",
	"return coroutine.resume(5)",
	"return bit.band({})",
	"return struct.unpack()",
	"return cjson.decode()",
	"return string.char(-1)",
	"return math.max()",
	"return tonumber('10', 99)",
	"return unpack(5)",
	"return select('x')",
	"return ('x'):rep('a')",
	"local s = 'x'; return s:rep('a')",
	"local r = string.rep; return r()",
	"return string.rep()",
	"local ok, e = pcall(string.rep) return e",
	"local t = {f = string.rep}; return t.f()",
	"return ('x'):sub({})",
	"return tostring()",
	"local ts = tostring; return ts()",
	"return ('%d'):format('x')",
	"return string.format('%d', 'x')",
	"return select(2, pcall(('x').rep, 'x', 'y'))",
	"local ok, e = pcall(tonumber) return e",
	"return (string.rep)()",
	"return table.concat({}, 1)",
	"local t = {} return t:concat()",
	"return math.floor()",
	"return redis.sha1hex()",
	"return cjson.encode()",
}

func TestDiffErrorTexts(t *testing.T) {
	var lua []diffStep
	lua = append(lua, args("SET", "s", "str"))
	for _, s := range luaErrorScripts {
		lua = append(lua, evalStep(s, nil))
	}
	for _, s := range luaArgErrorScripts {
		lua = append(lua, evalStep(s, nil))
	}
	for _, s := range luaCaughtErrorScripts {
		lua = append(lua, evalStep(s, nil))
	}
	lua = append(lua,
		evalStep("return redis.call('lpush', 's', 'x')", nil),
		evalStep("return redis.pcall('incr', 's')", nil),
	)
	runDiffCases(t, []diffCase{
		{name: "lua-errors", needs: []string{"eval"}, steps: lua},
		{name: "lua-syntax-errors", needs: []string{"eval", "function"}, steps: luaSyntaxSteps()},
		{name: "lua-numerals", needs: []string{"eval"}, steps: []diffStep{
			// Numbers as Lua 5.1 (glibc strtod) reads them, which
			// gopher-lua reads otherwise or refuses.
			evalStep("return 0x1p4", nil),
			evalStep("return 0xfp1 + 0x0p0 + 0XAP2", nil),
			evalStep("return 0010 + 007", nil),
			evalStep("return 00.5 * 4", nil),
			evalStep("return tostring(1e309) .. ' ' .. tostring(-1e309) .. ' ' .. tostring(1e308 * 10)", nil),
			evalStep("return tostring(0x1p1000 * 0x1p1000)", nil),
			evalStep("return tostring(1e-400)", nil),
			evalStep("return 1\x00 + 1", nil),
			evalStep("return 'a'.\x00'b'", nil),
			evalStep("local function f(...) return select('#', .\x00.) end return f(1, 2)", nil),
			evalStep("return {0x10, 0xff, 1e2, .5e1, 5., 08}", nil),
			// "--[=" without a second '[' starts a short comment.
			evalStep("return 1 --[= not long", nil),
			evalStep("--[==x\nreturn 2", nil),
		}},
		{name: "binary-chunks", needs: []string{"eval"}, steps: []diffStep{
			args("SCRIPT", "LOAD", "\x1bLua"),
			args("SCRIPT", "LOAD", "\x1bLuaQ\x00\x01\x04\x08\x04\x08\x00"),
			args("EVAL", "\x1bLuaQ\x00", "0"),
			args("FUNCTION", "LOAD", "#!lua name=bin\n\x1bLuaQ\x00"),
			args("SCRIPT", "LOAD", "return \x01"),
			args("SCRIPT", "LOAD", "x = 1 \x7f"),
			args("SCRIPT", "LOAD", "\x00"),
			args("SCRIPT", "LOAD", "return \x00"),
		}},
		{name: "unknown-command-nul-crlf", steps: []diffStep{
			args("nosuch", "a\x00b", "c"),
			args("nosuch\x00x", "a"),
			args("nosuch", "\x00"),
			args("\x00", "x"),
			args("no\r\nsuch", "a\rb\nc"),
			args("nosuch", "a\r\nb"),
			args("nosuch", string(make([]byte, 200))),
			args("nosuch", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\x00bbbbbbbbbbbbbbbbb", "c"),
			args("CLIENT", "no\x00such"),
			args("CONFIG", "x\r\ny\x00z"),
		}},
	})
}
