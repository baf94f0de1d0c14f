package replication

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sort"
	"sync"
	"time"

	"github.com/hashicorp/raft"
)

// keyspaceCore is what the state machine needs of the engine's keyspace core:
// applying a leader's physical changes, and snapshots (keyspace.go binds
// it to the engine).
type keyspaceCore interface {
	// Apply applies one kindChanges body in a single write transaction.
	Apply(body []byte) error
	// Capture captures the whole state, to be written out later (a
	// follower's, whose engine holds exactly the applied entries).
	Capture() (io.WriterTo, error)
	// Hold runs fn with every write transaction held off; capture
	// captures the state as of then (a leader's compaction, compact.go).
	Hold(fn func(capture func() (io.WriterTo, error)))
	// Restore replaces the whole state with a snapshot's.
	Restore(r io.Reader) error
	// Follow switches the engine between follower mode (no expiry, no
	// lock timers, no session ends: the leader decides and ships them)
	// and leader mode.
	Follow(on bool)
}

// errAhead is a leader's answer to raft's own snapshot attempts: its
// engine runs ahead of the applied entries, so only a state captured with
// writes held (compact.go) matches an index; raft's attempt starts one.
var errAhead = errors.New(errAheadText)

const errAheadText = "replication: the leader's keyspace is ahead of the log; compacting with writes held"

// fsm is the Raft state machine: the engine's keyspace plus what the
// group itself keeps (the replicated clock, the nodes' client addresses).
type fsm struct {
	n  *Node
	ks keyspaceCore // nil: no keyspace core bound (keyspace.go)

	mu sync.Mutex
	// applied is the index of the last entry applied; lastTime the
	// replicated clock it carried (never moves back).
	applied  uint64
	lastTime int64
	members  map[string]string // node id -> client address
	// hasData: a change or seed entry has been applied (seed.go); part of
	// the replicated state, so that every node ignores a late seed alike.
	hasData bool
	// ownTerm is the term in which this node leads with its engine ahead
	// of the log: its own entries of that term are already in the engine
	// and are not applied again. 0 when following. appliedSeq is the
	// engine's Seq of the last change batch applied in that term.
	ownTerm    uint64
	appliedSeq uint64
	// seqApplied, when not nil, is closed at the next applied change
	// entry (waitApplied).
	seqApplied chan struct{}
	// prepared is a leader's state captured with writes held, for the
	// Snapshot raft is asked for next (compact.go).
	prepared *prepared
	// suspect: a former leader's engine may hold changes that never
	// committed, until it is rebuilt from the log; no snapshot then.
	suspect bool
}

func newFSM(n *Node) *fsm {
	return &fsm{n: n, ks: bindKeyspace(n), members: map[string]string{}}
}

// Apply applies one committed entry.
func (f *fsm) Apply(l *raft.Log) any {
	if l.Type != raft.LogCommand {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.apply(l.Index, l.Data)
}

func (f *fsm) apply(index uint64, data []byte) error {
	f.applied = index
	e, err := decodeEntry(data)
	if err != nil {
		f.n.cfg.Logf("warning", "Raft entry %d: %v", index, err)
		return err
	}
	if e.time > f.lastTime {
		f.lastTime = e.time
	}
	own := f.ownTerm != 0 && e.term == f.ownTerm && e.origin == f.n.cfg.ID
	if f.ownTerm == 0 {
		// A follower's clock is the leader's, as of the last entry.
		f.n.eng.Clock.SetTime(time.Unix(0, f.lastTime))
	}
	switch e.kind {
	case kindAnnounce:
		a, err := decodeAnnounce(e.body)
		if err != nil {
			return err
		}
		f.members[a.id] = a.addr
	case kindSeed:
		if f.hasData {
			f.n.cfg.Logf("notice", "Raft entry %d: a seed after the group's first data, ignored", index)
			break
		}
		f.hasData = true
		if f.ks != nil {
			if err := f.ks.Restore(bytesReader(e.body)); err != nil {
				f.n.cfg.Logf("warning", "Raft entry %d: the seed could not be applied: %v", index, err)
				return err
			}
		}
	case kindChanges:
		f.hasData = true
		if own {
			f.appliedSeq = lastSeq(e.body)
			if f.seqApplied != nil {
				close(f.seqApplied)
				f.seqApplied = nil
			}
		}
		if !own && f.ks != nil {
			if err := f.ks.Apply(e.body); err != nil {
				// Deterministic input on a deterministic state: an
				// error here means this node's state is not the group's.
				f.n.cfg.Logf("warning", "Raft entry %d could not be applied: %v", index, err)
				return err
			}
		}
	}
	return nil
}

// memberAddr is the client address node id announced, or "".
func (f *fsm) memberAddr(id string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.members[id]
}

// memberAddrs is every announced client address by node id.
func (f *fsm) memberAddrs() map[string]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make(map[string]string, len(f.members))
	for k, v := range f.members {
		out[k] = v
	}
	return out
}

