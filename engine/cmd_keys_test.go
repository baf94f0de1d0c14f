package engine

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// The expected replies below were produced by redis-server 7.0.15 (see
// strings_test.go); where Redis orders keys by hash, the engine's key order
// is used and the same set of keys was checked.

// TestDelExistsTypeRandomKey: DEL/UNLINK count each key once, EXISTS/TOUCH count repeats, TYPE, RANDOMKEY.
func TestDelExistsTypeRandomKey(t *testing.T) {
	te := newTypesTestEngine(t)
	te.run([]step{
		{cmd("SET", "a", "1"), `OK`},
		{cmd("SET", "b", "2"), `OK`},
		{cmd("DEL", "a", "a", "b", "c"), `(integer) 2`},
		{cmd("DEL"), `(error) ERR wrong number of arguments for 'del' command`},
		{cmd("SET", "a", "1"), `OK`},
		{cmd("UNLINK", "a", "a", "x"), `(integer) 1`},
		{cmd("UNLINK"), `(error) ERR wrong number of arguments for 'unlink' command`},
		{cmd("SET", "a", "1"), `OK`},
		{cmd("EXISTS", "a", "a", "b", "a"), `(integer) 3`},
		{cmd("EXISTS"), `(error) ERR wrong number of arguments for 'exists' command`},
		{cmd("TOUCH", "a", "a", "b"), `(integer) 2`},
		{cmd("TOUCH"), `(error) ERR wrong number of arguments for 'touch' command`},
		{cmd("TYPE", "a"), `string`},
		{cmd("TYPE", "nope"), `none`},
		{cmd("XHASH", "h"), "OK"},
		{cmd("TYPE", "h"), `hash`},
		{cmd("TYPE"), `(error) ERR wrong number of arguments for 'type' command`},
		{cmd("TYPE", "a", "b"), `(error) ERR wrong number of arguments for 'type' command`},
		{cmd("RANDOMKEY", "x"), `(error) ERR wrong number of arguments for 'randomkey' command`},
		{cmd("DEL", "a", "h"), `(integer) 2`},
		{cmd("RANDOMKEY"), `(nil)`},
		{cmd("SET", "only", "1"), `OK`},
		{cmd("RANDOMKEY"), `"only"`},
	})
}

// TestRename: RENAME and RENAMENX: TTL kept, missing source, same name, overwrite.
func TestRename(t *testing.T) {
	te := newTypesTestEngine(t)
	te.run([]step{
		{cmd("SET", "a", "1", "EX", "100"), `OK`},
		{cmd("RENAME", "a", "b"), `OK`},
		{cmd("TTL", "b"), `(integer) 100`},
		{cmd("EXISTS", "a"), `(integer) 0`},
		{cmd("RENAME", "a", "b"), `(error) ERR no such key`},
		{cmd("RENAME", "b", "b"), `OK`},
		{cmd("RENAME", "zz", "zz"), `(error) ERR no such key`},
		{cmd("RENAMENX", "zz", "zz"), `(error) ERR no such key`},
		{cmd("RENAMENX", "b", "b"), `(integer) 0`},
		{cmd("SET", "c", "3"), `OK`},
		{cmd("RENAMENX", "b", "c"), `(integer) 0`},
		{cmd("RENAMENX", "b", "d"), `(integer) 1`},
		{cmd("GET", "d"), `"1"`},
		{cmd("TTL", "d"), `(integer) 100`},
		{cmd("RENAME", "d", "c"), `OK`},
		{cmd("GET", "c"), `"1"`},
		{cmd("TTL", "c"), `(integer) 100`},
		{cmd("XHASH", "h"), "OK"},
		{cmd("RENAME", "h", "c"), `OK`},
		{cmd("TYPE", "c"), `hash`},
		{cmd("RENAME", "c"), `(error) ERR wrong number of arguments for 'rename' command`},
		{cmd("RENAMENX", "c"), `(error) ERR wrong number of arguments for 'renamenx' command`},
		{cmd("RENAMENX", "nope", "x"), `(error) ERR no such key`},
	})
}

