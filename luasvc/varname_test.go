package luasvc

import "testing"

// TestTypeErrorNames: a type error that ends a script names the value as
// Lua 5.1 does (getobjname), with its type; without a name (a constant, a
// call's result) it is "a <type> value". Caught by pcall or xpcall the
// message is the same (their handlers look before the stack unwinds).
func TestTypeErrorNames(t *testing.T) {
	ts := newTestService(t)
	e := func(script, msg string) scriptCase {
		return scriptCase{script, errAt(script, "ERR user_script:1: "+msg)}
	}
	ts.scripts([]scriptCase{
		e(`local t = nil; return t.x`, `attempt to index local 't' (a nil value)`),
		e(`local t = {}; t.a.b = 1`, `attempt to index field 'a' (a nil value)`),
		e(`return KEYS[1].x`, `attempt to index field '?' (a nil value)`),
		e(`local a = {}; a()`, `attempt to call local 'a' (a table value)`),
		e(`local t = {}; t:m()`, `attempt to call method 'm' (a nil value)`),
		e(`return redis.nosuch()`, `attempt to call field 'nosuch' (a nil value)`),
		e(`local u; local f = function() return u.x end; return f()`, `attempt to index upvalue 'u' (a nil value)`),
		e(`local a; return a + 1`, `attempt to perform arithmetic on local 'a' (a nil value)`),
		e(`local a; return 1 - a`, `attempt to perform arithmetic on local 'a' (a nil value)`),
		e(`local a; return -a`, `attempt to perform arithmetic on local 'a' (a nil value)`),
		e(`local a; return #a`, `attempt to get length of local 'a' (a nil value)`),
		e(`local a = {}; local b = 'q'; return a .. b .. 'x'`, `attempt to concatenate local 'a' (a table value)`),
		e(`local n; return 'a' .. n`, `attempt to concatenate local 'n' (a nil value)`),
		e(`for i = 1, 2 do local t; t.x = i end`, `attempt to index local 't' (a nil value)`),
		e(`return tostring(nil).x.y`, `attempt to index field 'x' (a nil value)`),
		e(`return (nil)()`, `attempt to call a nil value`),
		{`local ok, e = pcall(function() local t; return t.x end); return e`, `"user_script:1: attempt to index local 't' (a nil value)"`},
		{`local ok, e = xpcall(function() local t; return t.x end, function(m) return 'H ' .. m end); return e`,
			`"H user_script:1: attempt to index local 't' (a nil value)"`},
		{`local ok, e = pcall(table.sort, {2, 1}, function(a, b) local z; return z < a end); return e`,
			`"user_script:1: attempt to compare nil with number"`},
		// A closure made by the function the error ended keeps its value.
		{`local f; pcall(function() local x = 1; f = function() return x end; error('e') end); pcall(function() local y = 99; return y end); local r = f(); return r`, `(integer) 1`},
	})
}
