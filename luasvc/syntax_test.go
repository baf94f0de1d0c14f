package luasvc

import (
	"fmt"
	"strings"
	"testing"

	"github.com/lockredis/lockredis/internal/fuzzwatch"
)

// The expected messages were read from redis-server 7.0.15 (SCRIPT LOAD);
// compat_test's TestDiffErrorTexts compares many more side by side.
func TestLuaSyntaxCheck(t *testing.T) {
	tests := []struct{ src, want string }{
		{"return 1", ""},
		{"x = = 1", "user_script:1: unexpected symbol near '='"},
		{"for i=1 do end", "user_script:1: ',' expected near 'do'"},
		{"goto x", "user_script:1: '=' expected near 'x'"},
		{"::a::", "user_script:1: unexpected symbol near ':'"},
		{"f\n(1)", "user_script:2: ambiguous syntax (function call x new statement) near '('"},
		{"local t = {a\n(1)}", ""}, // the lookahead moved lastline
		{"function f() return ... end", "user_script:1: cannot use '...' outside a vararg function near '...'"},
		{"local function f(...) return ..., arg end", ""},
		{"break", "user_script:1: no loop to break near '<eof>'"},
		{"while true do break; x = 1 end", "user_script:1: 'end' expected near 'x'"},
		{"if x then\n\nelse", "user_script:3: 'end' expected (to close 'if' at line 1) near '<eof>'"},
		{"local function f(a, 1) end", "user_script:1: <name> or '...' expected near '1'"},
		{"(a) = 1", "user_script:1: syntax error near '='"},
		{"a, f() = 1", "user_script:1: syntax error near '='"},
		{"x = 'abc", "user_script:1: unfinished string near '<eof>'"},
		{"x = 'a\\tb\ny", "user_script:1: unfinished string near ''a\tb'"},
		{"x = 'a\\400'", "user_script:1: escape sequence too large near ''a'"},
		{"return \"abc\\\n", "user_script:2: unfinished string near '<eof>'"},
		{"x = [==x", "user_script:1: invalid long string delimiter near '[=='"},
		{"x = [[ a [[ b ]] ]]", "user_script:1: unexpected symbol near ']'"}, // no LUA_COMPAT_LSTR
		{"x = 1.2.3", "user_script:1: malformed number near '1.2.3'"},
		{"x = 0x1p-4", "user_script:1: malformed number near '0x1p'"},
		{"return 0x.8", "user_script:1: malformed number near '0x'"},
		{"return 0x1p4, 08, .5, 5., 1e+5, 0XaB", ""},
		{"return 1\x00 garbage", "user_script:1: '<eof>' expected near 'garbage'"}, // strchr finds the NUL
		{"return redis.\x00call", ""},                                              // ".\0" is ".."
		{"x = 1 \x00 y", "user_script:1: unexpected symbol"},                       // token 0: no "near"
		{"x = 1 'a\x00b'", "user_script:1: unexpected symbol near ''a'"},
		{"x = \x01", "user_script:1: unexpected symbol near 'char(1)'"},
		{"x = \x80", "user_script:1: unexpected symbol near '\x80'"},
		{"\r\n\n\r\r\nx = = 1", "user_script:4: unexpected symbol near '='"},
		{"local " + luaNameList("v", 200), ""},
		{"local " + luaNameList("v", 201), "user_script:1: main function has more than 200 local variables"},
		{"\nlocal function f(...)\nlocal " + luaNameList("v", 200) + " end",
			"user_script:3: function at line 2 has more than 200 local variables"},
		{"local " + luaNameList("u", 61) + "\nlocal function f() return " + luaNameList("u", 61) + " end",
			"user_script:2: function at line 2 has more than 60 upvalues"},
		{"return " + strings.Repeat("(", 198) + "1" + strings.Repeat(")", 198), ""},
		{"return " + strings.Repeat("(", 199) + "1" + strings.Repeat(")", 199), "user_script:1: chunk has too many syntax levels"},
		{"return 1" + strings.Repeat(",1", 248), ""},
		{"return 1" + strings.Repeat(",1", 249), "user_script:1: function or expression too complex near '<eof>'"},
		{"f(1" + strings.Repeat(",1", 247) + ")", ""},
		{"f(1" + strings.Repeat(",1", 248) + ")", "user_script:1: function or expression too complex near '<eof>'"},
		{"local t = {f()" + strings.Repeat(",f()", 299) + "}", ""},
		{"local " + luaNameList("v", 198) + "\nreturn o:m(" + luaNameList("", 50) + ")",
			"user_script:2: function or expression too complex near '<eof>'"},
		{"return " + strings.Repeat("f(", 120) + strings.Repeat(")", 120), ""},
		{"local a\n" + strings.Repeat("a,", 199) + "a = 1", ""},
		{"local a\n" + strings.Repeat("a,", 200) + "a = 1", "user_script:2: main function has more than 199 variables in assignment"},
	}
	for _, tt := range tests {
		if got := luaSyntaxCheck(tt.src, "user_script", 0); got != tt.want {
			t.Errorf("%.60q:\n got %q\nwant %q", tt.src, got, tt.want)
		}
	}
}

