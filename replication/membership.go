package replication

import (
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/raft"
	"github.com/lockredis/lockredis/engine"
)

// Membership at run time, named after RedisRaft's commands:
//
//	RAFT.INFO                              the group as this node sees it
//	RAFT.NODE ADD id raft-host:port [NONVOTER]   on the leader
//	RAFT.NODE REMOVE id                    on the leader
//	RAFT.TRANSFER_LEADER [id]              on the leader
//
// RAFT.REPORT is the followers' internal report to the leader
// (progress.go).

func (n *Node) raftCommands() []*engine.Command {
	admin := engine.FlagAdmin | engine.FlagNoKeyspace
	return []*engine.Command{
		{Name: "raft.info", Spec: engine.NewSpec(1, admin), Handler: n.cmdRaftInfo},
		{Name: "raft.node", Spec: engine.NewSpec(-3, admin), Handler: n.cmdRaftNode},
		{Name: "raft.transfer_leader", Spec: engine.NewSpec(-1, admin), Handler: n.cmdRaftTransfer},
		{Name: "raft.report", Spec: engine.NewSpec(4, admin), Handler: n.cmdRaftReport},
	}
}

const errNotLeaderCmd = "ERR this node is not the leader; send it to the leader (ROLE names it)"

func (n *Node) cmdRaftInfo(c *engine.Call) {
	r := n.r.Load()
	if r == nil {
		c.W.Error(errShutdown.Error())
		return
	}
	leaderID, leaderAddr := n.leaderAddr()
	var sb strings.Builder
	line := func(k, v string) { sb.WriteString(k + ":" + v + "\r\n") }
	sb.WriteString("# Raft\r\n")
	line("node_id", n.cfg.ID)
	line("raft_addr", n.cfg.Advertise)
	line("addr", n.addr)
	line("state", strings.ToLower(r.State().String()))
	line("leader_id", leaderID)
	line("leader_addr", leaderAddr)
	line("term", strconv.FormatUint(r.CurrentTerm(), 10))
	line("last_log_index", strconv.FormatUint(r.LastIndex(), 10))
	line("commit_index", strconv.FormatUint(r.CommitIndex(), 10))
	line("applied_index", strconv.FormatUint(n.fsm.appliedIndex(), 10))
	// What compaction left: the log holds first_log_index..last_log_index,
	// everything up to snapshot_index is in the latest snapshot.
	first, _ := n.store.FirstIndex()
	line("first_log_index", strconv.FormatUint(first, 10))
	line("snapshot_index", r.Stats()["last_snapshot_index"])
	line("last_contact_ms", strconv.FormatInt(lastContactMs(r), 10))
	line("group_name", n.cfg.GroupName)
	sb.WriteString("\r\n# Nodes\r\n")
	last := r.LastIndex()
	for i, m := range n.members() {
		role := "follower"
		if m.leader {
			role = "leader"
		}
		suffrage := "voter"
		if !m.voter {
			suffrage = "nonvoter"
		}
		lag := "?"
		if m.id == n.cfg.ID || m.leader && n.IsLeader() {
			lag = "0"
		} else if n.IsLeader() && !m.lastReport.IsZero() {
			lag = strconv.FormatUint(last-min(last, m.index), 10)
		}
		line("node"+strconv.Itoa(i), "id="+m.id+",raft_addr="+m.raftAddr+",addr="+m.addr+",role="+role+
			",suffrage="+suffrage+",last_index="+strconv.FormatUint(m.index, 10)+",lag="+lag)
	}
	c.W.Verbatim("txt", sb.String())
}

func lastContactMs(r *raft.Raft) int64 {
	if r.State() == raft.Leader {
		return 0
	}
	t := r.LastContact()
	if t.IsZero() {
		return -1
	}
	return int64(time.Since(t) / time.Millisecond)
}

func (n *Node) cmdRaftNode(c *engine.Call) {
	r := n.r.Load()
	if r == nil || !n.IsLeader() {
		c.W.Error(errNotLeaderCmd)
		return
	}
	switch strings.ToLower(string(c.Args[1])) {
	case "add":
		if len(c.Args) < 4 || len(c.Args) > 5 {
			c.W.Error("ERR syntax: RAFT.NODE ADD id raft-host:port [NONVOTER]")
			return
		}
		id, addr := raft.ServerID(c.Args[2]), raft.ServerAddress(c.Args[3])
		var f raft.IndexFuture
		switch {
		case len(c.Args) == 5 && strings.EqualFold(string(c.Args[4]), "nonvoter"):
			f = r.AddNonvoter(id, addr, 0, 10*time.Second)
		case len(c.Args) == 5:
			c.W.Error(engine.ErrSyntax.Error())
			return
		default:
			f = r.AddVoter(id, addr, 0, 10*time.Second)
		}
		if err := f.Error(); err != nil {
			c.W.Error("ERR " + err.Error())
			return
		}
		c.W.Status("OK")
	case "remove":
		if len(c.Args) != 3 {
			c.W.Error("ERR syntax: RAFT.NODE REMOVE id")
			return
		}
		if string(c.Args[2]) == n.cfg.ID {
			c.W.Error("ERR the leader cannot remove itself: RAFT.TRANSFER_LEADER first")
			return
		}
		if err := r.RemoveServer(raft.ServerID(c.Args[2]), 0, 10*time.Second).Error(); err != nil {
			c.W.Error("ERR " + err.Error())
			return
		}
		c.W.Status("OK")
	default:
		c.W.Error("ERR syntax: RAFT.NODE ADD|REMOVE ...")
	}
}

func (n *Node) cmdRaftTransfer(c *engine.Call) {
	r := n.r.Load()
	if r == nil || !n.IsLeader() {
		c.W.Error(errNotLeaderCmd)
		return
	}
	var f raft.Future
	switch len(c.Args) {
	case 1:
		f = r.LeadershipTransfer()
	case 2:
		var addr raft.ServerAddress
		for _, m := range n.members() {
			if m.id == string(c.Args[1]) {
				addr = raft.ServerAddress(m.raftAddr)
			}
		}
		if addr == "" {
			c.W.Error("ERR no node with id " + string(c.Args[1]))
			return
		}
		f = r.LeadershipTransferToServer(raft.ServerID(c.Args[1]), addr)
	default:
		c.W.Error(engine.ErrSyntax.Error())
		return
	}
	if err := f.Error(); err != nil {
		c.W.Error("ERR " + err.Error())
		return
	}
	c.W.Status("OK")
}

func (n *Node) cmdRaftReport(c *engine.Call) {
	if !n.IsLeader() {
		c.W.Error(errNotLeaderCmd)
		return
	}
	index, err := strconv.ParseUint(string(c.Args[3]), 10, 64)
	if err != nil {
		c.W.Error(engine.ErrNotInteger.Error())
		return
	}
	n.report(string(c.Args[1]), string(c.Args[2]), index)
	c.W.Status("OK")
}

func timeAfter(ms int) <-chan time.Time { return time.After(time.Duration(ms) * time.Millisecond) }
