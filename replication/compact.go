package replication

import (
	"errors"
	"io"
	"strconv"
	"time"

	"github.com/hashicorp/raft"
)

// Log compaction on a leader under load.
//
// Raft compacts its log by taking a snapshot of the state machine at the
// applied index (raft's own schedule: every SnapshotInterval, once the log
// has grown by SnapshotThreshold entries). A follower's engine holds
// exactly the applied entries, so it captures its state at any time. A
// leader's engine does not: its own writes are in it before their entries
// commit and apply, and while clients keep writing it is always ahead, so
// a snapshot of it would carry changes the log may never get, and a
// leader that waited for a quiet moment would never compact under
// constant load (its log, and the time a restart takes, would grow
// without bound).
//
// So the leader's snapshot is captured with writes held: its compactor
// opens a write transaction of its own, which holds off every other
// writer (readers too: the keyspace has one lock), waits until every
// change already made has committed and been applied, captures the state
// (references only), and asks raft for a snapshot; the state machine's
// Snapshot, in raft's FSM goroutine, takes that captured state, whose
// changes are exactly the applied ones, and the writers go on. Writes
// stall for about one commit round trip plus the copy of the references,
// once per SnapshotThreshold entries; writing the snapshot out (Persist)
// happens after, while they run.

// compactWait bounds the stall: when the changes already made do not
// commit in this time (no majority, a slow disk) the attempt is given up
// and made again at raft's next snapshot interval.
const compactWait = 2 * time.Second

// prepared is a state captured with writes held, at the change seq.
type prepared struct {
	state io.WriterTo
	seq   uint64
	taken chan struct{} // closed when Snapshot takes it
}

// wantCompaction asks the compactor for a snapshot captured with writes
// held (raft's own attempt found the leader's engine ahead).
func (n *Node) wantCompaction() {
	select {
	case n.compactCh <- struct{}{}:
	default:
	}
}

// runCompactor serves wantCompaction until the node stops.
func (n *Node) runCompactor() {
	defer n.wg.Done()
	for {
		select {
		case <-n.stop:
			return
		case <-n.compactCh:
			if err := n.compact(); err != nil {
				n.cfg.Logf("verbose", "Log compaction on the leader: %v", err)
			}
		}
	}
}

// compact takes a leader's snapshot with writes held (see above).
func (n *Node) compact() error {
	term := n.leading.Load()
	r := n.r.Load()
	if term == 0 || r == nil {
		return nil
	}
	// raft's attempts keep coming while one is served: only a log
	// grown by the threshold since the last snapshot needs another.
	if last := r.LastIndex(); last < n.cfg.SnapshotThreshold || last-lastSnapshotIndex(r) < n.cfg.SnapshotThreshold {
		return nil
	}
	deadline := time.Now().Add(compactWait)
	leading := func() bool { return n.leading.Load() == term && time.Now().Before(deadline) }
	futCh := make(chan error, 1)
	var err error
	n.fsm.ks.Hold(func(capture func() (io.WriterTo, error)) {
		// Writers are held off: no change is made until this returns,
		// so the last one made so far is the last the state has.
		seq := n.eng.LastChangeSeq()
		if !n.fsm.waitApplied(seq, leading) {
			err = errCompactionGaveUp
			return
		}
		var st io.WriterTo
		if st, err = capture(); err != nil {
			return
		}
		p := &prepared{state: st, seq: seq, taken: make(chan struct{})}
		n.fsm.prepare(p)
		// raft's snapshot goroutine may be busy writing out an
		// earlier snapshot: ask in a goroutine of its own, so that
		// the writers are held no longer than compactWait.
		go func() { futCh <- r.Snapshot().Error() }()
		// Hold the writers until the state machine has taken the
		// state: a change applied before would make it stale.
		if !waitClosed(p.taken, leading, n.stop) {
			err = errCompactionGaveUp
		}
	})
	if err != nil {
		return err
	}
	return <-futCh
}

var errCompactionGaveUp = errors.New("the changes already made were not applied in time; trying again at raft's next snapshot interval")

// waitClosed waits until ch is closed (true), ok turns false or stop is
// closed.
func waitClosed(ch <-chan struct{}, ok func() bool, stop <-chan struct{}) bool {
	recheck := time.NewTicker(10 * time.Millisecond)
	defer recheck.Stop()
	for {
		select {
		case <-ch:
			return true
		case <-stop:
			return false
		case <-recheck.C:
			if !ok() {
				return false
			}
		}
	}
}

// lastSnapshotIndex is the index of raft's latest snapshot (0: none).
func lastSnapshotIndex(r *raft.Raft) uint64 {
	i, _ := strconv.ParseUint(r.Stats()["last_snapshot_index"], 10, 64)
	return i
}

// prepare hands the state machine a state captured with writes held.
func (f *fsm) prepare(p *prepared) {
	f.mu.Lock()
	f.prepared = p
	f.mu.Unlock()
}

// waitApplied waits until the leader's own change seq is applied; false
// when ok turns false first (leadership lost, deadline passed).
func (f *fsm) waitApplied(seq uint64, ok func() bool) bool {
	recheck := time.NewTicker(10 * time.Millisecond)
	defer recheck.Stop()
	for {
		f.mu.Lock()
		if f.ownTerm != 0 && f.appliedSeq >= seq {
			f.mu.Unlock()
			return true
		}
		if f.seqApplied == nil {
			f.seqApplied = make(chan struct{})
		}
		ch := f.seqApplied
		f.mu.Unlock()
		if !ok() {
			return false
		}
		select {
		case <-ch:
		case <-recheck.C:
		case <-f.n.stop:
			return false
		}
	}
}
