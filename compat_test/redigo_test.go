package compat

import (
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/lockredis/lockredis"
)

// redigoRelease is the compare-and-delete release, run the way redigo runs
// scripts: EVALSHA, then EVAL on NOSCRIPT.
var redigoRelease = redis.NewScript(1, `if redis.call("get", KEYS[1]) == ARGV[1] then
	return redis.call("del", KEYS[1])
else
	return 0
end`)

// TestRedigoLock: two redigo connections doing SET NX PX and the Lua
// compare-and-delete release, against the embedded server and the binary.
func TestRedigoLock(t *testing.T) {
	srv := startEmbedded(t, lockredis.Options{})
	targets := []struct {
		name, addr string
		expire     func()
		lease      string
	}{
		{"embedded", srv.Addr(), func() { srv.FastForward(2 * time.Second) }, "1000"},
		{"binary", startBinary(t), func() { time.Sleep(150 * time.Millisecond) }, "100"},
	}
	for _, tc := range targets {
		t.Run(tc.name, func(t *testing.T) {
			dial := func() redis.Conn {
				c, err := redis.Dial("tcp", tc.addr, redis.DialConnectTimeout(5*time.Second),
					redis.DialReadTimeout(5*time.Second))
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { c.Close() })
				return c
			}
			a, b := dial(), dial()
			key, tokA, tokB := "lock:"+token(t), token(t), token(t)

			if got, err := redis.String(a.Do("SET", key, tokA, "NX", "PX", "30000")); err != nil || got != "OK" {
				t.Fatalf("a acquires: %q, %v", got, err)
			}
			if got, err := b.Do("SET", key, tokB, "NX", "PX", "30000"); err != nil || got != nil {
				t.Fatalf("b acquires while a holds it: %v, %v; want nil", got, err)
			}
			if n, err := redis.Int(redigoRelease.Do(b, key, tokB)); err != nil || n != 0 {
				t.Fatalf("b releases a's lock: %d, %v; want 0", n, err)
			}
			if got, err := redis.String(b.Do("GET", key)); err != nil || got != tokA {
				t.Fatalf("owner after b's release: %q, %v; want a's token", got, err)
			}
			if n, err := redis.Int(redigoRelease.Do(a, key, tokA)); err != nil || n != 1 {
				t.Fatalf("a releases: %d, %v; want 1", n, err)
			}
			if got, err := redis.String(b.Do("SET", key, tokB, "NX", "PX", tc.lease)); err != nil || got != "OK" {
				t.Fatalf("b acquires after the release: %q, %v", got, err)
			}
			tc.expire()
			if got, err := redis.String(a.Do("SET", key, tokA, "NX", "PX", "30000")); err != nil || got != "OK" {
				t.Fatalf("a acquires after b's lease ran out: %q, %v", got, err)
			}
			if n, err := redis.Int(redigoRelease.Do(b, key, tokB)); err != nil || n != 0 {
				t.Fatalf("b releases after its lease ran out: %d, %v; want 0 (a holds it now)", n, err)
			}
		})
	}
}
