package compat

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lockredis/lockredis/compat_test/recipes"
	"github.com/redis/go-redis/v9"
)

// The layouts LOCK.ACQUIRE shares with unmodified clients (the table in
// docs/lock-kinds.md): SHARED is Redisson's RReadWriteLock hash, PERMITS
// redis-semaphore's sorted set. Each test runs the client's own scripts
// and the LOCK.* commands on one key.

// redis-semaphore 5.x's Semaphore (src/semaphore/acquire/lua.ts; release
// is a plain ZREM), with its acquire loop: try, and on a refusal sleep
// retryInterval (10 ms by default) and try again.
var redisSemaphoreAcquire = redis.NewScript(recipes.RedisSemaphoreAcquire)

const redisSemaphoreRetry = 10 * time.Millisecond

// TestSharedWithRedissonRWLock: LOCK.ACQUIRE ... SHARED readers and
// Redisson's RReadWriteLock clients on one key. Readers of both kinds
// hold together; a Redisson writer is refused while any reader holds and
// is woken by the redisson_rwlock message when the last one (ours) is
// released; while it writes, SHARED is refused, and a SHARED waiter is
// granted inside the writer's own unlock script.
func TestSharedWithRedissonRWLock(t *testing.T) {
	for _, target := range lockTargets(t) {
		t.Run(target.name, func(t *testing.T) { testSharedWithRedissonRWLock(t, target) })
	}
}

