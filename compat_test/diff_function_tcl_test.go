package compat

// The FUNCTION half of Redis 7.0's tests/unit/functions.tcl, ported as
// differential cases: each Tcl test becomes a case (with the state the
// earlier tests left, rebuilt in its first steps), compared byte for byte
// with redis-server instead of matched against Tcl patterns.
//
// Skipped, because lockredis has no such machinery:
//   - "test loading from rdb", "test debug reload different options",
//     "test debug reload with nosave and noflush", "function stats
//     reloaded correctly from rdb": DEBUG RELOAD (RDB).
//   - the "scripting repl" block (creation, call, restore, delete, flush
//     replicated to a replica, rdb phase, read-only replica) and "can
//     processes create, delete and flush commands in AOF when doing debug
//     loadaof in read-only slaves": replication.
//   - "allow stale": REPLICAOF.
// Elsewhere: "test function kill", "test script kill not working on
// function" and "test function kill not working on eval" need a second
// client while a function runs: TestDiffBusyFunction and
// TestFunctionStatsWhileBusy (diff_function_test.go). Persistence across a
// restart, which the Tcl suite tests with DEBUG RELOAD, is
// TestFunctionsSurviveRestart.

import (
	"strings"
	"testing"
)

// tclCode is functions.tcl's get_function_code.
func tclCode(engine, lib, fn, body string) string {
	return "#!" + engine + " name=" + lib + "\nredis.register_function('" + fn + "', function(KEYS, ARGV)\n " + body + " \nend)"
}

// tclNoWrites is get_no_writes_function_code.
func tclNoWrites(engine, lib, fn, body string) string {
	return "#!" + engine + " name=" + lib + "\nredis.register_function{function_name='" + fn + "', callback=function(KEYS, ARGV)\n " + body + " \nend, flags={'no-writes'}}"
}

