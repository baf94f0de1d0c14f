package engine

import (
	"testing"
)

// The expected replies of the table-driven tests in this file were produced
// by redis-server 7.0.15 (generated from the same steps run against it, and
// checked against the engine before being written down). Steps whose reply
// is random or in hash order are tested separately below.

// TestListPushPop: push pop.
func TestListPushPop(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("LPUSH", "l", "a", "b", "c"), `(integer) 3`},
		{cmd("RPUSH", "l", "d", "e"), `(integer) 5`},
		{cmd("LRANGE", "l", "0", "-1"), `["c" "b" "a" "d" "e"]`},
		{cmd("LPUSHX", "l", "x"), `(integer) 6`},
		{cmd("RPUSHX", "l", "y"), `(integer) 7`},
		{cmd("LPUSHX", "nokey", "x"), `(integer) 0`},
		{cmd("RPUSHX", "nokey", "x"), `(integer) 0`},
		{cmd("EXISTS", "nokey"), `(integer) 0`},
		{cmd("LLEN", "l"), `(integer) 7`},
		{cmd("LLEN", "nokey"), `(integer) 0`},
		{cmd("LPOP", "l"), `"x"`},
		{cmd("RPOP", "l"), `"y"`},
		{cmd("LPOP", "l", "2"), `["c" "b"]`},
		{cmd("RPOP", "l", "2"), `["e" "d"]`},
		{cmd("LPOP", "l", "0"), `[]`},
		{cmd("RPOP", "l", "0"), `[]`},
		{cmd("LPOP", "l", "-1"), `(error) ERR value is out of range, must be positive`},
		{cmd("LPOP", "l", "x"), `(error) ERR value is out of range, must be positive`},
		{cmd("LPOP", "l", "1", "2"), `(error) ERR wrong number of arguments for 'lpop' command`},
		{cmd("RPOP", "l", "100"), `["a"]`},
		{cmd("EXISTS", "l"), `(integer) 0`},
		{cmd("LPOP", "nokey"), `(nil)`},
		{cmd("LPOP", "nokey", "1"), `(nil)`},
		{cmd("LPOP", "nokey", "0"), `(nil)`},
		{cmd("RPOP", "nokey", "5"), `(nil)`},
		{cmd("LPOP", "nokey", "-1"), `(error) ERR value is out of range, must be positive`},
		{cmd("LPOP", "nokey", "x"), `(error) ERR value is out of range, must be positive`},
		{cmd("OBJECT", "ENCODING", "l"), `(nil)`},
		{cmd("RPUSH", "l", "a"), `(integer) 1`},
		{cmd("OBJECT", "ENCODING", "l"), `"quicklist"`},
	})
}

// TestListLindexLset: lindex lset.
func TestListLindexLset(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("RPUSH", "l", "a", "b", "c"), `(integer) 3`},
		{cmd("LINDEX", "l", "0"), `"a"`},
		{cmd("LINDEX", "l", "-1"), `"c"`},
		{cmd("LINDEX", "l", "3"), `(nil)`},
		{cmd("LINDEX", "l", "-4"), `(nil)`},
		{cmd("LINDEX", "l", "x"), `(error) ERR value is not an integer or out of range`},
		{cmd("LINDEX", "nokey", "x"), `(nil)`},
		{cmd("LINDEX", "nokey", "0"), `(nil)`},
		{cmd("LSET", "l", "1", "B"), `OK`},
		{cmd("LSET", "l", "-1", "C"), `OK`},
		{cmd("LSET", "l", "3", "z"), `(error) ERR index out of range`},
		{cmd("LSET", "l", "-4", "z"), `(error) ERR index out of range`},
		{cmd("LSET", "l", "x", "z"), `(error) ERR value is not an integer or out of range`},
		{cmd("LSET", "nokey", "0", "z"), `(error) ERR no such key`},
		{cmd("LSET", "nokey", "x", "z"), `(error) ERR no such key`},
		{cmd("LRANGE", "l", "0", "-1"), `["a" "B" "C"]`},
	})
}

