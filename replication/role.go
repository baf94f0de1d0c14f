package replication

import (
	"net"
	"sort"
	"strconv"
	"time"

	"github.com/hashicorp/raft"
	"github.com/lockredis/lockredis/engine"
)

// registerCommands puts the group's answers in the engine's table: ROLE,
// INFO replication, WAIT, WAITAOF, SENTINEL, CLUSTER's topology, RAFT.*.
// Each engine has its own table; the builtin one is not changed.
func (n *Node) registerCommands() {
	n.eng.Register(
		&engine.Command{Name: "role", Handler: n.cmdRole},
		&engine.Command{Name: "wait", Handler: n.cmdWait},
		&engine.Command{Name: "waitaof", Handler: n.cmdWaitAOF},
	)
	n.eng.Register(n.sentinelCommand(), n.clusterCommand())
	n.eng.Register(n.raftCommands()...)
	n.eng.SetReplicationInfo(n.infoReplication)
}

// member is one node of the group as the commands show it.
type member struct {
	id, raftAddr, addr string
	voter, leader      bool
	index              uint64 // last log index it reported (followers), or the leader's
	lastReport         time.Time
}

// members lists the group's configuration with what is known of each
// node: sorted by id, the leader included.
func (n *Node) members() []member {
	r := n.r.Load()
	if r == nil {
		return nil
	}
	f := r.GetConfiguration()
	if f.Error() != nil {
		return nil
	}
	addrs := n.fsm.memberAddrs()
	leaderID, _ := n.leaderAddr()
	var out []member
	for _, s := range f.Configuration().Servers {
		m := member{id: string(s.ID), raftAddr: string(s.Address), addr: addrs[string(s.ID)],
			voter: s.Suffrage == raft.Voter, leader: string(s.ID) == leaderID}
		if m.id == n.cfg.ID {
			m.index, m.addr = r.LastIndex(), n.addr
		} else if p, ok := n.progressOf(m.id); ok {
			m.index, m.lastReport = p.index, p.at
		}
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}

func splitAddr(addr string) (string, int) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr, 0
	}
	p, _ := strconv.Atoi(port)
	return host, p
}

// cmdRole answers as Redis: on the leader ["master", offset, [[ip, port,
// offset]...]] with its followers; on a follower ["slave", leader-ip,
// leader-port, state, offset]. Offsets are Raft log indexes.
func (n *Node) cmdRole(c *engine.Call) {
	r := n.r.Load()
	if r == nil {
		c.W.Error(errShutdown.Error())
		return
	}
	if n.IsLeader() {
		var followers []member
		for _, m := range n.members() {
			if m.id != n.cfg.ID && m.addr != "" {
				followers = append(followers, m)
			}
		}
		c.W.Array(3)
		c.W.BulkString("master")
		c.W.Int(int64(r.LastIndex()))
		c.W.Array(len(followers))
		for _, m := range followers {
			host, port := splitAddr(m.addr)
			c.W.Array(3)
			c.W.BulkString(host)
			c.W.BulkString(strconv.Itoa(port))
			c.W.BulkString(strconv.FormatUint(m.index, 10))
		}
		return
	}
	_, addr := n.leaderAddr()
	host, port, state := "?", -1, "connect"
	if addr != "" {
		host, port = splitAddr(addr)
		state = "connected"
	}
	c.W.Array(5)
	c.W.BulkString("slave")
	c.W.BulkString(host)
	c.W.Int(int64(port))
	c.W.BulkString(state)
	c.W.Int(int64(n.fsm.appliedIndex()))
}

// infoReplication is INFO's replication section for the group, in
// Redis's field names.
func (n *Node) infoReplication(b []byte) []byte {
	r := n.r.Load()
	line := func(k, v string) {
		b = append(b, k...)
		b = append(b, ':')
		b = append(b, v...)
		b = append(b, "\r\n"...)
	}
	b = append(b, "# Replication\r\n"...)
	if r == nil {
		line("role", "master")
		line("connected_slaves", "0")
		return b
	}
	offset := strconv.FormatUint(r.LastIndex(), 10)
	if n.IsLeader() {
		line("role", "master")
		var followers []member
		for _, m := range n.members() {
			if m.id != n.cfg.ID && m.addr != "" {
				followers = append(followers, m)
			}
		}
		line("connected_slaves", strconv.Itoa(len(followers)))
		for i, m := range followers {
			host, port := splitAddr(m.addr)
			lag := "-1"
			if !m.lastReport.IsZero() {
				lag = strconv.FormatInt(int64(time.Since(m.lastReport)/time.Second), 10)
			}
			line("slave"+strconv.Itoa(i), "ip="+host+",port="+strconv.Itoa(port)+",state=online,offset="+
				strconv.FormatUint(m.index, 10)+",lag="+lag)
		}
	} else {
		line("role", "slave")
		_, addr := n.leaderAddr()
		host, port := splitAddr(addr)
		line("master_host", host)
		line("master_port", strconv.Itoa(port))
		status := "down"
		if addr != "" {
			status = "up"
		}
		line("master_link_status", status)
		line("master_last_io_seconds_ago", strconv.FormatInt(int64(time.Since(r.LastContact())/time.Second), 10))
		line("master_sync_in_progress", "0")
		line("slave_read_repl_offset", strconv.FormatUint(n.fsm.appliedIndex(), 10))
		line("slave_repl_offset", strconv.FormatUint(n.fsm.appliedIndex(), 10))
		line("slave_priority", "100")
		line("slave_read_only", "1")
		line("replica_announced", "1")
		line("connected_slaves", "0")
	}
	line("master_failover_state", "no-failover")
	line("master_replid", replID(n.cfg.GroupName))
	line("master_replid2", "0000000000000000000000000000000000000000")
	line("master_repl_offset", offset)
	line("second_repl_offset", "-1")
	line("repl_backlog_active", "0")
	line("repl_backlog_size", "1048576")
	line("repl_backlog_first_byte_offset", "0")
	line("repl_backlog_histlen", "0")
	// lockredis's own: the Raft view.
	line("raft_node_id", n.cfg.ID)
	line("raft_state", r.State().String())
	line("raft_term", strconv.FormatUint(r.CurrentTerm(), 10))
	line("raft_commit_index", strconv.FormatUint(r.CommitIndex(), 10))
	line("raft_applied_index", strconv.FormatUint(n.fsm.appliedIndex(), 10))
	return b
}
