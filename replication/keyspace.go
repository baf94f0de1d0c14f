package replication

// bindKeyspace binds the state machine to the engine's keyspace core
// (its change listener, Apply, Snapshot and Restore, and its follower
// switches). Until the core offers them, nothing is bound: the group
// agrees on its membership and clock but the keyspace is not replicated.
func bindKeyspace(n *Node) keyspace { return nil }

// encodeBatch joins several transactions' encoded changes into one
// kindChanges body.
func encodeBatch(queue [][]byte) []byte {
	var b []byte
	for _, q := range queue {
		b = appendString(b, string(q))
	}
	return b
}
