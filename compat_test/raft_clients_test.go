package compat

import (
	"bytes"
	"context"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-redsync/redsync/v4"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"
	"github.com/redis/go-redis/v9"
)

// Unmodified clients against a 3-node replicated group of the built
// binary (docs/replication.md), started with the exact flags:
// plain clients on followers, go-redis's FailoverClient following
// +switch-master, go-redis's ClusterClient following -MOVED.

type raftNode struct {
	id                  int
	addr, raftAddr, dir string
	peers               string
	extra               []string
	cmd                 *exec.Cmd
	out                 *bytes.Buffer
	done                chan struct{}
}

func startRaftGroup(t *testing.T, n int, extra ...string) []*raftNode {
	t.Helper()
	bin := lockredisBinary(t)
	nodes := make([]*raftNode, n)
	var peers []string
	for i := range nodes {
		nodes[i] = &raftNode{id: i + 1, addr: "127.0.0.1:" + strconv.Itoa(freePort(t)),
			raftAddr: "127.0.0.1:" + strconv.Itoa(freePort(t)), dir: t.TempDir(), extra: extra}
		peers = append(peers, strconv.Itoa(i+1)+"="+nodes[i].raftAddr)
	}
	for _, nd := range nodes {
		nd.peers = strings.Join(peers, ",")
		nd.start(t, bin)
	}
	t.Cleanup(func() {
		for _, nd := range nodes {
			nd.kill()
		}
	})
	for _, nd := range nodes {
		if _, err := waitPing(nd.addr, nd.done); err != nil {
			t.Fatalf("node %d: %v\n%s", nd.id, err, nd.out)
		}
	}
	raftLeader(t, nodes)
	return nodes
}

func (nd *raftNode) start(t *testing.T, bin string) {
	_, port, _ := strings.Cut(nd.addr, ":")
	args := append([]string{"--port", port, "--bind", "127.0.0.1", "--dir", nd.dir, "--raft-id", strconv.Itoa(nd.id),
		"--raft-bind", nd.raftAddr, "--raft-peers", nd.peers}, nd.extra...)
	nd.cmd = exec.Command(bin, args...)
	nd.out = &bytes.Buffer{}
	nd.cmd.Stdout, nd.cmd.Stderr = nd.out, nd.out
	dieWithTest(nd.cmd)
	if err := nd.cmd.Start(); err != nil {
		t.Fatalf("start node %d: %v", nd.id, err)
	}
	nd.done = make(chan struct{})
	go func(cmd *exec.Cmd, done chan struct{}) { cmd.Wait(); close(done) }(nd.cmd, nd.done)
}

// kill is kill -9.
func (nd *raftNode) kill() {
	if nd.cmd != nil && nd.cmd.Process != nil {
		nd.cmd.Process.Kill()
		<-nd.done
	}
}

// raftLeader waits (generously) for a node whose ROLE is master.
func raftLeader(t *testing.T, nodes []*raftNode) *raftNode {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		for _, nd := range nodes {
			select {
			case <-nd.done:
				continue
			default:
			}
			c := redis.NewClient(&redis.Options{Addr: nd.addr, MaxRetries: -1})
			role, err := c.Do(context.Background(), "ROLE").Slice()
			c.Close()
			if err == nil && len(role) > 0 && role[0] == "master" {
				return nd
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("no leader")
	return nil
}

// redsync with its pool on a follower: the lock is the group's, so a
// second client on another follower cannot take it until it is released.
func TestRaftRedsyncOnFollowers(t *testing.T) {
	nodes := startRaftGroup(t, 3)
	leader := raftLeader(t, nodes)
	var followers []*raftNode
	for _, nd := range nodes {
		if nd != leader {
			followers = append(followers, nd)
		}
	}
	c1 := redis.NewClient(&redis.Options{Addr: followers[0].addr})
	c2 := redis.NewClient(&redis.Options{Addr: followers[1].addr})
	defer c1.Close()
	defer c2.Close()
	m1 := redsync.New(goredis.NewPool(c1)).NewMutex("raft:redsync", redsync.WithExpiry(30*time.Second), redsync.WithTries(1))
	m2 := redsync.New(goredis.NewPool(c2)).NewMutex("raft:redsync", redsync.WithExpiry(30*time.Second), redsync.WithTries(1))
	if err := m1.Lock(); err != nil {
		t.Fatalf("lock through follower %d: %v", followers[0].id, err)
	}
	if err := m2.Lock(); err == nil {
		t.Fatal("a second owner took a held lock through another follower")
	}
	if ok, err := m1.Unlock(); !ok || err != nil {
		t.Fatalf("unlock: %v %v", ok, err)
	}
	if err := m2.Lock(); err != nil {
		t.Fatalf("lock after release: %v", err)
	}
}

// go-redis's FailoverClient, pointed at the nodes as sentinels, follows
// the leader across a kill -9, and the acknowledged write survives.
func TestRaftFailoverClientFollowsSwitchMaster(t *testing.T) {
	nodes := startRaftGroup(t, 3)
	var sentinels []string
	for _, nd := range nodes {
		sentinels = append(sentinels, nd.addr)
	}
	c := redis.NewFailoverClient(&redis.FailoverOptions{MasterName: "mymaster", SentinelAddrs: sentinels,
		DialTimeout: time.Second, ReadTimeout: 2 * time.Second, WriteTimeout: time.Second})
	defer c.Close()
	ctx := context.Background()
	if err := c.Set(ctx, "raft:fo", "before", 0).Err(); err != nil {
		t.Fatalf("SET: %v", err)
	}
	raftLeader(t, nodes).kill()
	eventuallyOK(t, "SET after the failover", func() error { return c.Set(ctx, "raft:fo2", "after", 0).Err() })
	if v, err := c.Get(ctx, "raft:fo").Result(); v != "before" {
		t.Fatalf("acknowledged write after the failover: %q %v", v, err)
	}
}

// go-redis's ClusterClient against the group in cluster mode follows the
// leader through -MOVED and CLUSTER SLOTS after a kill -9.
func TestRaftClusterClientFollowsMoved(t *testing.T) {
	nodes := startRaftGroup(t, 3, "--cluster-enabled", "yes")
	var addrs []string
	for _, nd := range nodes {
		addrs = append(addrs, nd.addr)
	}
	c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs, DialTimeout: time.Second,
		ReadTimeout: 2 * time.Second, WriteTimeout: time.Second})
	defer c.Close()
	ctx := context.Background()
	eventuallyOK(t, "SET", func() error { return c.Set(ctx, "raft:cl", "before", 0).Err() })
	raftLeader(t, nodes).kill()
	eventuallyOK(t, "SET after the failover", func() error {
		c.ReloadState(ctx)
		return c.Set(ctx, "raft:cl2", "after", 0).Err()
	})
	if v, err := c.Get(ctx, "raft:cl").Result(); v != "before" {
		t.Fatalf("acknowledged write after the failover: %q %v", v, err)
	}
}

func eventuallyOK(t *testing.T, what string, fn func() error) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	var err error
	for time.Now().Before(deadline) {
		if err = fn(); err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s: %v", what, err)
}
