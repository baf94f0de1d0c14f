package replication

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	raftboltdb "github.com/hashicorp/raft-boltdb/v2"
	"github.com/lockredis/lockredis/engine"
	"github.com/lockredis/lockredis/pubsub"
	"github.com/lockredis/lockredis/resp"
	"go.etcd.io/bbolt"
)

// Node is one member of a replicated group. Attach starts it on a
// server's engine; Close stops it. A Node can be attached again after
// Close (the Go API's Restart).
//
// The pieces, all hashicorp's: raft (election, log replication,
// membership, snapshots: the engine behind Consul, Nomad and Vault); a
// raft-boltdb/v2 BoltStore as log and stable store (one bbolt file,
// every append fsynced in one transaction: the store Consul and Nomad
// use, raft-wal being still marked experimental by its README); raft's
// FileSnapshotStore (snapshots as files, written beside the log, two
// kept); raft's TCP transport (plain TCP between nodes, a pool of
// connections per peer, pipelined AppendEntries).
type Node struct {
	cfg Config

	mu        sync.Mutex
	r         atomic.Pointer[raft.Raft] // nil when not attached
	trans     raft.Transport
	store     *raftboltdb.BoltStore
	snaps     *raft.FileSnapshotStore
	eng       *engine.Engine
	hub       *pubsub.Hub
	addr      string // this node's client address
	fsm       *fsm
	commits   *committer
	verifier  *verifier
	router    *router
	observer  *raft.Observer
	stop      chan struct{}
	wg        sync.WaitGroup
	closed    bool
	notifyCh  chan bool
	observeCh chan raft.Observation
	compactCh chan struct{} // wantCompaction (compact.go)

	// leading is the term this node leads in and serves as leader; 0
	// while it does not (not leader, or leader still catching up).
	leading atomic.Uint64
	// leaderID is the id of the leader as this node last heard it.
	leaderID atomic.Pointer[string]

	// progress is what followers last reported to this node as leader
	// (progress.go).
	progMu   sync.Mutex
	progress map[string]progress
	// leadSince is when this node last started serving as leader;
	// unreported, the nodes it warned of since; hbFailing, the last
	// contact of each peer whose heartbeats fail (session.go).
	leadSince  time.Time
	unreported map[string]bool
	hbFailing  map[string]time.Time

	// lastMaster is the leader address +switch-master last announced.
	lastMaster string
}

// New checks cfg and makes a node; Attach starts it.
func New(cfg Config) (*Node, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	return &Node{cfg: cfg}, nil
}

// Config is the node's configuration, defaults filled in.
func (n *Node) Config() Config { return n.cfg }

