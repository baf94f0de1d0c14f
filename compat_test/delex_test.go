package compat

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/lockredis/lockredis"
	"github.com/redis/go-redis/v9"
	"github.com/zeebo/xxh3"
)

// DELEX, DIGEST, SET IFEQ... (Redis 8.4) and DELIFEQ (Valkey 9.0) are
// newer than redis-server 7.0, so there is no differential test for them:
// these tests drive them with go-redis v9's own helpers (DelExArgs, Digest,
// SetIFEQ, SetIFDEQ...), as a lock client would, against the embedded
// server, and check the raw replies against redis.io's documentation.

// TestGoRedisCompareAndDelete releases a lock with DELEX IFEQ and with
// DELEX IFDEQ (the digest computed on the client, as go-redis's example
// does), renews it with SET IFEQ / SET IFDEQ, in RESP2 and RESP3: a
// client holding the wrong token can neither renew nor delete; the owner
// can.
func TestGoRedisCompareAndDelete(t *testing.T) {
	srv := startEmbedded(t, lockredis.Options{})
	target := goredisTarget{name: "embedded", addr: srv.Addr()}
	for _, proto := range []int{2, 3} {
		t.Run("proto="+strconv.Itoa(proto), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			owner := newGoRedis(t, target, proto, nil)
			other := newGoRedis(t, target, proto, nil)
			if info, err := owner.ClientInfo(ctx).Result(); err != nil || info.Resp != proto {
				t.Fatalf("CLIENT INFO: %+v, %v; want resp=%d", info, err, proto)
			}
			key := "lock:delex:" + strconv.Itoa(proto)
			mine, theirs := token(t), token(t)

			acquire := func() {
				t.Helper()
				if ok, err := owner.SetNX(ctx, key, mine, 30*time.Second).Result(); err != nil || !ok {
					t.Fatalf("acquire: %v %v", ok, err)
				}
			}
			held := func(want bool) {
				t.Helper()
				n, err := owner.Exists(ctx, key).Result()
				if err != nil || (n == 1) != want {
					t.Fatalf("EXISTS %s = %d, %v; want held=%v", key, n, err, want)
				}
			}

			// Release by value.
			acquire()
			if n, err := other.DelExArgs(ctx, key, redis.DelExArgs{Mode: "IFEQ", MatchValue: theirs}).Result(); err != nil || n != 0 {
				t.Fatalf("DELEX IFEQ wrong token: %d, %v", n, err)
			}
			held(true)
			if n, err := owner.DelExArgs(ctx, key, redis.DelExArgs{Mode: "IFEQ", MatchValue: mine}).Result(); err != nil || n != 1 {
				t.Fatalf("DELEX IFEQ owner: %d, %v", n, err)
			}
			held(false)
			if n, err := owner.DelExArgs(ctx, key, redis.DelExArgs{Mode: "IFEQ", MatchValue: mine}).Result(); err != nil || n != 0 {
				t.Fatalf("DELEX IFEQ released lock: %d, %v", n, err)
			}

			// Renew by value: SET IFEQ keeps the lock only for its owner.
			acquire()
			if err := other.SetIFEQ(ctx, key, theirs, theirs, time.Minute).Err(); !errors.Is(err, redis.Nil) {
				t.Fatalf("SET IFEQ wrong token: %v, want redis.Nil", err)
			}
			if err := owner.SetIFEQ(ctx, key, mine, mine, time.Minute).Err(); err != nil {
				t.Fatalf("SET IFEQ owner: %v", err)
			}
			if ttl, err := owner.TTL(ctx, key).Result(); err != nil || ttl <= 30*time.Second {
				t.Fatalf("TTL after renewal: %v, %v", ttl, err)
			}
			if old, err := other.SetIFNEGet(ctx, key, theirs, mine, 0).Result(); err != nil || old != mine {
				t.Fatalf("SET IFNE GET: %q, %v (the old value, not set)", old, err)
			}

			// Release by digest: DIGEST is XXH3-64 of the token, the same
			// number the client computes.
			d, err := owner.Digest(ctx, key).Result()
			if err != nil || d != xxh3.HashString(mine) {
				t.Fatalf("DIGEST: %016x, %v; want %016x", d, err, xxh3.HashString(mine))
			}
			if err := other.SetIFDEQ(ctx, key, theirs, xxh3.HashString(theirs), 0).Err(); !errors.Is(err, redis.Nil) {
				t.Fatalf("SET IFDEQ wrong digest: %v, want redis.Nil", err)
			}
			if n, err := other.DelExArgs(ctx, key, redis.DelExArgs{Mode: "IFDEQ", MatchDigest: xxh3.HashString(theirs)}).Result(); err != nil || n != 0 {
				t.Fatalf("DELEX IFDEQ wrong digest: %d, %v", n, err)
			}
			held(true)
			if n, err := owner.DelExArgs(ctx, key, redis.DelExArgs{Mode: "IFDEQ", MatchDigest: d}).Result(); err != nil || n != 1 {
				t.Fatalf("DELEX IFDEQ owner: %d, %v", n, err)
			}
			held(false)
			if err := owner.Digest(ctx, key).Err(); !errors.Is(err, redis.Nil) {
				t.Fatalf("DIGEST of a missing key: %v, want redis.Nil", err)
			}

			// Valkey's DELIFEQ, which go-redis has no helper for.
			acquire()
			if n, err := other.Do(ctx, "DELIFEQ", key, theirs).Int(); err != nil || n != 0 {
				t.Fatalf("DELIFEQ wrong token: %d, %v", n, err)
			}
			if n, err := owner.Do(ctx, "DELIFEQ", key, mine).Int(); err != nil || n != 1 {
				t.Fatalf("DELIFEQ owner: %d, %v", n, err)
			}
			held(false)

			// From a script, through redis.call.
			acquire()
			release := `return redis.call('DELEX', KEYS[1], 'IFEQ', ARGV[1])`
			if n, err := other.Eval(ctx, release, []string{key}, theirs).Int(); err != nil || n != 0 {
				t.Fatalf("EVAL DELEX wrong token: %d, %v", n, err)
			}
			if n, err := owner.Eval(ctx, release, []string{key}, mine).Int(); err != nil || n != 1 {
				t.Fatalf("EVAL DELEX owner: %d, %v", n, err)
			}
			held(false)

			// Inside MULTI/EXEC.
			acquire()
			cmds, err := owner.TxPipelined(ctx, func(p redis.Pipeliner) error {
				p.Digest(ctx, key)
				p.DelExArgs(ctx, key, redis.DelExArgs{Mode: "IFNE", MatchValue: mine})
				p.DelExArgs(ctx, key, redis.DelExArgs{Mode: "IFDNE", MatchDigest: xxh3.HashString(theirs)})
				return nil
			})
			if err != nil || len(cmds) != 3 || cmds[0].(*redis.DigestCmd).Val() != xxh3.HashString(mine) ||
				cmds[1].(*redis.IntCmd).Val() != 0 || cmds[2].(*redis.IntCmd).Val() != 1 {
				t.Fatalf("MULTI/EXEC: %v, %v", cmds, err)
			}
			held(false)

			// Errors: a list is not a string, a digest has 16 hex digits.
			if err := owner.RPush(ctx, key, mine).Err(); err != nil {
				t.Fatal(err)
			}
			if err := owner.DelExArgs(ctx, key, redis.DelExArgs{Mode: "IFEQ", MatchValue: mine}).Err(); err == nil ||
				err.Error() != "WRONGTYPE Operation against a key holding the wrong kind of value" {
				t.Fatalf("DELEX IFEQ on a list: %v", err)
			}
			if err := owner.Del(ctx, key).Err(); err != nil {
				t.Fatal(err)
			}
			if err := owner.Set(ctx, key, mine, 0).Err(); err != nil {
				t.Fatal(err)
			}
			if err := owner.Do(ctx, "DELEX", key, "IFDEQ", "1234").Err(); err == nil ||
				err.Error() != "ERR must be exactly 16 hexadecimal characters" {
				t.Fatalf("DELEX IFDEQ short digest: %v", err)
			}
			owner.Del(ctx, key)
		})
	}
}

