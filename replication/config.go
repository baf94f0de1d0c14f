package replication

import (
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/raft"
)

// Config is one node's replication settings.
type Config struct {
	// ID names this node among Peers.
	ID string
	// Bind is the address this node's Raft traffic listens on, and the
	// one its peers reach it at unless Advertise says otherwise.
	Bind      string
	Advertise string
	// Peers is the group's first configuration, "1=host:port,2=...": the
	// same on every node. A node with no Raft state bootstraps the group
	// with exactly these members (safe when all agree, as hashicorp/raft
	// documents); a node with state ignores it.
	Peers string
	// Dir holds the Raft log, stable store and snapshots.
	Dir string
	// GroupName is the master's name Sentinel clients ask for.
	GroupName string
	// Password is the server's requirepass: a follower authenticates
	// with it on its connections to the leader.
	Password string
	Logf     func(level, format string, args ...any)

	// Transport, when set, replaces the TCP transport on Bind (package
	// raftgroup's in-process groups use raft's in-memory transport, which
	// can be partitioned); Dial, when set, replaces net.Dial for the
	// connections to the leader's client port.
	Transport func() (raft.Transport, error)
	Dial      func(addr string) (net.Conn, error)

	// Timeouts; zero takes the defaults below, chosen for a LAN.
	HeartbeatTimeout   time.Duration
	ElectionTimeout    time.Duration
	LeaderLeaseTimeout time.Duration
	// SessionTimeout is how long a node may be out of the group before
	// the session locks of the clients it forwards end (session.go):
	// the leader closes their connections once it has not heard from the
	// node for that long, and the node closes them on its side once it
	// has not heard from the leader for half of it.
	SessionTimeout time.Duration
	// SnapshotThreshold is how many entries the log grows by before a
	// snapshot lets it be compacted; TrailingLogs how many stay after.
	SnapshotThreshold uint64
	TrailingLogs      uint64
	// SnapshotInterval is how often raft checks the threshold.
	SnapshotInterval time.Duration
	// SeedAOF is a standalone node's append-only file whose data the
	// group starts with: its first leader loads it before serving, when
	// the group has no data yet (seed.go).
	SeedAOF string
}

// LAN defaults. hashicorp/raft's own (1 s heartbeat and election
// timeouts) make a failover take 2-3 s; a lock service on a LAN wants
// under 2 s from the leader's death to the next grant, and loopback or a
// LAN answers a heartbeat in well under a millisecond. A follower starts
// an election after 1-2 x HeartbeatTimeout without hearing from the
// leader; LeaderLeaseTimeout is how long a leader that cannot reach a
// majority keeps believing it leads (it must be below HeartbeatTimeout).
const (
	DefaultHeartbeatTimeout   = 400 * time.Millisecond
	DefaultElectionTimeout    = 400 * time.Millisecond
	DefaultLeaderLeaseTimeout = 200 * time.Millisecond
	DefaultSessionTimeout     = 10 * time.Second
	// maxTransportTimeout bounds one Raft RPC's I/O on the TCP transport.
	maxTransportTimeout      = 10 * time.Second
	DefaultSnapshotThreshold = 8192
	DefaultTrailingLogs      = 4096
	DefaultSnapshotInterval  = 10 * time.Second
	DefaultGroupName         = "mymaster"
)

// Peer is one member of the group's first configuration.
type Peer struct {
	ID, Addr string
}

// ParsePeers reads "1=host:port,2=host:port": ids and addresses unique,
// addresses host:port.
func ParsePeers(s string) ([]Peer, error) { return parsePeers(s, true) }

func parsePeers(s string, hostPort bool) ([]Peer, error) {
	var peers []Peer
	ids, addrs := map[string]bool{}, map[string]bool{}
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		id, addr, ok := strings.Cut(item, "=")
		if !ok || id == "" || addr == "" {
			return nil, fmt.Errorf("raft-peers: %q is not id=host:port", item)
		}
		if _, _, err := net.SplitHostPort(addr); err != nil && hostPort {
			return nil, fmt.Errorf("raft-peers: %q: %v", item, err)
		}
		if ids[id] {
			return nil, fmt.Errorf("raft-peers: id %s given twice", id)
		}
		if addrs[addr] {
			return nil, fmt.Errorf("raft-peers: address %s given twice", addr)
		}
		ids[id], addrs[addr] = true, true
		peers = append(peers, Peer{ID: id, Addr: addr})
	}
	sort.Slice(peers, func(i, j int) bool { return peers[i].ID < peers[j].ID })
	return peers, nil
}

