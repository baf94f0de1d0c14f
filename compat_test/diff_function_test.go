package compat

// Differential cases for Redis 7 functions (FUNCTION and FCALL), against
// redis-server, and the FUNCTION half of Redis's tests/unit/functions.tcl.
// FLUSHALL keeps functions, so every case starts with FUNCTION FLUSH.
// Redis lists and dumps libraries in hash-table order, which changes from
// run to run: cases that list or dump load one library, or compare as a
// multiset.

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/lockredis/lockredis"
)

// fload is FUNCTION LOAD of code (with REPLACE when replace is set).
func fload(code string, opts ...string) diffStep {
	a := append([]string{"FUNCTION", "LOAD"}, opts...)
	return args(append(a, code)...)
}

// lib is library code: the shebang for name, then the lines.
func lib(name string, lines ...string) string {
	return "#!lua name=" + name + "\n" + strings.Join(lines, "\n")
}

const flush = "FUNCTION FLUSH"

// Libraries used by several cases.
var (
	libTest = lib("test",
		"redis.register_function('test', function(KEYS, ARGV)",
		"  return redis.call('ping')",
		"end)")
	libKV = lib("kv",
		"redis.register_function('get', function(keys, args) return redis.call('get', keys[1]) end)",
		"redis.register_function('set', function(keys, args) return redis.call('set', keys[1], args[1]) end)",
		"redis.register_function{function_name='get_ro', callback=function(keys, args) return redis.call('get', keys[1]) end, flags={'no-writes'}}",
		"redis.register_function{function_name='set_ro', callback=function(keys, args) return redis.call('set', keys[1], args[1]) end, flags={'no-writes'}}",
		"redis.register_function{function_name='echo', description='gives back its keys and args', callback=function(keys, args) return {keys, args, #keys, #args} end, flags={'allow-oom', 'allow-stale', 'no-cluster', 'allow-cross-slot-keys', 'no-writes'}}",
	)
)

