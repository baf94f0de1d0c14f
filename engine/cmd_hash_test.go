package engine

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"
)

// The expected replies of the table-driven tests in this file were produced
// by redis-server 7.0.15 (generated from the same steps run against it, and
// checked against the engine before being written down). Steps whose reply
// is random or in hash order are tested separately below.

// TestHashHsetBasics: hset basics.
func TestHashHsetBasics(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("HSET", "h", "f1", "v1", "f2", "v2"), `(integer) 2`},
		{cmd("HSET", "h", "f1", "x", "f3", "v3"), `(integer) 1`},
		{cmd("HGETALL", "h"), `["f1" "x" "f2" "v2" "f3" "v3"]`},
		{cmd("HKEYS", "h"), `["f1" "f2" "f3"]`},
		{cmd("HVALS", "h"), `["x" "v2" "v3"]`},
		{cmd("HLEN", "h"), `(integer) 3`},
		{cmd("HSET", "h", "f1"), `(error) ERR wrong number of arguments for 'hset' command`},
		{cmd("HSET", "h"), `(error) ERR wrong number of arguments for 'hset' command`},
		{cmd("HMSET", "h", "a", "1", "b", "2"), `OK`},
		{cmd("HMSET", "h", "a", "1", "b"), `(error) ERR wrong number of arguments for 'hmset' command`},
		{cmd("HGET", "h", "a"), `"1"`},
		{cmd("HGET", "h", "nope"), `(nil)`},
		{cmd("HGET", "nokey", "f"), `(nil)`},
		{cmd("HMGET", "h", "a", "nope", "b"), `["1" (nil) "2"]`},
		{cmd("HMGET", "nokey", "a", "b"), `[(nil) (nil)]`},
		{cmd("HEXISTS", "h", "a"), `(integer) 1`},
		{cmd("HEXISTS", "h", "zz"), `(integer) 0`},
		{cmd("HEXISTS", "nokey", "a"), `(integer) 0`},
		{cmd("HSTRLEN", "h", "f1"), `(integer) 1`},
		{cmd("HSTRLEN", "h", "nope"), `(integer) 0`},
		{cmd("HSTRLEN", "nokey", "f"), `(integer) 0`},
		{cmd("OBJECT", "ENCODING", "h"), `"listpack"`},
		{cmd("HGETALL", "nokey"), `[]`},
		{cmd("HKEYS", "nokey"), `[]`},
		{cmd("HVALS", "nokey"), `[]`},
		{cmd("HLEN", "nokey"), `(integer) 0`},
	})
}

// TestHashHsetnx: hsetnx.
func TestHashHsetnx(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("HSETNX", "h", "f", "v"), `(integer) 1`},
		{cmd("HSETNX", "h", "f", "w"), `(integer) 0`},
		{cmd("HGET", "h", "f"), `"v"`},
		{cmd("HSETNX", "h"), `(error) ERR wrong number of arguments for 'hsetnx' command`},
	})
}

// TestHashHdel: hdel.
func TestHashHdel(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("HSET", "h", "a", "1", "b", "2", "c", "3"), `(integer) 3`},
		{cmd("HDEL", "h", "a", "zz"), `(integer) 1`},
		{cmd("HDEL", "h", "zz"), `(integer) 0`},
		{cmd("HDEL", "nokey", "a"), `(integer) 0`},
		{cmd("HDEL", "h", "b", "c", "a"), `(integer) 2`},
		{cmd("EXISTS", "h"), `(integer) 0`},
		{cmd("HDEL", "h"), `(error) ERR wrong number of arguments for 'hdel' command`},
	})
}