// Attach starts the node on eng (before the server takes clients) and
// returns the router its connections go through. addr is the server's
// client address.
func (n *Node) Attach(eng *engine.Engine, hub *pubsub.Hub, addr string) (resp.Router, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.r.Load() != nil {
		return nil, errors.New("replication: node already attached")
	}
	if err := os.MkdirAll(n.cfg.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("raft-dir: %v", err)
	}
	logger := hclog.New(&hclog.LoggerOptions{
		Name:   "raft",
		Level:  hclog.Info,
		Output: &logWriter{logf: n.cfg.Logf},
	})
	// NoFreelistSync: bbolt does not write its freelist at every commit
	// (it rebuilds it when it opens the file), so each append's fsynced
	// write is smaller; Consul opens its raft store the same way.
	store, err := raftboltdb.New(raftboltdb.Options{
		Path:        filepath.Join(n.cfg.Dir, "raft.db"),
		BoltOptions: &bbolt.Options{NoFreelistSync: true, Timeout: 5 * time.Second},
	})
	if err != nil {
		return nil, fmt.Errorf("raft log store: %v", err)
	}
	snaps, err := raft.NewFileSnapshotStoreWithLogger(n.cfg.Dir, 2, logger)
	if err != nil {
		store.Close()
		return nil, fmt.Errorf("raft snapshot store: %v", err)
	}
	trans, err := n.transport(logger)
	if err != nil {
		store.Close()
		return nil, err
	}
	n.eng, n.hub, n.addr = eng, hub, addr
	n.stop = make(chan struct{})
	n.closed = false
	n.leading.Store(0)
	n.fsm = newFSM(n)
	n.commits = newCommitter(n)
	n.verifier = &verifier{n: n}
	n.router = newRouter(n)
	n.notifyCh = make(chan bool, 8)
	n.compactCh = make(chan struct{}, 1)
	rc := n.cfg.raftConfig()
	rc.Logger = logger
	rc.NotifyCh = n.notifyCh
	// Followers never expire keys, end sessions or hand locks over on
	// their own: the leader decides and ships the result.
	n.fsm.follow()
	// The recent entries stay in memory: the leader sends them to its
	// followers and applies them without reading (and msgpack-decoding)
	// them back from bbolt.
	logs, err := raft.NewLogCache(logCacheSize, store)
	if err != nil {
		store.Close()
		return nil, fmt.Errorf("raft log cache: %v", err)
	}
	r, err := raft.NewRaft(rc, n.fsm, logs, store, snaps, trans)
	if err != nil {
		if c, ok := trans.(io.Closer); ok {
			c.Close()
		}
		store.Close()
		return nil, fmt.Errorf("raft: %v", err)
	}
	n.r.Store(r)
	n.trans, n.store, n.snaps = trans, store, snaps
	if err := n.bootstrap(r, store, snaps); err != nil {
		n.shutdownRaft(r)
		return nil, err
	}
	// Leader changes, and on a leader its heartbeats' failures and
	// resumptions (session.go). Not blocking raft: an observation is lost
	// when the channel is full, so it is roomy and drained at once.
	n.observeCh = make(chan raft.Observation, 256)
	n.observer = raft.NewObserver(n.observeCh, false, func(o *raft.Observation) bool {
		switch o.Data.(type) {
		case raft.LeaderObservation, raft.FailedHeartbeatObservation, raft.ResumedHeartbeatObservation:
			return true
		}
		return false
	})
	r.RegisterObserver(n.observer)
	n.registerCommands()
	n.wg.Add(6)
	go n.watchSessions()
	go n.runCompactor()
	go n.watchLeadership()
	go n.watchLeader()
	go n.commits.run()
	go n.runReporter()
	return n.router, nil
}

// logCacheSize is how many recent log entries stay in memory.
const logCacheSize = 1024

// transport is raft's TCP transport on Bind, or Config.Transport's.
func (n *Node) transport(logger hclog.Logger) (raft.Transport, error) {
	if n.cfg.Transport != nil {
		return n.cfg.Transport()
	}
	adv, err := net.ResolveTCPAddr("tcp", n.cfg.Advertise)
	if err != nil {
		return nil, fmt.Errorf("raft-bind: %v", err)
	}
	// MaxRPCsInFlight 1: no pipelining. With v1.8.0's default of 2, a
	// pipeline that meets a newer term can park its decoder on a channel
	// nobody reads, and the replicate goroutine, and with it Shutdown,
	// never ends: the fault tests saw a leader's SIGTERM hang after its
	// leadership transfer (compat_test's jepsen tests, finding 1).
	// Synchronous AppendEntries is also what raft's own docs find no
	// slower with batching (hashicorp/raft#541).
	trans, err := raft.NewTCPTransportWithConfig(n.cfg.Bind, adv, &raft.NetworkTransportConfig{
		MaxPool:         3,
		MaxRPCsInFlight: 1,
		Timeout:         n.cfg.transportTimeout(),
		Logger:          logger,
	})
	if err != nil {
		return nil, fmt.Errorf("raft-bind %s: %v", n.cfg.Bind, err)
	}
	return trans, nil
}

// dial connects to a client port (the leader's).
func (n *Node) dial(addr string) (net.Conn, error) {
	if n.cfg.Dial != nil {
		return n.cfg.Dial(addr)
	}
	return net.DialTimeout("tcp", addr, 2*time.Second)
}