func TestDiffFunctionLoad(t *testing.T) {
	requireTool(t, "redis-server")
	runDiffCases(t, []diffCase{
		{name: "load-list-call", steps: steps(flush,
			fload(libTest),
			"FUNCTION LIST",
			"FUNCTION LIST WITHCODE",
			"FUNCTION LIST LIBRARYNAME te*",
			"FUNCTION LIST LIBRARYNAME TE*",
			"FUNCTION LIST LIBRARYNAME nomatch WITHCODE",
			"FUNCTION LIST WITHCODE LIBRARYNAME test",
			"FCALL test 0",
			"FCALL TEST 0",
			"FCALL_RO test 0",
			"FUNCTION STATS",
		)},
		{name: "flags-and-description", steps: steps(flush,
			fload(libKV),
			// Redis lists a library's functions in hash order.
			unordered("FUNCTION LIST"),
			"FCALL set 1 k v",
			"FCALL get 1 k",
			"FCALL_RO get_ro 1 k",
			"FCALL_RO get 1 k",
			"FCALL_RO set 1 k w",
			"FCALL set_ro 1 k w",
			"FCALL_RO set_ro 1 k w",
			"FCALL echo 2 a b c d",
			"FCALL echo 0",
			"FCALL echo 0 x",
			"FCALL_RO echo 1 x",
			"GET k",
		)},
		{name: "replace", steps: steps(flush,
			fload(libTest),
			fload(libTest),
			fload(lib("test", "redis.register_function('test', function() return 2 end)"), "REPLACE"),
			"FCALL test 0",
			fload(lib("test", "redis.register_function('test2', function() return 3 end)"), "replace", "REPLACE"),
			"FCALL test 0",
			"FCALL test2 0",
			"FUNCTION STATS",
		)},
		{name: "function-names-case-insensitive", steps: steps(flush,
			fload(lib("lib1", "redis.register_function('f1', function() return 1 end)")),
			fload(lib("lib2", "redis.register_function('F1', function() return 2 end)")),
			fload(lib("LIB1", "redis.register_function('f2', function() return 2 end)")),
			"FCALL F2 0",
			"FCALL f1 0",
			fload(lib("lib3", "redis.register_function('same', function() return 1 end)", "redis.register_function('SAME', function() return 2 end)")),
			// Which of same and SAME FCALL finds depends on Redis's hash
			// order; both count in FUNCTION STATS, once in INFO.
			unordered("FUNCTION LIST"),
			"FUNCTION DELETE lib1",
			"FUNCTION DELETE LIB1",
			"FUNCTION DELETE lib1",
			"FCALL f1 0",
			"FUNCTION STATS",
		)},
		{name: "metadata-errors", steps: steps(flush,
			fload("lua name=x\nreturn 1"),
			fload("#!lua name=x"),
			fload("#!lua\nreturn 1"),
			fload("#!lua name=x foo=bar\nreturn 1"),
			fload("#!lua name=x name=y\nreturn 1"),
			fload("#!lua NAME=x\nredis.register_function('f', function() return 1 end)"),
			fload("#!LUA name=y\nredis.register_function('g', function() return 1 end)"),
			fload("#!foo name=x\nreturn 1"),
			fload("#! name=x\nreturn 1"),
			fload("#!lua name=a-b\nreturn 1"),
			fload("#!lua name=\nreturn 1"),
			fload("#!lua name=\"x\nreturn 1"),
			fload("#!lua  name=q   \nredis.register_function('q', function() return 1 end)"),
			fload("#!lua \"name=qq\"\nredis.register_function('qq', function() return 1 end)"),
			fload("#!lua name=x\nreturn 1"),
			fload("#!lua name=x\n"),
			fload("#!lua name=crlf\r\nredis.register_function('crlf', function() return 1 end)"),
			fload("#!lua\tname=tab\nredis.register_function('tab', function() return 1 end)"),
			fload("#!lua name='sq'\nredis.register_function('sq', function() return 1 end)"),
			fload("#!lua name=\"a\\x41\"\nredis.register_function('hex', function() return 1 end)"),
			fload("#!lua name=\"x\"y\nreturn 1"),
			// isspace's \v and \f separate words, and may follow a closing quote.
			fload("#!lua \vname=vt\nredis.register_function('vt', function() return 1 end)"),
			fload("#!lua name=\"ff\"\f\nredis.register_function('ff', function() return 1 end)"),
			fload("#!lua name=ok\nredis.register_function{function_name='fl', callback=function() return 1 end, flags={}}\n"+
				"redis.register_function{function_name='dup', callback=function() return 1 end, flags={'no-writes', 'NO-WRITES'}}"),
			unordered("FUNCTION LIST"),
		)},
		{name: "load-arguments", steps: steps(flush,
			"FUNCTION LOAD",
			"FUNCTION LOAD REPLACE",
			"FUNCTION LOAD x y",
			"FUNCTION LOAD replace replace",
			"FUNCTION LOAD REPLACE x y",
			"FUNCTION",
			"FUNCTION bogus",
		)},
		{name: "compile-and-register-errors", steps: steps(flush,
			// gopher-lua's parser and runtime word some errors differently.
			diffStep{args: []string{"FUNCTION", "LOAD", lib("e", "redis.register_function('f', function() return 1 end")}, mode: modeErrPrefix},
			fload(lib("e", "local x = string.len('a')")),
			fload(lib("e", "redis.call('ping')")),
			fload(lib("e", "redis.pcall('ping')")),
			fload(lib("e", "redis.setresp(3)")),
			fload(lib("e", "error('boom')")),
			fload(lib("e", "return KEYS")),
			fload(lib("e", "x = 1")),
			fload(lib("e", "return 1")),
			diffStep{args: []string{"FUNCTION", "LOAD", lib("e", "local a = nil", "a.b = 1")}, mode: modeErrPrefix},
			fload(lib("e", "redis.register_function('f-1', function() return 1 end)")),
			fload(lib("e", "redis.register_function('', function() return 1 end)")),
			fload(lib("e", "redis.register_function('f', function() return 1 end)", "redis.register_function('f', function() return 1 end)")),
			fload(lib("e", "redis.register_function()")),
			fload(lib("e", "redis.register_function('a', 'b', 'c')")),
			fload(lib("e", "redis.register_function('f')")),
			fload(lib("e", "redis.register_function('f', 1)")),
			fload(lib("e", "redis.register_function({}, function() end)")),
			fload(lib("e", "redis.register_function(1, function() return 1 end)")),
			fload(lib("e", "redis.register_function('f')")),
			fload(lib("e", "redis.register_function{}")),
			fload(lib("e", "redis.register_function{function_name='f'}")),
			fload(lib("e", "redis.register_function{callback=function() end}")),
			fload(lib("e", "redis.register_function{function_name={}, callback=function() end}")),
			fload(lib("e", "redis.register_function{function_name='f', callback='x'}")),
			fload(lib("e", "redis.register_function{function_name='f', callback=function() end, flags='no-writes'}")),
			fload(lib("e", "redis.register_function{function_name='f', callback=function() end, flags={'bogus'}}")),
			fload(lib("e", "redis.register_function{function_name='f', callback=function() end, flags={1}}")),
			fload(lib("e", "redis.register_function{function_name='f', callback=function() end, flags={{}}}")),
			fload(lib("e", "redis.register_function{function_name='f', callback=function() end, description={}}")),
			fload(lib("e", "redis.register_function{function_name='f', callback=function() end, bogus=1}")),
			fload(lib("e", "redis.register_function{[1]='f'}")),
			fload(lib("e", "redis.register_function('f')")),
			fload(lib("e", "redis.register_function{function_name='F_ok1', callback=function() return 1 end, flags={'NO-WRITES', 'Allow-Oom'}, DESCRIPTION='d'}")),
			"FUNCTION LIST",
			"FCALL_RO f_ok1 0",
			fload(lib("e2", "redis.log(redis.LOG_NOTICE, 'loading')",
				"redis.register_function('v', function() return {redis.REDIS_VERSION, redis.REDIS_VERSION_NUM, redis.LOG_WARNING} end)")),
			"FCALL v 0",
			fload(lib("e3", "redis.register_function('e3', function() return 1 end)", "redis.register_function('f_ok1', function() return 1 end)")),
			"FCALL e3 0",
			fload(lib("e4", "redis.register_function('e4', function() return 1 end)", "error('late')")),
			"FCALL e4 0",
			"FUNCTION STATS",
		)},
		{name: "numkeys", steps: steps(flush,
			fload(libKV),
			"FCALL nosuch 0",
			"FCALL nosuch x",
			"FCALL get x",
			"FCALL get 3 a",
			"FCALL get -1",
			"FCALL get 1",
			"FCALL get 99999999999999999999 a",
			"FCALL get 1.5 a",
			"FCALL",
			"FCALL get",
			"FCALL_RO",
			"FCALL_RO get",
		)},
	})
}

