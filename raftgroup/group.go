package raftgroup

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/raft"
	"github.com/lockredis/lockredis"
	"github.com/lockredis/lockredis/replication"
)

// Group is a replicated group running inside a test process. Its nodes
// talk Raft over hashicorp's in-memory transport, which Partition and
// Pause cut; clients reach them over TCP on loopback as usual. A node's
// own connections to another's client port (forwarding, reports) go
// through a link that the same cuts stall (link.go).
type Group struct {
	t TB

	mu      sync.Mutex
	members []*Member
	// cut[a][b]: a cannot reach b (Raft traffic and client forwarding).
	cut map[string]map[string]bool
	// changed is signalled whenever a cut, a pause or closed changes.
	changed *sync.Cond
	closed  bool
}

// Member is one node of a Group.
type Member struct {
	ID     string
	g      *Group
	dir    string
	addr   string // client address, kept across restarts
	server *lockredis.Server
	node   *replication.Node
	trans  *raft.InmemTransport
	down   bool
	paused bool
	opts   Options
	peers  string
}

// TB is the part of testing.TB a Group uses.
type TB interface {
	lockredis.TB
	TempDir() string
	Logf(format string, args ...any)
}

// Options tunes Run; the zero value is fine.
type Options struct {
	// Server is the template of every node's options (Password,
	// Cluster...); addresses and Raft settings are filled in.
	Server lockredis.Options
	// Timeouts, when set, replace the LAN defaults (see replication).
	HeartbeatTimeout, ElectionTimeout, LeaderLeaseTimeout time.Duration
	// SessionTimeout, when set, replaces the default raft-session-timeout.
	SessionTimeout time.Duration
	// Log compaction, when set, replaces the defaults (see replication).
	SnapshotThreshold, TrailingLogs uint64
	SnapshotInterval                time.Duration
}

// Run starts a group of n nodes for the test, waits until it has a
// leader, and stops it when the test ends.
func Run(t TB, n int) *Group { return RunWith(t, n, Options{}) }

// RunWith is Run with options.
func RunWith(t TB, n int, o Options) *Group {
	t.Helper()
	g := &Group{t: t, cut: map[string]map[string]bool{}}
	g.changed = sync.NewCond(&g.mu)
	var peers []string
	for i := 1; i <= n; i++ {
		id := strconv.Itoa(i)
		peers = append(peers, id+"="+raftAddr(id))
	}
	for i := 1; i <= n; i++ {
		m := &Member{ID: strconv.Itoa(i), g: g, dir: t.TempDir()}
		g.members = append(g.members, m)
	}
	t.Cleanup(g.Close)
	for _, m := range g.members {
		if err := m.start(strings.Join(peers, ","), o); err != nil {
			t.Fatalf("raftgroup: node %s: %v", m.ID, err)
		}
	}
	g.Leader()
	return g
}

// raftAddr is a node's in-memory Raft address.
func raftAddr(id string) string { return "raft-node-" + id }

func (m *Member) start(peers string, o Options) error {
	opts := o.Server
	if m.addr != "" {
		opts.Addr = m.addr
	}
	opts.Addrs = nil
	opts.RaftID, opts.RaftBind, opts.RaftPeers = m.ID, raftAddr(m.ID), peers
	opts.RaftDir = m.dir
	if opts.Logf == nil {
		opts.Logf = func(level, format string, args ...any) {
			if level == "warning" {
				m.g.t.Logf("node %s: %s", m.ID, fmt.Sprintf(format, args...))
			}
		}
	}
	cfg := replication.Config{
		HeartbeatTimeout: o.HeartbeatTimeout, ElectionTimeout: o.ElectionTimeout, LeaderLeaseTimeout: o.LeaderLeaseTimeout,
		SessionTimeout:    o.SessionTimeout,
		SnapshotThreshold: o.SnapshotThreshold, TrailingLogs: o.TrailingLogs, SnapshotInterval: o.SnapshotInterval,
		Transport: func() (raft.Transport, error) {
			_, t := raft.NewInmemTransport(raft.ServerAddress(raftAddr(m.ID)))
			m.g.mu.Lock()
			m.trans = t
			m.g.mu.Unlock()
			m.g.connect()
			return t, nil
		},
		Dial: func(addr string) (net.Conn, error) { return m.g.dial(m, addr) },
	}
	node, err := newNode(opts, cfg)
	if err != nil {
		return err
	}
	srv := serverFor(opts, node)
	if err := srv.Start(); err != nil {
		return err
	}
	m.g.mu.Lock()
	m.server, m.node, m.down = srv, node, false
	m.addr = srv.Addr()
	m.g.mu.Unlock()
	m.opts = o
	m.peers = peers
	return nil
}

// connect links every pair of running transports that no partition cuts.
func (g *Group) connect() {
	g.mu.Lock()
	defer g.mu.Unlock()
	defer g.changed.Broadcast() // the links' waits (link.go)
	for _, a := range g.members {
		for _, b := range g.members {
			if a == b || a.trans == nil || b.trans == nil {
				continue
			}
			if g.cut[a.ID][b.ID] || a.down || b.down || a.paused || b.paused {
				a.trans.Disconnect(raft.ServerAddress(raftAddr(b.ID)))
				continue
			}
			a.trans.Connect(raft.ServerAddress(raftAddr(b.ID)), b.trans)
		}
	}
}

