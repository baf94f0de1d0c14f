package engine

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"testing"
	"time"
)

// The expected replies of the table-driven tests in this file were produced
// by redis-server 7.0.15 (generated from the same steps run against it, and
// checked against the engine before being written down). Steps whose reply
// is random or in hash order are tested separately below.

// TestSetSaddIntset: sadd intset.
func TestSetSaddIntset(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("SADD", "s", "3", "1", "2", "-5", "1"), `(integer) 4`},
		{cmd("SMEMBERS", "s"), `["-5" "1" "2" "3"]`},
		{cmd("OBJECT", "ENCODING", "s"), `"intset"`},
		{cmd("SCARD", "s"), `(integer) 4`},
		{cmd("SISMEMBER", "s", "2"), `(integer) 1`},
		{cmd("SISMEMBER", "s", "02"), `(integer) 0`},
		{cmd("SISMEMBER", "s", "x"), `(integer) 0`},
		{cmd("SMISMEMBER", "s", "1", "x", "3", "-5", "+1"), `[(integer) 1 (integer) 0 (integer) 1 (integer) 1 (integer) 0]`},
		{cmd("SADD", "s", "10"), `(integer) 1`},
		{cmd("SMEMBERS", "s"), `["-5" "1" "2" "3" "10"]`},
		{cmd("SADD", "s", "abc"), `(integer) 1`},
		{cmd("OBJECT", "ENCODING", "s"), `"hashtable"`},
	})
	te.do("SMEMBERS", "s")
	te.run([]step{
		{cmd("SREM", "s", "abc"), `(integer) 1`},
		{cmd("OBJECT", "ENCODING", "s"), `"hashtable"`},
		{cmd("SREM", "s", "1", "2", "nope"), `(integer) 2`},
		{cmd("SREM", "s", "3", "-5", "10"), `(integer) 3`},
		{cmd("EXISTS", "s"), `(integer) 0`},
		{cmd("SREM", "nokey", "a"), `(integer) 0`},
		{cmd("SCARD", "nokey"), `(integer) 0`},
		{cmd("SISMEMBER", "nokey", "a"), `(integer) 0`},
		{cmd("SMISMEMBER", "nokey", "a", "b"), `[(integer) 0 (integer) 0]`},
		{cmd("SMEMBERS", "nokey"), `[]`},
	})
}

// TestSetSaddStrings: sadd strings.
func TestSetSaddStrings(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("SADD", "s", "b", "a", "c", "a"), `(integer) 3`},
		{cmd("OBJECT", "ENCODING", "s"), `"hashtable"`},
	})
	te.do("SMEMBERS", "s")
	te.run([]step{
		{cmd("SADD", "s2", "1", "a"), `(integer) 2`},
		{cmd("OBJECT", "ENCODING", "s2"), `"hashtable"`},
		{cmd("SADD", "s3", "a", "1"), `(integer) 2`},
		{cmd("OBJECT", "ENCODING", "s3"), `"hashtable"`},
		{cmd("SADD", "s4", "+1"), `(integer) 1`},
		{cmd("OBJECT", "ENCODING", "s4"), `"hashtable"`},
		{cmd("SADD", "s5", "007"), `(integer) 1`},
		{cmd("OBJECT", "ENCODING", "s5"), `"hashtable"`},
		{cmd("SADD", "s6", "-0"), `(integer) 1`},
		{cmd("OBJECT", "ENCODING", "s6"), `"hashtable"`},
		{cmd("SADD", "s7", "9223372036854775807", "-9223372036854775808"), `(integer) 2`},
		{cmd("OBJECT", "ENCODING", "s7"), `"intset"`},
		{cmd("SMEMBERS", "s7"), `["-9223372036854775808" "9223372036854775807"]`},
		{cmd("SADD", "s8", "9223372036854775808"), `(integer) 1`},
		{cmd("OBJECT", "ENCODING", "s8"), `"hashtable"`},
	})
}

