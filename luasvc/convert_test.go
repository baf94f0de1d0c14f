package luasvc

import (
	"strings"
	"testing"

	"github.com/lockredis/lockredis/engine"
)

// testReplies registers TESTREPLY <kind>, a command that writes one reply
// of each kind the Writer knows, so that every conversion into Lua is
// exercised, RESP3 kinds included.
func testReplies(ts *testService) {
	ts.e.Register(&engine.Command{Name: "testreply", Spec: engine.NewSpec(2, engine.FlagReadonly), Handler: func(c *engine.Call) {
		w := c.W
		switch string(c.Args[1]) {
		case "status":
			w.Status("FINE")
		case "error":
			w.Error("CODE something failed")
		case "errnocode":
			w.Error("failed")
		case "int":
			w.Int(-42)
		case "bigint":
			w.Int(9007199254740993)
		case "bulk":
			w.Bulk([]byte("a\x00b"))
		case "empty":
			w.BulkString("")
		case "null":
			w.Null()
		case "nullarray":
			w.NullArray()
		case "array":
			w.Array(4)
			w.Int(1)
			w.BulkString("two")
			w.Null()
			w.Array(1)
			w.Status("OK")
		case "emptyarray":
			w.Array(0)
		case "map":
			w.Map(2)
			w.BulkString("a")
			w.Int(1)
			w.BulkString("b")
			w.Null()
		case "set":
			w.Set(2)
			w.BulkString("x")
			w.BulkString("y")
		case "double":
			w.Double(3.5)
		case "bool":
			w.Array(2)
			w.Bool(true)
			w.Bool(false)
		case "verbatim":
			w.Verbatim("txt", "hello")
		case "bignum":
			w.BigNumber("1234567999999999999999999999999999999")
		case "nested-error":
			w.Array(2)
			w.Int(1)
			w.Error("ERR inner")
		}
	}})
}

func TestRedisToLua(t *testing.T) {
	ts := newTestService(t)
	testReplies(ts)
	ts.scripts([]scriptCase{
		// integer -> number
		{`local r = redis.call('testreply', 'int') return {type(r), r}`, `["number" (integer) -42]`},
		// integers above 2^53 lose precision, as in Redis's Lua
		{`return tostring(redis.call('testreply', 'bigint'))`, `"9.007199254741e+15"`},
		// bulk -> string, binary safe
		{`local r = redis.call('testreply', 'bulk') return {type(r), #r, r}`, `["string" (integer) 3 "a\x00b"]`},
		{`local r = redis.call('testreply', 'empty') return {type(r), #r}`, `["string" (integer) 0]`},
		// nil bulk and nil array -> false
		{`local r = redis.call('testreply', 'null') return {type(r), r == false}`, `["boolean" (integer) 1]`},
		{`local r = redis.call('testreply', 'nullarray') return {type(r), r == false}`, `["boolean" (integer) 1]`},
		{`return redis.call('get', 'missing') == false`, `(integer) 1`},
		// status -> {ok=...}
		{`local r = redis.call('testreply', 'status') return {type(r), r.ok}`, `["table" "FINE"]`},
		{`return redis.call('set', 'k', 'v').ok`, `"OK"`},
		// error -> raised by call, {err=...} from pcall
		{`local r = redis.pcall('testreply', 'error') return {type(r), r.err}`, `["table" "CODE something failed"]`},
		{`return redis.pcall('testreply', 'errnocode').err`, `"ERR failed"`},
		{`return redis.call('testreply', 'error')`, "(error) CODE something failed script: " + sha(`return redis.call('testreply', 'error')`) + ", on @user_script:1."},
		// an error inside an array does not raise
		{`local r = redis.call('testreply', 'nested-error') return {r[1], r[2].err}`, `[(integer) 1 "ERR inner"]`},
		// array -> table, nested, nil elements are false
		{`local r = redis.call('testreply', 'array') return {#r, r[1], r[2], tostring(r[3]), r[4][1].ok}`, `[(integer) 4 (integer) 1 "two" "false" "OK"]`},
		{`local r = redis.call('testreply', 'emptyarray') return {type(r), #r}`, `["table" (integer) 0]`},
		// RESP3 kinds as a RESP2 client sees them
		{`local r = redis.call('testreply', 'map') return {#r, r[1], r[2], r[3], tostring(r[4])}`, `[(integer) 4 "a" (integer) 1 "b" "false"]`},
		{`local r = redis.call('testreply', 'set') return {#r, r[1], r[2]}`, `[(integer) 2 "x" "y"]`},
		{`local r = redis.call('testreply', 'double') return {type(r), r}`, `["string" "3.5"]`},
		{`local r = redis.call('testreply', 'bool') return {r[1], r[2]}`, `[(integer) 1 (integer) 0]`},
		{`local r = redis.call('testreply', 'verbatim') return {type(r), r}`, `["string" "hello"]`},
		{`local r = redis.call('testreply', 'bignum') return {type(r), r}`, `["string" "1234567999999999999999999999999999999"]`},
	})
}