// dial is a node's connection to another's client port, refused across a
// partition, and stalled by one that comes later (link.go).
func (g *Group) dial(from *Member, addr string) (net.Conn, error) {
	g.mu.Lock()
	var to *Member
	for _, m := range g.members {
		if m.addr == addr {
			to = m
			if g.cut[from.ID][m.ID] || m.down || m.paused || from.paused {
				g.mu.Unlock()
				return nil, errors.New("raftgroup: partitioned")
			}
		}
	}
	g.mu.Unlock()
	conn, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil || to == nil {
		return conn, err
	}
	return g.link(conn, from, to), nil
}

// Members lists the nodes, in id order.
func (g *Group) Members() []*Member {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]*Member(nil), g.members...)
}

// Addrs are the nodes' client addresses, in id order.
func (g *Group) Addrs() []string {
	var out []string
	for _, m := range g.Members() {
		out = append(out, m.Addr())
	}
	return out
}

// Addr is the node's client address (the same across restarts).
func (m *Member) Addr() string { return m.addr }

// Server is the node's server (nil while crashed).
func (m *Member) Server() *lockredis.Server {
	m.g.mu.Lock()
	defer m.g.mu.Unlock()
	return m.server
}

// Node is the node's replication (nil while crashed).
func (m *Member) Node() *replication.Node {
	m.g.mu.Lock()
	defer m.g.mu.Unlock()
	return m.node
}

// Leader waits (up to 10 s) for a leader that serves clients among the
// running, reachable nodes, and returns it; the test fails without one.
func (g *Group) Leader() *Member {
	g.t.Helper()
	m, err := g.WaitLeader(10 * time.Second)
	if err != nil {
		g.t.Fatalf("raftgroup: %v", err)
	}
	return m
}

// WaitLeader is Leader with a timeout and an error instead of a failure.
func (g *Group) WaitLeader(timeout time.Duration) (*Member, error) {
	deadline := time.Now().Add(timeout)
	for {
		for _, m := range g.Members() {
			if n := m.Node(); n != nil && !m.down && !m.paused && n.IsLeader() {
				return m, nil
			}
		}
		if time.Now().After(deadline) {
			return nil, errors.New("no leader elected in time")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Followers are the running nodes other than the current leader.
func (g *Group) Followers() []*Member {
	l := g.Leader()
	var out []*Member
	for _, m := range g.Members() {
		if m != l && !m.down {
			out = append(out, m)
		}
	}
	return out
}

// Crash stops a node at once, as a kill -9 would: no leadership transfer,
// no goodbye. Its Raft log stays for Restart.
func (g *Group) Crash(m *Member) {
	g.mu.Lock()
	m.down = true
	g.mu.Unlock()
	g.connect() // its peers lose it before it goes
	if srv := m.Server(); srv != nil {
		m.node.Crash()
		srv.Close()
	}
	g.mu.Lock()
	m.server, m.node, m.trans = nil, nil, nil
	g.mu.Unlock()
}

// Restart starts a crashed (or running: it is crashed first) node again
// on the same client address and Raft log.
func (g *Group) Restart(m *Member) {
	g.t.Helper()
	if m.Server() != nil {
		g.Crash(m)
	}
	if err := m.start(m.peers, m.opts); err != nil {
		g.t.Fatalf("raftgroup: restart of node %s: %v", m.ID, err)
	}
	g.connect()
}

// Partition splits the group: each side reaches only the nodes on it
// (Raft traffic and followers' forwarding alike). Nodes not named form a
// side of their own. Heal ends it.
func (g *Group) Partition(sides ...[]*Member) {
	side := map[string]int{}
	for i, s := range sides {
		for _, m := range s {
			side[m.ID] = i + 1
		}
	}
	g.mu.Lock()
	g.cut = map[string]map[string]bool{}
	for _, a := range g.members {
		g.cut[a.ID] = map[string]bool{}
		for _, b := range g.members {
			if side[a.ID] != side[b.ID] {
				g.cut[a.ID][b.ID] = true
			}
		}
	}
	g.mu.Unlock()
	g.connect()
}

// Isolate cuts one node off from all the others.
func (g *Group) Isolate(m *Member) { g.Partition([]*Member{m}) }

// Heal ends every partition.
func (g *Group) Heal() {
	g.mu.Lock()
	g.cut = map[string]map[string]bool{}
	g.mu.Unlock()
	g.connect()
}

// Pause cuts a node off from the others as a stopped process would be
// (SIGSTOP): it sends and receives no Raft traffic, and its connections
// to the others' client ports and theirs to it stall, until Resume.
// Unlike a stopped process its clients still reach it (a leader that
// lost its majority refuses their writes).
func (g *Group) Pause(m *Member) {
	g.mu.Lock()
	m.paused = true
	g.mu.Unlock()
	g.connect()
}

// Resume ends a Pause.
func (g *Group) Resume(m *Member) {
	g.mu.Lock()
	m.paused = false
	g.mu.Unlock()
	g.connect()
}

// Close stops every node.
func (g *Group) Close() {
	g.mu.Lock()
	g.closed = true
	g.changed.Broadcast()
	g.mu.Unlock()
	for _, m := range g.Members() {
		if srv := m.Server(); srv != nil {
			srv.Close()
		}
	}
}
