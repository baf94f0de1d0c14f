package compat

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/go-redsync/redsync/v4"
	rsredis "github.com/go-redsync/redsync/v4/redis"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"
	"github.com/lockredis/lockredis"
	"github.com/redis/go-redis/v9"
)

// go-redsync/redsync v4 (v4.13.0), unmodified, over go-redis v9: SET NX
// EX/PX to acquire, EVALSHA (then EVAL on NOSCRIPT) of its delete and touch
// scripts to release and extend.

// rsClient is a go-redis client for redsync's pool. Timeouts are short and
// follow the context, so a closed or paused node costs redsync a bounded
// wait, as against a real Redis.
func rsClient(t *testing.T, addr string) *redis.Client {
	c := redis.NewClient(&redis.Options{
		Addr: addr, MaxRetries: -1, DialTimeout: time.Second, DialerRetries: 1,
		ReadTimeout: time.Second, WriteTimeout: time.Second,
		ContextTimeoutEnabled: true,
	})
	t.Cleanup(func() { c.Close() })
	return c
}

func rsPools(t *testing.T, addrs ...string) []rsredis.Pool {
	pools := make([]rsredis.Pool, len(addrs))
	for i, addr := range addrs {
		pools[i] = goredis.NewPool(rsClient(t, addr))
	}
	return pools
}

// rsTarget is one lockredis redsync talks to. pass lets time pass:
// FastForward on the embedded server, a real wait on the binary (whose
// lease is then short).
type rsTarget struct {
	name  string
	addr  string
	lease time.Duration
	pass  func(time.Duration)
}

// expire lets the lease run out.
func (rt rsTarget) expire() { rt.pass(rt.lease + rt.lease/4) }

func rsTargets(t *testing.T) []rsTarget {
	srv := lockredis.RunT(t)
	bin := startBinary(t)
	targets := []rsTarget{
		// A whole-second lease: go-redis sends SET NX EX.
		{name: "embedded", addr: srv.Addr(), lease: 8 * time.Second, pass: srv.FastForward},
		// A millisecond lease: SET NX PX, and a real expiry.
		{name: "binary", addr: bin, lease: 200 * time.Millisecond, pass: time.Sleep},
	}
	// The oracle: the same assertions hold on redis-server.
	if _, err := exec.LookPath("redis-server"); err == nil || os.Getenv("CI") != "" {
		targets = append(targets, rsTarget{name: "redis-server", addr: startRedis(t), lease: 200 * time.Millisecond, pass: time.Sleep})
	}
	return targets
}

func TestRedsyncSingleNode(t *testing.T) {
	for _, target := range rsTargets(t) {
		t.Run(target.name, func(t *testing.T) { testRedsyncSingleNode(t, target) })
	}
}

