package compat

import (
	"context"
	"testing"
	"time"

	"github.com/lockredis/lockredis"
	"github.com/redis/go-redis/v9"
)

// lockTargets are the servers the LOCK.* commands run on: the embedded
// server and the built binary (redis-server has no LOCK.*).
func lockTargets(t *testing.T) []v8Target {
	srv := lockredis.RunT(t)
	return []v8Target{
		{name: "lockredis", addr: srv.Addr(), pass: srv.FastForward},
		{name: "binary", addr: startBinary(t), pass: time.Sleep},
	}
}

// lockOutcome is what a waiting client's lock call came to.
type lockOutcome struct {
	who string
	err error
	at  time.Time
}

// lockAsync runs r.lock in the background.
func lockAsync(r *redissonClient, who string, kind redissonKind, name string, done chan<- lockOutcome) {
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		err := r.lock(ctx, kind, name, 1, 30000)
		done <- lockOutcome{who, err, time.Now()}
	}()
}

// messages counts what is published on channel, from a subscriber of its
// own.
func messages(t *testing.T, addr, channel string) <-chan string {
	c := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2})
	sub := c.Subscribe(context.Background(), channel)
	if _, err := sub.Receive(context.Background()); err != nil {
		t.Fatal(err)
	}
	out := make(chan string, 16)
	go func() {
		for m := range sub.Channel() {
			out <- m.Payload
		}
	}()
	t.Cleanup(func() { sub.Close(); c.Close() })
	return out
}

// TestRedissonLockOperatorRelease: a lock an unmodified Redisson-style
// client took (reentered), two other Redisson-style clients waiting on
// its unlock channel, and an operator's LOCK.INFO, LOCK.EXTEND and
// LOCK.RELEASE on it. Each LOCK.RELEASE takes one reentry off; the last
// deletes the hash and publishes Redisson's unlock message, which wakes
// the waiters (their 30 s lease is far beyond wakeWithin, so nothing
// else can): exactly one acquires, the other waits until the winner's own
// unlock script wakes it.
func TestRedissonLockOperatorRelease(t *testing.T) {
	for _, target := range lockTargets(t) {
		t.Run(target.name, func(t *testing.T) { testRedissonLockOperatorRelease(t, target) })
	}
}

