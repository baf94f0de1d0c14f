package compat

import "testing"

// TestDiffReplyTypes asks every command whose reply has a RESP3 type of
// its own (null, map, set, double, boolean, verbatim, big number, push)
// for that reply, in its edge cases: missing keys, counts, WITHSCORES and
// WITHVALUES pairs, blocking timeouts, aborted transactions. Like every
// differential family it runs in RESP2 and in RESP3 (forEachProto): the
// RESP3 run is where the types show, the RESP2 run checks that none of it
// leaks into RESP2.
func TestDiffReplyTypes(t *testing.T) {
	runDiffCases(t, []diffCase{
		{name: "nulls", steps: steps(
			"RANDOMKEY", "GET nokey", "MGET nokey k", "SET k v", "MGET nokey k", "SET k w GET", "SET nk w NX GET",
			"GETDEL nokey", "GETEX nokey", "GETSET nokey2 v", "HGET nokey f", "HMGET nokey a b", "LINDEX nokey 0", "LPOP nokey",
			"LPOP nokey 2", "RPOP nokey 2", "RPOP nokey", "LPOS nokey x", "LPOS nokey x COUNT 0", "RPOPLPUSH nokey d",
			"LMOVE nokey d LEFT RIGHT", "SPOP nokey", "SPOP nokey 2", "SRANDMEMBER nokey", "SRANDMEMBER nokey 2",
			"ZSCORE nokey m", "ZMSCORE nokey a b", "ZRANK nokey m", "ZREVRANK nokey m", "ZRANDMEMBER nokey",
			"ZRANDMEMBER nokey 2", "ZRANDMEMBER nokey 2 WITHSCORES", "HRANDFIELD nokey", "HRANDFIELD nokey 2",
			"HRANDFIELD nokey 2 WITHVALUES", "OBJECT ENCODING nokey", "OBJECT FREQ nokey",
			"CLIENT GETNAME", "FLUSHALL", "RANDOMKEY", "ECHO ''",
		)},
		{name: "sorted-set-doubles", steps: steps(
			"ZADD z 1 a 2.5 b -inf c 0.1 d 1e17 e", "ZSCORE z a", "ZSCORE z b", "ZSCORE z c", "ZSCORE z d",
			"ZSCORE z e", "ZSCORE z nope", "ZMSCORE z a nope c d", "ZINCRBY z 0.1 a", "ZINCRBY z 1 new",
			"ZINCRBY z inf a", "ZINCRBY z -inf c", "ZINCRBY z abc a", "ZADD z INCR 1 b", "ZADD z NX INCR 1 b",
			"ZADD z XX INCR 1 nope", "ZADD z GT INCR -1 b", "ZADD z INCR -0.5 x",
			"ZRANGE z 0 -1", "ZRANGE z 0 -1 WITHSCORES", "ZRANGE z 0 1 REV WITHSCORES",
			"ZRANGE z -inf +inf BYSCORE WITHSCORES", "ZRANGE z (0 +inf BYSCORE LIMIT 1 2 WITHSCORES",
			"ZREVRANGE z 0 -1 WITHSCORES", "ZRANGEBYSCORE z -inf +inf WITHSCORES",
			"ZREVRANGEBYSCORE z +inf -inf WITHSCORES LIMIT 0 2", "ZRANGE z 5 1 WITHSCORES",
			"ZRANGE nokey 0 -1 WITHSCORES", "ZRANGEBYLEX z - +", "ZREVRANGEBYLEX z + -",
			"ZRANK z a", "ZREVRANK z a", "ZCOUNT z -inf +inf", "ZSCAN z 0", "ZCARD z",
			"ZPOPMIN z", "ZPOPMAX z", "ZPOPMIN z 2", "ZPOPMAX z 2", "ZPOPMIN z 0", "ZPOPMIN z -1",
			"ZPOPMAX nokey", "ZPOPMAX nokey 2", "ZPOPMIN z 100", "EXISTS z",
		)},
		{name: "zrandmember-withscores", steps: steps(
			"ZADD one 1.5 m", "ZRANDMEMBER one", "ZRANDMEMBER one 1", "ZRANDMEMBER one 1 WITHSCORES",
			"ZRANDMEMBER one -3 WITHSCORES", "ZRANDMEMBER one 5 WITHSCORES", "ZRANDMEMBER one 0 WITHSCORES",
			"ZRANDMEMBER one 1 WITHSCORES x",
		)},
		{name: "hashes-maps", steps: steps(
			"HGETALL nokey", "HSET h f1 v1 f2 v2", "HGETALL h", "HMGET h f1 nope f2", "HKEYS h", "HVALS h",
			"HSCAN h 0", "HINCRBYFLOAT h n 1.5", "HINCRBYFLOAT h n 0.1", "HINCRBY h i 1", "HEXISTS h f1",
			"HSET one f v", "HRANDFIELD one", "HRANDFIELD one 1", "HRANDFIELD one 1 WITHVALUES",
			"HRANDFIELD one -2 WITHVALUES", "HRANDFIELD one 0 WITHVALUES", "HRANDFIELD one 3 WITHVALUES",
		)},
		{name: "sets", steps: steps(
			"SMEMBERS nokey", "SADD s 1 2 3", "SMEMBERS s", unordered("SMEMBERS s"), "SADD t x",
			unordered("SADD t y z"), unordered("SMEMBERS t"), "SISMEMBER s 1", "SISMEMBER s 9",
			"SMISMEMBER s 1 9 2", "SMISMEMBER nokey a", "SSCAN s 0", "SCARD s", "SADD one m",
			"SRANDMEMBER one", "SRANDMEMBER one 2", "SRANDMEMBER one -2", "SRANDMEMBER one 0", "SPOP s 0",
			unordered("SPOP s 10"), "SPOP one", "SMEMBERS one",
		)},
		{name: "lists", steps: steps(
			"RPUSH l a b c a", "LRANGE l 0 -1", "LPOS l a", "LPOS l a COUNT 0", "LPOS l z COUNT 0",
			"LPOS l z", "LPOP l 0", "LPOP l 2", "RPOP l 5", "LPOP l 1", "LRANGE nokey 0 -1",
		)},
		{name: "blocking-timeouts", steps: steps(
			"BLPOP nokey 0.01", "BRPOP nokey other 0.01", "BLMOVE nokey d LEFT RIGHT 0.01",
			"BRPOPLPUSH nokey d 0.01", "RPUSH l x", "BLPOP nokey l 0.01", "BLMOVE l d RIGHT LEFT 0.01",
		)},
		{name: "transactions", steps: steps(
			"MULTI", "SET k 1", "GET nokey", "HGETALL nokey", "ZADD z 1.5 m", "ZSCORE z m", "SMEMBERS nokey",
			"LPOP nokey 2", "CONFIG GET maxmemory", "EXEC", "EXEC",
			"MULTI", "EXEC", "MULTI", "DISCARD", "MULTI", "GET", "EXEC",
		)},
		{name: "server-maps", steps: steps(
			"CONFIG GET maxmemory", "CONFIG GET nosuch", unordered("CONFIG GET maxmemory appendfsync"),
			unordered("CONFIG GET maxmemory-policy maxmemory"), "CONFIG SET maxmemory 0", kind("INFO"), kind("INFO server"),
			kind("INFO nosuch"), kind("CLIENT INFO"), kind("CLIENT LIST"), kind("CLIENT LIST TYPE pubsub"),
			kind("TIME"), kind("LASTSAVE"), "COMMAND GETKEYS set k v", "COMMAND GETKEYSANDFLAGS set k v",
			"COMMAND GETKEYSANDFLAGS lmove a b left right", "COMMAND DOCS nosuch", "COMMAND INFO nosuch",
			"OBJECT HELP", "CONFIG HELP", "CLIENT HELP", "COMMAND HELP", "SCRIPT HELP", "PUBSUB HELP",
			"PUBSUB NUMSUB a b", "PUBSUB CHANNELS", "PUBSUB NUMPAT", "DBSIZE", "SET k v", "TYPE k",
			"OBJECT ENCODING k", "OBJECT REFCOUNT k", "EXPIRETIME k", "SCAN 0", "KEYS *", "WAIT 0 0",
		)},
		{name: "scripts-resp-versions", needs: []string{"eval"}, steps: steps(
			"HSET h f v", "ZADD z 1.5 m", "SADD s x", "SCRIPT LOAD 'return 1'",
			"SCRIPT EXISTS e0e1f9fabfc9d4800c877a703b823ac0578ff8db nope",
			`EVAL "redis.setresp(3) return redis.call('hgetall', KEYS[1])" 1 h`,
			`EVAL "redis.setresp(2) return redis.call('hgetall', KEYS[1])" 1 h`,
			`EVAL "redis.setresp(3) return redis.call('smembers', KEYS[1])" 1 s`,
			`EVAL "redis.setresp(3) return redis.call('zscore', KEYS[1], 'm')" 1 z`,
			`EVAL "redis.setresp(2) return redis.call('zscore', KEYS[1], 'm')" 1 z`,
			`EVAL "redis.setresp(3) return redis.call('zrange', KEYS[1], 0, -1, 'withscores')" 1 z`,
			`EVAL "redis.setresp(2) return redis.call('zrange', KEYS[1], 0, -1, 'withscores')" 1 z`,
			`EVAL "redis.setresp(3) return redis.call('zpopmin', 'nokey', 2)" 0`,
			`EVAL "redis.setresp(3) return redis.call('config', 'get', 'maxmemory')" 0`,
			`EVAL "redis.setresp(3) return redis.call('get', 'nokey')" 0`,
			`EVAL "redis.setresp(3) return redis.call('get', 'nokey') == nil" 0`,
			`EVAL "redis.setresp(2) return redis.call('get', 'nokey') == false" 0`,
			`EVAL "redis.setresp(3) return redis.call('hmget', KEYS[1], 'f', 'nope', 'f')" 1 h`,
			`EVAL "redis.setresp(3) return redis.call('smismember', KEYS[1], 'x', 'y')" 1 s`,
			`EVAL "redis.setresp(3) return redis.call('ping')" 0`,
			`EVAL "redis.setresp(3) local r = redis.call('hgetall', KEYS[1]) return {type(r), r.map.f}" 1 h`,
			`EVAL "redis.setresp(3) local r = redis.call('smembers', KEYS[1]) return tostring(r.set.x)" 1 s`,
			`EVAL "redis.setresp(3) local r = redis.call('zscore', KEYS[1], 'm') return tostring(r.double)" 1 z`,
			`EVAL "redis.setresp(3) local r = redis.call('zrange', KEYS[1], 0, -1, 'withscores') return {r[1][1], tostring(r[1][2].double)}" 1 z`,
			`EVAL "redis.setresp(3) local r = redis.call('config', 'get', 'maxmemory') return r.map.maxmemory" 0`,
			`EVAL "redis.setresp(3) return true" 0`, `EVAL "redis.setresp(3) return false" 0`,
			`EVAL "return true" 0`, `EVAL "return false" 0`, `EVAL "return nil" 0`, `EVAL "return {1, nil, 3}" 0`,
			`EVAL "return {map={a=1}}" 0`, `EVAL "return {map={}}" 0`, `EVAL "return {set={x=true}}" 0`,
			`EVAL "return {set={}}" 0`, `EVAL "return {map={a={set={b=true}}}}" 0`,
			`EVAL "return {double=1.5}" 0`, `EVAL "return {double=0.1}" 0`, `EVAL "return {double=1/0}" 0`,
			`EVAL "return {double=-1/0}" 0`, `EVAL "return {double=3}" 0`, `EVAL "return {double=1e300}" 0`,
			`EVAL "return {double='x'}" 0`, `EVAL "return {big_number='123'}" 0`,
			`EVAL "return {big_number='123\r\n456'}" 0`, `EVAL "return {big_number=12}" 0`,
			`EVAL "return {verbatim_string={format='txt', string='hi'}}" 0`,
			`EVAL "return {verbatim_string={format='markdown', string='hi'}}" 0`,
			`EVAL "return {verbatim_string={format='x', string='hi'}}" 0`,
			`EVAL "return {verbatim_string={format='txt'}}" 0`,
			`EVAL "return {ok='fine'}" 0`, `EVAL "return {err='ERR bad'}" 0`,
			`EVAL "return redis.pcall('get')" 0`,
			`EVAL "redis.setresp(3) return {redis.call('get', 'nokey'), 1}" 0`,
			`EVAL "redis.setresp(3) return redis.call('hgetall', 'nokey')" 0`,
			`EVAL "redis.setresp(3) return redis.call('smembers', 'nokey')" 0`,
		)},
	})
}
