package replication

import (
	"strconv"
	"strings"

	"github.com/lockredis/lockredis/engine"
)

// Sentinel emulation: every node answers the SENTINEL commands Sentinel
// clients use to find the master (go-redis FailoverClient, redis-py
// Sentinel, ioredis, Redisson), naming the group's leader as the master
// (GroupName, default mymaster) and the other nodes as its replicas and
// as the other sentinels; and it publishes +switch-master on its own
// pub/sub when the leader changes, which clients subscribed to it follow.

func (n *Node) sentinelCommand() *engine.Command {
	spec := engine.NewSpec(-2, engine.FlagAdmin|engine.FlagNoKeyspace)
	return &engine.Command{Name: "sentinel", Spec: spec, Handler: n.cmdSentinel}
}

func (n *Node) cmdSentinel(c *engine.Call) {
	sub := strings.ToLower(string(c.Args[1]))
	nameArg := func() bool {
		if len(c.Args) < 3 || string(c.Args[2]) != n.cfg.GroupName {
			if sub == "get-master-addr-by-name" {
				c.W.NullArray()
			} else {
				c.W.Error("ERR No such master with that name")
			}
			return false
		}
		return true
	}
	switch sub {
	case "get-master-addr-by-name":
		if !nameArg() {
			return
		}
		_, addr := n.leaderAddr()
		if addr == "" {
			c.W.NullArray()
			return
		}
		host, port := splitAddr(addr)
		c.W.Array(2)
		c.W.BulkString(host)
		c.W.BulkString(strconv.Itoa(port))
	case "master":
		if !nameArg() {
			return
		}
		n.writeMaster(c.W)
	case "masters":
		c.W.Array(1)
		n.writeMaster(c.W)
	case "replicas", "slaves":
		if !nameArg() {
			return
		}
		var reps []member
		for _, m := range n.members() {
			if !m.leader && m.addr != "" {
				reps = append(reps, m)
			}
		}
		_, laddr := n.leaderAddr()
		lhost, lport := splitAddr(laddr)
		c.W.Array(len(reps))
		for _, m := range reps {
			host, port := splitAddr(m.addr)
			writeFields(c.W, "name", m.addr, "ip", host, "port", strconv.Itoa(port),
				"runid", hexID("run", n.cfg.GroupName, m.id), "flags", "slave",
				"master-link-status", "ok", "master-host", lhost, "master-port", strconv.Itoa(lport),
				"slave-repl-offset", strconv.FormatUint(m.index, 10), "slave-priority", "100")
		}
	case "sentinels":
		if !nameArg() {
			return
		}
		var others []member
		for _, m := range n.members() {
			if m.id != n.cfg.ID && m.addr != "" {
				others = append(others, m)
			}
		}
		c.W.Array(len(others))
		for _, m := range others {
			host, port := splitAddr(m.addr)
			writeFields(c.W, "name", hexID("run", n.cfg.GroupName, m.id), "ip", host, "port", strconv.Itoa(port),
				"runid", hexID("run", n.cfg.GroupName, m.id), "flags", "sentinel")
		}
	case "myid":
		c.W.BulkString(hexID("run", n.cfg.GroupName, n.cfg.ID))
	case "ckquorum":
		if !nameArg() {
			return
		}
		c.W.Status("OK " + strconv.Itoa(len(n.members())) + " usable Sentinels. Quorum and failover authorization can be reached")
	default:
		c.W.Error("ERR Unknown sentinel subcommand '" + string(c.Args[1]) + "'")
	}
}

// writeMaster writes SENTINEL MASTER's field map for the leader.
func (n *Node) writeMaster(w engine.Writer) {
	id, addr := n.leaderAddr()
	host, port := splitAddr(addr)
	flags := "master"
	if addr == "" {
		flags = "master,s_down,o_down"
	}
	var replicas, voters int
	for _, m := range n.members() {
		if !m.leader {
			replicas++
		}
		if m.voter {
			voters++
		}
	}
	writeFields(w, "name", n.cfg.GroupName, "ip", host, "port", strconv.Itoa(port),
		"runid", hexID("run", n.cfg.GroupName, id), "flags", flags,
		"num-slaves", strconv.Itoa(replicas), "num-other-sentinels", strconv.Itoa(max(len(n.members())-1, 0)),
		"quorum", strconv.Itoa(voters/2+1), "failover-timeout", "180000", "parallel-syncs", "1")
}

// writeFields writes name/value pairs as Sentinel does: a map in RESP3, a
// flat array in RESP2.
func writeFields(w engine.Writer, kv ...string) {
	w.Map(len(kv) / 2)
	for _, s := range kv {
		w.BulkString(s)
	}
}

// sentinelSwitch publishes +switch-master for the new leader id, as a
// Sentinel does after a failover: "<name> <old-ip> <old-port> <new-ip>
// <new-port>".
func (n *Node) sentinelSwitch(id string) {
	go func() {
		addr := n.fsm.memberAddr(id)
		for i := 0; addr == "" && i < 200; i++ { // the new leader announces itself first
			select {
			case <-n.stop:
				return
			case <-timeAfter(10):
			}
			addr = n.fsm.memberAddr(id)
		}
		n.mu.Lock()
		old := n.lastMaster
		n.lastMaster = addr
		n.mu.Unlock()
		if addr == "" || old == addr {
			return
		}
		oh, op := splitAddr(old)
		if old == "" {
			oh, op = "0.0.0.0", 0
		}
		nh, np := splitAddr(addr)
		msg := n.cfg.GroupName + " " + oh + " " + strconv.Itoa(op) + " " + nh + " " + strconv.Itoa(np)
		if n.hub != nil {
			n.hub.Deliver([]byte("+switch-master"), []byte(msg))
		}
	}()
}
