package compat

// The single-node cluster emulation beside a redis-server 7.0 started in
// cluster mode (cluster-enabled yes, every slot assigned to itself, state
// ok), in RESP2 and RESP3. The real node announces 127.0.0.1
// (cluster-announce-ip), as lockredis reports the address its client
// connected to; node ids and ports differ between the two servers, so
// the replies that carry them are compared with those masked.

import (
	"math/rand"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lockredis/lockredis"
)

// newClusterDiffPair is a diffPair whose redis-server runs in cluster mode
// and whose lockredis has Options.Cluster. Neither expires keys in the
// background (see newLazyExpiryPair): what COUNTKEYSINSLOT counts once a
// key's time has passed depends on the commands alone.
func newClusterDiffPair(t *testing.T) *diffPair {
	t.Helper()
	p := &diffPair{owner: t, supported: map[string]bool{}, lazyExpiry: true}
	p.lockOpts = lockredis.Options{Cluster: true}
	args := []string{"--enable-debug-command", "local",
		"--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
		"--cluster-announce-ip", "127.0.0.1",
		// The default bus port, port+10000, does not exist for a port
		// above 55535.
		"--cluster-port", strconv.Itoa(freePort(t))}
	p.redisAddr = startRedis(t, args...)
	p.redisCtl = p.admin(t, p.redisAddr)
	p.stopActiveExpiry(t, p.redisCtl)
	startClusterNode(t, p.redisCtl)
	if os.Getenv("DIFF_SELFTEST") != "" {
		p.lockAddr = startRedis(t, append(args[:len(args)-1], strconv.Itoa(freePort(t)))...)
		p.lockCtl = p.admin(t, p.lockAddr)
		p.stopActiveExpiry(t, p.lockCtl)
		startClusterNode(t, p.lockCtl)
	} else {
		p.startLock(t)
	}
	return p
}