func TestDiffFunctionTcl(t *testing.T) {
	requireTool(t, "redis-server")
	hello := tclCode("LUA", "test", "test", "return 'hello'")
	hello1 := tclCode("LUA", "test", "test", "return 'hello1'")
	spin := tclCode("lua", "test", "test", "local a = 1 while true do a = a + 1 end")
	lib1 := `#!lua name=lib1
            local function add1(a)
                return a + 1
            end
            redis.register_function(
                'f1',
                function(keys, args)
                    return add1(1)
                end
            )
            redis.register_function(
                'f2',
                function(keys, args)
                    return add1(2)
                end
            )
        `
	restoreLib1 := `#!lua name=lib1
            local function add1(a)
                return a + 1
            end
            redis.register_function('f1', function(keys, args) return add1(1) end)
            redis.register_function('f2', function(keys, args) return add1(2) end)
            redis.register_function('f3', function(keys, args) return add1(3) end)
        `
	rc := dialRaw(t, startRedis(t))
	tclPayloadHello := dumpOf(t, rc, tclCode("lua", "test", "test", "return 'hello'"))
	tclPayloadLib1 := dumpOf(t, rc, restoreLib1)
	runDiffCases(t, []diffCase{
		{name: "basic-usage", steps: steps(flush, fload(hello), "FCALL test 0")},
		{name: "load-with-unknown-argument", steps: steps(flush, fload(hello, "foo", "bar"))},
		{name: "create-existing-library", steps: steps(flush, fload(hello), fload(hello1), fload(tclCode("LUA", "TEST", "test", "return 'x'")))},
		{name: "library-wrong-name-format", steps: steps(flush, fload(tclCode("LUA", "bad\x00foramat", "test", "return 'hello1'")))},
		{name: "unexisting-engine", steps: steps(flush, fload(tclCode("bad_engine", "test", "test", "return 'hello1'")))},
		{name: "uncompiled-script", steps: steps(flush,
			diffStep{args: []string{"FUNCTION", "LOAD", "replace", tclCode("LUA", "test", "test", "bad script")}, mode: modeErrPrefix})},
		{name: "replace-argument-and-case", steps: steps(flush, fload(hello), fload(hello1, "REPLACE"), "FCALL test 0", "FCALL TEST 0")},
		{name: "replace-failure-keeps-old", steps: steps(flush, fload(hello1),
			"FUNCTION CREATE LUA test REPLACE error",
			fload(tclCode("LUA", "test", "test", "return 1")+"\nerror('x')", "REPLACE"),
			"FCALL test 0")},
		{name: "delete", steps: steps(flush, fload(hello), "FUNCTION DELETE test", "FCALL test 0")},
		{name: "fcall-bad-arguments", steps: steps(flush, fload(hello),
			"FCALL test bad_arg", "FCALL test 10 key1", "FCALL test -1 key1",
			"FUNCTION DELETE test1", "FUNCTION KILL", "FUNCTION bad_subcommand")},
		{name: "flushall-flushdb-keep-functions", steps: steps(flush,
			fload(tclCode("lua", "test", "test", "return redis.call('set', 'x', '1')"), "REPLACE"),
			"FLUSHALL", "FLUSHDB", "FUNCTION LIST")},
		{name: "dump-and-restore", steps: steps(flush,
			fload(tclCode("lua", "test", "test", "return 'hello'")),
			"FUNCTION DUMP",
			"FUNCTION DELETE test",
			"FUNCTION LIST",
			args("FUNCTION", "RESTORE", tclPayloadHello),
			"FUNCTION LIST",
			"FUNCTION FLUSH",
			args("FUNCTION", "RESTORE", tclPayloadHello, "FLUSH"),
			"FUNCTION LIST",
		)},
		{name: "dump-and-restore-append", steps: steps(flush,
			fload(tclCode("lua", "test", "test", "return 'hello1'")),
			args("FUNCTION", "RESTORE", tclPayloadHello, "APPEND"),
			"FUNCTION FLUSH",
			fload(tclCode("lua", "test1", "test1", "return 'hello1'")),
			args("FUNCTION", "RESTORE", tclPayloadHello, "APPEND"),
			"FCALL test 0",
			"FCALL test1 0",
		)},
		{name: "dump-and-restore-replace", steps: steps(flush,
			fload(tclCode("lua", "test", "test", "return 'hello1'")),
			"FCALL test 0",
			args("FUNCTION", "RESTORE", tclPayloadHello, "REPLACE"),
			"FCALL test 0",
		)},
		{name: "restore-bad-payload-keeps-functions", steps: steps(flush,
			fload(hello), "FUNCTION RESTORE bad_payload", "FUNCTION LIST",
			"FUNCTION RESTORE arg1 args2 arg3")},
		{name: "fcall-ro", steps: steps(flush,
			fload(tclNoWrites("lua", "test", "test", "return redis.call('set', 'x', '1')"), "REPLACE"),
			"FCALL_RO test 0",
			fload(tclNoWrites("lua", "test", "test", "return redis.call('get', 'x')"), "REPLACE"),
			"SET x 1",
			"FCALL_RO test 0",
		)},
		{name: "keys-and-argv", steps: steps(flush,
			fload(tclCode("lua", "test", "test", "return redis.call('set', KEYS[1], ARGV[1])"), "REPLACE"),
			"FCALL test 1 x foo",
			"GET x",
			"COMMAND GETKEYS fcall test 1 x foo",
			"COMMAND GETKEYS fcall_ro test 1 x foo",
		)},
		{name: "function-flush", steps: steps(flush,
			fload(spin, "REPLACE"), "FUNCTION LIST", "FUNCTION FLUSH", "FUNCTION LIST",
			fload(spin, "REPLACE"), "FUNCTION FLUSH async", "FUNCTION LIST",
			fload(spin, "REPLACE"), "FUNCTION FLUSH sync", "FUNCTION LIST",
			"FUNCTION FLUSH bad_arg", "FUNCTION FLUSH sync extra_arg",
		)},
		{name: "shared-function-default-globals", steps: steps(flush, fload(`#!lua name=lib1
            local function ping()
                return redis.call('ping')
            end
            redis.register_function(
                'f1',
                function(keys, args)
                    return ping()
                end
            )
        `), "FCALL f1 0")},
		{name: "usage-and-code-sharing", steps: steps(flush, fload(lib1), "FCALL f1 0", "FCALL f2 0", unordered("FUNCTION LIST"))},
		{name: "registration-failure-reverts-load", steps: steps(flush, fload(lib1),
			fload(`#!lua name=lib1
                local function add1(a)
                    return a + 2
                end
                redis.register_function(
                    'f1',
                    function(keys, args)
                        return add1(1)
                    end
                )
                redis.register_function(
                    'f2',
                    'not a function'
                )
            `, "replace"),
			"FCALL f1 0", "FCALL f2 0",
			fload(`#!lua name=lib2
                redis.register_function(
                    'f1',
                    function(keys, args)
                        return 1
                    end
                )
            `, "replace"),
			"FCALL f1 0", "FCALL f2 0",
			fload(`#!lua name=lib2
                redis.register_function('f1', function(keys, args) return 1 end)
                redis.register_function('f1', function(keys, args) return 1 end)
            `, "replace"),
		)},
		{name: "registration-argument-errors", steps: steps(flush,
			fload("#!lua name=lib2\n                redis.register_function()\n            ", "replace"),
			fload("#!lua name=lib2\n                redis.register_function('f1')\n            ", "replace"),
			fload("#!lua name=lib2\n                redis.register_function('f1', function() return 1 end, {}, 'description', 'extra arg')\n            ", "replace"),
			fload("#!lua name=lib2\n                redis.register_function(nil, function() return 1 end)\n            ", "replace"),
			fload("#!lua name=lib2\n                redis.register_function('test\\0test', function() return 1 end)\n            ", "replace"),
			fload("#!lua name=lib2\n                redis.register_function('', function() return 1 end)\n            ", "replace"),
			fload("#!lua name=lib2\n                return math.random()\n            ", "replace"),
			fload("#!lua name=lib2\n                return redis.call('ping')\n            ", "replace"),
			fload("#!lua name=lib2\n                return redis.setresp(3)\n            ", "replace"),
			fload("#!lua name=lib2\n                return redis.set_repl(redis.REPL_NONE)\n            ", "replace"),
		)},
		{name: "malicious-access", steps: steps(flush,
			fload(`#!lua name=lib1
            local lib = redis
            lib.register_function('f1', function ()
                lib.redis = redis
                lib.math = math
                return {ok='OK'}
            end)

            lib.register_function('f2', function ()
                lib.register_function('f1', function ()
                    lib.redis = redis
                    lib.math = math
                    return {ok='OK'}
                end)
            end)
        `, "replace"),
			"FCALL f1 0",
			fload("#!lua name=lib2\n            redis.math.random()\n        "),
			fload("#!lua name=lib2\n            redis.redis.call('ping')\n        "),
			"FCALL f2 0",
			"FUNCTION DELETE lib1",
			"FUNCTION LIST",
		)},
		{name: "register-function-inside-a-function", steps: steps(flush,
			fload(`#!lua name=lib
            redis.register_function(
                'f1',
                function(keys, args)
                    redis.register_function(
                        'f2',
                        function(key, args)
                            return 2
                        end
                    )
                    return 1
                end
            )
        `),
			// gopher-lua does not name the field in "attempt to call".
			errPrefix("FCALL f1 0"),
		)},
		{name: "no-functions-timeout-global-protection", steps: steps(flush,
			fload("#!lua name=lib\n                return 1\n            "),
			fload("#!lua name=lib\n                local a = 1\n                while 1 do a = a + 1 end\n            "),
			fload("#!lua name=lib\n                a = 1\n            "),
		)},
		{name: "named-arguments", steps: steps(flush,
			fload(`#!lua name=lib
            redis.register_function{
                function_name='f1',
                callback=function()
                    return 'hello'
                end,
                description='some desc'
            }
        `),
			"FUNCTION LIST",
			fload("#!lua name=lib\n redis.register_function{function_name=function() return 1 end, callback=function() return 'hello' end, description='some desc'}", "replace"),
			fload("#!lua name=lib\n redis.register_function{function_name='f1', callback='bad', description='some desc'}", "replace"),
			fload("#!lua name=lib\n redis.register_function{function_name='f1', callback=function() return 'hello' end, description=function() return 1 end}", "replace"),
			fload("#!lua name=lib\n redis.register_function{function_name='f1', callback=function() return 'hello' end, description='desc', some_unknown='unknown'}", "replace"),
			fload("#!lua name=lib\n redis.register_function{callback=function() return 'hello' end, description='desc'}", "replace"),
			fload("#!lua name=lib\n redis.register_function{function_name='f1', description='desc'}", "replace"),
		)},
		{name: "restore-function-name-collision", steps: steps(flush,
			fload(restoreLib1),
			"FUNCTION FLUSH",
			fload(`#!lua name=lib1
            redis.register_function('f6', function(keys, args) return 7 end)
        `),
			fload(`#!lua name=lib2
            local function add1(a)
                return a + 1
            end
            redis.register_function('f4', function(keys, args) return add1(4) end)
            redis.register_function('f5', function(keys, args) return add1(5) end)
            redis.register_function('f3', function(keys, args) return add1(3) end)
        `),
			args("FUNCTION", "RESTORE", tclPayloadLib1),
			"FCALL f3 0", "FCALL f4 0", "FCALL f5 0", "FCALL f6 0",
			args("FUNCTION", "RESTORE", tclPayloadLib1, "replace"),
			"FCALL f3 0", "FCALL f4 0", "FCALL f5 0", "FCALL f6 0",
		)},
		{name: "list-with-code-and-pattern", steps: steps(flush,
			fload("#!lua name=library1\n            redis.register_function('f6', function(keys, args) return 7 end)\n        "),
			"FUNCTION LIST WITHCODE",
			fload("#!lua name=lib1\n            redis.register_function('f7', function(keys, args) return 7 end)\n        "),
			"FUNCTION LIST LIBRARYNAME library*",
			"FUNCTION LIST bad_argument",
			"FUNCTION LIST libraryname",
			"FUNCTION LIST withcode withcode",
			"FUNCTION LIST withcode libraryname foo libraryname foo",
		)},
		{name: "oom-on-load-and-restore", steps: steps(flush,
			"SET filler xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
			"CONFIG SET maxmemory 1",
			fload("#!lua name=test\n            redis.register_function('f1', function() return 1 end)\n        ", "replace"),
			args("FUNCTION", "RESTORE", tclPayloadHello),
			"CONFIG SET maxmemory 0",
		)},
		{name: "allow-oom-runs-any-command", steps: steps(flush,
			"SET filler xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
			fload("#!lua name=f1\n redis.register_function{function_name='f1', callback=function() return redis.call('set', 'x', '1') end, flags={'allow-oom'}}", "replace"),
			"CONFIG SET maxmemory 1",
			"FCALL f1 1 x",
			"GET x",
			"CONFIG SET maxmemory 0",
		)},
		{name: "flags-errors-and-effects", steps: steps(flush,
			fload("#!lua name=test\n redis.register_function{function_name = 'f1', callback = function() return 1 end, flags = 'bad flags type'}", "replace"),
			fload("#!lua name=test\n redis.register_function{function_name = 'f1', callback = function() return 1 end, flags = {function() return 1 end}}", "replace"),
			fload("#!lua name=test\n redis.register_function{function_name = 'f1', callback = function() return 1 end, flags = {'unknown'}}", "replace"),
			fload("#!lua name=test\n redis.register_function{function_name = 'f1', callback = function() return redis.call('set', 'x', 1) end}", "replace"),
			"FCALL_RO f1 0",
			fload("#!lua name=test\n redis.register_function{function_name = 'f1', callback = function() return redis.call('set', 'x', 1) end, flags = {'no-writes'}}", "replace"),
			"FCALL f1 0",
		)},
		{name: "deny-oom", steps: steps(flush,
			"SET filler xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
			fload("#!lua name=test\n            redis.register_function('f1', function() return redis.call('set', 'x', '1') end) \n        ", "replace"),
			"CONFIG SET maxmemory 1",
			"FCALL f1 1 k",
			"CONFIG SET maxmemory 0",
			fload("#!lua name=test\n redis.register_function{function_name='f1', callback=function() return 'hello' end, flags={'no-writes'}}", "replace"),
			"CONFIG SET maxmemory 1",
			"FCALL f1 1 k",
			"FCALL_RO f1 1 k",
			"CONFIG SET maxmemory 0",
		)},
		{name: "redis-version-api", steps: steps(flush,
			fload(`#!lua name=test
            local version = redis.REDIS_VERSION_NUM

            redis.register_function{function_name='get_version_v1', callback=function()
              return string.format('%s.%s.%s',
                                    bit.band(bit.rshift(version, 16), 0x000000ff),
                                    bit.band(bit.rshift(version, 8), 0x000000ff),
                                    bit.band(version, 0x000000ff))
            end}
            redis.register_function{function_name='get_version_v2', callback=function() return redis.REDIS_VERSION end}
        `, "replace"),
			"FCALL f1 0",
			"FCALL get_version_v1 0",
			"FCALL get_version_v2 0",
		)},
		{name: "function-stats", steps: steps(flush,
			fload("#!lua name=test1\n redis.register_function('f1', function() return 1 end)\n redis.register_function('f2', function() return 1 end)\n"),
			fload("#!lua name=test2\n redis.register_function('f3', function() return 1 end)\n"),
			"FUNCTION STATS",
			"FUNCTION DELETE test1",
			"FUNCTION STATS",
			"FUNCTION FLUSH",
			fload("#!lua name=test1\n redis.register_function('f1', function() return 1 end)\n redis.register_function('f2', function() return 1 end)\n"),
			fload("#!lua name=test1\n redis.register_function('f3', function() return 1 end)\n"),
			"FUNCTION STATS",
			"FUNCTION FLUSH",
			"FUNCTION STATS",
		)},
		{name: "metadata", steps: steps(flush,
			fload("#! name=test\n            redis.register_function('foo', function() return 1 end)\n        ", "replace"),
			fload("#!lua name=test foo=bar\n            redis.register_function('foo', function() return 1 end)\n        ", "replace"),
			fload("#!lua\n            redis.register_function('foo', function() return 1 end)\n        ", "replace"),
			fload("#!lua name=foo name=bar\n            redis.register_function('foo', function() return 1 end)\n        ", "replace"),
			fload("#!lua name=\"foo\"\n            redis.register_function('foo', function() return 1 end)\n        ", "replace"),
		)},
		{name: "trick-global-protection", steps: steps(flush,
			fload(`#!lua name=test1
            redis.register_function('f1', function() 
                mt = getmetatable(_G)
                original_globals = mt.__index
                original_globals['redis'] = function() return 1 end
            end)
        `),
			"FCALL f1 0",
			fload(`#!lua name=test2
            redis.register_function('f2', function() 
                local mt = getmetatable(_G)
                local original_globals = mt.__index
                original_globals['redis'] = function() return 1 end
            end)
        `),
			errPrefix("FCALL f2 0"), // gopher-lua does not name the local
			"FUNCTION FLUSH",
			fload("#!lua name=test1\n                mt = getmetatable(_G)\n            "),
		)},
	})
}

// dumpOf is FUNCTION DUMP of the library code alone, made by a
// redis-server (lockredis makes the same bytes: see
// TestFunctionDumpCrossServer).
func dumpOf(t *testing.T, c *rawConn, code string) string {
	c.do(t, "FUNCTION", "FLUSH")
	if r := c.do(t, "FUNCTION", "LOAD", code); r[0] != '$' {
		t.Fatalf("FUNCTION LOAD: %q", r)
	}
	d := c.do(t, "FUNCTION", "DUMP")
	return d[strings.Index(d, "\r\n")+2 : len(d)-2]
}
