package engine

import (
	"regexp"
	"testing"
	"time"
)

// Slots as redis-server 7.0's CLUSTER KEYSLOT gives them.
func TestKeySlot(t *testing.T) {
	for _, tc := range []struct {
		key  string
		slot int
	}{
		{"", 0},
		{"foo", 12182},
		{"bar", 5061},
		{"123456789", 12739}, // CRC16/XMODEM's check value 0x31C3
		{"{user1000}.following", 3443},
		{"{user1000}.followers", 3443},
		{"foo{}{bar}", 8363},    // an empty first tag: the whole key
		{"foo{{bar}}zap", 4015}, // the tag is "{bar"
		{"foo{bar}{zap}", 5061}, // the first tag only: "bar"
		{"{", 4092},
		{"}", 12090},
		{"{}", 15257},
		{"a{b", 13340},
		{"{a}", 15495},
		{"{{}}", 4092}, // the tag is "{"
		{"é", 10180},
	} {
		if got := KeySlot([]byte(tc.key)); got != tc.slot {
			t.Errorf("KeySlot(%q) = %d, want %d", tc.key, got, tc.slot)
		}
	}
}

func newClusterEngine(t *testing.T) *testEngine {
	t.Helper()
	return newTestEngineConfig(t, Config{Params: map[string]string{"cluster-enabled": "yes", "port": "7000"}})
}

func TestClusterCommands(t *testing.T) {
	te := newClusterEngine(t)
	id := te.ClusterMyID()
	if !regexp.MustCompile(`^[0-9a-f]{40}$`).MatchString(id) {
		t.Fatalf("node id %q", id)
	}
	q := func(s string) string { return `"` + s + `"` }
	te.run([]step{
		{cmd("CLUSTER", "MYID"), q(id)},
		{cmd("CLUSTER", "KEYSLOT", "{user1000}.x"), "(integer) 3443"},
		// The Go API's session has no connection: 127.0.0.1 and the port.
		{cmd("CLUSTER", "SLOTS"), `[[(integer) 0 (integer) 16383 ["127.0.0.1" (integer) 7000 ` + q(id) + ` []]]]`},
		{cmd("CLUSTER", "SHARDS"), `[["slots" [(integer) 0 (integer) 16383] "nodes" [["id" ` + q(id) +
			` "port" (integer) 7000 "ip" "127.0.0.1" "endpoint" "127.0.0.1" "role" "master" "replication-offset" (integer) 0 "health" "online"]]]]`},
		{cmd("CLUSTER", "NODES"), `"` + id + ` 127.0.0.1:7000@17000 myself,master - 0 0 0 connected 0-16383\n"`},
		{cmd("CLUSTER", "LINKS"), "[]"},
		{cmd("CLUSTER", "REPLICAS", id), "[]"},
		{cmd("CLUSTER", "REPLICAS", "x"), "(error) ERR Unknown node x"},
		{cmd("CLUSTER", "COUNT-FAILURE-REPORTS", id), "(integer) 0"},
		{cmd("CLUSTER", "FORGET", id), "(error) ERR I tried hard but I can't forget myself..."},
		{cmd("CLUSTER", "REPLICATE", id), "(error) ERR Can't replicate myself"},
		{cmd("CLUSTER", "FAILOVER", "FORCE"), "(error) ERR You should send CLUSTER FAILOVER to a replica"},
		{cmd("CLUSTER", "FAILOVER", "x"), "(error) ERR syntax error"},
		{cmd("CLUSTER", "ADDSLOTS", "1", "16384"), "(error) ERR Invalid or out of range slot"},
		{cmd("CLUSTER", "ADDSLOTS", "7", "1"), "(error) ERR Slot 7 is already busy"},
		{cmd("CLUSTER", "ADDSLOTSRANGE", "1", "2", "3"), "(error) ERR wrong number of arguments for 'cluster|addslotsrange' command"},
		{cmd("CLUSTER", "ADDSLOTSRANGE", "5", "2"), "(error) ERR start slot number 5 is greater than end slot number 2"},
		{cmd("CLUSTER", "ADDSLOTSRANGE", "0", "16383"), "(error) ERR Slot 0 is already busy"},
		{cmd("CLUSTER", "DELSLOTS", "1"), "(error) ERR CLUSTER DELSLOTS is not supported: lockredis emulates a single-node cluster whose node owns every slot"},
		{cmd("CLUSTER", "MEET", "127.0.0.1", "7001"), "(error) ERR CLUSTER MEET is not supported: lockredis emulates a single-node cluster whose node owns every slot"},
		{cmd("CLUSTER", "SAVECONFIG"), "OK"},
		{cmd("READONLY"), "OK"},
		{cmd("READONLY"), "OK"},
		{cmd("READWRITE"), "OK"},
		{cmd("ASKING"), "OK"},
		{cmd("CONFIG", "GET", "cluster-enabled"), `["cluster-enabled" "yes"]`},
	})
}

