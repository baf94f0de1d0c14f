package compat

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestGoRedisStreamConsumerGroup drives a job queue on a stream with
// go-redis v9 consumers, over RESP3 and RESP2, against the embedded
// server, the built binary and redis-server, and checks at-least-once
// delivery: every entry is delivered, XACK takes it off the pending list,
// a blocked consumer wakes for a new entry, and the entries of a consumer
// that crashed before acknowledging are claimed by another with XAUTOCLAIM
// once idle for the lease.
func TestGoRedisStreamConsumerGroup(t *testing.T) {
	for _, target := range goredisTargets(t, "") {
		for _, proto := range []int{3, 2} {
			t.Run(fmt.Sprintf("%s/resp%d", target.name, proto), func(t *testing.T) {
				ctx := context.Background()
				// The embedded server's clock jumps; elsewhere real time
				// passes, with a lease long enough for the steps before.
				lease, expire := target.lease, target.expire
				if target.name != "embedded" {
					lease = 400 * time.Millisecond
					expire = func(*testing.T) { time.Sleep(450 * time.Millisecond) }
				}
				newClient := func() *redis.Client {
					c := redis.NewClient(&redis.Options{Addr: target.addr, Protocol: proto})
					t.Cleanup(func() { c.Close() })
					return c
				}
				producer, workerA, workerB := newClient(), newClient(), newClient()
				if err := producer.FlushAll(ctx).Err(); err != nil {
					t.Fatal(err)
				}
				const stream, group = "jobs", "workers"
				if err := producer.XGroupCreateMkStream(ctx, stream, group, "0").Err(); err != nil {
					t.Fatal(err)
				}
				var added []string
				for i := 0; i < 20; i++ {
					id, err := producer.XAdd(ctx, &redis.XAddArgs{Stream: stream, Values: map[string]any{"job": i}}).Result()
					if err != nil {
						t.Fatal(err)
					}
					added = append(added, id)
				}
				delivered := map[string]int{}
				read := func(c *redis.Client, consumer string, count int64) []redis.XMessage {
					t.Helper()
					res, err := c.XReadGroup(ctx, &redis.XReadGroupArgs{
						Group: group, Consumer: consumer, Streams: []string{stream, ">"}, Count: count, Block: 50 * time.Millisecond,
					}).Result()
					if err == redis.Nil {
						return nil
					}
					if err != nil {
						t.Fatal(err)
					}
					for _, m := range res[0].Messages {
						delivered[m.ID]++
					}
					return res[0].Messages
				}
				ack := func(c *redis.Client, ids ...string) {
					t.Helper()
					n, err := c.XAck(ctx, stream, group, ids...).Result()
					if err != nil || n != int64(len(ids)) {
						t.Fatalf("XACK %v: %d, %v", ids, n, err)
					}
				}

				// A takes five jobs, finishes three and crashes.
				msgs := read(workerA, "a", 5)
				if len(msgs) != 5 {
					t.Fatalf("worker a read %d", len(msgs))
				}
				ack(workerA, msgs[0].ID, msgs[1].ID, msgs[2].ID)
				crashed := []string{msgs[3].ID, msgs[4].ID}

				// B drains the rest, acknowledging each.
				for {
					msgs := read(workerB, "b", 4)
					if len(msgs) == 0 {
						break
					}
					for _, m := range msgs {
						ack(workerB, m.ID)
					}
				}
				pending, err := producer.XPending(ctx, stream, group).Result()
				if err != nil || pending.Count != 2 || pending.Consumers["a"] != 2 || pending.Consumers["b"] != 0 {
					t.Fatalf("XPENDING: %+v, %v", pending, err)
				}

				// A blocked consumer wakes up for a new job.
				got := make(chan []redis.XStream, 1)
				go func() {
					res, _ := workerB.XReadGroup(ctx, &redis.XReadGroupArgs{
						Group: group, Consumer: "b", Streams: []string{stream, ">"}, Block: 5 * time.Second,
					}).Result()
					got <- res
				}()
				awaitBlockedClients(t, producer, 1)
				late, err := producer.XAdd(ctx, &redis.XAddArgs{Stream: stream, Values: []string{"job", "late"}}).Result()
				if err != nil {
					t.Fatal(err)
				}
				added = append(added, late)
				res := <-got
				if len(res) != 1 || len(res[0].Messages) != 1 || res[0].Messages[0].ID != late || res[0].Messages[0].Values["job"] != "late" {
					t.Fatalf("blocked XREADGROUP got %+v", res)
				}
				delivered[late]++
				ack(workerB, late)

				// Not idle long enough yet: nothing to claim.
				claimed, _, err := workerB.XAutoClaim(ctx, &redis.XAutoClaimArgs{
					Stream: stream, Group: group, Consumer: "b", MinIdle: lease, Start: "0-0", Count: 10,
				}).Result()
				if err != nil || len(claimed) != 0 {
					t.Fatalf("early XAUTOCLAIM: %v, %v", claimed, err)
				}
				expire(t)
				claimed, next, err := workerB.XAutoClaim(ctx, &redis.XAutoClaimArgs{
					Stream: stream, Group: group, Consumer: "b", MinIdle: lease, Start: "0-0", Count: 10,
				}).Result()
				if err != nil || next != "0-0" || len(claimed) != 2 || claimed[0].ID != crashed[0] || claimed[1].ID != crashed[1] {
					t.Fatalf("XAUTOCLAIM: %+v next %q, %v", claimed, next, err)
				}
				for _, m := range claimed {
					delivered[m.ID]++
					ack(workerB, m.ID)
				}
				ext, err := producer.XPendingExt(ctx, &redis.XPendingExtArgs{Stream: stream, Group: group, Start: "-", End: "+", Count: 10}).Result()
				if err != nil || len(ext) != 0 {
					t.Fatalf("pending after all acks: %+v, %v", ext, err)
				}

				// Every job was delivered at least once; only the crashed
				// consumer's twice.
				var twice []string
				for _, id := range added {
					switch delivered[id] {
					case 0:
						t.Errorf("%s never delivered", id)
					case 2:
						twice = append(twice, id)
					}
				}
				sort.Strings(twice)
				if fmt.Sprint(twice) != fmt.Sprint(crashed) {
					t.Errorf("delivered twice: %v, want %v", twice, crashed)
				}
				groups, err := producer.XInfoGroups(ctx, stream).Result()
				if err != nil || len(groups) != 1 || groups[0].Pending != 0 || groups[0].Lag != 0 || groups[0].EntriesRead != 21 {
					t.Fatalf("XINFO GROUPS: %+v, %v", groups, err)
				}
			})
		}
	}
}

// awaitBlockedClients waits until the server reports n blocked clients.
func awaitBlockedClients(t *testing.T, c *redis.Client, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		info, err := c.Info(context.Background(), "clients").Result()
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(info, fmt.Sprintf("blocked_clients:%d\r\n", n)) {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("never %d blocked clients", n)
}
