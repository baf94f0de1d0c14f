package engine

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The expected replies of the table-driven tests in this file were produced
// by redis-server 7.0.15 (generated from the same steps run against it, and
// checked against the engine before being written down). Steps whose reply
// is random or in hash order are tested separately below.

// TestZsetZaddBasics: zadd basics.
func TestZsetZaddBasics(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("ZADD", "z", "1", "a", "2", "b", "3", "c"), `(integer) 3`},
		{cmd("ZADD", "z", "0.1", "d"), `(integer) 1`},
		{cmd("ZSCORE", "z", "d"), `0.10000000000000001`},
		{cmd("ZRANGE", "z", "0", "-1", "WITHSCORES"), `["d" 0.10000000000000001 "a" 1 "b" 2 "c" 3]`},
		{cmd("ZADD", "z", "5", "a"), `(integer) 0`},
		{cmd("ZADD", "z", "CH", "5", "a", "6", "b", "7", "e"), `(integer) 2`},
		{cmd("ZADD", "z", "NX", "10", "a", "11", "f"), `(integer) 1`},
		{cmd("ZADD", "z", "XX", "10", "a", "11", "g"), `(integer) 0`},
		{cmd("ZADD", "z", "XX", "CH", "10", "a", "11", "g"), `(integer) 0`},
		{cmd("ZADD", "z", "GT", "1", "a"), `(integer) 0`},
		{cmd("ZADD", "z", "GT", "CH", "100", "a"), `(integer) 1`},
		{cmd("ZADD", "z", "LT", "CH", "1", "a"), `(integer) 1`},
		{cmd("ZADD", "z", "LT", "200", "a"), `(integer) 0`},
		{cmd("ZADD", "z", "GT", "XX", "CH", "300", "a", "1", "h"), `(integer) 1`},
		{cmd("ZADD", "z", "nx", "xx", "1", "a"), `(error) ERR XX and NX options at the same time are not compatible`},
		{cmd("ZADD", "z", "nx", "gt", "1", "a"), `(error) ERR GT, LT, and/or NX options at the same time are not compatible`},
		{cmd("ZADD", "z", "nx", "lt", "1", "a"), `(error) ERR GT, LT, and/or NX options at the same time are not compatible`},
		{cmd("ZADD", "z", "gt", "lt", "1", "a"), `(error) ERR GT, LT, and/or NX options at the same time are not compatible`},
		{cmd("ZADD", "z", "incr", "1", "a", "2", "b"), `(error) ERR INCR option supports a single increment-element pair`},
		{cmd("ZADD", "z", "1"), `(error) ERR wrong number of arguments for 'zadd' command`},
		{cmd("ZADD", "z", "1", "a", "2"), `(error) ERR syntax error`},
		{cmd("ZADD", "z"), `(error) ERR wrong number of arguments for 'zadd' command`},
		{cmd("ZADD", "z", "x", "a"), `(error) ERR value is not a valid float`},
		{cmd("ZADD", "z", "1", "a", "x", "b"), `(error) ERR value is not a valid float`},
		{cmd("ZADD", "z", "nan", "a"), `(error) ERR value is not a valid float`},
		{cmd("ZADD", "z", "inf", "a"), `(integer) 0`},
		{cmd("ZSCORE", "z", "a"), `inf`},
		{cmd("ZADD", "z", "-inf", "a"), `(integer) 0`},
		{cmd("ZSCORE", "z", "a"), `-inf`},
		{cmd("ZADD", "z", "+inf", "a"), `(integer) 0`},
		{cmd("ZADD", "z", "1e400", "a"), `(error) ERR value is not a valid float`},
		{cmd("ZADD", "z", "1e-400", "a"), `(error) ERR value is not a valid float`},
		{cmd("ZADD", "z", "1e-310", "a"), `(integer) 0`},
		{cmd("ZSCORE", "z", "a"), `9.9999999999999694e-311`},
		{cmd("ZADD", "z", " 1", "a"), `(error) ERR value is not a valid float`},
		{cmd("ZADD", "z", "1 ", "a"), `(error) ERR value is not a valid float`},
		{cmd("ZADD", "z", "0x10", "a"), `(integer) 0`},
		{cmd("ZSCORE", "z", "a"), `16`},
		{cmd("ZADD", "z", "1.5e3", "a"), `(integer) 0`},
		{cmd("ZADD", "z", ".5", "a"), `(integer) 0`},
		{cmd("ZSCORE", "z", "a"), `0.5`},
		{cmd("ZADD", "z", "5.", "a"), `(integer) 0`},
		{cmd("ZADD", "z", "1e", "a"), `(error) ERR value is not a valid float`},
		{cmd("ZADD", "z", "", "a"), `(error) ERR value is not a valid float`},
		{cmd("ZADD", "z", "infinity", "a"), `(integer) 0`},
		{cmd("ZADD", "z", "-Infinity", "a"), `(integer) 0`},
		{cmd("ZSCORE", "z", "a"), `-inf`},
		{cmd("ZCARD", "z"), `(integer) 6`},
		{cmd("ZRANGE", "z", "0", "-1", "WITHSCORES"), `["a" -inf "d" 0.10000000000000001 "c" 3 "b" 6 "e" 7 "f" 11]`},
	})
}

