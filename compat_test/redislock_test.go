package compat

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/bsm/redislock"
	"github.com/redis/go-redis/v9"
)

// bsm/redislock v0.9.4, unmodified, over go-redis v9: every operation is a
// script (EVALSHA, then EVAL on NOSCRIPT); obtain relays SET's status reply
// through Lua.

func TestRedislock(t *testing.T) {
	for _, target := range rsTargets(t) {
		t.Run(target.name, func(t *testing.T) { testRedislock(t, target) })
	}
}

func testRedislock(t *testing.T, target rsTarget) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	a := redislock.New(rsClient(t, target.addr))
	b := redislock.New(rsClient(t, target.addr))
	peek := rsClient(t, target.addr)
	key := "redislock:" + token(t)
	lease := target.lease

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

	la, err := a.Obtain(ctx, key, lease, &redislock.Options{Metadata: "meta-a"})
	if err != nil {
		t.Fatalf("a.Obtain: %v", err)
	}
	holds(la.Token() + "meta-a")
	if la.Metadata() != "meta-a" {
		t.Errorf("Metadata: %q", la.Metadata())
	}
	if d, err := la.TTL(ctx); err != nil || d <= 0 || d > lease {
		t.Errorf("TTL: %v, %v; want in (0, %v]", d, err, lease)
	}

	// A second client is refused, without retries and with a few.
	if _, err := b.Obtain(ctx, key, lease, nil); !errors.Is(err, redislock.ErrNotObtained) {
		t.Errorf("b.Obtain while a holds it: %v; want ErrNotObtained", err)
	}
	few := &redislock.Options{RetryStrategy: redislock.LimitRetry(redislock.LinearBackoff(10*time.Millisecond), 3)}
	if _, err := b.Obtain(ctx, key, lease, few); !errors.Is(err, redislock.ErrNotObtained) {
		t.Errorf("b.Obtain with 3 retries while a holds it: %v; want ErrNotObtained", err)
	}
	holds(la.Token() + "meta-a")

	// The same token obtains again (the GETRANGE branch, relaying SET's
	// +OK through Lua) and resets the lease.
	target.pass(lease / 2)
	again, err := a.Obtain(ctx, key, lease, &redislock.Options{Token: la.Token(), Metadata: "meta-a"})
	if err != nil {
		t.Fatalf("Obtain with the holder's token: %v", err)
	}
	if d, err := again.TTL(ctx); err != nil || d <= lease*3/4 {
		t.Errorf("TTL after re-obtaining: %v, %v; want close to %v", d, err, lease)
	}

	// Refresh resets the lease; TTL reads it back.
	target.pass(lease / 2)
	if d, err := la.TTL(ctx); err != nil || d > lease*3/4 {
		t.Errorf("TTL half a lease later: %v, %v", d, err)
	}
	if err := la.Refresh(ctx, 2*lease, nil); err != nil {
		t.Fatalf("Refresh: %v", err)
	}
	if d, err := la.TTL(ctx); err != nil || d <= lease || d > 2*lease {
		t.Errorf("TTL after Refresh(2 leases): %v, %v; want in (%v, %v]", d, err, lease, 2*lease)
	}

	// A waiter with a retry strategy obtains once a releases.
	type result struct {
		lock *redislock.Lock
		err  error
	}
	waited := make(chan result, 1)
	go func() {
		poll := &redislock.Options{RetryStrategy: redislock.LinearBackoff(5 * time.Millisecond)}
		wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		l, err := b.Obtain(wctx, key, lease, poll)
		waited <- result{l, err}
	}()
	time.Sleep(50 * time.Millisecond) // let the waiter poll and be refused
	select {
	case r := <-waited:
		t.Fatalf("the waiter obtained a held lock: %v", r.err)
	default:
	}
	if err := la.Release(ctx); err != nil {
		t.Fatalf("a.Release: %v", err)
	}
	r := <-waited
	if r.err != nil {
		t.Fatalf("the waiter after a released: %v", r.err)
	}
	lb := r.lock
	holds(lb.Token())

	// The old owner can neither release, refresh nor read b's lock.
	if err := la.Release(ctx); !errors.Is(err, redislock.ErrLockNotHeld) {
		t.Errorf("a.Release of b's lock: %v; want ErrLockNotHeld", err)
	}
	if err := la.Refresh(ctx, lease, nil); !errors.Is(err, redislock.ErrNotObtained) {
		t.Errorf("a.Refresh of b's lock: %v; want ErrNotObtained", err)
	}
	if d, err := la.TTL(ctx); err != nil || d != 0 {
		t.Errorf("a.TTL of b's lock: %v, %v; want 0", d, err)
	}
	holds(lb.Token())

	// Expiry frees it: b's lock reads as gone, and a obtains.
	target.expire()
	holds("")
	if d, err := lb.TTL(ctx); err != nil || d != 0 {
		t.Errorf("b.TTL after expiry: %v, %v; want 0", d, err)
	}
	if err := lb.Refresh(ctx, lease, nil); !errors.Is(err, redislock.ErrNotObtained) {
		t.Errorf("b.Refresh after expiry: %v; want ErrNotObtained", err)
	}
	la, err = a.Obtain(ctx, key, lease, nil)
	if err != nil {
		t.Fatalf("a.Obtain after b's lease ran out: %v", err)
	}
	if err := lb.Release(ctx); !errors.Is(err, redislock.ErrLockNotHeld) {
		t.Errorf("b.Release after expiry: %v; want ErrLockNotHeld", err)
	}
	holds(la.Token())
	if err := la.Release(ctx); err != nil {
		t.Errorf("a.Release: %v", err)
	}
	holds("")
}
