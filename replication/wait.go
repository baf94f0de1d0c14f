package replication

import (
	"time"

	"github.com/lockredis/lockredis/engine"
)

// cmdWait is WAIT numreplicas timeout: how many followers have every
// entry the leader had when WAIT ran, in their fsynced log. The reply
// already waited for the client's writes to be committed, so at least a
// majority less the leader has them; WAIT waits for more when asked, up
// to timeout (0: forever, as Redis).
func (n *Node) cmdWait(c *engine.Call) {
	want, ok1 := engine.ParseInt(c.Args[1])
	ms, ok2 := engine.ParseInt(c.Args[2])
	if !ok1 || !ok2 {
		c.W.Error(engine.ErrNotInteger.Error())
		return
	}
	if ms < 0 {
		c.W.Error("ERR timeout is negative")
		return
	}
	c.W.Int(int64(n.waitFollowers(want, ms)))
}

// cmdWaitAOF is WAITAOF numlocal numreplicas timeout: [local, replicas]
// that fsynced the writes. Raft appends are fsynced before a node
// acknowledges them, so it counts as WAIT does, and the leader's own log
// is always fsynced (local 1).
func (n *Node) cmdWaitAOF(c *engine.Call) {
	local, ok1 := engine.ParseInt(c.Args[1])
	want, ok2 := engine.ParseInt(c.Args[2])
	ms, ok3 := engine.ParseInt(c.Args[3])
	if !ok1 || !ok2 || !ok3 {
		c.W.Error(engine.ErrNotInteger.Error())
		return
	}
	if ms < 0 {
		c.W.Error("ERR timeout is negative")
		return
	}
	_ = local
	got := n.waitFollowers(want, ms)
	c.W.Array(2)
	c.W.Int(1)
	c.W.Int(int64(got))
}

func (n *Node) waitFollowers(want, ms int64) int {
	r := n.r.Load()
	if r == nil {
		return 0
	}
	target := r.LastIndex()
	var deadline time.Time
	if ms > 0 {
		deadline = time.Now().Add(time.Duration(ms) * time.Millisecond)
	}
	for {
		got := n.followersAt(target)
		if int64(got) >= want || !deadline.IsZero() && time.Now().After(deadline) || !n.IsLeader() {
			return got
		}
		select {
		case <-n.stop:
			return got
		case <-time.After(reportEvery / 2):
		}
	}
}

// followersAt counts the followers known to hold index: those that
// reported it, and at least a majority less the leader once it is
// committed.
func (n *Node) followersAt(index uint64) int {
	count, voters := 0, 0
	for _, m := range n.members() {
		if m.voter {
			voters++
		}
		if m.id != n.cfg.ID && m.index >= index {
			count++
		}
	}
	if r := n.r.Load(); r != nil && r.CommitIndex() >= index && voters > 0 {
		count = max(count, voters/2)
	}
	return count
}
