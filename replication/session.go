package replication

import (
	"time"

	"github.com/hashicorp/raft"
)

// Session locks held through a node that is cut off from the group.
//
// A session lock (LOCK.ACQUIRE ... SESSION) ends when its connection
// closes. A client on a follower holds its session on the leader through
// the follower's forwarded connection; when the follower is cut off (a
// partition, a stopped process), nothing closes that connection on the
// leader until TCP gives up, minutes later. Consul and Chubby bound this
// the same way: a session lives as long as its node is known to be
// healthy (Consul: the node's serf health check; Chubby: the session's
// lease, which the client keeps renewing), and once the node has been out
// longer than that, the session ends, its locks released after their
// lock-delay; the client, on its side, learns that its session is in
// doubt before the lease runs out (Chubby's jeopardy) and stops acting
// on its locks. Here:
//
//   - The leader knows when it last heard from each node: the follower's
//     report every 50 ms (progress.go). Every connection a follower
//     forwards names the follower first (RAFT.VIA). Once the leader has
//     not heard from a node for Config.SessionTimeout, it closes that
//     node's forwarded connections, as their closing would: their
//     session locks are released after their lock-delay and handed to
//     waiters, and a waiter among them drops out of the queue (a grant
//     it could not learn about is never made).
//   - A follower that has not heard from the leader for half the session
//     timeout closes its forwarded clients' connections (the clients
//     learn their sessions are gone before the leader ends them: the
//     two nodes' views of the cut differ by about a heartbeat, far less
//     than half the timeout). A shorter outage closes nothing: the same
//     leader, in the same term, still holds the same connections and
//     sessions. A follower never grants a lock itself: it forwards.
//   - When the follower hears of another leader, or of the same one in
//     a later term (it stepped down, closing everything, and was elected
//     again), its forwarded connections close at once: their state was
//     the old leadership's.

// sessionWatchEvery is how often the watch runs: a small fraction of the
// session timeout, within bounds.
func (c Config) sessionWatchEvery() time.Duration {
	d := c.SessionTimeout / 20
	if d < 10*time.Millisecond {
		d = 10 * time.Millisecond
	}
	if d > 250*time.Millisecond {
		d = 250 * time.Millisecond
	}
	return d
}

// watchSessions runs the leader's and the follower's side above.
func (n *Node) watchSessions() {
	defer n.wg.Done()
	t := time.NewTicker(n.cfg.sessionWatchEvery())
	defer t.Stop()
	for {
		select {
		case <-n.stop:
			return
		case <-t.C:
		}
		r := n.r.Load()
		if r == nil {
			continue
		}
		if n.IsLeader() {
			n.endCutOffSessions()
		} else {
			n.closeStaleForwards(r)
		}
	}
}

// term is this node's current Raft term (0 when not attached).
func (n *Node) term() uint64 {
	if r := n.r.Load(); r != nil {
		return r.CurrentTerm()
	}
	return 0
}

// lastHeard is when the leader last heard from node id: its last report,
// or this node's taking over if later (a new leader gives every node the
// whole timeout).
func (n *Node) lastHeard(id string) time.Time {
	n.progMu.Lock()
	defer n.progMu.Unlock()
	heard := n.leadSince
	if p, ok := n.progress[id]; ok && p.at.After(heard) {
		heard = p.at
	}
	return heard
}

// endCutOffSessions closes, on the leader, the connections forwarded by
// nodes it has not heard from for the session timeout.
func (n *Node) endCutOffSessions() {
	vias := n.router.vias()
	if len(vias) == 0 {
		return
	}
	out := map[string]time.Duration{}
	for id := range vias {
		if d := time.Since(n.lastHeard(id)); d > n.cfg.SessionTimeout {
			out[id] = d
		}
	}
	if len(out) == 0 {
		return
	}
	closed := n.router.closeVia(func(via string) bool { _, ok := out[via]; return ok })
	for id, k := range closed {
		n.cfg.Logf("notice", "Node %s has been out of the group for %v (raft-session-timeout %v): closed the %d client connections it forwarded; their session locks end after their lock-delay",
			id, out[id].Round(time.Millisecond), n.cfg.SessionTimeout, k)
	}
}

// closeStaleForwards closes, on a follower, the forwarded connections
// that no longer reach a live leadership: the leader has not been heard
// from for half the session timeout, or another leader (or the same in a
// later term) leads now.
func (n *Node) closeStaleForwards(r *raft.Raft) {
	lost := time.Since(r.LastContact())
	_, leader := r.LeaderWithID()
	term := r.CurrentTerm()
	out := lost > n.cfg.SessionTimeout/2
	k := n.router.closeForwarded(func(up *upstream) bool {
		return out || leader != "" && (up.leaderID != string(leader) || up.term != term)
	})
	if k > 0 && out {
		n.cfg.Logf("notice", "No contact with the leader for %v (half the raft-session-timeout %v): closed %d forwarded client connections; the leader ends their session locks",
			lost.Round(time.Millisecond), n.cfg.SessionTimeout, k)
	}
}

// forwardsAfterLeaderChange runs when this node hears of a leader (id "":
// none known). A known one that is not the upstreams' (or leads in a
// later term) ends them at once; none known ends nothing yet: the watch
// closes them if the leader stays lost for half the session timeout.
func (n *Node) forwardsAfterLeaderChange(id string) {
	if id == "" {
		return
	}
	term := n.term()
	n.router.closeForwarded(func(up *upstream) bool { return up.leaderID != id || up.term != term })
}
