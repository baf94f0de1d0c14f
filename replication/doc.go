// Package replication makes a lockredis server one node of a group that
// agrees on every write through Raft (github.com/hashicorp/raft): the
// leader runs commands as a standalone server does and ships what they
// changed, as physical changes, in the Raft log; followers apply the
// entries in log order and forward their clients' commands to the leader.
// A reply leaves the leader only once what it depends on is committed by a
// majority. docs/replication.md describes the design, the entry and
// snapshot formats, and the commands (ROLE, SENTINEL, RAFT.*, WAIT).
//
// Nothing below this package imports it, nor does the root package: a
// single embedded server compiles none of it. Package raftgroup wires it
// to a lockredis.Server.
//
// Files, one concern each: config.go (settings, peers), node.go (the Raft
// node: stores, transport, bootstrap, leadership), entry.go (the log
// entry format), fsm.go (applying entries, snapshots), commit.go (batching
// a leader's changes into entries, holding replies), forward.go and
// frame.go (a follower's proxied connections), role.go (ROLE, INFO
// replication), sentinel.go, cluster.go, membership.go (RAFT.*), wait.go
// (WAIT, WAITAOF).
package replication