// bootstrap starts the group from Peers when this node has no Raft state.
func (n *Node) bootstrap(r *raft.Raft, store *raftboltdb.BoltStore, snaps *raft.FileSnapshotStore) error {
	has, err := raft.HasExistingState(store, store, snaps)
	if err != nil {
		return fmt.Errorf("raft state: %v", err)
	}
	if has {
		if n.cfg.Peers != "" {
			n.cfg.Logf("notice", "Raft state found in %s: raft-peers is ignored, the group's membership is the one in the log", n.cfg.Dir)
		}
		return nil
	}
	if n.cfg.Peers == "" {
		n.cfg.Logf("notice", "No Raft state and no raft-peers: waiting to be added to a group (RAFT.NODE ADD on its leader)")
		return nil
	}
	peers, _ := parsePeers(n.cfg.Peers, false)
	var servers []raft.Server
	for _, p := range peers {
		servers = append(servers, raft.Server{Suffrage: raft.Voter, ID: raft.ServerID(p.ID), Address: raft.ServerAddress(p.Addr)})
	}
	n.cfg.Logf("notice", "Bootstrapping the Raft group with %s", n.cfg.Peers)
	if err := r.BootstrapCluster(raft.Configuration{Servers: servers}).Error(); err != nil && !errors.Is(err, raft.ErrCantBootstrap) {
		return fmt.Errorf("raft bootstrap: %v", err)
	}
	return nil
}

// Close leaves the group: a leader hands leadership to another voter
// first (so that SHUTDOWN or SIGTERM of the leader costs no election
// timeout), then Raft stops and its files are closed.
func (n *Node) Close() error { return n.close(true) }

func (n *Node) close(handOver bool) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	r := n.r.Load()
	if r == nil || n.closed {
		return nil
	}
	n.closed = true
	if handOver && r.State() == raft.Leader && n.voters() > 1 {
		if err := r.LeadershipTransfer().Error(); err != nil {
			n.cfg.Logf("warning", "Leadership transfer before shutdown failed: %v", err)
		}
	}
	close(n.stop)
	err := n.shutdownRaft(r)
	n.wg.Wait()
	n.router.closeAll()
	n.r.Store(nil)
	return err
}

// shutdownRaft stops r and closes its transport and stores.
func (n *Node) shutdownRaft(r *raft.Raft) error {
	if n.observer != nil {
		r.DeregisterObserver(n.observer)
	}
	err := r.Shutdown().Error()
	n.commits.fail(errShutdown, 0)
	if c, ok := n.trans.(io.Closer); ok {
		c.Close()
	}
	if cerr := n.store.Close(); err == nil {
		err = cerr
	}
	return err
}

// voters counts the voters of the latest configuration.
func (n *Node) voters() int {
	f := n.r.Load().GetConfiguration()
	if f.Error() != nil {
		return 0
	}
	c := 0
	for _, s := range f.Configuration().Servers {
		if s.Suffrage == raft.Voter {
			c++
		}
	}
	return c
}

// Raft is the underlying hashicorp/raft instance (nil when not attached).
func (n *Node) Raft() *raft.Raft { return n.r.Load() }

// IsLeader reports whether this node leads and serves as leader.
func (n *Node) IsLeader() bool { return n.leading.Load() != 0 }

// watchLeadership follows this node's own leadership (raft's NotifyCh).
func (n *Node) watchLeadership() {
	defer n.wg.Done()
	for {
		select {
		case <-n.stop:
			return
		case leader := <-n.notifyCh:
			if leader {
				n.takeOver()
			} else {
				n.stepDown()
			}
		}
	}
}

// takeOver makes a new leader serve: first every committed entry is
// applied (Barrier, which also commits an entry of the new term: a new
// leader must not serve reads before it has, the lesson of Jepsen's
// RedisRaft analysis), then the replicated clock continues from the last
// applied entry, the engine starts expiring keys and timing locks, and
// the node announces its client address in the log.
func (n *Node) takeOver() {
	r := n.r.Load()
	term := r.CurrentTerm()
	if err := r.Barrier(0).Error(); err != nil {
		n.cfg.Logf("warning", "New leader could not catch up: %v", err)
		return
	}
	if r.State() != raft.Leader || r.CurrentTerm() != term {
		return
	}
	n.seed(term)
	n.commits.reset(term, n.eng.LastChangeSeq())
	n.fsm.lead()
	f := r.Apply(n.makeEntry(kindAnnounce, term, announce{id: n.cfg.ID, addr: n.addr}.encode()), 0)
	if err := f.Error(); err != nil {
		n.cfg.Logf("warning", "New leader could not announce itself: %v", err)
		return
	}
	// Every connection's lock session known now is orphaned (sessions
	// are keys, engine/lock_session.go); taken before serving, so that
	// none of a connection served from now on is among them.
	orphans := n.eng.OrphanedSessions()
	n.progMu.Lock()
	n.leadSince, n.unreported = time.Now(), nil
	n.progMu.Unlock()
	n.leading.Store(term)
	n.commits.kick()
	n.cfg.Logf("notice", "Leading the group (term %d), serving clients on %s", term, n.addr)
	// No connection that held a session survived the change: end them
	// all, their locks released after their lock-delay. In a goroutine: the release waits
	// for its commit, and this one must stay free to hear of a lost
	// leadership.
	if orphans.Len() == 0 {
		return
	}
	n.wg.Add(1)
	go func() {
		defer n.wg.Done()
		if k := n.eng.EndSessions(orphans); k > 0 {
			n.cfg.Logf("notice", "Ended %d lock sessions whose connections did not survive the leader change", k)
		}
	}()
}