// withDefaults checks c and fills in what is left zero.
func (c Config) withDefaults() (Config, error) {
	if c.ID == "" {
		return c, errors.New("raft-id is required")
	}
	if c.Bind == "" {
		return c, errors.New("raft-bind is required")
	}
	if _, _, err := net.SplitHostPort(c.Bind); err != nil && c.Transport == nil {
		return c, fmt.Errorf("raft-bind: %v", err)
	}
	if c.Advertise == "" {
		c.Advertise = c.Bind
	}
	if c.Dir == "" {
		return c, errors.New("raft-dir is required (the default is <dir>/raft)")
	}
	c.Dir = filepath.Clean(c.Dir)
	if c.GroupName == "" {
		c.GroupName = DefaultGroupName
	}
	if c.Logf == nil {
		c.Logf = func(string, string, ...any) {}
	}
	if c.HeartbeatTimeout == 0 {
		c.HeartbeatTimeout = DefaultHeartbeatTimeout
	}
	if c.ElectionTimeout == 0 {
		c.ElectionTimeout = DefaultElectionTimeout
	}
	if c.LeaderLeaseTimeout == 0 {
		c.LeaderLeaseTimeout = DefaultLeaderLeaseTimeout
	}
	if c.SessionTimeout == 0 {
		c.SessionTimeout = DefaultSessionTimeout
	}
	// A follower notices a lost leader only after 1-2 heartbeat
	// timeouts; a session timeout below that would end the sessions of
	// a node that was never out.
	if c.SessionTimeout < 2*c.HeartbeatTimeout {
		return c, fmt.Errorf("raft-session-timeout %v is below twice the heartbeat timeout (%v)", c.SessionTimeout, 2*c.HeartbeatTimeout)
	}
	if c.SnapshotThreshold == 0 {
		c.SnapshotThreshold = DefaultSnapshotThreshold
	}
	if c.TrailingLogs == 0 {
		c.TrailingLogs = DefaultTrailingLogs
	}
	if c.SnapshotInterval == 0 {
		c.SnapshotInterval = DefaultSnapshotInterval
	}
	if c.Peers != "" {
		peers, err := parsePeers(c.Peers, c.Transport == nil)
		if err != nil {
			return c, err
		}
		found := false
		for _, p := range peers {
			found = found || p.ID == c.ID
		}
		if !found {
			return c, fmt.Errorf("raft-peers does not list this node's raft-id %s", c.ID)
		}
	}
	return c, nil
}

// raftConfig is hashicorp/raft's configuration for c.
func (c Config) raftConfig() *raft.Config {
	rc := raft.DefaultConfig()
	rc.LocalID = raft.ServerID(c.ID)
	rc.HeartbeatTimeout = c.HeartbeatTimeout
	rc.ElectionTimeout = c.ElectionTimeout
	rc.LeaderLeaseTimeout = c.LeaderLeaseTimeout
	// CommitTimeout paces heartbeats when idle and how soon followers
	// learn a new commit index; a few ms costs nothing on a LAN.
	rc.CommitTimeout = 5 * time.Millisecond
	rc.SnapshotThreshold = c.SnapshotThreshold
	rc.TrailingLogs = c.TrailingLogs
	rc.SnapshotInterval = c.SnapshotInterval
	// Entries are batches of many clients' changes already; a larger
	// pipeline keeps a slow follower catching up quickly.
	rc.MaxAppendEntries = 256
	rc.BatchApplyCh = true
	return rc
}

// transportTimeout is the TCP transport's I/O timeout: 10 s, or the
// session timeout when that is shorter. On a silent cut (packets
// dropped) raft reports a follower's failed heartbeat only once an RPC
// times out, and the leader counts the follower out from its last
// contact (session.go): with a longer I/O timeout a shorter
// raft-session-timeout would act as the I/O timeout. (InstallSnapshot
// scales its deadline with the snapshot's size, so a short timeout does
// not cut off a large snapshot.)
func (c Config) transportTimeout() time.Duration {
	if c.SessionTimeout > 0 && c.SessionTimeout < maxTransportTimeout {
		return c.SessionTimeout
	}
	return maxTransportTimeout
}
