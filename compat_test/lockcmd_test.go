package compat

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-redsync/redsync/v4"
	"github.com/lockredis/lockredis"
	"github.com/redis/go-redis/v9"
)

// LOCK.ACQUIRE beside unmodified clients: its waiters are handed locks
// that redsync and Redisson-style scripts release, and the locks it
// grants are plain keys those clients see as taken.

// waitBlocked waits until n clients of srv are parked.
func waitBlocked(t *testing.T, srv *lockredis.Server, n int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); srv.Engine().BlockedClients() != n; {
		if time.Now().After(deadline) {
			t.Fatalf("%d blocked clients, want %d", srv.Engine().BlockedClients(), n)
		}
		time.Sleep(time.Millisecond)
	}
}

// acquireAsync runs LOCK.ACQUIRE key owner 10000 WAIT 5000 with go-redis's
// Do in the background.
func acquireAsync(c *redis.Client, key, owner string) <-chan any {
	done := make(chan any, 1)
	go func() {
		token, err := c.Do(context.Background(), "LOCK.ACQUIRE", key, owner, 10000, "WAIT", 5000).Int64()
		if err != nil {
			done <- err
			return
		}
		done <- token
	}()
	return done
}

func TestLockAcquireWaiterGetsRedsyncRelease(t *testing.T) {
	srv := lockredis.RunT(t)
	rs := redsync.New(rsPools(t, srv.Addr())...)
	m := rs.NewMutex("res", redsync.WithExpiry(8*time.Second), redsync.WithTries(1))
	if err := m.Lock(); err != nil {
		t.Fatal(err)
	}
	c := rsClient(t, srv.Addr())
	c.Options().ReadTimeout = 10 * time.Second
	waiter := redis.NewClient(&redis.Options{Addr: srv.Addr(), ReadTimeout: 10 * time.Second})
	t.Cleanup(func() { waiter.Close() })
	got := acquireAsync(waiter, "res", "waiter")
	waitBlocked(t, srv, 1)
	// redsync's own release script (EVALSHA of GET + DEL).
	if ok, err := m.Unlock(); !ok || err != nil {
		t.Fatalf("redsync Unlock: %v %v", ok, err)
	}
	select {
	case r := <-got:
		if _, ok := r.(int64); !ok {
			t.Fatalf("LOCK.ACQUIRE: %v", r)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the waiter was not handed the lock")
	}
	if v, _ := srv.Get("res"); v != "waiter" {
		t.Errorf("res = %q", v)
	}
	// Now held by LOCK.ACQUIRE: redsync cannot take it.
	other := rs.NewMutex("res", redsync.WithTries(1))
	if err := other.Lock(); err == nil {
		t.Error("redsync took a lock LOCK.ACQUIRE holds")
	}
}

// Redisson's RLock scripts (tryLock and unlock, Redisson 3.21 wording).
const (
	rlTryLock = `if (redis.call('exists', KEYS[1]) == 0) then
redis.call('hincrby', KEYS[1], ARGV[2], 1); redis.call('pexpire', KEYS[1], ARGV[1]); return nil; end;
if (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then
redis.call('hincrby', KEYS[1], ARGV[2], 1); redis.call('pexpire', KEYS[1], ARGV[1]); return nil; end;
return redis.call('pttl', KEYS[1]);`
	rlUnlock = `if (redis.call('hexists', KEYS[1], ARGV[3]) == 0) then return nil; end;
local counter = redis.call('hincrby', KEYS[1], ARGV[3], -1);
if (counter > 0) then redis.call('pexpire', KEYS[1], ARGV[2]); return 0;
else redis.call('del', KEYS[1]); redis.call('publish', KEYS[2], ARGV[1]); return 1; end; return nil;`
)

func TestLockAcquireAndRedissonScripts(t *testing.T) {
	srv := lockredis.RunT(t)
	ctx := context.Background()
	c := redis.NewClient(&redis.Options{Addr: srv.Addr(), ReadTimeout: 10 * time.Second})
	t.Cleanup(func() { c.Close() })
	const id = "8743c9c0-0795-4907-87fd-6c719a6b4586:1"

	// A Redisson holder, reentered once, then unlocked twice: the second
	// unlock deletes the hash and hands the lock to the waiter.
	for i := 0; i < 2; i++ {
		if err := c.Eval(ctx, rlTryLock, []string{"rl"}, 30000, id).Err(); err != redis.Nil {
			t.Fatalf("tryLock: %v", err)
		}
	}
	// go-redis speaks RESP3: LOCK.INFO is a map.
	info, err := c.Do(ctx, "LOCK.INFO", "rl").Result()
	m, _ := info.(map[any]any)
	if err != nil || m["kind"] != "redisson" || fmt.Sprint(m["owners"]) != "["+id+"]" || m["reentries"] != int64(2) {
		t.Errorf("LOCK.INFO rl: %v %v", info, err)
	}
	waiter := redis.NewClient(&redis.Options{Addr: srv.Addr(), ReadTimeout: 10 * time.Second})
	t.Cleanup(func() { waiter.Close() })
	got := acquireAsync(waiter, "rl", "waiter")
	waitBlocked(t, srv, 1)
	unlock := func() any {
		r, err := c.Eval(ctx, rlUnlock, []string{"rl", "redisson_lock__channel:{rl}"}, 0, 30000, id).Result()
		if err != nil {
			return err
		}
		return r
	}
	if r := unlock(); r != int64(0) {
		t.Fatalf("first unlock: %v", r)
	}
	if r := unlock(); r != int64(1) {
		t.Fatalf("second unlock: %v", r)
	}
	select {
	case r := <-got:
		if _, ok := r.(int64); !ok {
			t.Fatalf("LOCK.ACQUIRE: %v", r)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the waiter was not handed the lock")
	}

	// Held by LOCK.ACQUIRE (a string): Redisson's tryLock is refused, as
	// on Redis, with WRONGTYPE from its HEXISTS.
	err = c.Eval(ctx, rlTryLock, []string{"rl"}, 30000, id).Err()
	if err == nil || err == redis.Nil || !strings.HasPrefix(err.Error(), "WRONGTYPE") {
		t.Errorf("Redisson tryLock on a LOCK.ACQUIRE lock: %v", err)
	}
	if v, _ := srv.Get("rl"); v != "waiter" {
		t.Errorf("rl = %q", v)
	}
}

// TestRedisPyLockCommands runs python/lockcmd.py: every LOCK.* command
// through redis-py's execute_command, WAIT and hand-over included.
func TestRedisPyLockCommands(t *testing.T) {
	py := requireRedisPy(t)
	want := []string{"acquire", "idempotent", "refused", "wait and hand-over", "info", "release"}
	runClientScript(t, "python", py, "lockcmd.py", lockServers(t, "embedded", 1), want)
}
