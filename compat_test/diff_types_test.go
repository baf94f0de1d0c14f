package compat

import (
	"math/rand"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Differential tests for hashes, lists, sets and sorted sets: one table of
// cases per type, WRONGTYPE for every command against every other type, key
// commands across types, and a seeded random sequence mixing all types with
// the string/key/expiry commands.

// h4Fields returns n "name value" pairs: f0 v0 f1 v1 ...
func h4Fields(n int, name, value string) []string {
	out := make([]string, 0, 2*n)
	for i := 0; i < n; i++ {
		out = append(out, name+strconv.Itoa(i), value+strconv.Itoa(i))
	}
	return out
}

// h4Members returns n "score member" pairs with scores i*step.
func h4Members(n int, step float64) []string {
	out := make([]string, 0, 2*n)
	for i := 0; i < n; i++ {
		out = append(out, strconv.FormatFloat(float64(i)*step, 'g', -1, 64), "m"+strconv.Itoa(i))
	}
	return out
}

func h4Cmd(cmd ...string) []string { return cmd }

func h4Join(a []string, b ...string) []string { return append(append([]string{}, a...), b...) }

func TestDiffHashes(t *testing.T) {
	long := strings.Repeat("x", 65)
	runDiffCases(t, []diffCase{
		{name: "hset-hget", steps: steps(
			"HSET h f1 v1", "HSET h f1 v2 f2 v2", "HGET h f1", "HGET h f2", "HGET h nope", "HGET nokey f",
			"HSET h f1", "HSET h", "HSET h f1 v1 f2", "HSET h f1 v1 f1 v3", "HGET h f1", "HLEN h",
			"HGETALL h", "HSET h '' ''", "HGET h ''", "HGET h", "HGET h f1 f2",
		)},
		{name: "hmset-hsetnx", steps: steps(
			"HMSET h a 1 b 2", "HMSET h a", "HMSET h a 1 b", "HMSET h", "HGETALL h",
			"HSETNX h a 9", "HSETNX h c 9", "HSETNX h x", "HSETNX h x y z", "HSETNX nokey f v", "HGETALL h",
		)},
		{name: "hmget", steps: steps(
			"HSET h a 1 b 2", "HMGET h a nope b", "HMGET nokey a b", "HMGET h", "HMGET h a",
		)},
		{name: "hdel", steps: steps(
			"HSET h a 1 b 2 c 3", "HDEL h a nope", "HDEL h a", "HDEL h", "HDEL nokey f", "HDEL h b c b",
			"EXISTS h", "TYPE h", "HLEN h", "HGETALL h",
		)},
		{name: "hexists-hlen-hstrlen", steps: steps(
			"HSET h a 1 b hello c ''", "HEXISTS h a", "HEXISTS h x", "HEXISTS nokey a", "HEXISTS h",
			"HLEN h", "HLEN nokey", "HLEN", "HSTRLEN h b", "HSTRLEN h c", "HSTRLEN h x", "HSTRLEN nokey a",
			"HSTRLEN h", "HSET h n 12345", "HSTRLEN h n", "HINCRBY h n 1", "HSTRLEN h n",
		)},
		{name: "hincrby", steps: steps(
			"HINCRBY h n 5", "HINCRBY h n -10", "HGET h n", "HINCRBY h n abc", "HINCRBY h n 1.5",
			"HINCRBY h n ' 1'", "HINCRBY h n +1", "HINCRBY h n 01", "HSET h s abc", "HINCRBY h s 1",
			"HSET h big 9223372036854775807", "HINCRBY h big 1", "HINCRBY h big -1", "HGET h big",
			"HSET h small -9223372036854775808", "HINCRBY h small -1", "HSET h sp ' 1'", "HINCRBY h sp 1",
			"HSET h z 0", "HINCRBY h z 9223372036854775807", "HINCRBY h z 1", "HINCRBY h n", "HINCRBY h",
			"HINCRBY h n 99999999999999999999", "HSET h f 1.0", "HINCRBY h f 1",
		)},
		{name: "hincrbyfloat", steps: steps(
			"HINCRBYFLOAT h f 1.5", "HINCRBYFLOAT h f 10.50", "HINCRBYFLOAT h f 3.0e3", "HGET h f",
			"HINCRBYFLOAT h f -3012", "HINCRBYFLOAT h f abc", "HINCRBYFLOAT h f inf", "HINCRBYFLOAT h f -inf",
			"HINCRBYFLOAT h f nan", "HSET h s abc", "HINCRBYFLOAT h s 1", "HINCRBYFLOAT h g 0.1",
			"HINCRBYFLOAT h g 0.2", "HSET h i 5", "HINCRBYFLOAT h i 0", "HSET h e 1e3", "HINCRBYFLOAT h e 1",
			"HINCRBYFLOAT h x 1e308", "HINCRBYFLOAT h x 1e308", "HINCRBYFLOAT h f", "HINCRBYFLOAT h f ' 1'",
			"HINCRBYFLOAT h f 1 2", "HSET h sp ' 1'", "HINCRBYFLOAT h sp 1", "HINCRBYFLOAT h w 5.0000",
		)},
		{name: "hkeys-hvals-hgetall", steps: steps(
			"HKEYS h", "HVALS h", "HGETALL h", "HSET h z 1 a 2 m 3", "HKEYS h", "HVALS h", "HGETALL h",
			"HDEL h a", "HSET h a 4", "HGETALL h", "HKEYS", "HVALS h x", "HGETALL h x",
		)},
		{name: "big-hash", steps: steps(
			args(h4Join(h4Cmd("HSET", "h"), h4Fields(200, "f", "v")...)...), "HLEN h", "OBJECT ENCODING h",
			unordered("HGETALL h"), unordered("HKEYS h"), unordered("HVALS h"), "HGET h f150", "HDEL h f0 f199",
			"HLEN h", "HINCRBY h counter 3", "HGET h counter",
			"HSET small a 1", "OBJECT ENCODING small", args("HSET", "small", "b", long), "OBJECT ENCODING small",
			unordered("HGETALL small"), "HSET tiny "+strings.Repeat("k", 64)+" 1", "OBJECT ENCODING tiny",
			"HSET tiny2 "+strings.Repeat("k", 65)+" 1", "OBJECT ENCODING tiny2",
		)},
		{name: "hrandfield", steps: steps(
			"HRANDFIELD nokey", "HRANDFIELD nokey 5", "HRANDFIELD nokey -5 WITHVALUES", "HSET h f v",
			"HRANDFIELD h", "HRANDFIELD h 0", "HRANDFIELD h 1", "HRANDFIELD h 10", "HRANDFIELD h -3",
			"HRANDFIELD h -2 WITHVALUES", "HRANDFIELD h 5 withvalues", "HRANDFIELD h 1 WITHVALUE",
			"HRANDFIELD h abc", "HRANDFIELD h 1 WITHVALUES x", "HRANDFIELD h -9223372036854775808",
			"HRANDFIELD h -9223372036854775807 WITHVALUES", "HRANDFIELD", "HRANDFIELD h 1.5",
			"HSET h g w x y", unordered("HRANDFIELD h 3"), unordered("HRANDFIELD h 100 WITHVALUES"),
			kind("HRANDFIELD h"),
		)},
		{name: "hscan", steps: steps(
			"HSCAN nokey 0", "HSET h a 1 b 2 ab 3", "HSCAN h 0", "HSCAN h 0 MATCH a*", "HSCAN h 0 COUNT 1",
			"HSCAN h 0 match b COUNT 100", "HSCAN h abc", "HSCAN h 0 COUNT 0", "HSCAN h 0 FOO", "HSCAN h",
			"HSCAN h 0 MATCH", "HSCAN h 0 TYPE string", "HSCAN h -1",
		)},
	})
}

func TestDiffLists(t *testing.T) {
	runDiffCases(t, []diffCase{
		{name: "push", steps: steps(
			"LPUSH l a b c", "RPUSH l d e", "LRANGE l 0 -1", "LPUSHX nokey a", "RPUSHX nokey a", "EXISTS nokey",
			"LPUSHX l x y", "RPUSHX l z", "LRANGE l 0 -1", "LPUSH l", "RPUSH", "LPUSHX l", "LLEN l", "LLEN nokey",
			"LLEN", "RPUSH l ''", "LINDEX l -1", "OBJECT ENCODING l",
		)},
		{name: "pop", steps: steps(
			"RPUSH l a b c d e f", "LPOP l", "RPOP l", "LPOP l 2", "RPOP l 1", "LPOP l 0", "RPOP l 0",
			"LPOP l -1", "RPOP l abc", "LPOP l 1 2", "LPOP nokey", "LPOP nokey 2", "RPOP nokey 0",
			"LRANGE l 0 -1", "RPOP l 100", "EXISTS l", "LPOP l", "LPOP", "RPUSH l a", "LPOP l 9223372036854775807",
			"RPUSH l a", "LPOP l -9223372036854775808", "RPOP l 1.5",
		)},
		{name: "lindex-lrange", steps: steps(
			"RPUSH l a b c d e", "LINDEX l 0", "LINDEX l -1", "LINDEX l 4", "LINDEX l 5", "LINDEX l -6",
			"LINDEX l abc", "LINDEX nokey 0", "LINDEX l", "LRANGE l 1 3", "LRANGE l -3 -1", "LRANGE l -100 100",
			"LRANGE l 3 1", "LRANGE l 5 10", "LRANGE l 0 0", "LRANGE l -1 -2", "LRANGE nokey 0 -1", "LRANGE l a b",
			"LRANGE l 0", "LRANGE l 0 9223372036854775807", "LRANGE l -9223372036854775808 1",
		)},
		{name: "lrem", steps: steps(
			"RPUSH l a b a c a b a", "LREM l 2 a", "LRANGE l 0 -1", "LREM l -1 a", "LRANGE l 0 -1",
			"LREM l 0 b", "LRANGE l 0 -1", "LREM l 0 nope", "LREM nokey 0 a", "LREM l abc a", "LREM l 0",
			"LREM l 0 a", "LREM l 0 c", "EXISTS l",
		)},
		{name: "lset", steps: steps(
			"RPUSH l a b c", "LSET l 0 x", "LSET l -1 z", "LRANGE l 0 -1", "LSET l 3 q", "LSET l -4 q",
			"LSET nokey 0 x", "LSET l abc x", "LSET l 0", "LSET l 1 ''", "LRANGE l 0 -1",
		)},
		{name: "ltrim", steps: steps(
			"RPUSH l a b c d e", "LTRIM l 1 -2", "LRANGE l 0 -1", "LTRIM l 0 100", "LRANGE l 0 -1",
			"LTRIM l -2 -1", "LRANGE l 0 -1", "LTRIM nokey 0 1", "LTRIM l a 1", "LTRIM l 0", "LTRIM l 5 1",
			"EXISTS l", "RPUSH l a b", "LTRIM l 1 0", "EXISTS l",
		)},
		{name: "linsert", steps: steps(
			"RPUSH l a b c", "LINSERT l BEFORE b x", "LINSERT l after c y", "LRANGE l 0 -1",
			"LINSERT l BEFORE nope z", "LINSERT nokey BEFORE a z", "EXISTS nokey", "LINSERT l MIDDLE a z",
			"LINSERT l BEFORE a", "LINSERT l Before a ''", "LRANGE l 0 -1", "LINSERT l AFTER a a", "LRANGE l 0 -1",
		)},
		{name: "lpos", steps: steps(
			"RPUSH l a b c a b c a", "LPOS l a", "LPOS l c", "LPOS l nope", "LPOS nokey a",
			"LPOS l a RANK 2", "LPOS l a RANK -1", "LPOS l a RANK -3", "LPOS l a RANK 5", "LPOS l a COUNT 0",
			"LPOS l a COUNT 2", "LPOS l a COUNT 2 RANK -1", "LPOS l a MAXLEN 1", "LPOS l a MAXLEN 4 COUNT 0",
			"LPOS l b MAXLEN 1", "LPOS l nope COUNT 0", "LPOS nokey a COUNT 1", "LPOS l a RANK 0",
			"LPOS l a COUNT -1", "LPOS l a MAXLEN -1", "LPOS l a RANK abc", "LPOS l a FOO 1", "LPOS l a RANK",
			"LPOS l", "LPOS l a RANK -9223372036854775808", "LPOS l a rank 1 count 1 maxlen 0",
		)},
		{name: "lmove-rpoplpush", steps: steps(
			"RPUSH src a b c", "LMOVE src dst LEFT RIGHT", "LMOVE src dst RIGHT LEFT", "LRANGE src 0 -1",
			"LRANGE dst 0 -1", "LMOVE src src LEFT RIGHT", "RPUSH src d", "LMOVE src src RIGHT LEFT",
			"LRANGE src 0 -1", "LMOVE nokey dst LEFT LEFT", "LMOVE src dst UP LEFT", "LMOVE src dst left right",
			"LMOVE src dst", "RPOPLPUSH src dst", "RPOPLPUSH src dst", "EXISTS src", "LRANGE dst 0 -1",
			"RPOPLPUSH nokey dst", "RPOPLPUSH dst dst", "LRANGE dst 0 -1", "RPOPLPUSH dst",
		)},
		{name: "empty-list-deleted", steps: steps(
			"RPUSH l a", "LPOP l", "EXISTS l", "TYPE l", "RPUSH l a b", "RPOP l 2", "EXISTS l",
			"RPUSH l a", "LREM l 1 a", "EXISTS l", "RPUSH l a", "LMOVE l m LEFT LEFT", "EXISTS l",
			"RPUSH l a", "LTRIM l 1 -1", "EXISTS l",
		)},
	})
}

func TestDiffSets(t *testing.T) {
	var many []string
	for i := 0; i < 600; i++ {
		many = append(many, strconv.Itoa(i*7))
	}
	runDiffCases(t, []diffCase{
		{name: "sadd-srem", steps: steps(
			"SADD s a b a", "SADD s c", "SREM s a nope", "SREM s a", "SREM nokey a", "SCARD s", "SCARD nokey",
			"SADD s", "SREM s", "SCARD", "SREM s b c", "EXISTS s", "SADD s ''", "SISMEMBER s ''",
		)},
		{name: "sismember-smismember", steps: steps(
			"SADD s a 1", "SISMEMBER s a", "SISMEMBER s b", "SISMEMBER nokey a", "SISMEMBER s",
			"SMISMEMBER s a b 1", "SMISMEMBER nokey a", "SMISMEMBER s",
		)},
		{name: "smembers-intset", steps: steps(
			"SADD s 5 -3 100 0 7", "SMEMBERS s", "OBJECT ENCODING s", "SADD s 9223372036854775807 -9223372036854775808",
			"SMEMBERS s", "OBJECT ENCODING s", "SREM s 0", "SMEMBERS s", "SADD s 01", "OBJECT ENCODING s",
			unordered("SMEMBERS s"), "SMEMBERS nokey", "SMEMBERS", "SADD t 1 ' 2'", "OBJECT ENCODING t",
		)},
		{name: "smembers-hashtable", steps: steps(
			"SADD s b a c", unordered("SMEMBERS s"), "OBJECT ENCODING s",
			args(h4Join(h4Cmd("SADD", "big"), many...)...), "SCARD big", "OBJECT ENCODING big",
			"SISMEMBER big 4193", "SISMEMBER big 4194", args(h4Join(h4Cmd("SADD", "mid"), many[:512]...)...),
			"OBJECT ENCODING mid", "SADD mid 99999", "OBJECT ENCODING mid",
		)},
		{name: "smove", steps: steps(
			"SADD a x y", "SADD b z", "SMOVE a b x", "SMEMBERS a", unordered("SMEMBERS b"), "SMOVE a b nope",
			"SMOVE nokey b x", "SMOVE a b y", "EXISTS a", "SMOVE b b z", "SMOVE b c z", "SMOVE b c",
			"SET str v", "SMOVE c str z", "SMOVE str c z", "SMEMBERS c",
		)},
		{name: "spop-srandmember", steps: steps(
			"SPOP nokey", "SPOP nokey 3", "SRANDMEMBER nokey", "SRANDMEMBER nokey 3", "SADD s a", "SRANDMEMBER s",
			"SRANDMEMBER s 3", "SRANDMEMBER s -3", "SRANDMEMBER s 0", "SPOP s 0", "SPOP s", "EXISTS s",
			"SADD s a b c", unordered("SRANDMEMBER s 10"), kind("SRANDMEMBER s"), unordered("SPOP s 10"),
			"EXISTS s", "SPOP s -1", "SRANDMEMBER s abc", "SPOP s 1 2", "SADD s 3 1 2", "SPOP s 5",
			"SADD s x", "SRANDMEMBER s -9223372036854775808", "SPOP s abc",
		)},
		{name: "sscan", steps: steps(
			"SSCAN nokey 0", "SADD s 3 1 2", "SSCAN s 0", "SSCAN s 0 MATCH 1", "SSCAN s abc", "SSCAN s 0 COUNT 0",
			"SADD t a", "SSCAN t 0", "SSCAN t 0 MATCH b*",
		)},
	})
}

func TestDiffZsets(t *testing.T) {
	big := h4Join(h4Cmd("ZADD", "big"), h4Members(200, 0.5)...)
	runDiffCases(t, []diffCase{
		{name: "zadd", steps: steps(
			"ZADD z 1 a 2 b 3 c", "ZADD z 1 a", "ZADD z 5 a", "ZRANGE z 0 -1 WITHSCORES", "ZADD z NX 9 a 4 d",
			"ZADD z XX 9 a 4 e", "ZRANGE z 0 -1 WITHSCORES", "ZADD z CH 9 a 1 b 7 f", "ZADD z GT 5 a 5 b",
			"ZADD z LT 1 a 9 b", "ZADD z GT CH 10 a 0 b", "ZADD z lt ch 0 a", "ZADD z XX GT 20 c 20 new",
			"ZRANGE z 0 -1 WITHSCORES", "ZCARD z",
		)},
		{name: "zadd-incr", steps: steps(
			"ZADD z INCR 1 a", "ZADD z INCR 1.5 a", "ZADD z INCR -inf a", "ZADD z INCR inf a",
			"ZADD z XX INCR 1 nope", "ZADD z NX INCR 1 a", "ZADD z NX INCR 1 b", "ZADD z GT INCR -1 b",
			"ZADD z LT INCR -1 b", "ZADD z GT INCR 1 b", "ZADD z INCR 1 a 2 b", "ZADD z INCR abc a",
			"ZRANGE z 0 -1 WITHSCORES",
		)},
		{name: "zadd-errors", steps: steps(
			"ZADD z", "ZADD z 1", "ZADD z 1 a 2", "ZADD z abc a", "ZADD z nan a", "ZADD z NX XX 1 a",
			"ZADD z GT LT 1 a", "ZADD z GT NX 1 a", "ZADD z LT NX 1 a", "ZADD z NX", "ZADD z FOO 1 a",
			"ZADD z 1 a abc b", "EXISTS z", "ZADD z '' a", "ZADD z ' 1' a", "ZADD z 0x10 a", "ZADD z 1e400 a",
			"ZADD z INCR", "ZADD z CH", "ZADD z NX GT 1 a",
		)},
		{name: "zscore-formatting", steps: steps(
			"ZADD z 5 int 1.5 half inf pinf -inf ninf 0.1 tenth 1e300 huge -0 negzero 3.0 three 1e-5 tiny",
			"ZADD z 123456789012345678 bigint 1.7976931348623157e308 max 2.5e-320 sub 100 hundred",
			"ZSCORE z int", "ZSCORE z half", "ZSCORE z pinf", "ZSCORE z ninf", "ZSCORE z tenth", "ZSCORE z huge",
			"ZSCORE z negzero", "ZSCORE z three", "ZSCORE z tiny", "ZSCORE z bigint", "ZSCORE z max", "ZSCORE z sub",
			"ZSCORE z hundred", "ZSCORE z nope", "ZSCORE nokey m", "ZSCORE z", "ZRANGE z 0 -1 WITHSCORES",
			"ZMSCORE z int nope half", "ZMSCORE nokey a b", "ZMSCORE z",
			"ZADD z +inf plusinf", "ZSCORE z plusinf", "ZADD z -inf zz", "ZRANGE z 0 2",
		)},
		{name: "zincrby", steps: steps(
			"ZINCRBY z 1.5 a", "ZINCRBY z 1 a", "ZINCRBY z -2.5 a", "ZINCRBY z abc a", "ZINCRBY z inf b",
			"ZINCRBY z -inf b", "ZINCRBY nokey2 5 m", "ZINCRBY z 1", "ZINCRBY z 0.1 c", "ZINCRBY z 0.2 c",
			"ZRANGE z 0 -1 WITHSCORES",
		)},
		{name: "zrem-zcard", steps: steps(
			"ZADD z 1 a 2 b 3 c", "ZREM z a nope", "ZREM z a", "ZREM nokey a", "ZREM z", "ZCARD z", "ZCARD nokey",
			"ZCARD", "ZREM z b c", "EXISTS z",
		)},
		{name: "zcount", steps: steps(
			"ZADD z 1 a 2 b 3 c 4 d -inf m inf n", "ZCOUNT z -inf +inf", "ZCOUNT z 1 3", "ZCOUNT z (1 3",
			"ZCOUNT z (1 (3", "ZCOUNT z 3 1", "ZCOUNT z (inf +inf", "ZCOUNT z -inf -inf", "ZCOUNT z abc 1",
			"ZCOUNT z 1 (", "ZCOUNT nokey 0 1", "ZCOUNT z 1", "ZCOUNT z [1 2", "ZCOUNT z ((1 2",
		)},
		{name: "zrange-rank", steps: steps(
			"ZADD z 1 a 2 b 3 c 4 d 5 e", "ZRANGE z 0 -1", "ZRANGE z 1 2 WITHSCORES", "ZRANGE z -2 -1",
			"ZRANGE z 3 1", "ZRANGE z -100 100", "ZRANGE z 0 -1 REV", "ZRANGE z 0 1 REV WITHSCORES",
			"ZRANGE z a b", "ZRANGE nokey 0 -1", "ZRANGE z 0", "ZRANGE z 0 -1 FOO", "ZRANGE z 0 -1 withscores",
			"ZREVRANGE z 0 -1", "ZREVRANGE z 0 1 WITHSCORES", "ZREVRANGE z 1 -1", "ZREVRANGE z 0 -1 REV",
			"ZRANK z a", "ZRANK z e", "ZRANK z nope", "ZRANK nokey a", "ZREVRANK z a", "ZREVRANK z e",
			"ZRANK z a WITHSCORE", "ZRANK z",
		)},
		{name: "zrange-byscore", steps: steps(
			"ZADD z 1 a 2 b 3 c 4 d 5 e -inf ninf inf pinf",
			"ZRANGE z 2 4 BYSCORE", "ZRANGE z (2 (4 BYSCORE", "ZRANGE z -inf +inf BYSCORE WITHSCORES",
			"ZRANGE z (1 +inf BYSCORE LIMIT 1 2", "ZRANGE z 0 10 BYSCORE LIMIT 0 -1", "ZRANGE z 0 10 BYSCORE LIMIT -1 2",
			"ZRANGE z 0 10 BYSCORE LIMIT 10 2", "ZRANGE z 4 2 BYSCORE REV", "ZRANGE z +inf -inf BYSCORE REV LIMIT 1 3",
			"ZRANGE z 2 4 BYSCORE REV", "ZRANGE z 0 -1 LIMIT 0 1", "ZRANGE z 0 1 BYSCORE LIMIT 0",
			"ZRANGE z abc 1 BYSCORE", "ZRANGE z 0 10 BYSCORE LIMIT a 1", "ZRANGE z 0 10 BYSCORE BYLEX",
			"ZRANGEBYSCORE z 2 4", "ZRANGEBYSCORE z -inf +inf WITHSCORES LIMIT 0 2", "ZRANGEBYSCORE z (2 5 LIMIT 1 10",
			"ZRANGEBYSCORE z 5 2", "ZRANGEBYSCORE z (inf +inf", "ZRANGEBYSCORE z -inf (-inf", "ZRANGEBYSCORE z abc 1",
			"ZRANGEBYSCORE z 1 2 LIMIT 0", "ZRANGEBYSCORE z 1 2 FOO", "ZRANGEBYSCORE nokey 0 1",
			"ZREVRANGEBYSCORE z 4 2", "ZREVRANGEBYSCORE z +inf -inf WITHSCORES LIMIT 1 2", "ZREVRANGEBYSCORE z (4 (2",
			"ZREVRANGEBYSCORE z 2 4", "ZREVRANGEBYSCORE z", "ZRANGEBYSCORE z 1 2 LIMIT 0 1 WITHSCORES",
		)},
		{name: "zrange-bylex", steps: steps(
			"ZADD z 0 a 0 b 0 c 0 d 0 e", "ZRANGE z - + BYLEX", "ZRANGE z [b (d BYLEX", "ZRANGE z (a [c BYLEX",
			"ZRANGE z + - BYLEX REV", "ZRANGE z [d [b BYLEX REV LIMIT 1 1", "ZRANGE z - + BYLEX LIMIT 1 2",
			"ZRANGE z a c BYLEX", "ZRANGE z - + BYLEX WITHSCORES", "ZRANGEBYLEX z - +", "ZRANGEBYLEX z [b +",
			"ZRANGEBYLEX z - (c LIMIT 0 1", "ZRANGEBYLEX z b c", "ZREVRANGEBYLEX z + -", "ZREVRANGEBYLEX z (d [a",
			"ZLEXCOUNT z - +", "ZLEXCOUNT z [b (d", "ZLEXCOUNT z a b", "ZLEXCOUNT nokey - +", "ZREMRANGEBYLEX z [b (d",
			"ZRANGE z 0 -1", "ZREMRANGEBYLEX z - +", "EXISTS z", "ZREMRANGEBYLEX z a b",
		)},
		{name: "zremrange", steps: steps(
			"ZADD z 1 a 2 b 3 c 4 d 5 e", "ZREMRANGEBYSCORE z 2 3", "ZRANGE z 0 -1", "ZREMRANGEBYSCORE z (4 +inf",
			"ZREMRANGEBYSCORE z abc 1", "ZREMRANGEBYSCORE nokey 0 1", "ZRANGE z 0 -1",
			"ZADD z 2 b 3 c 5 e", "ZREMRANGEBYRANK z 0 1", "ZRANGE z 0 -1", "ZREMRANGEBYRANK z -1 -1",
			"ZREMRANGEBYRANK z 5 10", "ZREMRANGEBYRANK z a 1", "ZREMRANGEBYRANK nokey 0 1", "ZRANGE z 0 -1",
			"ZREMRANGEBYRANK z 0 -1", "EXISTS z", "ZREMRANGEBYRANK z 0",
		)},
		{name: "zpop", steps: steps(
			"ZADD z 1 a 2 b 3 c 4 d 5 e", "ZPOPMIN z", "ZPOPMAX z", "ZPOPMIN z 2", "ZPOPMAX z 10", "EXISTS z",
			"ZPOPMIN nokey", "ZPOPMAX nokey 2", "ZADD z 1 a", "ZPOPMIN z 0", "ZPOPMIN z -1", "ZPOPMAX z abc",
			"ZPOPMIN z 1 2", "ZPOPMIN", "ZADD z 2 b 2 a 2 c", "ZPOPMAX z 2", "ZPOPMIN z",
		)},
		{name: "zrandmember", steps: steps(
			"ZRANDMEMBER nokey", "ZRANDMEMBER nokey 3", "ZADD z 1.5 a", "ZRANDMEMBER z", "ZRANDMEMBER z 3",
			"ZRANDMEMBER z -2 WITHSCORES", "ZRANDMEMBER z 0", "ZRANDMEMBER z abc", "ZRANDMEMBER z 1 FOO",
			"ZADD z 2 b 3 c", unordered("ZRANDMEMBER z 5"), unordered("ZRANDMEMBER z 9 WITHSCORES"),
			kind("ZRANDMEMBER z"), "ZRANDMEMBER z -9223372036854775808",
		)},
		{name: "zscan", steps: steps(
			"ZSCAN nokey 0", "ZADD z 1 a 2.5 b inf c", "ZSCAN z 0", "ZSCAN z 0 MATCH b", "ZSCAN z x",
		)},
		{name: "big-zset", steps: steps(
			args(big...), "ZCARD big", "OBJECT ENCODING big", "ZRANGE big 95 104 WITHSCORES", "ZRANK big m150",
			"ZREVRANK big m150", "ZCOUNT big 10 (20", "ZRANGEBYSCORE big (50 +inf LIMIT 3 4 WITHSCORES",
			"ZREVRANGE big 0 2", "ZREMRANGEBYRANK big 0 99", "ZCARD big", "ZPOPMIN big 2", "ZSCORE big m199",
			"ZADD small 1 a", "OBJECT ENCODING small", "ZADD small 2 "+strings.Repeat("m", 65), "OBJECT ENCODING small",
			"ZRANGE small 0 -1 WITHSCORES",
		)},
	})
}

// h4TypeKeys sets up one key of each type; h4WrongType lists a valid call
// of each command with K for the key.
var h4TypeKeys = []string{"SET s v", "HSET h f v", "RPUSH l a b", "SADD st m", "ZADD z 1 m"}

var h4WrongType = map[string][]string{
	"s": {"GET K", "APPEND K x", "INCR K", "INCRBYFLOAT K 1", "STRLEN K", "GETRANGE K 0 1", "SETRANGE K 0 x",
		"GETSET K x", "GETDEL K", "GETEX K", "DECRBY K 1", "SETNX K x", "MGET K"},
	"h": {"HSET K f v", "HSETNX K f v", "HMSET K f v", "HGET K f", "HMGET K f g", "HDEL K f", "HEXISTS K f",
		"HINCRBY K f 1", "HINCRBYFLOAT K f 1.5", "HLEN K", "HKEYS K", "HVALS K", "HGETALL K", "HSTRLEN K f",
		"HRANDFIELD K", "HRANDFIELD K 2 WITHVALUES", "HSCAN K 0"},
	"l": {"LPUSH K x", "RPUSH K x", "LPUSHX K x", "RPUSHX K x", "LPOP K", "RPOP K 2", "LINDEX K 0", "LLEN K",
		"LRANGE K 0 -1", "LREM K 0 x", "LSET K 0 x", "LTRIM K 0 1", "LINSERT K BEFORE x y", "LPOS K x",
		"LMOVE K dst LEFT RIGHT", "RPOPLPUSH K dst", "BLPOP K 0", "BRPOP K 0", "BLMOVE K dst LEFT RIGHT 0"},
	"st": {"SADD K m", "SREM K m", "SISMEMBER K m", "SMISMEMBER K m n", "SMEMBERS K", "SCARD K", "SMOVE K dst m",
		"SPOP K", "SPOP K 2", "SRANDMEMBER K", "SRANDMEMBER K 2", "SSCAN K 0"},
	"z": {"ZADD K 1 m", "ZADD K INCR 1 m", "ZINCRBY K 1 m", "ZSCORE K m", "ZMSCORE K m", "ZREM K m", "ZCARD K",
		"ZCOUNT K -inf +inf", "ZRANGE K 0 -1", "ZRANGE K -inf +inf BYSCORE", "ZRANGE K - + BYLEX",
		"ZRANGEBYSCORE K -inf +inf", "ZREVRANGE K 0 -1", "ZREVRANGEBYSCORE K +inf -inf", "ZRANK K m",
		"ZREVRANK K m", "ZREMRANGEBYSCORE K 0 1", "ZREMRANGEBYRANK K 0 1", "ZREMRANGEBYLEX K - +", "ZPOPMIN K",
		"ZPOPMAX K 2", "ZLEXCOUNT K - +", "ZRANGEBYLEX K - +", "ZREVRANGEBYLEX K + -", "ZRANDMEMBER K", "ZSCAN K 0"},
}

// TestDiffTypesWrongType runs every type's commands against a key of each
// other type, then checks that no key changed.
func TestDiffTypesWrongType(t *testing.T) {
	var cases []diffCase
	for _, own := range []string{"s", "h", "l", "st", "z"} {
		for _, cmd := range h4WrongType[own] {
			var items []any
			for _, setup := range h4TypeKeys {
				items = append(items, setup)
			}
			for _, other := range []string{"s", "h", "l", "st", "z"} {
				if other != own {
					items = append(items, strings.Replace(cmd, "K", other, 1))
				}
			}
			// A destination of the wrong type (LMOVE, SMOVE...) too.
			if strings.Contains(cmd, "dst") {
				for _, other := range []string{"s", "h", "l", "st", "z"} {
					if other != own {
						items = append(items, strings.Replace(strings.Replace(cmd, "dst", other, 1), "K", own, 1))
					}
				}
			}
			items = append(items, "TYPE s", "TYPE h", "TYPE l", "TYPE st", "TYPE z", "GET s", "HGETALL h",
				"LRANGE l 0 -1", "SMEMBERS st", "ZRANGE z 0 -1 WITHSCORES", "EXISTS dst")
			cases = append(cases, diffCase{name: own + "/" + strings.Fields(cmd)[0] + "/" + strconv.Itoa(len(cases)), steps: steps(items...)})
		}
	}
	runDiffCases(t, cases)
}

func TestDiffTypesKeys(t *testing.T) {
	setup := []any{"SET s v", "HSET h f v", "RPUSH l a b", "SADD st 1 2", "SADD sx a", "ZADD z 1 m"}
	runDiffCases(t, []diffCase{
		{name: "type-encoding", steps: steps(append(setup,
			"TYPE s", "TYPE h", "TYPE l", "TYPE st", "TYPE z", "TYPE nokey",
			"OBJECT ENCODING s", "OBJECT ENCODING h", "OBJECT ENCODING l", "OBJECT ENCODING st",
			"OBJECT ENCODING sx", "OBJECT ENCODING z", "OBJECT ENCODING nokey", "SET n 12", "OBJECT ENCODING n",
			"SET r "+strings.Repeat("r", 45), "OBJECT ENCODING r", "APPEND s x", "OBJECT ENCODING s")...)},
		{name: "string-encoding", steps: steps(
			// Redis marks a string changed in place (APPEND to an existing
			// key, SETRANGE) as raw, and INCRBYFLOAT's result as embstr even
			// when it is integral; COPY and RENAME keep the encoding.
			"SET e 12", "OBJECT ENCODING e", "APPEND e 3", "OBJECT ENCODING e", "GET e",
			"SET e ab", "APPEND e c", "OBJECT ENCODING e", "APPEND new x", "OBJECT ENCODING new",
			"SETRANGE r 0 ab", "OBJECT ENCODING r", "SET e 12", "SETRANGE e 0 3", "OBJECT ENCODING e",
			"SET e 12", "SETRANGE e 0 ''", "OBJECT ENCODING e", "INCRBYFLOAT f 1e3", "OBJECT ENCODING f",
			"INCRBYFLOAT f 0.5", "OBJECT ENCODING f", "INCRBY e 1", "OBJECT ENCODING e",
			"SET e ab", "APPEND e c", "COPY e e2", "OBJECT ENCODING e2", "RENAME e e3", "OBJECT ENCODING e3",
			"SET e3 abc", "OBJECT ENCODING e3", "INCRBYFLOAT big 1e308", "OBJECT ENCODING big",
		)},
		{name: "del-exists", steps: steps(append(setup,
			"EXISTS s h l st z sx nokey", "DEL h l nokey", "EXISTS h l", "UNLINK st z", "DEL sx s", "KEYS *")...)},
		{name: "keys-scan-type", steps: steps(append(setup,
			unordered("KEYS *"), unordered("SCAN 0 COUNT 1000 TYPE hash"), unordered("SCAN 0 COUNT 1000 TYPE list"),
			unordered("SCAN 0 COUNT 1000 TYPE set"), unordered("SCAN 0 COUNT 1000 TYPE zset"),
			unordered("SCAN 0 COUNT 1000 TYPE string"), unordered("SCAN 0 COUNT 1000 TYPE HASH"),
			unordered("SCAN 0 COUNT 1000 TYPE stream"), unordered("SCAN 0 COUNT 1000 MATCH s* TYPE set"))...)},
		{name: "expire-types", steps: steps(append(setup,
			"EXPIRE h 100", within(tolS, "TTL h"), "PEXPIRE l 100000", within(tolMs, "PTTL l"),
			"EXPIREAT z "+futureS, "EXPIRETIME z", "PERSIST h", "TTL h", "PERSIST h", "TTL st",
			"EXPIRE st 100", "SADD st 3", within(tolS, "TTL st"), "SREM st 1 2 3", "TTL st", "EXISTS st",
			"HSET h g w", "TTL h", "EXPIRE h 100", "HDEL h f", within(tolS, "TTL h"),
			"EXPIRE z 0", "EXISTS z", "PEXPIRE l -1", "TYPE l", "EXPIREAT h 1", "HGET h g")...)},
		{name: "rename-types", steps: steps(append(setup,
			"RENAME h h2", "TYPE h2", "HGETALL h2", "EXISTS h", "EXPIRE l 100", "RENAME l l2", within(tolS, "TTL l2"),
			"LRANGE l2 0 -1", "RENAME z s", "TYPE s", "ZRANGE s 0 -1 WITHSCORES", "RENAME st h2", "TYPE h2",
			"SMEMBERS h2", "RENAMENX sx h2", "RENAMENX sx z", "TYPE z", "OBJECT ENCODING z", "RENAME nokey x")...)},
		{name: "copy-types", steps: steps(append(setup,
			"COPY h h3", "HGETALL h3", "HSET h3 x y", "HGETALL h", "COPY l s", "COPY l s REPLACE", "TYPE s",
			"LRANGE s 0 -1", "COPY z z2 DB 1", "SELECT 1", "ZRANGE z2 0 -1 WITHSCORES", "SELECT 0")...)},
		{name: "move-types", steps: steps(append(setup,
			"MOVE h 1", "EXISTS h", "SELECT 1", "HGETALL h", "MOVE h 0", "SELECT 0", "MOVE h 1")...)},
		{name: "empty-collections-disappear", steps: steps(
			"HSET h f v", "HDEL h f", "EXISTS h", "RPUSH l a", "RPOP l", "EXISTS l", "SADD s a", "SREM s a",
			"EXISTS s", "SADD s a", "SPOP s", "EXISTS s", "SADD s a", "SMOVE s t a", "EXISTS s",
			"ZADD z 1 a", "ZREM z a", "EXISTS z", "ZADD z 1 a", "ZPOPMAX z", "EXISTS z", "ZADD z 1 a",
			"ZREMRANGEBYSCORE z -inf +inf", "EXISTS z", "KEYS *", "DBSIZE",
		)},
	})
}

// TestDiffTypesRandom sends a long random sequence mixing all types with
// the string, key and expiry commands of TestDiffRandom over a handful of
// keys. Seeds are fixed (DIFF_SEED=N replays one, DIFF_SEED=random picks
// one). Collections stay small, so hash field order (listpack) is exact;
// SMEMBERS is compared unordered because a set may or may not be an intset,
// and random picks (SRANDMEMBER, HRANDFIELD, ZRANDMEMBER) by type and
// length. SPOP always pops everything so both servers keep the same state.
func TestDiffTypesRandom(t *testing.T) {
	seeds := diffSeeds(t, 11, 12, 13)
	const length = 3000
	runSeeds(t, newDiffPair(t, ""), seeds, length, func(t *testing.T, p *diffPair, proto int, seed int64) []stepDiff {
		return h4Run(t, p, proto, h4RandomSteps(seed, length))
	})
}

type h4Gen struct{ *gen }

func (g h4Gen) field() string  { return g.pick("f", "g", "h", "n", "") }
func (g h4Gen) elem() string   { return g.pick("a", "b", "c", "1", "2", "-5", "10", "a") }
func (g h4Gen) member() string { return g.pick("a", "b", "c", "d", "1", "2", "x") }

func (g h4Gen) score() string {
	return g.pick("1", "2", "-1", "1.5", "0", "3", "inf", "-inf", "+inf", "0.1", "1e3", "abc", "nan", "-0", "2.50",
		"100", "5", "7")
}

func (g h4Gen) bound() string {
	return g.pick("-inf", "+inf", "(1", "1", "2", "(2", "0", "(inf", "(-inf", "1.5", "abc", "(", "5", "(5", "inf")
}

func (g h4Gen) lex() string { return g.pick("-", "+", "[a", "(b", "[c", "(a", "a", "[", "(") }

func (g h4Gen) index() string { return g.pick("0", "1", "-1", "2", "-2", "5", "-10", "100", "abc") }

func (g h4Gen) count() string { return g.pick("0", "1", "2", "3", "-1", "10", "abc") }

func (g h4Gen) side() string { return g.word(g.pick("LEFT", "RIGHT")) }

// limit returns nothing or LIMIT offset count.
func (g h4Gen) limit() []string {
	if g.r.Intn(3) != 0 {
		return nil
	}
	return []string{g.word("LIMIT"), g.pick("0", "1", "2", "-1", "abc"), g.pick("1", "2", "-1", "0", "10")}
}

func (g h4Gen) withScores() []string {
	if g.r.Intn(2) == 0 {
		return nil
	}
	return []string{g.word("WITHSCORES")}
}

// typeStep draws one collection or key command.
func (g h4Gen) typeStep() h4Step {
	c := func(a ...string) h4Step { return h4Step{st: diffStep{args: a}} }
	u := func(a ...string) h4Step { return h4Step{st: diffStep{args: a, mode: modeUnordered}} }
	l := func(a ...string) h4Step { return h4Len(0, a...) }
	k := g.key
	switch g.r.Intn(80) {
	// hashes
	case 0, 1, 2:
		a := []string{"HSET", k(), g.field(), g.value()}
		if g.r.Intn(3) == 0 {
			a = append(a, g.field(), g.value())
		}
		return c(a...)
	case 3:
		return c("HSETNX", k(), g.field(), g.value())
	case 4:
		return c("HMSET", k(), g.field(), g.value(), g.field(), g.value())
	case 5:
		return c("HGET", k(), g.field())
	case 6:
		return c("HMGET", k(), g.field(), g.field())
	case 7:
		return c("HDEL", k(), g.field(), g.field())
	case 8:
		return c("HEXISTS", k(), g.field())
	case 9:
		return c("HINCRBY", k(), g.field(), g.integer())
	case 10:
		// Not g.float(): 1e308 makes a value longer than 64 bytes, which
		// turns the hash into a hashtable whose field order is unspecified.
		return c("HINCRBYFLOAT", k(), g.field(), g.pick("1.5", "-0.1", "1e3", "abc", "inf", "0", "5.", "-2", ".5", "0x10", "-inf"))
	case 11:
		return c(g.pick("HLEN", "HKEYS", "HVALS", "HGETALL"), k())
	case 12:
		return c("HSTRLEN", k(), g.field())
	case 13:
		return l("HRANDFIELD", k(), g.pick("1", "-2", "0", "2"))
	case 14:
		return u("HRANDFIELD", k(), "100", g.pick("WITHVALUES", "withvalues"))
	case 15:
		return c("HSCAN", k(), "0", "COUNT", "100")
	// lists
	case 16, 17, 18:
		return c(g.pick("LPUSH", "RPUSH"), k(), g.elem(), g.elem())
	case 19:
		return c(g.pick("LPUSHX", "RPUSHX"), k(), g.elem())
	case 20, 21:
		if g.r.Intn(2) == 0 {
			return c(g.pick("LPOP", "RPOP"), k())
		}
		return c(g.pick("LPOP", "RPOP"), k(), g.count())
	case 22:
		return c("LINDEX", k(), g.index())
	case 23:
		return c("LLEN", k())
	case 24, 25:
		return c("LRANGE", k(), g.index(), g.index())
	case 26:
		return c("LREM", k(), g.pick("0", "1", "-1", "2", "abc"), g.elem())
	case 27:
		return c("LSET", k(), g.index(), g.elem())
	case 28:
		return c("LTRIM", k(), g.index(), g.index())
	case 29:
		return c("LINSERT", k(), g.pick("BEFORE", "after", "MIDDLE"), g.elem(), g.elem())
	case 30:
		a := []string{"LPOS", k(), g.elem()}
		for n := g.r.Intn(3); n > 0; n-- {
			a = append(a, g.pick("RANK", "COUNT", "MAXLEN"), g.pick("1", "2", "-1", "0", "abc"))
		}
		return c(a...)
	case 31:
		return c("LMOVE", k(), k(), g.side(), g.side())
	case 32:
		return c("RPOPLPUSH", k(), k())
	case 33:
		return c(g.pick("BLPOP", "BRPOP"), k(), k(), g.pick("0.01", "-1", "abc"))
	// sets
	case 34, 35, 36:
		return c("SADD", k(), g.member(), g.member())
	case 37:
		return c("SREM", k(), g.member(), g.member())
	case 38:
		return c("SISMEMBER", k(), g.member())
	case 39:
		return c("SMISMEMBER", k(), g.member(), g.member())
	case 40:
		return u("SMEMBERS", k())
	case 41:
		return c("SCARD", k())
	case 42:
		return c("SMOVE", k(), k(), g.member())
	case 43:
		return u("SPOP", k(), "100")
	case 44:
		return l("SRANDMEMBER", k(), g.pick("1", "-3", "0"))
	case 45:
		return u("SRANDMEMBER", k(), "100")
	// sorted sets
	case 46, 47, 48, 49:
		a := []string{"ZADD", k()}
		for n := g.r.Intn(3); n > 0; n-- {
			a = append(a, g.word(g.pick("NX", "XX", "GT", "LT", "CH", "INCR")))
		}
		a = append(a, g.score(), g.member())
		if g.r.Intn(3) == 0 {
			a = append(a, g.score(), g.member())
		}
		return c(a...)
	case 50:
		return c("ZINCRBY", k(), g.score(), g.member())
	case 51:
		return c("ZSCORE", k(), g.member())
	case 52:
		return c("ZMSCORE", k(), g.member(), g.member())
	case 53:
		return c("ZREM", k(), g.member(), g.member())
	case 54:
		return c("ZCARD", k())
	case 55:
		return c("ZCOUNT", k(), g.bound(), g.bound())
	case 56, 57:
		a := []string{"ZRANGE", k(), g.index(), g.index()}
		if g.r.Intn(3) == 0 {
			a = append(a, g.word("REV"))
		}
		return c(append(a, g.withScores()...)...)
	case 58, 59:
		a := []string{"ZRANGE", k(), g.bound(), g.bound(), g.word("BYSCORE")}
		if g.r.Intn(2) == 0 {
			a = append(a, g.word("REV"))
		}
		a = append(a, g.limit()...)
		return c(append(a, g.withScores()...)...)
	case 60:
		a := []string{"ZRANGE", k(), g.lex(), g.lex(), g.word("BYLEX")}
		if g.r.Intn(2) == 0 {
			a = append(a, g.word("REV"))
		}
		return c(append(a, g.limit()...)...)
	case 61:
		a := append([]string{"ZRANGEBYSCORE", k(), g.bound(), g.bound()}, g.withScores()...)
		return c(append(a, g.limit()...)...)
	case 62:
		a := append([]string{"ZREVRANGEBYSCORE", k(), g.bound(), g.bound()}, g.withScores()...)
		return c(append(a, g.limit()...)...)
	case 63:
		return c(append([]string{"ZREVRANGE", k(), g.index(), g.index()}, g.withScores()...)...)
	case 64:
		return c(g.pick("ZRANK", "ZREVRANK"), k(), g.member())
	case 65:
		return c("ZREMRANGEBYSCORE", k(), g.bound(), g.bound())
	case 66:
		return c("ZREMRANGEBYRANK", k(), g.index(), g.index())
	case 67:
		if g.r.Intn(2) == 0 {
			return c(g.pick("ZPOPMIN", "ZPOPMAX"), k())
		}
		return c(g.pick("ZPOPMIN", "ZPOPMAX"), k(), g.count())
	case 68:
		return c(g.pick("ZLEXCOUNT", "ZRANGEBYLEX", "ZREVRANGEBYLEX", "ZREMRANGEBYLEX"), k(), g.lex(), g.lex())
	case 69:
		return l("ZRANDMEMBER", k(), g.pick("1", "-2", "0"), g.pick("WITHSCORES", "withscores"))
	case 70:
		return c("ZSCAN", k(), "0", "COUNT", "100")
	// keys across types
	case 71, 72:
		return c("TYPE", k())
	case 73:
		return c("OBJECT", "ENCODING", k())
	case 74:
		return u("SCAN", "0", "COUNT", "1000", "TYPE", g.pick("string", "hash", "list", "set", "zset"))
	case 75:
		return c("COPY", k(), k(), g.pick("REPLACE", "replace"))
	case 76:
		return c("EXISTS", k(), k())
	}
	return c(g.pick("DEL", "RENAME", "RENAMENX"), k(), k())
}

func h4RandomSteps(seed int64, n int) []h4Step {
	r := rand.New(rand.NewSource(seed))
	g := h4Gen{&gen{r: r, now: time.Now(), slots: r.Perm(4 * n)}}
	out := make([]h4Step, n)
	for i := range out {
		if r.Intn(3) == 0 {
			out[i] = h4Step{st: g.step()}
		} else {
			out[i] = g.typeStep()
		}
	}
	return out
}
