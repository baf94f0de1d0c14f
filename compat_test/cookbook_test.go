package compat

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/go-redsync/redsync/v4"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"
	"github.com/lockredis/lockredis"
	"github.com/redis/go-redis/v9"
	"github.com/redis/rueidis"
	"github.com/redis/rueidis/rueidislock"
)

// The cookbook of docs/locks.md, for Go: each region between a "snippet:"
// line and "end snippet" is shown on the page (TestDocSnippets, in the root
// module, checks that page and file agree). The Node, Python and Ruby
// recipes are node/cookbook.js, python/cookbook.py and ruby/cookbook.rb,
// run by TestCookbookScripts.

// snippet: fenced-store
// fencedStore is a resource guarded by a lock: it remembers the largest
// fencing token it has seen and refuses writes that carry a smaller one,
// so a holder whose lease ran out while it stalled cannot overwrite the
// work of the next holder.
type fencedStore struct {
	mu      sync.Mutex
	largest int64
	data    string
}

func (s *fencedStore) Write(token int64, data string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if token < s.largest {
		return fmt.Errorf("stale token %d: %d was seen", token, s.largest)
	}
	s.largest, s.data = token, data
	return nil
}

// end snippet

func TestCookbookRedsync(t *testing.T) {
	srv := lockredis.RunT(t)
	addr := srv.Addr()
	store := &fencedStore{}
	// snippet: go-redsync
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: addr}) // lockredis's host:port
	defer rdb.Close()
	rs := redsync.New(goredis.NewPool(rdb))

	a := rs.NewMutex("lock:report", redsync.WithExpiry(10*time.Second))
	if err := a.Lock(); err != nil {
		t.Fatal(err)
	}
	// The lock's fencing token, sent with every write to the resource.
	tokenA, err := rdb.Do(ctx, "LOCK.TOKEN", "lock:report").Int64()
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Write(tokenA, "from a"); err != nil {
		t.Fatal(err)
	}

	// a stalls past its lease; b takes the lock and gets a larger token.
	srv.FastForward(11 * time.Second) // the test's way to let 11 s pass
	b := rs.NewMutex("lock:report", redsync.WithExpiry(10*time.Second))
	if err := b.Lock(); err != nil {
		t.Fatal(err)
	}
	tokenB, _ := rdb.Do(ctx, "LOCK.TOKEN", "lock:report").Int64()
	if tokenB <= tokenA {
		t.Fatalf("token %d after %d: tokens only grow", tokenB, tokenA)
	}
	if err := store.Write(tokenB, "from b"); err != nil {
		t.Fatal(err)
	}
	// a wakes up: the resource refuses its stale token...
	if err := store.Write(tokenA, "late from a"); err == nil {
		t.Fatal("a stale holder's write was accepted")
	}
	// ...and a resource that cannot keep tokens asks lockredis instead.
	if held, _ := rdb.Do(ctx, "LOCK.CHECK", "lock:report", tokenA).Bool(); held {
		t.Fatal("LOCK.CHECK accepted a's token after b took the lock")
	}
	if held, _ := rdb.Do(ctx, "LOCK.CHECK", "lock:report", tokenB).Bool(); !held {
		t.Fatal("LOCK.CHECK refused the holder's token")
	}
	// end snippet
	if store.data != "from b" {
		t.Fatalf("store holds %q", store.data)
	}
}