func TestDiffFunctionRun(t *testing.T) {
	requireTool(t, "redis-server")
	runDiffCases(t, []diffCase{
		{name: "runtime-errors", steps: steps(flush,
			fload(lib("t",
				"redis.register_function('boom', function(keys, args) error('boom') end)",
				"redis.register_function('boomt', function(keys, args) error({err='MYERR custom'}) end)",
				"redis.register_function('nocmd', function(keys, args) return redis.call('nosuch') end)",
				"redis.register_function('pnocmd', function(keys, args) return redis.pcall('nosuch') end)",
				"redis.register_function('keysg', function(keys, args) return KEYS end)",
				"redis.register_function('argvg', function(keys, args) return ARGV end)",
				"redis.register_function('reg', function(keys, args) redis.register_function('zz', function() end) end)",
				"redis.register_function('glob', function(keys, args) x = 1 end)",
				"redis.register_function('wrongtype', function(keys, args) return redis.call('lpush', keys[1], 'a') end)",
				"redis.register_function('fcall', function(keys, args) return redis.call('fcall', 'boom', 0) end)",
				"redis.register_function('fload', function(keys, args) return redis.call('function', 'list') end)",
				"redis.register_function('eval', function(keys, args) return redis.call('eval', 'return 1', 0) end)",
				"redis.register_function('err_reply', function(keys, args) return redis.error_reply('MY bad') end)",
				"redis.register_function('status', function(keys, args) return redis.status_reply('FINE') end)",
			)),
			"FCALL boom 0",
			"FCALL boomt 0",
			"FCALL nocmd 0",
			"FCALL pnocmd 0",
			"FCALL keysg 0",
			"FCALL argvg 0",
			errPrefix("FCALL reg 0"),
			"FCALL glob 0",
			"SET s v",
			"FCALL wrongtype 1 s",
			"FCALL fcall 0",
			"FCALL fload 0",
			"FCALL eval 0",
			"FCALL err_reply 0",
			"FCALL status 0",
			"INFO errorstats",
		)},
		{name: "replies-resp", steps: steps(flush,
			fload(lib("r",
				"redis.register_function('types', function(keys, args) return {1, 'two', 3.7, true, false, {ok='OK'}, {err='ERR x'}, {1, {2}}} end)",
				"redis.register_function('resp3', function(keys, args) redis.setresp(3) return redis.call('hgetall', keys[1]) end)",
				"redis.register_function('resp3d', function(keys, args) redis.setresp(3) return {double=1.5} end)",
				"redis.register_function('map', function(keys, args) return {map={a=1}} end)",
				"redis.register_function('nil', function(keys, args) return nil end)",
			)),
			"HSET h a 1",
			"FCALL types 0",
			"FCALL resp3 1 h",
			"FCALL resp3d 0",
			"FCALL map 0",
			"FCALL nil 0",
		)},
		{name: "state-shared-between-calls", steps: steps(flush,
			fload(lib("c",
				"local n = 0",
				"local function bump() n = n + 1 return n end",
				"redis.register_function('cnt', function(keys, args) return bump() end)",
				"redis.register_function('cnt2', function(keys, args) return bump() * 10 end)",
			)),
			"FCALL cnt 0",
			"FCALL cnt 0",
			"FCALL cnt2 0",
			fload(lib("c", "local n = 100", "redis.register_function('cnt', function(keys, args) n = n + 1 return n end)"), "REPLACE"),
			"FCALL cnt 0",
			"FCALL cnt2 0",
		)},
		{name: "keys-and-args", steps: steps(flush,
			fload(lib("ka",
				"redis.register_function('ka', function(keys, args) return {#keys, #args, keys[1] or 'nil', args[1] or 'nil'} end)",
				"redis.register_function('mod', function(keys, args) keys[1] = 'changed' return keys end)",
				"redis.register_function('incr', function(keys, args) return redis.call('incrby', keys[1], args[1]) end)",
			)),
			"FCALL ka 0",
			"FCALL ka 1 a",
			"FCALL ka 1 a b c",
			"FCALL ka 0 a b c",
			"FCALL mod 1 a",
			"FCALL incr 1 n 5",
			"FCALL incr 1 n 5",
			"FCALL incr 1 n x",
			"GET n",
		)},
		{name: "multi", steps: steps(flush,
			fload(libKV),
			"MULTI",
			"FCALL set 1 k v",
			"FCALL get 1 k",
			"FCALL_RO get_ro 1 k",
			"FCALL nosuch 0",
			"EXEC",
			"MULTI",
			"FUNCTION DELETE kv",
			"FCALL get 1 k",
			"EXEC",
			"MULTI",
			fload(libTest),
			"FCALL test 0",
			"FUNCTION LIST LIBRARYNAME test",
			"FUNCTION STATS",
			"EXEC",
			"MULTI",
			"FCALL get",
			"EXEC",
		)},
		{name: "inside-eval", steps: steps(flush,
			fload(libTest),
			evalStep("return redis.call('fcall', 'test', 0)", nil),
			evalStep("return redis.pcall('fcall_ro', 'test', 0)", nil),
			evalStep("return redis.pcall('function', 'list')", nil),
			evalStep("return redis.pcall('function', 'flush')", nil),
			evalStep("return redis.pcall('function', 'stats')", nil),
			evalStep("return redis.pcall('function', 'load', 'x')", nil),
		)},
		{name: "flags-shebang-effect", steps: steps(flush,
			fload(lib("fl",
				"redis.register_function{function_name='ro', callback=function(keys, args) return redis.call('get', keys[1]) end, flags={'no-writes'}}",
				"redis.register_function{function_name='oom', callback=function(keys, args) return redis.call('set', keys[1], 'x') end, flags={'allow-oom'}}",
				"redis.register_function{function_name='rw', callback=function(keys, args) return redis.call('set', keys[1], 'x') end}",
			)),
			"SET big xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
			"CONFIG SET maxmemory 1",
			"FCALL ro 1 big",
			"FCALL_RO ro 1 big",
			"FCALL rw 1 k",
			"FCALL oom 1 k",
			"CONFIG SET maxmemory 0",
			"FCALL rw 1 k",
			"GET k",
		)},
	})
}

