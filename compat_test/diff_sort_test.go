package compat

import "testing"

// Differential tests for SORT and SORT_RO (sort.c).
func TestDiffSort(t *testing.T) {
	runDiffCases(t, []diffCase{
		{name: "numeric", steps: steps(
			"RPUSH l 3 1 2 10 -5 1.5 1e2 ' 7' +4 0x10 inf -inf", "SORT l", "SORT l DESC", "SORT l ASC",
			"SORT l DESC ASC", "SORT_RO l", "SORT_RO l DESC", "SORT nokey", "SORT_RO nokey", "SORT nokey DESC",
		)},
		{name: "numeric-ties", steps: steps(
			"RPUSH l 1 1.0 01 +1 1e0 2 0 -0 0.0", "SORT l", "SORT l DESC",
			"SADD s 5 3 9 -1", "SORT s", "SORT s DESC", "SORT s LIMIT 1 2",
		)},
		// Redis tests strtod's errno without clearing it first: after an
		// ERANGE every SORT fails until a command clears errno (INCRBYFLOAT
		// does), so each ERANGE step is followed by one.
		{name: "bad-scores", steps: steps(
			"RPUSH l 1 a 2", "SORT l", "SORT l DESC LIMIT 0 1", "SORT l ALPHA", "RPUSH n 1 nan", "SORT n",
			"RPUSH t '1 '", "SORT t", "RPUSH e '' 1 -1", "SORT e", "SORT l STORE dst", "EXISTS dst",
			"RPUSH o 1 1e400", "SORT o", "INCRBYFLOAT f 1", "RPUSH u 1 1e-400", "SORT u", "INCRBYFLOAT f 1",
			"RPUSH sub 1e-310 1", "SORT sub", "INCRBYFLOAT f 1", "RPUSH x 0x1p-1070 -0x1p-1070", "SORT x",
			"RPUSH m 1.7976931348623157e308 -1.7976931348623157e308", "SORT m", "SORT e",
		)},
		{name: "alpha", steps: steps(
			"RPUSH l b a C c B 10 9 '' ab aa", "SORT l ALPHA", "SORT l ALPHA DESC", "SORT_RO l alpha desc",
			"SADD s z y x 1 2", "SORT s ALPHA", "ZADD z 3 c 1 b 2 a", "SORT z ALPHA", "SORT z ALPHA DESC",
			"SORT l ALPHA STORE d", "LRANGE d 0 -1",
		)},
		{name: "limit", steps: steps(
			"RPUSH l 5 4 3 2 1", "SORT l LIMIT 0 2", "SORT l LIMIT 1 2", "SORT l LIMIT 3 10", "SORT l LIMIT 5 1",
			"SORT l LIMIT 10 1", "SORT l LIMIT -1 2", "SORT l LIMIT 2 -1", "SORT l LIMIT 2 0", "SORT l LIMIT -5 -5",
			"SORT l LIMIT 0 0", "SORT l DESC LIMIT 1 1", "SORT l LIMIT 1 2 LIMIT 0 1", "SORT l LIMIT 1",
			"SORT l LIMIT", "SORT l LIMIT a 1", "SORT l LIMIT 1 a", "SORT l LIMIT 1.5 1",
			"SORT l LIMIT 9223372036854775807 9223372036854775807", "SORT l LIMIT -9223372036854775808 1",
			"SORT l LIMIT 99999999999999999999 1", "SORT nokey LIMIT 0 1", "SORT nokey LIMIT 1 1",
			"SORT l LIMIT 1 2 STORE d", "LRANGE d 0 -1", "SORT l LIMIT 9 2 STORE d", "EXISTS d",
		)},
		{name: "by", steps: steps(
			"RPUSH l a b c d", "SET w_a 3", "SET w_b 1", "SET w_c 2", "SORT l BY w_*", "SORT l BY w_* DESC",
			"SORT l BY w_* ALPHA", "SORT l BY w_* LIMIT 1 2", "SORT l BY w_* LIMIT 0 1 DESC", "SET w_d x",
			"SORT l BY w_*", "SORT l BY w_* ALPHA", "DEL w_d", "SORT l BY *_w", "SORT l BY w_*_x",
			"HSET h_a f 9", "HSET h_b f 7", "HSET h_c g 1", "SORT l BY h_*->f", "SORT l BY h_*->f DESC",
			"SORT l BY h_*->", "SORT l BY h_*->f ALPHA", "SORT l BY h_->f*", "SORT l BY ab*->f->g",
			"SORT l BY w_* STORE d", "LRANGE d 0 -1", "SET ss 5", "SORT l BY w_* BY", "SORT l BY",
			"LPUSH wl 1", "RPUSH l2 l", "SORT l2 BY w*", "SET wl 9", "SORT l2 BY w*",
		)},
		{name: "nosort", steps: steps(
			"RPUSH l 3 1 2", "SORT l BY nosort", "SORT l BY nosort DESC", "SORT l BY nosort LIMIT 1 1",
			"SORT l BY nosort DESC LIMIT 1 5", "SORT l BY nosort LIMIT 5 1", "SORT l BY nosort BY w_*",
			"SORT l BY nosort ALPHA", "SORT l BY nosort STORE d", "LRANGE d 0 -1",
			"ZADD z 3 a 1 b 2 c", "SORT z BY nosort", "SORT z BY nosort DESC", "SORT z BY nosort LIMIT 1 1",
			"SORT z BY nosort DESC LIMIT 1 1", "SORT z BY nosort DESC LIMIT 2 9", "SORT z BY nosort LIMIT -1 0",
			"SADD s 3 1 2", "SORT s BY nosort", "SORT s BY nosort DESC", "SORT s BY nosort LIMIT 1 1",
			"SADD t b a c", "SORT t BY nosort STORE d", "LRANGE d 0 -1", "SORT t BY nosort DESC STORE d",
			"LRANGE d 0 -1", "SORT t BY nosort DESC LIMIT 1 1 STORE d", "LRANGE d 0 -1",
			"SADD u 3 1 a", "SORT u BY nosort STORE d", "LRANGE d 0 -1",
		)},
		{name: "get", steps: steps(
			"RPUSH l 2 1 3", "SET o_1 one", "SET o_2 two", "HSET h_3 f three", "SORT l GET o_*",
			"SORT l GET # GET o_*", "SORT l GET o_* GET # GET h_*->f", "SORT l GET nostar", "SORT l GET #x",
			"SORT l GET o_* STORE d", "LRANGE d 0 -1", "SORT l GET h_*->f GET # STORE d", "LRANGE d 0 -1",
			"SORT l BY nosort GET o_*", "SORT l GET", "SORT l GET o_* LIMIT 0 1", "SORT l GET o_* LIMIT 9 1",
			"SORT l GET o_* LIMIT 9 1 STORE d", "EXISTS d", "RPUSH o_3 x", "SORT l GET o_*", "SORT l GET h_*",
			"SORT l GET o_*->f", "SORT_RO l GET # GET o_*",
		)},
		{name: "store", steps: steps(
			"RPUSH l 3 1 2", "SET d x", "EXPIRE d 100", "SORT l STORE d", "TYPE d", "TTL d", "LRANGE d 0 -1",
			"SORT l STORE d DESC", "LRANGE d 0 -1", "SORT nokey STORE d", "EXISTS d", "SORT nokey STORE d",
			"SORT l STORE", "SORT l STORE a STORE b", "EXISTS a", "LRANGE b 0 -1", "SORT l STORE l",
			"LRANGE l 0 -1", "SORT_RO l STORE d", "SORT l STORE d LIMIT 0 0", "EXISTS d",
			"SET str v", "SORT str STORE d", "SORT l STORE str", "TYPE str",
		)},
		{name: "zset", steps: steps(
			"ZADD z 1 10 2 5 3 7", "OBJECT ENCODING z", "SORT z", "OBJECT ENCODING z", "SORT z DESC",
			"ZADD y 1 b 2 a", "SORT_RO y ALPHA", "OBJECT ENCODING y", "ZADD x 1 a", "SORT x BY nosort",
			"OBJECT ENCODING x", "ZADD w 1 a", "SORT w", "OBJECT ENCODING w", "ZSCORE z 5", "ZRANGE z 0 -1 WITHSCORES",
			"ZADD v 1 a", "SORT v LIMIT a 1", "OBJECT ENCODING v", "SORT_RO nokey", "ZADD v 2 b", "ZRANGE v 0 -1",
		)},
		{name: "errors", steps: steps(
			"SORT", "SORT_RO", "SET s v", "SORT s", "SORT_RO s", "HSET h f v", "SORT h", "SORT s FOO",
			"SORT s LIMIT 0 a", "SORT s ASC FOO", "SORT nokey FOO", "SORT nokey STORE", "SORT_RO nokey STORE d",
			"SORT_RO nokey BY", "SORT_RO nokey GET", "SORT h LIMIT 0 1 BY nosort", "SORT_RO h DESC ALPHA",
		)},
		{name: "sets-in-scripts", steps: steps(
			"SADD s c a b 10 2", "SADD i 3 1 2", unordered("SORT s BY nosort"), "SORT i BY nosort",
			"EVAL \"return redis.call('SORT', KEYS[1], 'BY', 'nosort')\" 1 s",
			"EVAL \"return redis.call('SORT', KEYS[1], 'BY', 'nosort', 'DESC')\" 1 s",
			"EVAL \"return redis.call('SORT_RO', KEYS[1], 'BY', 'nosort', 'LIMIT', 1, 2)\" 1 s",
			"EVAL \"return redis.call('SORT', KEYS[1], 'BY', 'nosort')\" 1 i",
			"EVAL \"return redis.call('SORT', KEYS[1])\" 1 i",
			"EVAL \"return redis.call('SORT', KEYS[1], 'BY', 'w_*', 'GET', '#')\" 1 i",
			"EVAL \"return redis.call('SORT', KEYS[1], 'STORE', 'd')\" 1 i", "LRANGE d 0 -1",
			"EVAL \"return redis.call('SORT', KEYS[1])\" 1 s",
			"EVAL \"return redis.call('SORT', KEYS[1], 'FOO')\" 1 s",
			"EVAL \"return redis.pcall('SORT', KEYS[1], 'FOO')\" 1 s",
			"RPUSH l 3 1", "EVAL \"return redis.call('SORT', KEYS[1], 'BY', 'nosort')\" 1 l",
			"EVAL_RO \"return redis.call('SORT_RO', KEYS[1])\" 1 l",
			"EVAL_RO \"return redis.call('SORT', KEYS[1])\" 1 l",
		)},
		{name: "multi", steps: steps(
			"RPUSH l 3 1 2", "MULTI", "SORT l", "SORT l STORE d", "SORT l FOO", "SORT_RO l DESC", "LRANGE d 0 -1",
			"EXEC", "MULTI", "SORT l BY", "EXEC",
		)},
		{name: "acl", steps: steps(
			"RPUSH l 2 1", "SET w_1 1", "ACL SETUSER n on >pw +@all ~l ~d ~w_*", "ACL SETUSER r on >pw +@all %R~* ~d",
			"AUTH n pw", "SORT l", "SORT l BY nosort", "SORT l BY w_*", "SORT l GET #", "SORT l STORE d",
			"SORT_RO l GET w_*", "SORT l BY w_* GET # FOO", "SORT l FOO BY w_*", "AUTH r pw", "SORT l BY w_* GET #",
			"SORT l STORE d", "SORT l STORE x",
		)},
		{name: "getkeys", steps: steps(
			"COMMAND GETKEYS SORT a", "COMMAND GETKEYS SORT a STORE b", "COMMAND GETKEYS SORT a STORE b STORE c",
			"COMMAND GETKEYS SORT a LIMIT store x STORE c", "COMMAND GETKEYS SORT a GET store BY store STORE",
			"COMMAND GETKEYS SORT a store get x", "COMMAND GETKEYSANDFLAGS SORT a STORE b",
			"COMMAND GETKEYS SORT_RO a STORE b", "COMMAND GETKEYSANDFLAGS SORT_RO a", "COMMAND INFO SORT SORT_RO",
		)},
	})
}