// TestCopyMove: COPY (DB, REPLACE, same object, bad DB indexes) and MOVE.
func TestCopyMove(t *testing.T) {
	te := newTypesTestEngine(t)
	te.run([]step{
		{cmd("SET", "a", "1", "EX", "100"), `OK`},
		{cmd("COPY", "a", "b"), `(integer) 1`},
		{cmd("TTL", "b"), `(integer) 100`},
		{cmd("GET", "b"), `"1"`},
		{cmd("COPY", "a", "b"), `(integer) 0`},
		{cmd("COPY", "a", "b", "REPLACE"), `(integer) 1`},
		{cmd("COPY", "a", "a"), `(error) ERR source and destination objects are the same`},
		{cmd("COPY", "nope", "a"), `(integer) 0`},
		{cmd("COPY", "nope", "nope"), `(error) ERR source and destination objects are the same`},
		{cmd("COPY", "a", "a", "DB", "0"), `(error) ERR source and destination objects are the same`},
		{cmd("COPY", "a", "a", "DB", "1"), `(integer) 1`},
		{cmd("COPY", "a", "a", "DB", "1"), `(integer) 0`},
		{cmd("COPY", "a", "a", "DB", "1", "replace"), `(integer) 1`},
		{cmd("COPY", "a", "c", "DB", "16"), `(error) ERR DB index is out of range`},
		{cmd("COPY", "a", "c", "DB", "-1"), `(error) ERR DB index is out of range`},
		{cmd("COPY", "a", "c", "DB", "abc"), `(error) ERR value is not an integer or out of range`},
		{cmd("COPY", "a", "c", "DB", "99999999999"), `(error) ERR value is out of range, value must between -2147483648 and 2147483647`},
		{cmd("COPY", "a", "c", "DB"), `(error) ERR syntax error`},
		{cmd("COPY", "a", "c", "FOO"), `(error) ERR syntax error`},
		{cmd("COPY", "a", "c", "DB", "99", "FOO"), `(error) ERR DB index is out of range`},
		{cmd("COPY", "a", "c", "FOO", "DB", "99"), `(error) ERR syntax error`},
		{cmd("COPY", "a", "c", "REPLACE", "REPLACE"), `(integer) 1`},
		{cmd("COPY", "a"), `(error) ERR wrong number of arguments for 'copy' command`},
		{cmd("SELECT", "1"), `OK`},
		{cmd("GET", "a"), `"1"`},
		{cmd("TTL", "a"), `(integer) 100`},
		{cmd("SELECT", "0"), `OK`},
		{cmd("XHASH", "h"), "OK"},
		{cmd("COPY", "h", "hh"), `(integer) 1`},
		{cmd("TYPE", "hh"), `hash`},
		{cmd("MOVE", "a", "1"), `(integer) 0`},
		{cmd("MOVE", "b", "1"), `(integer) 1`},
		{cmd("MOVE", "b", "0"), `(error) ERR source and destination objects are the same`},
		{cmd("MOVE", "nope", "1"), `(integer) 0`},
		{cmd("MOVE", "b", "16"), `(error) ERR DB index is out of range`},
		{cmd("MOVE", "b", "-1"), `(error) ERR DB index is out of range`},
		{cmd("MOVE", "b", "x"), `(error) ERR value is not an integer or out of range`},
		{cmd("MOVE", "nope", "0"), `(error) ERR source and destination objects are the same`},
		{cmd("MOVE", "b"), `(error) ERR wrong number of arguments for 'move' command`},
		{cmd("SELECT", "1"), `OK`},
		{cmd("MOVE", "a", "0"), `(integer) 0`},
		{cmd("SELECT", "0"), `OK`},
		{cmd("TTL", "a"), `(integer) 100`},
		{cmd("EXISTS", "b"), `(integer) 0`},
	})
}