// TestZsetZaddIncr: zadd incr.
func TestZsetZaddIncr(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("ZADD", "z", "INCR", "5", "a"), `5`},
		{cmd("ZADD", "z", "INCR", "2.5", "a"), `7.5`},
		{cmd("ZADD", "z", "INCR", "NX", "1", "a"), `(nil)`},
		{cmd("ZADD", "z", "INCR", "XX", "1", "nope"), `(nil)`},
		{cmd("ZADD", "z", "INCR", "XX", "1", "a"), `8.5`},
		{cmd("ZADD", "z", "INCR", "GT", "-1", "a"), `(nil)`},
		{cmd("ZADD", "z", "INCR", "LT", "-1", "a"), `7.5`},
		{cmd("ZADD", "z", "INCR", "GT", "1", "a"), `8.5`},
		{cmd("ZADD", "z", "INCR", "inf", "a"), `inf`},
		{cmd("ZADD", "z", "INCR", "-inf", "a"), `(error) ERR resulting score is not a number (NaN)`},
		{cmd("ZSCORE", "z", "a"), `inf`},
		{cmd("ZADD", "nokey", "XX", "1", "a"), `(integer) 0`},
		{cmd("ZADD", "nokey", "XX", "INCR", "1", "a"), `(nil)`},
		{cmd("EXISTS", "nokey"), `(integer) 0`},
		{cmd("ZINCRBY", "z", "1", "b"), `1`},
		{cmd("ZINCRBY", "z", "0.1", "b"), `1.1000000000000001`},
		{cmd("ZINCRBY", "z", "0.2", "b"), `1.3`},
		{cmd("ZINCRBY", "z", "x", "b"), `(error) ERR value is not a valid float`},
		{cmd("ZINCRBY", "z", "nx", "b"), `(error) ERR syntax error`},
		{cmd("ZINCRBY", "z", "incr", "b"), `(error) ERR syntax error`},
		{cmd("ZINCRBY", "z", "1e400", "b"), `(error) ERR value is not a valid float`},
		{cmd("ZINCRBY", "z", "inf", "c"), `inf`},
		{cmd("ZINCRBY", "z", "-inf", "c"), `(error) ERR resulting score is not a number (NaN)`},
		{cmd("ZSCORE", "z", "c"), `inf`},
	})
}

// TestZsetScoresFormat: scores format.
func TestZsetScoresFormat(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("ZADD", "z", "0.1", "a", "1e17", "b", "1e16", "c", "-0", "d", "123456789.123", "e", "3.0", "f", "1e-5", "g", "4611686018427387904", "h", "1.7976931348623157e308", "i"), `(integer) 9`},
		{cmd("ZRANGE", "z", "0", "-1", "WITHSCORES"), `["d" 0 "g" 1.0000000000000001e-05 "a" 0.10000000000000001 "f" 3 "e" 123456789.123 "c" 10000000000000000 "b" 1e+17 "h" 4.6116860184273879e+18 "i" 1.7976931348623157e+308]`},
		{cmd("ZSCORE", "z", "d"), `0`},
		{cmd("ZSCORE", "z", "b"), `1e+17`},
		{cmd("ZSCAN", "z", "0"), `["0" ["d" "0" "g" "1.0000000000000001e-05" "a" "0.10000000000000001" "f" "3" "e" "123456789.123" "c" "10000000000000000" "b" "100000000000000000" "h" "4611686018427387904" "i" "1.7976931348623157e+308"]]`},
		{cmd("ZMSCORE", "z", "a", "b", "nope", "d"), `[0.10000000000000001 1e+17 (nil) 0]`},
		{cmd("ZMSCORE", "nokey", "a", "b"), `[(nil) (nil)]`},
		{cmd("ZRANDMEMBER", "z", "0", "WITHSCORES"), `[]`},
	})
	te.do("ZRANDMEMBER", "z", "100", "WITHSCORES")
}

// TestZsetNegativeZeroSkiplist: negative zero skiplist.
func TestZsetNegativeZeroSkiplist(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("ZADD", "z", "1", strings.Repeat("a", 65)), `(integer) 1`},
		{cmd("OBJECT", "ENCODING", "z"), `"skiplist"`},
		{cmd("ZADD", "z", "-0", "m"), `(integer) 1`},
		{cmd("ZSCORE", "z", "m"), `-0`},
	})
	te.do("ZSCAN", "z", "0")
	te.run([]step{
		{cmd("ZRANGE", "z", "0", "-1", "WITHSCORES"), `["m" -0 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" 1]`},
		{cmd("ZADD", "y", "-0", strings.Repeat("b", 65)), `(integer) 1`},
		{cmd("ZSCORE", "y", strings.Repeat("b", 65)), `-0`},
		{cmd("ZADD", "x", "1", "a"), `(integer) 1`},
		{cmd("ZINCRBY", "x", "-0", "a"), `1`},
		{cmd("ZADD", "w", "-0", "a"), `(integer) 1`},
		{cmd("ZINCRBY", "w", "-0", "a"), `0`},
		{cmd("ZSCORE", "w", "a"), `0`},
	})
}

// TestZsetZrangeRank: zrange rank.
func TestZsetZrangeRank(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e"), `(integer) 5`},
		{cmd("ZRANGE", "z", "0", "-1"), `["a" "b" "c" "d" "e"]`},
		{cmd("ZRANGE", "z", "1", "3", "WITHSCORES"), `["b" 2 "c" 3 "d" 4]`},
		{cmd("ZRANGE", "z", "-2", "-1"), `["d" "e"]`},
		{cmd("ZRANGE", "z", "3", "1"), `[]`},
		{cmd("ZRANGE", "z", "10", "20"), `[]`},
		{cmd("ZRANGE", "z", "0", "-1", "REV"), `["e" "d" "c" "b" "a"]`},
		{cmd("ZRANGE", "z", "0", "1", "REV", "WITHSCORES"), `["e" 5 "d" 4]`},
		{cmd("ZREVRANGE", "z", "0", "1"), `["e" "d"]`},
		{cmd("ZREVRANGE", "z", "0", "-1", "WITHSCORES"), `["e" 5 "d" 4 "c" 3 "b" 2 "a" 1]`},
		{cmd("ZREVRANGE", "z", "0", "-1", "REV"), `(error) ERR syntax error`},
		{cmd("ZREVRANGE", "z", "0", "-1", "BYSCORE"), `(error) ERR syntax error`},
		{cmd("ZREVRANGE", "z", "0", "-1", "LIMIT", "0", "1"), `(error) ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX`},
		{cmd("ZRANGE", "z", "0", "-1", "LIMIT", "0", "1"), `(error) ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX`},
		{cmd("ZRANGE", "z", "0", "-1", "LIMIT", "0", "-1"), `["a" "b" "c" "d" "e"]`},
		{cmd("ZRANGE", "z", "0", "-1", "LIMIT", "0", "-2"), `(error) ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX`},
		{cmd("ZRANGE", "z", "0", "-1", "LIMIT", "0"), `(error) ERR syntax error`},
		{cmd("ZRANGE", "z", "0", "-1", "LIMIT", "x", "1"), `(error) ERR value is not an integer or out of range`},
		{cmd("ZRANGE", "z", "0", "-1", "LIMIT", "1", "x"), `(error) ERR value is not an integer or out of range`},
		{cmd("ZRANGE", "z", "x", "1"), `(error) ERR value is not an integer or out of range`},
		{cmd("ZRANGE", "z", "0", "1", "FOO"), `(error) ERR syntax error`},
		{cmd("ZRANGE", "z", "0", "1", "WITHSCORES", "WITHSCORES"), `["a" 1 "b" 2]`},
		{cmd("ZRANGE", "z", "0", "1", "REV", "REV"), `(error) ERR syntax error`},
		{cmd("ZRANGE", "z", "0", "1", "BYSCORE", "BYSCORE"), `(error) ERR syntax error`},
		{cmd("ZRANGE", "z", "0", "1", "BYSCORE", "BYLEX"), `(error) ERR syntax error`},
		{cmd("ZRANGE", "z", "(0", "1", "BYSCORE"), `["a"]`},
		{cmd("ZRANGE", "nokey", "0", "-1"), `[]`},
		{cmd("ZRANGE", "nokey", "x", "1"), `(error) ERR value is not an integer or out of range`},
		{cmd("ZRANGE", "nokey", "0", "-1", "BYLEX"), `(error) ERR min or max not valid string range item`},
	})
}

