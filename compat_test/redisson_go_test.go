package compat

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/MaricoHan/redisson"
	"github.com/MaricoHan/redisson/mutex"
	"github.com/MaricoHan/redisson/pkg/types"
	godisson "github.com/cheerego/go-redisson"
	redisv8 "github.com/go-redis/redis/v8"
	"github.com/lockredis/lockredis"
	"github.com/redis/go-redis/v9"
)

// Two Redisson-style Go clients, unmodified, over go-redis v8 (no HELLO):
// cheerego/go-redisson v0.0.6 (package godisson), whose RLock is
// Redisson's hash lock {owner: reentry count} with a pub/sub wake-up and a
// 30 s watchdog, and MaricoHan/redisson v1.0.1, whose Mutex (a string
// owner) and RWMutex (readers in a hash) wake waiters by pub/sub and renew
// at a third of the lease. Both use EVAL; their scripts read status
// replies as tables (redis.call('type',k)["ok"]).

// wakeWithin bounds how long a waiter may take to notice an unlock, far
// below the 30 s leases: only the pub/sub message can wake it that soon.
const wakeWithin = 2 * time.Second

func v8Client(t *testing.T, addr string) *redisv8.Client {
	c := redisv8.NewClient(&redisv8.Options{Addr: addr, DialTimeout: time.Second, ReadTimeout: 5 * time.Second})
	t.Cleanup(func() { c.Close() })
	return c
}

// v8Target is a server the go-redis v8 clients run against: the embedded
// lockredis, the built binary, and redis-server as the oracle the same
// assertions hold on.
// pass lets time pass (FastForward, or a real wait).
type v8Target struct {
	name string
	addr string
	pass func(time.Duration)
}

func v8Targets(t *testing.T) []v8Target {
	srv := lockredis.RunT(t)
	targets := []v8Target{
		{name: "lockredis", addr: srv.Addr(), pass: srv.FastForward},
		{name: "binary", addr: startBinary(t), pass: time.Sleep},
	}
	if _, err := exec.LookPath("redis-server"); err == nil || os.Getenv("CI") != "" {
		targets = append(targets, v8Target{name: "redis-server", addr: startRedis(t), pass: time.Sleep})
	}
	return targets
}

func forEachV8Target(t *testing.T, test func(*testing.T, v8Target)) {
	for _, target := range v8Targets(t) {
		t.Run(target.name, func(t *testing.T) { test(t, target) })
	}
}

// hashCounts is the reentry counts stored in a lock hash, sorted.
func hashCounts(t *testing.T, peek *redis.Client, key string) []string {
	t.Helper()
	m, err := peek.HGetAll(context.Background(), key).Result()
	if err != nil {
		t.Fatalf("HGETALL %s: %v", key, err)
	}
	var counts []string
	for _, v := range m {
		counts = append(counts, v)
	}
	slices.Sort(counts)
	return counts
}

func hashFields(t *testing.T, peek *redis.Client, key string) []string {
	t.Helper()
	fields, err := peek.HKeys(context.Background(), key).Result()
	if err != nil {
		t.Fatalf("HKEYS %s: %v", key, err)
	}
	return fields
}

