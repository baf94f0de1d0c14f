package replication

import (
	"bufio"
	"crypto/sha1"
	"encoding/hex"
	"net"
	"strconv"
	"time"
)

// Followers report to the leader, every reportEvery, which client address
// they serve on and the last index in their (fsynced) log: hashicorp/raft
// does not expose its followers' match indexes, and WAIT, ROLE, INFO and
// RAFT.INFO need them. The leader writes a follower's address in the log
// (an announce entry) when it is new or changed, so that every node can
// name every other one (SENTINEL REPLICAS, CLUSTER SLOTS).
const reportEvery = 50 * time.Millisecond

type progress struct {
	addr  string
	index uint64
	at    time.Time
}

func (n *Node) progressOf(id string) (progress, bool) {
	n.progMu.Lock()
	defer n.progMu.Unlock()
	p, ok := n.progress[id]
	return p, ok && time.Since(p.at) < 2*time.Second
}

// report records a follower's report on the leader.
func (n *Node) report(id, addr string, index uint64) {
	n.progMu.Lock()
	if n.progress == nil {
		n.progress = map[string]progress{}
	}
	n.progress[id] = progress{addr: addr, index: index, at: time.Now()}
	n.progMu.Unlock()
	if term := n.leading.Load(); term != 0 && n.fsm.memberAddr(id) != addr {
		if r := n.r.Load(); r != nil {
			r.Apply(n.makeEntry(kindAnnounce, term, announce{id: id, addr: addr}.encode()), 0)
		}
	}
}

// runReporter sends this node's reports to the leader while it follows.
func (n *Node) runReporter() {
	defer n.wg.Done()
	var conn net.Conn
	var br *bufio.Reader
	var connAddr string
	defer func() {
		if conn != nil {
			conn.Close()
		}
	}()
	t := time.NewTicker(reportEvery)
	defer t.Stop()
	for {
		select {
		case <-n.stop:
			return
		case <-t.C:
		}
		r := n.r.Load()
		if r == nil || n.IsLeader() {
			continue
		}
		_, addr := n.leaderAddr()
		if addr == "" || addr == n.addr {
			continue
		}
		if conn != nil && connAddr != addr {
			conn.Close()
			conn = nil
		}
		if conn == nil {
			c, err := n.dial(addr)
			if err != nil {
				continue
			}
			conn, br, connAddr = c, bufio.NewReader(c), addr
			if n.cfg.Password != "" {
				conn.Write(appendCommand(nil, [][]byte{[]byte("AUTH"), []byte(n.cfg.Password)}))
				if _, _, err := readFrame(br, nil); err != nil {
					conn.Close()
					conn = nil
					continue
				}
			}
		}
		conn.SetDeadline(time.Now().Add(2 * time.Second))
		cmd := appendCommand(nil, [][]byte{[]byte("RAFT.REPORT"), []byte(n.cfg.ID), []byte(n.addr),
			[]byte(strconv.FormatUint(r.LastIndex(), 10))})
		if _, err := conn.Write(cmd); err != nil {
			conn.Close()
			conn = nil
			continue
		}
		if _, _, err := readFrame(br, nil); err != nil {
			conn.Close()
			conn = nil
		}
	}
}

// hexID is a 40-hex-digit id derived from the group and a node id, the
// form Redis gives run ids, replication ids and cluster node ids.
func hexID(parts ...string) string {
	h := sha1.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

func replID(group string) string { return hexID("replid", group) }