// TestHashHincrby: hincrby.
func TestHashHincrby(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("HINCRBY", "h", "f", "5"), `(integer) 5`},
		{cmd("HINCRBY", "h", "f", "-7"), `(integer) -2`},
		{cmd("HINCRBY", "h", "f", "1.5"), `(error) ERR value is not an integer or out of range`},
		{cmd("HINCRBY", "h", "f", "abc"), `(error) ERR value is not an integer or out of range`},
		{cmd("HINCRBY", "h", "f", "+1"), `(error) ERR value is not an integer or out of range`},
		{cmd("HINCRBY", "h", "f", " 1"), `(error) ERR value is not an integer or out of range`},
		{cmd("HSET", "h", "s", "hello"), `(integer) 1`},
		{cmd("HINCRBY", "h", "s", "1"), `(error) ERR hash value is not an integer`},
		{cmd("HSET", "h", "big", "9223372036854775806"), `(integer) 1`},
		{cmd("HINCRBY", "h", "big", "1"), `(integer) 9223372036854775807`},
		{cmd("HINCRBY", "h", "big", "1"), `(error) ERR increment or decrement would overflow`},
		{cmd("HSET", "h", "small", "-9223372036854775807"), `(integer) 1`},
		{cmd("HINCRBY", "h", "small", "-1"), `(integer) -9223372036854775808`},
		{cmd("HINCRBY", "h", "small", "-1"), `(error) ERR increment or decrement would overflow`},
		{cmd("HINCRBY", "h", "new", "9223372036854775807"), `(integer) 9223372036854775807`},
		{cmd("HSET", "h", "z", "007"), `(integer) 1`},
		{cmd("HINCRBY", "h", "z", "1"), `(error) ERR hash value is not an integer`},
		{cmd("HGETALL", "h"), `["f" "-2" "s" "hello" "big" "9223372036854775807" "small" "-9223372036854775808" "new" "9223372036854775807" "z" "007"]`},
		{cmd("HINCRBY", "h", "f", "99999999999999999999"), `(error) ERR value is not an integer or out of range`},
	})
}

// TestHashHincrbyfloat: hincrbyfloat.
func TestHashHincrbyfloat(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("HINCRBYFLOAT", "h", "f", "1.5"), `"1.5"`},
		{cmd("HINCRBYFLOAT", "h", "f", "0.1"), `"1.6"`},
		{cmd("HINCRBYFLOAT", "h", "f", "-1.6"), `"0"`},
		{cmd("HINCRBYFLOAT", "h", "f", "1e3"), `"1000"`},
		{cmd("HINCRBYFLOAT", "h", "f", "abc"), `(error) ERR value is not a valid float`},
		{cmd("HINCRBYFLOAT", "h", "f", "inf"), `(error) ERR value is NaN or Infinity`},
		{cmd("HINCRBYFLOAT", "h", "f", "-inf"), `(error) ERR value is NaN or Infinity`},
		{cmd("HINCRBYFLOAT", "h", "f", "nan"), `(error) ERR value is not a valid float`},
		{cmd("HINCRBYFLOAT", "h", "f", ""), `(error) ERR value is not a valid float`},
		{cmd("HINCRBYFLOAT", "h", "f", " 1"), `(error) ERR value is not a valid float`},
		{cmd("HSET", "h", "s", "hello"), `(integer) 1`},
		{cmd("HINCRBYFLOAT", "h", "s", "1"), `(error) ERR hash value is not a float`},
		{cmd("HSET", "h", "i", "inf"), `(integer) 1`},
		{cmd("HINCRBYFLOAT", "h", "i", "1"), `(error) ERR increment would produce NaN or Infinity`},
		{cmd("HSET", "h", "n", "10"), `(integer) 1`},
		{cmd("HINCRBYFLOAT", "h", "n", "0.5"), `"10.5"`},
		{cmd("HINCRBYFLOAT", "h", "n", "5.0e3"), `"5010.5"`},
		{cmd("HINCRBYFLOAT", "h", "n", "1.23456789012345678"), `"5011.73456789012345691"`},
		{cmd("HINCRBYFLOAT", "h", "x", "0.1"), `"0.1"`},
		{cmd("HINCRBYFLOAT", "h", "x", "0.2"), `"0.3"`},
		{cmd("HGETALL", "h"), `["f" "1000" "s" "hello" "i" "inf" "n" "5011.73456789012345691" "x" "0.3"]`},
	})
}