func testSharedWithRedissonRWLock(t *testing.T, target v8Target) {
	ctx := context.Background()
	op := rsClient(t, target.addr)
	r := newRedissonClient(t, target.addr)
	w := newRedissonClient(t, target.addr)
	name := "rw:" + token(t)
	channel := redissonChannel(redissonWrite, name)
	published := messages(t, target.addr, channel)
	acquire := func(args ...any) any {
		t.Helper()
		v, err := op.Do(ctx, append([]any{"LOCK.ACQUIRE", name}, args...)...).Result()
		if errors.Is(err, redis.Nil) {
			return nil
		}
		if err != nil {
			t.Fatalf("LOCK.ACQUIRE %v: %v", args, err)
		}
		return v
	}
	infoOf := func() map[any]any {
		t.Helper()
		v, err := op.Do(ctx, "LOCK.INFO", name).Result()
		if err != nil {
			t.Fatalf("LOCK.INFO: %v", err)
		}
		return v.(map[any]any)
	}

	// A Redisson reader and a SHARED one hold together, in one hash.
	if err := r.lock(ctx, redissonRead, name, 1, 30000); err != nil {
		t.Fatalf("Redisson read lock: %v", err)
	}
	if _, ok := acquire("op-reader", 30000, "SHARED").(int64); !ok {
		t.Fatal("SHARED refused beside a Redisson reader")
	}
	fields, _ := op.HGetAll(ctx, name).Result()
	if fields["mode"] != "read" || fields[r.lockName(1)] != "1" || fields["op-reader"] != "1" {
		t.Fatalf("%s = %v, want mode read and both readers", name, fields)
	}
	if m := infoOf(); m["kind"] != "shared" || len(m["holders"].([]any)) != 2 {
		t.Errorf("LOCK.INFO with two readers: %v", m)
	}

	// A Redisson writer waits; LOCK.ACQUIRE exclusive is refused.
	done := make(chan lockOutcome, 1)
	before := numSub(t, op, channel)
	lockAsync(w, "writer", redissonWrite, name, done)
	awaitSubscribers(t, op, channel, before+1)
	if v := acquire("op-writer", 30000); v != nil {
		t.Fatalf("exclusive LOCK.ACQUIRE beside readers: %v", v)
	}

	// Redisson's read unlock sees our reader's timeout key and keeps the
	// lock; our release of the last reader deletes it and publishes.
	if n, err := r.unlock(ctx, redissonRead, name, 1); err != nil || n != 0 {
		t.Fatalf("Redisson read unlock with our reader left: %d, %v; want 0", n, err)
	}
	select {
	case o := <-done:
		t.Fatalf("the writer acquired while a reader holds (%v)", o.err)
	case <-time.After(200 * time.Millisecond):
	}
	releasedAt := time.Now()
	if n, err := op.Do(ctx, "LOCK.RELEASE", name, "op-reader").Int64(); err != nil || n != 1 {
		t.Fatalf("LOCK.RELEASE of the last reader: %d, %v", n, err)
	}
	select {
	case o := <-done:
		if o.err != nil {
			t.Fatal(o.err)
		}
		if d := o.at.Sub(releasedAt); d > wakeWithin {
			t.Errorf("the writer acquired %v after the release, want within %v", d, wakeWithin)
		}
	case <-time.After(wakeWithin):
		t.Fatal("the Redisson writer was not woken by LOCK.RELEASE")
	}
	if p := <-published; p != "0" {
		t.Errorf("read unlock message %q, want 0", p)
	}
	if mode, _ := op.HGet(ctx, name, "mode").Result(); mode != "write" {
		t.Fatalf("mode %q after the writer acquired", mode)
	}

	// While it writes, readers of both kinds are refused; a SHARED waiter
	// is granted by the writer's unlock script.
	if v := acquire("op-2", 30000, "SHARED"); v != nil {
		t.Fatalf("SHARED granted beside a Redisson writer: %v", v)
	}
	if _, ok, err := r.tryAcquire(ctx, redissonRead, name, 2, 30000); ok || err != nil {
		t.Fatalf("Redisson reader beside the writer: acquired %v, %v", ok, err)
	}
	waiter := make(chan any, 1)
	go func() {
		c := redis.NewClient(&redis.Options{Addr: target.addr})
		defer c.Close()
		v, err := c.Do(ctx, "LOCK.ACQUIRE", name, "op-2", 30000, "WAIT", 10000, "SHARED").Result()
		if err != nil {
			waiter <- err
			return
		}
		waiter <- v
	}()
	for deadline := time.Now().Add(5 * time.Second); len(infoOf()["queue"].([]any)) == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the SHARED waiter never queued")
		}
	}
	if n, err := w.unlock(ctx, redissonWrite, name, 1); err != nil || n != 1 {
		t.Fatalf("Redisson write unlock: %d, %v", n, err)
	}
	select {
	case v := <-waiter:
		if _, ok := v.(int64); !ok {
			t.Fatalf("SHARED waiter: %v", v)
		}
	case <-time.After(wakeWithin):
		t.Fatal("the SHARED waiter was not granted by the writer's unlock")
	}
	if p := <-published; p != "1" {
		t.Errorf("write unlock message %q, want 1 (READ_UNLOCK_MESSAGE)", p)
	}

	// A Redisson reader joins ours; a Redisson writer is refused.
	if _, ok, err := r.tryAcquire(ctx, redissonRead, name, 1, 30000); !ok || err != nil {
		t.Fatalf("Redisson reader beside a SHARED one: %v", err)
	}
	if _, ok, _ := w.tryAcquire(ctx, redissonWrite, name, 1, 30000); ok {
		t.Fatal("Redisson writer granted beside readers")
	}
	if m := infoOf(); m["kind"] != "shared" || len(m["holders"].([]any)) != 2 {
		t.Errorf("LOCK.INFO: %v", m)
	}
	if n, _ := op.Do(ctx, "LOCK.RELEASE", name, "op-2").Int64(); n != 1 {
		t.Error("LOCK.RELEASE op-2")
	}
	if n, err := r.unlock(ctx, redissonRead, name, 1); err != nil || n != 1 {
		t.Fatalf("last Redisson read unlock: %d, %v", n, err)
	}
	if n, _ := op.Exists(ctx, name).Result(); n != 0 {
		t.Error("key left after the last reader")
	}

	// What does not fit: an exclusive LOCK.ACQUIRE is a string (the
	// layout redsync and SET NX read), so Redisson's scripts, which read
	// a hash, fail on it with WRONGTYPE, as on Redis.
	if _, ok := acquire("op-writer", 30000).(int64); !ok {
		t.Fatal("exclusive LOCK.ACQUIRE on a free key")
	}
	if _, _, err := r.tryAcquire(ctx, redissonRead, name, 1, 30000); err == nil || !strings.HasPrefix(err.Error(), "WRONGTYPE") {
		t.Errorf("Redisson reader on an exclusive LOCK.ACQUIRE: %v; want WRONGTYPE", err)
	}
}

