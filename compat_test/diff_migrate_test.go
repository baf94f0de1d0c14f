package compat

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"

	"github.com/lockredis/lockredis"
)

// MIGRATE, between redis-server and lockredis both ways (its cluster-mode
// RESTORE-ASKING is in diff_cluster_test.go).

// DUMP payloads of the strings "v" and "w" (Redis 7.0, RDB version 10).
const (
	dumpV = "\x00\x01v\n\x00\x91\x08\xce\xb2\x198\x8a\xce"
	dumpW = "\x00\x01w\n\x00/0\x8e|0i\x98:"
)

// TestDiffMigrateLocal: MIGRATE's replies that need no target: the
// argument errors, NOKEY, and a target that refuses the connection.
func TestDiffMigrateLocal(t *testing.T) {
	closed := closedPort(t)
	runDiffCases(t, []diffCase{
		{name: "errors", steps: steps("MIGRATE", "MIGRATE h p k 0", "MIGRATE h p k 0 1000 FOO",
			"MIGRATE h p k 0 1000 AUTH", "MIGRATE h p k 0 1000 AUTH2 u", "MIGRATE h p k 0 1000 KEYS a",
			"MIGRATE h p k x 1000", "MIGRATE h p k 0 x", "MIGRATE h p k x x", "MIGRATE h p '' 0 1000 KEYS",
			"MIGRATE h p '' 0 1000 COPY REPLACE AUTH pw AUTH2 u pw KEYS a b")},
		{name: "nokey", steps: steps("MIGRATE 127.0.0.1 "+closed+" k 0 1000", "MIGRATE 127.0.0.1 "+closed+" '' 0 1000 KEYS a b",
			"MIGRATE 127.0.0.1 "+closed+" k 0 -5 COPY", "SET e 1", "PEXPIRE e 1",
			// A 10 ms pause on both servers (DEBUG SLEEP is refused:
			// enable-debug-command is off), so that e's time has passed.
			"BLPOP nolist 0.01",
			"MIGRATE 127.0.0.1 "+closed+" e 0 1000")},
		{name: "unreachable", steps: steps("SET k v", "MIGRATE 127.0.0.1 "+closed+" k 0 1000", "EXISTS k",
			"MIGRATE 127.0.0.1 "+closed+" '' 0 0 COPY KEYS k", "GET k")},
		{name: "getkeys", steps: steps("COMMAND GETKEYS MIGRATE h p k 0 1", "COMMAND GETKEYS MIGRATE h p '' 0 1 KEYS a b",
			"COMMAND GETKEYS MIGRATE h p '' 0 1 COPY KEYS a b", "COMMAND GETKEYS MIGRATE h p '' 0 1 AUTH2 keys x KEYS a",
			"COMMAND GETKEYS MIGRATE h p k 0 1 KEYS a", "COMMAND GETKEYS MIGRATE h p '' 0 1 AUTH keys keys",
			"COMMAND GETKEYS MIGRATE h p '' 0 1 KEYS", "COMMAND GETKEYS MIGRATE h p '' 0 1 COPY KEYS",
			"COMMAND GETKEYS MIGRATE h p '' 0 1 KEYS keys", "COMMAND GETKEYSANDFLAGS MIGRATE h p '' 0 1 KEYS a b",
			"COMMAND GETKEYSANDFLAGS MIGRATE h p k 0 1", "COMMAND GETKEYS RESTORE-ASKING k 0 x")},
		{name: "acl keys", steps: steps("ACL SETUSER migacl on nopass ~a* +@all", "AUTH migacl x",
			"MIGRATE 127.0.0.1 "+closed+" '' 0 1000 KEYS a b", "MIGRATE 127.0.0.1 "+closed+" b 0 1000",
			"MIGRATE 127.0.0.1 "+closed+" '' 0 1000 AUTH keys KEYS a1 a2", "AUTH default x", "ACL DELUSER migacl")},
		{name: "multi eval", steps: steps("SET k v", "MULTI", "MIGRATE 127.0.0.1 "+closed+" k 0 1000",
			"MIGRATE 127.0.0.1 "+closed+" nokey 0 1000", "MIGRATE h p k x 1", "EXEC",
			`EVAL "return redis.call('migrate','127.0.0.1',ARGV[1],KEYS[1],'0','1000')" 1 k `+closed,
			`EVAL "return redis.call('migrate','127.0.0.1',ARGV[1],KEYS[1],'0','1000')" 1 nokey `+closed)},
	})
}