// startClusterNode gives a fresh cluster-mode redis-server every slot and
// waits until it reports cluster_state:ok.
func startClusterNode(t *testing.T, c *rawConn) {
	t.Helper()
	if r := c.do(t, "CLUSTER", "ADDSLOTSRANGE", "0", "16383"); r != "+OK\r\n" {
		t.Fatalf("CLUSTER ADDSLOTSRANGE: %q", r)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(c.do(t, "CLUSTER", "INFO"), "cluster_state:ok") {
		if time.Now().After(deadline) {
			t.Fatal("the cluster-mode redis-server never reported cluster_state:ok")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

var (
	nodeIDRe   = regexp.MustCompile(`[0-9a-f]{40}`)
	nodePortRe = regexp.MustCompile(`:[0-9]+@[0-9]+ `)
)

// clusterMasked compares replies with node ids, the servers' ports (as
// integers) and CLUSTER NODES's ip:port@cport masked; everything else,
// types and lengths included, must be equal.
func clusterMasked(p *diffPair, cmd string) diffStep {
	ports := map[string]bool{}
	for _, a := range []string{p.redisAddr, p.lockAddr} {
		if i := strings.LastIndexByte(a, ':'); i >= 0 {
			ports[a[i+1:]] = true
		}
	}
	var mask func(n node) node
	mask = func(n node) node {
		if n.typ == ':' && ports[n.line] {
			n.line = "PORT"
		}
		n.blob = nodePortRe.ReplaceAllString(nodeIDRe.ReplaceAllString(n.blob, "ID"), ":PORT@BUS ")
		elems := make([]node, len(n.elems))
		for i, e := range n.elems {
			elems[i] = mask(e)
		}
		n.elems = elems
		return n
	}
	return diffStep{args: splitCommand(cmd), cmp: func(a, b node) bool {
		return mask(a).canonicalOrdered() == mask(b).canonicalOrdered()
	}}
}

func TestDiffCluster(t *testing.T) {
	p := newClusterDiffPair(t)
	const crossSlot = "MSET a 1 b 2"
	runDiffCasesOn(t, p, []diffCase{
		{name: "topology", steps: steps(
			"CLUSTER INFO",
			clusterMasked(p, "CLUSTER MYID"),
			clusterMasked(p, "CLUSTER SLOTS"),
			clusterMasked(p, "CLUSTER SHARDS"),
			clusterMasked(p, "CLUSTER NODES"),
			"CLUSTER LINKS",
			"CLUSTER HELP",
			"cluster help",
			"CLUSTER SAVECONFIG",
			"READONLY",
			shapeField("CLIENT INFO", "flags"),
			"READWRITE",
			shapeField("CLIENT INFO", "flags"),
			"READONLY",
			"RESET",
			shapeField("CLIENT INFO", "flags"),
			"ASKING",
			shapeField("CLIENT INFO", "flags"),
			"INFO cluster",
			"CONFIG GET cluster-enabled",
			"CONFIG SET cluster-enabled no",
			shape("HELLO 3"),
			shape("HELLO 2"),
		)},
		{name: "arity and unknown", steps: steps(
			"CLUSTER",
			"CLUSTER NOPE",
			"CLUSTER INFO x",
			"CLUSTER SLOTS x",
			"CLUSTER SHARDS x",
			"CLUSTER NODES x",
			"CLUSTER MYID x",
			"CLUSTER KEYSLOT",
			"CLUSTER KEYSLOT a b",
			"CLUSTER COUNTKEYSINSLOT",
			"CLUSTER GETKEYSINSLOT 1",
			"CLUSTER HELP x",
			"CLUSTER ADDSLOTS",
			"CLUSTER ADDSLOTSRANGE 1",
			"CLUSTER REPLICAS",
			"CLUSTER FAILOVER a b",
			"cluster failover a b c",
			"CLUSTER MEET a 1 2 3",
			"CLUSTER RESET HARD x",
			"READONLY x",
			"READWRITE x",
			"ASKING x",
		)},
		{name: "keyslot", steps: keyslotSteps(t)},
		{name: "keys in slot", steps: steps(
			"CLUSTER COUNTKEYSINSLOT 3443",
			"MSET {user1000}.a 1 {user1000}.b 2 {user1000}.c 3",
			"SET foo x",
			"CLUSTER COUNTKEYSINSLOT 3443",
			"CLUSTER COUNTKEYSINSLOT 12182",
			"CLUSTER COUNTKEYSINSLOT 0",
			"CLUSTER COUNTKEYSINSLOT 16383",
			unordered("CLUSTER GETKEYSINSLOT 3443 10"),
			"CLUSTER GETKEYSINSLOT 3443 0",
			"CLUSTER GETKEYSINSLOT 12182 1",
			"CLUSTER GETKEYSINSLOT 0 5",
			"DEL foo",
			"CLUSTER COUNTKEYSINSLOT 12182",
			// A key whose time has passed counts until a command meets
			// it (no background expiry here); the script lets 5 ms pass.
			"PEXPIRE {user1000}.a 1",
			pause5ms,
			"CLUSTER COUNTKEYSINSLOT 3443",
			unordered("CLUSTER GETKEYSINSLOT 3443 10"),
			"GET {user1000}.a",
			"CLUSTER COUNTKEYSINSLOT 3443",
			"CLUSTER COUNTKEYSINSLOT 16384",
			"CLUSTER COUNTKEYSINSLOT -1",
			"CLUSTER COUNTKEYSINSLOT x",
			"CLUSTER COUNTKEYSINSLOT 99999999999999999999",
			"CLUSTER GETKEYSINSLOT 1 -1",
			"CLUSTER GETKEYSINSLOT 16384 1",
			"CLUSTER GETKEYSINSLOT -1 1",
			"CLUSTER GETKEYSINSLOT x 1",
			"CLUSTER GETKEYSINSLOT 1 x",
			"CLUSTER GETKEYSINSLOT x -1",
		)},
		{name: "topology changes", steps: steps(
			"CLUSTER ADDSLOTS 5",
			"CLUSTER ADDSLOTS 5 6 7",
			"CLUSTER ADDSLOTS 5 16384",
			"CLUSTER ADDSLOTS x",
			"CLUSTER ADDSLOTS -1",
			"CLUSTER ADDSLOTSRANGE 0 16383",
			"CLUSTER ADDSLOTSRANGE 10 20 30",
			"CLUSTER ADDSLOTSRANGE 20 10",
			"CLUSTER ADDSLOTSRANGE 10 16384",
			"CLUSTER ADDSLOTSRANGE x 1",
			"CLUSTER ADDSLOTSRANGE 30 40 20 10",
			"CLUSTER FAILOVER",
			"CLUSTER FAILOVER FORCE",
			"CLUSTER FAILOVER takeover",
			"CLUSTER FAILOVER nope",
			"CLUSTER FORGET 0123456789012345678901234567890123456789",
			"CLUSTER FORGET x",
			"CLUSTER REPLICATE 0123456789012345678901234567890123456789",
			"CLUSTER REPLICAS 0123456789012345678901234567890123456789",
			"CLUSTER SLAVES x",
			"CLUSTER COUNT-FAILURE-REPORTS x",
		)},
		{name: "crossslot", steps: steps(
			crossSlot,
			"MSET {a}1 1 {a}2 2",
			"MGET {a}1 {a}2 a",
			"MGET a b",
			"DEL a b",
			"DEL a a",
			"EXISTS {a}1 {a}2 {b}1",
			"RENAME {a}1 {b}1",
			"RENAME {a}1 {a}3",
			"SMOVE a b m",
			"LMOVE a b LEFT RIGHT",
			"RPOPLPUSH a b",
			"BLMOVE a b LEFT RIGHT 0.01",
			"BLPOP a b 0.01",
			"BLPOP {a}x {a}y 0.01",
			"WATCH a b",
			"WATCH {a}1 {a}2",
			"UNWATCH",
			"TOUCH a b",
			"UNLINK a b",
			"MSETNX a 1 b 2",
			"SPUBLISH a hi",
			"SSUBSCRIBE a b",
			"PUBLISH a hi",
			"PING",
			unordered("KEYS *"),
			"DBSIZE",
			`EVAL "return 1" 2 a b`,
			`EVAL "return 1" 2 {a}x {a}y`,
			`EVAL "return 1" 0`,
			// The transaction is refused as the command is queued, or as
			// a whole at EXEC.
			"MULTI",
			crossSlot,
			"SET a 1",
			"EXEC",
			"MULTI",
			"SET a 1",
			"SET b 1",
			"GET a",
			"EXEC",
			"EXEC",
			"GET a",
			"MULTI",
			"SET {t}a 1",
			"GET {t}b",
			"PING",
			"EXEC",
			"MULTI",
			"EXEC",
		), needs: []string{"lmove", "smove", "spublish"}},
		{name: "scripts", steps: steps(
			// A redis.call whose keys span slots.
			`EVAL "return redis.call('mset','a',1,'b',2)" 0`,
			`EVAL "return redis.pcall('mset','a',1,'b',2)" 0`,
			// Without a shebang, keys in several slots are allowed.
			`EVAL "return redis.call('set','a',1) .. redis.call('set','b',1)" 0`,
			`EVAL "return redis.call('get','a')" 1 b`,
			// With one, the script's keys must share a slot...
			"EVAL \"#!lua\nreturn redis.call('set','a',1) .. redis.call('set','b',1)\" 0",
			"EVAL \"#!lua\nreturn redis.call('get',KEYS[1])\" 1 b",
			"EVAL \"#!lua\nreturn redis.call('get','a')\" 1 b",
			"EVAL \"#!lua\nreturn redis.pcall('get','a')\" 1 b",
			"EVAL \"#!lua\nreturn redis.call('get','{b}x')\" 1 b",
			"EVAL \"#!lua\nredis.call('ping') return redis.call('get','a')\" 0",
			// ...unless it allows cross-slot keys.
			"EVAL \"#!lua flags=allow-cross-slot-keys\nreturn redis.call('set','a',1) .. redis.call('set','b',1)\" 0",
			"EVAL \"#!lua flags=allow-cross-slot-keys\nreturn redis.call('mset','a',1,'b',1)\" 0",
			"EVAL \"#!lua flags=no-cluster\nreturn 1\" 0",
			"EVAL_RO \"#!lua flags=no-cluster\nreturn 1\" 0",
			"EVAL \"#!lua flags=no-cluster,no-writes\nreturn 1\" 0",
			"MULTI",
			`EVAL "return redis.call('mset','a',1,'b',2)" 0`,
			"EVAL \"#!lua\nreturn redis.call('get','a')\" 1 {a}x",
			"EXEC",
			// Inside EXEC a script is held to the slot of the whole
			// transaction's keys.
			"MULTI",
			"SET {a}1 x",
			"EVAL \"#!lua\nreturn redis.pcall('get','b')\" 0",
			"EVAL \"#!lua\nreturn redis.pcall('get','{a}1')\" 0",
			"EXEC",
		)},
		{name: "databases", steps: steps(
			"SELECT 0",
			"SELECT 1",
			"SELECT 99",
			"SELECT x",
			"SELECT 99999999999",
			"SET {a}1 v",
			"MOVE {a}1 1",
			"MOVE {a}1 x",
			"SWAPDB 0 1",
			"SWAPDB x 1",
			"COPY {a}1 {a}2 DB 1",
			"COPY {a}1 {a}2 DB 0",
			"COPY {a}1 {a}2 DB 99",
			"COPY {a}1 b",
			"COPY {a}1 {a}3 REPLACE",
			"GET {a}3",
			"INFO keyspace",
		)},
	})
}

// pause5ms is a script that returns once 5 ms have passed.
const pause5ms = `EVAL "local t = redis.call('time') local s = t[1] * 1000000 + t[2] repeat t = redis.call('time') until t[1] * 1000000 + t[2] - s >= 5000 return 0" 0`

// keyslotSteps asks CLUSTER KEYSLOT of keys with and without hash tags,
// random ones included (each run with new random keys; the seed is logged).
func keyslotSteps(t *testing.T) []diffStep {
	keys := []string{"", "a", "foo", "123456789", "{user1000}.following", "{user1000}.followers",
		"foo{}{bar}", "foo{{bar}}zap", "foo{bar}{zap}", "{", "}", "{}", "{{}}", "a{b", "a}b{", "{a}",
		"é", "\x00", "\xff\xfe", strings.Repeat("k", 1000)}
	seed := time.Now().UnixNano()
	t.Logf("keyslot seed %d", seed)
	rnd := rand.New(rand.NewSource(seed))
	for i := 0; i < 200; i++ {
		b := make([]byte, rnd.Intn(24))
		for j := range b {
			// Braces often, so that random tags appear.
			switch r := rnd.Intn(10); {
			case r == 0:
				b[j] = '{'
			case r == 1:
				b[j] = '}'
			default:
				b[j] = byte(rnd.Intn(256))
			}
		}
		keys = append(keys, string(b))
	}
	var out []diffStep
	for _, k := range keys {
		out = append(out, args("CLUSTER", "KEYSLOT", k))
	}
	return out
}

// Without cluster-enabled, as a redis-server without it.
func TestDiffClusterDisabled(t *testing.T) {
	runDiffCases(t, []diffCase{
		{name: "disabled", steps: steps(
			"CLUSTER INFO",
			"CLUSTER SLOTS",
			"CLUSTER SHARDS",
			"CLUSTER NODES",
			"CLUSTER MYID",
			"CLUSTER HELP",
			"CLUSTER KEYSLOT a",
			"CLUSTER COUNTKEYSINSLOT 1",
			"CLUSTER GETKEYSINSLOT 1 1",
			"CLUSTER ADDSLOTS 1",
			"CLUSTER MEET 127.0.0.1 1",
			"CLUSTER RESET",
			"CLUSTER",
			"CLUSTER NOPE",
			"CLUSTER KEYSLOT",
			"READONLY",
			"READWRITE",
			"ASKING",
			"READONLY x",
			"MSET a 1 b 2",
			"SELECT 1",
			"INFO cluster",
			"CONFIG GET cluster-enabled",
			"MULTI",
			"CLUSTER INFO",
			"EXEC",
			`EVAL "return redis.pcall('cluster','info')" 0`,
			`EVAL "return redis.pcall('readonly')" 0`,
		)},
	})
}

func TestDiffRestoreAsking(t *testing.T) {
	runDiffCases(t, []diffCase{
		{name: "restore-asking", steps: steps("SET k v", "PEXPIRE k 100000", "RPUSH l a b",
			"DUMP k", args("RESTORE-ASKING", "k2", "0", dumpV),
			"GET k2", "RESTORE-ASKING k2 0 x", "RESTORE-ASKING k2 0 x REPLACE", "RESTORE-ASKING k2 -1 x REPLACE",
			"RESTORE-ASKING k2 0 x FOO", "RESTORE-ASKING k2", "RESTORE-ASKING k2 0",
			args("RESTORE-ASKING", "k2", "5000", dumpW, "REPLACE"),
			"GET k2", within(200, "PTTL k2"), "SET s 1", "RESTORE-ASKING s x x")},
		{name: "multi eval", steps: steps("MULTI",
			args("RESTORE-ASKING", "k", "0", dumpV), "EXEC", "GET k",
			`EVAL "return redis.call('restore-asking',KEYS[1],'0',ARGV[1])" 1 k2 x`)},
	})
}

// TestDiffClusterReplicationMigrate: in cluster mode REPLICAOF and FAILOVER refuse, and
// MIGRATE sends RESTORE-ASKING (to a standalone redis-server here; REPLACE
// lets both servers' runs succeed) with its keys in one slot.
func TestDiffClusterReplicationMigrate(t *testing.T) {
	target := startRedis(t)
	hp := strings.Replace(target, ":", " ", 1)
	runDiffCasesOn(t, newClusterDiffPair(t), []diffCase{
		{name: "replication", steps: steps("REPLICAOF NO ONE", "REPLICAOF h 1", "SLAVEOF no one",
			"FAILOVER", "FAILOVER ABORT", "FAILOVER TIMEOUT x")},
		{name: "migrate", steps: steps("SET {t}a 1", "SET {t}b 2", "MIGRATE "+hp+" {t}a 0 1000 REPLACE", "EXISTS {t}a",
			"MIGRATE "+hp+" '' 0 1000 REPLACE KEYS {t}b {t}c", "EXISTS {t}b", "SET a 1", "SET b 1",
			"MIGRATE "+hp+" '' 0 1000 REPLACE KEYS a b", "MIGRATE "+hp+" '' 0 1000 REPLACE KEYS nokey1 nokey2")},
	})
}