// TestKeysPatterns: KEYS with glob patterns, the empty key and escapes (replies sorted, as the keyspace is ordered).
func TestKeysPatterns(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("SET", "user:1", "a"), `OK`},
		{cmd("SET", "user:2", "b"), `OK`},
		{cmd("SET", "user:10", "c"), `OK`},
		{cmd("SET", "order:1", "d"), `OK`},
		{cmd("SET", "", "empty"), `OK`},
		{cmd("SET", "hello", "x"), `OK`},
		{cmd("SET", "hallo", "x"), `OK`},
		{cmd("SET", "hxllo", "x"), `OK`},
		{cmd("SET", "hllo", "x"), `OK`},
		{cmd("SET", "heeeello", "x"), `OK`},
		{cmd("SET", "a*b", "x"), `OK`},
		{cmd("SET", "a?b", "x"), `OK`},
		{cmd("SET", "a[b", "x"), `OK`},
		{cmd("SET", "a\\b", "x"), `OK`},
		{cmd("KEYS", "*"), `["" "a*b" "a?b" "a[b" "a\\b" "hallo" "heeeello" "hello" "hllo" "hxllo" "order:1" "user:1" "user:10" "user:2"]`},
		{cmd("KEYS", "**"), `["a*b" "a?b" "a[b" "a\\b" "hallo" "heeeello" "hello" "hllo" "hxllo" "order:1" "user:1" "user:10" "user:2"]`},
		{cmd("KEYS", ""), `[""]`},
		{cmd("KEYS", "user:*"), `["user:1" "user:10" "user:2"]`},
		{cmd("KEYS", "user:?"), `["user:1" "user:2"]`},
		{cmd("KEYS", "user:[12]"), `["user:1" "user:2"]`},
		{cmd("KEYS", "user:[^1]*"), `["user:2"]`},
		{cmd("KEYS", "h?llo"), `["hallo" "hello" "hxllo"]`},
		{cmd("KEYS", "h*llo"), `["hallo" "heeeello" "hello" "hllo" "hxllo"]`},
		{cmd("KEYS", "h[ae]llo"), `["hallo" "hello"]`},
		{cmd("KEYS", "h[^e]llo"), `["hallo" "hxllo"]`},
		{cmd("KEYS", "h[a-b]llo"), `["hallo"]`},
		{cmd("KEYS", "a\\*b"), `["a*b"]`},
		{cmd("KEYS", "a\\?b"), `["a?b"]`},
		{cmd("KEYS", "a\\[b"), `["a[b"]`},
		{cmd("KEYS", "a\\\\b"), `["a\\b"]`},
		{cmd("KEYS", "a*"), `["a*b" "a?b" "a[b" "a\\b"]`},
		{cmd("KEYS", "*b"), `["a*b" "a?b" "a[b" "a\\b"]`},
		{cmd("KEYS", "*:*"), `["order:1" "user:1" "user:10" "user:2"]`},
		{cmd("KEYS", "nomatch"), `[]`},
		{cmd("KEYS", "hello"), `["hello"]`},
		{cmd("KEYS", "HELLO"), `[]`},
		{cmd("KEYS", "[hu]*"), `["hallo" "heeeello" "hello" "hllo" "hxllo" "user:1" "user:10" "user:2"]`},
		{cmd("KEYS"), `(error) ERR wrong number of arguments for 'keys' command`},
		{cmd("KEYS", "a", "b"), `(error) ERR wrong number of arguments for 'keys' command`},
	})
}