// TestZsetZrangeByscore: zrange byscore.
func TestZsetZrangeByscore(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e"), `(integer) 5`},
		{cmd("ZRANGE", "z", "2", "4", "BYSCORE"), `["b" "c" "d"]`},
		{cmd("ZRANGE", "z", "(2", "4", "BYSCORE"), `["c" "d"]`},
		{cmd("ZRANGE", "z", "2", "(4", "BYSCORE"), `["b" "c"]`},
		{cmd("ZRANGE", "z", "(2", "(4", "BYSCORE", "WITHSCORES"), `["c" 3]`},
		{cmd("ZRANGE", "z", "-inf", "+inf", "BYSCORE"), `["a" "b" "c" "d" "e"]`},
		{cmd("ZRANGE", "z", "-inf", "+inf", "BYSCORE", "LIMIT", "1", "2"), `["b" "c"]`},
		{cmd("ZRANGE", "z", "-inf", "+inf", "BYSCORE", "LIMIT", "1", "-1"), `["b" "c" "d" "e"]`},
		{cmd("ZRANGE", "z", "-inf", "+inf", "BYSCORE", "LIMIT", "-1", "2"), `[]`},
		{cmd("ZRANGE", "z", "-inf", "+inf", "BYSCORE", "LIMIT", "5", "2"), `[]`},
		{cmd("ZRANGE", "z", "-inf", "+inf", "BYSCORE", "LIMIT", "4", "2"), `["e"]`},
		{cmd("ZRANGE", "z", "-inf", "+inf", "BYSCORE", "LIMIT", "0", "0"), `[]`},
		{cmd("ZRANGE", "z", "4", "2", "BYSCORE", "REV"), `["d" "c" "b"]`},
		{cmd("ZRANGE", "z", "4", "2", "BYSCORE", "REV", "LIMIT", "1", "1", "WITHSCORES"), `["c" 3]`},
		{cmd("ZRANGE", "z", "2", "4", "BYSCORE", "REV"), `[]`},
		{cmd("ZRANGE", "z", "3", "3", "BYSCORE"), `["c"]`},
		{cmd("ZRANGE", "z", "(3", "3", "BYSCORE"), `[]`},
		{cmd("ZRANGE", "z", "x", "3", "BYSCORE"), `(error) ERR min or max is not a float`},
		{cmd("ZRANGE", "z", "1", "nan", "BYSCORE"), `(error) ERR min or max is not a float`},
		{cmd("ZRANGE", "z", "", "", "BYSCORE"), `[]`},
		{cmd("ZRANGE", "z", "(", "5", "BYSCORE"), `["a" "b" "c" "d" "e"]`},
		{cmd("ZRANGE", "z", " 1", "2", "BYSCORE"), `["a" "b"]`},
		{cmd("ZRANGE", "z", "1 ", "2", "BYSCORE"), `(error) ERR min or max is not a float`},
		{cmd("ZRANGE", "z", "0x1", "0x3", "BYSCORE"), `["a" "b" "c"]`},
		{cmd("ZRANGE", "z", "1e400", "-1e400", "BYSCORE", "REV"), `["e" "d" "c" "b" "a"]`},
		{cmd("ZRANGE", "z", "-1e400", "1e400", "BYSCORE"), `["a" "b" "c" "d" "e"]`},
		{cmd("ZRANGE", "z", " ", "5", "BYSCORE"), `(error) ERR min or max is not a float`},
		{cmd("ZRANGE", "z", "(", "5", "BYSCORE"), `["a" "b" "c" "d" "e"]`},
		{cmd("ZRANGE", "z", "((", "5", "BYSCORE"), `(error) ERR min or max is not a float`},
		{cmd("ZRANGE", "z", "2\x00", "5", "BYSCORE"), `["b" "c" "d" "e"]`},
		{cmd("ZRANGEBYSCORE", "z", "2", "4"), `["b" "c" "d"]`},
		{cmd("ZRANGEBYSCORE", "z", "2", "4", "WITHSCORES", "LIMIT", "1", "5"), `["c" 3 "d" 4]`},
		{cmd("ZRANGEBYSCORE", "z", "2", "4", "REV"), `(error) ERR syntax error`},
		{cmd("ZRANGEBYSCORE", "z", "2", "4", "BYSCORE"), `(error) ERR syntax error`},
		{cmd("ZRANGEBYSCORE", "z", "2", "4", "BYLEX"), `(error) ERR syntax error`},
		{cmd("ZRANGEBYSCORE", "z", "2", "x"), `(error) ERR min or max is not a float`},
		{cmd("ZRANGEBYSCORE", "z", "2", "4", "LIMIT", "1"), `(error) ERR syntax error`},
		{cmd("ZREVRANGEBYSCORE", "z", "4", "2"), `["d" "c" "b"]`},
		{cmd("ZREVRANGEBYSCORE", "z", "4", "2", "WITHSCORES", "LIMIT", "1", "1"), `["c" 3]`},
		{cmd("ZREVRANGEBYSCORE", "z", "2", "4"), `[]`},
		{cmd("ZREVRANGEBYSCORE", "z", "+inf", "-inf"), `["e" "d" "c" "b" "a"]`},
		{cmd("ZRANGEBYSCORE", "nokey", "0", "1"), `[]`},
		{cmd("ZRANGEBYSCORE", "nokey", "x", "1"), `(error) ERR min or max is not a float`},
		{cmd("ZCOUNT", "z", "2", "4"), `(integer) 3`},
		{cmd("ZCOUNT", "z", "(2", "4"), `(integer) 2`},
		{cmd("ZCOUNT", "z", "-inf", "+inf"), `(integer) 5`},
		{cmd("ZCOUNT", "z", "5", "1"), `(integer) 0`},
		{cmd("ZCOUNT", "z", "x", "1"), `(error) ERR min or max is not a float`},
		{cmd("ZCOUNT", "nokey", "0", "1"), `(integer) 0`},
		{cmd("ZCOUNT", "nokey", "x", "1"), `(error) ERR min or max is not a float`},
	})
}