func TestRedisToLuaRESP3(t *testing.T) {
	ts := newTestService(t)
	testReplies(ts)
	ts.scripts([]scriptCase{
		{`redis.setresp(3) local r = redis.call('testreply', 'null') return r == nil`, `(integer) 1`},
		{`redis.setresp(3) local r = redis.call('testreply', 'map') return {r.map.a, r.map.b == nil}`, `[(integer) 1 (integer) 1]`},
		{`redis.setresp(3) local r = redis.call('testreply', 'set') return {r.set.x, r.set.y}`, `[(integer) 1 (integer) 1]`},
		{`redis.setresp(3) local r = redis.call('testreply', 'double') return {type(r), r.double * 2}`, `["table" (integer) 7]`},
		{`redis.setresp(3) local r = redis.call('testreply', 'bool') return {type(r[1]), tostring(r[1]), tostring(r[2])}`, `["boolean" "true" "false"]`},
		{`redis.setresp(3) local r = redis.call('testreply', 'verbatim') return {r.verbatim_string.format, r.verbatim_string.string}`, `["txt" "hello"]`},
		{`redis.setresp(3) local r = redis.call('testreply', 'bignum') return {type(r), r.big_number}`, `["table" "1234567999999999999999999999999999999"]`},
		// and back: the kinds survive a round trip through Lua
		{`redis.setresp(3) return redis.call('testreply', 'bignum')`, `(big number) 1234567999999999999999999999999999999`},
		{`redis.setresp(3) return redis.call('testreply', 'double')`, `3.5`},
		{`redis.setresp(3) return redis.call('testreply', 'map')`, `["a" (integer) 1]`},
		// true goes back as a RESP3 boolean (an integer for RESP2 callers)
		{`redis.setresp(3) return true`, `(integer) 1`},
		{`redis.setresp(3) return false`, `(integer) 0`},
		{`redis.setresp(5)`, "(error) ERR RESP version must be 2 or 3. script: " + sha(`redis.setresp(5)`) + ", on @user_script:1."},
	})
	// Every script starts with RESP2.
	ts.scripts([]scriptCase{{`return redis.call('testreply', 'null') == false`, `(integer) 1`}})
}

