package compat

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/MaricoHan/redisson"
	"github.com/MaricoHan/redisson/mutex"
	"github.com/bsm/redislock"
	godisson "github.com/cheerego/go-redisson"
	"github.com/go-redsync/redsync/v4"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"
	"github.com/lockredis/lockredis"
	"github.com/redis/rueidis"
	"github.com/redis/rueidis/rueidislock"
)

// TestLockInfoLayouts: what LOCK.INFO says about the lock each unmodified
// Go client leaves, the table "How each client's lock looks to LOCK.INFO"
// of docs/locks.md (node/cookbook.js and python/cookbook.py check the Node
// and Python rows).
func TestLockInfoLayouts(t *testing.T) {
	srv := lockredis.RunT(t)
	addr := srv.Addr()
	ctx := context.Background()
	peek := rsClient(t, addr)

	type want struct {
		kind      string
		reentries any // nil, or the int64 sum of a Redisson hash's counts
		session   bool
		acquired  bool // acquired_at set
	}
	cases := []struct {
		client string
		// take locks key with the client; it returns the key the client
		// used and its owners, or nil when any one owner will do.
		take func(t *testing.T, key string) (lockKey string, owners []string)
		want want
	}{
		{"LOCK.ACQUIRE", func(t *testing.T, key string) (string, []string) {
			peek.Do(ctx, "LOCK.ACQUIRE", key, "worker-1", 30000)
			return key, []string{"worker-1"}
		}, want{kind: "string", acquired: true}},
		{"redsync", func(t *testing.T, key string) (string, []string) {
			m := redsync.New(goredis.NewPool(peek)).NewMutex(key)
			if err := m.Lock(); err != nil {
				t.Fatal(err)
			}
			return key, []string{m.Value()}
		}, want{kind: "string"}},
		{"bsm/redislock", func(t *testing.T, key string) (string, []string) {
			l, err := redislock.New(peek).Obtain(ctx, key, 30*time.Second, nil)
			if err != nil {
				t.Fatal(err)
			}
			return key, []string{l.Token()}
		}, want{kind: "string"}},
		{"rueidislock", func(t *testing.T, key string) (string, []string) {
			l, err := rueidislock.NewLocker(rueidislock.LockerOption{
				ClientOption: rueidis.ClientOption{InitAddress: []string{addr}}, KeyMajority: 1})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(l.Close)
			if _, _, err := l.WithContext(ctx, key); err != nil {
				t.Fatal(err)
			}
			return "rueidislock:0:" + key, nil
		}, want{kind: "string"}},
		{"cheerego/go-redisson RLock, taken twice", func(t *testing.T, key string) (string, []string) {
			l := godisson.NewGodisson(v8Client(t, addr)).NewRLock(key)
			for range 2 {
				if err := l.TryLock(0, 30000); err != nil {
					t.Fatal(err)
				}
			}
			return key, nil
		}, want{kind: "redisson", reentries: int64(2)}},
		{"MaricoHan/redisson Mutex", func(t *testing.T, key string) (string, []string) {
			if err := redisson.New(v8Client(t, addr)).NewMutex(key, mutex.WithExpireDuration(30*time.Second)).Lock(); err != nil {
				t.Fatal(err)
			}
			return key, nil
		}, want{kind: "string"}},
		{"MaricoHan/redisson RWMutex, one reader", func(t *testing.T, key string) (string, []string) {
			if err := redisson.New(v8Client(t, addr)).NewRWMutex(key, mutex.WithExpireDuration(30*time.Second)).RLock(); err != nil {
				t.Fatal(err)
			}
			return key, nil
		}, want{kind: "redisson", reentries: int64(1)}},
	}
	for _, c := range cases {
		t.Run(c.client, func(t *testing.T) {
			key, owners := c.take(t, "layout:"+token(t))
			reply, err := peek.Do(ctx, "LOCK.INFO", key).Result()
			if err != nil {
				t.Fatalf("LOCK.INFO %s: %v", key, err)
			}
			info := reply.(map[any]any)
			var got []string
			for _, o := range info["owners"].([]any) {
				got = append(got, o.(string))
			}
			switch {
			case info["kind"] != c.want.kind:
				t.Errorf("kind %v, want %s (%v)", info["kind"], c.want.kind, info)
			case owners != nil && !slices.Equal(got, owners):
				t.Errorf("owners %q, want %q", got, owners)
			case owners == nil && len(got) != 1:
				t.Errorf("owners %q, want one", got)
			case info["reentries"] != c.want.reentries:
				t.Errorf("reentries %v, want %v", info["reentries"], c.want.reentries)
			case info["session"] != c.want.session:
				t.Errorf("session %v", info["session"])
			case (info["acquired_at"] != nil) != c.want.acquired:
				t.Errorf("acquired_at %v", info["acquired_at"])
			case info["token"].(int64) <= 0 || info["ttl"].(int64) <= 0:
				t.Errorf("token %v, ttl %v: want both positive", info["token"], info["ttl"])
			}
			t.Logf("%s: %s -> %v", c.client, key, info)
			if c.want.kind == "redisson" && !strings.Contains(got[0], ":") {
				t.Errorf("a Redisson owner is uuid:thread, got %q", got[0])
			}
		})
	}
}
