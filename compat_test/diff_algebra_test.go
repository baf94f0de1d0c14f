package compat

import (
	"math/rand"
	"strconv"
	"strings"
	"testing"
)

// Differential tests for set, sorted set and list algebra and multi-pops:
// SINTER/SUNION/SDIFF (and STORE, SINTERCARD), ZUNION/ZINTER/ZDIFF (and
// STORE, ZINTERCARD), ZRANGESTORE, LMPOP, ZMPOP; the blocking forms
// (BLMPOP, BZMPOP, BZPOPMIN, BZPOPMAX) are in TestDiffBlockingAlgebra.
// Results of hashtable sets come in an arbitrary order in Redis and are
// compared unordered; intset results come sorted and are compared exactly.

// algSeq returns n words: prefix0 prefix1 ... prefix(n-1).
func algSeq(n int, prefix string) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = prefix + strconv.Itoa(i)
	}
	return strings.Join(parts, " ")
}

func TestDiffSetAlgebra(t *testing.T) {
	runDiffCases(t, []diffCase{
		{name: "sinter", steps: steps(
			"SADD a 1 2 3 4", "SADD b 3 4 5", "SADD c 4 3 10",
			"SINTER a b", "SINTER a b c", "SINTER a", "SINTER a a", "SINTER b a b",
			"SINTER a nokey", "SINTER nokey a", "SINTER nokey",
			"SADD h x y 3 4", unordered("SINTER h a"), unordered("SINTER a h"), unordered("SINTER h h"),
			"SADD h2 x z", unordered("SINTER h h2"), "SINTER h2 a",
			"SINTER", "sinter a B",
		)},
		{name: "sinter-wrongtype", steps: steps(
			"SADD a 1 2", "SET s v", "ZADD z 1 a", "RPUSH l a", "HSET hh f v",
			"SINTER a s", "SINTER s a", "SINTER nokey s", "SINTER s nokey", "SINTER a z", "SINTER l",
			"SINTER hh a", "SINTERCARD 2 a s", "SINTERCARD 2 nokey s", "SINTERSTORE d a s", "EXISTS d",
		)},
		{name: "sintercard", steps: steps(
			"SADD a 1 2 3 4 x y", "SADD b 2 3 4 x z", "SADD c 3 4 x",
			"SINTERCARD 1 a", "SINTERCARD 2 a b", "SINTERCARD 3 a b c", "SINTERCARD 2 a nokey",
			"SINTERCARD 2 a b LIMIT 0", "SINTERCARD 2 a b LIMIT 1", "SINTERCARD 2 a b LIMIT 2",
			"SINTERCARD 2 a b LIMIT 100", "SINTERCARD 2 a b limit 3", "SINTERCARD 1 a LIMIT 2 LIMIT 3",
			"SINTERCARD 2 a b LIMIT -1", "SINTERCARD 2 a b LIMIT x", "SINTERCARD 2 a b LIMIT",
			"SINTERCARD 2 a b FOO", "SINTERCARD 2 a b c", "SINTERCARD 0 a", "SINTERCARD -1 a",
			"SINTERCARD x a", "SINTERCARD 3 a b", "SINTERCARD 2 a", "SINTERCARD 1", "SINTERCARD",
			"SINTERCARD 99999999999999999999 a", "SINTERCARD 1.5 a",
		)},
		{name: "sunion", steps: steps(
			"SADD a 1 2 3", "SADD b 3 4 5", "SADD h x y 1",
			"SUNION a b", "SUNION a nokey b", "SUNION nokey", "SUNION a", "SUNION a a",
			unordered("SUNION a h"), unordered("SUNION h b nokey"), "SUNION", "SET s v", "SUNION a s",
			"SUNION nokey s", "SUNION s nokey",
		)},
		{name: "sdiff", steps: steps(
			"SADD a 1 2 3 4 5", "SADD b 3 4", "SADD c 5 6", "SADD h x y 1 2",
			"SDIFF a b", "SDIFF a b c", "SDIFF a nokey", "SDIFF nokey a", "SDIFF a", "SDIFF a a",
			"SDIFF a b a", "SDIFF b a", unordered("SDIFF h a"), "SDIFF a h", "SDIFF nokey nokey",
			"SDIFF", "SET s v", "SDIFF a s", "SDIFF nokey s", "SDIFF s",
		)},
		{name: "stores", steps: steps(
			"SADD a 1 2 3 4", "SADD b 3 4 5", "SADD h x y 3",
			"SINTERSTORE d a b", "SMEMBERS d", "OBJECT ENCODING d", "TYPE d",
			"SUNIONSTORE d a b", "SMEMBERS d", "OBJECT ENCODING d",
			"SDIFFSTORE d a b", "SMEMBERS d", "OBJECT ENCODING d",
			"SUNIONSTORE d a h", unordered("SMEMBERS d"), "OBJECT ENCODING d",
			"SINTERSTORE d h a", "SMEMBERS d", "OBJECT ENCODING d",
			"SDIFFSTORE d h a", unordered("SMEMBERS d"), "OBJECT ENCODING d",
			// An empty result deletes the destination, whatever it held.
			"SINTERSTORE d a nokey", "EXISTS d", "SINTERSTORE d a nokey", "SET d v",
			"SUNIONSTORE d nokey", "EXISTS d", "SET d v", "SDIFFSTORE d b b", "EXISTS d",
			"SET d v", "SINTERSTORE d a b", "TYPE d", "SMEMBERS d",
			// A destination's TTL goes with it.
			"SADD e 1", "EXPIRE e 100", "SUNIONSTORE e a", "TTL e",
			// The destination may be a source.
			"SUNIONSTORE a a b", "SMEMBERS a", "SDIFFSTORE a a b", "SMEMBERS a",
			"SINTERSTORE b b a", "SMEMBERS b", "SINTERSTORE", "SINTERSTORE d", "SUNIONSTORE d",
			"SDIFFSTORE d", "SET s v", "SUNIONSTORE d a s", "SMEMBERS d", "SDIFFSTORE d s", "SMEMBERS d",
		)},
		{name: "intset-limits", steps: steps(
			"SADD a "+algSeq(600, ""), "SADD b "+algSeq(300, ""), "SADD c "+algSeq(300, "1"),
			"SUNIONSTORE d b c", "SCARD d", "OBJECT ENCODING d", "SINTERSTORE d a b", "OBJECT ENCODING d",
			"SCARD d", "SDIFFSTORE d a c", "SCARD d", "OBJECT ENCODING d", "SINTER b c", "SINTERCARD 2 a b",
			"SINTERCARD 2 a b LIMIT 7", unordered("SDIFF b c"), unordered("SINTER a c"),
			"SADD neg -5 -1 0 7 -9223372036854775808 9223372036854775807", "SUNION neg", "SDIFF neg a",
			"SINTER neg a", "SADD big 18446744073709551616 1", unordered("SUNION big neg"),
		)},
		{name: "multi-and-eval", needs: []string{"eval"}, steps: steps(
			"SADD a 1 2 3", "SADD b 2 3 4",
			"MULTI", "SINTER a b", "SUNIONSTORE d a b", "SDIFF d a", "SINTERCARD 2 a b LIMIT 1", "EXEC",
			"MULTI", "SINTER a", "SINTERCARD 0 a", "SINTERSTORE", "EXEC",
			"EVAL \"return redis.call('SINTER', KEYS[1], KEYS[2])\" 2 a b",
			"EVAL \"return redis.call('SUNION', KEYS[1], KEYS[2])\" 2 a b",
			"EVAL \"return redis.call('SDIFFSTORE', KEYS[1], KEYS[2], KEYS[3])\" 3 d a b",
			"SMEMBERS d",
			"EVAL \"return redis.call('SINTERCARD', 2, KEYS[1], KEYS[2])\" 2 a b",
			"EVAL \"return redis.call('SINTERCARD', 0, KEYS[1])\" 1 a",
			"EVAL \"return redis.pcall('SINTER')\" 0",
			"EVAL \"return redis.call('SINTERSTORE', KEYS[1], KEYS[2])\" 2 d nokey", "EXISTS d",
		)},
	})
}

