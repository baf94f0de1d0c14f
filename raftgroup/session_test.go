package raftgroup_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

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

// A session lock held through a follower that is cut off from the group
// ends once the leader has not heard from the follower for the session
// timeout, after its lock-delay, and passes to the waiter: not before.
// The cut-off follower closes its client's connection on its own, before
// the lock passes on, so that the old holder learns its session is gone.
func TestSessionLocksEndWhenTheirNodeIsCutOff(t *testing.T) {
	const timeout, lockDelay = 3 * time.Second, time.Second
	// hashicorp's own timeouts, slower than the LAN defaults: a leader
	// that lost its quorum for a moment on a loaded test machine would
	// close the waiter's connection and end the session itself.
	g := raftgroup.RunWith(t, 3, raftgroup.Options{SessionTimeout: timeout,
		HeartbeatTimeout: time.Second, ElectionTimeout: time.Second, LeaderLeaseTimeout: 500 * time.Millisecond})
	leader := g.Leader()
	follower := g.Followers()[0]
	holder := dial(t, follower.Addr())
	if r := holder.must("LOCK.ACQUIRE", "lock:cut", "a", "600000", "SESSION", "LOCKDELAY", strconv.Itoa(int(lockDelay/time.Millisecond))); r == "(nil)" || strings.HasPrefix(r.(string), "-") {
		t.Fatalf("session lock through a follower not granted: %v", r)
	}
	type event struct {
		at    time.Time
		reply any
		err   error
	}
	granted := make(chan event, 1)
	waiter := dial(t, leader.Addr())
	go func() {
		r, err := waiter.do("LOCK.ACQUIRE", "lock:cut", "b", "600000", "WAIT", "25000")
		granted <- event{time.Now(), r, err}
	}()
	gone := make(chan event, 1)
	go func() {
		holder.conn.SetReadDeadline(time.Now().Add(30 * time.Second))
		_, err := holder.br.ReadByte()
		gone <- event{at: time.Now(), err: err}
	}()

	cut := time.Now()
	g.Isolate(follower)
	var got event
	select {
	case got = <-granted:
	case <-time.After(30 * time.Second):
		t.Fatal("the waiter never got the lock of the cut-off follower's client")
	}
	if s, _ := got.reply.(string); got.err != nil || s == "(nil)" || strings.HasPrefix(s, "-") {
		t.Fatalf("waiter: %v %v", got.reply, got.err)
	}
	// The leader's last report from the follower may predate the cut by
	// a report interval or a slow report: a quarter of the timeout covers
	// it. Anything earlier would be a lock handed over while its holder
	// may still act on it.
	if early := timeout + lockDelay - timeout/4; got.at.Sub(cut) < early {
		t.Fatalf("the lock passed on %v after the cut, before the session timeout and lock-delay (%v)", got.at.Sub(cut), early)
	}
	var closed event
	select {
	case closed = <-gone:
	case <-time.After(time.Second):
		t.Fatal("the cut-off follower's client still has its connection after its lock passed on")
	}
	if closed.err == nil || !closed.at.Before(got.at) {
		t.Fatalf("the old holder learned at %v (%v), the lock passed on at %v", closed.at.Sub(cut), closed.err, got.at.Sub(cut))
	}

	t.Logf("cut at 0: the old holder's connection closed at %v, the waiter got the lock at %v", closed.at.Sub(cut), got.at.Sub(cut))
	g.Heal()
	if _, err := holder.do("PING"); err == nil {
		t.Fatal("the old holder's connection works again after the heal")
	}
	again := dial(t, follower.Addr())
	eventually(t, "the healed follower forwards", func() string {
		r, err := again.do("LOCK.ACQUIRE", "lock:cut", "a", "600000")
		if err != nil {
			again = dial(t, follower.Addr())
			return err.Error()
		}
		if r != "(nil)" {
			return fmt.Sprintf("%v, want (nil): the lock is the waiter's", r)
		}
		return ""
	})
}

// A cut shorter than the session timeout ends nothing: the follower gets
// the same leader back, in the same term, and its client's connection
// and session lock are intact.
func TestSessionLocksOutliveAShortCut(t *testing.T) {
	g := raftgroup.RunWith(t, 3, raftgroup.Options{SessionTimeout: 8 * time.Second,
		HeartbeatTimeout: time.Second, ElectionTimeout: time.Second, LeaderLeaseTimeout: 500 * time.Millisecond})
	follower := g.Followers()[0]
	holder := dial(t, follower.Addr())
	if r := holder.must("LOCK.ACQUIRE", "lock:short", "a", "600000", "SESSION"); r == "(nil)" || strings.HasPrefix(r.(string), "-") {
		t.Fatalf("session lock through a follower not granted: %v", r)
	}
	g.Isolate(follower)
	eventually(t, "the follower loses the leader", func() string {
		if _, id := follower.Node().Raft().LeaderWithID(); id != "" {
			return "still follows " + string(id)
		}
		return ""
	})
	g.Heal()
	if r := holder.must("LOCK.RELEASE", "lock:short", "a"); r != "1" {
		t.Fatalf("LOCK.RELEASE after a short cut: %v, want 1 (the session survived)", r)
	}
}

// A waiter through a cut-off follower leaves the leader's queue once the
// leader has not heard from the follower for the session timeout: the
// lock, released later, is not handed to a client that cannot learn of
// it, but stays free for the next one.
func TestWaiterThroughACutOffNodeLeavesTheQueue(t *testing.T) {
	g := raftgroup.RunWith(t, 3, raftgroup.Options{SessionTimeout: 2 * time.Second,
		HeartbeatTimeout: time.Second, ElectionTimeout: time.Second, LeaderLeaseTimeout: 500 * time.Millisecond})
	leader := g.Leader()
	follower := g.Followers()[0]
	holder := dial(t, leader.Addr())
	holder.must("LOCK.ACQUIRE", "lock:queue", "holder", "600000")
	waiters := func() string {
		info, _ := holder.must("LOCK.INFO", "lock:queue").([]any)
		for i := 0; i+1 < len(info); i += 2 {
			if info[i] == "waiters" {
				return info[i+1].(string)
			}
		}
		return fmt.Sprintf("no waiters in %v", info)
	}
	go dial(t, follower.Addr()).do("LOCK.ACQUIRE", "lock:queue", "cut-off", "600000", "WAIT", "25000")
	eventually(t, "the follower's client waits on the leader", func() string {
		if n := waiters(); n != "1" {
			return "waiters " + n
		}
		return ""
	})
	g.Isolate(follower)
	eventually(t, "the cut-off waiter leaves the queue", func() string {
		if n := waiters(); n != "0" {
			return "waiters " + n
		}
		return ""
	})
	holder.must("LOCK.RELEASE", "lock:queue", "holder")
	if r := holder.must("LOCK.ACQUIRE", "lock:queue", "next", "600000"); r == "(nil)" || strings.HasPrefix(r.(string), "-") {
		t.Fatalf("the lock went to the cut-off waiter: %v", r)
	}
}
