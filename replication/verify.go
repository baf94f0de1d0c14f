package replication

import (
	"sync"
	"time"

	"github.com/hashicorp/raft"
)

// verifier confirms leadership for reads, one quorum round for all the
// reads waiting at that time (raft.VerifyLeader). A read that arrives
// while a round is out waits for the next one: the round under way may
// have started before the read did.
type verifier struct {
	n *Node

	mu      sync.Mutex
	running bool
	next    *round
}

type round struct {
	done chan struct{}
	err  error
}

func (v *verifier) verify() error {
	v.mu.Lock()
	if v.next == nil {
		v.next = &round{done: make(chan struct{})}
	}
	r := v.next
	if !v.running {
		v.start()
	}
	v.mu.Unlock()
	<-r.done
	return r.err
}

// start runs the waiting round; under mu.
func (v *verifier) start() {
	r := v.next
	v.next, v.running = nil, true
	go func() {
		rf := v.n.r.Load()
		var err error
		if rf == nil {
			err = errShutdown
		} else if err = rf.VerifyLeader().Error(); err != nil {
			err = errNotLeader
		}
		r.err = err
		close(r.done)
		v.mu.Lock()
		v.running = false
		if v.next != nil {
			v.start()
		}
		v.mu.Unlock()
	}()
}

// awaitServing reports whether this node leads and serves clients. A node
// that just won an election but is still catching up is waited for.
func (n *Node) awaitServing() bool {
	deadline := time.Now().Add(2 * n.cfg.ElectionTimeout)
	for {
		if n.leading.Load() != 0 {
			return true
		}
		r := n.r.Load()
		if r == nil || r.State() != raft.Leader || time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// leaderWait bounds how long a follower's client waits for a leader to
// be known (an election, the new leader's announcement) before an error.
const leaderWait = 5 * time.Second

// waitLeaderAddr waits for the leader's client address to be known. It
// returns this node's own address when this node leads.
func (n *Node) waitLeaderAddr() (id, addr string) {
	deadline := time.Now().Add(leaderWait)
	for {
		if n.leading.Load() != 0 {
			return n.cfg.ID, n.addr
		}
		if id, addr = n.leaderAddr(); addr != "" && id != n.cfg.ID {
			return id, addr
		}
		select {
		case <-n.stop:
			return "", ""
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return "", ""
		}
	}
}