// TestListLrangeLtrim: lrange ltrim.
func TestListLrangeLtrim(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("RPUSH", "l", "a", "b", "c", "d", "e"), `(integer) 5`},
		{cmd("LRANGE", "l", "1", "3"), `["b" "c" "d"]`},
		{cmd("LRANGE", "l", "-2", "-1"), `["d" "e"]`},
		{cmd("LRANGE", "l", "-100", "100"), `["a" "b" "c" "d" "e"]`},
		{cmd("LRANGE", "l", "3", "1"), `[]`},
		{cmd("LRANGE", "l", "5", "10"), `[]`},
		{cmd("LRANGE", "l", "x", "1"), `(error) ERR value is not an integer or out of range`},
		{cmd("LRANGE", "l", "1", "x"), `(error) ERR value is not an integer or out of range`},
		{cmd("LRANGE", "nokey", "0", "-1"), `[]`},
		{cmd("LRANGE", "nokey", "x", "1"), `(error) ERR value is not an integer or out of range`},
		{cmd("LTRIM", "l", "1", "-2"), `OK`},
		{cmd("LRANGE", "l", "0", "-1"), `["b" "c" "d"]`},
		{cmd("LTRIM", "l", "0", "-1"), `OK`},
		{cmd("LTRIM", "l", "5", "1"), `OK`},
		{cmd("EXISTS", "l"), `(integer) 0`},
		{cmd("LTRIM", "nokey", "0", "1"), `OK`},
		{cmd("LTRIM", "l", "x", "1"), `(error) ERR value is not an integer or out of range`},
	})
}

// TestListLrem: lrem.
func TestListLrem(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("RPUSH", "l", "a", "b", "a", "c", "a", "b", "a"), `(integer) 7`},
		{cmd("LREM", "l", "2", "a"), `(integer) 2`},
		{cmd("LRANGE", "l", "0", "-1"), `["b" "c" "a" "b" "a"]`},
		{cmd("LREM", "l", "-1", "a"), `(integer) 1`},
		{cmd("LRANGE", "l", "0", "-1"), `["b" "c" "a" "b"]`},
		{cmd("LREM", "l", "0", "b"), `(integer) 2`},
		{cmd("LRANGE", "l", "0", "-1"), `["c" "a"]`},
		{cmd("LREM", "l", "0", "zz"), `(integer) 0`},
		{cmd("LREM", "l", "x", "a"), `(error) ERR value is not an integer or out of range`},
		{cmd("LREM", "nokey", "0", "a"), `(integer) 0`},
		{cmd("LREM", "nokey", "x", "a"), `(error) ERR value is not an integer or out of range`},
		{cmd("LREM", "l", "0", "a"), `(integer) 1`},
		{cmd("LREM", "l", "0", "c"), `(integer) 1`},
		{cmd("EXISTS", "l"), `(integer) 0`},
		{cmd("RPUSH", "l2", "a", "a", "a"), `(integer) 3`},
		{cmd("LREM", "l2", "-9223372036854775808", "a"), `(integer) 3`},
		{cmd("EXISTS", "l2"), `(integer) 0`},
	})
}

// TestListLinsert: linsert.
func TestListLinsert(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("RPUSH", "l", "a", "b", "c"), `(integer) 3`},
		{cmd("LINSERT", "l", "BEFORE", "b", "x"), `(integer) 4`},
		{cmd("LINSERT", "l", "after", "c", "y"), `(integer) 5`},
		{cmd("LINSERT", "l", "after", "zz", "y"), `(integer) -1`},
		{cmd("LINSERT", "l", "middle", "b", "y"), `(error) ERR syntax error`},
		{cmd("LINSERT", "nokey", "before", "a", "b"), `(integer) 0`},
		{cmd("LINSERT", "nokey", "middle", "a", "b"), `(error) ERR syntax error`},
		{cmd("LRANGE", "l", "0", "-1"), `["a" "x" "b" "c" "y"]`},
	})
}

