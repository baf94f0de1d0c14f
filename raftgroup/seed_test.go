package raftgroup_test

import (
	"path/filepath"
	"strconv"
	"testing"

	"github.com/lockredis/lockredis"
	"github.com/lockredis/lockredis/raftgroup"
)

// A standalone node's append-only file seeds a new group (RaftSeedAOF,
// --raft-seed-aof): every node gets its keys, TTLs and locks, tokens go
// on above the standalone node's, and the seed is applied once: data
// written after it survives restarts of nodes that still have the
// setting.
func TestSeedFromAppendOnlyFile(t *testing.T) {
	dir := t.TempDir()
	standalone := lockredis.NewServer(lockredis.Options{Addr: "127.0.0.1:0", Dir: dir, AppendOnly: true})
	if err := standalone.Start(); err != nil {
		t.Fatal(err)
	}
	c := dial(t, standalone.Addr())
	c.must("SET", "plain", "1")
	c.must("SET", "ttl", "x", "PX", "600000")
	tok, _ := strconv.Atoi(c.must("LOCK.ACQUIRE", "lock:seeded", "owner", "600000").(string))
	if tok <= 0 {
		t.Fatalf("standalone token %d", tok)
	}
	if err := standalone.Close(); err != nil {
		t.Fatal(err)
	}

	g := raftgroup.RunWith(t, 3, raftgroup.Options{Server: lockredis.Options{RaftSeedAOF: filepath.Join(dir, "appendonly.aof")}})
	for _, addr := range g.Addrs() {
		r := dial(t, addr)
		r.must("READONLY")
		eventually(t, "seeded data on "+addr, func() string {
			if v := r.must("GET", "plain"); v != "1" {
				return "plain = " + v.(string)
			}
			if p, _ := strconv.Atoi(r.must("PTTL", "ttl").(string)); p <= 0 {
				return "ttl's PTTL " + strconv.Itoa(p)
			}
			return ""
		})
	}
	if r := onLeader(t, g, "LOCK.ACQUIRE", "lock:seeded", "other", "600000"); r != "(nil)" {
		t.Fatalf("the seeded lock was granted to another owner: %v", r)
	}
	if r := onLeader(t, g, "LOCK.ACQUIRE", "lock:new", "owner", "600000"); r == "(nil)" {
		t.Fatalf("lock:new not granted")
	} else if n, _ := strconv.Atoi(r.(string)); n <= tok {
		t.Fatalf("token %d after seeding, not above the standalone node's %d", n, tok)
	}
	onLeader(t, g, "DEL", "plain")
	for _, m := range g.Members() {
		g.Restart(m)
	}
	for _, addr := range g.Addrs() {
		r := dial(t, addr)
		r.must("READONLY")
		eventually(t, "the group's own writes after restarts on "+addr, func() string {
			if v := r.must("EXISTS", "lock:new"); v != "1" {
				return "lock:new missing"
			}
			if v := r.must("GET", "plain"); v != "(nil)" {
				return "plain = " + v.(string) + ": seeded again"
			}
			return ""
		})
	}
}