func testRedsyncSingleNode(t *testing.T, target rsTarget) {
	ctx := context.Background()
	rs := redsync.New(rsPools(t, target.addr)...)
	peek := rsClient(t, target.addr)
	key := "redsync:" + token(t)
	// redsync gives each try a twentieth of the lease by default: 10 ms
	// of a 200 ms lease, too short for a new connection on a loaded
	// 2-core CI machine. A quarter keeps the test about semantics.
	once := []redsync.Option{redsync.WithExpiry(target.lease), redsync.WithTries(1), redsync.WithTimeoutFactor(0.25)}

	holds := func(want string) {
		t.Helper()
		got, err := peek.Get(ctx, key).Result()
		if want == "" {
			if err != redis.Nil {
				t.Errorf("GET %s: %q, %v; want no key", key, got, err)
			}
			return
		}
		if err != nil || got != want {
			t.Errorf("GET %s: %q, %v; want %q", key, got, err, want)
		}
	}

	a := rs.NewMutex(key, once...)
	if err := a.Lock(); err != nil {
		t.Fatalf("a.Lock: %v", err)
	}
	holds(a.Value())
	if d, err := peek.PTTL(ctx, key).Result(); err != nil || d <= 0 || d > target.lease {
		t.Errorf("PTTL after Lock: %v, %v; want in (0, %v]", d, err, target.lease)
	}

	// A second mutex is refused, by TryLock and by Lock with retries.
	b := rs.NewMutex(key, once...)
	var taken *redsync.ErrTaken
	if err := b.TryLock(); !errors.As(err, &taken) {
		t.Errorf("b.TryLock while a holds it: %v; want ErrTaken", err)
	}
	retrying := rs.NewMutex(key, redsync.WithExpiry(target.lease), redsync.WithTries(3), redsync.WithRetryDelay(10*time.Millisecond), redsync.WithTimeoutFactor(0.25))
	if err := retrying.Lock(); err == nil {
		t.Errorf("Lock with 3 tries while a holds it succeeded")
	}
	holds(a.Value())

	// Only the owner's value unlocks.
	intruder := rs.NewMutex(key, redsync.WithValue("not-the-owner"))
	if ok, err := intruder.Unlock(); ok || err == nil {
		t.Errorf("Unlock by a non-owner: %v, %v; want false and an error", ok, err)
	}
	holds(a.Value())

	// Extend resets the lease to its full length.
	target.pass(target.lease / 2)
	if ok, err := a.Extend(); err != nil || !ok {
		t.Errorf("a.Extend: %v, %v", ok, err)
	}
	if d, err := peek.PTTL(ctx, key).Result(); err != nil || d <= target.lease*3/4 || d > target.lease {
		t.Errorf("PTTL after Extend: %v, %v; want close to %v", d, err, target.lease)
	}
	if ok, err := intruder.Extend(); ok {
		t.Errorf("Extend by a non-owner: %v, %v; want refused", ok, err)
	}

	if ok, err := a.Unlock(); err != nil || !ok {
		t.Fatalf("a.Unlock: %v, %v", ok, err)
	}
	holds("")
	if err := b.TryLock(); err != nil {
		t.Fatalf("b.TryLock after a.Unlock: %v", err)
	}
	holds(b.Value())
	if ok, err := a.Unlock(); ok || err == nil {
		t.Errorf("a.Unlock again, with b holding: %v, %v; want refused", ok, err)
	}
	holds(b.Value())

	// Expiry frees the lock with nobody unlocking it; the old owner then
	// cannot unlock or extend what someone else holds.
	target.expire()
	holds("")
	if ok, err := b.Unlock(); ok || !errors.Is(err, redsync.ErrLockAlreadyExpired) {
		t.Errorf("b.Unlock after expiry: %v, %v; want ErrLockAlreadyExpired", ok, err)
	}
	if err := a.TryLock(); err != nil {
		t.Fatalf("a.TryLock after b's lease ran out: %v", err)
	}
	if err := b.TryLock(); err == nil {
		t.Errorf("b.TryLock while a holds it again succeeded")
	}
	target.expire()
	if err := b.TryLock(); err != nil {
		t.Fatalf("b.TryLock after a's lease ran out: %v", err)
	}
	if ok, err := a.Extend(); ok {
		t.Errorf("a.Extend after its lease ran out and b took it: %v, %v; want refused", ok, err)
	}
	if ok, err := a.Unlock(); ok {
		t.Errorf("a.Unlock of b's lock: %v, %v; want refused", ok, err)
	}
	holds(b.Value())
}

// rsCluster is n embedded lockredis nodes with a redsync over all of them
// and a plain client per node to look at what each one holds.
type rsCluster struct {
	nodes lockredis.Cluster
	rs    *redsync.Redsync
	peek  []*redis.Client
}

func newRSCluster(t *testing.T, n int) rsCluster {
	nodes := lockredis.RunCluster(t, n)
	// Registered after RunCluster, so it runs before the nodes close: a
	// node paused by the test answers again and closes cleanly.
	t.Cleanup(func() {
		for _, s := range nodes {
			s.Resume()
		}
	})
	c := rsCluster{nodes: nodes, rs: redsync.New(rsPools(t, nodes.Addrs()...)...)}
	for _, addr := range nodes.Addrs() {
		c.peek = append(c.peek, rsClient(t, addr))
	}
	return c
}

// holders counts the nodes (among those given) on which key holds value.
func (c rsCluster) holders(t *testing.T, key, value string, nodes ...int) int {
	t.Helper()
	n := 0
	for _, i := range nodes {
		got, err := c.peek[i].Get(context.Background(), key).Result()
		if err != nil && err != redis.Nil {
			t.Fatalf("GET %s on node %d: %v", key, i, err)
		}
		if got == value {
			n++
		}
	}
	return n
}

func span(from, to int) []int {
	var s []int
	for i := from; i < to; i++ {
		s = append(s, i)
	}
	return s
}