// TestHashWrongtype: wrongtype.
func TestHashWrongtype(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("SET", "s", "v"), `OK`},
		{cmd("HSET", "s", "a", "b"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("HMSET", "s", "a", "b"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("HSETNX", "s", "a", "b"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("HGET", "s", "a"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("HMGET", "s", "a"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("HDEL", "s", "a"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("HEXISTS", "s", "a"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("HINCRBY", "s", "a", "1"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("HINCRBY", "s", "a", "x"), `(error) ERR value is not an integer or out of range`},
		{cmd("HINCRBYFLOAT", "s", "a", "1"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("HLEN", "s"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("HSTRLEN", "s", "a"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("HKEYS", "s"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("HVALS", "s"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("HGETALL", "s"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("HRANDFIELD", "s"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("HRANDFIELD", "s", "2"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("HRANDFIELD", "s", "x"), `(error) ERR value is not an integer or out of range`},
		{cmd("HSCAN", "s", "0"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("HSCAN", "s", "x"), `(error) ERR invalid cursor`},
		{cmd("HSCAN", "s", "0", "COUNT", "0"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
	})
}

// TestHashEncodingThresholds: encoding thresholds.
func TestHashEncodingThresholds(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("HSET", "h", "f", strings.Repeat("x", 64)), `(integer) 1`},
		{cmd("OBJECT", "ENCODING", "h"), `"listpack"`},
		{cmd("HSET", "h", "f", strings.Repeat("x", 65)), `(integer) 0`},
		{cmd("OBJECT", "ENCODING", "h"), `"hashtable"`},
		{cmd("HSET", "h", "f", "short"), `(integer) 0`},
		{cmd("OBJECT", "ENCODING", "h"), `"hashtable"`},
		{cmd("HSET", "h2", strings.Repeat("k", 65), "v"), `(integer) 1`},
		{cmd("OBJECT", "ENCODING", "h2"), `"hashtable"`},
		{cmd("HSET", "h3", "f", "1"), `(integer) 1`},
		{cmd("HINCRBY", "h3", strings.Repeat("k", 65), "1"), `(integer) 1`},
		{cmd("OBJECT", "ENCODING", "h3"), `"hashtable"`},
		{cmd("HSETNX", "h4", "f", "1"), `(integer) 1`},
		{cmd("HSETNX", "h4", "f", strings.Repeat("z", 70)), `(integer) 0`},
		{cmd("OBJECT", "ENCODING", "h4"), `"listpack"`},
		{cmd("HSETNX", "h4", "g", strings.Repeat("z", 70)), `(integer) 1`},
		{cmd("OBJECT", "ENCODING", "h4"), `"hashtable"`},
		{cmd("HSET", "h5", "f", "1"), `(integer) 1`},
		{cmd("HINCRBYFLOAT", "h5", "f", "111111111111111111111111111111111111111111111111111111111111111111111"), `"111111111111111111109166122713690474058606590401136984421968746905600"`},
		{cmd("OBJECT", "ENCODING", "h5"), `"hashtable"`},
		{cmd("HGET", "h5", "f"), `"111111111111111111109166122713690474058606590401136984421968746905600"`},
	})
}

// TestHashHrandfield: hrandfield.
func TestHashHrandfield(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("HSET", "h", "a", "1", "b", "2", "c", "3"), `(integer) 3`},
		{cmd("HRANDFIELD", "h", "0"), `[]`},
		{cmd("HRANDFIELD", "h", "0", "WITHVALUES"), `[]`},
	})
	te.do("HRANDFIELD", "h", "3")
	te.do("HRANDFIELD", "h", "5")
	te.do("HRANDFIELD", "h", "5", "WITHVALUES")
	te.do("HRANDFIELD", "h", "3", "withvalues")
	te.do("HRANDFIELD", "h", "-5")
	te.do("HRANDFIELD", "h", "-5", "WITHVALUES")
	te.do("HRANDFIELD", "h", "2")
	te.do("HRANDFIELD", "h", "1")
	te.do("HRANDFIELD", "h")
	te.run([]step{
		{cmd("HRANDFIELD", "h", "1", "WITHVALUE"), `(error) ERR syntax error`},
		{cmd("HRANDFIELD", "h", "1", "WITHVALUES", "x"), `(error) ERR syntax error`},
		{cmd("HRANDFIELD", "h", "x"), `(error) ERR value is not an integer or out of range`},
		{cmd("HRANDFIELD", "h", "-9223372036854775808"), `(error) ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807`},
		{cmd("HRANDFIELD", "h", "9223372036854775807", "WITHVALUES"), `(error) ERR value is out of range`},
		{cmd("HRANDFIELD", "h", "-4611686018427387904", "WITHVALUES"), `(error) ERR value is out of range`},
		{cmd("HRANDFIELD", "h", "4611686018427387904", "WITHVALUES"), `(error) ERR value is out of range`},
		{cmd("HRANDFIELD", "nokey"), `(nil)`},
		{cmd("HRANDFIELD", "nokey", "5"), `[]`},
		{cmd("HRANDFIELD", "nokey", "5", "WITHVALUES"), `[]`},
		{cmd("HRANDFIELD", "nokey", "x"), `(error) ERR value is not an integer or out of range`},
		{cmd("HRANDFIELD", "nokey", "1", "foo"), `(error) ERR syntax error`},
	})
}

// TestHashHscanSmall: hscan small.
func TestHashHscanSmall(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("HSET", "h", "name", "joe", "age", "30", "city", "x", "zed", "1"), `(integer) 4`},
		{cmd("HSCAN", "h", "0"), `["0" ["name" "joe" "age" "30" "city" "x" "zed" "1"]]`},
		{cmd("HSCAN", "h", "12345"), `["0" ["name" "joe" "age" "30" "city" "x" "zed" "1"]]`},
		{cmd("HSCAN", "h", "0", "MATCH", "a*"), `["0" ["age" "30"]]`},
		{cmd("HSCAN", "h", "0", "MATCH", "*e*"), `["0" ["name" "joe" "age" "30" "zed" "1"]]`},
		{cmd("HSCAN", "h", "0", "COUNT", "1"), `["0" ["name" "joe" "age" "30" "city" "x" "zed" "1"]]`},
		{cmd("HSCAN", "h", "0", "COUNT", "0"), `(error) ERR syntax error`},
		{cmd("HSCAN", "h", "0", "COUNT", "-1"), `(error) ERR syntax error`},
		{cmd("HSCAN", "h", "0", "COUNT", "x"), `(error) ERR value is not an integer or out of range`},
		{cmd("HSCAN", "h", "0", "TYPE", "string"), `(error) ERR syntax error`},
		{cmd("HSCAN", "h", "0", "MATCH"), `(error) ERR syntax error`},
		{cmd("HSCAN", "h", "abc"), `(error) ERR invalid cursor`},
		{cmd("HSCAN", "h", "-1"), `["0" ["name" "joe" "age" "30" "city" "x" "zed" "1"]]`},
		{cmd("HSCAN", "nokey", "0"), `["0" []]`},
		{cmd("HSCAN", "nokey", "0", "COUNT", "0"), `["0" []]`},
		{cmd("HSCAN", "nokey", "x"), `(error) ERR invalid cursor`},
		{cmd("HSCAN", "h", "0", "match", "*", "count", "100"), `["0" ["name" "joe" "age" "30" "city" "x" "zed" "1"]]`},
	})
}

// TestHashInsertionOrder: insertion order.
func TestHashInsertionOrder(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("HSET", "h", "a", "1", "b", "2", "c", "3", "d", "4"), `(integer) 4`},
		{cmd("HDEL", "h", "b"), `(integer) 1`},
		{cmd("HSET", "h", "b", "5", "e", "6"), `(integer) 2`},
		{cmd("HSET", "h", "a", "9"), `(integer) 0`},
		{cmd("HGETALL", "h"), `["a" "9" "c" "3" "d" "4" "b" "5" "e" "6"]`},
		{cmd("HKEYS", "h"), `["a" "c" "d" "b" "e"]`},
	})
}

// TestHashArity: arity.
func TestHashArity(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("HGET", "h"), `(error) ERR wrong number of arguments for 'hget' command`},
		{cmd("HMGET", "h"), `(error) ERR wrong number of arguments for 'hmget' command`},
		{cmd("HDEL", "h"), `(error) ERR wrong number of arguments for 'hdel' command`},
		{cmd("HEXISTS", "h"), `(error) ERR wrong number of arguments for 'hexists' command`},
		{cmd("HINCRBY", "h", "f"), `(error) ERR wrong number of arguments for 'hincrby' command`},
		{cmd("HINCRBYFLOAT", "h", "f"), `(error) ERR wrong number of arguments for 'hincrbyfloat' command`},
		{cmd("HLEN"), `(error) ERR wrong number of arguments for 'hlen' command`},
		{cmd("HSTRLEN", "h"), `(error) ERR wrong number of arguments for 'hstrlen' command`},
		{cmd("HKEYS"), `(error) ERR wrong number of arguments for 'hkeys' command`},
		{cmd("HGETALL"), `(error) ERR wrong number of arguments for 'hgetall' command`},
		{cmd("HRANDFIELD"), `(error) ERR wrong number of arguments for 'hrandfield' command`},
		{cmd("HSCAN", "h"), `(error) ERR wrong number of arguments for 'hscan' command`},
		{cmd("HSETNX", "h", "f"), `(error) ERR wrong number of arguments for 'hsetnx' command`},
	})
}

// TestHashTTLKept: changing fields never changes the key's TTL, and an
// emptied hash disappears with its TTL.
func TestHashTTLKept(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("HSET", "h", "a", "1", "b", "2"), `(integer) 2`},
		{cmd("PEXPIRE", "h", "5000"), `(integer) 1`},
		{cmd("HSET", "h", "c", "3"), `(integer) 1`},
		{cmd("HSETNX", "h", "d", "4"), `(integer) 1`},
		{cmd("HDEL", "h", "a"), `(integer) 1`},
		{cmd("HINCRBY", "h", "b", "1"), `(integer) 3`},
		{cmd("HINCRBYFLOAT", "h", "b", "0.5"), `"3.5"`},
		{cmd("HMSET", "h", "e", "5"), `OK`},
		{cmd("PTTL", "h"), `(integer) 5000`},
		{cmd("HDEL", "h", "b", "c", "d", "e"), `(integer) 4`},
		{cmd("EXISTS", "h"), `(integer) 0`},
		{cmd("HSET", "h", "a", "1"), `(integer) 1`},
		{cmd("PTTL", "h"), `(integer) -1`},
		{cmd("PEXPIRE", "h", "100"), `(integer) 1`},
	})
	te.Clock.FastForward(101 * time.Millisecond)
	te.run([]step{
		{cmd("HGET", "h", "a"), `(nil)`},
		{cmd("HINCRBY", "h", "a", "5"), `(integer) 5`},
		{cmd("PTTL", "h"), `(integer) -1`},
	})
}