// stepDown is leadership lost: held replies fail, the connections whose
// state lived here close, and the engine is rebuilt from the log when it
// holds changes that may never commit.
func (n *Node) stepDown() {
	was := n.leading.Swap(0)
	// Heartbeat failures are a leadership's: the next one starts afresh
	// (not at takeOver: its heartbeats may have failed already).
	n.progMu.Lock()
	n.hbFailing = nil
	n.progMu.Unlock()
	n.fsm.follow()
	lost := n.commits.fail(errLeadershipLost, n.eng.LastChangeSeq())
	n.router.dropLocal()
	if lost {
		if err := n.fsm.rebuild(); err != nil {
			n.cfg.Logf("warning", "Rebuilding the keyspace from the Raft log failed: %v", err)
		}
	} else {
		n.fsm.settled()
	}
	if was != 0 {
		n.cfg.Logf("notice", "No longer leading the group (was leader in term %d)", was)
	}
}

// watchLeader follows who leads (raft's observations): sentinel clients
// get +switch-master, forwarded connections to the old leader close
// (session.go).
func (n *Node) watchLeader() {
	defer n.wg.Done()
	for {
		select {
		case <-n.stop:
			return
		case o := <-n.observeCh:
			if n.heartbeatObserved(o.Data) {
				continue
			}
			lo, ok := o.Data.(raft.LeaderObservation)
			if !ok {
				continue
			}
			id := string(lo.LeaderID)
			old := n.leaderID.Swap(&id)
			if old == nil || *old != id {
				n.leaderChanged(id)
			}
		}
	}
}

// leaderChanged runs when the leader this node knows of changes (id ""
// while there is none).
func (n *Node) leaderChanged(id string) {
	n.forwardsAfterLeaderChange(id)
	if id != "" {
		n.sentinelSwitch(id)
	}
}

// makeEntry encodes an entry made by this node as leader of term.
func (n *Node) makeEntry(kind byte, term uint64, body []byte) []byte {
	e := entry{kind: kind, time: n.eng.Clock.Now().UnixNano(), term: term, origin: n.cfg.ID, body: body}
	return e.encode(make([]byte, 0, 32+len(body)))
}

// leaderAddr is the client address of the current leader, "" when no
// leader is known or it has not announced itself yet.
func (n *Node) leaderAddr() (id, addr string) {
	p := n.leaderID.Load()
	if p == nil || *p == "" {
		return "", ""
	}
	return *p, n.fsm.memberAddr(*p)
}

// logWriter turns hashicorp's log lines into lockredis's log levels.
type logWriter struct {
	logf func(level, format string, args ...any)
}

func (w *logWriter) Write(p []byte) (int, error) {
	line := strings.TrimRight(string(p), "\n")
	level := "verbose"
	// raft logs its snapshot attempts a leader answers with errAhead as
	// failures; they are how the leader's compaction starts.
	if (strings.Contains(line, "[WARN]") || strings.Contains(line, "[ERROR]")) && !strings.Contains(line, errAheadText) {
		level = "warning"
	}
	w.logf(level, "%s", line)
	return len(p), nil
}

var _ io.Writer = (*logWriter)(nil)

// Crash stops the node at once, without handing leadership over: what a
// kill -9 does to a process (package raftgroup's tests use it).
func (n *Node) Crash() { n.close(false) }
