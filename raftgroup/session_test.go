package raftgroup_test

import (
	"strings"
	"testing"

	"github.com/lockredis/lockredis/raftgroup"
)

// Session locks whose connections were on the old leader (directly, or
// forwarded by a follower) end when the leader changes, after their
// lock-delay, not at their TTL: no connection that held one survives the
// change. A plain lock with the same TTL stays held, and so does a lock
// of a named session (LOCK.SESSION CREATE): it is not a connection's, and
// keeps its TTL.
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
	named, _ := direct.must("LOCK.SESSION", "CREATE", "600000").(string)
	if named == "" || strings.HasPrefix(named, "-") {
		t.Fatalf("LOCK.SESSION CREATE: %q", named)
	}
	if r := direct.must("LOCK.ACQUIRE", "lock:named", "e", "600000", "SESSIONID", named); r == "(nil)" {
		t.Fatalf("named-session lock not granted: %v", r)
	}
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
	if r := onLeader(t, g, "LOCK.ACQUIRE", "lock:named", "next", "600000"); r != "(nil)" {
		t.Fatalf("a named session's lock was ended by the leader change: %v", r)
	}
	if r := onLeader(t, g, "EXISTS", "lockredis:session:"+named); r != "1" {
		t.Fatalf("a named session was ended by the leader change: %v", r)
	}
	if r := onLeader(t, g, "GET", "lock:released"); r != "someone-else" {
		t.Fatalf("a released session lock's key was ended again: %v", r)
	}
}