// TestRedsyncRedlock runs redsync's Redlock over 3 and 5 lockredis nodes:
// a lock needs a majority of nodes, survives a minority being closed or
// hung (paused), and fails when a majority is down.
func TestRedsyncRedlock(t *testing.T) {
	once := []redsync.Option{redsync.WithTries(1)}
	for _, n := range []int{3, 5} {
		quorum := n/2 + 1
		minority := n - quorum // the most nodes that may fail
		t.Run(rsName("n", n, "majority free"), func(t *testing.T) {
			c := newRSCluster(t, n)
			key := "redlock:" + token(t)
			// Another holder has the key on a minority of the nodes.
			for i := 0; i < minority; i++ {
				c.nodes[i].SetTTL(key, "other", 8*time.Second)
			}
			m := c.rs.NewMutex(key, once...)
			if err := m.Lock(); err != nil {
				t.Fatalf("Lock with %d of %d nodes free: %v", quorum, n, err)
			}
			if got := c.holders(t, key, m.Value(), span(minority, n)...); got != quorum {
				t.Errorf("lock held on %d free nodes, want %d", got, quorum)
			}
			if err := c.rs.NewMutex(key, once...).TryLock(); err == nil {
				t.Errorf("a second mutex took the lock held on a majority")
			}
			if ok, err := m.Unlock(); !ok {
				t.Errorf("Unlock: %v, %v", ok, err)
			}
			if got := c.holders(t, key, "", span(minority, n)...); got != quorum {
				t.Errorf("after Unlock the key is left on %d of the nodes it held", quorum-got)
			}
			if got := c.holders(t, key, "other", span(0, minority)...); got != minority {
				t.Errorf("Unlock removed another holder's key: %d of %d left", got, minority)
			}
		})
		t.Run(rsName("n", n, "majority taken"), func(t *testing.T) {
			c := newRSCluster(t, n)
			key := "redlock:" + token(t)
			for i := 0; i < quorum; i++ {
				c.nodes[i].SetTTL(key, "other", 8*time.Second)
			}
			m := c.rs.NewMutex(key, once...)
			var taken *redsync.ErrTaken
			if err := m.Lock(); !errors.As(err, &taken) || len(taken.Nodes) != quorum {
				t.Fatalf("Lock with a majority taken: %v; want ErrTaken on %d nodes", err, quorum)
			}
			// The failed attempt released what it got on the free nodes.
			if got := c.holders(t, key, "", span(quorum, n)...); got != minority {
				t.Errorf("a failed Lock left its key on %d free nodes", minority-got)
			}
		})
		for down := 1; down <= n-1; down++ {
			for _, how := range []string{"closed", "paused"} {
				t.Run(rsName("n", n, how, down), func(t *testing.T) {
					testRedlockNodesDown(t, n, down, how)
				})
			}
			if down > minority {
				break // one past the majority is enough to show failure
			}
		}
		t.Run(rsName("n", n, "clock jump"), func(t *testing.T) {
			c := newRSCluster(t, n)
			key := "redlock:" + token(t)
			m := c.rs.NewMutex(key, once...)
			if err := m.Lock(); err != nil {
				t.Fatal(err)
			}
			// One node's clock jumps past the lease: it forgets the lock,
			// the others still hold it, so nobody else gets it.
			c.nodes[0].FastForward(time.Minute)
			if c.nodes[0].Exists(key) {
				t.Fatalf("node 0 kept the key after its clock jumped")
			}
			if err := c.rs.NewMutex(key, once...).TryLock(); err == nil {
				t.Errorf("a second mutex got the lock after one node's clock jumped")
			}
			if ok, err := m.Extend(); !ok {
				t.Errorf("Extend with one node's key gone: %v, %v", ok, err)
			}
		})
	}
}

// testRedlockNodesDown takes down nodes of n (closed: connection refused;
// paused: connected but silent) and checks that redsync locks and unlocks
// while a majority is up, and fails once a majority is down.
func testRedlockNodesDown(t *testing.T, n, down int, how string) {
	c := newRSCluster(t, n)
	key := "redlock:" + token(t)
	for i := 0; i < down; i++ {
		if how == "closed" {
			c.nodes[i].Close()
		} else {
			c.nodes[i].Pause()
		}
	}
	up := span(down, n)
	// The default 8 s lease and 0.05 timeout factor: a silent node costs
	// 400 ms per attempt.
	m := c.rs.NewMutex(key, redsync.WithTries(1))
	err := m.Lock()
	if n-down < n/2+1 {
		if err == nil {
			t.Fatalf("Lock with %d of %d nodes %s succeeded", down, n, how)
		}
		if got := c.holders(t, key, "", up...); got != len(up) {
			t.Errorf("a failed Lock left its key on %d live nodes", len(up)-got)
		}
		return
	}
	if err != nil {
		t.Fatalf("Lock with %d of %d nodes %s: %v", down, n, how, err)
	}
	if got := c.holders(t, key, m.Value(), up...); got != len(up) {
		t.Errorf("lock held on %d of the %d live nodes", got, len(up))
	}
	if err := c.rs.NewMutex(key, redsync.WithTries(1)).TryLock(); err == nil {
		t.Errorf("a second mutex took the lock")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	if ok, err := m.UnlockContext(ctx); !ok {
		t.Errorf("Unlock with %d nodes %s: %v, %v", down, how, ok, err)
	}
	if got := c.holders(t, key, "", up...); got != len(up) {
		t.Errorf("after Unlock the key is left on %d live nodes", len(up)-got)
	}
	if err := c.rs.NewMutex(key, redsync.WithTries(1)).TryLock(); err != nil {
		t.Errorf("TryLock after Unlock: %v", err)
	}
}

func rsName(parts ...any) string {
	s := ""
	for i, p := range parts {
		if i > 0 {
			s += "/"
		}
		s += fmt.Sprint(p)
	}
	return s
}
