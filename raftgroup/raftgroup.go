// Package raftgroup runs lockredis servers as nodes of a replicated group
// (package replication): NewServer for one node of a real group (the
// binary uses it), Run for a whole group inside a Go test, with ways to
// crash, pause, partition and restart its members so that a program's
// failover handling can be tested.
//
//	g := raftgroup.Run(t, 3)
//	client := redis.NewClient(&redis.Options{Addr: g.Addrs()[0]}) // any node
//	...
//	g.Crash(g.Leader())  // the others elect a new leader
package raftgroup

import (
	"errors"
	"path/filepath"

	"github.com/lockredis/lockredis"
	"github.com/lockredis/lockredis/replication"
)

// NewServer makes a server that joins the group opts' Raft settings
// describe (RaftID, RaftBind, RaftPeers, RaftDir default Dir/raft,
// RaftGroupName). The keyspace of a node lives in memory and in the Raft
// log and snapshots: AppendOnly and the restart fence do not apply (a
// node that rejoins a live group needs no fence: it gets the group's
// state).
func NewServer(opts lockredis.Options) (*lockredis.Server, *replication.Node, error) {
	node, err := newNode(opts, replication.Config{})
	if err != nil {
		return nil, nil, err
	}
	return serverFor(opts, node), node, nil
}

func newNode(opts lockredis.Options, cfg replication.Config) (*replication.Node, error) {
	// Dir and Password may come as fields or as parameters (the
	// binary's settings).
	dir, password := opts.Dir, opts.Password
	if dir == "" {
		dir = opts.Params["dir"]
	}
	if password == "" {
		password = opts.Params["requirepass"]
	}
	if opts.RaftDir == "" {
		if dir == "" {
			return nil, errors.New("a replicated node needs Dir or RaftDir for its Raft log")
		}
		opts.RaftDir = filepath.Join(dir, "raft")
	}
	cfg.ID, cfg.Bind, cfg.Peers, cfg.Dir, cfg.GroupName = opts.RaftID, opts.RaftBind, opts.RaftPeers, opts.RaftDir, opts.RaftGroupName
	cfg.Password = password
	cfg.SeedAOF = opts.RaftSeedAOF
	if cfg.SessionTimeout == 0 {
		cfg.SessionTimeout = opts.RaftSessionTimeout
	}
	cfg.Logf = opts.Logf
	return replication.New(cfg)
}

func serverFor(opts lockredis.Options, node *replication.Node) *lockredis.Server {
	opts.Replication = node
	// The keyspace is in memory, its durability the Raft log; a node
	// that rejoins its group needs no fence. Set as parameters, over
	// whatever the binary's settings (Params) or the fields said.
	params := map[string]string{}
	for k, v := range opts.Params {
		params[k] = v
	}
	params["appendonly"], params["restart-fence"] = "no", "off"
	opts.Params, opts.AppendOnly, opts.RestartFence = params, false, ""
	return lockredis.NewServer(opts)
}
