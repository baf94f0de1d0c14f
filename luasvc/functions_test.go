package luasvc

import (
	"fmt"
	"strings"
	"testing"
)

func TestLibraryMeta(t *testing.T) {
	cases := []struct {
		code               string
		engine, name, body string
		err                string
	}{
		{"#!lua name=lib\nbody", "lua", "lib", "\nbody", ""},
		{"#!LUA NAME=Lib \n", "LUA", "Lib", "\n", ""},
		{"#!lua name=\"a b\"\nx", "lua", "a b", "\nx", ""},
		{"#!lua 'name=q'\nx", "lua", "q", "\nx", ""},
		{"#! name=x\n", "", "x", "\n", ""},
		{"#!lua \vname=vt\n", "lua", "vt", "\n", ""},
		{"#!lua name=\"ff\"\f\n", "lua", "ff", "\n", ""},
		{"lua name=x\n", "", "", "", "Missing library metadata"},
		{"#!lua name=x", "", "", "", "Invalid library metadata"},
		{"#!lua name=x\x00y\n", "", "", "", "Invalid library metadata"},
		{"#!lua name=\"x\n", "", "", "", "Invalid library metadata"},
		{"#!lua name=\"x\"y\n", "", "", "", "Invalid library metadata"},
		{"#!lua\n", "", "", "", "Library name was not given"},
		{"#!lua name=a name=b\n", "", "", "", "Invalid metadata value, name argument was given multiple times"},
		{"#!lua foo=bar\n", "", "", "", "Invalid metadata value given: foo=bar"},
	}
	for _, c := range cases {
		e, n, b, err := libraryMeta(c.code)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("%q: err %v, want %q", c.code, err, c.err)
			}
			continue
		}
		if err != nil || e != c.engine || n != c.name || b != c.body {
			t.Errorf("%q: %q %q %q %v, want %q %q %q", c.code, e, n, b, err, c.engine, c.name, c.body)
		}
	}
}

func TestValidName(t *testing.T) {
	for name, want := range map[string]bool{
		"a": true, "A_9": true, "_": true, "": false, "a-b": false, "a b": false, "a\x00": false, "é": false,
	} {
		if validName(name) != want {
			t.Errorf("validName(%q) = %v", name, !want)
		}
	}
}

// TestFunctionCommands runs the commands on an engine without a server:
// the state kept between calls, the closures remade after the Lua state
// is rebuilt, INFO's counters.
func TestFunctionCommands(t *testing.T) {
	ts := newTestService(t)
	code := "#!lua name=lib\nlocal n = 0\nredis.register_function('cnt', function(keys, args) n = n + 1 return {n, #keys, #args} end)\nredis.register_function('Other', function() return 'o' end)"
	ts.run([]step{
		{cmd("FUNCTION", "LOAD", code), `"lib"`},
		{cmd("FCALL", "cnt", "1", "k", "a", "b"), `[(integer) 1 (integer) 1 (integer) 2]`},
		{cmd("FCALL", "CNT", "0"), `[(integer) 2 (integer) 0 (integer) 0]`},
		{cmd("FCALL_RO", "other", "0"), `(error) ERR Can not execute a script with write flag using *_ro command.`},
		{cmd("FCALL", "other", "0"), `"o"`},
	})
	// A rebuilt state (a script damaged it) reloads the libraries: their
	// upvalues start afresh.
	ts.svc.funcs.v.build()
	ts.run([]step{
		{cmd("FCALL", "cnt", "0"), `[(integer) 1 (integer) 0 (integer) 0]`},
		{cmd("FUNCTION", "STATS"), `["running_script" (nil) "engines" ["LUA" ["libraries_count" (integer) 1 "functions_count" (integer) 2]]]`},
	})
	info := ts.do("INFO", "memory").String()
	for _, want := range []string{"number_of_functions:2", "number_of_libraries:1", "used_memory_functions:"} {
		if !strings.Contains(info, want) {
			t.Errorf("INFO memory has no %s:\n%s", want, info)
		}
	}
	ts.run([]step{
		{cmd("FUNCTION", "FLUSH"), `OK`},
		{cmd("FCALL", "cnt", "0"), `(error) ERR Function not found`},
	})
}

// TestFunctionsConcurrent: FCALL_RO from several clients at once (shared
// transaction, one Lua state for functions) with FCALL and FUNCTION LOAD
// REPLACE in between: no deadlock, no race, every reply is one the
// library gives.
func TestFunctionsConcurrent(t *testing.T) {
	ts := newTestService(t)
	code := func(v string) string {
		return "#!lua name=lib\nredis.register_function{function_name='ro', callback=function(keys) return redis.call('get', keys[1]) end, flags={'no-writes'}}\n" +
			"redis.register_function('rw', function(keys, args) return redis.call('set', keys[1], '" + v + "') end)"
	}
	if got := ts.do("FUNCTION", "LOAD", code("a")).String(); got != `"lib"` {
		t.Fatal(got)
	}
	done := make(chan string, 8)
	for g := 0; g < 8; g++ {
		s := ts.newSession()
		go func(g int) {
			for i := 0; i < 200; i++ {
				var r string
				switch {
				case g == 0 && i%20 == 0:
					r = ts.doOn(s, "FUNCTION", "LOAD", "REPLACE", code(fmt.Sprint(i))).String()
					if r != `"lib"` {
						done <- "LOAD: " + r
						return
					}
				case g == 1:
					r = ts.doOn(s, "FCALL", "rw", "1", "k").String()
					if r != "OK" {
						done <- "FCALL rw: " + r
						return
					}
				default:
					r = ts.doOn(s, "FCALL_RO", "ro", "1", "k").String()
					if strings.HasPrefix(r, "(error)") {
						done <- "FCALL_RO ro: " + r
						return
					}
				}
			}
			done <- ""
		}(g)
	}
	for g := 0; g < 8; g++ {
		if msg := <-done; msg != "" {
			t.Error(msg)
		}
	}
}