func TestClusterKeysInSlot(t *testing.T) {
	te := newClusterEngine(t)
	te.run([]step{
		{cmd("CLUSTER", "COUNTKEYSINSLOT", "3443"), "(integer) 0"},
		{cmd("MSET", "{user1000}.a", "1", "{user1000}.b", "2", "{user1000}.c", "3"), "OK"},
		{cmd("SET", "foo", "x"), "OK"},
		{cmd("CLUSTER", "COUNTKEYSINSLOT", "3443"), "(integer) 3"},
		{cmd("CLUSTER", "COUNTKEYSINSLOT", "12182"), "(integer) 1"},
		{cmd("CLUSTER", "GETKEYSINSLOT", "3443", "2"), `["{user1000}.a" "{user1000}.b"]`},
		{cmd("CLUSTER", "GETKEYSINSLOT", "3443", "0"), `[]`},
		{cmd("CLUSTER", "GETKEYSINSLOT", "12182", "10"), `["foo"]`},
		{cmd("CLUSTER", "COUNTKEYSINSLOT", "16384"), "(error) ERR Invalid slot"},
		{cmd("CLUSTER", "COUNTKEYSINSLOT", "-1"), "(error) ERR Invalid slot"},
		{cmd("CLUSTER", "COUNTKEYSINSLOT", "x"), "(error) ERR value is not an integer or out of range"},
		{cmd("CLUSTER", "GETKEYSINSLOT", "1", "-1"), "(error) ERR Invalid slot or number of keys"},
		{cmd("CLUSTER", "GETKEYSINSLOT", "16384", "1"), "(error) ERR Invalid slot or number of keys"},
		{cmd("CLUSTER", "GETKEYSINSLOT", "1", "x"), "(error) ERR value is not an integer or out of range"},
	})
	// A key whose time has passed counts until it is removed, as in
	// Redis's slot dictionary.
	te.SetActiveExpire(false)
	te.run([]step{{cmd("PEXPIRE", "foo", "10"), "(integer) 1"}})
	te.Clock.FastForward(time.Second)
	te.run([]step{
		{cmd("CLUSTER", "COUNTKEYSINSLOT", "12182"), "(integer) 1"},
		{cmd("CLUSTER", "GETKEYSINSLOT", "12182", "10"), `["foo"]`},
		{cmd("GET", "foo"), "(nil)"},
		{cmd("CLUSTER", "COUNTKEYSINSLOT", "12182"), "(integer) 0"},
	})
}

