package replication

import (
	"strconv"
	"strings"

	"github.com/lockredis/lockredis/engine"
)

// With cluster-enabled yes, CLUSTER SLOTS, SHARDS and NODES describe the
// group as one shard: the leader is the master of every slot and the
// other nodes its replicas, so cluster clients (go-redis ClusterClient,
// ioredis Cluster...) send to the leader, and a follower answers a keyed
// command with -MOVED to it (forward.go). The rest of CLUSTER is the
// engine's single-node emulation.

func (n *Node) clusterCommand() *engine.Command {
	orig := n.eng.Table.Get([]byte("cluster"))
	subs := make([]*engine.Command, 0, len(orig.Subcommands))
	for _, sc := range orig.Subcommands {
		cp := &engine.Command{Spec: sc.Spec, Name: sc.Name, Handler: sc.Handler}
		h := sc.Handler
		mine := map[string]engine.Handler{"slots": n.cmdClusterSlots, "shards": n.cmdClusterShards, "nodes": n.cmdClusterNodes}[sc.Name]
		if mine != nil {
			cp.Handler = func(c *engine.Call) {
				if !c.E.ClusterEnabled() {
					h(c) // the engine's refusal
					return
				}
				mine(c)
			}
		}
		subs = append(subs, cp)
	}
	return &engine.Command{Name: "cluster", Spec: orig.Spec, Handler: orig.Handler, Subcommands: subs}
}

// clusterMembers is the leader first, then the followers that announced
// an address.
func (n *Node) clusterMembers() []member {
	var leader, rest []member
	for _, m := range n.members() {
		switch {
		case m.addr == "":
		case m.leader:
			leader = append(leader, m)
		default:
			rest = append(rest, m)
		}
	}
	return append(leader, rest...)
}

func (n *Node) nodeID(m member) string { return hexID("node", n.cfg.GroupName, m.id) }

func (n *Node) cmdClusterSlots(c *engine.Call) {
	ms := n.clusterMembers()
	if len(ms) == 0 || !ms[0].leader {
		c.W.Array(0)
		return
	}
	c.W.Array(1)
	c.W.Array(2 + len(ms))
	c.W.Int(0)
	c.W.Int(16383)
	for _, m := range ms {
		host, port := splitAddr(m.addr)
		c.W.Array(4)
		c.W.BulkString(host)
		c.W.Int(int64(port))
		c.W.BulkString(n.nodeID(m))
		c.W.Map(0)
	}
}

func (n *Node) cmdClusterShards(c *engine.Call) {
	ms := n.clusterMembers()
	if len(ms) == 0 || !ms[0].leader {
		c.W.Array(0)
		return
	}
	c.W.Array(1)
	c.W.Map(2)
	c.W.BulkString("slots")
	c.W.Array(2)
	c.W.Int(0)
	c.W.Int(16383)
	c.W.BulkString("nodes")
	c.W.Array(len(ms))
	for _, m := range ms {
		host, port := splitAddr(m.addr)
		role := "replica"
		if m.leader {
			role = "master"
		}
		c.W.Map(7)
		c.W.BulkString("id")
		c.W.BulkString(n.nodeID(m))
		c.W.BulkString("port")
		c.W.Int(int64(port))
		c.W.BulkString("ip")
		c.W.BulkString(host)
		c.W.BulkString("endpoint")
		c.W.BulkString(host)
		c.W.BulkString("role")
		c.W.BulkString(role)
		c.W.BulkString("replication-offset")
		c.W.Int(int64(m.index))
		c.W.BulkString("health")
		c.W.BulkString("online")
	}
}

func (n *Node) cmdClusterNodes(c *engine.Call) {
	ms := n.clusterMembers()
	var sb strings.Builder
	leaderID := ""
	for _, m := range ms {
		if m.leader {
			leaderID = n.nodeID(m)
		}
	}
	for _, m := range ms {
		host, port := splitAddr(m.addr)
		flags, master, slots := "slave", leaderID, ""
		if m.leader {
			flags, master, slots = "master", "-", " 0-16383"
		}
		if m.id == n.cfg.ID {
			flags = "myself," + flags
		}
		if master == "" {
			master = "-"
		}
		sb.WriteString(n.nodeID(m) + " " + host + ":" + strconv.Itoa(port) + "@" + strconv.Itoa(port+10000) +
			" " + flags + " " + master + " 0 0 1 connected" + slots + "\n")
	}
	c.W.Verbatim("txt", sb.String())
}
