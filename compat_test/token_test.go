package compat

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/go-redsync/redsync/v4"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"
	"github.com/lockredis/lockredis"
	"github.com/redis/go-redis/v9"
)

// TestFencingTokensSurviveKill9 runs the built binary through kill -9 and
// SIGTERM restarts, with and without --appendonly, while clients create
// locks: every token handed out is larger than every token of the runs
// before, and a key loaded from the append-only file keeps its token.
func TestFencingTokensSurviveKill9(t *testing.T) {
	for _, mode := range []struct {
		name string
		args []string
	}{
		{"memory", []string{"--restart-fence", "off"}},
		{"appendonly", []string{"--restart-fence", "off", "--appendonly", "yes", "--appendfsync", "always"}},
	} {
		t.Run(mode.name, func(t *testing.T) {
			n := newNode(t, "", mode.args...)
			ctx := context.Background()
			highest := int64(0)
			kept := map[string]int64{} // lock -> token, of locks still held
			for round := range 6 {
				n.start()
				c := n.client()
				for key, tok := range kept {
					if got, err := c.Do(ctx, "LOCK.TOKEN", key).Int64(); err != nil || got != tok {
						t.Errorf("round %d: %s token %d (%v), want %d kept from the file", round, key, got, err, tok)
					}
				}
				before, roundLow := highest, int64(0)
				var mu sync.Mutex
				var wg sync.WaitGroup
				for w := range 8 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for i := range 200 {
							key := "lock:" + strconv.Itoa(round) + ":" + strconv.Itoa(w) + ":" + strconv.Itoa(i)
							if ok, err := c.SetNX(ctx, key, "owner", time.Minute).Result(); err != nil || !ok {
								t.Errorf("SET NX %s: %v %v", key, ok, err)
								return
							}
							tok, err := c.Do(ctx, "LOCK.TOKEN", key).Int64()
							if err != nil {
								t.Errorf("LOCK.TOKEN %s: %v", key, err)
								return
							}
							mu.Lock()
							if roundLow == 0 || tok < roundLow {
								roundLow = tok
							}
							if tok > highest {
								highest = tok
							}
							if i == 0 {
								kept[key] = tok
							}
							mu.Unlock()
						}
					}()
				}
				wg.Wait()
				if t.Failed() {
					return
				}
				if roundLow <= before {
					t.Errorf("round %d handed out token %d, not above the %d of the runs before", round, roundLow, before)
				}
				if round%3 == 2 {
					n.term()
				} else {
					n.kill9()
				}
				if mode.name == "memory" {
					clear(kept) // nothing survives a restart without persistence
				}
				t.Logf("round %d: tokens from %d to %d", round, roundLow, highest)
			}
		})
	}
}

// TestFencingTokenOfARedsyncLock: a redsync holder can read the token of
// the lock it holds, and a resource can check it (LOCK.CHECK) until the
// lock is released and taken again with a larger token.
func TestFencingTokenOfARedsyncLock(t *testing.T) {
	srv := startEmbedded(t, lockredis.Options{})
	ctx := context.Background()
	c := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer c.Close()
	rs := redsync.New(goredis.NewPool(c))

	m := rs.NewMutex("job", redsync.WithExpiry(10*time.Second))
	if err := m.Lock(); err != nil {
		t.Fatal(err)
	}
	first, err := c.Do(ctx, "LOCK.TOKEN", "job").Int64()
	if err != nil || first <= 0 {
		t.Fatalf("LOCK.TOKEN of a held redsync lock: %d %v", first, err)
	}
	if ok, _ := c.Do(ctx, "LOCK.CHECK", "job", first).Int(); ok != 1 {
		t.Error("LOCK.CHECK with the holder's token: want 1")
	}
	if _, err := m.Extend(); err != nil {
		t.Fatal(err)
	}
	if tok, _ := c.Do(ctx, "LOCK.TOKEN", "job").Int64(); tok != first {
		t.Errorf("extending changed the token: %d, want %d", tok, first)
	}
	if _, err := m.Unlock(); err != nil {
		t.Fatal(err)
	}
	if ok, _ := c.Do(ctx, "LOCK.CHECK", "job", first).Int(); ok != 0 {
		t.Error("LOCK.CHECK after the release: want 0")
	}
	m2 := rs.NewMutex("job", redsync.WithExpiry(10*time.Second))
	if err := m2.Lock(); err != nil {
		t.Fatal(err)
	}
	second, _ := c.Do(ctx, "LOCK.TOKEN", "job").Int64()
	if second <= first {
		t.Errorf("the next holder's token %d is not larger than %d", second, first)
	}
	if ok, _ := c.Do(ctx, "LOCK.CHECK", "job", first).Int(); ok != 0 {
		t.Error("the old holder's token passes LOCK.CHECK")
	}
}