func TestLuaToRedis(t *testing.T) {
	ts := newTestService(t)
	ts.scripts([]scriptCase{
		{`return 3.99`, `(integer) 3`},
		{`return -3.99`, `(integer) -3`},
		{`return 0/0`, `(integer) -9223372036854775808`},
		{`return 1e300`, `(integer) -9223372036854775808`},
		{`return "text"`, `"text"`},
		{`return ""`, `""`},
		{`return true`, `(integer) 1`},
		{`return false`, `(nil)`},
		{`return nil`, `(nil)`},
		{``, `(nil)`},
		{`return {ok="fine"}`, `fine`},
		{`return {err="CODE failed"}`, `(error) CODE failed`},
		{`return {err="x", ok="y"}`, `(error) x`},
		{`return {ok=1}`, `[]`},
		{`return {1, "two", {3, {4}}, true, false}`, `[(integer) 1 "two" [(integer) 3 [(integer) 4]] (integer) 1 (nil)]`},
		{`return {1, 2, nil, 4}`, `[(integer) 1 (integer) 2]`},
		{`return {}`, `[]`},
		{`return {a=1}`, `[]`},
		{`return {double=2.5}`, `2.5`},
		{`return {big_number="123"}`, `(big number) 123`},
		// CR and LF become spaces, other bytes stay
		{`return {big_number="1\r\n2\255"}`, "(big number) 1  2\xff"},
		{`return {verbatim_string={format="txt", string="v"}}`, `"v"`},
		{`return {map={a=1}}`, `["a" (integer) 1]`},
		{`return {set={x=true}}`, `["x"]`},
		{`return function() end`, `(nil)`},
		{`return coroutine.create(function() end)`, `(nil)`},
		{`return redis.status_reply("PONG")`, `PONG`},
		{`return redis.error_reply("MY failure")`, `(error) MY failure`},
		{`return redis.error_reply("failure")`, `(error) ERR failure`},
		{`return redis.error_reply("-ERR x")`, `(error) ERR x`},
		{`return redis.error_reply(1)`, `(error) ERR wrong number or type of arguments`},
		{`return redis.status_reply()`, `(error) ERR wrong number or type of arguments`},
	})
	// A self-referencing table stops at a depth limit instead of looping.
	r := ts.eval(`local t = {} t[1] = t return t`, "0")
	depth := 0
	for r.Kind == engine.KindArray && len(r.Elems) == 1 {
		r = r.Elems[0]
		depth++
	}
	if r.Kind != engine.KindError || depth != maxReplyDepth {
		t.Errorf("cyclic table: depth %d, innermost %s", depth, r)
	}
}

func TestArgumentFormatting(t *testing.T) {
	ts := newTestService(t)
	for _, c := range []struct {
		expr, want string
	}{
		{"1724000000000", "1724000000000"},
		{"-300000", "-300000"},
		{"30000", "30000"},
		{"0.1", "0.10000000000000001"},
		{"3.5", "3.5"},
		{"1e20", "1e+20"},
		{"1e17", "1e+17"},
		{"2^53", "9007199254740992"},
		{"1/0", "inf"},
		{"-1/0", "-inf"},
		{"1e-5", "1.0000000000000001e-05"},
		{"'str'", "str"},
	} {
		script := "redis.call('set', 'k', " + c.expr + ") return redis.call('get', 'k')"
		if got := ts.eval(script, "0"); got.Str != c.want {
			t.Errorf("%s: got %s, want %q", c.expr, got, c.want)
		}
	}
	ts.scripts([]scriptCase{
		{`return redis.call('set', 'k', {})`, "(error) ERR Lua redis lib command arguments must be strings or integers script: " + sha(`return redis.call('set', 'k', {})`) + ", on @user_script:1."},
		{`return redis.pcall('set', 'k', true).err`, `"ERR Lua redis lib command arguments must be strings or integers"`},
		{`return redis.pcall('set', 'k', nil).err`, `"ERR Lua redis lib command arguments must be strings or integers"`},
		{`return redis.pcall().err`, `"ERR Please specify at least one argument for this redis lib call"`},
		// Empty strings are arguments too.
		{`redis.call('set', '', '') return redis.call('get', '')`, `""`},
	})
}

// TestSelfReferencingReply: a table that holds itself twice would be
// written 2^1000 times; the conversion stops at maxReplyTables tables
// and answers at once.
func TestSelfReferencingReply(t *testing.T) {
	ts := newTestService(t)
	ts.svc.replyTableLimit = 1000 // the default takes seconds to fill
	r := ts.eval("local t = {1} t[2] = t t[3] = t return t", "0")
	if r.Kind != engine.KindArray {
		t.Fatalf("got %v", r.Kind)
	}
	if !strings.Contains(r.String(), "too many tables") {
		t.Error("no error element past the table bound")
	}
}