// TestScanArguments: SCAN cursor and option parsing, errors, MATCH and TYPE filters.
func TestScanArguments(t *testing.T) {
	te := newTypesTestEngine(t)
	te.run([]step{
		{cmd("SCAN", "abc"), `(error) ERR invalid cursor`},
		{cmd("SCAN", "-"), `(error) ERR invalid cursor`},
		{cmd("SCAN", "+"), `(error) ERR invalid cursor`},
		{cmd("SCAN", " 0"), `(error) ERR invalid cursor`},
		{cmd("SCAN", "0 "), `(error) ERR invalid cursor`},
		{cmd("SCAN", "0x1"), `(error) ERR invalid cursor`},
		{cmd("SCAN", "18446744073709551616"), `(error) ERR invalid cursor`},
		{cmd("SCAN", "0", "COUNT", "0"), `(error) ERR syntax error`},
		{cmd("SCAN", "0", "COUNT", "-1"), `(error) ERR syntax error`},
		{cmd("SCAN", "0", "COUNT", "abc"), `(error) ERR value is not an integer or out of range`},
		{cmd("SCAN", "0", "COUNT"), `(error) ERR syntax error`},
		{cmd("SCAN", "0", "MATCH"), `(error) ERR syntax error`},
		{cmd("SCAN", "0", "TYPE"), `(error) ERR syntax error`},
		{cmd("SCAN", "0", "FOO", "bar"), `(error) ERR syntax error`},
		{cmd("SCAN", "0", "COUNT", "0", "FOO"), `(error) ERR syntax error`},
		{cmd("SCAN", "abc", "COUNT", "0"), `(error) ERR invalid cursor`},
		{cmd("SCAN", "0", "COUNT", "abc", "MATCH"), `(error) ERR value is not an integer or out of range`},
		{cmd("SCAN", "0", "COUNT", "9223372036854775808"), `(error) ERR value is not an integer or out of range`},
		{cmd("SCAN"), `(error) ERR wrong number of arguments for 'scan' command`},
		{cmd("SCAN", "0"), `["0" []]`},
		{cmd("SCAN", ""), `["0" []]`},
		{cmd("SCAN", "0", "COUNT", "10", "MATCH", "*", "TYPE", "string"), `["0" []]`},
		{cmd("SET", "k1", "v"), `OK`},
		{cmd("XHASH", "h"), "OK"},
		{cmd("SCAN", "0", "COUNT", "100"), `["0" ["h" "k1"]]`},
		{cmd("SCAN", "0", "TYPE", "hash"), `["0" ["h"]]`},
		{cmd("SCAN", "0", "TYPE", "HASH"), `["0" ["h"]]`},
		{cmd("SCAN", "0", "TYPE", "String"), `["0" ["k1"]]`},
		{cmd("SCAN", "0", "TYPE", "nosuchtype"), `["0" []]`},
		{cmd("SCAN", "0", "MATCH", "k*"), `["0" ["k1"]]`},
		{cmd("SCAN", "0", "MATCH", "k*", "MATCH", "h*"), `["0" ["h"]]`},
		{cmd("SCAN", "0", "COUNT", "1", "COUNT", "1000"), `["0" ["h" "k1"]]`},
	})
}

// TestDBIndexErrors: database index arguments: not an integer, out of the int range, out of range.
func TestDBIndexErrors(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("SET", "b", "1"), `OK`},
		{cmd("MOVE", "b", "99999999999"), `(error) ERR value is out of range, value must between -2147483648 and 2147483647`},
		{cmd("MOVE", "b", "-99999999999"), `(error) ERR value is out of range, value must between -2147483648 and 2147483647`},
		{cmd("MOVE", "b", "2147483648"), `(error) ERR value is out of range, value must between -2147483648 and 2147483647`},
		{cmd("MOVE", "b", "-2147483649"), `(error) ERR value is out of range, value must between -2147483648 and 2147483647`},
		{cmd("MOVE", "b", "2147483647"), `(error) ERR DB index is out of range`},
		{cmd("COPY", "b", "c", "DB", "-2147483648"), `(error) ERR DB index is out of range`},
		{cmd("COPY", "b", "c", "DB", "2147483648"), `(error) ERR value is out of range, value must between -2147483648 and 2147483647`},
		{cmd("SELECT", "99999999999"), `(error) ERR value is out of range, value must between -2147483648 and 2147483647`},
	})
}

// newTypesTestEngine is newTestEngine plus XHASH key, a test-only command
// that stores a value of another type than string, so that the WRONGTYPE
// paths are tested without depending on the hash commands.
func newTypesTestEngine(t *testing.T) *testEngine {
	te := newTestEngine(t)
	te.Register(&Command{Name: "xhash", Spec: NewSpec(2, FlagWrite), Handler: func(c *Call) {
		c.Tx.Put(c.Args[1], Value{Type: TypeHash})
		c.OK()
	}})
	return te
}

