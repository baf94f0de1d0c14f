package raftgroup_test

import (
	"testing"

	"github.com/lockredis/lockredis/raftgroup"
)

// TestGroupExample is docs/replication.md's "In Go tests" example: each
// fault the Group offers, with a write through any node after it.
func TestGroupExample(t *testing.T) {
	// snippet: group
	g := raftgroup.Run(t, 3)   // three nodes in this process, a leader elected
	c := dial(t, g.Addrs()[1]) // any node: a follower forwards to the leader
	c.must("SET", "k", "v")
	leader := g.Leader()
	g.Crash(leader)   // kill -9: no leadership transfer
	g.Restart(leader) // same client address, same Raft log
	g.Isolate(leader) // or g.Partition(sideA, sideB); Heal ends it
	g.Heal()
	m := g.Followers()[0]
	g.Pause(m) // cut off from Raft traffic, as a stopped process
	g.Resume(m)
	// end snippet
	if r := onLeader(t, g, "GET", "k"); r != "v" {
		t.Fatalf("GET k after the faults: %v", r)
	}
}