// TestHashRedissonLock runs what Redisson's lock scripts do to a hash.
func TestHashRedissonLock(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("EXISTS", "lock"), `(integer) 0`},
		{cmd("HINCRBY", "lock", "uuid:1", "1"), `(integer) 1`},
		{cmd("PEXPIRE", "lock", "30000"), `(integer) 1`},
		{cmd("HEXISTS", "lock", "uuid:1"), `(integer) 1`},
		{cmd("HINCRBY", "lock", "uuid:1", "1"), `(integer) 2`},
		{cmd("PTTL", "lock"), `(integer) 30000`},
		{cmd("HINCRBY", "lock", "uuid:1", "-1"), `(integer) 1`},
		{cmd("HGET", "lock", "uuid:1"), `"1"`},
		{cmd("HINCRBY", "lock", "uuid:1", "-1"), `(integer) 0`},
		{cmd("DEL", "lock"), `(integer) 1`},
		{cmd("HSET", "rw", "mode", "read"), `(integer) 1`},
		{cmd("HSET", "rw", "uuid:2", "1"), `(integer) 1`},
		{cmd("HLEN", "rw"), `(integer) 2`},
		{cmd("HKEYS", "rw"), `["mode" "uuid:2"]`},
		{cmd("HDEL", "rw", "uuid:2"), `(integer) 1`},
		{cmd("HGET", "rw", "mode"), `"read"`},
	})
}

