package compat

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lockredis/lockredis"
	"github.com/redis/go-redis/v9"
	"github.com/redis/rueidis"
	"github.com/redis/rueidis/rueidislock"
)

// rueidis v1.0.69 and its rueidislock package, unmodified. rueidis speaks
// RESP3 only (HELLO 3) and turns on CLIENT TRACKING on every connection:
// its client-side cache and rueidislock's waiters depend on invalidation
// pushes. rueidislock's waiters have no polling fallback: a waiter only
// retries when an invalidation of a lock key arrives (the holder deleted
// it, or it expired).

// ruTargets are the servers the rueidis tests run against: an embedded
// lockredis, the built binary, and redis-server as the oracle of the same
// assertions.
func ruTargets(t *testing.T) map[string]string {
	targets := map[string]string{"lockredis": lockredis.RunT(t).Addr(), "binary": startBinary(t)}
	if _, err := exec.LookPath("redis-server"); err == nil || os.Getenv("CI") != "" {
		targets["redis-server"] = startRedis(t)
	}
	return targets
}

func ruClient(t *testing.T, addr string) rueidis.Client {
	t.Helper()
	c, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{addr}})
	if err != nil {
		t.Fatalf("rueidis.NewClient(%s): %v", addr, err)
	}
	t.Cleanup(c.Close)
	return c
}

// TestRueidisClientSideCache: a cached GET is served from the client's
// cache until another client changes the key; the invalidation makes the
// next GET ask the server.
func TestRueidisClientSideCache(t *testing.T) {
	for name, addr := range ruTargets(t) {
		t.Run(name, func(t *testing.T) { testRueidisCache(t, addr) })
	}
}