// TestListLpos: lpos.
func TestListLpos(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("RPUSH", "l", "a", "b", "c", "1", "2", "3", "c", "c"), `(integer) 8`},
		{cmd("LPOS", "l", "c"), `(integer) 2`},
		{cmd("LPOS", "l", "c", "RANK", "2"), `(integer) 6`},
		{cmd("LPOS", "l", "c", "RANK", "-1"), `(integer) 7`},
		{cmd("LPOS", "l", "c", "RANK", "-3"), `(integer) 2`},
		{cmd("LPOS", "l", "c", "RANK", "-4"), `(nil)`},
		{cmd("LPOS", "l", "c", "COUNT", "0"), `[(integer) 2 (integer) 6 (integer) 7]`},
		{cmd("LPOS", "l", "c", "COUNT", "2"), `[(integer) 2 (integer) 6]`},
		{cmd("LPOS", "l", "c", "COUNT", "2", "RANK", "-1"), `[(integer) 7 (integer) 6]`},
		{cmd("LPOS", "l", "c", "COUNT", "0", "MAXLEN", "3"), `[(integer) 2]`},
		{cmd("LPOS", "l", "c", "MAXLEN", "2"), `(nil)`},
		{cmd("LPOS", "l", "c", "MAXLEN", "3"), `(integer) 2`},
		{cmd("LPOS", "l", "c", "RANK", "0"), `(error) ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list`},
		{cmd("LPOS", "l", "c", "RANK", "x"), `(error) ERR value is not an integer or out of range`},
		{cmd("LPOS", "l", "c", "COUNT", "-1"), `(error) ERR COUNT can't be negative`},
		{cmd("LPOS", "l", "c", "COUNT", "x"), `(error) ERR COUNT can't be negative`},
		{cmd("LPOS", "l", "c", "MAXLEN", "-1"), `(error) ERR MAXLEN can't be negative`},
		{cmd("LPOS", "l", "c", "MAXLEN", "x"), `(error) ERR MAXLEN can't be negative`},
		{cmd("LPOS", "l", "c", "FOO"), `(error) ERR syntax error`},
		{cmd("LPOS", "l", "c", "RANK"), `(error) ERR syntax error`},
		{cmd("LPOS", "l", "zz"), `(nil)`},
		{cmd("LPOS", "l", "zz", "COUNT", "2"), `[]`},
		{cmd("LPOS", "l", "c", "RANK", "-9223372036854775808"), `(integer) 7`},
		{cmd("LPOS", "l", "c", "RANK", "-9223372036854775808", "COUNT", "0"), `[(integer) 7 (integer) 6 (integer) 2]`},
		{cmd("LPOS", "l", "c", "RANK", "9223372036854775807", "COUNT", "0"), `[]`},
		{cmd("LPOS", "nokey", "c"), `(nil)`},
		{cmd("LPOS", "nokey", "c", "COUNT", "1"), `[]`},
		{cmd("LPOS", "nokey", "c", "RANK", "0"), `(error) ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list`},
		{cmd("LPOS", "l", "c", "rank", "1", "count", "1", "maxlen", "0"), `[(integer) 2]`},
	})
}

// TestListLmove: lmove.
func TestListLmove(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("RPUSH", "src", "a", "b", "c"), `(integer) 3`},
		{cmd("LMOVE", "src", "dst", "LEFT", "RIGHT"), `"a"`},
		{cmd("LMOVE", "src", "dst", "RIGHT", "LEFT"), `"c"`},
		{cmd("LRANGE", "src", "0", "-1"), `["b"]`},
		{cmd("LRANGE", "dst", "0", "-1"), `["c" "a"]`},
		{cmd("LMOVE", "src", "dst", "left", "left"), `"b"`},
		{cmd("EXISTS", "src"), `(integer) 0`},
		{cmd("LMOVE", "src", "dst", "LEFT", "RIGHT"), `(nil)`},
		{cmd("LMOVE", "src", "dst", "UP", "RIGHT"), `(error) ERR syntax error`},
		{cmd("LMOVE", "src", "dst", "LEFT", "DOWN"), `(error) ERR syntax error`},
		{cmd("RPUSH", "r", "1", "2", "3"), `(integer) 3`},
		{cmd("LMOVE", "r", "r", "LEFT", "RIGHT"), `"1"`},
		{cmd("LRANGE", "r", "0", "-1"), `["2" "3" "1"]`},
		{cmd("RPOPLPUSH", "r", "r"), `"1"`},
		{cmd("LRANGE", "r", "0", "-1"), `["1" "2" "3"]`},
		{cmd("RPUSH", "one", "x"), `(integer) 1`},
		{cmd("RPOPLPUSH", "one", "one"), `"x"`},
		{cmd("LRANGE", "one", "0", "-1"), `["x"]`},
		{cmd("RPOPLPUSH", "r", "newdst"), `"3"`},
		{cmd("LRANGE", "newdst", "0", "-1"), `["3"]`},
		{cmd("RPOPLPUSH", "nokey", "dst"), `(nil)`},
		{cmd("SET", "str", "v"), `OK`},
		{cmd("RPOPLPUSH", "r", "str"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("RPOPLPUSH", "str", "r"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("RPOPLPUSH", "nokey", "str"), `(nil)`},
		{cmd("LMOVE", "nokey", "str", "LEFT", "LEFT"), `(nil)`},
		{cmd("LRANGE", "r", "0", "-1"), `["1" "2"]`},
	})
}