func TestHashRandfield(t *testing.T) {
	te := newTestEngine(t)
	te.do("HSET", "h", "a", "1", "b", "2", "c", "3")
	want := map[string]string{"a": "1", "b": "2", "c": "3"}
	for i := 0; i < 20; i++ {
		if r := te.do("HRANDFIELD", "h"); want[r.Str] == "" {
			t.Fatalf("HRANDFIELD: %s", r)
		}
		r := te.do("HRANDFIELD", "h", "2", "WITHVALUES")
		if len(r.Elems) != 4 || r.Elems[0].Str == r.Elems[2].Str ||
			want[r.Elems[0].Str] != r.Elems[1].Str || want[r.Elems[2].Str] != r.Elems[3].Str {
			t.Fatalf("HRANDFIELD 2 WITHVALUES: %s", r)
		}
		r = te.do("HRANDFIELD", "h", "-7")
		if len(r.Elems) != 7 {
			t.Fatalf("HRANDFIELD -7: %s", r)
		}
		for _, e := range r.Elems {
			if want[e.Str] == "" {
				t.Fatalf("HRANDFIELD -7: %s", r)
			}
		}
	}
	if r := te.do("HRANDFIELD", "h", "10"); len(r.Elems) != 3 {
		t.Errorf("HRANDFIELD 10: %s", r)
	}
}

