package luasvc

import (
	"bytes"
	"fmt"
	"math/rand"
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

// TestRedisCRC64 checks the check value of Redis's crc64 (crc64.c).
func TestRedisCRC64(t *testing.T) {
	if got := redisCRC64(0, []byte("123456789")); got != 0xe9c6d914c4b8d9ca {
		t.Fatalf("crc64 = %x", got)
	}
}

func TestLZFRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	inputs := []string{
		strings.Repeat("a", 300),
		strings.Repeat("abcdefgh", 1000),
		"#!lua name=x\nredis.register_function('f', function() return 1 end)",
	}
	for i := 0; i < 200; i++ {
		b := make([]byte, 21+rng.Intn(20000))
		alpha := 2 + rng.Intn(40)
		for j := range b {
			b[j] = byte('a' + rng.Intn(alpha))
		}
		inputs = append(inputs, string(b))
	}
	for _, in := range inputs {
		c := lzfCompress([]byte(in), len(in)-4)
		if c == nil {
			continue // does not save enough: stored raw
		}
		out, ok := lzfDecompress(c, uint64(len(in)))
		if !ok || !bytes.Equal(out, []byte(in)) {
			t.Fatalf("round trip of %d bytes failed", len(in))
		}
	}
	if _, ok := lzfDecompress([]byte{0xe0}, 10); ok {
		t.Error("truncated back reference accepted")
	}
	if _, ok := lzfDecompress([]byte{0x20, 0x05}, 10); ok {
		t.Error("back reference before the start accepted")
	}
}

func TestRDBStrings(t *testing.T) {
	for _, n := range []int{0, 1, 20, 63, 64, 16383, 16384, 70000} {
		s := strings.Repeat("x", n)
		if n > 0 {
			s = fmt.Sprint(n) + s // not compressible to nothing
		}
		r := &rdbReader{b: appendRDBString(nil, s)}
		got, err := r.str()
		if err != nil || got != s || r.pos != len(r.b) {
			t.Errorf("%d bytes: %d bytes back, %v", n, len(got), err)
		}
	}
	for _, c := range []struct {
		enc  []byte
		want string
	}{
		{[]byte{0xc0, 0xfe}, "-2"},
		{[]byte{0xc1, 0x39, 0x30}, "12345"},
		{[]byte{0xc2, 0x15, 0xcd, 0x5b, 0x07}, "123456789"},
	} {
		r := &rdbReader{b: c.enc}
		if got, err := r.str(); err != nil || got != c.want {
			t.Errorf("%x: %q %v, want %q", c.enc, got, err, c.want)
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