func TestDiffFunctionAdmin(t *testing.T) {
	requireTool(t, "redis-server")
	runDiffCases(t, []diffCase{
		{name: "delete-flush", steps: steps(flush,
			fload(libTest),
			"FUNCTION DELETE nosuch",
			"FUNCTION DELETE",
			"FUNCTION DELETE a b",
			"FUNCTION DELETE test",
			"FCALL test 0",
			"FUNCTION LIST",
			fload(libTest),
			"FUNCTION FLUSH SYNC",
			"FUNCTION LIST",
			fload(libTest),
			"FUNCTION FLUSH async",
			"FUNCTION FLUSH x",
			"FUNCTION FLUSH sync x",
			"FUNCTION STATS",
			fload(libTest),
			"FLUSHALL",
			"FCALL test 0",
			"DBSIZE",
			"KEYS *",
			"SCAN 0",
			"RANDOMKEY",
			"FUNCTION FLUSH",
		)},
		{name: "list-arguments", steps: steps(flush,
			"FUNCTION LIST x",
			"FUNCTION LIST LIBRARYNAME",
			"FUNCTION LIST WITHCODE WITHCODE",
			"FUNCTION LIST LIBRARYNAME a LIBRARYNAME b",
			"FUNCTION LIST withcode libraryname x",
			"FUNCTION LIST",
		)},
		{name: "help-stats-kill", steps: steps(flush,
			"FUNCTION HELP",
			"FUNCTION HELP x",
			"FUNCTION STATS",
			"FUNCTION STATS x",
			"FUNCTION KILL",
			"FUNCTION KILL x",
			"SCRIPT KILL",
			"FUNCTION DUMP x",
		)},
		{name: "dump-restore", steps: steps(flush,
			"FUNCTION DUMP",
			fload(libKV),
			"FUNCTION DUMP",
			"FUNCTION RESTORE x",
			"FUNCTION RESTORE x y z",
			"FUNCTION RESTORE",
			"FUNCTION RESTORE x bad",
			"FUNCTION RESTORE 0123456789",
		)},
		{name: "short-library-dump", steps: steps(flush,
			fload(lib("s", "redis.register_function('s', function() return 1 end)")),
			"FUNCTION DUMP",
			fload(lib("t", "redis.register_function('tt', function() return 1 end)")),
			unordered("FUNCTION LIST"),
		)},
		{name: "info", steps: steps(flush,
			fload(libKV),
			kind("INFO memory"),
			"FUNCTION STATS",
		)},
	})
}