func luaNameList(p string, n int) string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("%s%d", p, i)
	}
	return strings.Join(names, ",")
}

// validLua parses in Lua 5.1: the checker must accept it.
var validLua = []string{
	`local t = {1, 2, 3; x = 1, ["y"] = 2, f = function(a, b, ...) return a + b, ... end}
local function fib(n) if n < 2 then return n elseif n == 2 then return 1 else return fib(n-1) + fib(n-2) end end
for i = 1, 10, 2 do t[#t + 1] = i * 2 ^ 3 % 5 end
for k, v in pairs(t) do if type(v) == "number" then t[k] = -v end end
while #t > 100 do table.remove(t) end
repeat local z = 1 until z == 1
do local a, b = 1, 2; a, b = b, a end
local s = "a\tb\\c\"d" .. 'e\'f' .. [[long
string]] .. [==[x]]y]==] .. "\065\10\
next"
local obj = {} function obj:m(x) return self, x end
function obj.n.o(y) return y end
local r = obj:m{1} or obj:m"x" and not nil ~= false
-- comment
--[[ long
comment ]] --[==[ ]] ]==]
local x = 0x1F + 1e3 + .5 + 3. + 1E-2
return redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) == false`,
	"if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end",
	"local a = {f = function() end}; a.f(); (a.f)(); a['f']{}; return #a, -1, not a, a and a or a",
	"return;",
	"do return end",
	"for i = 1, 2 do break end",
	"repeat local x = 1; if x then break end until x",
	"local function f() local g = function() return f end return g end",
	"",
}

func TestLuaSyntaxValid(t *testing.T) {
	for _, src := range validLua {
		if got := luaSyntaxCheck(src, "user_script", 0); got != "" {
			t.Errorf("%.60q: %q", src, got)
		}
	}
}

// TestLuaSyntaxWorkLinear holds the checker's work (bytes read and
// name-lookup steps) to a linear bound on shapes that could make a
// parser slow: deep nesting, many locals and upvalues looked up often,
// long tokens, unfinished long strings and comments.
func TestLuaSyntaxWorkLinear(t *testing.T) {
	rep := func(s string) func(int) string { return func(n int) string { return strings.Repeat(s, n) } }
	families := []struct {
		name string
		gen  func(n int) string
	}{
		{"statements", rep("do local a = {x = 1, [2] = 'y'} a.x = a[2] .. 'z' end ")},
		{"open-parens", rep("(")},
		{"open-braces", func(n int) string { return "x = " + strings.Repeat("{", n) }},
		{"unary-chain", func(n int) string { return "x = " + strings.Repeat("- ", n) }},
		{"many-globals", rep("g = g + g ")},
		{"locals-and-upvalues", func(n int) string {
			// 150 locals, then nested functions that each read all of
			// them as upvalues, many times.
			var b strings.Builder
			b.WriteString("local " + luaNameList("v", 150) + "\n")
			for range 40 {
				b.WriteString("local function f()\n")
			}
			for range n {
				b.WriteString("x = v1 + v59 + nosuch ")
			}
			return b.String()
		}},
		{"long-name", func(n int) string { return "x = " + strings.Repeat("a", 16*n) }},
		{"long-number", func(n int) string { return "x = " + strings.Repeat("1", 16*n) + "." }},
		{"unfinished-long-string", func(n int) string { return "x = [==[" + strings.Repeat("]=]", n) }},
		{"unfinished-long-comment", func(n int) string { return "--[[" + strings.Repeat("\n]", n) }},
		{"unfinished-string", func(n int) string { return "x = '" + strings.Repeat("\\\n", n) }},
		{"comments", rep("-- x\n--[[ y ]]\n")},
		{"nul-bytes", rep("1\x00.\x00")},
	}
	for _, f := range families {
		t.Run(f.name, func(t *testing.T) {
			small, large := f.gen(200), f.gen(3200)
			_, ws, _ := syntaxCheck(small, "user_script", 0)
			_, wl, _ := syntaxCheck(large, "user_script", 0)
			perSmall := float64(ws) / float64(len(small))
			perLarge := float64(wl) / float64(len(large))
			if perLarge > 1.5*perSmall+1 {
				t.Errorf("work per byte %.2f for %d bytes, %.2f for %d bytes: not linear", perSmall, len(small), perLarge, len(large))
			}
			t.Logf("work per byte: %.2f (%d bytes), %.2f (%d bytes)", perSmall, len(small), perLarge, len(large))
		})
	}
}