// TestZsetZrangeBylex: zrange bylex.
func TestZsetZrangeBylex(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("ZADD", "z", "0", "a", "0", "b", "0", "c", "0", "d", "0", "e", "0", "f"), `(integer) 6`},
		{cmd("ZRANGE", "z", "-", "+", "BYLEX"), `["a" "b" "c" "d" "e" "f"]`},
		{cmd("ZRANGE", "z", "[b", "[d", "BYLEX"), `["b" "c" "d"]`},
		{cmd("ZRANGE", "z", "(b", "(d", "BYLEX"), `["c"]`},
		{cmd("ZRANGE", "z", "[b", "(d", "BYLEX", "LIMIT", "1", "5"), `["c"]`},
		{cmd("ZRANGE", "z", "+", "-", "BYLEX", "REV"), `["f" "e" "d" "c" "b" "a"]`},
		{cmd("ZRANGE", "z", "[d", "[b", "BYLEX", "REV"), `["d" "c" "b"]`},
		{cmd("ZRANGE", "z", "[d", "[b", "BYLEX", "REV", "LIMIT", "1", "1"), `["c"]`},
		{cmd("ZRANGE", "z", "-", "+", "BYLEX", "WITHSCORES"), `(error) ERR syntax error, WITHSCORES not supported in combination with BYLEX`},
		{cmd("ZRANGE", "z", "a", "b", "BYLEX"), `(error) ERR min or max not valid string range item`},
		{cmd("ZRANGE", "z", "-", "-", "BYLEX"), `[]`},
		{cmd("ZRANGE", "z", "+", "+", "BYLEX"), `[]`},
		{cmd("ZRANGE", "z", "+", "-", "BYLEX"), `[]`},
		{cmd("ZRANGE", "z", "[a", "[a", "BYLEX"), `["a"]`},
		{cmd("ZRANGE", "z", "(a", "[a", "BYLEX"), `[]`},
		{cmd("ZRANGE", "z", "[", "+", "BYLEX"), `["a" "b" "c" "d" "e" "f"]`},
		{cmd("ZRANGE", "z", "(", "+", "BYLEX"), `["a" "b" "c" "d" "e" "f"]`},
		{cmd("ZRANGE", "z", "", "+", "BYLEX"), `(error) ERR min or max not valid string range item`},
		{cmd("ZRANGE", "z", "-x", "+", "BYLEX"), `(error) ERR min or max not valid string range item`},
		{cmd("ZRANGE", "z", "-\x00", "+", "BYLEX"), `["a" "b" "c" "d" "e" "f"]`},
		{cmd("ZRANGEBYLEX", "z", "-", "+"), `["a" "b" "c" "d" "e" "f"]`},
		{cmd("ZRANGEBYLEX", "z", "-", "+", "LIMIT", "2", "2"), `["c" "d"]`},
		{cmd("ZRANGEBYLEX", "z", "-", "+", "WITHSCORES"), `(error) ERR syntax error, WITHSCORES not supported in combination with BYLEX`},
		{cmd("ZREVRANGEBYLEX", "z", "+", "-"), `["f" "e" "d" "c" "b" "a"]`},
		{cmd("ZREVRANGEBYLEX", "z", "[e", "(b"), `["e" "d" "c"]`},
		{cmd("ZREVRANGEBYLEX", "z", "[e", "(b", "LIMIT", "0", "2"), `["e" "d"]`},
		{cmd("ZLEXCOUNT", "z", "-", "+"), `(integer) 6`},
		{cmd("ZLEXCOUNT", "z", "[b", "[d"), `(integer) 3`},
		{cmd("ZLEXCOUNT", "z", "(b", "(b"), `(integer) 0`},
		{cmd("ZLEXCOUNT", "z", "x", "y"), `(error) ERR min or max not valid string range item`},
		{cmd("ZLEXCOUNT", "nokey", "-", "+"), `(integer) 0`},
		{cmd("ZLEXCOUNT", "nokey", "x", "y"), `(error) ERR min or max not valid string range item`},
		{cmd("ZRANGEBYLEX", "nokey", "-", "+"), `[]`},
		{cmd("ZRANGEBYLEX", "nokey", "x", "+"), `(error) ERR min or max not valid string range item`},
	})
}