// closedPort is a port nothing listens on (connections are refused).
func closedPort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	return port
}

// migrateStep is one command of a MIGRATE scenario, sent to the source or
// to the target (database 2 there). "HOST PORT" in it is the target.
type migrateStep struct {
	dst bool
	cmd []string
	ttl bool // a PTTL reply, recorded as "in (90000, 100000]" or not
}

func src(cmd string) migrateStep { return migrateStep{cmd: splitCommand(cmd)} }
func dst(cmd string) migrateStep { return migrateStep{dst: true, cmd: splitCommand(cmd)} }

// migrateScenario's order keeps out of what Redis's cache of connections
// to targets (which lockredis does not have) would show: after a failed
// MIGRATE Redis forgets the target's database and sends no SELECT for
// destination-db -1, so "a -1" comes right after a success.
var migrateScenario = []migrateStep{
	src("SET s v"), src("PSETEX t 100000 w"), src("RPUSH l a b c"), src("HSET h f 1 g 2"),
	src("SADD set x y"), src("ZADD z 1 m"),
	src("MIGRATE HOST PORT s 2 5000"), src("EXISTS s"), dst("GET s"), dst("DUMP s"), dst("PTTL s"),
	src("MIGRATE HOST PORT t 2 5000 COPY"), src("EXISTS t"), dst("GET t"), {dst: true, cmd: []string{"PTTL", "t"}, ttl: true},
	src("MIGRATE HOST PORT t 2 5000"), src("EXISTS t"),
	src("MIGRATE HOST PORT t 2 5000 REPLACE"), src("EXISTS t"), {dst: true, cmd: []string{"PTTL", "t"}, ttl: true},
	src("MIGRATE HOST PORT '' 2 5000 KEYS l h nokey set z"), src("EXISTS l h set z"),
	dst("LRANGE l 0 -1"), dst("HGETALL h"), dst("DUMP l"), dst("SMISMEMBER set x y q"), dst("SCARD set"), dst("ZRANGE z 0 -1 WITHSCORES"),
	src("MIGRATE HOST PORT '' 2 5000 KEYS nokey1 nokey2"),
	src("SET x 1"), src("SET y 2"), dst("SET y old"),
	src("MIGRATE HOST PORT '' 2 5000 KEYS x y"), src("EXISTS x"), src("GET y"), dst("GET x"), dst("GET y"),
	dst("ACL SETUSER mig on >pw ~* +@all"),
	src("MIGRATE HOST PORT '' 2 5000 REPLACE AUTH2 mig pw KEYS y"), src("EXISTS y"), dst("GET y"),
	src("SET a 1"), src("MIGRATE HOST PORT a -1 5000"),
	src("MIGRATE HOST PORT a 2 5000 AUTH2 mig wrong"), src("MIGRATE HOST PORT a 2 5000 AUTH pw"),
	src("MIGRATE HOST PORT a 99 5000"), src("EXISTS a"),
	src("MIGRATE HOST PORT a 2 0"), src("EXISTS a"), dst("GET a"),
	src("SET m 1"), src("MULTI"), src("MIGRATE HOST PORT m 2 5000"), src("GET m"), src("EXEC"), dst("GET m"),
	src("SET e 1"),
	src(`EVAL "return redis.call('migrate',ARGV[1],ARGV[2],KEYS[1],'2','5000')" 1 e HOST PORT`),
	src("EXISTS e"), dst("GET e"),
	src("SET n 1"), dst("SELECT 0"), src("MIGRATE HOST PORT n 0 5000 COPY"), dst("GET n"),
	dst("ACL DELUSER mig"),
}