// hasDataNow reports whether the group's state has had data (seed.go).
func (f *fsm) hasDataNow() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.hasData
}

// appliedIndex is the index of the last applied entry.
func (f *fsm) appliedIndex() uint64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.applied
}

// lead switches to leader mode in term: the replicated clock continues
// from the last applied entry's time on this node's own monotonic clock,
// so a lock's deadline only ever moves later across a leader change
// (etcd's lease promotion); the engine starts expiring and timing locks.
func (f *fsm) lead() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ownTerm = f.n.r.Load().CurrentTerm()
	f.appliedSeq = f.n.eng.LastChangeSeq()
	if f.lastTime != 0 { // 0: a new group, whose clock starts now
		f.n.eng.Clock.SetTime(time.Unix(0, f.lastTime))
	}
	if f.ks != nil {
		f.ks.Follow(false)
	}
}

// follow switches to follower mode. When it was leading, its engine may
// hold changes the log never got: no snapshot until settled says so.
func (f *fsm) follow() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ownTerm != 0 {
		f.suspect = true
	}
	f.ownTerm = 0
	f.prepared = nil
	if f.ks != nil {
		f.ks.Follow(true)
	}
}

// Snapshot format (docs/replication.md):
//
//	"LOCKREDIS-RAFT-SNAPSHOT 2\n"
//	uvarint applied index, 8 bytes big endian replicated clock (unix ns)
//	1 byte flags: 1 = the group has had data (hasData)
//	uvarint member count, then per member: uvarint-length id, address
//	the keyspace core's snapshot, to the end
//
// Version 1 had no flags byte; it is read as having data.
const (
	snapshotMagic   = "LOCKREDIS-RAFT-SNAPSHOT 2\n"
	snapshotMagicV1 = "LOCKREDIS-RAFT-SNAPSHOT 1\n"
)

// settled says that a former leader's engine holds the log's state again
// (rebuilt, or nothing was uncommitted).
func (f *fsm) settled() {
	f.mu.Lock()
	f.suspect = false
	f.mu.Unlock()
}