// TestSetIntsetSizeLimit: intset size limit.
func TestSetIntsetSizeLimit(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("SADD", "s", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15", "16", "17", "18", "19", "20", "21", "22", "23", "24", "25", "26", "27", "28", "29", "30", "31", "32", "33", "34", "35", "36", "37", "38", "39", "40", "41", "42", "43", "44", "45", "46", "47", "48", "49", "50", "51", "52", "53", "54", "55", "56", "57", "58", "59", "60", "61", "62", "63", "64", "65", "66", "67", "68", "69", "70", "71", "72", "73", "74", "75", "76", "77", "78", "79", "80", "81", "82", "83", "84", "85", "86", "87", "88", "89", "90", "91", "92", "93", "94", "95", "96", "97", "98", "99", "100"), `(integer) 100`},
		{cmd("OBJECT", "ENCODING", "s"), `"intset"`},
		{cmd("SMEMBERS", "s"), `["1" "2" "3" "4" "5" "6" "7" "8" "9" "10" "11" "12" "13" "14" "15" "16" "17" "18" "19" "20" "21" "22" "23" "24" "25" "26" "27" "28" "29" "30" "31" "32" "33" "34" "35" "36" "37" "38" "39" "40" "41" "42" "43" "44" "45" "46" "47" "48" "49" "50" "51" "52" "53" "54" "55" "56" "57" "58" "59" "60" "61" "62" "63" "64" "65" "66" "67" "68" "69" "70" "71" "72" "73" "74" "75" "76" "77" "78" "79" "80" "81" "82" "83" "84" "85" "86" "87" "88" "89" "90" "91" "92" "93" "94" "95" "96" "97" "98" "99" "100"]`},
	})
}

// TestSetSpopSrandmember: spop srandmember.
func TestSetSpopSrandmember(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("SADD", "s", "1", "2", "3", "4", "5"), `(integer) 5`},
	})
	te.do("SPOP", "s")
	te.run([]step{
		{cmd("SCARD", "s"), `(integer) 4`},
	})
	te.do("SRANDMEMBER", "s")
	te.do("SRANDMEMBER", "s", "2")
	te.do("SRANDMEMBER", "s", "-10")
	te.do("SRANDMEMBER", "s", "10")
	te.run([]step{
		{cmd("SRANDMEMBER", "s", "0"), `[]`},
		{cmd("SRANDMEMBER", "s", "x"), `(error) ERR value is not an integer or out of range`},
		{cmd("SRANDMEMBER", "s", "-9223372036854775808"), `(error) ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807`},
		{cmd("SRANDMEMBER", "s", "1", "2"), `(error) ERR syntax error`},
	})
	te.do("SPOP", "s", "2")
	te.run([]step{
		{cmd("SCARD", "s"), `(integer) 2`},
		{cmd("SPOP", "s", "0"), `[]`},
		{cmd("SPOP", "s", "-1"), `(error) ERR value is out of range, must be positive`},
		{cmd("SPOP", "s", "x"), `(error) ERR value is out of range, must be positive`},
		{cmd("SPOP", "s", "1", "2"), `(error) ERR syntax error`},
	})
	te.do("SPOP", "s", "10")
	te.run([]step{
		{cmd("EXISTS", "s"), `(integer) 0`},
		{cmd("SPOP", "nokey"), `(nil)`},
		{cmd("SPOP", "nokey", "2"), `[]`},
		{cmd("SPOP", "nokey", "0"), `[]`},
		{cmd("SPOP", "nokey", "x"), `(error) ERR value is out of range, must be positive`},
		{cmd("SRANDMEMBER", "nokey"), `(nil)`},
		{cmd("SRANDMEMBER", "nokey", "3"), `[]`},
		{cmd("SRANDMEMBER", "nokey", "-3"), `[]`},
		{cmd("SRANDMEMBER", "nokey", "x"), `(error) ERR value is not an integer or out of range`},
	})
}

// TestSetSpopIntsetFromHashtable: spop intset from hashtable.
func TestSetSpopIntsetFromHashtable(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("SADD", "s", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "a"), `(integer) 11`},
		{cmd("OBJECT", "ENCODING", "s"), `"hashtable"`},
		{cmd("SREM", "s", "a"), `(integer) 1`},
	})
	te.do("SPOP", "s", "9")
	te.run([]step{
		{cmd("OBJECT", "ENCODING", "s"), `"intset"`},
		{cmd("SCARD", "s"), `(integer) 1`},
	})
}

