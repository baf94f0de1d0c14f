package compat

// go-redis v9's ClusterClient, unmodified, against one lockredis with the
// single-node cluster emulation (the embedded server with
// Options{Cluster: true}, the built binary with --cluster-enabled yes),
// and, as the oracle, a redis-server 7.0 cluster of one node: the same
// assertions hold on all three.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-redsync/redsync/v4"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"
	"github.com/lockredis/lockredis"
	"github.com/redis/go-redis/v9"
)

type clusterTarget struct {
	name string
	addr string
}

func clusterTargets(t *testing.T) []clusterTarget {
	srv := startEmbedded(t, lockredis.Options{Cluster: true})
	targets := []clusterTarget{
		{"embedded", srv.Addr()},
		{"binary", startBinary(t, "--cluster-enabled", "yes")},
	}
	if _, err := exec.LookPath("redis-server"); err == nil || os.Getenv("CI") != "" {
		addr := startRedis(t, "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
			"--cluster-announce-ip", "127.0.0.1", "--cluster-port", strconv.Itoa(freePort(t)))
		startClusterNode(t, dialRaw(t, addr))
		targets = append(targets, clusterTarget{"redis-server", addr})
	}
	return targets
}

func newClusterClient(t *testing.T, addr string) *redis.ClusterClient {
	c := redis.NewClusterClient(&redis.ClusterOptions{
		Addrs: []string{addr}, DialTimeout: 2 * time.Second,
		ReadTimeout: 2 * time.Second, WriteTimeout: 2 * time.Second,
	})
	t.Cleanup(func() { c.Close() })
	return c
}

func TestClusterClient(t *testing.T) {
	for _, target := range clusterTargets(t) {
		t.Run(target.name, func(t *testing.T) {
			t.Run("topology", func(t *testing.T) { testClusterTopology(t, target.addr) })
			t.Run("keys", func(t *testing.T) { testClusterKeys(t, target.addr) })
			t.Run("transactions", func(t *testing.T) { testClusterTx(t, target.addr) })
			t.Run("pubsub", func(t *testing.T) { testClusterPubSub(t, target.addr) })
			t.Run("redsync", func(t *testing.T) { testClusterRedsync(t, target.addr) })
		})
	}
}

// The node announces the address the client connected to.
func testClusterTopology(t *testing.T, addr string) {
	ctx := context.Background()
	c := newClusterClient(t, addr)
	slots, err := c.ClusterSlots(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(slots) != 1 || slots[0].Start != 0 || slots[0].End != 16383 || len(slots[0].Nodes) != 1 {
		t.Fatalf("CLUSTER SLOTS: %+v", slots)
	}
	if got := slots[0].Nodes[0].Addr; got != addr {
		t.Errorf("CLUSTER SLOTS address %q, want %q", got, addr)
	}
	id, err := c.ClusterMyID(ctx).Result()
	if err != nil || id != slots[0].Nodes[0].ID {
		t.Errorf("CLUSTER MYID %q, %v; SLOTS says %q", id, err, slots[0].Nodes[0].ID)
	}
	shards, err := c.ClusterShards(ctx).Result()
	if err != nil || len(shards) != 1 || len(shards[0].Nodes) != 1 || shards[0].Nodes[0].ID != id ||
		shards[0].Nodes[0].IP != "127.0.0.1" || shards[0].Nodes[0].Role != "master" {
		t.Errorf("CLUSTER SHARDS: %+v, %v", shards, err)
	}
	nodes, err := c.ClusterNodes(ctx).Result()
	if err != nil || !strings.HasPrefix(nodes, id+" "+addr+"@") || !strings.HasSuffix(nodes, " connected 0-16383\n") {
		t.Errorf("CLUSTER NODES: %q, %v", nodes, err)
	}
	if n, err := c.ClusterKeySlot(ctx, "{user1000}.following").Result(); err != nil || n != 3443 {
		t.Errorf("CLUSTER KEYSLOT: %d, %v", n, err)
	}
	var shardsSeen int
	var mu sync.Mutex
	err = c.ForEachShard(ctx, func(ctx context.Context, shard *redis.Client) error {
		mu.Lock()
		shardsSeen++
		mu.Unlock()
		return shard.Ping(ctx).Err()
	})
	if err != nil || shardsSeen != 1 {
		t.Errorf("ForEachShard: %d shards, %v", shardsSeen, err)
	}
}

func testClusterKeys(t *testing.T, addr string) {
	ctx := context.Background()
	c := newClusterClient(t, addr)
	prefix := "k:" + token(t) + ":"
	const n = 300
	for i := 0; i < n; i++ {
		if err := c.Set(ctx, prefix+strconv.Itoa(i), i, 0).Err(); err != nil {
			t.Fatalf("SET: %v", err)
		}
	}
	for i := 0; i < n; i++ {
		if v, err := c.Get(ctx, prefix+strconv.Itoa(i)).Int(); err != nil || v != i {
			t.Fatalf("GET %d: %d, %v", i, v, err)
		}
	}
	// Pipelined commands over many slots.
	cmds, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i := 0; i < n; i++ {
			p.Incr(ctx, prefix+strconv.Itoa(i))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, cmd := range cmds {
		if v := cmd.(*redis.IntCmd).Val(); v != int64(i+1) {
			t.Fatalf("pipelined INCR %d: %d", i, v)
		}
	}
	// Multi-key commands: one slot through a hash tag, or CROSSSLOT, as
	// a real cluster answers.
	tag := "{" + token(t) + "}"
	if err := c.MSet(ctx, tag+"a", "1", tag+"b", "2").Err(); err != nil {
		t.Errorf("MSET in one slot: %v", err)
	}
	if vals, err := c.MGet(ctx, tag+"a", tag+"b", tag+"c").Result(); err != nil || fmt.Sprint(vals) != "[1 2 <nil>]" {
		t.Errorf("MGET in one slot: %v, %v", vals, err)
	}
	err = c.MSet(ctx, "cross:a", "1", "cross:b", "2").Err()
	if err == nil || !strings.HasPrefix(err.Error(), "CROSSSLOT ") {
		t.Errorf("MSET across slots: %v; want CROSSSLOT", err)
	}
	if n, _ := c.Exists(ctx, "cross:a").Result(); n != 0 {
		t.Errorf("the refused MSET wrote cross:a")
	}
	// A script with its keys in one slot; one that touches another slot
	// while declaring flags is refused.
	if v, err := c.Eval(ctx, "return redis.call('incrby', KEYS[1], ARGV[1])", []string{tag + "n"}, 5).Int(); err != nil || v != 5 {
		t.Errorf("EVAL: %d, %v", v, err)
	}
	err = c.Eval(ctx, "#!lua\nreturn redis.call('get', 'elsewhere')", []string{tag + "n"}).Err()
	if err == nil || !strings.Contains(err.Error(), "do not hash to the same slot") {
		t.Errorf("EVAL touching another slot: %v", err)
	}
	// A client that reads from replicas sends READONLY on every
	// connection; with no replica, reads go to the master.
	ro := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{addr}, ReadOnly: true, RouteRandomly: true})
	defer ro.Close()
	if v, err := ro.Get(ctx, prefix+"7").Int(); err != nil || v != 8 {
		t.Errorf("GET through a ReadOnly client: %d, %v", v, err)
	}
	if err := ro.Set(ctx, prefix+"7", "w", 0).Err(); err != nil {
		t.Errorf("SET through a ReadOnly client: %v", err)
	}
}