// TestDiffMigrate runs migrateScenario from every kind of source to
// every kind of target, in RESP2 and RESP3: lockredis to redis-server, to
// another lockredis, and redis-server to lockredis must give the
// transcript redis-server to redis-server gives.
func TestDiffMigrate(t *testing.T) {
	redisSrc, redisDst := startRedis(t), startRedis(t)
	lockSrc, lockDst := startLockredis(t), startLockredis(t)
	for _, proto := range []int{2, 3} {
		want := runMigrateScenario(t, redisSrc, redisDst, proto)
		for _, pair := range []struct{ name, src, dst string }{
			{"lockredis to redis", lockSrc, redisDst},
			{"lockredis to lockredis", lockSrc, lockDst},
			{"redis to lockredis", redisSrc, lockDst},
		} {
			t.Run(fmt.Sprintf("%s resp%d", pair.name, proto), func(t *testing.T) {
				got := runMigrateScenario(t, pair.src, pair.dst, proto)
				for i := range migrateScenario {
					if got[i] != want[i] {
						t.Errorf("step %d %v (dst %v):\n\tredis to redis: %q\n\t%s: %q",
							i+1, migrateScenario[i].cmd, migrateScenario[i].dst, want[i], pair.name, got[i])
					}
				}
			})
		}
	}
}

func startLockredis(t *testing.T) string {
	srv := lockredis.NewServer(lockredis.Options{})
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv.Addr()
}

// runMigrateScenario empties both servers and runs migrateScenario,
// returning one reply per step.
func runMigrateScenario(t *testing.T, srcAddr, dstAddr string, proto int) []string {
	host, port, _ := net.SplitHostPort(dstAddr)
	for _, a := range []string{srcAddr, dstAddr} {
		c := dialRaw(t, a)
		c.do(t, "FLUSHALL")
		c.do(t, "ACL", "DELUSER", "mig")
		c.c.Close()
	}
	sc, dc := dialRaw(t, srcAddr), dialRaw(t, dstAddr)
	if proto == 3 {
		sc.do(t, "HELLO", "3")
		dc.do(t, "HELLO", "3")
	}
	dc.do(t, "SELECT", "2")
	out := make([]string, len(migrateScenario))
	for i, st := range migrateScenario {
		cmd := make([]string, len(st.cmd))
		for j, a := range st.cmd {
			cmd[j] = map[string]string{"HOST": host, "PORT": port}[a]
			if cmd[j] == "" {
				cmd[j] = a
			}
		}
		c := sc
		if st.dst {
			c = dc
		}
		r := c.do(t, cmd...)
		if st.ttl {
			n, _ := strconv.Atoi(strings.TrimSpace(r[1:]))
			r = fmt.Sprint(n > 90000 && n <= 100000)
		}
		out[i] = r
	}
	return out
}

// TestDiffNotifyMigrate: MIGRATE raises "del" for each key the target
// acknowledged (not with COPY, not for a key the target refused), as
// Redis's migrateCommand. REPLACE makes every run find the same target
// state, whichever server ran the case before.
func TestDiffNotifyMigrate(t *testing.T) {
	p := newLazyExpiryPair(t)
	target := startRedis(t)
	hp := strings.Replace(target, ":", " ", 1)
	runNotifyCases(t, p, []notifyCase{
		{name: "migrate", cmds: []any{
			"MSET a 1 b 2 c 3", "MIGRATE " + hp + " '' 5 1000 REPLACE KEYS a b",
			"MIGRATE " + hp + " c 5 1000 COPY REPLACE", "MIGRATE " + hp + " c 5 1000",
			"MIGRATE " + hp + " '' 5 1000 REPLACE KEYS c nokey", "MIGRATE " + hp + " nokey 5 1000",
			"SET d 1", "MIGRATE " + hp + " d 5 1000 REPLACE AUTH wrong"}},
		{name: "migrate multi eval", cmds: []any{
			"SET m 1", "SET e 1", "MULTI", "SET x 1", "MIGRATE " + hp + " m 5 1000 REPLACE", "EXEC",
			`EVAL "return redis.call('migrate',ARGV[1],ARGV[2],KEYS[1],'5','1000','REPLACE')" 1 e ` + hp}},
	})
}
