package compat

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-redsync/redsync/v4"
	rsredis "github.com/go-redsync/redsync/v4/redis"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"
	"github.com/lockredis/lockredis"
	"github.com/redis/go-redis/v9"
)

// The Go examples of README.md and the docs/ pages (but the lock cookbook,
// cookbook_test.go). The pages show the regions between the "snippet:" and
// "end snippet" lines, and the root module's TestDocSnippets fails when a
// page and this file disagree.

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

func TestDocsManualClock(t *testing.T) {
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

// TestDocsClusterMode: docs/commands.md's cluster emulation example.
func TestDocsClusterMode(t *testing.T) {
	ctx := context.Background()
	// snippet: cluster
	srv := lockredis.NewServer(lockredis.Options{Cluster: true})
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	rdb := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{srv.Addr()}})
	defer rdb.Close()

	// One node owns every slot: locks on any key work...
	for _, key := range []string{"lock:a", "lock:b", "lock:c"} {
		if ok, err := rdb.SetNX(ctx, key, "w1", 30*time.Second).Result(); !ok || err != nil {
			t.Fatalf("SET NX %s: %v, %v", key, ok, err)
		}
	}
	// ...and a command over keys of two slots is refused, as in a cluster.
	if err := rdb.Do(ctx, "MSET", "lock:a", "1", "lock:b", "2").Err(); err == nil || !strings.HasPrefix(err.Error(), "CROSSSLOT") {
		t.Fatalf("MSET across slots: %v, want CROSSSLOT", err)
	}
	// end snippet
}

// TestDocsEmbeddedTLS: docs/operations.md's embedded TLS example, with
// files the test writes (server.crt, server.key, ca.crt, a client
// certificate).
func TestDocsEmbeddedTLS(t *testing.T) {
	ctx := context.Background()
	f := genTLSFiles(t)
	serverCrt, serverKey, caCrt := f.serverCert, f.serverKey, f.ca
	clientTLS := f.clientTLS(&f.client) // trusts ca.crt, presents client.crt
	// snippet: tls
	cfg, err := lockredis.TLSFiles{CertFile: serverCrt, KeyFile: serverKey, CACertFile: caCrt}.Config()
	if err != nil {
		t.Fatal(err)
	}
	srv := lockredis.NewServer(lockredis.Options{TLSConfig: cfg})
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	rdb := redis.NewClient(&redis.Options{Addr: srv.TLSAddr(), TLSConfig: clientTLS})
	defer rdb.Close()
	if ok, err := rdb.SetNX(ctx, "lock:job", "w1", 30*time.Second).Result(); !ok || err != nil {
		t.Fatalf("SET NX over TLS: %v, %v", ok, err)
	}
	// end snippet
	if v, _ := srv.Get("lock:job"); v != "w1" {
		t.Fatalf("lock:job = %q", v)
	}
}

// TestDocsUseModule follows docs/embedding.md's "Using the module from
// another module": a new module, a replace directive to this checkout,
// go mod tidy, and testdata/usemodule/main.go (the page's program) run.
func TestDocsUseModule(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	main, err := os.ReadFile("testdata/usemodule/main.go")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.go"), main, 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run("mod", "init", "example.com/t")
	run("mod", "edit", "-replace=github.com/lockredis/lockredis="+root)
	run("mod", "tidy")
	out := run("run", ".")
	if !strings.HasPrefix(out, "lockredis on 127.0.0.1:") || !strings.HasSuffix(out, " lock:job = worker-1\n") {
		t.Fatalf("go run printed %q", out)
	}
}
