package replication

import "strings"

// Status is a node's view of its group, for monitoring (the binary's
// /readyz and /metrics): cheap to take, no quorum round.
type Status struct {
	// Running: the node is attached (false before Start, after Close).
	Running bool
	// State is raft's state: leader, follower, candidate, shutdown.
	State string
	// Leading: this node leads and serves as leader (caught up).
	Leading bool
	// LeaderID and LeaderAddr name the leader this node knows of ("":
	// none known, or it has not announced its client address yet).
	LeaderID, LeaderAddr string
	Term                 uint64
	// LastIndex, CommitIndex, AppliedIndex: the log as this node has it.
	LastIndex, CommitIndex, AppliedIndex uint64
}

// Status takes the node's status.
func (n *Node) Status() Status {
	r := n.r.Load()
	if r == nil {
		return Status{State: "shutdown"}
	}
	id, addr := n.leaderAddr()
	return Status{
		Running: true, State: strings.ToLower(r.State().String()), Leading: n.IsLeader(),
		LeaderID: id, LeaderAddr: addr, Term: r.CurrentTerm(),
		LastIndex: r.LastIndex(), CommitIndex: r.CommitIndex(), AppliedIndex: n.fsm.appliedIndex(),
	}
}
