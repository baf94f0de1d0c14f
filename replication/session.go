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
//     report every 50 ms (progress.go) and Raft's heartbeats to it (a
//     failed one is observed with the peer's last contact). Every
//     connection a follower forwards names the follower first (RAFT.VIA).
//     Once the leader has not heard from a node for
//     Config.SessionTimeout (cutOffFor), it closes that
//     node's forwarded connections, as their closing would: their
//     session locks are released after their lock-delay and handed to
//     waiters, and a waiter among them drops out of the queue (a grant
//     it could not learn about is never made). A node is out only while
//     Raft's heartbeats to it fail too (cutOffFor): a report refused by a
//     requirepass or ACL does not cut a healthy node off.
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

// cutOffFor says how long a node has been out as the leader sees it: for
// as long as both its reports and Raft's heartbeats to it have failed,
// counted from the later of their last successes (and from leadSince at
// the earliest). Both: a report refused (a requirepass or ACL the
// reporter does not pass, changed at run time) must not cut a healthy
// node off, nor a node cut off before it first reported stay in. raft
// reports a failed heartbeat with the peer's last contact, at once when
// the connection is refused or reset, after the transport's I/O timeout
// (10 s) when packets vanish. reporting is false when the node never
// reported to this leader.
func cutOffFor(now, leadSince, lastReport time.Time, hbFailing bool, hbLast time.Time) (out time.Duration, reporting bool) {
	reporting = lastReport.After(leadSince)
	if !hbFailing {
		return 0, reporting
	}
	last := leadSince
	if hbLast.After(last) {
		last = hbLast
	}
	if lastReport.After(last) {
		last = lastReport
	}
	return now.Sub(last), reporting
}

// heartbeatObserved records, on a leader, raft's observation of a failed
// or resumed heartbeat; false for any other observation.
func (n *Node) heartbeatObserved(o any) bool {
	switch o := o.(type) {
	case raft.FailedHeartbeatObservation:
		n.progMu.Lock()
		if n.hbFailing == nil {
			n.hbFailing = map[string]time.Time{}
		}
		n.hbFailing[string(o.PeerID)] = o.LastContact
		n.progMu.Unlock()
		return true
	case raft.ResumedHeartbeatObservation:
		n.progMu.Lock()
		delete(n.hbFailing, string(o.PeerID))
		n.progMu.Unlock()
		return true
	}
	return false
}

// endCutOffSessions closes, on the leader, the connections forwarded by
// nodes it has not heard from for the session timeout.
func (n *Node) endCutOffSessions() {
	vias := n.router.vias()
	if len(vias) == 0 {
		return
	}
	out := map[string]time.Duration{}
	now := time.Now()
	n.progMu.Lock()
	since := n.leadSince
	for id := range vias {
		hbLast, hbFailing := n.hbFailing[id]
		d, reporting := cutOffFor(now, since, n.progress[id].at, hbFailing, hbLast)
		switch {
		case d > n.cfg.SessionTimeout:
			out[id] = d
		case !reporting && !hbFailing && now.Sub(since) > n.cfg.SessionTimeout && !n.unreported[id]:
			if n.unreported == nil {
				n.unreported = map[string]bool{}
			}
			n.unreported[id] = true
			n.cfg.Logf("warning", "Node %s forwards clients but has not reported to this leader for %v: "+
				"its session locks end by raft-session-timeout only once Raft loses it too (are its RAFT.REPORTs refused? requirepass, ACL)",
				id, now.Sub(since).Round(time.Millisecond))
		}
	}
	n.progMu.Unlock()
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