// FuzzLuaSyntax: the checker never panics or stalls, its message names
// the chunk, and what it accepts gopher-lua compiles without panicking.
//
//	go test -run '^$' -fuzz '^FuzzLuaSyntax$' -fuzztime 5m ./luasvc
func FuzzLuaSyntax(f *testing.F) {
	for _, s := range validLua {
		f.Add(s)
	}
	for _, s := range []string{
		"x = = 1", "f\n(1)", "x = 'a\\400'", "x = [==x", "return 1\x00 y", "local t = {a\n(1)}",
		"return " + strings.Repeat("(", 199), "--[[", "x = [[", "0x1p4", "a.b:c()", "::l:: goto l", "#!lua",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		defer fuzzwatch.Start(src)()
		msg, work, _ := syntaxCheck(src, "user_script", 0)
		if msg != "" && !strings.HasPrefix(msg, "user_script:") {
			t.Fatalf("%q: message %q", src, msg)
		}
		// A name lookup walks at most the enclosing functions (fewer
		// than 100) and one function's upvalues (at most 60).
		if limit := 8000 * (len(src) + 1); work > limit {
			t.Fatalf("%q: work %d > %d", src, work, limit)
		}
		if msg == "" {
			_, _ = compile(src, "@user_script", 0)
		}
	})
}

// BenchmarkCompile measures what the syntax check adds to a compile
// (once per distinct script: EVAL and EVALSHA reuse the compiled one).
func BenchmarkCompile(b *testing.B) {
	src := validLua[0]
	b.Run("syntax-check", func(b *testing.B) {
		b.SetBytes(int64(len(src)))
		for range b.N {
			luaSyntaxCheck(src, "user_script", 0)
		}
	})
	b.Run("compile", func(b *testing.B) {
		b.SetBytes(int64(len(src)))
		for range b.N {
			if _, err := compile(src, "@user_script", 0); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestLuaForGopher: what gopher-lua would read otherwise is rewritten to
// the same value on the same line.
func TestLuaForGopher(t *testing.T) {
	tests := []struct{ src, want string }{
		{"return 1 + 2.5e3", "return 1 + 2.5e3"},
		{"return 0x1p4", "return (16)"},
		{"return 0x10, 0XaB", "return (16), (171)"},
		{"return 0010", "return (10)"},
		{"return 1e309 - -1e400", "return (1/0) - -(1/0)"},
		{"return 1\x00 + 1", "return (1) + 1"},
		{"return 'a'.\x00'b'", "return 'a' .. 'b'"},
		{"--[=x\nreturn 1", "--\nreturn 1"},
		{"--[[ x\n]] return 1", "--[[ x\n]] return 1"},
	}
	for _, tt := range tests {
		got, msg := luaForGopher(tt.src, "user_script", 0)
		if got != tt.want || msg != "" {
			t.Errorf("%q: got %q %q, want %q", tt.src, got, msg, tt.want)
		}
	}
}