// TestSetSmove: smove.
func TestSetSmove(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("SADD", "a", "1", "2", "x"), `(integer) 3`},
		{cmd("SMOVE", "a", "b", "1"), `(integer) 1`},
		{cmd("SMEMBERS", "b"), `["1"]`},
		{cmd("OBJECT", "ENCODING", "b"), `"intset"`},
		{cmd("SMOVE", "a", "b", "x"), `(integer) 1`},
	})
	te.do("SMEMBERS", "b")
	te.run([]step{
		{cmd("OBJECT", "ENCODING", "b"), `"hashtable"`},
		{cmd("SMOVE", "a", "b", "nope"), `(integer) 0`},
		{cmd("SMOVE", "a", "a", "2"), `(integer) 1`},
		{cmd("SMOVE", "a", "a", "nope"), `(integer) 0`},
		{cmd("SMOVE", "a", "b", "2"), `(integer) 1`},
		{cmd("EXISTS", "a"), `(integer) 0`},
		{cmd("SMOVE", "nokey", "b", "1"), `(integer) 0`},
		{cmd("SET", "str", "v"), `OK`},
		{cmd("SMOVE", "nokey", "str", "1"), `(integer) 0`},
		{cmd("SMOVE", "b", "str", "1"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("SMOVE", "str", "b", "1"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("SADD", "c", "y"), `(integer) 1`},
		{cmd("SMOVE", "c", "new", "y"), `(integer) 1`},
		{cmd("SMEMBERS", "new"), `["y"]`},
		{cmd("OBJECT", "ENCODING", "new"), `"hashtable"`},
	})
}

// TestSetSscan: sscan.
func TestSetSscan(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("SADD", "s", "3", "1", "2"), `(integer) 3`},
		{cmd("SSCAN", "s", "0"), `["0" ["1" "2" "3"]]`},
		{cmd("SSCAN", "s", "0", "MATCH", "1*"), `["0" ["1"]]`},
		{cmd("SSCAN", "s", "77", "COUNT", "1"), `["0" ["1" "2" "3"]]`},
		{cmd("SSCAN", "s", "0", "COUNT", "0"), `(error) ERR syntax error`},
		{cmd("SSCAN", "s", "0", "TYPE", "set"), `(error) ERR syntax error`},
		{cmd("SSCAN", "nokey", "0"), `["0" []]`},
		{cmd("SSCAN", "s", "x"), `(error) ERR invalid cursor`},
		{cmd("SADD", "h", "a", "b", "c"), `(integer) 3`},
	})
	te.do("SSCAN", "h", "0", "COUNT", "1000")
}