func TestDiffZsetAlgebra(t *testing.T) {
	runDiffCases(t, []diffCase{
		{name: "zunion", steps: steps(
			"ZADD a 1 x 2 y 3 z", "ZADD b 10 y 20 z 30 w",
			"ZUNION 2 a b", "ZUNION 2 a b WITHSCORES", "ZUNION 1 a withscores", "ZUNION 2 a nokey WITHSCORES",
			"ZUNION 2 a b WEIGHTS 2 0.5 WITHSCORES", "ZUNION 2 a b AGGREGATE MIN WITHSCORES",
			"ZUNION 2 a b AGGREGATE max WITHSCORES", "ZUNION 2 a b AGGREGATE SUM WEIGHTS 1 -1 WITHSCORES",
			"ZUNION 2 a b WEIGHTS 1 2 AGGREGATE MAX WEIGHTS 3 4 WITHSCORES WITHSCORES",
			"ZUNION 2 a a WITHSCORES", "ZUNION 1 nokey", "ZUNION 2 nokey nokey2 WITHSCORES",
			"ZUNION 3 a b a WEIGHTS 1 1 1 WITHSCORES",
		)},
		{name: "zinter", steps: steps(
			"ZADD a 1 x 2 y 3 z", "ZADD b 10 y 20 z 30 w", "ZADD c 5 z 6 w",
			"ZINTER 2 a b", "ZINTER 2 a b WITHSCORES", "ZINTER 3 a b c WITHSCORES", "ZINTER 2 a nokey",
			"ZINTER 2 a b WEIGHTS 2 3 WITHSCORES", "ZINTER 2 a b AGGREGATE MIN WITHSCORES",
			"ZINTER 2 a b AGGREGATE MAX WITHSCORES", "ZINTER 2 a a WITHSCORES", "ZINTER 1 a WEIGHTS -1 WITHSCORES",
			"ZINTER 2 b a WEIGHTS 0 1 AGGREGATE MAX withscores",
		)},
		{name: "zdiff", steps: steps(
			"ZADD a 1 x 2 y 3 z 4 w", "ZADD b 10 y 20 z", "ZADD c 5 w",
			"ZDIFF 1 a", "ZDIFF 2 a b", "ZDIFF 2 a b WITHSCORES", "ZDIFF 3 a b c WITHSCORES",
			"ZDIFF 2 a nokey WITHSCORES", "ZDIFF 2 nokey a", "ZDIFF 2 a a", "ZDIFF 3 a b a", "ZDIFF 2 b a",
			"ZDIFF 2 a b WEIGHTS 1 2", "ZDIFF 2 a b AGGREGATE SUM", "ZDIFF 1 a WITHSCORES WITHSCORES",
		)},
		{name: "zintercard", steps: steps(
			"ZADD a 1 x 2 y 3 z 4 w", "ZADD b 1 x 2 y 3 z", "SADD s x y q",
			"ZINTERCARD 1 a", "ZINTERCARD 2 a b", "ZINTERCARD 2 a nokey", "ZINTERCARD 3 a b s",
			"ZINTERCARD 2 a b LIMIT 0", "ZINTERCARD 2 a b LIMIT 2", "ZINTERCARD 2 a b limit 10",
			"ZINTERCARD 2 a b LIMIT 1 LIMIT 2", "ZINTERCARD 2 a b LIMIT -1", "ZINTERCARD 2 a b LIMIT x",
			"ZINTERCARD 2 a b LIMIT", "ZINTERCARD 2 a b WITHSCORES", "ZINTERCARD 2 a b WEIGHTS 1 2",
			"ZINTERCARD 2 a b AGGREGATE MIN", "ZINTERCARD 0 a", "ZINTERCARD -1 a", "ZINTERCARD x a",
			"ZINTERCARD 3 a b", "ZINTERCARD", "ZINTERCARD 1",
		)},
		{name: "set-inputs", steps: steps(
			"ZADD z 1 a 2 b 3 c", "SADD s b c d", "SADD i 1 2 3", "ZADD zi 5 1 6 7",
			"ZUNION 2 z s WITHSCORES", "ZINTER 2 z s WITHSCORES", "ZDIFF 2 z s WITHSCORES",
			"ZDIFF 2 s z WITHSCORES", "ZUNION 2 s i WEIGHTS 2 3 WITHSCORES", "ZINTER 2 i zi WITHSCORES",
			"ZUNION 1 s", "ZINTER 2 s s WITHSCORES", "ZDIFF 2 s s", "ZUNIONSTORE d 2 z s", "ZRANGE d 0 -1 WITHSCORES",
			"OBJECT ENCODING d", "ZINTERCARD 2 s i", "ZINTERCARD 2 s z",
		)},
		{name: "errors", steps: steps(
			"ZADD a 1 x", "SET str v", "RPUSH l a", "HSET h f v",
			"ZUNION 0 a", "ZUNION -1 a", "ZUNION x a", "ZUNION 1.5 a", "ZUNION 2 a", "ZUNION 3 a a",
			"ZUNION 99999999999999999999 a", "ZUNION", "ZUNION 1",
			"ZINTER 0 a", "ZDIFF 0 a", "ZUNIONSTORE d 0 a", "ZINTERSTORE d 0 a", "ZDIFFSTORE d 0 a",
			"ZUNIONSTORE d 2 a", "ZUNIONSTORE d x a", "ZUNIONSTORE d", "ZUNIONSTORE d 1",
			"ZUNION 1 str", "ZUNION 2 a str", "ZUNION 2 nokey l", "ZINTER 2 h a", "ZDIFF 2 a str",
			"ZUNIONSTORE d 1 str", "ZINTERCARD 2 a l", "ZUNION 2 a str WEIGHTS x y",
			"ZUNION 1 a WEIGHTS", "ZUNION 1 a WEIGHTS x", "ZUNION 1 a WEIGHTS nan", "ZUNION 1 a WEIGHTS ' 1'",
			"ZUNION 1 a WEIGHTS 1e400", "ZUNION 2 a a WEIGHTS 1", "ZUNION 2 a a WEIGHTS 1 1 1",
			"ZUNION 1 a WEIGHTS inf WITHSCORES", "ZUNION 1 a WEIGHTS -inf WITHSCORES", "ZUNION 1 a WEIGHTS 0x10 WITHSCORES",
			"ZUNION 1 a AGGREGATE", "ZUNION 1 a AGGREGATE avg", "ZUNION 1 a FOO", "ZUNIONSTORE d 1 a WITHSCORES",
			"ZINTERSTORE d 1 a WITHSCORES", "ZDIFFSTORE d 1 a WITHSCORES", "ZDIFF 1 a WEIGHTS 1",
			"ZDIFF 1 a AGGREGATE MIN", "ZINTER 1 a LIMIT 1", "ZUNION 1 a WITHSCORES FOO",
		)},
		{name: "nan-and-inf", steps: steps(
			"ZADD a inf x -inf y 1 z", "ZADD b -inf x inf y 0 z",
			"ZUNION 2 a b WITHSCORES", "ZINTER 2 a b WITHSCORES", "ZUNION 2 a b WEIGHTS 0 1 WITHSCORES",
			"ZINTER 2 a b WEIGHTS 0 0 WITHSCORES", "ZINTER 2 a b WEIGHTS 1 0 AGGREGATE MIN WITHSCORES",
			"ZINTER 2 a b WEIGHTS 1 0 AGGREGATE MAX WITHSCORES", "ZUNION 2 a b AGGREGATE MIN WITHSCORES",
			"ZUNION 2 a b AGGREGATE MAX WITHSCORES", "ZUNIONSTORE d 2 a b", "ZRANGE d 0 -1 WITHSCORES",
			"ZINTERSTORE d 2 a b WEIGHTS 0 0", "ZRANGE d 0 -1 WITHSCORES",
			"ZADD c 0.1 p 1e300 q -1e300 r", "ZADD e 0.2 p 1e300 q -1e300 r",
			"ZUNION 2 c e WITHSCORES", "ZUNION 2 c e WEIGHTS 1e10 1e10 WITHSCORES",
			"ZINTER 2 c e WEIGHTS -1 1 WITHSCORES", "ZINTERSTORE d 2 c e WEIGHTS -1 1", "ZRANGE d 0 -1 WITHSCORES",
			"ZADD zero 0 m", "ZUNION 1 zero WEIGHTS -1 WITHSCORES", "ZUNIONSTORE d 1 zero WEIGHTS -1",
			"ZSCORE d m", "ZRANGE d 0 -1 WITHSCORES",
		)},
		{name: "stores", steps: steps(
			"ZADD a 1 x 2 y 3 z", "ZADD b 10 y 20 z 30 w",
			"ZUNIONSTORE d 2 a b", "ZRANGE d 0 -1 WITHSCORES", "OBJECT ENCODING d", "TYPE d",
			"ZINTERSTORE d 2 a b WEIGHTS 1 2 AGGREGATE MAX", "ZRANGE d 0 -1 WITHSCORES",
			"ZDIFFSTORE d 2 a b", "ZRANGE d 0 -1 WITHSCORES",
			"ZINTERSTORE d 2 a nokey", "EXISTS d", "ZINTERSTORE d 2 a nokey", "SET d v", "ZDIFFSTORE d 2 a a",
			"EXISTS d", "SET d v", "ZUNIONSTORE d 1 a", "TYPE d", "EXPIRE d 100", "ZUNIONSTORE d 1 b", "TTL d",
			"ZUNIONSTORE a 2 a b", "ZRANGE a 0 -1 WITHSCORES", "ZINTERSTORE b 2 b a", "ZRANGE b 0 -1 WITHSCORES",
			"ZDIFFSTORE a 2 a b", "EXISTS a",
		)},
		{name: "store-encodings", steps: steps(
			"ZADD a "+strings.Join(h4Members(100, 1), " "), "ZADD b "+strings.Join(h4Members(140, 0.5), " "),
			"ZUNIONSTORE d 2 a b", "OBJECT ENCODING d", "ZCARD d", "ZINTERSTORE d 2 a b", "OBJECT ENCODING d",
			"ZDIFFSTORE d 2 b a", "OBJECT ENCODING d", "ZRANGE d 0 -1 WITHSCORES",
			"ZADD long 1 "+strings.Repeat("m", 65)+" 2 short", "ZUNIONSTORE d 1 long", "OBJECT ENCODING d",
			"ZDIFFSTORE d 2 long long2", "OBJECT ENCODING d", "ZINTERSTORE d 2 long a", "OBJECT ENCODING d",
			"ZADD neg -0 n", "ZUNIONSTORE d 1 b WEIGHTS -0", "ZRANGE d 0 3 WITHSCORES", "OBJECT ENCODING d",
			"ZUNIONSTORE d 2 b long WEIGHTS -0 1", "ZRANGE d 0 3 WITHSCORES", "OBJECT ENCODING d",
			"ZUNION 1 b WEIGHTS -0 WITHSCORES",
		)},
		{name: "zrangestore", steps: steps(
			"ZADD z 1 a 2 b 3 c 4 d 5 e",
			"ZRANGESTORE d z 0 -1", "ZRANGE d 0 -1 WITHSCORES", "ZRANGESTORE d z 1 2", "ZRANGE d 0 -1 WITHSCORES",
			"ZRANGESTORE d z 0 1 REV", "ZRANGE d 0 -1 WITHSCORES", "ZRANGESTORE d z 2 4 BYSCORE",
			"ZRANGE d 0 -1 WITHSCORES", "ZRANGESTORE d z (2 +inf BYSCORE LIMIT 1 2", "ZRANGE d 0 -1 WITHSCORES",
			"ZRANGESTORE d z 4 2 BYSCORE REV", "ZRANGE d 0 -1 WITHSCORES",
			"ZRANGESTORE d z +inf -inf BYSCORE REV LIMIT 0 2", "ZRANGE d 0 -1 WITHSCORES",
			"ZRANGESTORE d z [b (d BYLEX", "ZRANGE d 0 -1 WITHSCORES", "ZRANGESTORE d z + - BYLEX REV LIMIT 1 1",
			"ZRANGE d 0 -1 WITHSCORES", "OBJECT ENCODING d",
			"ZRANGESTORE d z 0 10 BYSCORE LIMIT 1 -1", "ZRANGE d 0 -1", "ZRANGESTORE d z 0 10 BYSCORE LIMIT -1 2",
			"EXISTS d", "ZRANGESTORE d z 1 3", "ZRANGESTORE d z -2 -1", "ZRANGE d 0 -1 WITHSCORES",
			"ZRANGESTORE d z (1 (1 BYSCORE", "ZRANGESTORE d z 5 10", "EXISTS d", "ZRANGESTORE d z 1 2", "ZRANGESTORE d nokey 0 -1", "EXISTS d",
			"SET d v", "ZRANGESTORE d z 0 0", "TYPE d", "ZRANGESTORE z z 1 2", "ZRANGE z 0 -1 WITHSCORES",
		)},
		{name: "zrangestore-errors", steps: steps(
			"ZADD z 1 a 2 b", "SET s v", "SADD set a",
			"ZRANGESTORE d z 0 -1 WITHSCORES", "ZRANGESTORE d z 0 -1 LIMIT 0 1", "ZRANGESTORE d z a b",
			"ZRANGESTORE d z a b BYSCORE", "ZRANGESTORE d z a b BYLEX", "ZRANGESTORE d z 0 1 BYSCORE BYLEX",
			"ZRANGESTORE d z 0 1 REV REV", "ZRANGESTORE d z 0 1 BYSCORE LIMIT x 1",
			"ZRANGESTORE d z 0 1 BYSCORE LIMIT 0", "ZRANGESTORE d z 0 1 FOO", "ZRANGESTORE d s 0 -1",
			"ZRANGESTORE d set 0 -1", "ZRANGESTORE s nokey 0 -1", "EXISTS s", "ZRANGESTORE d z 0",
			"ZRANGESTORE d z", "ZRANGESTORE", "ZRANGESTORE d s a b", "ZRANGESTORE d z 0 1 BYLEX",
		)},
		{name: "zrangestore-large", steps: steps(
			"ZADD z "+strings.Join(h4Members(200, 1), " "),
			"ZRANGESTORE d z 0 127", "OBJECT ENCODING d", "ZRANGESTORE d z 0 128", "OBJECT ENCODING d",
			"ZRANGESTORE d z 0 1000 BYSCORE", "OBJECT ENCODING d", "ZCARD d",
			"ZRANGESTORE d z 10 137 BYSCORE", "OBJECT ENCODING d", "ZRANGESTORE d z - + BYLEX LIMIT 0 129", "OBJECT ENCODING d",
		)},
		{name: "multi-and-eval", needs: []string{"eval"}, steps: steps(
			"ZADD a 1 x 2 y", "ZADD b 3 y 4 z",
			"MULTI", "ZUNION 2 a b WITHSCORES", "ZINTERSTORE d 2 a b", "ZRANGESTORE e a 0 0", "ZDIFF 2 a b",
			"ZINTERCARD 2 a b", "ZUNION 0 a", "EXEC",
			"MULTI", "ZUNION 1", "EXEC",
			"EVAL \"return redis.call('ZUNION', 2, KEYS[1], KEYS[2], 'WITHSCORES')\" 2 a b",
			"EVAL \"return redis.call('ZINTERSTORE', KEYS[3], 2, KEYS[1], KEYS[2])\" 3 a b d",
			"EVAL \"return redis.call('ZRANGESTORE', KEYS[2], KEYS[1], 0, -1)\" 2 a e", "ZRANGE e 0 -1 WITHSCORES",
			"EVAL \"return redis.call('ZDIFF', 2, KEYS[1], KEYS[2], 'WITHSCORES')\" 2 a b",
			"EVAL \"return redis.call('ZINTERCARD', 2, KEYS[1], KEYS[2])\" 2 a b",
			"EVAL \"return redis.pcall('ZUNION', 0, KEYS[1])\" 1 a",
		)},
	})
}