// TestDiffSortCluster: in cluster mode BY with a pattern and GET are
// refused, STORE must hash to the sorted key's slot.
func TestDiffSortCluster(t *testing.T) {
	runDiffCasesOn(t, newClusterDiffPair(t), []diffCase{{name: "cluster", steps: steps(
		"RPUSH {l}1 3 1 2", "SORT {l}1", "SORT {l}1 BY nosort", "SORT {l}1 BY w_*", "SORT {l}1 GET #",
		"SORT {l}1 GET w_* BY w_*", "SORT {l}1 BY w_* GET #", "SORT_RO {l}1 GET #", "SORT {l}1 STORE {l}2",
		"LRANGE {l}2 0 -1", "SORT {l}1 STORE other", "SORT {l}1 LIMIT 0 1 DESC ALPHA", "SORT {l}1 FOO BY w_*",
		"DUMP {l}1", "COPY {l}1 {l}3", "COPY {l}1 x", "COPY {l}1 {l}4 DB 0", "COPY {l}1 {l}4 DB 1",
	)}})
}

// TestDiffSortDumpStats: the keyspace hits and misses SORT (its key and
// every BY and GET lookup), DUMP, RESTORE, COPY and OBJECT count.
func TestDiffSortDumpStats(t *testing.T) {
	p := newDiffPair(t, "")
	for _, tc := range []struct {
		name  string
		steps []diffStep
	}{
		{"sort", steps("RPUSH l 1 2 3", "SET w_1 5", "HSET h_2 f 1", "CONFIG RESETSTAT",
			"SORT l BY w_* GET # GET h_*->f GET x", "SORT nokey", "SORT l BY nosort", "SORT_RO l GET w_* LIMIT 0 1")},
		{"sort-store", steps("RPUSH l 2 1", "CONFIG RESETSTAT", "SORT l STORE d", "SORT nokey STORE d", "SORT l BY w_* STORE d")},
		{"dump-restore", steps("SET a 1", "CONFIG RESETSTAT", "DUMP a", "DUMP nokey",
			"EVAL \"return redis.call('RESTORE', 'b', 0, redis.call('DUMP', 'a'))\" 0", "RESTORE b 0 x", "RESTORE c 0 x")},
		{"copy-object", steps("SET a 1", "CONFIG RESETSTAT", "COPY a b", "COPY nokey b", "COPY a b", "OBJECT ENCODING a",
			"OBJECT FREQ nokey", "OBJECT IDLETIME a")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			forEachProto(t, func(t *testing.T, proto int) {
				p.reset(t)
				reportDiffs(t, runSteps(t, p, proto, tc.steps))
				for _, field := range []string{"keyspace_hits", "keyspace_misses"} {
					r, l := infoField(t, p.redisCtl, "stats", field), infoField(t, p.lockCtl, "stats", field)
					if r != l {
						t.Errorf("INFO %s: redis %q, lockredis %q", field, r, l)
					}
				}
			})
		})
	}
}