// TestDelExRawReplies checks the bytes of each reply in RESP2 and RESP3:
// DIGEST a bulk string of 16 lowercase hex digits or the protocol's null,
// DELEX and DELIFEQ integers, SET IFEQ OK or null, and the errors.
func TestDelExRawReplies(t *testing.T) {
	srv := startEmbedded(t, lockredis.Options{})
	helloWorld := "b6acb9d84a38ff74" // redis.io's DIGEST example
	for _, proto := range []string{"2", "3"} {
		t.Run("RESP"+proto, func(t *testing.T) {
			c := dialRaw(t, srv.Addr())
			null := "$-1\r\n"
			if proto == "3" {
				c.do(t, "HELLO", "3")
				null = "_\r\n"
			}
			c.do(t, "DEL", "k", "l")
			for _, st := range []struct {
				args []string
				want string
			}{
				{[]string{"DIGEST", "k"}, null},
				{[]string{"SET", "k", "Hello world"}, "+OK\r\n"},
				{[]string{"DIGEST", "k"}, "$16\r\n" + helloWorld + "\r\n"},
				{[]string{"SET", "k", "x", "IFDEQ", "B6ACB9D84A38FF74", "GET"}, "$11\r\nHello world\r\n"},
				{[]string{"SET", "k", "y", "IFEQ", "Hello world"}, null},
				{[]string{"SET", "k", "y", "IFEQ", "x", "PX", "5000"}, "+OK\r\n"},
				{[]string{"DELEX", "k", "IFNE", "y"}, ":0\r\n"},
				{[]string{"DELEX", "k", "IFDNE", helloWorld}, ":1\r\n"},
				{[]string{"DELEX", "k"}, ":0\r\n"},
				{[]string{"DELIFEQ", "k", "y"}, ":0\r\n"},
				{[]string{"RPUSH", "l", "a"}, ":1\r\n"},
				{[]string{"DIGEST", "l"}, "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"},
				{[]string{"DELIFEQ", "l", "a"}, "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"},
				{[]string{"DELEX", "l", "IFEQ"}, "-ERR syntax error\r\n"},
				{[]string{"SET", "l", "v", "NX", "IFEQ", "a"}, "-ERR syntax error\r\n"},
				{[]string{"SET", "l", "v", "IFDNE", "xyz"}, "-ERR must be exactly 16 hexadecimal characters\r\n"},
				{[]string{"DELEX", "l"}, ":1\r\n"},
			} {
				if got := c.do(t, st.args...); got != st.want {
					t.Errorf("%q: got %q, want %q", st.args, got, st.want)
				}
			}
		})
	}
}

// Example-style check that go-redis's hex formatting of a digest (%016x)
// and the server's agree for a digest with leading zeros
// (redis/redis#14496's value).
func TestDigestLeadingZeros(t *testing.T) {
	srv := startEmbedded(t, lockredis.Options{})
	ctx := context.Background()
	c := newGoRedis(t, goredisTarget{addr: srv.Addr()}, 3, nil)
	v := "v8lf0c11xh8ymlqztfd3eeq16kfn4sspw7fqmnuuq3k3t75em5wdizgcdw7uc26nnf961u2jkfzkjytls2kwlj7626sd"
	if err := c.Set(ctx, "z", v, 0).Err(); err != nil {
		t.Fatal(err)
	}
	raw, err := c.Do(ctx, "DIGEST", "z").Text()
	if err != nil || raw != "00006c38adf31777" || raw != fmt.Sprintf("%016x", xxh3.HashString(v)) {
		t.Fatalf("DIGEST: %q, %v", raw, err)
	}
	if n, err := c.DelExArgs(ctx, "z", redis.DelExArgs{Mode: "IFDEQ", MatchDigest: xxh3.HashString(v)}).Result(); err != nil || n != 1 {
		t.Fatalf("DELEX IFDEQ: %d, %v", n, err)
	}
}