func TestDiffMultiPop(t *testing.T) {
	runDiffCases(t, []diffCase{
		{name: "acl-keys", steps: steps(
			"ZADD a1 1 x", "ZADD a2 2 x", "ZADD b 3 x", "SADD sa x", "RPUSH la x",
			"ACL SETUSER u on >pw +@all ~a* ~s* %R~l* %W~w*", "AUTH u pw",
			"ZUNION 2 a1 a2", "ZUNION 2 a1 b", "ZUNIONSTORE b 1 a1", "ZUNIONSTORE a3 1 a1", "ZINTERCARD 2 a1 b",
			"ZRANGESTORE a4 b 0 -1", "ZRANGESTORE b a1 0 -1", "SINTER sa b", "SINTERCARD 2 sa sb", "SUNIONSTORE sd sa",
			"SDIFFSTORE b sa", "ZMPOP 2 b a1 MIN", "ZMPOP 1 a2 MIN", "LMPOP 1 la LEFT", "LMPOP 1 wa LEFT",
			"BZPOPMIN b 0", "BZMPOP 0 1 b MIN", "BLMPOP 0 1 la LEFT", "BZPOPMAX a1 a9 0",
			"AUTH default ''", "ACL DELUSER u",
		)},
		{name: "command-getkeys", steps: steps(
			"COMMAND GETKEYS SINTER a b", "COMMAND GETKEYS SINTERSTORE d a b", "COMMAND GETKEYS SINTERCARD 2 a b LIMIT 1",
			"COMMAND GETKEYS SUNIONSTORE d a", "COMMAND GETKEYS SDIFF a b c", "COMMAND GETKEYS ZUNION 2 a b WEIGHTS 1 2",
			"COMMAND GETKEYS ZINTERSTORE d 2 a b", "COMMAND GETKEYS ZDIFFSTORE d 1 a", "COMMAND GETKEYS ZINTERCARD 1 a",
			"COMMAND GETKEYS ZRANGESTORE d s 0 1", "COMMAND GETKEYS ZMPOP 2 a b MIN", "COMMAND GETKEYS BZMPOP 0 2 a b MIN",
			"COMMAND GETKEYS BZPOPMIN a b 0", "COMMAND GETKEYS LMPOP 1 a LEFT", "COMMAND GETKEYS BLMPOP 0 2 a b LEFT",
			"COMMAND GETKEYS ZUNION 3 a b", "COMMAND GETKEYS ZMPOP 0 a MIN", "COMMAND GETKEYS SINTERCARD 3 a",
			"COMMAND INFO zunion bzmpop sintercard",
		)},
		{name: "lmpop", steps: steps(
			"RPUSH l a b c d e", "RPUSH m x",
			"LMPOP 1 l LEFT", "LMPOP 1 l RIGHT", "LMPOP 2 nokey l left COUNT 2", "LMPOP 1 l right count 10",
			"EXISTS l", "LMPOP 2 l m LEFT", "EXISTS m", "LMPOP 2 l m LEFT", "LMPOP 1 nokey RIGHT",
		)},
		{name: "lmpop-errors", steps: steps(
			"RPUSH l a", "SET s v",
			"LMPOP 0 l LEFT", "LMPOP -1 l LEFT", "LMPOP x l LEFT", "LMPOP 1 l", "LMPOP 2 l LEFT",
			"LMPOP 1 l UP", "LMPOP 1 l LEFT COUNT", "LMPOP 1 l LEFT COUNT 0", "LMPOP 1 l LEFT COUNT -1",
			"LMPOP 1 l LEFT COUNT x", "LMPOP 1 l LEFT COUNT 1 COUNT 1", "LMPOP 1 l LEFT FOO",
			"LMPOP 1 s LEFT", "LMPOP 2 nokey s LEFT", "LMPOP 2 l s LEFT", "LMPOP 1 s LEFT COUNT 0",
			"LMPOP", "LMPOP 1", "LMPOP 1 l", "LMPOP 99999999999999999999 l LEFT",
			"LMPOP 1 l LEFT COUNT 99999999999999999999", "LMPOP 1 l LEFT COUNT 9223372036854775807",
		)},
		{name: "zmpop", steps: steps(
			"ZADD z 1 a 2 b 3 c 4 d 5.5 e", "ZADD y 1 q",
			"ZMPOP 1 z MIN", "ZMPOP 1 z MAX", "ZMPOP 2 nokey z min COUNT 2", "ZMPOP 1 z max count 10",
			"EXISTS z", "ZMPOP 2 z y MIN", "EXISTS y", "ZMPOP 2 z y MAX", "ZMPOP 1 nokey MIN",
			"ZADD z -inf a inf b", "ZMPOP 1 z MIN COUNT 3",
		)},
		{name: "zmpop-errors", steps: steps(
			"ZADD z 1 a", "SET s v", "SADD set a",
			"ZMPOP 0 z MIN", "ZMPOP -1 z MIN", "ZMPOP x z MIN", "ZMPOP 1 z", "ZMPOP 2 z MIN",
			"ZMPOP 1 z LEFT", "ZMPOP 1 z MIN COUNT", "ZMPOP 1 z MIN COUNT 0", "ZMPOP 1 z MIN COUNT -1",
			"ZMPOP 1 z MIN COUNT x", "ZMPOP 1 z MIN COUNT 1 COUNT 1", "ZMPOP 1 z MIN FOO",
			"ZMPOP 1 s MIN", "ZMPOP 1 set MAX", "ZMPOP 2 nokey s MIN", "ZMPOP 2 z s MIN", "ZMPOP",
			"ZMPOP 1", "ZMPOP 1 z", "ZRANGE z 0 -1",
		)},
		{name: "multi-and-eval", needs: []string{"eval"}, steps: steps(
			"RPUSH l a b c", "ZADD z 1 a 2 b 3 c",
			"MULTI", "LMPOP 1 l LEFT", "ZMPOP 1 z MAX COUNT 2", "LMPOP 0 l LEFT", "EXEC",
			"EVAL \"return redis.call('LMPOP', 1, KEYS[1], 'RIGHT', 'COUNT', 5)\" 1 l",
			"EVAL \"return redis.call('ZMPOP', 1, KEYS[1], 'MIN')\" 1 z",
			"EVAL \"return redis.call('ZMPOP', 1, KEYS[1], 'MIN')\" 1 z",
			"EVAL \"return redis.pcall('LMPOP', 1, KEYS[1], 'UP')\" 1 l",
		)},
	})
}

