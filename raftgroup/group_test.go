package raftgroup_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lockredis/lockredis/raftgroup"
)

// eventually retries fn until it returns "" or the (generous) time is up.
func eventually(t *testing.T, what string, fn func() string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		msg := fn()
		if msg == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %s", what, msg)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// onLeader runs a command on the current leader, again on the next one
// when the leadership moves under it (a closed connection, TRYAGAIN,
// CLUSTERDOWN): only for commands whose repetition changes nothing the
// test checks.
func onLeader(t *testing.T, g *raftgroup.Group, args ...string) any {
	t.Helper()
	var last any
	var lastErr error
	for range 20 {
		r, err := dial(t, g.Leader().Addr()).do(args...)
		if s, ok := r.(string); err == nil && !(ok && (strings.HasPrefix(s, "-TRYAGAIN") || strings.HasPrefix(s, "-CLUSTERDOWN"))) {
			return r
		}
		last, lastErr = r, err
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%v: no leader answered: %v %v", args, last, lastErr)
	return nil
}

func TestWritesThroughAnyNodeReachEveryNode(t *testing.T) {
	g := raftgroup.Run(t, 3)
	for i, addr := range g.Addrs() {
		c := dial(t, addr)
		if r := c.must("SET", "k"+strconv.Itoa(i), "v"+strconv.Itoa(i)); r != "OK" {
			t.Fatalf("SET through node %d: %v", i+1, r)
		}
	}
	for _, addr := range g.Addrs() {
		c := dial(t, addr)
		c.must("READONLY")
		eventually(t, "stale reads on "+addr, func() string {
			for i := range 3 {
				if r := c.must("GET", "k"+strconv.Itoa(i)); r != "v"+strconv.Itoa(i) {
					return "k" + strconv.Itoa(i) + " = " + r.(string)
				}
			}
			return ""
		})
	}
}

// A lock acknowledged before the leader crashes is still held after the
// failover, and tokens keep growing.
func TestFailoverKeepsLocksAndTokensGrow(t *testing.T) {
	g := raftgroup.Run(t, 3)
	old := g.Leader()
	c := dial(t, old.Addr())
	tok1, _ := strconv.Atoi(c.must("LOCK.ACQUIRE", "lock:a", "owner-1", "60000").(string))
	if tok1 <= 0 {
		t.Fatalf("first token %d", tok1)
	}
	g.Crash(old)
	if r := onLeader(t, g, "LOCK.ACQUIRE", "lock:a", "owner-2", "60000"); r != "(nil)" {
		t.Fatalf("acknowledged lock lost in the failover: a second owner got %v", r)
	}
	for i := 0; ; i++ {
		r := onLeader(t, g, "LOCK.ACQUIRE", "lock:b"+strconv.Itoa(i), "owner-2", "60000")
		if r == "(nil)" {
			continue // an earlier try took it, and its reply was lost
		}
		if tok2, _ := strconv.Atoi(r.(string)); tok2 <= tok1 {
			t.Fatalf("token after failover %v, not above %d", r, tok1)
		}
		break
	}
	g.Restart(old)
	cOld := dial(t, old.Addr())
	cOld.must("READONLY")
	eventually(t, "restarted node catches up", func() string {
		if r := cOld.must("GET", "lock:a"); r == "(nil)" {
			return "lock:a missing"
		}
		return ""
	})
}

// A leader cut off from the majority acknowledges no write.
func TestMinorityRefusesWrites(t *testing.T) {
	g := raftgroup.Run(t, 3)
	old := g.Leader()
	c := dial(t, old.Addr())
	c.must("SET", "before", "1")
	g.Isolate(old)
	r, err := c.do("SET", "during", "1")
	if err == nil && r == "OK" {
		t.Fatalf("the isolated leader acknowledged a write")
	}
	r, err = dial(t, old.Addr()).do("LOCK.ACQUIRE", "lock:m", "o", "60000")
	if err == nil {
		if s, _ := r.(string); s != "" && s[0] != '-' {
			t.Fatalf("the isolated old leader granted a lock: %v", r)
		}
	}
	// The majority elected another leader and never saw the refused write.
	var l *raftgroup.Member
	eventually(t, "a new leader on the majority side", func() string {
		m, err := g.WaitLeader(time.Second)
		if err != nil || m == old {
			return "none yet"
		}
		l = m
		return ""
	})
	if r := dial(t, l.Addr()).must("GET", "during"); r != "(nil)" {
		t.Fatalf("a refused write reached the majority: %v", r)
	}
	g.Heal()
}

// A key's TTL is never shortened by a leader change: it does not expire
// earlier, in real time, than its TTL after it was set.
func TestTTLNotShortenedAcrossFailover(t *testing.T) {
	g := raftgroup.Run(t, 3)
	old := g.Leader()
	set := time.Now()
	dial(t, old.Addr()).must("SET", "ttl", "x", "PX", "1500")
	g.Crash(old)
	for {
		if r := onLeader(t, g, "GET", "ttl"); r == "(nil)" {
			if gone := time.Since(set); gone < 1500*time.Millisecond {
				t.Fatalf("expired %v after it was set with a 1500 ms TTL", gone)
			}
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A client on a follower blocks in BLPOP and LOCK.ACQUIRE WAIT on the
// leader, and is served when the key frees; pub/sub through a follower
// receives messages published on the leader.
func TestFollowerForwardsBlockingAndPubSub(t *testing.T) {
	g := raftgroup.Run(t, 3)
	f := g.Followers()[0]
	l := g.Leader()
	blpop := make(chan any, 1)
	go func() {
		c := dial(t, f.Addr())
		r, _ := c.do("BLPOP", "queue", "0")
		blpop <- r
	}()
	holder := dial(t, l.Addr())
	holder.must("LOCK.ACQUIRE", "lock:w", "holder", "60000")
	waiter := make(chan any, 1)
	go func() {
		c := dial(t, f.Addr())
		r, _ := c.do("LOCK.ACQUIRE", "lock:w", "waiter", "60000", "WAIT", "30000")
		waiter <- r
	}()
	sub := dial(t, f.Addr())
	if r := sub.must("SUBSCRIBE", "news"); len(r.([]any)) != 3 {
		t.Fatalf("SUBSCRIBE through a follower: %v", r)
	}
	eventually(t, "subscriber and waiters registered on the leader", func() string {
		if n := holder.must("PUBSUB", "NUMSUB", "news").([]any)[1]; n != "1" {
			return "numsub " + n.(string)
		}
		return ""
	})
	time.Sleep(100 * time.Millisecond) // let the blocked commands reach the leader
	holder.must("RPUSH", "queue", "item")
	if r := <-blpop; len(r.([]any)) != 2 || r.([]any)[1] != "item" {
		t.Fatalf("BLPOP through a follower: %v", r)
	}
	holder.must("LOCK.RELEASE", "lock:w", "holder")
	if r := <-waiter; r == "(nil)" || r.(string)[0] == '-' {
		t.Fatalf("LOCK.ACQUIRE WAIT through a follower: %v", r)
	}
	holder.must("PUBLISH", "news", "hello")
	msg, err := sub.read()
	if err != nil || len(msg.([]any)) != 3 || msg.([]any)[2] != "hello" {
		t.Fatalf("message through a follower: %v %v", msg, err)
	}
}
