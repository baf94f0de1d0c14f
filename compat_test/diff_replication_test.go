package compat

import (
	"strings"
	"testing"
)

// REPLICAOF, SLAVEOF, FAILOVER, SYNC, PSYNC, REPLCONF: lockredis has no
// replication. SYNC, PSYNC, REPLCONF ACK/GETACK and REPLICAOF host port
// are where lockredis refuses what Redis would do (start replicating, or
// answer nothing): only their argument errors are compared here; their
// refusals are checked in engine/cmd_replication_test.go.
func TestDiffReplication(t *testing.T) {
	runDiffCases(t, []diffCase{
		{name: "replicaof no one", steps: steps("REPLICAOF NO ONE", "SLAVEOF no one", "replicaof No One", "ROLE")},
		{name: "replicaof errors", steps: steps("REPLICAOF", "REPLICAOF a", "REPLICAOF a b c",
			"REPLICAOF no two", "REPLICAOF h 65536", "REPLICAOF h -1", "SLAVEOF h x", "REPLICAOF no 1x")},
		{name: "failover", steps: steps("FAILOVER", "FAILOVER ABORT", "failover abort",
			"FAILOVER TO h 1", "FAILOVER TIMEOUT 5", "FAILOVER FORCE", "FAILOVER TO h 1 FORCE TIMEOUT 10",
			"FAILOVER TIMEOUT 5 TO h 6379")},
		{name: "failover errors", steps: steps("FAILOVER TO", "FAILOVER TO h", "FAILOVER TO h x",
			"FAILOVER TIMEOUT", "FAILOVER TIMEOUT -1", "FAILOVER TIMEOUT 0", "FAILOVER TIMEOUT x",
			"FAILOVER FORCE FORCE", "FAILOVER TIMEOUT 5 TIMEOUT 5", "FAILOVER TO h 1 TO h 2",
			"FAILOVER ABORT TIMEOUT 1", "FAILOVER ABORT ABORT", "FAILOVER foo",
			"FAILOVER TIMEOUT x TO h y", "FAILOVER TO h y TIMEOUT x")},
		{name: "sync errors", steps: steps("SYNC x", "PSYNC", "PSYNC a", "PSYNC a b",
			"PSYNC a 1 failover", "PSYNC a x FAILOVER", "PSYNC a x extra")},
		{name: "replconf", steps: steps("REPLCONF", "REPLCONF listening-port 6380",
			"REPLCONF ip-address 10.0.0.1", "REPLCONF capa eof capa psync2", "REPLCONF capa other",
			"REPLCONF rdb-only 1", "REPLCONF rdb-only 0", `REPLCONF rdb-filter-only functions`,
			`REPLCONF rdb-filter-only ""`, "REPLCONF listening-port 1 ip-address h capa eof")},
		{name: "replconf errors", steps: steps("REPLCONF a", "REPLCONF a b c", "REPLCONF foo bar",
			"REPLCONF listening-port x", "REPLCONF rdb-only x", "REPLCONF rdb-only 2",
			"REPLCONF rdb-only -1", `REPLCONF rdb-filter-only "functions x"`,
			`REPLCONF rdb-filter-only "'a"`, "REPLCONF capa eof foo bar",
			args("REPLCONF", "ip-address", strings.Repeat("h", 256)),
			args("REPLCONF", "ip-address", strings.Repeat("h", 255)))},
		{name: "multi", steps: steps("MULTI", "REPLICAOF NO ONE", "FAILOVER", "REPLCONF capa eof",
			"REPLCONF foo bar", "EXEC", "MULTI", "SYNC", "PSYNC a 1", "EXEC")},
		{name: "eval", steps: steps(`EVAL "return redis.call('replicaof','no','one')" 0`,
			`EVAL "return redis.call('failover')" 0`, `EVAL "return redis.call('sync')" 0`,
			`EVAL "return redis.call('replconf','capa','eof')" 0`)},
	})
}
