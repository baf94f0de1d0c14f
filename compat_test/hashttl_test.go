package compat

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lockredis/lockredis"
	"github.com/redis/go-redis/v9"
)

// Hash field expiry (HEXPIRE... of Redis 7.4, HGETDEL, HGETEX, HSETEX of
// Redis 8.0) is newer than redis-server 7.0, so there is no differential
// test for it: these tests check the raw reply bytes in RESP2 and RESP3
// (also inside MULTI and EVAL) against Redis's source and redis.io, drive
// the commands with go-redis v9's helpers as a client would, and watch
// fields expire in real time over a socket.

// TestHashTTLRawReplies checks the bytes of every command's replies and
// errors, in RESP2 and RESP3, in MULTI and in a script.
func TestHashTTLRawReplies(t *testing.T) {
	srv := startEmbedded(t, lockredis.Options{})
	const wrongType = "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"
	for _, proto := range []string{"2", "3"} {
		t.Run("RESP"+proto, func(t *testing.T) {
			c := dialRaw(t, srv.Addr())
			null := "$-1\r\n"
			if proto == "3" {
				c.do(t, "HELLO", "3")
				null = "_\r\n"
			}
			c.do(t, "DEL", "h", "s", "n")
			for _, st := range []struct {
				args []string
				want string
			}{
				{cmdArgs("HSET h a 1 b 2 c 3"), ":3\r\n"},
				{cmdArgs("SET s x"), "+OK\r\n"},
				{cmdArgs("HEXPIRE h 100 FIELDS 2 a x"), "*2\r\n:1\r\n:-2\r\n"},
				{cmdArgs("HEXPIRE h 100 NX FIELDS 1 a"), "*1\r\n:0\r\n"},
				{cmdArgs("HPEXPIRE h 200000 GT FIELDS 1 a"), "*1\r\n:1\r\n"},
				{cmdArgs("HEXPIREAT h 4000000000 XX FIELDS 1 a"), "*1\r\n:1\r\n"},
				{cmdArgs("HPEXPIREAT h 4000000000000 LT FIELDS 1 a"), "*1\r\n:0\r\n"},
				{cmdArgs("HEXPIRETIME h FIELDS 3 a b x"), "*3\r\n:4000000000\r\n:-1\r\n:-2\r\n"},
				{cmdArgs("HPEXPIRETIME h FIELDS 1 a"), "*1\r\n:4000000000000\r\n"},
				{cmdArgs("HPERSIST h FIELDS 3 a b x"), "*3\r\n:1\r\n:-1\r\n:-2\r\n"},
				{cmdArgs("HTTL h FIELDS 1 a"), "*1\r\n:-1\r\n"},
				{cmdArgs("HPTTL nokey FIELDS 1 a"), "*1\r\n:-2\r\n"},
				{cmdArgs("HEXPIRE h 0 FIELDS 1 c"), "*1\r\n:2\r\n"},
				{cmdArgs("HGETEX h EX 100 FIELDS 2 a x"), "*2\r\n$1\r\n1\r\n" + null},
				{cmdArgs("HGETEX h PERSIST FIELDS 1 a"), "*1\r\n$1\r\n1\r\n"},
				{cmdArgs("HSETEX h FNX PX 100000 FIELDS 1 c 3"), ":1\r\n"},
				{cmdArgs("HSETEX h FNX PX 100000 FIELDS 1 c 3"), ":0\r\n"},
				{cmdArgs("HGETDEL h FIELDS 2 c x"), "*2\r\n$1\r\n3\r\n" + null},
				{cmdArgs("HGETDEL nokey FIELDS 1 a"), "*1\r\n" + null},
				{cmdArgs("HEXPIRE s 1 FIELDS 1 a"), wrongType},
				{cmdArgs("HTTL s FIELDS 1 a"), wrongType},
				{cmdArgs("HPERSIST s FIELDS 1 a"), wrongType},
				{cmdArgs("HGETDEL s FIELDS 1 a"), wrongType},
				{cmdArgs("HGETEX s FIELDS 1 a"), wrongType},
				{cmdArgs("HSETEX s FIELDS 1 a 1"), wrongType},
				{cmdArgs("HEXPIRE h 1 FIELDS 1"), "-ERR wrong number of arguments for 'hexpire' command\r\n"},
				{cmdArgs("HEXPIRE h x FIELDS 1 a"), "-ERR value is not an integer or out of range\r\n"},
				{cmdArgs("HEXPIRE h -1 FIELDS 1 a"), "-ERR invalid expire time, must be >= 0\r\n"},
				{cmdArgs("HPEXPIRE h 70368744177663 FIELDS 1 a"), "-ERR invalid expire time in 'hpexpire' command\r\n"},
				{cmdArgs("HEXPIRE h 1 FIELD 1 a"), "-ERR Mandatory argument FIELDS is missing or not at the right position\r\n"},
				{cmdArgs("HEXPIRE h 1 FIELDS 0 a"), "-ERR Parameter `numFields` should be greater than 0\r\n"},
				{cmdArgs("HEXPIRE h 1 FIELDS 2 a"), "-ERR The `numfields` parameter must match the number of arguments\r\n"},
				{cmdArgs("HTTL h FIELDS -1 a"), "-ERR Number of fields must be a positive integer\r\n"},
				{cmdArgs("HGETEX h KEEPTTL FIELDS 1 a"), "-ERR Mandatory argument FIELDS is missing or not at the right position\r\n"},
				{cmdArgs("HSETEX h FIELDS 0 a 1"), "-ERR invalid number of fields\r\n"},
				{cmdArgs("HSETEX h FIELDS 2 a 1"), "-ERR wrong number of arguments for 'hsetex' command\r\n"},
				{cmdArgs("HSETEX h FNX FXX FIELDS 1 a 1"), "-ERR Only one of FXX or FNX arguments can be specified\r\n"},
				{cmdArgs("HSETEX h EX 1 KEEPTTL FIELDS 1 a 1"), "-ERR Only one of EX, PX, EXAT, PXAT or KEEPTTL arguments can be specified\r\n"},
				{cmdArgs("HSETEX h GET FIELDS 1 a 1"), "-ERR unknown argument: GET\r\n"},
				// In a transaction and in a script.
				{cmdArgs("MULTI"), "+OK\r\n"},
				{cmdArgs("HEXPIRE h 100 FIELDS 1 a"), "+QUEUED\r\n"},
				{cmdArgs("HTTL h FIELDS 1 a"), "+QUEUED\r\n"},
				{cmdArgs("HSETEX h FIELDS 1 a 9"), "+QUEUED\r\n"},
				{cmdArgs("HGETDEL h FIELDS 1 a"), "+QUEUED\r\n"},
				{cmdArgs("EXEC"), "*4\r\n*1\r\n:1\r\n*1\r\n:100\r\n:1\r\n*1\r\n$1\r\n9\r\n"},
				{cmdArgs("MULTI"), "+OK\r\n"},
				{cmdArgs("HEXPIRE h 1 FIELDS 0 a"), "+QUEUED\r\n"}, // argument errors show at EXEC
				{cmdArgs("HEXPIRE h 1"), "-ERR wrong number of arguments for 'hexpire' command\r\n"},
				{cmdArgs("EXEC"), "-EXECABORT Transaction discarded because of previous errors.\r\n"},
				{[]string{"EVAL", "return redis.call('HPEXPIREAT', KEYS[1], 4000000000000, 'FIELDS', 2, 'b', 'zz')", "1", "h"}, "*2\r\n:1\r\n:-2\r\n"},
				{[]string{"EVAL", "return redis.call('HPEXPIRETIME', KEYS[1], 'FIELDS', 1, 'b')", "1", "h"}, "*1\r\n:4000000000000\r\n"},
				{[]string{"EVAL", "return redis.call('HSETEX', KEYS[1], 'KEEPTTL', 'FIELDS', 1, 'b', 'v')", "1", "h"}, ":1\r\n"},
				{[]string{"EVAL", "return redis.call('HGETEX', KEYS[1], 'PERSIST', 'FIELDS', 1, 'b')", "1", "h"}, "*1\r\n$1\r\nv\r\n"},
				{[]string{"EVAL", "return redis.pcall('HPERSIST', KEYS[1], 'FIELDS', 2, 'b')", "1", "h"}, "-ERR The `numfields` parameter must match the number of arguments\r\n"},
				{[]string{"EVAL", "return redis.call('HGETDEL', KEYS[1], 'FIELDS', 1, 'b')", "1", "h"}, "*1\r\n$1\r\nv\r\n"},
				{cmdArgs("EXISTS h"), ":0\r\n"},
			} {
				if got := c.do(t, st.args...); got != st.want {
					t.Errorf("%q: got %q, want %q", st.args, got, st.want)
				}
			}
		})
	}
}

