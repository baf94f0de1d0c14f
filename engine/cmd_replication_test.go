package engine

import "testing"

// TestReplicationRefusals: where Redis would start replicating, or send no
// reply at all, lockredis answers an error at once.
// Replication commands: lockredis is a master without replicas and refuses
// the rest (compat_test/diff_replication_test.go compares with redis-server).
func TestReplicationRefusals(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("REPLICAOF", "NO", "ONE"), "OK"},
		{cmd("SLAVEOF", "no", "one"), "OK"},
		{cmd("REPLICAOF", "127.0.0.1", "6379"), "(error) ERR lockredis has no replication: it cannot become a replica (only REPLICAOF NO ONE is accepted)"},
		{cmd("REPLICAOF", "127.0.0.1", "65536"), "(error) ERR Invalid master port"},
		{cmd("SYNC"), "(error) ERR lockredis has no replication: SYNC and PSYNC are not supported"},
		{cmd("PSYNC", "?", "-1"), "(error) ERR lockredis has no replication: SYNC and PSYNC are not supported"},
		{cmd("PSYNC", "?", "x"), "(error) ERR value is not an integer or out of range"},
		{cmd("PSYNC", "id", "1", "FAILOVER"), "(error) ERR PSYNC FAILOVER can't be sent to a master."},
		{cmd("REPLCONF", "ACK", "1"), "(error) ERR lockredis has no replication: REPLCONF ACK and GETACK are for replication links only"},
		{cmd("REPLCONF", "capa", "eof", "GETACK", "*"), "(error) ERR lockredis has no replication: REPLCONF ACK and GETACK are for replication links only"},
		{cmd("REPLCONF", "listening-port", "6380", "capa", "psync2"), "OK"},
		{cmd("FAILOVER"), "(error) ERR FAILOVER requires connected replicas."},
		{cmd("ROLE"), `["master" (integer) 0 []]`},
	})
}
