package compat

import (
	"context"
	"testing"
	"time"

	"github.com/lockredis/lockredis"
	"github.com/redis/go-redis/v9"
)

// The embedding examples of README.md, kept here so they stay true. If you
// change one, change the other.

func TestReadmeEmbedded(t *testing.T) {
	srv := lockredis.RunT(t) // closed when the test ends
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

func TestReadmeManualClock(t *testing.T) {
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
}