// TestDiffBlockingAlgebra covers BLMPOP, BZMPOP, BZPOPMIN and BZPOPMAX the
// way TestDiffBlocking covers BLPOP: clients are known to be blocked when
// INFO says so, and are served in the order they blocked.
func TestDiffBlockingAlgebra(t *testing.T) {
	C := func(conn int, items ...any) []h4Step { return h4On(conn, items...) }
	send, recv, await := h4SendOn, h4RecvOn, h4AwaitBlocked
	cases := []h4Case{
		{"immediate", h4Script(
			C(0, "ZADD z 1 a 2 b 3 c 4 d", "BZPOPMIN z 0", "BZPOPMAX z 0", "BZPOPMIN nokey z 1.5",
				"BZMPOP 0 1 z MIN", "BZMPOP 0.5 2 nokey z MAX COUNT 5", "EXISTS z",
				"RPUSH l a b c d", "BLMPOP 0 1 l LEFT", "BLMPOP 0 2 nokey l RIGHT COUNT 2", "BLMPOP 1 1 l LEFT COUNT 9",
				"EXISTS l", "ZADD z 1.5 x", "bzpopmax z 0"),
		)},
		{"timeouts", h4Script(
			send(1, "BZPOPMIN z 0.05"), recv(1),
			send(1, "BZPOPMAX z y 0.05"), recv(1),
			send(1, "BZMPOP 0.05 1 z MIN"), recv(1),
			send(1, "BLMPOP 0.05 2 l k LEFT COUNT 3"), recv(1),
			C(1, "PING", "EXISTS z l"),
		)},
		{"errors", h4Script(
			C(0, "SET s v", "RPUSH l a", "ZADD z 1 a",
				"BZPOPMIN z -1", "BZPOPMIN z abc", "BZPOPMIN z ''", "BZPOPMIN z inf", "BZPOPMIN z nan",
				"BZPOPMAX z 1e400", "BZPOPMIN z", "BZPOPMIN", "BZPOPMIN s 0", "BZPOPMAX nokey s 0", "BZPOPMIN l 0",
				"BZMPOP -1 1 z MIN", "BZMPOP x 1 z MIN", "BZMPOP 0 0 z MIN", "BZMPOP 0 1 z", "BZMPOP 0 1 z UP",
				"BZMPOP 0 1 z MIN COUNT 0", "BZMPOP x 1 z MIN COUNT 0", "BZMPOP x 0 z MIN", "BZMPOP 0 1 s MIN",
				"BZMPOP 0 2 nokey s MIN", "BZMPOP 0 1 z MIN COUNT 1 COUNT 2", "BZMPOP 0 1 z", "BZMPOP 0",
				"BLMPOP -1 1 l LEFT", "BLMPOP x 1 l LEFT", "BLMPOP 0 0 l LEFT", "BLMPOP 0 1 l", "BLMPOP 0 1 l UP",
				"BLMPOP 0 1 l LEFT COUNT 0", "BLMPOP x 1 l LEFT COUNT 0", "BLMPOP x 0 l LEFT", "BLMPOP 0 1 s LEFT",
				"BLMPOP 0 2 nokey s RIGHT", "BLMPOP 0 1 l LEFT COUNT", "BLMPOP 0 2 l", "BLMPOP 0 1",
				"ZRANGE z 0 -1", "LRANGE l 0 -1"),
		)},
		{"waiters-served-in-order", h4Script(
			send(1, "BZPOPMIN z 0"), await(1),
			send(2, "BZPOPMAX z 0"), await(2),
			send(3, "BZMPOP 0 1 z MIN COUNT 2"), await(3),
			C(0, "ZADD z 1 a 2 b 3 c 4 d 5 e"),
			recv(1), recv(2), recv(3), await(0),
			C(0, "ZRANGE z 0 -1 WITHSCORES"),
		)},
		{"more-waiters-than-members", h4Script(
			send(1, "BZPOPMAX z 0"), await(1),
			send(2, "BZPOPMIN z 0"), await(2),
			C(0, "ZADD z 1 a"), recv(1), await(1),
			C(0, "ZADD z 2 b 3 c", "ZCARD z"), recv(2), await(0),
			C(0, "ZRANGE z 0 -1"),
		)},
		{"blmpop-waiters", h4Script(
			send(1, "BLMPOP 0 1 l LEFT COUNT 2"), await(1),
			send(2, "BLMPOP 0 2 k l RIGHT"), await(2),
			C(0, "RPUSH l a b c d"), recv(1), recv(2), await(0),
			C(0, "LRANGE l 0 -1", "DEL l"),
			send(1, "BLMPOP 0 2 k l RIGHT COUNT 10"), await(1),
			C(0, "LPUSH k x y"), recv(1), C(0, "EXISTS k l"),
		)},
		{"waiter-on-several-keys", h4Script(
			send(1, "BZPOPMIN a b c 0"), await(1),
			C(0, "ZADD c 1 x", "ZADD b 2 y"), recv(1),
			C(0, "ZRANGE b 0 -1", "EXISTS c"),
			send(1, "BZMPOP 0 3 a b c MAX COUNT 3"), await(0), recv(1),
		)},
		{"wrong-type-push-keeps-waiting", h4Script(
			send(1, "BZPOPMIN k 0"), await(1),
			C(0, "RPUSH k a"), await(1),
			C(0, "DEL k", "SADD k a"), await(1),
			C(0, "DEL k", "ZADD k 7 m"), recv(1), await(0),
			send(1, "BLMPOP 0 1 k LEFT"), await(1),
			C(0, "ZADD k 1 a"), await(1), C(0, "DEL k", "RPUSH k e"), recv(1),
		)},
		{"zadd-in-multi", h4Script(
			send(1, "BZPOPMIN k 0"), await(1),
			C(0, "MULTI", "ZADD k 1 a", "ZPOPMIN k", "EXEC"), await(1),
			C(0, "MULTI", "ZADD k 1 a 2 b", "ZREM k a", "EXEC"), recv(1), await(0),
			C(0, "EXISTS k"),
		)},
		{"zunionstore-serves-waiter", h4Script(
			C(0, "ZADD a 1 x 2 y"),
			send(1, "BZPOPMAX d 0"), await(1),
			C(0, "ZUNIONSTORE d 1 a"), recv(1),
			send(1, "BZMPOP 0 1 d MIN"), await(0), recv(1),
			send(1, "BZPOPMIN d 0"), await(1),
			C(0, "ZRANGESTORE d a 0 0"), recv(1), await(0),
			send(1, "BLMPOP 0 1 l LEFT"), await(1),
			C(0, "RPUSH src q", "LMOVE src l LEFT LEFT"), recv(1),
		)},
		{"blocking-inside-multi", h4Script(
			C(1, "MULTI", "BZPOPMIN z 0", "BZPOPMAX z 1", "BZMPOP 0 1 z MIN", "BLMPOP 0 1 l LEFT", "EXEC"),
			C(1, "ZADD z 1 a", "RPUSH l x", "SET s v",
				"MULTI", "BZPOPMIN z 0", "BZPOPMIN z 0", "BZPOPMAX s 0", "BZMPOP 0 1 z MIN", "BLMPOP 0 1 l LEFT",
				"BLMPOP 0 1 l LEFT", "BZPOPMIN z -1", "EXEC"),
			await(0),
		)},
		{"blocking-in-scripts", h4Script(
			C(1, "ZADD z 1 a", "RPUSH l x",
				"EVAL \"return redis.pcall('BZPOPMIN', KEYS[1], 0)\" 1 z",
				"EVAL \"return redis.pcall('BZMPOP', 0, 1, KEYS[1], 'MIN')\" 1 z",
				"EVAL \"return redis.pcall('BLMPOP', 0, 1, KEYS[1], 'LEFT')\" 1 l",
				"EVAL \"return redis.pcall('BZPOPMAX', KEYS[1], 0)\" 1 nokey",
				"EVAL \"return redis.pcall('BZMPOP', 0, 1, KEYS[1], 'MIN')\" 1 nokey",
				"EVAL \"return redis.pcall('BLMPOP', 0, 1, KEYS[1], 'LEFT')\" 1 nokey",
				"EVAL \"return redis.pcall('BLMPOP', -1, 1, KEYS[1], 'LEFT')\" 1 nokey"),
		)},
		{"waiter-disconnects", h4Script(
			send(1, "BZPOPMIN k 0"), await(1),
			send(2, "BZPOPMAX k 0"), await(2),
			h4CloseConn(1), await(1),
			C(0, "ZADD k 1 a 2 b"), recv(2), C(0, "ZRANGE k 0 -1"),
		)},
		// A waiter is served from the key that got data, whatever the keys
		// before it hold, and in the order keys got data in a transaction.
		{"served-from-ready-key", h4Script(
			send(1, "BZPOPMIN a z 0"), await(1), C(0, "SET a v", "ZADD z 1 x"), recv(1), C(0, "DEL a"),
			send(1, "BZMPOP 0 2 a z MAX"), await(1), C(0, "SET a v", "ZADD z 1 x"), recv(1), C(0, "DEL a"),
			send(1, "BLMPOP 0 2 a l LEFT"), await(1), C(0, "HSET a f v", "RPUSH l x"), recv(1), C(0, "DEL a"),
			send(1, "BZPOPMAX a b 0"), await(1), C(0, "MULTI", "ZADD b 1 x", "ZADD a 1 y", "EXEC"), recv(1),
			send(1, "BLMPOP 0 2 c d RIGHT COUNT 2"), await(1), C(0, "MULTI", "RPUSH d x", "RPUSH c y", "EXEC"), recv(1),
			C(0, "ZRANGE a 0 -1", "LRANGE c 0 -1"),
			// BLPOP and BRPOP alike.
			send(1, "BLPOP s l 0"), await(1), C(0, "SET s v", "RPUSH l x"), recv(1), C(0, "DEL s"),
			send(1, "BRPOP e f 0"), await(1), C(0, "MULTI", "RPUSH f x", "RPUSH e y", "EXEC"), recv(1),
			C(0, "LRANGE e 0 -1"),
		)},
		{"timeout-then-served-zset-kept", h4Script(
			send(1, "BZMPOP 0.05 1 k MIN"), recv(1),
			C(0, "ZADD k 1 a"), C(1, "ZCARD k"),
		)},
	}
	h4RunCases(t, newDiffPair(t, ""), cases)
}

