package compat

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-redsync/redsync/v4"
	rsredis "github.com/go-redsync/redsync/v4/redis"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"
	"github.com/lockredis/lockredis"
	"github.com/redis/go-redis/v9"
)

// The Go examples of README.md and docs/embedding.md. The pages show the
// regions between the "snippet:" and "end snippet" lines, and the root
// module's TestDocSnippets fails when a page and this file disagree.

// snippet: embedded
func TestLockExpires(t *testing.T) {
	srv := lockredis.RunT(t) // a free port on 127.0.0.1, closed when the test ends
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer rdb.Close()
	ctx := context.Background()

	ok, err := rdb.SetNX(ctx, "lock:job", "worker-1", 30*time.Second).Result()
	if err != nil || !ok {
		t.Fatalf("acquire: %v %v", ok, err)
	}
	srv.FastForward(31 * time.Second) // the lease runs out at once: no sleeping
	if n, _ := rdb.Exists(ctx, "lock:job").Result(); n != 0 {
		t.Fatal("the lock should have expired")
	}
}

// end snippet

func TestReadmeManualClock(t *testing.T) {
	// snippet: manual-clock
	srv := lockredis.NewServer(lockredis.Options{ManualClock: true})
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer rdb.Close()
	ctx := context.Background()

	rdb.Set(ctx, "lock:job", "worker-1", 10*time.Second)
	time.Sleep(20 * time.Millisecond) // real time passes; the server's clock does not
	if d, _ := rdb.PTTL(ctx, "lock:job").Result(); d != 10*time.Second {
		t.Fatalf("PTTL on a frozen clock: %v, want exactly 10s", d)
	}
	srv.FastForward(4 * time.Second)
	if d, _ := rdb.PTTL(ctx, "lock:job").Result(); d != 6*time.Second {
		t.Fatalf("PTTL after FastForward(4s): %v, want exactly 6s", d)
	}
	// end snippet
}

// TestReadmeLockClient: an unmodified redsync pointed at a lockredis
// address, as at a redis-server; the standalone binary here.
func TestReadmeLockClient(t *testing.T) {
	addr := startBinary(t)
	// snippet: lock-client
	rdb := redis.NewClient(&redis.Options{Addr: addr}) // lockredis's host:port
	defer rdb.Close()
	rs := redsync.New(goredis.NewPool(rdb))

	mutex := rs.NewMutex("lock:job", redsync.WithExpiry(10*time.Second))
	if err := mutex.Lock(); err != nil {
		t.Fatal(err)
	}
	// A second holder is refused while the first holds it.
	var taken *redsync.ErrTaken
	if err := rs.NewMutex("lock:job").TryLock(); !errors.As(err, &taken) {
		t.Fatalf("second holder: %v, want ErrTaken", err)
	}
	// lockredis's own: the lock's fencing token, for the resource it guards.
	token, err := rdb.Do(context.Background(), "LOCK.TOKEN", "lock:job").Int64()
	if err != nil || token <= 0 {
		t.Fatalf("LOCK.TOKEN: %d, %v", token, err)
	}
	if ok, err := mutex.Unlock(); !ok || err != nil {
		t.Fatalf("unlock: %v, %v", ok, err)
	}
	// end snippet
}

// TestReadmeRedlock: Redlock over five embedded instances keeps its
// majority with one node down.
func TestReadmeRedlock(t *testing.T) {
	// snippet: redlock
	nodes := lockredis.RunCluster(t, 5) // five independent servers
	var pools []rsredis.Pool
	for _, addr := range nodes.Addrs() {
		rdb := redis.NewClient(&redis.Options{Addr: addr})
		defer rdb.Close()
		pools = append(pools, goredis.NewPool(rdb))
	}
	rs := redsync.New(pools...)
	nodes[4].Close() // one node down: 4 of 5 is still a majority

	mutex := rs.NewMutex("lock:job", redsync.WithExpiry(10*time.Second))
	if err := mutex.Lock(); err != nil {
		t.Fatal(err)
	}
	if err := rs.NewMutex("lock:job").TryLock(); err == nil {
		t.Fatal("a second holder got the lock")
	}
	for _, n := range nodes[:4] {
		n.FastForward(11 * time.Second) // the lease runs out on every live node
	}
	if err := rs.NewMutex("lock:job").TryLock(); err != nil {
		t.Fatalf("after expiry: %v", err)
	}
	// end snippet
}
