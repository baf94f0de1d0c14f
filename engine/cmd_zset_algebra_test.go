package engine

import (
	"math"
	"testing"
)

func TestZsetAggregate(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	for _, tc := range []struct {
		target, val float64
		agg         zaggregate
		want        float64
	}{
		{1, 2, aggrSum, 3},
		{inf, -inf, aggrSum, 0}, // NaN becomes 0
		{1, nan, aggrSum, 0},
		{1, 2, aggrMin, 1},
		{2, 1, aggrMin, 1},
		{1, nan, aggrMin, 1}, // a NaN never wins a comparison
		{1, 2, aggrMax, 2},
		{1, nan, aggrMax, 1},
		{-inf, inf, aggrMax, inf},
	} {
		got := tc.target
		aggregate(&got, tc.val, tc.agg)
		if got != tc.want {
			t.Errorf("aggregate(%v, %v, %d) = %v, want %v", tc.target, tc.val, tc.agg, got, tc.want)
		}
	}
}

func TestZsetAlgebra(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("ZADD", "a", "1", "x", "2", "y", "3", "z"), `(integer) 3`},
		{cmd("ZADD", "b", "10", "y", "20", "z", "30", "w"), `(integer) 3`},
		{cmd("SADD", "s", "x", "w"), `(integer) 2`},
		{cmd("ZUNION", "2", "a", "b", "WITHSCORES"), `["x" 1 "y" 12 "z" 23 "w" 30]`},
		{cmd("ZUNION", "2", "a", "b", "WEIGHTS", "2", "0.5", "AGGREGATE", "MAX"), `["x" "y" "z" "w"]`},
		{cmd("ZINTER", "2", "a", "b", "AGGREGATE", "MIN", "WITHSCORES"), `["y" 2 "z" 3]`},
		{cmd("ZINTER", "2", "a", "s", "WITHSCORES"), `["x" 2]`},
		{cmd("ZDIFF", "2", "a", "b", "WITHSCORES"), `["x" 1]`},
		{cmd("ZDIFF", "2", "a", "a"), `[]`},
		{cmd("ZINTERCARD", "2", "a", "b", "LIMIT", "1"), `(integer) 1`},
		{cmd("ZUNION", "0", "a"), `(error) ERR at least 1 input key is needed for 'zunion' command`},
		{cmd("ZINTERSTORE", "d", "0", "a"), `(error) ERR at least 1 input key is needed for 'zinterstore' command`},
		{cmd("ZUNION", "3", "a", "b"), `(error) ERR syntax error`},
		{cmd("ZUNION", "1", "a", "WEIGHTS", "x"), `(error) ERR weight value is not a float`},
		{cmd("ZDIFF", "1", "a", "WEIGHTS", "1"), `(error) ERR syntax error`},
		{cmd("ZUNIONSTORE", "d", "1", "a", "WITHSCORES"), `(error) ERR syntax error`},
		{cmd("SET", "str", "v"), `OK`},
		// Keys are checked before the options.
		{cmd("ZUNION", "2", "a", "str", "WEIGHTS", "x"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("ZUNIONSTORE", "str", "2", "a", "b"), `(integer) 4`},
		{cmd("OBJECT", "ENCODING", "str"), `"listpack"`},
		{cmd("ZDIFFSTORE", "str", "2", "a", "a"), `(integer) 0`},
		{cmd("EXISTS", "str"), `(integer) 0`},
	})
}

// +inf and -inf add up to 0, and 0 × inf (a NaN) starts as 0.
func TestZsetAlgebraInfinities(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("ZADD", "a", "inf", "x", "-inf", "y"), `(integer) 2`},
		{cmd("ZADD", "b", "-inf", "x", "-inf", "y"), `(integer) 2`},
		{cmd("ZUNION", "2", "a", "b", "WITHSCORES"), `["y" -inf "x" 0]`},
		{cmd("ZINTER", "2", "a", "b", "WEIGHTS", "0", "1", "WITHSCORES"), `["x" -inf "y" -inf]`},
		{cmd("ZINTER", "2", "a", "b", "WEIGHTS", "1", "0", "AGGREGATE", "MAX", "WITHSCORES"), `["y" -inf "x" inf]`},
	})
}

// A stored result is a listpack up to 128 members of up to 64 bytes, as
// zsetConvertToListpackIfNeeded decides; a listpack stores -0 as 0.
func TestZsetAlgebraStoreEncoding(t *testing.T) {
	te := newTestEngine(t)
	for i := 0; i < 130; i++ {
		te.do("ZADD", "big", itoa(i), "m"+itoa(i))
	}
	te.run([]step{
		{cmd("ZADD", "z", "0", "a", "1", "b"), `(integer) 2`},
		{cmd("ZUNIONSTORE", "d", "1", "z", "WEIGHTS", "-1"), `(integer) 2`},
		{cmd("ZRANGE", "d", "0", "-1", "WITHSCORES"), `["b" -1 "a" 0]`},
		{cmd("ZUNION", "1", "z", "WEIGHTS", "-1", "WITHSCORES"), `["b" -1 "a" -0]`},
		{cmd("ZUNIONSTORE", "d", "1", "big"), `(integer) 130`},
		{cmd("OBJECT", "ENCODING", "d"), `"skiplist"`},
		{cmd("ZRANGESTORE", "d", "big", "0", "127"), `(integer) 128`},
		{cmd("OBJECT", "ENCODING", "d"), `"listpack"`},
		{cmd("ZRANGESTORE", "d", "big", "0", "128"), `(integer) 129`},
		{cmd("OBJECT", "ENCODING", "d"), `"skiplist"`},
		{cmd("ZRANGESTORE", "d", "big", "(5", "7", "BYSCORE"), `(integer) 2`},
		{cmd("ZRANGE", "d", "0", "-1", "WITHSCORES"), `["m6" 6 "m7" 7]`},
		{cmd("ZRANGESTORE", "d", "big", "7", "5", "BYSCORE", "REV", "LIMIT", "1", "5"), `(integer) 2`},
		{cmd("ZRANGE", "d", "0", "-1"), `["m5" "m6"]`},
		{cmd("ZRANGESTORE", "d", "big", "0", "1", "WITHSCORES"), `(error) ERR syntax error`},
		{cmd("ZRANGESTORE", "d", "nokey", "0", "-1"), `(integer) 0`},
		{cmd("EXISTS", "d"), `(integer) 0`},
	})
}