// TestFunctionDumpCrossServer: FUNCTION DUMP gives the same bytes on both
// servers for the same library (short code stored raw, longer code LZF
// compressed, or raw when LZF saves too little), and a payload from one
// restores into the other.
func TestFunctionDumpCrossServer(t *testing.T) {
	requireTool(t, "redis-server")
	rc := dialRaw(t, startRedis(t))
	lc := dialRaw(t, startEmbedded(t, lockredis.Options{}).Addr())
	var codes []string
	// Repetitive and varied code: long matches (over 264 bytes), matches
	// of every length, literal runs over 32 bytes, offsets near 8 KB.
	body := []string{
		"redis.register_function('f', function() return 1 end)",
		"redis.register_function('f', function() return 'abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ' end)",
		"redis.register_function('f', function() return '" + strings.Repeat("a", 300) + "' end)",
		"redis.register_function('f', function() return '" + strings.Repeat("abcdefgh", 40) + "' end)",
	}
	for i := 0; i < 20; i++ {
		var sb strings.Builder
		for j := 0; j <= i; j++ {
			fmt.Fprintf(&sb, "local v%d = '%s'\n", j, strings.Repeat(string(rune('a'+j%26)), j*7%41))
		}
		sb.WriteString("redis.register_function('f', function() return v0 end)")
		body = append(body, sb.String())
	}
	var big strings.Builder
	for big.Len() < 9000 {
		fmt.Fprintf(&big, "-- %d %x %s\n", big.Len(), big.Len()*7919, strings.Repeat("z", big.Len()%13))
	}
	body = append(body, big.String()+"redis.register_function('f', function() return 1 end)")
	for _, b := range body {
		codes = append(codes, lib("d", b))
	}
	for i, code := range codes {
		for _, c := range []*rawConn{rc, lc} {
			c.do(t, "FUNCTION", "FLUSH")
			if r := c.do(t, "FUNCTION", "LOAD", code); r != "$1\r\nd\r\n" {
				t.Fatalf("code %d: FUNCTION LOAD: %q", i, r)
			}
		}
		want, got := rc.do(t, "FUNCTION", "DUMP"), lc.do(t, "FUNCTION", "DUMP")
		if want != got {
			t.Fatalf("code %d (%d bytes): FUNCTION DUMP\nredis:     %q\nlockredis: %q", i, len(code), want, got)
		}
	}

	// Several libraries: each server restores the other's payload.
	libs := []string{libTest, libKV, lib("third", "redis.register_function('third', function() return 3 end)")}
	dumps := map[*rawConn]string{}
	for _, c := range []*rawConn{rc, lc} {
		c.do(t, "FUNCTION", "FLUSH")
		for _, l := range libs {
			c.do(t, "FUNCTION", "LOAD", l)
		}
		d := c.do(t, "FUNCTION", "DUMP")
		dumps[c] = d[strings.Index(d, "\r\n")+2 : len(d)-2]
	}
	for _, pair := range [][2]*rawConn{{rc, lc}, {lc, rc}} {
		from, to := pair[0], pair[1]
		to.do(t, "FUNCTION", "FLUSH")
		if r := to.do(t, "FUNCTION", "RESTORE", dumps[from]); r != "+OK\r\n" {
			t.Fatalf("RESTORE: %q", r)
		}
		if r := to.do(t, "FUNCTION", "RESTORE", dumps[from]); r != "-ERR Library test already exists\r\n" &&
			r != "-ERR Library kv already exists\r\n" && r != "-ERR Library third already exists\r\n" {
			t.Fatalf("RESTORE again: %q", r)
		}
		if r := to.do(t, "FCALL", "third", "0"); r != ":3\r\n" {
			t.Fatalf("FCALL third: %q", r)
		}
		if r := to.do(t, "FUNCTION", "STATS"); !strings.Contains(r, "libraries_count\r\n:3\r\n") {
			t.Fatalf("FUNCTION STATS: %q", r)
		}
	}
}