// TestZsetBylexMixedScores: bylex mixed scores.
func TestZsetBylexMixedScores(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("ZADD", "z", "1", "b", "2", "a", "3", "d", "4", "c"), `(integer) 4`},
		{cmd("ZRANGE", "z", "-", "+", "BYLEX"), `["b" "a" "d" "c"]`},
		{cmd("ZRANGE", "z", "[a", "[c", "BYLEX"), `["b" "a"]`},
		{cmd("ZRANGE", "z", "[c", "[a", "BYLEX", "REV"), `["c" "d" "a" "b"]`},
		{cmd("ZLEXCOUNT", "z", "[a", "[c"), `(integer) 2`},
		{cmd("ZLEXCOUNT", "z", "[b", "[z"), `(integer) 4`},
		{cmd("ZREMRANGEBYLEX", "z", "[a", "[b"), `(integer) 2`},
		{cmd("ZRANGE", "z", "0", "-1", "WITHSCORES"), `["d" 3 "c" 4]`},
	})
}

// TestZsetZrankZrem: zrank zrem.
func TestZsetZrankZrem(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("ZADD", "z", "1", "a", "2", "b", "3", "c"), `(integer) 3`},
		{cmd("ZRANK", "z", "a"), `(integer) 0`},
		{cmd("ZRANK", "z", "c"), `(integer) 2`},
		{cmd("ZREVRANK", "z", "a"), `(integer) 2`},
		{cmd("ZRANK", "z", "nope"), `(nil)`},
		{cmd("ZRANK", "nokey", "a"), `(nil)`},
		{cmd("ZREVRANK", "nokey", "a"), `(nil)`},
		{cmd("ZREM", "z", "a", "nope"), `(integer) 1`},
		{cmd("ZREM", "z", "nope"), `(integer) 0`},
		{cmd("ZREM", "nokey", "a"), `(integer) 0`},
		{cmd("ZREM", "z", "b", "c", "a"), `(integer) 2`},
		{cmd("EXISTS", "z"), `(integer) 0`},
	})
}

// TestZsetZremrange: zremrange.
func TestZsetZremrange(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e"), `(integer) 5`},
		{cmd("ZREMRANGEBYRANK", "z", "0", "0"), `(integer) 1`},
		{cmd("ZREMRANGEBYRANK", "z", "-1", "-1"), `(integer) 1`},
		{cmd("ZREMRANGEBYRANK", "z", "5", "10"), `(integer) 0`},
		{cmd("ZREMRANGEBYRANK", "z", "x", "1"), `(error) ERR value is not an integer or out of range`},
		{cmd("ZRANGE", "z", "0", "-1"), `["b" "c" "d"]`},
		{cmd("ZREMRANGEBYSCORE", "z", "(2", "3"), `(integer) 1`},
		{cmd("ZREMRANGEBYSCORE", "z", "10", "20"), `(integer) 0`},
		{cmd("ZREMRANGEBYSCORE", "z", "x", "20"), `(error) ERR min or max is not a float`},
		{cmd("ZRANGE", "z", "0", "-1"), `["b" "d"]`},
		{cmd("ZREMRANGEBYSCORE", "z", "-inf", "+inf"), `(integer) 2`},
		{cmd("EXISTS", "z"), `(integer) 0`},
		{cmd("ZADD", "z", "0", "a", "0", "b", "0", "c"), `(integer) 3`},
		{cmd("ZREMRANGEBYLEX", "z", "[a", "(c"), `(integer) 2`},
		{cmd("ZREMRANGEBYLEX", "z", "x", "y"), `(error) ERR min or max not valid string range item`},
		{cmd("ZRANGE", "z", "0", "-1"), `["c"]`},
		{cmd("ZREMRANGEBYLEX", "z", "-", "+"), `(integer) 1`},
		{cmd("EXISTS", "z"), `(integer) 0`},
		{cmd("ZREMRANGEBYRANK", "nokey", "0", "1"), `(integer) 0`},
		{cmd("ZREMRANGEBYRANK", "nokey", "x", "1"), `(error) ERR value is not an integer or out of range`},
		{cmd("ZREMRANGEBYSCORE", "nokey", "0", "1"), `(integer) 0`},
		{cmd("ZREMRANGEBYSCORE", "nokey", "x", "1"), `(error) ERR min or max is not a float`},
		{cmd("ZREMRANGEBYLEX", "nokey", "-", "+"), `(integer) 0`},
		{cmd("ZREMRANGEBYLEX", "nokey", "x", "+"), `(error) ERR min or max not valid string range item`},
		{cmd("ZADD", "z", "1", "a", "2", "b", "3", "c"), `(integer) 3`},
		{cmd("ZREMRANGEBYRANK", "z", "0", "-1"), `(integer) 3`},
		{cmd("EXISTS", "z"), `(integer) 0`},
	})
}

// TestZsetZpop: zpop.
func TestZsetZpop(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d"), `(integer) 4`},
		{cmd("ZPOPMIN", "z"), `["a" 1]`},
		{cmd("ZPOPMAX", "z"), `["d" 4]`},
		{cmd("ZPOPMIN", "z", "0"), `[]`},
		{cmd("ZPOPMIN", "z", "5"), `["b" 2 "c" 3]`},
		{cmd("EXISTS", "z"), `(integer) 0`},
		{cmd("ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d"), `(integer) 4`},
		{cmd("ZPOPMAX", "z", "2"), `["d" 4 "c" 3]`},
		{cmd("ZPOPMIN", "z", "-1"), `(error) ERR value is out of range, must be positive`},
		{cmd("ZPOPMIN", "z", "x"), `(error) ERR value is out of range, must be positive`},
		{cmd("ZPOPMIN", "z", "1", "2"), `(error) ERR syntax error`},
		{cmd("ZPOPMIN", "nokey"), `[]`},
		{cmd("ZPOPMIN", "nokey", "2"), `[]`},
		{cmd("ZPOPMIN", "nokey", "0"), `[]`},
		{cmd("ZPOPMIN", "nokey", "x"), `(error) ERR value is out of range, must be positive`},
		{cmd("ZPOPMAX", "z", "1"), `["b" 2]`},
		{cmd("ZPOPMAX", "z", "1"), `["a" 1]`},
		{cmd("EXISTS", "z"), `(integer) 0`},
	})
}