// TestDiffAlgebraEvents compares the keyspace events the commands above
// raise: a subscriber to their keyevent channels (and "del") must receive
// the same messages in the same order from both servers. The setup
// commands' own events go to channels it does not listen to. Each script
// ends with a PUBLISH to a marker channel; the stream is read up to it.
func TestDiffAlgebraEvents(t *testing.T) {
	C := func(conn int, items ...any) []h4Step { return h4On(conn, items...) }
	send, recv, await := h4SendOn, h4RecvOn, h4AwaitBlocked
	cases := []h4Case{
		{"set-stores", h4Script(
			C(0, "SADD a 1 2 3", "SADD b 3 4", "SINTERSTORE d a b", "SUNIONSTORE d a b", "SDIFFSTORE d a b",
				"SINTERSTORE d a nokey", "SINTERSTORE d a nokey", "SDIFFSTORE e a a", "SET d v",
				"SUNIONSTORE d nokey", "SET d v", "SDIFFSTORE d b b", "SINTERSTORE d2 b b", "SINTERCARD 1 a",
				"SINTER a b", "SUNIONSTORE a a b"),
		)},
		{"zset-stores", h4Script(
			C(0, "ZADD a 1 x 2 y", "ZADD b 3 y", "ZUNIONSTORE d 2 a b", "ZINTERSTORE d 2 a b",
				"ZDIFFSTORE d 2 a b", "ZRANGESTORE d a 0 0", "ZINTERSTORE d 2 a nokey", "ZDIFFSTORE d 2 a a",
				"ZRANGESTORE e a 5 9", "SET d v", "ZRANGESTORE d nokey 0 -1", "ZUNIONSTORE e 1 a",
				"ZUNION 2 a b", "ZINTERCARD 2 a b", "ZRANGESTORE a a 1 1", "ZUNIONSTORE d 1 a WEIGHTS x"),
		)},
		{"pops", h4Script(
			C(0, "RPUSH l a b c", "LMPOP 1 l LEFT", "LMPOP 1 l RIGHT COUNT 5", "LMPOP 1 l LEFT",
				"ZADD z 1 a 2 b 3 c", "ZMPOP 1 z MIN", "ZMPOP 1 z MAX COUNT 5", "ZMPOP 1 z MIN",
				"ZADD z 1 a 2 b 3 c", "BZPOPMIN z 0", "BZPOPMAX z 0", "BZMPOP 0 1 z MIN",
				"RPUSH l a", "BLMPOP 0 1 l RIGHT", "MULTI", "BZPOPMIN z 0", "EXEC"),
		)},
		{"served-waiters", h4Script(
			send(1, "BZPOPMAX z 0"), await(1),
			send(2, "BZMPOP 0 1 z MIN COUNT 5"), await(2),
			C(0, "ZADD z 1 a 2 b 3 c"), recv(1), recv(2), await(0),
			send(1, "BLMPOP 0 1 l LEFT COUNT 2"), await(1),
			C(0, "RPUSH l a b"), recv(1), await(0),
		)},
	}
	events := []string{"sinterstore", "sunionstore", "sdiffstore", "zunionstore", "zinterstore",
		"zdiffstore", "zrangestore", "zpopmin", "zpopmax", "lpop", "rpop", "del"}
	sub := []string{"SUBSCRIBE"}
	for _, e := range events {
		sub = append(sub, "__keyevent@0__:"+e)
	}
	runEventCases(t, cases, "algebra-marker", sub)
}

