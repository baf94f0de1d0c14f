package compat

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lockredis/lockredis"
	"github.com/redis/go-redis/v9"
)

// goredisTarget is a server that go-redis connects to: lockredis, or
// redis-server to show that the assertions hold there too. expire makes
// time pass for the lock-expiry check: FastForward on the embedded server,
// a real wait elsewhere (where the lease is then short).
type goredisTarget struct {
	name     string
	addr     string
	password string
	lease    time.Duration // lease for the expiry check
	expire   func(t *testing.T)
}

func goredisTargets(t *testing.T, password string) []goredisTarget {
	srv := startEmbedded(t, lockredis.Options{Password: password})
	binArgs := []string{}
	if password != "" {
		binArgs = append(binArgs, "--requirepass", password)
	}
	bin := startBinary(t, binArgs...)
	redisAddr := startRedis(t, binArgs...)
	return []goredisTarget{
		{
			name: "embedded", addr: srv.Addr(), password: password, lease: 10 * time.Second,
			expire: func(t *testing.T) { srv.FastForward(11 * time.Second) },
		},
		{
			name: "binary", addr: bin, password: password, lease: 100 * time.Millisecond,
			expire: func(t *testing.T) { time.Sleep(150 * time.Millisecond) },
		},
		{
			name: "redis-server", addr: redisAddr, password: password, lease: 100 * time.Millisecond,
			expire: func(t *testing.T) { time.Sleep(150 * time.Millisecond) },
		},
	}
}

// TestGoRedisLock drives lock semantics with go-redis v9 clients, over
// the default handshake (HELLO 3, with a password HELLO 3 AUTH; CLIENT
// SETINFO errors are ignored by go-redis), over Protocol 3 and over
// Protocol 2, against the embedded server, the built binary and
// redis-server. go-redis would fall back to RESP2 if HELLO 3 failed: each
// run checks with CLIENT INFO that the connection speaks the protocol asked
// for.
func TestGoRedisLock(t *testing.T) {
	for _, password := range []string{"", "pw"} {
		for _, target := range goredisTargets(t, password) {
			for _, proto := range []int{0, 2, 3} {
				name := target.name + "/proto=default"
				if proto != 0 {
					name = target.name + "/proto=" + strconv.Itoa(proto)
				}
				if password != "" {
					name += "/requirepass"
				}
				t.Run(name, func(t *testing.T) { testGoRedisLock(t, target, proto) })
			}
		}
	}
}

func newGoRedis(t *testing.T, target goredisTarget, proto int, opts func(*redis.Options)) *redis.Client {
	o := &redis.Options{
		Addr: target.addr, Protocol: proto, Password: target.password,
		MaxRetries: -1, DialTimeout: 5 * time.Second, ReadTimeout: 5 * time.Second,
	}
	if opts != nil {
		opts(o)
	}
	c := redis.NewClient(o)
	t.Cleanup(func() { c.Close() })
	return c
}

func token(t *testing.T) string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// releaseScript is the compare-and-delete release every Redis lock guide
// gives: only the owner's token deletes the key, atomically.
var releaseScript = redis.NewScript(`if redis.call("get", KEYS[1]) == ARGV[1] then
	return redis.call("del", KEYS[1])
else
	return 0
end`)

// release runs releaseScript the way go-redis runs scripts: EVALSHA, and
// EVAL when the server answers NOSCRIPT.
func release(ctx context.Context, c *redis.Client, key, tok string) (bool, error) {
	n, err := releaseScript.Run(ctx, c, []string{key}, tok).Int()
	return n == 1, err
}

