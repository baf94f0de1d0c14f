package compat

// Differential cases for error texts that were found differing by random
// command streams (issue #25): errors raised inside scripts (redis.call
// misuse, runtime errors with Lua 5.1's variable names, the "script: ..."
// location), scripts that do not compile, and the unknown-command error
// when an argument holds a NUL byte (Redis prints with %.*s and stops
// there) or CR/LF (replaced by spaces).

import "testing"

// luaErrorScripts raise an error inside a script; the reply is the error
// text with its location part.
var luaErrorScripts = []string{
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

func TestDiffErrorTexts(t *testing.T) {
	var lua []diffStep
	lua = append(lua, args("SET", "s", "str"))
	for _, s := range luaErrorScripts {
		lua = append(lua, evalStep(s, nil))
	}
	lua = append(lua,
		evalStep("return redis.call('lpush', 's', 'x')", nil),
		evalStep("return redis.pcall('incr', 's')", nil),
	)
	runDiffCases(t, []diffCase{
		{name: "lua-errors", needs: []string{"eval"}, steps: lua},
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