func testRedissonLockOperatorRelease(t *testing.T, target v8Target) {
	ctx := context.Background()
	op := rsClient(t, target.addr)
	a := newRedissonClient(t, target.addr)
	b := newRedissonClient(t, target.addr)
	c := newRedissonClient(t, target.addr)
	name := "order:" + token(t)
	channel := redissonChannel(redissonPlain, name)
	published := messages(t, target.addr, channel)

	// a takes it twice (reentry).
	for range 2 {
		if err := a.lock(ctx, redissonPlain, name, 1, 30000); err != nil {
			t.Fatalf("a.lock: %v", err)
		}
	}
	owner := a.lockName(1)
	if got, _ := op.HGet(ctx, name, owner).Result(); got != "2" {
		t.Fatalf("HGET %s %s = %q, want 2", name, owner, got)
	}

	done := make(chan lockOutcome, 2)
	before := numSub(t, op, channel)
	lockAsync(b, "b", redissonPlain, name, done)
	lockAsync(c, "c", redissonPlain, name, done)
	awaitSubscribers(t, op, channel, before+2)

	info, err := op.Do(ctx, "LOCK.INFO", name).Result()
	m, _ := info.(map[any]any)
	if err != nil || m["kind"] != "redisson" || m["reentries"] != int64(2) {
		t.Fatalf("LOCK.INFO: %v, %v; want kind redisson, reentries 2", info, err)
	}
	if owners, _ := m["owners"].([]any); len(owners) != 1 || owners[0] != owner {
		t.Errorf("LOCK.INFO owners %v, want [%s]", m["owners"], owner)
	}

	// EXTEND and RELEASE by a non-owner do nothing.
	for _, cmd := range [][]any{{"LOCK.EXTEND", name, "someone", 60000}, {"LOCK.RELEASE", name, "someone"}} {
		if n, err := op.Do(ctx, cmd...).Int64(); err != nil || n != 0 {
			t.Errorf("%v: %d, %v; want 0", cmd, n, err)
		}
	}
	if n, err := op.Do(ctx, "LOCK.EXTEND", name, owner, 60000).Int64(); err != nil || n != 1 {
		t.Fatalf("LOCK.EXTEND: %d, %v", n, err)
	}
	if d, _ := op.PTTL(ctx, name).Result(); d <= 30*time.Second || d > 60*time.Second {
		t.Errorf("PTTL after LOCK.EXTEND 60000: %v", d)
	}

	// The first release takes one reentry off: still a's, nobody woken.
	if n, err := op.Do(ctx, "LOCK.RELEASE", name, owner).Int64(); err != nil || n != 1 {
		t.Fatalf("first LOCK.RELEASE: %d, %v", n, err)
	}
	if got, _ := op.HGet(ctx, name, owner).Result(); got != "1" {
		t.Fatalf("HGET after one release = %q, want 1", got)
	}
	select {
	case o := <-done:
		t.Fatalf("%s acquired while a still held one reentry (%v)", o.who, o.err)
	case p := <-published:
		t.Fatalf("unlock message %q while a still held", p)
	case <-time.After(200 * time.Millisecond):
	}
	if _, ok, _ := b.tryAcquire(ctx, redissonPlain, name, 2, 30000); ok {
		t.Fatal("another thread of b acquired a held lock")
	}

	// The last release deletes it and publishes "0": one waiter wins.
	releasedAt := time.Now()
	if n, err := op.Do(ctx, "LOCK.RELEASE", name, owner).Int64(); err != nil || n != 1 {
		t.Fatalf("second LOCK.RELEASE: %d, %v", n, err)
	}
	select {
	case p := <-published:
		if p != "0" {
			t.Errorf("unlock message %q, want 0 (LockPubSub.UNLOCK_MESSAGE)", p)
		}
	case <-time.After(wakeWithin):
		t.Fatal("no unlock message on " + channel)
	}
	var first lockOutcome
	select {
	case first = <-done:
		if first.err != nil {
			t.Fatalf("%s: %v", first.who, first.err)
		}
		if d := first.at.Sub(releasedAt); d > wakeWithin {
			t.Errorf("%s acquired %v after LOCK.RELEASE, want within %v", first.who, d, wakeWithin)
		}
	case <-time.After(wakeWithin):
		t.Fatal("no waiter acquired after LOCK.RELEASE")
	}
	winner, loser := b, c
	if first.who == "c" {
		winner, loser = c, b
	}
	fields, _ := op.HGetAll(ctx, name).Result()
	if len(fields) != 1 || fields[winner.lockName(1)] != "1" {
		t.Fatalf("after the hand-over %s = %v, want {%s: 1}", name, fields, winner.lockName(1))
	}
	select {
	case o := <-done:
		t.Fatalf("%s acquired too, while %s holds", o.who, first.who)
	case <-time.After(200 * time.Millisecond):
	}
	if _, ok, _ := a.tryAcquire(ctx, redissonPlain, name, 1, 30000); ok {
		t.Fatal("a acquired the winner's lock")
	}

	// The winner's own unlock script wakes the other one.
	if n, err := winner.unlock(ctx, redissonPlain, name, 1); err != nil || n != 1 {
		t.Fatalf("winner's unlock: %d, %v", n, err)
	}
	select {
	case o := <-done:
		if o.err != nil {
			t.Fatal(o.err)
		}
	case <-time.After(wakeWithin):
		t.Fatal("the second waiter did not acquire after the winner's unlock")
	}
	if got, _ := op.HGet(ctx, name, loser.lockName(1)).Result(); got != "1" {
		t.Errorf("HGET after the second hand-over = %q, want 1", got)
	}
	// And an operator's release of that one is heard the same way.
	if n, err := op.Do(ctx, "LOCK.RELEASE", name, loser.lockName(1)).Int64(); err != nil || n != 1 {
		t.Fatalf("LOCK.RELEASE of the second: %d, %v", n, err)
	}
	if n, _ := op.Exists(ctx, name).Result(); n != 0 {
		t.Error("lock left after the last LOCK.RELEASE")
	}
	var got []string
	for len(got) < 2 {
		select {
		case p := <-published:
			got = append(got, p)
		case <-time.After(wakeWithin):
			t.Fatalf("unlock messages %q, want two more (the winner's unlock, the last release)", got)
		}
	}
}