// Snapshot captures the state at the applied index. A leader's engine
// runs ahead of the applied entries (its own changes are in it before
// they commit): it uses the state its compactor captured with writes
// held at exactly the applied changes, or refuses and has the compactor
// capture one (compact.go); it never snapshots changes the log may never
// have. Snapshot runs in raft's FSM goroutine, between applies: it only
// copies references; Persist writes.
func (f *fsm) Snapshot() (raft.FSMSnapshot, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.suspect {
		return nil, errAhead
	}
	var body io.WriterTo
	if f.ks != nil {
		if f.ownTerm != 0 {
			p := f.prepared
			f.prepared = nil
			if p == nil || p.seq != f.appliedSeq {
				f.n.wantCompaction()
				return nil, errAhead
			}
			body = p.state
			close(p.taken)
		} else {
			var err error
			if body, err = f.ks.Capture(); err != nil {
				return nil, err
			}
		}
	}
	var head []byte
	head = append(head, snapshotMagic...)
	head = binary.AppendUvarint(head, f.applied)
	head = binary.BigEndian.AppendUint64(head, uint64(f.lastTime))
	var flags byte
	if f.hasData {
		flags |= 1
	}
	head = append(head, flags)
	ids := make([]string, 0, len(f.members))
	for id := range f.members {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	head = binary.AppendUvarint(head, uint64(len(ids)))
	for _, id := range ids {
		head = appendString(appendString(head, id), f.members[id])
	}
	return &fsmSnapshot{head: head, body: body}, nil
}

// Restore replaces the state with a snapshot's (at start, and when the
// leader sends one with InstallSnapshot).
func (f *fsm) Restore(rc io.ReadCloser) error {
	defer rc.Close()
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.restore(rc)
}

func (f *fsm) restore(rd io.Reader) error {
	br := bufio.NewReader(rd)
	magic := make([]byte, len(snapshotMagic))
	if _, err := io.ReadFull(br, magic); err != nil || string(magic) != snapshotMagic && string(magic) != snapshotMagicV1 {
		return fmt.Errorf("replication: not a lockredis Raft snapshot")
	}
	v1 := string(magic) == snapshotMagicV1
	applied, err := binary.ReadUvarint(br)
	if err != nil {
		return err
	}
	var t [8]byte
	if _, err := io.ReadFull(br, t[:]); err != nil {
		return err
	}
	hasData := true
	if !v1 {
		flags, err := br.ReadByte()
		if err != nil {
			return err
		}
		hasData = flags&1 != 0
	}
	count, err := binary.ReadUvarint(br)
	if err != nil || count > 1<<16 {
		return fmt.Errorf("replication: bad snapshot member count")
	}
	members := make(map[string]string, count)
	for range count {
		id, err := readStringFrom(br)
		if err != nil {
			return err
		}
		addr, err := readStringFrom(br)
		if err != nil {
			return err
		}
		members[id] = addr
	}
	if f.ks != nil {
		if err := f.ks.Restore(br); err != nil {
			return err
		}
	}
	f.applied, f.lastTime, f.members, f.hasData = applied, int64(binary.BigEndian.Uint64(t[:])), members, hasData
	if f.ownTerm == 0 {
		f.n.eng.Clock.SetTime(time.Unix(0, f.lastTime))
	}
	return nil
}

// rebuild drops what the engine holds and recomputes it from Raft: the
// latest snapshot, then every applied entry after it. A leader that lost
// leadership with changes that may never commit needs it: the new leader
// may not have them.
func (f *fsm) rebuild() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ks == nil {
		return nil
	}
	applied := f.applied
	var from uint64
	metas, err := f.n.snaps.List()
	if err != nil {
		return err
	}
	if len(metas) > 0 {
		_, rc, err := f.n.snaps.Open(metas[0].ID)
		if err != nil {
			return err
		}
		err = f.restore(rc)
		rc.Close()
		if err != nil {
			return err
		}
		from = metas[0].Index
	} else if err := f.ks.Restore(nil); err != nil {
		return err
	} else {
		f.hasData = false
	}
	for i := from + 1; i <= applied; i++ {
		var l raft.Log
		if err := f.n.store.GetLog(i, &l); err != nil {
			return fmt.Errorf("replication: log entry %d: %v", i, err)
		}
		if l.Type == raft.LogCommand {
			f.apply(i, l.Data)
		}
	}
	f.applied = applied
	f.suspect = false
	return nil
}

func readStringFrom(br *bufio.Reader) (string, error) {
	l, err := binary.ReadUvarint(br)
	if err != nil || l > 1<<20 {
		return "", fmt.Errorf("replication: bad snapshot string")
	}
	b := make([]byte, l)
	if _, err := io.ReadFull(br, b); err != nil {
		return "", err
	}
	return string(b), nil
}

// fsmSnapshot is a captured state, written out by Persist while the state
// machine goes on applying.
type fsmSnapshot struct {
	head []byte
	body io.WriterTo // nil: no keyspace bound
}

func (s *fsmSnapshot) Persist(sink raft.SnapshotSink) error {
	if _, err := sink.Write(s.head); err != nil {
		sink.Cancel()
		return err
	}
	if s.body != nil {
		if _, err := s.body.WriteTo(sink); err != nil {
			sink.Cancel()
			return err
		}
	}
	return sink.Close()
}

func (s *fsmSnapshot) Release() {}

type bytesBuffer struct{ b []byte }

func (b *bytesBuffer) Write(p []byte) (int, error) {
	b.b = append(b.b, p...)
	return len(p), nil
}