// TestDiffFunctionRestorePolicies: RESTORE with FLUSH, APPEND and REPLACE
// of a one-library payload made by each server.
func TestDiffFunctionRestorePolicies(t *testing.T) {
	requireTool(t, "redis-server")
	// The payload of libTest alone (the same bytes on both servers: see
	// TestFunctionDumpCrossServer).
	rc := dialRaw(t, startRedis(t))
	rc.do(t, "FUNCTION", "LOAD", libTest)
	d := rc.do(t, "FUNCTION", "DUMP")
	payload := d[strings.Index(d, "\r\n")+2 : len(d)-2]
	corrupt := []byte(payload)
	corrupt[3] ^= 1
	newer := []byte(payload)
	newer[len(newer)-10] = 11
	runDiffCases(t, []diffCase{
		{name: "policies", steps: steps(flush,
			args("FUNCTION", "RESTORE", payload),
			"FCALL test 0",
			args("FUNCTION", "RESTORE", payload),
			args("FUNCTION", "RESTORE", payload, "APPEND"),
			args("FUNCTION", "RESTORE", payload, "replace"),
			args("FUNCTION", "RESTORE", payload, "FLUSH"),
			args("FUNCTION", "RESTORE", payload, "bogus"),
			args("FUNCTION", "RESTORE", payload, "FLUSH", "x"),
			args("FUNCTION", "RESTORE", string(corrupt)),
			args("FUNCTION", "RESTORE", string(newer)),
			"FUNCTION DELETE test",
			fload(lib("other", "redis.register_function('test', function() return 2 end)")),
			args("FUNCTION", "RESTORE", payload),
			args("FUNCTION", "RESTORE", payload, "REPLACE"),
			"FCALL test 0",
			args("FUNCTION", "RESTORE", payload, "FLUSH"),
			"FCALL test 0",
			"FUNCTION STATS",
			"MULTI",
			args("FUNCTION", "RESTORE", payload, "REPLACE"),
			"EXEC",
		)},
	})
}