// TestDiffAlgebraRandom plays a seeded random mix of the algebra commands
// over a few small sorted sets and sets with awkward scores (fractions
// whose sums round, infinities, -0, large magnitudes) and random weights
// and aggregates: exact replies catch a score added in another order.
// Set results that Redis returns in hash order are compared unordered.
func TestDiffAlgebraRandom(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	scores := []string{"0", "-0", "1", "-1", "0.1", "0.2", "0.3", "1e300", "-1e300", "inf", "-inf",
		"3.5", "1e-300", "123456789.123456789", "2", "-7.25"}
	weights := []string{"1", "0", "-1", "0.5", "3", "1e300", "-0", "inf", "0.1"}
	zkeys := []string{"z1", "z2", "z3", "s1", "s2", "nokey"}
	members := []string{"a", "b", "c", "d", "e", "1", "2", "3"}
	pick := func(list []string) string { return list[r.Intn(len(list))] }
	var st []diffStep
	for _, k := range []string{"z1", "z2", "z3"} {
		for i := 0; i < 6; i++ {
			st = append(st, args("ZADD", k, pick(scores), pick(members)))
		}
	}
	for _, k := range []string{"s1", "s2"} {
		for i := 0; i < 4; i++ {
			st = append(st, args("SADD", k, pick(members)))
		}
	}
	for i := 0; i < 300; i++ {
		n := 1 + r.Intn(3)
		a := []string{strconv.Itoa(n)}
		for j := 0; j < n; j++ {
			a = append(a, pick(zkeys))
		}
		op := pick([]string{"ZUNION", "ZINTER", "ZDIFF", "ZUNIONSTORE", "ZINTERSTORE", "ZINTERCARD", "SINTER", "SUNION", "SDIFF"})
		switch op {
		case "SINTER", "SUNION", "SDIFF":
			keys := []string{op}
			for j := 0; j < n; j++ {
				keys = append(keys, pick([]string{"s1", "s2", "nokey"}))
			}
			st = append(st, diffStep{args: keys, mode: modeUnordered})
			continue
		case "ZUNIONSTORE", "ZINTERSTORE":
			a = append([]string{op, pick([]string{"d", "z3"})}, a...)
		default:
			a = append([]string{op}, a...)
		}
		if op != "ZDIFF" && op != "ZINTERCARD" {
			if r.Intn(2) == 0 {
				a = append(a, "WEIGHTS")
				for j := 0; j < n; j++ {
					a = append(a, pick(weights))
				}
			}
			if r.Intn(2) == 0 {
				a = append(a, "AGGREGATE", pick([]string{"SUM", "MIN", "MAX"}))
			}
		}
		if op == "ZUNION" || op == "ZINTER" || op == "ZDIFF" {
			a = append(a, "WITHSCORES")
		}
		st = append(st, args(a...))
		if strings.HasSuffix(op, "STORE") {
			st = append(st, args("ZRANGE", a[1], "0", "-1", "WITHSCORES"), args("OBJECT", "ENCODING", a[1]))
		}
	}
	runDiffCases(t, []diffCase{{name: "seed=7", steps: st}})
}