// TestZsetZrandmember: zrandmember.
func TestZsetZrandmember(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("ZADD", "z", "1", "a", "2", "b", "3", "c"), `(integer) 3`},
	})
	te.do("ZRANDMEMBER", "z")
	te.do("ZRANDMEMBER", "z", "2")
	te.do("ZRANDMEMBER", "z", "-5", "WITHSCORES")
	te.do("ZRANDMEMBER", "z", "5")
	te.do("ZRANDMEMBER", "z", "3", "WITHSCORES")
	te.run([]step{
		{cmd("ZRANDMEMBER", "z", "0"), `[]`},
		{cmd("ZRANDMEMBER", "z", "x"), `(error) ERR value is not an integer or out of range`},
		{cmd("ZRANDMEMBER", "z", "1", "WITHSCORE"), `(error) ERR syntax error`},
		{cmd("ZRANDMEMBER", "z", "1", "WITHSCORES", "x"), `(error) ERR syntax error`},
		{cmd("ZRANDMEMBER", "z", "-9223372036854775808"), `(error) ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807`},
		{cmd("ZRANDMEMBER", "z", "9223372036854775807", "WITHSCORES"), `(error) ERR value is out of range`},
		{cmd("ZRANDMEMBER", "nokey"), `(nil)`},
		{cmd("ZRANDMEMBER", "nokey", "1"), `[]`},
		{cmd("ZRANDMEMBER", "nokey", "x"), `(error) ERR value is not an integer or out of range`},
	})
}

// TestZsetZscan: zscan.
func TestZsetZscan(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("ZADD", "z", "1", "a", "2.5", "b", "3", "c"), `(integer) 3`},
		{cmd("ZSCAN", "z", "0"), `["0" ["a" "1" "b" "2.5" "c" "3"]]`},
		{cmd("ZSCAN", "z", "0", "MATCH", "a*"), `["0" ["a" "1"]]`},
		{cmd("ZSCAN", "z", "0", "COUNT", "0"), `(error) ERR syntax error`},
		{cmd("ZSCAN", "z", "x"), `(error) ERR invalid cursor`},
		{cmd("ZSCAN", "nokey", "0"), `["0" []]`},
	})
}

// TestZsetEncodings: encodings.
func TestZsetEncodings(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("ZADD", "z", "1", strings.Repeat("a", 64)), `(integer) 1`},
		{cmd("OBJECT", "ENCODING", "z"), `"listpack"`},
		{cmd("ZADD", "z", "1", strings.Repeat("a", 65)), `(integer) 1`},
		{cmd("OBJECT", "ENCODING", "z"), `"skiplist"`},
		{cmd("ZREM", "z", strings.Repeat("a", 65)), `(integer) 1`},
		{cmd("OBJECT", "ENCODING", "z"), `"skiplist"`},
		{cmd("ZADD", "y", "1", strings.Repeat("a", 65)), `(integer) 1`},
		{cmd("OBJECT", "ENCODING", "y"), `"skiplist"`},
		{cmd("ZADD", "x", "1", "a"), `(integer) 1`},
		{cmd("ZADD", "x", "XX", "1", strings.Repeat("a", 65)), `(integer) 0`},
		{cmd("OBJECT", "ENCODING", "x"), `"listpack"`},
		{cmd("ZADD", "x", "2", "a"), `(integer) 0`},
		{cmd("OBJECT", "ENCODING", "x"), `"listpack"`},
	})
}