// TestDiffBusyFunction: a function past busy-reply-threshold makes other
// clients get BUSY naming FUNCTION KILL; FUNCTION STATS shows it; SCRIPT
// KILL refuses to stop it, FUNCTION KILL does (functions.tcl's "FUNCTION -
// test function kill" and "test script kill not working on function").
func TestDiffBusyFunction(t *testing.T) {
	requireTool(t, "redis-server")
	busyLib := lib("busy",
		"redis.register_function('loop', function(keys, args) redis.call('get', 'k') while true do end end)",
		"redis.register_function{function_name='loop_ro', callback=function(keys, args) while true do end end, flags={'no-writes'}}",
	)
	scenarios := map[string][]gStep{
		"function-kill": {
			gdo(0, "FUNCTION", "FLUSH"),
			gdo(0, "CONFIG", "SET", "lua-time-limit", "10"),
			gdo(0, "FUNCTION", "LOAD", busyLib),
			gsend(1, "FCALL", "loop", "0"),
			gbusy(2, "PING"),
			gdo(2, "GET", "k"),
			gdo(2, "FCALL", "loop", "0"),
			gdo(2, "FUNCTION", "LIST"),
			gdo(2, "SCRIPT", "KILL"),
			gdo(2, "FUNCTION", "KILL"),
			gread(1),
			gok(2, "PING"),
			gdo(2, "FUNCTION", "KILL"),
		},
		"function-kill-ro": {
			gdo(0, "FUNCTION", "FLUSH"),
			gdo(0, "CONFIG", "SET", "lua-time-limit", "10"),
			gdo(0, "FUNCTION", "LOAD", busyLib),
			gsend(1, "FCALL_RO", "loop_ro", "0"),
			gbusy(2, "PING"),
			gdo(2, "FUNCTION", "KILL"),
			gread(1),
			gok(2, "PING"),
		},
		"function-kill-eval": {
			gdo(0, "FUNCTION", "FLUSH"),
			gdo(0, "CONFIG", "SET", "lua-time-limit", "10"),
			gsend(1, "EVAL", loop, "0"),
			gbusy(2, "PING"),
			gdo(2, "FUNCTION", "KILL"),
			gdo(2, "FUNCTION", "STATS"),
			gdo(2, "SCRIPT", "KILL"),
			gread(1),
			gok(2, "PING"),
		},
	}
	runScenarioDiff(t, scenarios, lockredis.Options{})
}

// TestFunctionStatsWhileBusy: FUNCTION STATS names the running function,
// its command and how long it runs (the duration differs between servers).
func TestFunctionStatsWhileBusy(t *testing.T) {
	requireTool(t, "redis-server")
	for _, addr := range []string{startRedis(t), startEmbedded(t, lockredis.Options{}).Addr()} {
		c0, c1 := dialRaw(t, addr), dialRaw(t, addr)
		c0.do(t, "CONFIG", "SET", "lua-time-limit", "10")
		c0.do(t, "FUNCTION", "LOAD", lib("busy", "redis.register_function{function_name='spin', callback=function() while true do end end, flags={'no-writes'}}"))
		if _, err := c1.c.Write(encodeCommand([]string{"FCALL", "spin", "1", "key", "arg"})); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for !strings.HasPrefix(c0.do(t, "PING"), "-BUSY") {
			if time.Now().After(deadline) {
				t.Fatalf("%s: never busy", addr)
			}
			time.Sleep(2 * time.Millisecond)
		}
		stats := c0.do(t, "FUNCTION", "STATS")
		want := "*4\r\n$14\r\nrunning_script\r\n*6\r\n$4\r\nname\r\n$4\r\nspin\r\n$7\r\ncommand\r\n*5\r\n$5\r\nFCALL\r\n$4\r\nspin\r\n$1\r\n1\r\n$3\r\nkey\r\n$3\r\narg\r\n$11\r\nduration_ms\r\n:"
		if !strings.HasPrefix(stats, want) || !strings.HasSuffix(stats, "\r\n$7\r\nengines\r\n*2\r\n$3\r\nLUA\r\n*4\r\n$15\r\nlibraries_count\r\n:1\r\n$15\r\nfunctions_count\r\n:1\r\n") {
			t.Fatalf("%s: FUNCTION STATS = %q", addr, stats)
		}
		if r := c0.do(t, "FUNCTION", "KILL"); r != "+OK\r\n" {
			t.Fatalf("%s: FUNCTION KILL = %q", addr, r)
		}
		c1.c.SetDeadline(time.Now().Add(replyTimeout))
		if r, err := readReply(c1.r); err != nil || !strings.HasPrefix(string(r), "-ERR Script killed by user with SCRIPT KILL...") {
			t.Fatalf("%s: killed FCALL = %q, %v", addr, r, err)
		}
	}
}