// MULTI through TxPipeline, and WATCH, on one slot.
func testClusterTx(t *testing.T, addr string) {
	ctx := context.Background()
	c := newClusterClient(t, addr)
	tag := "{" + token(t) + "}"
	cmds, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, tag+"a", "1", 0)
		p.Incr(ctx, tag+"a")
		p.RPush(ctx, tag+"l", "x", "y")
		return nil
	})
	if err != nil || len(cmds) != 3 || cmds[1].(*redis.IntCmd).Val() != 2 || cmds[2].(*redis.IntCmd).Val() != 2 {
		t.Fatalf("TxPipelined: %v, %v", cmds, err)
	}
	// Optimistic locking: a WATCHed key changed by another client aborts
	// the transaction.
	other := newClusterClient(t, addr)
	err = c.Watch(ctx, func(tx *redis.Tx) error {
		if err := other.Set(ctx, tag+"a", "changed", 0).Err(); err != nil {
			return err
		}
		_, err := tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Set(ctx, tag+"a", "mine", 0)
			return nil
		})
		return err
	}, tag+"a")
	if !errors.Is(err, redis.TxFailedErr) {
		t.Errorf("WATCH then EXEC after another write: %v; want TxFailedErr", err)
	}
	if v, _ := c.Get(ctx, tag+"a").Result(); v != "changed" {
		t.Errorf("GET after the aborted transaction: %q", v)
	}
	err = c.Watch(ctx, func(tx *redis.Tx) error {
		_, err := tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Set(ctx, tag+"a", "mine", 0)
			return nil
		})
		return err
	}, tag+"a")
	if err != nil {
		t.Errorf("WATCH and EXEC: %v", err)
	}
	if v, _ := c.Get(ctx, tag+"a").Result(); v != "mine" {
		t.Errorf("GET after the transaction: %q", v)
	}
}

func testClusterPubSub(t *testing.T, addr string) {
	ctx := context.Background()
	c := newClusterClient(t, addr)
	ch := "news:" + token(t)
	for _, sharded := range []bool{false, true} {
		var sub *redis.PubSub
		if sharded {
			sub = c.SSubscribe(ctx, ch)
		} else {
			sub = c.Subscribe(ctx, ch)
		}
		if _, err := sub.Receive(ctx); err != nil { // the confirmation
			t.Fatalf("subscribe (sharded %v): %v", sharded, err)
		}
		var n int64
		var err error
		if sharded {
			n, err = c.SPublish(ctx, ch, "hello").Result()
		} else {
			n, err = c.Publish(ctx, ch, "hello").Result()
		}
		if err != nil || n != 1 {
			t.Errorf("publish (sharded %v): %d, %v", sharded, n, err)
		}
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		msg, err := sub.ReceiveMessage(rctx)
		cancel()
		if err != nil || msg.Channel != ch || msg.Payload != "hello" {
			t.Errorf("message (sharded %v): %+v, %v", sharded, msg, err)
		}
		sub.Close()
	}
}