func cmdArgs(s string) []string { return strings.Fields(s) }

// TestGoRedisHashFieldExpiry drives every command through go-redis v9's
// helpers, in RESP2 and RESP3, and watches fields expire.
func TestGoRedisHashFieldExpiry(t *testing.T) {
	srv := startEmbedded(t, lockredis.Options{})
	target := goredisTarget{name: "embedded", addr: srv.Addr()}
	for _, proto := range []int{2, 3} {
		t.Run("proto="+strconv.Itoa(proto), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			c := newGoRedis(t, target, proto, nil)
			key := "hfe:" + strconv.Itoa(proto)
			ints := func(what string, cmd *redis.IntSliceCmd, want ...int64) {
				t.Helper()
				got, err := cmd.Result()
				if err != nil || len(got) != len(want) {
					t.Fatalf("%s: %v, %v; want %v", what, got, err, want)
				}
				for i := range want {
					if got[i] != want[i] {
						t.Fatalf("%s: %v; want %v", what, got, want)
					}
				}
			}
			c.Del(ctx, key)
			if err := c.HSet(ctx, key, "a", "1", "b", "2", "c", "3").Err(); err != nil {
				t.Fatal(err)
			}
			ints("HExpire", c.HExpire(ctx, key, time.Minute, "a", "nope"), 1, -2)
			ints("HExpireWithArgs NX", c.HExpireWithArgs(ctx, key, time.Hour, redis.HExpireArgs{NX: true}, "a", "b"), 0, 1)
			ints("HPExpireWithArgs GT", c.HPExpireWithArgs(ctx, key, 2*time.Hour, redis.HExpireArgs{GT: true}, "a"), 1)
			ints("HExpireAtWithArgs LT", c.HExpireAtWithArgs(ctx, key, time.Now().Add(time.Minute), redis.HExpireArgs{LT: true}, "a"), 1)
			ints("HPExpireAt", c.HPExpireAt(ctx, key, time.Now().Add(time.Hour), "b"), 1)
			ttl, err := c.HTTL(ctx, key, "a", "c").Result()
			if err != nil || ttl[0] < 58 || ttl[0] > 60 || ttl[1] != -1 {
				t.Fatalf("HTTL: %v, %v", ttl, err)
			}
			pttl, err := c.HPTTL(ctx, key, "b").Result()
			if err != nil || pttl[0] < 3590000 || pttl[0] > 3600000 {
				t.Fatalf("HPTTL: %v, %v", pttl, err)
			}
			at, err := c.HExpireTime(ctx, key, "a").Result()
			if now := time.Now().Unix(); err != nil || at[0] < now+58 || at[0] > now+61 {
				t.Fatalf("HExpireTime: %v, %v", at, err)
			}
			if pat, err := c.HPExpireTime(ctx, key, "c").Result(); err != nil || pat[0] != -1 {
				t.Fatalf("HPExpireTime: %v, %v", pat, err)
			}
			ints("HPersist", c.HPersist(ctx, key, "a", "c", "nope"), 1, -1, -2)

			vals, err := c.HGetEXWithArgs(ctx, key, &redis.HGetEXOptions{ExpirationType: redis.HGetEXExpirationPX, ExpirationVal: 150}, "a", "c").Result()
			if err != nil || strings.Join(vals, ",") != "1,3" {
				t.Fatalf("HGetEXWithArgs PX: %q, %v", vals, err)
			}
			if vals, err = c.HGetEX(ctx, key, "a").Result(); err != nil || vals[0] != "1" {
				t.Fatalf("HGetEX: %q, %v", vals, err)
			}
			n, err := c.HSetEXWithArgs(ctx, key, &redis.HSetEXOptions{Condition: redis.HSetEXFNX, ExpirationType: redis.HSetEXExpirationPX, ExpirationVal: 150}, "d", "4").Result()
			if err != nil || n != 1 {
				t.Fatalf("HSetEXWithArgs FNX PX: %d, %v", n, err)
			}
			if n, err = c.HSetEX(ctx, key, "e", "5").Result(); err != nil || n != 1 {
				t.Fatalf("HSetEX: %d, %v", n, err)
			}
			// a, c, d expire within 150 ms; b (an hour) and e stay.
			waitFor(t, func() bool { return c.HLen(ctx, key).Val() == 2 })
			if m, err := c.HGetAll(ctx, key).Result(); err != nil || len(m) != 2 || m["b"] != "2" || m["e"] != "5" {
				t.Fatalf("HGetAll after expiry: %v, %v", m, err)
			}
			if vals, err = c.HGetDel(ctx, key, "b", "e", "a").Result(); err != nil || len(vals) != 3 || vals[0] != "2" || vals[1] != "5" {
				t.Fatalf("HGetDel: %q, %v", vals, err)
			}
			if n, err := c.Exists(ctx, key).Result(); err != nil || n != 0 {
				t.Fatalf("EXISTS after HGETDEL of the last fields: %d, %v", n, err)
			}
		})
	}
}