func testRueidisCache(t *testing.T, addr string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := ruClient(t, addr)
	other := rsClient(t, addr)
	key := "csc:" + token(t)
	get := func() rueidis.RedisResult { return c.DoCache(ctx, c.B().Get().Key(key).Cache(), time.Minute) }
	// eventually waits for the cached GET to answer want: the
	// invalidation is a push that may arrive just after the write's reply.
	eventually := func(want string) {
		t.Helper()
		for {
			r := get()
			v, err := r.ToString()
			if want == "" && rueidis.IsRedisNil(err) || err == nil && v == want {
				return
			}
			if ctx.Err() != nil {
				t.Fatalf("cached GET %s: %q, %v; want %q (no invalidation came)", key, v, err, want)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}

	if err := other.Set(ctx, key, "v1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	first := get()
	if v, err := first.ToString(); err != nil || v != "v1" || first.IsCacheHit() {
		t.Fatalf("first cached GET: %q, %v, hit %v; want v1 from the server", v, err, first.IsCacheHit())
	}
	second := get()
	if v, err := second.ToString(); err != nil || v != "v1" || !second.IsCacheHit() {
		t.Fatalf("second cached GET: %q, %v, hit %v; want v1 from the cache", v, err, second.IsCacheHit())
	}

	// Another client's SET invalidates the cached value.
	if err := other.Set(ctx, key, "v2", 0).Err(); err != nil {
		t.Fatal(err)
	}
	eventually("v2")
	if r := get(); !r.IsCacheHit() {
		t.Errorf("GET after re-reading v2: not from the cache")
	}
	// So does a DEL, and a flush.
	if err := other.Del(ctx, key).Err(); err != nil {
		t.Fatal(err)
	}
	eventually("")
	if err := other.Set(ctx, key, "v3", 0).Err(); err != nil {
		t.Fatal(err)
	}
	eventually("v3")
	if err := other.FlushAll(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	eventually("")
	// A key that expires on the server is invalidated too.
	if err := other.Set(ctx, key, "v4", 300*time.Millisecond).Err(); err != nil {
		t.Fatal(err)
	}
	eventually("v4")
	eventually("")
}

// TestRueidislock: two lockers on one lock name.
func TestRueidislock(t *testing.T) {
	for name, addr := range ruTargets(t) {
		t.Run(name, func(t *testing.T) { testRueidislock(t, addr) })
	}
}

// ruLocker makes a rueidislock locker on addr, its connections going
// through proxy when it is not nil.
func ruLocker(t *testing.T, addr string, validity time.Duration, proxy *cutProxy) rueidislock.Locker {
	t.Helper()
	opt := rueidislock.LockerOption{
		ClientOption: rueidis.ClientOption{InitAddress: []string{addr}},
		KeyValidity:  validity,
	}
	if proxy != nil {
		opt.ClientOption.InitAddress = []string{proxy.addr()}
	}
	l, err := rueidislock.NewLocker(opt)
	if err != nil {
		t.Fatalf("NewLocker: %v", err)
	}
	t.Cleanup(l.Close)
	return l
}

func testRueidislock(t *testing.T, addr string) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	const validity = time.Second // renewed every 500ms
	proxy := newCutProxy(t, addr)
	a := ruLocker(t, addr, validity, nil)
	b := ruLocker(t, addr, validity, proxy) // b's connections can be cut
	peek := rsClient(t, addr)
	name := "job-" + token(t)
	// rueidislock's keys: rueidislock:<i>:<name>, a majority of 2 of 3.
	keys := []string{"rueidislock:0:" + name, "rueidislock:1:" + name, "rueidislock:2:" + name}

	// heldBy reports the value a majority of the keys share, "" if none.
	heldBy := func() string {
		t.Helper()
		count := map[string]int{}
		for _, k := range keys {
			v, err := peek.Get(ctx, k).Result()
			if err == nil {
				count[v]++
			} else if !errors.Is(err, redis.Nil) {
				t.Fatalf("GET %s: %v", k, err)
			}
		}
		for v, n := range count {
			if n >= 2 {
				return v
			}
		}
		return ""
	}

	// a takes the lock; b is refused while a holds it.
	ctxA, unlockA, err := a.WithContext(ctx, name)
	if err != nil {
		t.Fatalf("a.WithContext: %v", err)
	}
	holderA := heldBy()
	if holderA == "" {
		t.Fatalf("a holds the lock but no majority of %v holds one value", keys)
	}
	if _, _, err := b.TryWithContext(ctx, name); !errors.Is(err, rueidislock.ErrNotLocked) {
		t.Fatalf("b.TryWithContext while a holds the lock: %v; want ErrNotLocked", err)
	}

	// b waits. a keeps the lock across several validity periods (it
	// renews), then releases it: b gets it then, and only then.
	var aReleased atomic.Bool
	type acquired struct {
		ctx    context.Context
		unlock context.CancelFunc
		err    error
		afterA bool
	}
	got := make(chan acquired, 1)
	go func() {
		c, u, err := b.WithContext(ctx, name)
		got <- acquired{c, u, err, aReleased.Load()}
	}()
	time.Sleep(3 * validity)
	if ctxA.Err() != nil {
		t.Fatalf("a lost its lock while renewing it: %v", context.Cause(ctxA))
	}
	if v := heldBy(); v != holderA {
		t.Fatalf("after %v a's keys hold %q, want a's %q (renewed)", 3*validity, v, holderA)
	}
	select {
	case r := <-got:
		t.Fatalf("b acquired the lock while a held it (err %v)", r.err)
	default:
	}
	aReleased.Store(true)
	unlockA()
	if ctxA.Err() == nil {
		t.Errorf("a's context is still live after its unlock")
	}
	var bLock acquired
	select {
	case bLock = <-got:
	case <-ctx.Done():
		t.Fatal("b never acquired the lock a released (no invalidation woke it)")
	}
	if bLock.err != nil || !bLock.afterA {
		t.Fatalf("b.WithContext: err %v, after a's release %v", bLock.err, bLock.afterA)
	}
	holderB := heldBy()
	if holderB == "" || holderB == holderA {
		t.Fatalf("after the hand-over the keys hold %q (a's was %q)", holderB, holderA)
	}

	// b stops renewing, as a crashed process would: its connections are
	// cut. a waits; the keys expire on the server, whose invalidations
	// wake a, which takes the lock. b's context ends: it cannot renew.
	go func() {
		c, u, err := a.WithContext(ctx, name)
		got <- acquired{c, u, err, false}
	}()
	proxy.cut()
	var aLock acquired
	select {
	case aLock = <-got:
	case <-ctx.Done():
		t.Fatal("a never acquired the lock after b's keys expired")
	}
	if aLock.err != nil {
		t.Fatalf("a.WithContext after b stopped: %v", aLock.err)
	}
	defer aLock.unlock()
	if v := heldBy(); v == "" || v == holderB {
		t.Fatalf("after b's expiry the keys hold %q (b's was %q)", v, holderB)
	}
	select {
	case <-bLock.ctx.Done():
	case <-ctx.Done():
		t.Fatal("b's lock context never ended although b could not renew")
	}
	if _, _, err := b.TryWithContext(ctx, name); err == nil {
		t.Fatal("b.TryWithContext succeeded while a holds the lock")
	}
}

// cutProxy forwards TCP connections to a server until cut: then every
// connection is closed and new ones are refused, as if the client's
// process had died (it can neither renew nor release its locks).
type cutProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	conns  []net.Conn
	isCut  bool
}

func newCutProxy(t *testing.T, target string) *cutProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{ln: ln, target: target}
	t.Cleanup(p.cut)
	go p.serve()
	return p
}

func (p *cutProxy) addr() string { return p.ln.Addr().String() }

func (p *cutProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		up, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		if p.isCut {
			p.mu.Unlock()
			c.Close()
			up.Close()
			return
		}
		p.conns = append(p.conns, c, up)
		p.mu.Unlock()
		go func() { io.Copy(up, c); up.Close() }()
		go func() { io.Copy(c, up); c.Close() }()
	}
}

func (p *cutProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.isCut = true
	p.ln.Close()
	for _, c := range p.conns {
		c.Close()
	}
}