// awaitSubscribers polls until channel has at least n subscribers.
func awaitSubscribers(t *testing.T, peek *redis.Client, channel string, n int64) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got, err := peek.PubSubNumSub(context.Background(), channel).Result()
		if err != nil {
			t.Fatalf("PUBSUB NUMSUB %s: %v", channel, err)
		}
		if got[channel] >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("PUBSUB NUMSUB %s: %d, want %d", channel, got[channel], n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func numSub(t *testing.T, peek *redis.Client, channel string) int64 {
	t.Helper()
	got, err := peek.PubSubNumSub(context.Background(), channel).Result()
	if err != nil {
		t.Fatalf("PUBSUB NUMSUB %s: %v", channel, err)
	}
	return got[channel]
}

// TestGodissonRLock: reentry counts in the hash, exclusion, owner-only
// unlock, expiry, and a waiter woken by the unlock message.
func TestGodissonRLock(t *testing.T) { forEachV8Target(t, testGodissonRLock) }

func testGodissonRLock(t *testing.T, target v8Target) {
	peek := rsClient(t, target.addr)
	ctx := context.Background()
	a := godisson.NewGodisson(v8Client(t, target.addr))
	b := godisson.NewGodisson(v8Client(t, target.addr))
	key := "godisson:" + token(t)
	const lease = 30000 // ms

	la := a.NewRLock(key)
	for i := 0; i < 2; i++ {
		if err := la.TryLock(0, lease); err != nil {
			t.Fatalf("a.TryLock #%d: %v", i+1, err)
		}
	}
	if got := hashCounts(t, peek, key); !slices.Equal(got, []string{"2"}) {
		t.Fatalf("counts after locking twice: %q, want [2]", got)
	}
	owner := hashFields(t, peek, key)[0]
	if got, err := peek.HGet(ctx, key, owner).Result(); err != nil || got != "2" {
		t.Errorf("HGET %s %s: %q, %v; want 2", key, owner, got, err)
	}
	if d, err := peek.PTTL(ctx, key).Result(); err != nil || d <= 29*time.Second || d > 30*time.Second {
		t.Errorf("PTTL: %v, %v; want the 30 s lease", d, err)
	}

	// Another client is refused and cannot unlock.
	lb := b.NewRLock(key)
	if err := lb.TryLock(0, lease); !errors.Is(err, godisson.ErrLockNotObtained) {
		t.Errorf("b.TryLock while a holds it: %v; want ErrLockNotObtained", err)
	}
	if n, err := lb.Unlock(); err == nil {
		t.Errorf("b.Unlock of a's lock: %d, nil; want an error (nil reply)", n)
	}
	if got := hashCounts(t, peek, key); !slices.Equal(got, []string{"2"}) {
		t.Errorf("counts after b's unlock: %q, want [2]", got)
	}

	// Unlocking once leaves it held once.
	if n, err := la.Unlock(); err != nil || n != 0 {
		t.Errorf("a.Unlock #1: %d, %v; want 0 (still held)", n, err)
	}
	if got, err := peek.HGet(ctx, key, owner).Result(); err != nil || got != "1" {
		t.Errorf("HGET after one unlock: %q, %v; want 1", got, err)
	}

	// A waiter in another goroutine and client is woken by the unlock
	// message, long before the 30 s lease would run out.
	type result struct {
		err error
		at  time.Time
	}
	channel := "{gedisson_lock__channel}:" + key + ")" // sic: godisson's channel name
	got := make(chan result, 1)
	unlock := make(chan struct{})
	unlocked := make(chan error, 1)
	go func() {
		w := b.NewRLock(key)
		err := w.TryLock(10000, lease)
		got <- result{err, time.Now()}
		<-unlock
		n, err := w.Unlock()
		if err == nil && n != 1 {
			err = errors.New("waiter's Unlock did not release")
		}
		unlocked <- err
	}()
	awaitSubscribers(t, peek, channel, 1)
	select {
	case r := <-got:
		t.Fatalf("the waiter got a held lock: %v", r.err)
	default:
	}
	unlockAt := time.Now()
	if n, err := la.Unlock(); err != nil || n != 1 {
		t.Fatalf("a.Unlock #2: %d, %v; want 1 (released)", n, err)
	}
	select {
	case r := <-got:
		if r.err != nil {
			t.Fatalf("waiter: %v", r.err)
		}
		if d := r.at.Sub(unlockAt); d > wakeWithin {
			t.Errorf("waiter acquired %v after the unlock; want within %v", d, wakeWithin)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the waiter never acquired")
	}
	if f := hashFields(t, peek, key); len(f) != 1 || f[0] == owner {
		t.Errorf("hash fields after the hand-over: %q; want one field, not %q", f, owner)
	}
	close(unlock)
	if err := <-unlocked; err != nil {
		t.Errorf("waiter's Unlock: %v", err)
	}
	if n, _ := peek.Exists(ctx, key).Result(); n != 0 {
		t.Errorf("key left after the last unlock")
	}

	// Expiry frees a lock whose owner never unlocks.
	if err := la.TryLock(0, 200); err != nil {
		t.Fatal(err)
	}
	if err := lb.TryLock(0, lease); err == nil {
		t.Fatal("b got a's lock before it expired")
	}
	target.pass(250 * time.Millisecond)
	if err := lb.TryLock(0, lease); err != nil {
		t.Errorf("b.TryLock after a's lease ran out: %v", err)
	}
}

// TestGodissonWatchdog: Lock without a lease renews every 10 s (a third of
// the 30 s minimum watchdog timeout), so the lock outlives its lease. The
// server's clock is moved, but the watchdog ticks in real time: this test
// waits about 10 s.
func TestGodissonWatchdog(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for godisson's 10 s watchdog tick")
	}
	srv := lockredis.RunT(t)
	peek := rsClient(t, srv.Addr())
	ctx := context.Background()
	a := godisson.NewGodisson(v8Client(t, srv.Addr()))
	b := godisson.NewGodisson(v8Client(t, srv.Addr()))
	key := "godisson:" + token(t)

	la := a.NewRLock(key)
	if err := la.Lock(); err != nil {
		t.Fatal(err)
	}
	// 15 s of the 30 s lease left, more than the 10 s until the first tick.
	srv.FastForward(15 * time.Second)
	deadline := time.Now().Add(15 * time.Second)
	for {
		d, err := peek.PTTL(ctx, key).Result()
		if err != nil || d < 0 {
			t.Fatalf("PTTL while waiting for the watchdog: %v, %v", d, err)
		}
		if d > 25*time.Second {
			break // renewed to a full lease
		}
		if time.Now().After(deadline) {
			t.Fatalf("the watchdog did not renew the lease (PTTL %v)", d)
		}
		time.Sleep(100 * time.Millisecond)
	}
	srv.FastForward(20 * time.Second) // 45 s on the server's clock: past the first lease
	if got := hashCounts(t, peek, key); !slices.Equal(got, []string{"1"}) {
		t.Fatalf("counts past the first lease: %q, want [1]", got)
	}
	if err := b.NewRLock(key).TryLock(0, 30000); err == nil {
		t.Fatal("b got a lock kept alive by the watchdog")
	}
	if n, err := la.Unlock(); err != nil || n != 1 {
		t.Errorf("Unlock: %d, %v", n, err)
	}
}

// TestMaricoHanMutex: exclusion, owner-only unlock, a waiter woken by the
// unlock message, and renewal keeping a short lease alive.
func TestMaricoHanMutex(t *testing.T) { forEachV8Target(t, testMaricoHanMutex) }

func testMaricoHanMutex(t *testing.T, target v8Target) {
	peek := rsClient(t, target.addr)
	ctx := context.Background()
	ra := redisson.New(v8Client(t, target.addr))
	rb := redisson.New(v8Client(t, target.addr))
	key := "maricohan:" + token(t)
	channel := "redisson_lock__channel:{" + key + "}"
	lease := mutex.WithExpireDuration(30 * time.Second)
	brief := mutex.WithWaitTimeout(100 * time.Millisecond)

	ma := ra.NewMutex(key, lease)
	if err := ma.Lock(); err != nil {
		t.Fatal(err)
	}
	owner, err := peek.Get(ctx, key).Result()
	if err != nil || owner == "" {
		t.Fatalf("GET after Lock: %q, %v", owner, err)
	}
	if d, err := peek.PTTL(ctx, key).Result(); err != nil || d <= 29*time.Second || d > 30*time.Second {
		t.Errorf("PTTL: %v, %v; want the 30 s lease", d, err)
	}

	// Others are refused and cannot unlock.
	if err := rb.NewMutex(key, lease, brief).Lock(); !errors.Is(err, types.ErrWaitTimeout) {
		t.Errorf("b.Lock while a holds it: %v; want ErrWaitTimeout", err)
	}
	if err := rb.NewMutex(key).Unlock(); !errors.Is(err, types.ErrMismatch) {
		t.Errorf("b.Unlock of a's lock: %v; want ErrMismatch", err)
	}
	if got, _ := peek.Get(ctx, key).Result(); got != owner {
		t.Errorf("GET after b's attempts: %q, want %q", got, owner)
	}

	// A waiter is woken by the unlock message.
	before := numSub(t, peek, channel)
	mw := rb.NewMutex(key, lease, mutex.WithWaitTimeout(10*time.Second))
	awaitSubscribers(t, peek, channel, before+1)
	type result struct {
		err error
		at  time.Time
	}
	got := make(chan result, 1)
	go func() {
		err := mw.Lock()
		got <- result{err, time.Now()}
	}()
	time.Sleep(50 * time.Millisecond) // let the waiter try once and wait
	select {
	case r := <-got:
		t.Fatalf("the waiter got a held lock: %v", r.err)
	default:
	}
	unlockAt := time.Now()
	if err := ma.Unlock(); err != nil {
		t.Fatalf("a.Unlock: %v", err)
	}
	select {
	case r := <-got:
		if r.err != nil {
			t.Fatalf("waiter: %v", r.err)
		}
		if d := r.at.Sub(unlockAt); d > wakeWithin {
			t.Errorf("waiter acquired %v after the unlock; want within %v", d, wakeWithin)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the waiter never acquired")
	}
	if got, _ := peek.Get(ctx, key).Result(); got == "" || got == owner {
		t.Errorf("GET after the hand-over: %q; want the waiter's id", got)
	}

	// Renewal at a third of a 1 s lease keeps the lock for several leases
	// (a 300 ms lease lost renewals on a loaded 2-core machine).
	key2 := key + ":renewed"
	mr := ra.NewMutex(key2, mutex.WithExpireDuration(time.Second))
	if err := mr.Lock(); err != nil {
		t.Fatal(err)
	}
	holder, _ := peek.Get(ctx, key2).Result()
	for end := time.Now().Add(2500 * time.Millisecond); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if got, err := peek.Get(ctx, key2).Result(); err != nil || got != holder {
			t.Fatalf("GET %s while renewed: %q, %v; want %q", key2, got, err, holder)
		}
	}
	if err := rb.NewMutex(key2, brief).Lock(); !errors.Is(err, types.ErrWaitTimeout) {
		t.Errorf("b.Lock of a renewed lock: %v; want ErrWaitTimeout", err)
	}
	if err := mr.Unlock(); err != nil {
		t.Errorf("Unlock: %v", err)
	}
	if n, _ := peek.Exists(ctx, key2).Result(); n != 0 {
		t.Errorf("key left after Unlock")
	}
}

// TestMaricoHanRWMutex: readers share (counts in the hash, reentrant per
// goroutine), a writer is excluded until the last reader leaves and is
// then woken at once, and readers are excluded by the writer.
func TestMaricoHanRWMutex(t *testing.T) { forEachV8Target(t, testMaricoHanRWMutex) }

func testMaricoHanRWMutex(t *testing.T, target v8Target) {
	peek := rsClient(t, target.addr)
	ctx := context.Background()
	ra := redisson.New(v8Client(t, target.addr))
	rb := redisson.New(v8Client(t, target.addr))
	rc := redisson.New(v8Client(t, target.addr))
	key := "maricohan-rw:" + token(t)
	channel := "redisson_lock__channel:{" + key + "}"
	lease := mutex.WithExpireDuration(30 * time.Second)
	brief := mutex.WithWaitTimeout(100 * time.Millisecond)

	r1 := ra.NewRWMutex(key, lease)
	r2 := rb.NewRWMutex(key, lease)
	for _, r := range []*mutex.RWMutex{r1, r2, r1} {
		if err := r.RLock(); err != nil {
			t.Fatalf("RLock: %v", err)
		}
	}
	if typ, _ := peek.Type(ctx, key).Result(); typ != "hash" {
		t.Fatalf("TYPE with readers: %q, want hash", typ)
	}
	if got := hashCounts(t, peek, key); !slices.Equal(got, []string{"1", "2"}) {
		t.Fatalf("reader counts: %q, want [1 2] (r1 twice, r2 once)", got)
	}

	if err := rc.NewRWMutex(key, lease, brief).Lock(); !errors.Is(err, types.ErrWaitTimeout) {
		t.Errorf("writer while readers hold it: %v; want ErrWaitTimeout", err)
	}

	// A writer waits for the last reader and is woken by its unlock.
	before := numSub(t, peek, channel)
	w := rc.NewRWMutex(key, lease, mutex.WithWaitTimeout(10*time.Second))
	awaitSubscribers(t, peek, channel, before+1)
	type result struct {
		err error
		at  time.Time
	}
	got := make(chan result, 1)
	unlock := make(chan struct{})
	unlocked := make(chan error, 1)
	go func() {
		err := w.Lock()
		got <- result{err, time.Now()}
		<-unlock
		unlocked <- w.Unlock()
	}()
	time.Sleep(50 * time.Millisecond) // let the writer try once and wait
	for i, r := range []*mutex.RWMutex{r1, r1} {
		if err := r.Unlock(); err != nil {
			t.Fatalf("r1.Unlock #%d: %v", i+1, err)
		}
	}
	if got := hashCounts(t, peek, key); !slices.Equal(got, []string{"1"}) {
		t.Fatalf("reader counts after r1 left: %q, want [1]", got)
	}
	select {
	case r := <-got:
		t.Fatalf("the writer got the lock while r2 reads: %v", r.err)
	default:
	}
	unlockAt := time.Now()
	if err := r2.Unlock(); err != nil {
		t.Fatalf("r2.Unlock: %v", err)
	}
	select {
	case r := <-got:
		if r.err != nil {
			t.Fatalf("writer: %v", r.err)
		}
		if d := r.at.Sub(unlockAt); d > wakeWithin {
			t.Errorf("writer acquired %v after the last reader left; want within %v", d, wakeWithin)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the writer never acquired")
	}
	if typ, _ := peek.Type(ctx, key).Result(); typ != "string" {
		t.Errorf("TYPE with the writer: %q, want string", typ)
	}

	// Readers and other writers are excluded by the writer.
	if err := ra.NewRWMutex(key, lease, brief).RLock(); !errors.Is(err, types.ErrWaitTimeout) {
		t.Errorf("reader while the writer holds it: %v; want ErrWaitTimeout", err)
	}
	if err := rb.NewRWMutex(key, lease, brief).Lock(); !errors.Is(err, types.ErrWaitTimeout) {
		t.Errorf("second writer: %v; want ErrWaitTimeout", err)
	}
	if err := ra.NewRWMutex(key).Unlock(); !errors.Is(err, types.ErrMismatch) {
		t.Errorf("Unlock by a non-owner: %v; want ErrMismatch", err)
	}
	close(unlock)
	if err := <-unlocked; err != nil {
		t.Errorf("writer's Unlock: %v", err)
	}
	if n, _ := peek.Exists(ctx, key).Result(); n != 0 {
		t.Errorf("key left after the writer's Unlock")
	}
	if err := ra.NewRWMutex(key, lease, brief).RLock(); err != nil {
		t.Errorf("reader after the writer left: %v", err)
	}
}
