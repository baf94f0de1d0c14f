package compat

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/lockredis/lockredis"
	"github.com/redis/go-redis/v9"
)

// TestGoAPISetError: a go-redis client sees SetError's text as the error
// of every command, on connections open before and made after it, in
// RESP2 and RESP3, in a transaction and in a script; SetError("") heals.
func TestGoAPISetError(t *testing.T) {
	ctx := context.Background()
	for _, proto := range []int{2, 3} {
		srv := startEmbedded(t, lockredis.Options{})
		srv.Set("k", "v")
		old := redis.NewClient(&redis.Options{Addr: srv.Addr(), Protocol: proto, MaxRetries: -1})
		defer old.Close()
		if err := old.Ping(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		srv.SetError("ERR injected failure")
		fresh := redis.NewClient(&redis.Options{Addr: srv.Addr(), Protocol: proto, MaxRetries: -1})
		defer fresh.Close()
		for name, c := range map[string]*redis.Client{"open before": old, "made after": fresh} {
			if err := c.Get(ctx, "k").Err(); err == nil || err.Error() != "ERR injected failure" {
				t.Errorf("RESP%d %s: GET error %v", proto, name, err)
			}
			if err := c.Set(ctx, "k", "w", 0).Err(); err == nil || err.Error() != "ERR injected failure" {
				t.Errorf("RESP%d %s: SET error %v", proto, name, err)
			}
			if err := c.Eval(ctx, "return 1", nil).Err(); err == nil || err.Error() != "ERR injected failure" {
				t.Errorf("RESP%d %s: EVAL error %v", proto, name, err)
			}
			_, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
				p.Incr(ctx, "n")
				return nil
			})
			if err == nil || err.Error() != "ERR injected failure" {
				t.Errorf("RESP%d %s: MULTI/EXEC error %v", proto, name, err)
			}
		}
		srv.CheckGet(t, "k", "v") // nothing ran
		srv.SetError("")
		for name, c := range map[string]*redis.Client{"open before": old, "made after": fresh} {
			if v, err := c.Get(ctx, "k").Result(); err != nil || v != "v" {
				t.Errorf("RESP%d %s: after SetError(\"\"): GET = %q, %v", proto, name, v, err)
			}
			if n, err := c.Incr(ctx, "n").Result(); err != nil || n < 1 {
				t.Errorf("RESP%d %s: after SetError(\"\"): INCR = %d, %v", proto, name, n, err)
			}
		}
	}
}

// TestGoAPIRestart: after Restart a go-redis client reconnects on its own
// (its pooled connection was closed) and finds the data, its expiry, and
// fencing tokens above the old ones; so it does after Close and Restart.
func TestGoAPIRestart(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name string
		opts func(dir string) lockredis.Options
	}{
		{"in memory", func(string) lockredis.Options { return lockredis.Options{} }},
		{"append only", func(dir string) lockredis.Options {
			return lockredis.Options{Dir: dir, AppendOnly: true, AppendFsync: "always"}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := startEmbedded(t, c.opts(t.TempDir()))
			client := redis.NewClient(&redis.Options{Addr: srv.Addr()})
			defer client.Close()
			if ok, err := client.SetNX(ctx, "lock", "owner-1", time.Minute).Result(); err != nil || !ok {
				t.Fatalf("SETNX = %v, %v", ok, err)
			}
			client.RPush(ctx, "list", "a", "b")
			token, err := client.Do(ctx, "LOCK.TOKEN", "lock").Int64()
			if err != nil {
				t.Fatal(err)
			}
			if err := srv.Restart(); err != nil {
				t.Fatal(err)
			}
			if v, err := client.Get(ctx, "lock").Result(); err != nil || v != "owner-1" {
				t.Fatalf("after Restart: GET = %q, %v", v, err)
			}
			if ttl, err := client.PTTL(ctx, "lock").Result(); err != nil || ttl <= 50*time.Second {
				t.Errorf("after Restart: PTTL = %v, %v", ttl, err)
			}
			if l, err := client.LRange(ctx, "list", 0, -1).Result(); err != nil || len(l) != 2 {
				t.Errorf("after Restart: LRANGE = %q, %v", l, err)
			}
			// The lock is still held: nobody else gets it.
			if ok, err := client.SetNX(ctx, "lock", "owner-2", time.Minute).Result(); err != nil || ok {
				t.Errorf("after Restart: SETNX of a held lock = %v, %v", ok, err)
			}
			client.SetNX(ctx, "lock2", "owner-2", time.Minute)
			if tok2, err := client.Do(ctx, "LOCK.TOKEN", "lock2").Int64(); err != nil || tok2 <= token {
				t.Errorf("a token after the restart = %d, %v; was %d before", tok2, err, token)
			}
			srv.Close()
			if conn, err := net.Dial("tcp", srv.Addr()); err == nil {
				conn.Close()
				t.Fatal("a closed server accepts connections")
			}
			if err := srv.Restart(); err != nil {
				t.Fatal(err)
			}
			if v, err := client.Get(ctx, "lock2").Result(); err != nil || v != "owner-2" {
				t.Errorf("after Close and Restart: GET = %q, %v", v, err)
			}
		})
	}
}