func testGoRedisLock(t *testing.T, target goredisTarget, proto int) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	a := newGoRedis(t, target, proto, func(o *redis.Options) { o.ClientName = "owner-a" })
	b := newGoRedis(t, target, proto, func(o *redis.Options) { o.DB = 3 })
	bDB0 := newGoRedis(t, target, proto, nil)

	if got, err := a.Ping(ctx).Result(); err != nil || got != "PONG" {
		t.Fatalf("PING: %q, %v", got, err)
	}
	wantResp := 3 // go-redis v9's default
	if proto == 2 {
		wantResp = 2
	}
	for _, c := range []*redis.Client{a, b, bDB0} {
		if info, err := c.ClientInfo(ctx).Result(); err != nil || info.Resp != wantResp {
			t.Fatalf("CLIENT INFO: %+v, %v; want resp=%d", info, err, wantResp)
		}
	}
	if got, err := a.ClientGetName(ctx).Result(); err != nil || got != "owner-a" {
		t.Errorf("CLIENT GETNAME after the handshake: %q, %v; want owner-a", got, err)
	}
	// Client b selected db 3 in its handshake: a key there is not in db 0.
	if err := b.Set(ctx, "db3-only", "x", 0).Err(); err != nil {
		t.Fatalf("SET on db 3: %v", err)
	}
	if n, err := bDB0.Exists(ctx, "db3-only").Result(); err != nil || n != 0 {
		t.Errorf("EXISTS db3-only on db 0: %d, %v; want 0", n, err)
	}
	b = bDB0

	key := "lock:" + token(t)
	tokA, tokB := token(t), token(t)

	// Acquire: SET NX with a whole-second lease (go-redis sends EX) and,
	// for the second key, with a millisecond lease (PX).
	if ok, err := a.SetNX(ctx, key, tokA, 10*time.Second).Result(); err != nil || !ok {
		t.Fatalf("a SET NX EX: %v, %v; want acquired", ok, err)
	}
	if ok, err := b.SetNX(ctx, key, tokB, 10*time.Second).Result(); err != nil || ok {
		t.Fatalf("b SET NX while a holds the lock: %v, %v; want refused", ok, err)
	}
	res, err := b.SetArgs(ctx, key, tokB, redis.SetArgs{Mode: "NX", TTL: 1500 * time.Millisecond}).Result()
	if err != redis.Nil {
		t.Errorf("b SET NX PX while held: %q, %v; want redis.Nil", res, err)
	}
	if got, err := b.Get(ctx, key).Result(); err != nil || got != tokA {
		t.Errorf("GET: %q, %v; want the owner's token %q", got, err, tokA)
	}
	if d, err := b.PTTL(ctx, key).Result(); err != nil || d <= 9*time.Second || d > 10*time.Second {
		t.Errorf("PTTL: %v, %v; want in (9s, 10s]", d, err)
	}
	if d, err := b.TTL(ctx, key).Result(); err != nil || d < 9*time.Second || d > 10*time.Second {
		t.Errorf("TTL: %v, %v; want 9s or 10s", d, err)
	}

	// Only the owner's token releases it.
	if ok, err := release(ctx, b, key, tokB); err != nil || ok {
		t.Errorf("release with b's token: %v, %v; want not released", ok, err)
	}
	if got, err := a.Get(ctx, key).Result(); err != nil || got != tokA {
		t.Errorf("GET after the wrong release: %q, %v; want %q", got, err, tokA)
	}
	if ok, err := release(ctx, a, key, tokA); err != nil || !ok {
		t.Errorf("release with a's token: %v, %v; want released", ok, err)
	}
	if ok, err := b.SetArgs(ctx, key, tokB, redis.SetArgs{Mode: "NX", TTL: 1500 * time.Millisecond}).Result(); err != nil || ok != "OK" {
		t.Errorf("b SET NX PX after release: %q, %v; want OK", ok, err)
	}
	if d, err := b.PTTL(ctx, key).Result(); err != nil || d <= 1000*time.Millisecond || d > 1500*time.Millisecond {
		t.Errorf("PTTL of a PX 1500 lease: %v, %v", d, err)
	}

	// Expiry frees the lock without anyone releasing it.
	key2 := "lock:" + token(t)
	if ok, err := a.SetNX(ctx, key2, tokA, target.lease).Result(); err != nil || !ok {
		t.Fatalf("a SET NX %v: %v, %v", target.lease, ok, err)
	}
	if ok, err := b.SetNX(ctx, key2, tokB, target.lease).Result(); err != nil || ok {
		t.Fatalf("b SET NX before expiry: %v, %v; want refused", ok, err)
	}
	target.expire(t)
	if n, err := b.Exists(ctx, key2).Result(); err != nil || n != 0 {
		t.Errorf("EXISTS after the lease: %d, %v; want 0", n, err)
	}
	if ok, err := b.SetNX(ctx, key2, tokB, target.lease).Result(); err != nil || !ok {
		t.Errorf("b SET NX after the lease ran out: %v, %v; want acquired", ok, err)
	}
	if ok, err := release(ctx, a, key2, tokA); err != nil || ok {
		t.Errorf("a releases a lock that expired and was taken by b: %v, %v; want not released", ok, err)
	}

	testGoRedisExclusion(ctx, t, target, proto)
}

// testGoRedisExclusion: workers on their own clients spin on SET NX and
// release with the script; a critical section spans several round trips
// and must never overlap another.
func testGoRedisExclusion(ctx context.Context, t *testing.T, target goredisTarget, proto int) {
	const workers, rounds = 5, 5
	key, counter := "mutex:"+token(t), "counter:"+token(t)
	var inside, overlaps atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < workers; i++ {
		c := newGoRedis(t, target, proto, nil)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := 0; r < rounds; r++ {
				tok := strconv.Itoa(i) + "-" + strconv.Itoa(r)
				for {
					ok, err := c.SetNX(ctx, key, tok, 10*time.Second).Result()
					if err != nil {
						t.Errorf("SET NX: %v", err)
						return
					}
					if ok {
						break
					}
					time.Sleep(time.Millisecond)
				}
				if inside.Add(1) != 1 {
					overlaps.Add(1)
				}
				if got, err := c.Get(ctx, key).Result(); err != nil || got != tok {
					t.Errorf("GET inside the critical section: %q, %v; want our token", got, err)
				}
				c.Incr(ctx, counter)
				inside.Add(-1)
				if ok, err := release(ctx, c, key, tok); err != nil || !ok {
					t.Errorf("release by the holder: %v, %v", ok, err)
				}
			}
		}()
	}
	wg.Wait()
	if overlaps.Load() != 0 {
		t.Errorf("%d critical sections overlapped", overlaps.Load())
	}
	c := newGoRedis(t, target, proto, nil)
	if n, err := c.Get(ctx, counter).Int(); err != nil || n != workers*rounds {
		t.Errorf("counter: %d, %v; want %d", n, err, workers*rounds)
	}
}
