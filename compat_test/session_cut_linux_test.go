//go:build linux

package compat

import (
	"os"
	"strings"
	"testing"
	"time"
)

// TestJepsenSessionThroughCutOffFollower: on a 3-node group of the built
// binary, a client holds a SESSION lock through a follower and another
// waits for it on the leader; nftables then cuts the follower off from
// the other nodes (packets silently dropped, as a real partition; the
// test's clients still reach every node). The follower closes its
// client's connection after half the session timeout, and the leader
// hands the lock to the waiter once it has not heard from the follower
// for the session timeout (after the lock-delay, 0 here): never before.
// The leader counts a node out only while Raft's heartbeats to it fail
// too, and raft notices vanished heartbeats only after its transport's
// I/O timeout, which follows a session timeout shorter than 10 s: the
// lock passes on at about 4.1 s, the connection closed at 2 s
// (docs/replication.md).
func TestJepsenSessionThroughCutOffFollower(t *testing.T) {
	requireGroupBinary(t)
	if why := partitionsPossible(); why != "" {
		if os.Getenv("CI") != "" {
			t.Fatal(why)
		}
		t.Skip(why)
	}
	const timeout = 4 * time.Second
	c := newJepsenCluster(t, 3, true, "--raft-session-timeout", timeout.String())
	leader, err := c.waitLeader(10 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var follower int
	var others []int
	for i, n := range c.nodes {
		if n != leader {
			follower = i
		}
	}
	for i := range c.nodes {
		if i != follower {
			others = append(others, i)
		}
	}
	holder := dialRaw(t, c.nodes[follower].addr())
	if r := holder.do(t, "LOCK.ACQUIRE", "lock:cut", "a", "600000", "SESSION"); !strings.HasPrefix(r, ":") {
		t.Fatalf("session lock through the follower: %q", r)
	}
	type event struct {
		at    time.Time
		reply string
		err   error
	}
	granted := make(chan event, 1)
	waiter := dialRaw(t, leader.addr())
	go func() {
		waiter.c.SetDeadline(time.Now().Add(40 * time.Second))
		if _, err := waiter.c.Write(encodeCommand([]string{"LOCK.ACQUIRE", "lock:cut", "b", "600000", "WAIT", "35000"})); err != nil {
			granted <- event{err: err}
			return
		}
		r, err := readReply(waiter.r)
		granted <- event{time.Now(), string(r), err}
	}()
	gone := make(chan time.Time, 1)
	go func() {
		holder.c.SetDeadline(time.Now().Add(40 * time.Second))
		holder.r.ReadByte()
		gone <- time.Now()
	}()
	time.Sleep(200 * time.Millisecond) // the waiter queued on the leader
	cut := time.Now()
	if err := c.partition(others, []int{follower}); err != nil {
		t.Fatal(err)
	}
	got := <-granted
	if got.err != nil || !strings.HasPrefix(got.reply, ":") {
		t.Fatalf("waiter: %q %v", got.reply, got.err)
	}
	closed := <-gone
	t.Logf("cut at 0: the follower closed its client's connection at %v, the waiter got the lock at %v",
		closed.Sub(cut).Round(time.Millisecond), got.at.Sub(cut).Round(time.Millisecond))
	if d := got.at.Sub(cut); d < timeout-timeout/4 {
		t.Errorf("the lock passed on %v after the cut, before the session timeout %v", d, timeout)
	}
	if !closed.Before(got.at) {
		t.Errorf("the old holder learned at %v, after the lock passed on at %v", closed.Sub(cut), got.at.Sub(cut))
	}
	if err := c.heal(); err != nil {
		t.Fatal(err)
	}
}