// TestSetWrongtype: wrongtype.
func TestSetWrongtype(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("SET", "str", "v"), `OK`},
		{cmd("SADD", "str", "a"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("SREM", "str", "a"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("SISMEMBER", "str", "a"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("SMISMEMBER", "str", "a"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("SMEMBERS", "str"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("SCARD", "str"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("SPOP", "str"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("SPOP", "str", "0"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("SPOP", "str", "x"), `(error) ERR value is out of range, must be positive`},
		{cmd("SRANDMEMBER", "str"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("SRANDMEMBER", "str", "0"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("SRANDMEMBER", "str", "x"), `(error) ERR value is not an integer or out of range`},
		{cmd("SSCAN", "str", "0"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
	})
}

// TestSetArity: arity.
func TestSetArity(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("SADD", "s"), `(error) ERR wrong number of arguments for 'sadd' command`},
		{cmd("SREM", "s"), `(error) ERR wrong number of arguments for 'srem' command`},
		{cmd("SISMEMBER", "s"), `(error) ERR wrong number of arguments for 'sismember' command`},
		{cmd("SMISMEMBER", "s"), `(error) ERR wrong number of arguments for 'smismember' command`},
		{cmd("SMEMBERS"), `(error) ERR wrong number of arguments for 'smembers' command`},
		{cmd("SCARD"), `(error) ERR wrong number of arguments for 'scard' command`},
		{cmd("SPOP"), `(error) ERR wrong number of arguments for 'spop' command`},
		{cmd("SRANDMEMBER"), `(error) ERR wrong number of arguments for 'srandmember' command`},
		{cmd("SMOVE", "a", "b"), `(error) ERR wrong number of arguments for 'smove' command`},
		{cmd("SSCAN", "s"), `(error) ERR wrong number of arguments for 'sscan' command`},
	})
}

// TestSetSremMany: srem many.
func TestSetSremMany(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("SADD", "s", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10"), `(integer) 10`},
		{cmd("SREM", "s", "1", "3", "5", "7", "9", "9", "11", "x"), `(integer) 5`},
		{cmd("SMEMBERS", "s"), `["2" "4" "6" "8" "10"]`},
		{cmd("SADD", "t", "a", "b", "c", "d", "e", "f", "g"), `(integer) 7`},
		{cmd("SREM", "t", "a", "c", "e", "g", "g", "z", "1", "2"), `(integer) 4`},
	})
	te.do("SMEMBERS", "t")
	te.run([]step{
		{cmd("SREM", "t", "b", "d", "f"), `(integer) 3`},
		{cmd("EXISTS", "t"), `(integer) 0`},
	})
}

// TestSetSpopMany: spop many.
func TestSetSpopMany(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("SADD", "s", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10"), `(integer) 10`},
	})
	te.do("SPOP", "s", "3")
	te.run([]step{
		{cmd("SCARD", "s"), `(integer) 7`},
		{cmd("OBJECT", "ENCODING", "s"), `"intset"`},
	})
	te.do("SPOP", "s", "6")
	te.run([]step{
		{cmd("SCARD", "s"), `(integer) 1`},
	})
}

func TestSetTTLKept(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("SADD", "s", "1", "2", "3", "4"), `(integer) 4`},
		{cmd("PEXPIRE", "s", "5000"), `(integer) 1`},
		{cmd("SADD", "s", "x"), `(integer) 1`},
		{cmd("SREM", "s", "1"), `(integer) 1`},
		{cmd("SMOVE", "s", "d", "2"), `(integer) 1`},
		{cmd("PTTL", "s"), `(integer) 5000`},
		{cmd("PTTL", "d"), `(integer) -1`},
	})
	te.do("SPOP", "s")
	te.run([]step{{cmd("PTTL", "s"), `(integer) 5000`}})
	te.do("SPOP", "s", "10")
	te.run([]step{{cmd("EXISTS", "s"), `(integer) 0`}})
	te.Clock.FastForward(5 * time.Second)
	te.run([]step{{cmd("SMEMBERS", "d"), `["2"]`}})
}

func TestSetRandom(t *testing.T) {
	te := newTestEngine(t)
	for _, members := range [][]string{{"1", "2", "3", "4", "5"}, {"a", "b", "c", "d", "e"}} {
		te.do("DEL", "s")
		te.do(append([]string{"SADD", "s"}, members...)...)
		in := map[string]bool{}
		for _, m := range members {
			in[m] = true
		}
		check := func(r Reply, n int, distinct bool) {
			t.Helper()
			if len(r.Elems) != n {
				t.Fatalf("%d elements, want %d: %s", len(r.Elems), n, r)
			}
			seen := map[string]bool{}
			for _, e := range r.Elems {
				if !in[e.Str] || (distinct && seen[e.Str]) {
					t.Fatalf("bad reply %s", r)
				}
				seen[e.Str] = true
			}
		}
		for i := 0; i < 20; i++ {
			check(te.do("SRANDMEMBER", "s", "3"), 3, true)
			check(te.do("SRANDMEMBER", "s", "-8"), 8, false)
			check(te.do("SRANDMEMBER", "s", "9"), 5, true)
		}
		popped := te.do("SPOP", "s", "4") // few left: the remaining-set path
		check(popped, 4, true)
		last := te.do("SMEMBERS", "s")
		check(last, 1, true)
		for _, e := range popped.Elems {
			if e.Str == last.Elems[0].Str {
				t.Fatalf("%s popped and kept", e.Str)
			}
		}
	}
}

// TestSetAddManyMatchesAdd: the batched SADD gives the same set and
// encoding as adding members one at a time, as Redis does.
func TestSetAddManyMatchesAdd(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 200; round++ {
		var ms [][]byte
		for i := r.IntN(700); i >= 0; i-- {
			var m string
			switch r.IntN(20) {
			case 0:
				m = "x" + strconv.Itoa(r.IntN(100))
			case 1:
				m = "0" + strconv.Itoa(r.IntN(10))
			default:
				m = strconv.Itoa(r.IntN(2000) - 1000)
			}
			ms = append(ms, []byte(m))
		}
		a, b := newSetFor(ms[0]), newSetFor(ms[0])
		na := a.addMany(ms)
		nb := 0
		for _, m := range ms {
			if b.add(m) {
				nb++
			}
		}
		if na != nb || a.intset != b.intset || fmt.Sprint(a.ints, a.members) != fmt.Sprint(b.ints, b.members) {
			t.Fatalf("round %d: addMany %d %v, add %d %v", round, na, a.intset, nb, b.intset)
		}
		if !a.intset && !sort.StringsAreSorted(a.members) {
			t.Fatal("members not sorted")
		}
	}
}

func TestSetScanLarge(t *testing.T) {
	te := newTestEngine(t)
	args := []string{"SADD", "s"}
	for i := 0; i < 600; i++ {
		args = append(args, strconv.Itoa(i))
	}
	te.do(args...)
	if r := te.do("OBJECT", "ENCODING", "s"); r.Str != "hashtable" {
		t.Fatalf("encoding %s", r)
	}
	seen := te.scanFull("SSCAN", "s", 10, nil)
	if len(seen) != 600 {
		t.Fatalf("%d members returned", len(seen))
	}
	for m, n := range seen {
		if n != 1 {
			t.Errorf("%s returned %d times", m, n)
		}
	}
}