// TestZsetWrongtype: wrongtype.
func TestZsetWrongtype(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("SET", "s", "v"), `OK`},
		{cmd("ZADD", "s", "1", "a"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("ZADD", "s", "x", "a"), `(error) ERR value is not a valid float`},
		{cmd("ZADD", "s", "XX", "1", "a"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("ZINCRBY", "s", "1", "a"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("ZSCORE", "s", "a"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("ZMSCORE", "s", "a"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("ZREM", "s", "a"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("ZCARD", "s"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("ZCOUNT", "s", "0", "1"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("ZCOUNT", "s", "x", "1"), `(error) ERR min or max is not a float`},
		{cmd("ZLEXCOUNT", "s", "-", "+"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("ZRANGE", "s", "0", "1"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("ZRANGE", "s", "x", "1"), `(error) ERR value is not an integer or out of range`},
		{cmd("ZRANGEBYSCORE", "s", "0", "1"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("ZREVRANGE", "s", "0", "1"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("ZRANGEBYLEX", "s", "-", "+"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("ZREVRANGEBYLEX", "s", "+", "-"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("ZREVRANGEBYSCORE", "s", "1", "0"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("ZRANGE", "s", "0", "1", "BYSCORE"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("ZRANGE", "s", "x", "1", "BYSCORE"), `(error) ERR min or max is not a float`},
		{cmd("ZRANGE", "s", "-", "+", "BYLEX"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("ZRANK", "s", "a"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("ZREVRANK", "s", "a"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("ZREMRANGEBYRANK", "s", "0", "1"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("ZREMRANGEBYSCORE", "s", "0", "1"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("ZREMRANGEBYLEX", "s", "-", "+"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("ZPOPMIN", "s"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("ZPOPMIN", "s", "0"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("ZPOPMAX", "s", "2"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("ZRANDMEMBER", "s"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("ZRANDMEMBER", "s", "1"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("ZSCAN", "s", "0"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
	})
}

// TestZsetArity: arity.
func TestZsetArity(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("ZADD", "z", "1"), `(error) ERR wrong number of arguments for 'zadd' command`},
		{cmd("ZINCRBY", "z", "1"), `(error) ERR wrong number of arguments for 'zincrby' command`},
		{cmd("ZSCORE", "z"), `(error) ERR wrong number of arguments for 'zscore' command`},
		{cmd("ZMSCORE", "z"), `(error) ERR wrong number of arguments for 'zmscore' command`},
		{cmd("ZREM", "z"), `(error) ERR wrong number of arguments for 'zrem' command`},
		{cmd("ZCARD"), `(error) ERR wrong number of arguments for 'zcard' command`},
		{cmd("ZCOUNT", "z", "1"), `(error) ERR wrong number of arguments for 'zcount' command`},
		{cmd("ZRANGE", "z", "1"), `(error) ERR wrong number of arguments for 'zrange' command`},
		{cmd("ZRANK", "z"), `(error) ERR wrong number of arguments for 'zrank' command`},
		{cmd("ZPOPMIN"), `(error) ERR wrong number of arguments for 'zpopmin' command`},
		{cmd("ZRANDMEMBER"), `(error) ERR wrong number of arguments for 'zrandmember' command`},
		{cmd("ZSCAN", "z"), `(error) ERR wrong number of arguments for 'zscan' command`},
		{cmd("ZREMRANGEBYRANK", "z", "1"), `(error) ERR wrong number of arguments for 'zremrangebyrank' command`},
	})
}

func TestZsetTTLKept(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d"), `(integer) 4`},
		{cmd("PEXPIRE", "z", "5000"), `(integer) 1`},
		{cmd("ZADD", "z", "5", "e"), `(integer) 1`},
		{cmd("ZINCRBY", "z", "-1", "a"), `0`},
		{cmd("ZREM", "z", "b"), `(integer) 1`},
		{cmd("ZPOPMIN", "z"), `["a" 0]`},
		{cmd("ZREMRANGEBYSCORE", "z", "3", "3"), `(integer) 1`},
		{cmd("ZREMRANGEBYRANK", "z", "0", "0"), `(integer) 1`},
		{cmd("PTTL", "z"), `(integer) 5000`},
		{cmd("ZREMRANGEBYLEX", "z", "-", "+"), `(integer) 1`},
		{cmd("EXISTS", "z"), `(integer) 0`},
		{cmd("ZADD", "z", "1", "a"), `(integer) 1`},
		{cmd("PTTL", "z"), `(integer) -1`},
	})
	te.Clock.FastForward(time.Second)
}

// TestZsetFairLockTimeouts runs what Redisson's fair lock and permit
// semaphore do to their timeout sets.
func TestZsetFairLockTimeouts(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("ZADD", "tz", "1700000030000", "t1"), `(integer) 1`},
		{cmd("ZADD", "tz", "1700000035000", "t2"), `(integer) 1`},
		{cmd("ZSCORE", "tz", "t1"), `1700000030000`},
		{cmd("ZRANGE", "tz", "0", "-1"), `["t1" "t2"]`},
		{cmd("ZINCRBY", "tz", "-5000", "t2"), `1700000030000`},
		{cmd("ZRANGE", "tz", "0", "0", "WITHSCORES"), `["t1" 1700000030000]`},
		{cmd("ZRANGEBYSCORE", "tz", "0", "1700000030000", "limit", "0", "1"), `["t1"]`},
		{cmd("ZCOUNT", "tz", "0", "+inf"), `(integer) 2`},
		{cmd("ZREM", "tz", "t1", "t2"), `(integer) 2`},
		{cmd("EXISTS", "tz"), `(integer) 0`},
	})
}

// TestZsetHundredThousand: one ZADD of 100k pairs builds a sorted set that
// the usual commands then answer correctly (no timing assertion: the
// point is that nothing is quadratic). The replies are redis-server's for
// the same commands.
func TestZsetHundredThousand(t *testing.T) {
	te := newTestEngine(t)
	const n = 100000
	args := make([]string, 0, 2+2*n)
	args = append(args, "ZADD", "big")
	for i := 0; i < n; i++ {
		// scores repeat so that ties are ordered by member
		args = append(args, strconv.Itoa(i/10), fmt.Sprintf("m%06d", n-1-i))
	}
	te.run([]step{
		{args, `(integer) 100000`},
		{cmd("ZCARD", "big"), `(integer) 100000`},
		{cmd("OBJECT", "ENCODING", "big"), `"skiplist"`},
		{cmd("ZSCORE", "big", "m000000"), `9999`},
		{cmd("ZSCORE", "big", "m099999"), `0`},
		{cmd("ZSCORE", "big", "nope"), `(nil)`},
		{cmd("ZRANK", "big", "m099990"), `(integer) 0`},
		{cmd("ZRANK", "big", "m099999"), `(integer) 9`},
		{cmd("ZREVRANK", "big", "m000009"), `(integer) 0`},
		{cmd("ZRANGE", "big", "0", "2", "WITHSCORES"), `["m099990" 0 "m099991" 0 "m099992" 0]`},
		{cmd("ZRANGE", "big", "-1", "-1"), `["m000009"]`},
		{cmd("ZRANGE", "big", "5000", "(5001", "BYSCORE", "LIMIT", "8", "5"), `["m049998" "m049999"]`},
		{cmd("ZCOUNT", "big", "100", "199"), `(integer) 1000`},
		{cmd("ZADD", "big", "-1", "first"), `(integer) 1`},
		{cmd("ZADD", "big", "CH", "10000", "m099999"), `(integer) 1`},
		{cmd("ZRANK", "big", "first"), `(integer) 0`},
		{cmd("ZREVRANK", "big", "m099999"), `(integer) 0`},
		{cmd("ZINCRBY", "big", "0.5", "m050000"), `4999.5`},
		{cmd("ZRANGE", "big", "4999", "5000", "BYSCORE", "LIMIT", "9", "3"), `["m050000" "m049990" "m049991"]`},
		{cmd("ZREM", "big", "first", "m000000"), `(integer) 2`},
		{cmd("ZCARD", "big"), `(integer) 99999`},
		{cmd("ZPOPMAX", "big"), `["m099999" 10000]`},
		{cmd("ZREMRANGEBYRANK", "big", "0", "9"), `(integer) 10`},
		{cmd("ZRANGE", "big", "0", "0"), `["m099981"]`},
	})
	// 1000 lookups in one ZMSCORE go through an index, not 1000 scans.
	ms := []string{"ZMSCORE", "big"}
	for i := 0; i < 1000; i++ {
		ms = append(ms, fmt.Sprintf("m%06d", i))
	}
	if r := te.do(ms...); len(r.Elems) != 1000 || r.Elems[0].Kind != KindNull || r.Elems[1].String() != "9999" {
		t.Errorf("ZMSCORE: %d elements, %s %s", len(r.Elems), r.Elems[0], r.Elems[1])
	}
}

// TestZsetModel checks ZADD's options, ZINCRBY, ZREM and ordering against a
// plain map model over random operations.
func TestZsetModel(t *testing.T) {
	te := newTestEngine(t)
	r := rand.New(rand.NewPCG(3, 4))
	model := map[string]float64{}
	opts := [][]string{nil, {"NX"}, {"XX"}, {"GT"}, {"LT"}, {"XX", "GT"}, {"CH"}}
	for step := 0; step < 3000; step++ {
		switch r.IntN(4) {
		case 0, 1:
			o := opts[r.IntN(len(opts))]
			args := append([]string{"ZADD", "z"}, o...)
			for i := r.IntN(6); i >= 0; i-- {
				m := fmt.Sprintf("m%d", r.IntN(300))
				sc := float64(r.IntN(50))
				args = append(args, strconv.FormatFloat(sc, 'f', -1, 64), m)
				// apply in order, as Redis does
				cur, exists := model[m]
				has := func(s string) bool {
					for _, x := range o {
						if x == s {
							return true
						}
					}
					return false
				}
				switch {
				case exists && has("NX"):
				case !exists && has("XX"):
				case exists && has("GT") && sc <= cur:
				case exists && has("LT") && sc >= cur:
				default:
					model[m] = sc
				}
			}
			te.do(args...)
		case 2:
			m := fmt.Sprintf("m%d", r.IntN(300))
			te.do("ZINCRBY", "z", "1", m)
			model[m]++
		case 3:
			m := fmt.Sprintf("m%d", r.IntN(300))
			te.do("ZREM", "z", m)
			delete(model, m)
		}
	}
	type ent struct {
		m string
		s float64
	}
	var want []ent
	for m, s := range model {
		want = append(want, ent{m, s})
	}
	sort.Slice(want, func(i, j int) bool {
		if want[i].s != want[j].s {
			return want[i].s < want[j].s
		}
		return want[i].m < want[j].m
	})
	got := te.do("ZRANGE", "z", "0", "-1", "WITHSCORES")
	if len(got.Elems) != 2*len(want) {
		t.Fatalf("%d elements, want %d", len(got.Elems)/2, len(want))
	}
	for i, w := range want {
		if got.Elems[2*i].Str != w.m || got.Elems[2*i+1].Double != w.s {
			t.Fatalf("position %d: %s %s, want %s %v", i, got.Elems[2*i], got.Elems[2*i+1], w.m, w.s)
		}
	}
}

// TestZsetRESP3: WITHSCORES pairs and counted pops are nested arrays, and
// scores are doubles.
func TestZsetRESP3(t *testing.T) {
	te := newTestEngine(t)
	te.s.SetProto(3)
	te.do("ZADD", "z", "1", "a", "2.5", "b", "3", "c")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{cmd("ZRANGE", "z", "0", "1", "WITHSCORES"), `[["a" 1] ["b" 2.5]]`},
		{cmd("ZRANGE", "z", "0", "1"), `["a" "b"]`},
		{cmd("ZRANDMEMBER", "z", "-2", "WITHSCORES"), "pairs"},
		{cmd("ZPOPMIN", "z"), `["a" 1]`},
		{cmd("ZPOPMIN", "z", "1"), `[["b" 2.5]]`},
		{cmd("ZSCORE", "z", "c"), `3`},
	} {
		r := te.do(tc.args...)
		if tc.want == "pairs" {
			if len(r.Elems) != 2 || len(r.Elems[0].Elems) != 2 || r.Elems[0].Elems[1].Kind != KindDouble {
				t.Errorf("%q: %s", tc.args, r)
			}
			continue
		}
		if r.String() != tc.want {
			t.Errorf("%q: got %s, want %s", tc.args, r, tc.want)
		}
	}
	if r := te.do("ZSCORE", "z", "c"); r.Kind != KindDouble {
		t.Errorf("ZSCORE kind %v", r.Kind)
	}
}

func TestZsetRandmember(t *testing.T) {
	te := newTestEngine(t)
	te.do("ZADD", "z", "1", "a", "2", "b", "3", "c")
	scores := map[string]float64{"a": 1, "b": 2, "c": 3}
	for i := 0; i < 20; i++ {
		r := te.do("ZRANDMEMBER", "z", "2", "WITHSCORES")
		if len(r.Elems) != 4 || r.Elems[0].Str == r.Elems[2].Str ||
			scores[r.Elems[0].Str] != r.Elems[1].Double || scores[r.Elems[2].Str] != r.Elems[3].Double {
			t.Fatalf("ZRANDMEMBER 2 WITHSCORES: %s", r)
		}
		if r := te.do("ZRANDMEMBER", "z", "-5"); len(r.Elems) != 5 {
			t.Fatalf("ZRANDMEMBER -5: %s", r)
		}
		if r := te.do("ZRANDMEMBER", "z"); scores[r.Str] == 0 {
			t.Fatalf("ZRANDMEMBER: %s", r)
		}
	}
}

func TestZsetScanLarge(t *testing.T) {
	te := newTestEngine(t)
	args := []string{"ZADD", "z"}
	for i := 0; i < 300; i++ {
		args = append(args, strconv.Itoa(i), "m"+strconv.Itoa(i))
	}
	te.do(args...)
	seen := te.scanFull("ZSCAN", "z", 20, nil)
	if len(seen) != 300 {
		t.Fatalf("%d members returned", len(seen))
	}
	r := te.do("ZSCAN", "z", "0", "MATCH", "m299", "COUNT", "1000")
	if r.String() != `["0" ["m299" "299"]]` {
		t.Errorf("ZSCAN MATCH: %s", r)
	}
}