// TestFunctionsSurviveRestart: with appendonly, loaded libraries come back
// after kill -9 (they are stored in the AOF with the keys); FLUSHALL keeps
// them, FUNCTION FLUSH and DELETE are persisted too, and they stay out of
// the keyspace.
func TestFunctionsSurviveRestart(t *testing.T) {
	n := newNode(t, "", "--appendonly", "yes", "--appendfsync", "always")
	n.start()
	c := dialRaw(t, n.addr())
	for _, l := range []string{libTest, libKV} {
		if r := c.do(t, "FUNCTION", "LOAD", l); r[0] != '$' {
			t.Fatalf("FUNCTION LOAD: %q", r)
		}
	}
	c.do(t, "FCALL", "set", "1", "k", "v")
	c.do(t, "FLUSHALL")
	c.do(t, "FCALL", "set", "1", "k", "v")
	want := c.do(t, "FUNCTION", "DUMP")
	n.kill9()
	n.start()
	c = dialRaw(t, n.addr())
	if got := c.do(t, "FUNCTION", "DUMP"); got != want {
		t.Fatalf("FUNCTION DUMP after restart:\n%q\nwant %q", got, want)
	}
	for _, st := range []struct{ cmd, want string }{
		{"FCALL get 1 k", "$1\r\nv\r\n"},
		{"FCALL test 0", "+PONG\r\n"},
		{"DBSIZE", ":1\r\n"},
		{"KEYS *", "*1\r\n$1\r\nk\r\n"},
		{"BGREWRITEAOF", "+Background append only file rewriting started\r\n"},
		{"FUNCTION DELETE kv", "+OK\r\n"},
	} {
		if got := c.do(t, strings.Fields(st.cmd)...); got != st.want {
			t.Errorf("%s = %q, want %q", st.cmd, got, st.want)
		}
	}
	time.Sleep(200 * time.Millisecond) // the rewrite
	n.kill9()
	n.start()
	c = dialRaw(t, n.addr())
	if got := c.do(t, "FUNCTION", "LIST"); !strings.Contains(got, "test") || strings.Contains(got, "kv") {
		t.Fatalf("FUNCTION LIST after DELETE and restart: %q", got)
	}
	c.do(t, "FUNCTION", "FLUSH")
	n.kill9()
	n.start()
	c = dialRaw(t, n.addr())
	if got := c.do(t, "FUNCTION", "LIST"); got != "*0\r\n" {
		t.Fatalf("FUNCTION LIST after FLUSH and restart: %q", got)
	}
}

// TestDiffMonitorFunctions: MONITOR shows FCALL before the commands its
// function runs, and the FUNCTION subcommands, as Redis does.
func TestDiffMonitorFunctions(t *testing.T) {
	requireTool(t, "redis-server")
	p := newDiffPair(t, "")
	cmds := [][]string{
		{"FUNCTION", "FLUSH"},
		{"FUNCTION", "LOAD", libKV},
		{"FCALL", "set", "1", "k", "v"},
		{"FCALL_RO", "get_ro", "1", "k"},
		{"FCALL", "nosuch", "0"},
		{"FCALL", "get", "x"},
		{"FUNCTION", "LIST", "LIBRARYNAME", "nomatch"},
		{"FUNCTION", "DELETE", "kv"},
		{"ECHO", "end"},
	}
	diffMonitor(t, p, cmds, nil, nil)
}

// TestFunctionKillAfterWrite: where Redis answers UNKILLABLE to FUNCTION
// KILL of a function that wrote, lockredis stops it and rolls its writes
// back, as SCRIPT KILL does for scripts.
func TestFunctionKillAfterWrite(t *testing.T) {
	addr := startEmbedded(t, lockredis.Options{}).Addr()
	c0, c1 := dialRaw(t, addr), dialRaw(t, addr)
	c0.do(t, "CONFIG", "SET", "lua-time-limit", "10")
	c0.do(t, "FUNCTION", "LOAD", lib("w", "redis.register_function('w', function(keys)", "redis.call('set', keys[1], 'x')", "while true do end", "end)"))
	if _, err := c1.c.Write(encodeCommand([]string{"FCALL", "w", "1", "k"})); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		r := c0.do(t, "PING")
		if r == "-BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.\r\n" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("never busy: %q", r)
		}
		time.Sleep(2 * time.Millisecond)
	}
	if r := c0.do(t, "FUNCTION", "KILL"); r != "+OK\r\n" {
		t.Fatalf("FUNCTION KILL = %q", r)
	}
	c1.c.SetDeadline(time.Now().Add(replyTimeout))
	r, err := readReply(c1.r)
	want := "-ERR Script killed by user with SCRIPT KILL... Its writes were rolled back. script: w, on @user_function:4.\r\n"
	if err != nil || string(r) != want {
		t.Fatalf("FCALL = %q, %v; want %q", r, err, want)
	}
	if r := c0.do(t, "EXISTS", "k"); r != ":0\r\n" {
		t.Fatalf("EXISTS k after the kill = %q", r)
	}
}
