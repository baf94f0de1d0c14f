package lockredis

import (
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// LOCK.RELEASE on a Redisson lock does what Redisson's unlock script does:
// one reentry less, and at zero the key goes and the unlock message is
// published on redisson_lock__channel:{name}, which wakes Redisson's
// waiting clients.
func TestLockReleaseRedissonPublishes(t *testing.T) {
	srv := RunT(t)
	sub := dialLock(t, srv.Addr())
	sub.send("SUBSCRIBE", "redisson_lock__channel:{order}")
	for range 3 { // *3, the kind, the channel: the data lines come with their $
		sub.read(10 * time.Second)
	}
	if got, _ := sub.read(10 * time.Second); got != ":1" {
		t.Fatalf("subscribe count: %q", got)
	}
	c := dialLock(t, srv.Addr())
	c.do("HSET", "order", "8743c9c0:1", "2")
	c.do("PEXPIRE", "order", "30000")
	if got := c.do("LOCK.EXTEND", "order", "8743c9c0:1", "60000"); got != ":1" {
		t.Fatalf("LOCK.EXTEND = %q", got)
	}
	if got := c.do("LOCK.RELEASE", "order", "8743c9c0:1"); got != ":1" {
		t.Fatalf("first release = %q", got)
	}
	if got := c.do("HGET", "order", "8743c9c0:1"); got != "$1 1" {
		t.Fatalf("reentry count after one release = %q", got)
	}
	if got := c.do("LOCK.RELEASE", "order", "8743c9c0:1"); got != ":1" {
		t.Fatalf("second release = %q", got)
	}
	if got := c.do("EXISTS", "order"); got != ":0" {
		t.Fatalf("EXISTS after the last release = %q", got)
	}
	var msg []string
	for range 4 {
		line, err := sub.read(10 * time.Second)
		if err != nil {
			t.Fatalf("unlock message: %v (so far %q)", err, msg)
		}
		msg = append(msg, line)
	}
	if want := []string{"*3", "$7 message", "$30 redisson_lock__channel:{order}", "$1 0"}; strings.Join(msg, "|") != strings.Join(want, "|") {
		t.Fatalf("message %q, want %q", msg, want)
	}
}

// 64 clients contend for a semaphore of 5 permits over sockets: never
// more than 5 hold at once, and every request is granted in the end.
func TestLockPermitsBoundUnderContention(t *testing.T) {
	srv := RunT(t)
	const clients, rounds, permits = 64, 5, 5
	var inside, most, grants atomic.Int64
	var wg sync.WaitGroup
	for i := range clients {
		c := dialLock(t, srv.Addr())
		owner := "o" + strconv.Itoa(i)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range rounds {
				c.send("LOCK.ACQUIRE", "sem", owner, "60000", "PERMITS", strconv.Itoa(permits), "WAIT", "0")
				if got, err := c.read(time.Minute); err != nil || !strings.HasPrefix(got, ":") {
					t.Errorf("%s: %q %v", owner, got, err)
					return
				}
				n := inside.Add(1)
				for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
				}
				grants.Add(1)
				time.Sleep(time.Millisecond) // holding a while lets others in beside it
				inside.Add(-1)
				c.send("LOCK.RELEASE", "sem", owner)
				if got, err := c.read(time.Minute); err != nil || got != ":1" {
					t.Errorf("%s release: %q %v", owner, got, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if most.Load() > permits || grants.Load() != clients*rounds {
		t.Fatalf("at most %d inside (bound %d), %d grants of %d", most.Load(), permits, grants.Load(), clients*rounds)
	}
	t.Logf("%d grants, at most %d holders at once", grants.Load(), most.Load())
}

// Clients take {a,b} and {b,a} with LOCK.ACQUIREALL over and over: none
// deadlocks, and no two ever hold a key at once.
func TestLockAcquireAllNoDeadlock(t *testing.T) {
	srv := RunT(t)
	const clients, rounds = 16, 20
	var holding [2]atomic.Int64
	var wg sync.WaitGroup
	for i := range clients {
		c := dialLock(t, srv.Addr())
		owner := "o" + strconv.Itoa(i)
		keys := []string{"a", "b"}
		if i%2 == 1 {
			keys = []string{"b", "a"}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range rounds {
				c.send("LOCK.ACQUIREALL", "2", keys[0], keys[1], owner, "60000", "WAIT", "0")
				// The reply is an array of two tokens: *2, :t, :t.
				for j := range 3 {
					if got, err := c.read(time.Minute); err != nil || (j == 0 && got != "*2") {
						t.Errorf("%s: %q %v", owner, got, err)
						return
					}
				}
				for k := range holding {
					if holding[k].Add(1) != 1 {
						t.Errorf("two holders of one key")
					}
				}
				for k := range holding {
					holding[k].Add(-1)
				}
				c.send("LOCK.RELEASEALL", "2", "a", "b", owner)
				if got, err := c.read(time.Minute); err != nil || got != ":2" {
					t.Errorf("%s release: %q %v", owner, got, err)
					return
				}
			}
		}()
	}
	wg.Wait()
}