// TestListWrongtype: wrongtype.
func TestListWrongtype(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("SET", "s", "v"), `OK`},
		{cmd("LPUSH", "s", "a"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("RPUSH", "s", "a"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("LPUSHX", "s", "a"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("RPUSHX", "s", "a"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("LPOP", "s"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("RPOP", "s", "2"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("LPOP", "s", "x"), `(error) ERR value is out of range, must be positive`},
		{cmd("LINDEX", "s", "0"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("LINDEX", "s", "x"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("LLEN", "s"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("LRANGE", "s", "0", "1"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("LRANGE", "s", "x", "1"), `(error) ERR value is not an integer or out of range`},
		{cmd("LREM", "s", "0", "a"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("LSET", "s", "0", "a"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("LSET", "s", "x", "a"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("LTRIM", "s", "0", "1"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("LINSERT", "s", "before", "a", "b"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("LPOS", "s", "a"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("LPOS", "s", "a", "RANK", "0"), `(error) ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list`},
		{cmd("LMOVE", "s", "d", "LEFT", "LEFT"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
	})
}

// TestListArity: arity.
func TestListArity(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("LPUSH", "l"), `(error) ERR wrong number of arguments for 'lpush' command`},
		{cmd("LPOP"), `(error) ERR wrong number of arguments for 'lpop' command`},
		{cmd("LINDEX", "l"), `(error) ERR wrong number of arguments for 'lindex' command`},
		{cmd("LLEN"), `(error) ERR wrong number of arguments for 'llen' command`},
		{cmd("LRANGE", "l", "0"), `(error) ERR wrong number of arguments for 'lrange' command`},
		{cmd("LREM", "l", "0"), `(error) ERR wrong number of arguments for 'lrem' command`},
		{cmd("LSET", "l", "0"), `(error) ERR wrong number of arguments for 'lset' command`},
		{cmd("LTRIM", "l", "0"), `(error) ERR wrong number of arguments for 'ltrim' command`},
		{cmd("LINSERT", "l", "before", "a"), `(error) ERR wrong number of arguments for 'linsert' command`},
		{cmd("LPOS", "l"), `(error) ERR wrong number of arguments for 'lpos' command`},
		{cmd("LMOVE", "a", "b", "LEFT"), `(error) ERR wrong number of arguments for 'lmove' command`},
		{cmd("RPOPLPUSH", "a"), `(error) ERR wrong number of arguments for 'rpoplpush' command`},
	})
}

func TestListTTLKept(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("RPUSH", "l", "a", "b", "c"), `(integer) 3`},
		{cmd("PEXPIRE", "l", "5000"), `(integer) 1`},
		{cmd("LPUSH", "l", "x"), `(integer) 4`},
		{cmd("RPOP", "l"), `"c"`},
		{cmd("LSET", "l", "0", "y"), `OK`},
		{cmd("LINSERT", "l", "AFTER", "y", "z"), `(integer) 4`},
		{cmd("LREM", "l", "1", "z"), `(integer) 1`},
		{cmd("LTRIM", "l", "0", "1"), `OK`},
		{cmd("LMOVE", "l", "l", "LEFT", "RIGHT"), `"y"`},
		{cmd("PTTL", "l"), `(integer) 5000`},
		{cmd("RPOPLPUSH", "l", "other"), `"y"`},
		{cmd("PTTL", "other"), `(integer) -1`},
		{cmd("PTTL", "l"), `(integer) 5000`},
		{cmd("LPOP", "l", "10"), `["a"]`},
		{cmd("EXISTS", "l"), `(integer) 0`},
		{cmd("RPUSH", "l", "a"), `(integer) 1`},
		{cmd("PTTL", "l"), `(integer) -1`},
	})
}

// TestListFairLockQueue runs what Redisson's fair lock does to its queue.
func TestListFairLockQueue(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("RPUSH", "q", "t1"), `(integer) 1`},
		{cmd("RPUSH", "q", "t2"), `(integer) 2`},
		{cmd("LINDEX", "q", "0"), `"t1"`},
		{cmd("LINDEX", "q", "-1"), `"t2"`},
		{cmd("LRANGE", "q", "0", "-1"), `["t1" "t2"]`},
		{cmd("LPOP", "q"), `"t1"`},
		{cmd("LREM", "q", "0", "t2"), `(integer) 1`},
		{cmd("EXISTS", "q"), `(integer) 0`},
		{cmd("LINDEX", "q", "0"), `(nil)`},
	})
}

// TestListAPI: the functions the blocking commands are built on.
func TestListAPI(t *testing.T) {
	te := newTestEngine(t)
	te.do("SET", "s", "v")
	te.Do(true, 0, func(tx *Tx) {
		if n, err := ListPush(tx, []byte("l"), true, true, [][]byte{[]byte("a")}); n != 0 || err != nil {
			t.Errorf("LPUSHX on a missing key: %d %v", n, err)
		}
		if n, err := ListPush(tx, []byte("l"), true, false, [][]byte{[]byte("a"), []byte("b")}); n != 2 || err != nil {
			t.Errorf("ListPush: %d %v", n, err)
		}
		if n, err := ListPush(tx, []byte("l"), false, true, [][]byte{[]byte("c")}); n != 3 || err != nil {
			t.Errorf("ListPush tail: %d %v", n, err)
		}
		if _, err := ListPush(tx, []byte("s"), true, false, [][]byte{[]byte("a")}); err != ErrWrongType {
			t.Errorf("ListPush on a string: %v", err)
		}
		if got, err := ListPop(tx, []byte("l"), false, 2); len(got) != 2 || got[0] != "c" || got[1] != "a" || err != nil {
			t.Errorf("ListPop tail 2: %q %v", got, err)
		}
		if got, err := ListPop(tx, []byte("nokey"), true, 1); got != nil || err != nil {
			t.Errorf("ListPop missing: %q %v", got, err)
		}
		if e, ok, err := ListMove(tx, []byte("l"), []byte("s"), true, true); ok || err != ErrWrongType || e != "" {
			t.Errorf("ListMove to a string: %q %v %v", e, ok, err)
		}
		if e, ok, err := ListMove(tx, []byte("l"), []byte("d"), true, false); !ok || err != nil || e != "b" {
			t.Errorf("ListMove: %q %v %v", e, ok, err)
		}
		if _, ok, err := ListMove(tx, []byte("l"), []byte("d"), true, false); ok || err != nil {
			t.Errorf("ListMove from an emptied list: %v %v", ok, err)
		}
	})
	te.run([]step{
		{cmd("EXISTS", "l"), `(integer) 0`},
		{cmd("LRANGE", "d", "0", "-1"), `["b"]`},
	})
}

// TestListNulls: LPOP with a count on a missing key is a null
// array, without a count a null bulk.
func TestListNulls(t *testing.T) {
	te := newTestEngine(t)
	if r := te.do("LPOP", "nokey", "1"); r.Kind != KindNullArray {
		t.Errorf("LPOP nokey 1: %v", r.Kind)
	}
	if r := te.do("LPOP", "nokey"); r.Kind != KindNull {
		t.Errorf("LPOP nokey: %v", r.Kind)
	}
	if r := te.do("LPOP", "nokey", "0"); r.Kind != KindNullArray {
		t.Errorf("LPOP nokey 0: %v", r.Kind)
	}
}