// redsync through the ClusterClient (its goredis pool takes any
// go-redis UniversalClient): mutual exclusion, release by the owner only.
func testClusterRedsync(t *testing.T, addr string) {
	ctx := context.Background()
	c := newClusterClient(t, addr)
	rs := redsync.New(goredis.NewPool(c))
	key := "redsync:" + token(t)
	opts := []redsync.Option{redsync.WithExpiry(10 * time.Second), redsync.WithTries(1)}

	a := rs.NewMutex(key, opts...)
	if err := a.Lock(); err != nil {
		t.Fatalf("a.Lock: %v", err)
	}
	if v, err := c.Get(ctx, key).Result(); err != nil || v != a.Value() {
		t.Errorf("GET %s: %q, %v; want a's value", key, v, err)
	}
	b := rs.NewMutex(key, opts...)
	var taken *redsync.ErrTaken
	if err := b.TryLock(); !errors.As(err, &taken) {
		t.Errorf("b.TryLock while a holds it: %v; want ErrTaken", err)
	}
	intruder := rs.NewMutex(key, redsync.WithValue("not-the-owner"))
	if ok, err := intruder.Unlock(); ok || err == nil {
		t.Errorf("Unlock by a non-owner: %v, %v; want refused", ok, err)
	}
	if ok, err := intruder.Extend(); ok {
		t.Errorf("Extend by a non-owner: %v, %v; want refused", ok, err)
	}
	if v, _ := c.Get(ctx, key).Result(); v != a.Value() {
		t.Errorf("after the intruder, GET %s: %q; want a's value", key, v)
	}
	if ok, err := a.Extend(); !ok || err != nil {
		t.Errorf("a.Extend: %v, %v", ok, err)
	}
	if ok, err := a.Unlock(); !ok || err != nil {
		t.Fatalf("a.Unlock: %v, %v", ok, err)
	}
	if n, _ := c.Exists(ctx, key).Result(); n != 0 {
		t.Errorf("the key outlived Unlock")
	}
	if err := b.TryLock(); err != nil {
		t.Errorf("b.TryLock after a.Unlock: %v", err)
	}
	b.Unlock()

	// Mutual exclusion under contention: goroutines increment a counter
	// (read, then write) only while holding the lock.
	counter := "{" + key + "}:counter"
	const workers, rounds = 4, 10
	var wg sync.WaitGroup
	errs := make(chan error, workers*rounds)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := 0; r < rounds; r++ {
				m := rs.NewMutex(key, redsync.WithExpiry(10*time.Second), redsync.WithTries(200),
					redsync.WithRetryDelay(5*time.Millisecond))
				if err := m.Lock(); err != nil {
					errs <- err
					return
				}
				v, _ := c.Get(ctx, counter).Int()
				time.Sleep(time.Millisecond)
				if err := c.Set(ctx, counter, v+1, 0).Err(); err != nil {
					errs <- err
				}
				if ok, err := m.Unlock(); !ok || err != nil {
					errs <- fmt.Errorf("unlock: %v, %v", ok, err)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if v, err := c.Get(ctx, counter).Int(); err != nil || v != workers*rounds {
		t.Errorf("counter %d, %v; want %d (a lost update means two holders)", v, err, workers*rounds)
	}
}

// The address a node announces is the one the client dialed: a server
// listening on several addresses sends each client back to the one it
// used.
func TestClusterAnnouncedAddress(t *testing.T) {
	srv := startEmbedded(t, lockredis.Options{Cluster: true, Addrs: []string{"127.0.0.1:0", "-[::1]:0"}})
	ctx := context.Background()
	t.Logf("listening on %v", srv.Addrs())
	for _, addr := range srv.Addrs() {
		c := newClusterClient(t, addr)
		slots, err := c.ClusterSlots(ctx).Result()
		if err != nil || len(slots) != 1 || slots[0].Nodes[0].Addr != addr {
			t.Errorf("CLUSTER SLOTS through %s: %+v, %v", addr, slots, err)
		}
		if err := c.Set(ctx, "k", addr, 0).Err(); err != nil {
			t.Errorf("SET through %s: %v", addr, err)
		}
	}
	// The Go API has no connection: 127.0.0.1 and the server's port.
	_, port, _ := net.SplitHostPort(srv.Addr())
	if r := srv.Do("CLUSTER", "NODES"); !strings.Contains(r.Str, " 127.0.0.1:"+port+"@") {
		t.Errorf("Do CLUSTER NODES: %v", r)
	}
}