// scanAll runs a SCAN iteration to its end, calling between(i) after the
// i-th call, and returns how often each key was returned.
func (te *testEngine) scanAll(opts []string, between func(i int)) map[string]int {
	te.t.Helper()
	seen := map[string]int{}
	cursor := "0"
	for i := 0; ; i++ {
		if i > 100000 {
			te.t.Fatal("SCAN does not end")
		}
		rep := te.do(append([]string{"SCAN", cursor}, opts...)...)
		if rep.Kind != KindArray || len(rep.Elems) != 2 {
			te.t.Fatalf("SCAN %s: %s", cursor, rep)
		}
		for _, k := range rep.Elems[1].Elems {
			seen[k.Str]++
		}
		cursor = rep.Elems[0].Str
		if cursor == "0" {
			return seen
		}
		if between != nil {
			between(i)
		}
	}
}

func (te *testEngine) setKeys(format string, n int) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf(format, i)
		te.do("SET", keys[i], "v")
	}
	return keys
}

func TestScanFullIteration(t *testing.T) {
	te := newTestEngine(t)
	keys := te.setKeys("k%03d", 100)
	for _, count := range []string{"1", "3", "10", "99", "100", "1000"} {
		seen := te.scanAll([]string{"COUNT", count}, nil)
		if len(seen) != len(keys) {
			t.Errorf("COUNT %s: %d keys, want %d", count, len(seen), len(keys))
		}
		for _, k := range keys {
			if seen[k] != 1 {
				t.Errorf("COUNT %s: %s returned %d times", count, k, seen[k])
			}
		}
	}
	// A call that examines the last key says so: no empty last page.
	if got := te.do("SCAN", "0", "COUNT", "100").String(); !strings.HasPrefix(got, `["0" [`) {
		t.Errorf("SCAN 0 COUNT 100 = %.20s..., want cursor 0", got)
	}
}

// TestScanWhileKeysChange: every key that exists for the whole iteration is
// returned, whatever is added and deleted in between.
func TestScanWhileKeysChange(t *testing.T) {
	te := newTestEngine(t)
	keys := te.setKeys("k%03d", 300)
	deleted := map[string]bool{}
	seen := te.scanAll([]string{"COUNT", "7"}, func(i int) {
		// Delete keys on both sides of the cursor and add new ones
		// before and after it.
		for _, j := range []int{(i * 37) % 300, (i*53 + 11) % 300} {
			te.do("DEL", keys[j])
			deleted[keys[j]] = true
		}
		te.do("SET", fmt.Sprintf("a%03d", i), "v")
		te.do("SET", fmt.Sprintf("z%03d", i), "v")
	})
	for _, k := range keys {
		if !deleted[k] && seen[k] != 1 {
			t.Errorf("%s existed throughout but was returned %d times", k, seen[k])
		}
	}
}

// TestScanForgottenCursor: a cursor no longer in the cache resumes by
// position, and a cursor typed by hand skips that many keys.
func TestScanForgottenCursor(t *testing.T) {
	te := newTestEngine(t)
	keys := te.setKeys("k%03d", 50)
	first := te.do("SCAN", "0", "COUNT", "20")
	cursor := first.Elems[0].Str
	for i := 0; i < scanCacheSize+1; i++ { // evict it
		te.do("SCAN", "0", "COUNT", "1")
	}
	rest := te.do("SCAN", cursor, "COUNT", "100")
	got := append(first.Elems[1].Elems, rest.Elems[1].Elems...)
	if len(got) != len(keys) || rest.Elems[0].Str != "0" {
		t.Fatalf("resumed iteration returned %d keys (cursor %s), want %d", len(got), rest.Elems[0].Str, len(keys))
	}
	for i, k := range keys {
		if got[i].Str != k {
			t.Fatalf("key %d is %s, want %s", i, got[i].Str, k)
		}
	}
	te.run([]step{
		{cmd("SCAN", "47"), `["0" ["k047" "k048" "k049"]]`},
		{cmd("SCAN", "50"), `["0" []]`},
		{cmd("SCAN", "18446744073709551615"), `["0" []]`},
		{cmd("SCAN", "-1"), `["0" []]`},
	})
	// A cursor used from another database is not trusted either.
	c := te.do("SCAN", "0", "COUNT", "2").Elems[0].Str
	te.do("SELECT", "1")
	te.run([]step{{cmd("SCAN", c), `["0" []]`}})
}

