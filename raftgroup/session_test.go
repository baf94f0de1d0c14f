package raftgroup_test

import (
	"strings"
	"testing"

	"github.com/lockredis/lockredis/raftgroup"
)

// Session locks whose connections were on the old leader (directly, or
// forwarded by a follower) end when the leader changes, after their
// lock-delay, not at their TTL: no connection that held one survives the
// change. A plain lock with the same TTL stays held.
func TestSessionLocksEndAtLeaderChange(t *testing.T) {
	g := raftgroup.Run(t, 3)
	old := g.Leader()
	direct := dial(t, old.Addr())
	if r := direct.must("LOCK.ACQUIRE", "lock:direct", "a", "600000", "SESSION", "LOCKDELAY", "100"); r == "(nil)" {
		t.Fatalf("session lock not granted: %v", r)
	}
	var follower *raftgroup.Member
	for _, m := range g.Followers() {
		follower = m
	}
	forwarded := dial(t, follower.Addr())
	if r := forwarded.must("LOCK.ACQUIRE", "lock:forwarded", "b", "600000", "SESSION", "LOCKDELAY", "0"); r == "(nil)" {
		t.Fatalf("session lock through a follower not granted: %v", r)
	}
	direct.must("LOCK.ACQUIRE", "lock:plain", "c", "600000")
	// A session lock released normally leaves nothing behind to end.
	direct.must("LOCK.ACQUIRE", "lock:released", "d", "600000", "SESSION")
	direct.must("LOCK.RELEASE", "lock:released", "d")
	direct.must("SET", "lock:released", "someone-else")

	g.Crash(old)
	for _, key := range []string{"lock:direct", "lock:forwarded"} {
		eventually(t, key+" ended by the new leader", func() string {
			r := onLeader(t, g, "LOCK.ACQUIRE", key, "next", "600000")
			if s, _ := r.(string); s == "(nil)" || strings.HasPrefix(s, "-") {
				return "still held: " + s
			}
			return ""
		})
	}
	if r := onLeader(t, g, "LOCK.ACQUIRE", "lock:plain", "next", "600000"); r != "(nil)" {
		t.Fatalf("a plain lock was ended by the leader change: %v", r)
	}
	if r := onLeader(t, g, "GET", "lock:released"); r != "someone-else" {
		t.Fatalf("a released session lock's key was ended again: %v", r)
	}
}