func TestCookbookGoWait(t *testing.T) {
	addr := lockredis.RunT(t).Addr()
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	defer rdb.Close()
	first, err := rdb.Do(ctx, "LOCK.ACQUIRE", "lock:report", "worker-1", 10000).Int64()
	if err != nil {
		t.Fatal(err)
	}
	// snippet: go-wait
	// worker-2 queues for the lock worker-1 holds, for up to 2 s. Keep the
	// WAIT shorter than the client's read timeout (go-redis: 3 s).
	granted := make(chan int64, 1)
	go func() {
		token, err := rdb.Do(ctx, "LOCK.ACQUIRE", "lock:report", "worker-2", 10000, "WAIT", 2000).Int64()
		if errors.Is(err, redis.Nil) {
			token = 0 // not granted within 2 s
		}
		granted <- token
	}()
	for queued := false; !queued; {
		info, _ := rdb.Do(ctx, "LOCK.INFO", "lock:report").Result() // RESP3: a map
		queued = info.(map[any]any)["waiters"] == int64(1)
	}
	// worker-1's release hands the lock to worker-2 in the same step.
	if n, _ := rdb.Do(ctx, "LOCK.RELEASE", "lock:report", "worker-1").Int(); n != 1 {
		t.Fatal("worker-1 did not hold the lock")
	}
	token := <-granted
	if owner, _ := rdb.Get(ctx, "lock:report").Result(); owner != "worker-2" || token == 0 {
		t.Fatalf("owner %q, token %d: want worker-2 granted", owner, token)
	}
	// end snippet
	if token <= first {
		t.Fatalf("worker-2's token %d is not above worker-1's %d", token, first)
	}
}

func TestCookbookRueidislock(t *testing.T) {
	addr := lockredis.RunT(t).Addr()
	// snippet: go-rueidislock
	locker, err := rueidislock.NewLocker(rueidislock.LockerOption{
		ClientOption: rueidis.ClientOption{InitAddress: []string{addr}}, // lockredis
		KeyMajority:  1,                                                 // one server: the lock is one key, rueidislock:0:<name>
	})
	if err != nil {
		t.Fatal(err)
	}
	defer locker.Close()

	ctx, cancel, err := locker.WithContext(context.Background(), "report")
	if err != nil {
		t.Fatal(err)
	}
	defer cancel() // releases the lock; ctx is done if the lock is lost
	client := locker.Client()
	token, err := client.Do(ctx, client.B().Arbitrary("LOCK.TOKEN").Keys("rueidislock:0:report").Build()).AsInt64()
	if err != nil || token <= 0 {
		t.Fatalf("LOCK.TOKEN: %d, %v", token, err)
	}
	// Another holder is refused while ctx lives.
	if _, _, err := locker.TryWithContext(context.Background(), "report"); !errors.Is(err, rueidislock.ErrNotLocked) {
		t.Fatalf("second holder: %v", err)
	}
	// LOCK.ACQUIRE ... WAIT through rueidis: mark it Blocking so that it
	// gets a connection of its own.
	wait := client.B().Arbitrary("LOCK.ACQUIRE").Keys("lock:other").Args("worker-1", "10000", "WAIT", "2000").Blocking()
	if t1, err := client.Do(context.Background(), wait).AsInt64(); err != nil || t1 <= token {
		t.Fatalf("LOCK.ACQUIRE WAIT on a free lock: %d, %v", t1, err)
	}
	// end snippet
}

// requireRubyRedis returns a ruby that can load redis-rb (Debian's
// ruby-redis).
func requireRubyRedis(t *testing.T) string {
	t.Helper()
	ruby, err := exec.LookPath("ruby")
	if err == nil && exec.Command(ruby, "-e", `require "redis"`).Run() == nil {
		return ruby
	}
	missingDep(t, "ruby's redis client not installed: apt-get install ruby ruby-redis")
	return ""
}

// TestCookbookScripts runs the Node, Python and Ruby recipes of
// docs/locks.md against an embedded lockredis, with the LOCK.INFO checks
// of the Node and Python rows of its layout table.
func TestCookbookScripts(t *testing.T) {
	for _, c := range []struct {
		dir, script string
		interpreter func(*testing.T) string
		want        []string
	}{
		{"node", "cookbook.js", requireNodeClients, []string{"redlock with fencing tokens", "wait and hand-over", "lock.info layouts"}},
		{"python", "cookbook.py", requireRedisPy, []string{"lock with fencing tokens", "wait and hand-over", "lock.info layout"}},
		{"ruby", "cookbook.rb", requireRubyRedis, []string{"lock with fencing tokens", "wait and hand-over"}},
	} {
		t.Run(c.dir, func(t *testing.T) {
			runClientScript(t, c.dir, c.interpreter(t), c.script, lockServers(t, "embedded", 1), c.want)
		})
	}
}