func TestScanMatchAndType(t *testing.T) {
	te := newTypesTestEngine(t)
	users := te.setKeys("user:%02d", 30)
	te.setKeys("order:%02d", 30)
	te.setKeys("v%02d", 30)
	te.do("XHASH", "user:hash")
	seen := te.scanAll([]string{"MATCH", "user:*", "COUNT", "4", "TYPE", "string"}, nil)
	if len(seen) != len(users) {
		t.Errorf("MATCH user:* TYPE string: %d keys, want %d", len(seen), len(users))
	}
	for _, k := range users {
		if seen[k] != 1 {
			t.Errorf("%s returned %d times", k, seen[k])
		}
	}
	seen = te.scanAll([]string{"MATCH", "*:1?", "COUNT", "5"}, nil)
	if len(seen) != 20 {
		t.Errorf("MATCH *:1?: %d keys, want 20", len(seen))
	}
	te.run([]step{
		{cmd("SCAN", "0", "TYPE", "hash", "COUNT", "1000"), `["0" ["user:hash"]]`},
		{cmd("SCAN", "0", "MATCH", "v0[0-2]"), `["0" ["v00" "v01" "v02"]]`},
	})
}

func TestParseScanCursor(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"0", 0, true},
		{"", 0, true},
		{"17", 17, true},
		{"017", 17, true},
		{"+17", 17, true},
		{"-1", 1<<64 - 1, true},
		{"-18446744073709551615", 1, true},
		{"18446744073709551615", 1<<64 - 1, true},
		{"18446744073709551616", 0, false},
		{"-18446744073709551616", 0, false},
		{" 1", 0, false},
		{"1 ", 0, false},
		{"+", 0, false},
		{"-", 0, false},
		{"0x1", 0, false},
		{"1.0", 0, false},
		{"abc", 0, false},
	} {
		got, ok := parseScanCursor([]byte(tc.in))
		if got != tc.want || ok != tc.ok {
			t.Errorf("parseScanCursor(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// TestKeyspaceStats: reads count keyspace hits and misses exactly as Redis
// does (checked with INFO stats after CONFIG RESETSTAT); writes do not.
func TestKeyspaceStats(t *testing.T) {
	te := newTestEngine(t)
	te.do("SET", "a", "1")
	te.do("SET", "b", "2")
	for _, tc := range []struct {
		args         []string
		hits, misses int64
	}{
		{cmd("GET", "a"), 1, 0},
		{cmd("GET", "zz"), 0, 1},
		{cmd("EXISTS", "a", "zz", "a"), 2, 1},
		{cmd("TYPE", "a"), 1, 0},
		{cmd("TYPE", "zz"), 0, 1},
		{cmd("TTL", "a"), 1, 0},
		{cmd("TTL", "zz"), 0, 1},
		{cmd("PTTL", "a"), 1, 0},
		{cmd("EXPIRETIME", "a"), 1, 0},
		{cmd("PEXPIRETIME", "zz"), 0, 1},
		{cmd("KEYS", "*"), 0, 0},
		{cmd("SCAN", "0"), 0, 0},
		{cmd("SCAN", "0", "TYPE", "string"), 2, 0},
		{cmd("SCAN", "0", "TYPE", "hash"), 2, 0},
		{cmd("SCAN", "0", "MATCH", "a", "TYPE", "string"), 1, 0},
		{cmd("TOUCH", "a", "zz"), 1, 1},
		{cmd("COPY", "a", "c"), 1, 0},
		{cmd("COPY", "zz", "c"), 0, 1},
		{cmd("SET", "a", "5", "GET"), 1, 0},
		{cmd("SET", "zz", "5", "GET"), 0, 1},
		{cmd("SET", "a", "1", "NX", "GET"), 1, 0},
		{cmd("SET", "a", "1", "XX"), 0, 0},
		{cmd("GETSET", "a", "6"), 1, 0},
		{cmd("GETEX", "a"), 1, 0},
		{cmd("GETEX", "a", "EX", "0"), 1, 0},
		{cmd("GETEX", "nope", "EX", "10"), 0, 1},
		{cmd("GETDEL", "b"), 1, 0},
		{cmd("GETDEL", "nope"), 0, 1},
		{cmd("RENAME", "a", "a2"), 0, 0},
		{cmd("MGET", "a2", "c", "q"), 2, 1},
		{cmd("STRLEN", "c"), 1, 0},
		{cmd("STRLEN", "q"), 0, 1},
		{cmd("GETRANGE", "c", "0", "1"), 1, 0},
		{cmd("SUBSTR", "q", "0", "1"), 0, 1},
		{cmd("INCR", "n"), 0, 0},
		{cmd("APPEND", "c", "x"), 0, 0},
		{cmd("SETRANGE", "c", "0", "x"), 0, 0},
		{cmd("RANDOMKEY"), 0, 0},
		{cmd("PERSIST", "c"), 0, 0},
		{cmd("EXPIRE", "c", "100"), 0, 0},
		{cmd("MOVE", "c", "1"), 0, 0},
		{cmd("SETNX", "q", "1"), 0, 0},
		{cmd("MSETNX", "q2", "1"), 0, 0},
		{cmd("RENAMENX", "q2", "q3"), 0, 0},
		{cmd("UNLINK", "q3"), 0, 0},
		{cmd("DEL", "q"), 0, 0},
	} {
		h0, m0 := te.Stats.KeyspaceHits.Load(), te.Stats.KeyspaceMisses.Load()
		te.do(tc.args...)
		h, m := te.Stats.KeyspaceHits.Load()-h0, te.Stats.KeyspaceMisses.Load()-m0
		if h != tc.hits || m != tc.misses {
			t.Errorf("%q: hits %d misses %d, want %d %d", tc.args, h, m, tc.hits, tc.misses)
		}
	}
}

// TestScanConcurrent runs iterations from several connections at once:
// cursors are shared engine state, used under shared read transactions.
func TestScanConcurrent(t *testing.T) {
	te := newTestEngine(t)
	keys := te.setKeys("k%04d", 500)
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := NewSession("normal")
			s.Authenticated = true
			seen := 0
			cursor := "0"
			for {
				var rec Recorder
				args := [][]byte{[]byte("SCAN"), []byte(cursor), []byte("COUNT"), []byte("3")}
				te.Dispatch(s, nil, args, &rec)
				rep := rec.Last()
				seen += len(rep.Elems[1].Elems)
				if cursor = rep.Elems[0].Str; cursor == "0" {
					break
				}
			}
			if seen != len(keys) {
				errs <- fmt.Sprintf("an iteration returned %d keys, want %d", seen, len(keys))
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestScanEmptyArguments: an empty MATCH matches only the empty key, an
// empty TYPE nothing; a later MATCH replaces an earlier one (checked
// against redis-server).
func TestScanEmptyArguments(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("SET", "", "e"), "OK"},
		{cmd("SET", "a", "1"), "OK"},
		{cmd("SCAN", "0", "MATCH", ""), `["0" [""]]`},
		{cmd("SCAN", "0", "TYPE", ""), `["0" []]`},
		{cmd("SCAN", "0", "MATCH", "x", "MATCH", "*"), `["0" ["" "a"]]`},
		{cmd("SCAN", "0", "MATCH", "*", "MATCH", ""), `["0" [""]]`},
		{cmd("SCAN", "0", "count", "5", "match", "a", "type", "STRING"), `["0" ["a"]]`},
		{cmd("KEYS", ""), `[""]`},
	})
}