// Keys in different slots: CROSSSLOT, as Redis's processCommand.
func TestClusterCrossSlot(t *testing.T) {
	const crossSlot = "(error) CROSSSLOT Keys in request don't hash to the same slot"
	te := newClusterEngine(t)
	te.run([]step{
		{cmd("MSET", "a", "1", "b", "2"), crossSlot},
		{cmd("MSET", "{a}1", "1", "{a}2", "2"), "OK"},
		{cmd("MGET", "{a}1", "{a}2", "a"), `["1" "2" (nil)]`},
		{cmd("DEL", "a", "b"), crossSlot},
		{cmd("DEL", "a", "a"), "(integer) 0"},
		{cmd("SMOVE", "{x}a", "b", "m"), crossSlot},
		{cmd("RENAME", "{a}1", "{a}3"), "OK"},
		{cmd("RENAME", "{a}3", "b"), crossSlot},
		{cmd("PING"), "PONG"}, // no keys: never refused
		// A transaction's keys must share a slot; each command is checked
		// as it is queued, the queue as a whole at EXEC.
		{cmd("MULTI"), "OK"},
		{cmd("SET", "a", "1"), "QUEUED"},
		{cmd("SET", "b", "1"), "QUEUED"},
		{cmd("EXEC"), crossSlot},
		{cmd("EXEC"), "(error) ERR EXEC without MULTI"},
		{cmd("MULTI"), "OK"},
		{cmd("MSET", "a", "1", "b", "2"), crossSlot},
		{cmd("EXEC"), "(error) EXECABORT Transaction discarded because of previous errors."},
		{cmd("MULTI"), "OK"},
		{cmd("SET", "{t}a", "1"), "QUEUED"},
		{cmd("GET", "{t}b"), "QUEUED"},
		{cmd("EXEC"), `[OK (nil)]`},
		// Databases other than 0 do not exist in a cluster.
		{cmd("SELECT", "0"), "OK"},
		{cmd("SELECT", "1"), "(error) ERR SELECT is not allowed in cluster mode"},
		{cmd("MOVE", "{a}1", "1"), "(error) ERR MOVE is not allowed in cluster mode"},
		{cmd("SWAPDB", "0", "1"), "(error) ERR SWAPDB is not allowed in cluster mode"},
		{cmd("COPY", "{a}3", "{a}9", "DB", "1"), "(error) ERR Copying to another database is not allowed in cluster mode"},
		{cmd("COPY", "{a}3", "{a}9"), "(integer) 1"},
	})
}

// Without the option the commands answer as a redis-server without
// cluster-enabled, and nothing is refused for its slots.
func TestClusterDisabled(t *testing.T) {
	const disabled = "(error) ERR This instance has cluster support disabled"
	te := newTestEngine(t)
	te.run([]step{
		{cmd("CLUSTER", "SLOTS"), disabled},
		{cmd("CLUSTER", "HELP"), disabled},
		{cmd("CLUSTER", "KEYSLOT", "a"), disabled},
		{cmd("READONLY"), disabled},
		{cmd("READWRITE"), disabled},
		{cmd("ASKING"), disabled},
		{cmd("CLUSTER", "KEYSLOT"), "(error) ERR wrong number of arguments for 'cluster|keyslot' command"},
		{cmd("CLUSTER", "NOPE"), "(error) ERR unknown subcommand 'NOPE'. Try CLUSTER HELP."},
		{cmd("MSET", "a", "1", "b", "2"), "OK"},
		{cmd("SELECT", "1"), "OK"},
		{cmd("CONFIG", "GET", "cluster-enabled"), `["cluster-enabled" "no"]`},
	})
}

// READONLY shows in CLIENT LIST as Redis's flag r until READWRITE or
// RESET.
func TestClusterReadOnlyFlag(t *testing.T) {
	te := newClusterEngine(t)
	flags := func() string {
		r := te.do("CLIENT", "INFO")
		m := regexp.MustCompile(` flags=(\S+) `).FindStringSubmatch(r.Str)
		if m == nil {
			t.Fatalf("CLIENT INFO: %v", r)
		}
		return m[1]
	}
	for _, tc := range []struct {
		cmd  []string
		want string
	}{
		{cmd("PING"), "N"},
		{cmd("READONLY"), "r"},
		{cmd("ASKING"), "r"},
		{cmd("READWRITE"), "N"},
		{cmd("READONLY"), "r"},
		{cmd("RESET"), "N"},
	} {
		te.do(tc.cmd...)
		if got := flags(); got != tc.want {
			t.Errorf("after %q: flags=%s, want %s", tc.cmd, got, tc.want)
		}
	}
}