// TestPermitsWithRedisSemaphore: a semaphore of 3 on one key, taken by
// redis-semaphore's acquire script and by LOCK.ACQUIRE ... PERMITS 3.
// First step by step: each kind counts the other's holders, and a
// redis-semaphore release (ZREM) hands its permit to a queued
// LOCK.ACQUIRE. Then 64 clients contend, 48 with redis-semaphore's
// polling loop, 16 with LOCK.ACQUIRE ... WAIT: never more than 3 hold at
// once (counted by the clients around their critical sections, and by
// ZCARD), and both kinds get permits. The queue is served inside the
// transaction that frees a permit, so pollers only get the permits nobody
// queues for: the 16 queue clients pause between turns to leave some.
func TestPermitsWithRedisSemaphore(t *testing.T) {
	for _, target := range lockTargets(t) {
		t.Run(target.name, func(t *testing.T) { testPermitsWithRedisSemaphore(t, target) })
	}
}

func testPermitsWithRedisSemaphore(t *testing.T, target v8Target) {
	const (
		limit    = 3
		clients  = 64
		lockTime = 10000 // ms: redis-semaphore's lockTimeout and our TTL
	)
	ctx := context.Background()
	op := rsClient(t, target.addr)
	key := "sem:" + token(t)
	semAcquire := func(id string) int64 {
		t.Helper()
		n, err := redisSemaphoreAcquire.Run(ctx, op, []string{key}, limit, id, lockTime, time.Now().UnixMilli()).Int64()
		if err != nil {
			t.Fatalf("redis-semaphore acquire: %v", err)
		}
		return n
	}
	ourAcquire := func(id string, wait ...any) any {
		t.Helper()
		v, err := op.Do(ctx, append([]any{"LOCK.ACQUIRE", key, id, lockTime, "PERMITS", limit}, wait...)...).Result()
		if errors.Is(err, redis.Nil) {
			return nil
		}
		if err != nil {
			t.Fatalf("LOCK.ACQUIRE PERMITS: %v", err)
		}
		return v
	}
	if _, ok := ourAcquire("ours-1").(int64); !ok {
		t.Fatal("LOCK.ACQUIRE PERMITS on a free key")
	}
	if semAcquire("sem-1") != 1 || semAcquire("sem-2") != 1 {
		t.Fatal("redis-semaphore refused with one holder of 3")
	}
	if semAcquire("sem-3") != 0 || ourAcquire("ours-2") != nil {
		t.Fatal("a fourth holder was admitted")
	}
	if m, _ := op.Do(ctx, "LOCK.INFO", key).Result(); m.(map[any]any)["kind"] != "semaphore" || len(m.(map[any]any)["holders"].([]any)) != 3 {
		t.Errorf("LOCK.INFO: %v", m)
	}
	queued := make(chan any, 1)
	go func() {
		c := redis.NewClient(&redis.Options{Addr: target.addr})
		defer c.Close()
		v, err := c.Do(ctx, "LOCK.ACQUIRE", key, "ours-2", lockTime, "WAIT", 10000, "PERMITS", limit).Result()
		if err != nil {
			queued <- err
			return
		}
		queued <- v
	}()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		m, _ := op.Do(ctx, "LOCK.INFO", key).Result()
		if len(m.(map[any]any)["queue"].([]any)) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the PERMITS waiter never queued")
		}
	}
	if err := op.ZRem(ctx, key, "sem-1").Err(); err != nil {
		t.Fatal(err)
	}
	select {
	case v := <-queued:
		if _, ok := v.(int64); !ok {
			t.Fatalf("PERMITS waiter: %v", v)
		}
	case <-time.After(wakeWithin):
		t.Fatal("redis-semaphore's release did not hand its permit to the waiter")
	}
	if semAcquire("sem-1") != 0 {
		t.Fatal("redis-semaphore got the permit the waiter was handed")
	}
	for _, id := range []string{"ours-1", "ours-2"} {
		if n, _ := op.Do(ctx, "LOCK.RELEASE", key, id).Int64(); n != 1 {
			t.Errorf("LOCK.RELEASE %s: %d", id, n)
		}
	}
	op.ZRem(ctx, key, "sem-2")
	if n, _ := op.Exists(ctx, key).Result(); n != 0 {
		t.Fatal("key left after every holder released")
	}

	var (
		holding, most     atomic.Int64
		semGrants, ours   atomic.Int64
		wg                sync.WaitGroup
		errOnce           sync.Once
		firstErr          error
		stop              = time.Now().Add(2 * time.Second)
		criticalSection   = 2 * time.Millisecond
		thinkBetweenTurns = 20 * time.Millisecond
	)
	fail := func(err error) { errOnce.Do(func() { firstErr = err }) }
	hold := func() {
		n := holding.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		time.Sleep(criticalSection)
		holding.Add(-1)
	}
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := redis.NewClient(&redis.Options{Addr: target.addr, PoolSize: 1, ReadTimeout: 15 * time.Second})
			defer c.Close()
			id := "client-" + strconv.Itoa(i)
			for time.Now().Before(stop) {
				if i%4 != 0 {
					n, err := redisSemaphoreAcquire.Run(ctx, c, []string{key}, limit, id, lockTime, time.Now().UnixMilli()).Int64()
					if err != nil {
						fail(err)
						return
					}
					if n != 1 {
						time.Sleep(redisSemaphoreRetry)
						continue
					}
					semGrants.Add(1)
					hold()
					if err := c.ZRem(ctx, key, id).Err(); err != nil {
						fail(err)
						return
					}
				} else {
					err := c.Do(ctx, "LOCK.ACQUIRE", key, id, lockTime, "WAIT", 10000, "PERMITS", limit).Err()
					if err != nil {
						fail(err)
						return
					}
					ours.Add(1)
					hold()
					if err := c.Do(ctx, "LOCK.RELEASE", key, id).Err(); err != nil {
						fail(err)
						return
					}
				}
				// Leave the queue empty now and then, so that the
				// pollers, which only get permits nobody queues for,
				// have a chance.
				if i%4 == 0 {
					time.Sleep(thinkBetweenTurns)
				}
			}
		}()
	}
	var zcardMax int64
	for time.Now().Before(stop) {
		if n, err := op.ZCard(ctx, key).Result(); err == nil {
			zcardMax = max(zcardMax, n)
		}
		time.Sleep(time.Millisecond)
	}
	wg.Wait()
	if firstErr != nil {
		t.Fatal(firstErr)
	}
	t.Logf("%d redis-semaphore grants, %d LOCK.ACQUIRE grants, at most %d holding, ZCARD at most %d",
		semGrants.Load(), ours.Load(), most.Load(), zcardMax)
	if most.Load() > limit || zcardMax > limit {
		t.Errorf("%d held at once (ZCARD %d), the bound is %d", most.Load(), zcardMax, limit)
	}
	if semGrants.Load() == 0 || ours.Load() == 0 {
		t.Errorf("grants: redis-semaphore %d, LOCK.ACQUIRE %d; want both", semGrants.Load(), ours.Load())
	}
	if n, _ := op.Exists(ctx, key).Result(); n != 0 {
		if z, _ := op.ZCard(ctx, key).Result(); z != 0 {
			t.Errorf("%d holders left", z)
		}
	}
}