// waitFor polls cond for up to 5 s (the sweeper runs every 100 ms).
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in 5 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestHashTTLSemaphoreOverSocket is a semaphore with one field per holder,
// each with its own lease (HSETEX PX): holders expire one by one with no
// client reading, the sweeper announces each ("hexpired") and deletes the
// key with the last ("del"). The server's clock is manual, so each lease
// ends when the test says, whatever the machine's load.
func TestHashTTLSemaphoreOverSocket(t *testing.T) {
	srv := startEmbedded(t, lockredis.Options{ManualClock: true})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := newGoRedis(t, goredisTarget{addr: srv.Addr()}, 3, nil)
	if err := c.ConfigSet(ctx, "notify-keyspace-events", "Egh").Err(); err != nil {
		t.Fatal(err)
	}
	sub := c.PSubscribe(ctx, "__keyevent@0__:hexpired", "__keyevent@0__:del")
	defer sub.Close()
	if _, err := sub.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := sub.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	const permits = 3
	acquire := func(holder string, lease time.Duration) bool {
		// The check and the add are one script, as a semaphore client
		// would run them.
		ok, err := c.Eval(ctx, `
if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
return redis.call('HSETEX', KEYS[1], 'FNX', 'PX', ARGV[2], 'FIELDS', 1, ARGV[1], '1')`,
			[]string{"sem"}, holder, lease.Milliseconds(), permits).Int()
		if err != nil {
			t.Fatalf("acquire %s: %v", holder, err)
		}
		return ok == 1
	}
	for i, lease := range []time.Duration{150, 350, 550} {
		if !acquire("holder"+strconv.Itoa(i), lease*time.Millisecond) {
			t.Fatalf("holder%d not admitted", i)
		}
	}
	if acquire("late", time.Second) {
		t.Fatal("a fourth holder was admitted")
	}
	ch := sub.Channel()
	for i := 0; i < permits; i++ {
		srv.FastForward(200 * time.Millisecond) // past holder i's lease
		select {
		case m := <-ch:
			if m.Channel != "__keyevent@0__:hexpired" || m.Payload != "sem" {
				t.Fatalf("event %d: %s %s", i, m.Channel, m.Payload)
			}
		case <-ctx.Done():
			t.Fatal("no hexpired event")
		}
		if got, want := c.HLen(ctx, "sem").Val(), int64(permits-1-i); got != want {
			t.Fatalf("after %d leases: HLEN %d, want %d", i+1, got, want)
		}
		if i == 0 && !acquire("next", 100*time.Second) {
			t.Fatal("a freed permit was not given")
		} else if i == 0 {
			c.HDel(ctx, "sem", "next")
		}
	}
	select {
	case m := <-ch:
		if m.Channel != "__keyevent@0__:del" || m.Payload != "sem" {
			t.Fatalf("last event: %s %s", m.Channel, m.Payload)
		}
	case <-ctx.Done():
		t.Fatal("no del event")
	}
	if n := c.Exists(ctx, "sem").Val(); n != 0 {
		t.Fatal("the semaphore key outlived its last holder")
	}
}