// TestHashRESP3: HGETALL is a map; HRANDFIELD WITHVALUES pairs are nested.
func TestHashRESP3(t *testing.T) {
	te := newTestEngine(t)
	te.s.SetProto(3)
	te.do("HSET", "h", "a", "1")
	if r := te.do("HGETALL", "h"); r.Kind != KindMap || r.String() != `["a" "1"]` {
		t.Errorf("HGETALL: %v %s", r.Kind, r)
	}
	if r := te.do("HGETALL", "nokey"); r.Kind != KindMap || len(r.Elems) != 0 {
		t.Errorf("HGETALL nokey: %v %s", r.Kind, r)
	}
	if r := te.do("HRANDFIELD", "h", "-2", "WITHVALUES"); r.String() != `[["a" "1"] ["a" "1"]]` {
		t.Errorf("HRANDFIELD: %s", r)
	}
	if r := te.do("HKEYS", "h"); r.Kind != KindArray {
		t.Errorf("HKEYS: %v", r.Kind)
	}
}

// TestHashScanLarge: on a hashtable-encoded hash HSCAN iterates with a
// cursor; every field present for the whole iteration is returned, while
// fields come and go between calls.
func TestHashScanLarge(t *testing.T) {
	te := newTestEngine(t)
	args := []string{"HSET", "h"}
	for i := 0; i < 1000; i++ {
		args = append(args, fmt.Sprintf("f%d", i), "v")
	}
	te.do(args...)
	if r := te.do("OBJECT", "ENCODING", "h"); r.Str != "hashtable" {
		t.Fatalf("encoding %s", r)
	}
	seen := te.scanFull("HSCAN", "h", 7, func(i int) {
		te.do("HDEL", "h", fmt.Sprintf("f%d", 999-i)) // removed: may or may not be seen
		te.do("HSET", "h", fmt.Sprintf("new%d", i), "v")
	})
	for i := 0; i < 1000-200; i++ {
		if seen[fmt.Sprintf("f%d", i)] == 0 {
			t.Fatalf("f%d never returned", i)
		}
	}
	for k, n := range seen {
		if n > 1 {
			t.Errorf("%s returned %d times", k, n)
		}
		if !strings.HasPrefix(k, "f") && !strings.HasPrefix(k, "new") {
			t.Errorf("unexpected field %q", k)
		}
	}
	// MATCH filters what a call examines; the iteration still ends.
	got := []string{}
	cursor := "0"
	for {
		r := te.do("HSCAN", "h", cursor, "MATCH", "f1?", "COUNT", "50")
		for j := 0; j < len(r.Elems[1].Elems); j += 2 {
			got = append(got, r.Elems[1].Elems[j].Str)
		}
		if cursor = r.Elems[0].Str; cursor == "0" {
			break
		}
	}
	sort.Strings(got)
	if len(got) != 10 || got[0] != "f10" || got[9] != "f19" {
		t.Errorf("MATCH f1?: %q", got)
	}
}

// TestHashKeyspaceStats: reads count keyspace hits and misses as Redis's
// lookupKeyRead does (a WRONGTYPE read is a hit); writes count nothing.
func TestHashKeyspaceStats(t *testing.T) {
	te := newTestEngine(t)
	te.do("HSET", "h", "a", "1")
	te.do("SET", "s", "v")
	hits, misses := te.Stats.KeyspaceHits.Load(), te.Stats.KeyspaceMisses.Load()
	te.do("HGET", "h", "a")
	te.do("HGET", "h", "zz")
	te.do("HGET", "nokey", "a")
	te.do("HGET", "s", "a")
	te.do("HSET", "h", "b", "2")
	te.do("HDEL", "nokey", "a")
	if h, m := te.Stats.KeyspaceHits.Load()-hits, te.Stats.KeyspaceMisses.Load()-misses; h != 3 || m != 1 {
		t.Errorf("hits %d misses %d, want 3 and 1", h, m)
	}
}
