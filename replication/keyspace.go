package replication

import (
	"encoding/binary"
	"io"

	"github.com/lockredis/lockredis/engine"
	"github.com/lockredis/lockredis/keyspace"
)

// engineKeyspace binds the state machine to the engine's keyspace core:
// its change listener (the leader's side), Apply, WriteSnapshot and
// RestoreSnapshot, and its follower switch.
type engineKeyspace struct {
	n  *Node
	e  *engine.Engine
	ks *keyspace.Store // e's keyspace core
}

func bindKeyspace(n *Node) keyspaceCore {
	k := &engineKeyspace{n: n, e: n.eng, ks: n.eng.Keyspace()}
	k.ks.SetChangeListener(k)
	return k
}

// Committed queues a committed write transaction's changes for the log
// and returns what the command's reply waits on: its entry committed by
// a majority (the engine holds the reply and the transaction's
// after-commit effects until then).
func (k *engineKeyspace) Committed(b *keyspace.ChangeBatch) (wait func()) {
	if k.ks.Follower() {
		// Clients' writes never run on a follower's engine (they are
		// forwarded); one that ran as this node stepped down is in the
		// engine but not in the log: the step-down rebuilds the engine
		// from the log (stepDown compares Seqs) and the client's reply
		// is replaced by an error (router.Hold). A write through the Go
		// API's helpers on a follower is not replicated either: say so.
		k.n.cfg.Logf("warning", "A write ran on follower %s and is not replicated (seq %d)", k.n.cfg.ID, b.Seq)
		return nil
	}
	data, err := b.MarshalBinary()
	if err != nil {
		k.n.cfg.Logf("warning", "Change batch %d: %v", b.Seq, err)
		return nil
	}
	k.n.commits.capture(b.Seq, data)
	return func() { k.n.commits.wait(b.Seq) }
}

// Apply applies a kindChanges body: one or more batches.
func (k *engineKeyspace) Apply(body []byte) error {
	for len(body) > 0 {
		p, rest, ok := readString(body)
		if !ok {
			return errBadEntry
		}
		body = rest
		var b keyspace.ChangeBatch
		if err := b.UnmarshalBinary([]byte(p)); err != nil {
			return err
		}
		if err := k.ks.Apply(&b); err != nil {
			return err
		}
	}
	return nil
}

// lastSeq is the Seq of the last batch in a kindChanges body.
func lastSeq(body []byte) uint64 {
	var seq uint64
	for len(body) > 0 {
		l, n := binary.Uvarint(body)
		if n <= 0 || uint64(len(body)-n) < l {
			return seq
		}
		p := body[n : n+int(l)]
		body = body[n+int(l):]
		// A batch's binary form starts with its Seq (keyspace/batch.go):
		// the leader reads only that of each of its own entries' batches.
		if s, m := binary.Uvarint(p); m > 0 {
			seq = s
		}
	}
	return seq
}

// Capture captures the keyspace core's state in a read transaction.
func (k *engineKeyspace) Capture() (io.WriterTo, error) { return k.ks.CaptureState() }

// Hold runs fn inside a write transaction of its own, which holds every
// other writer off; capture reads the state in it.
func (k *engineKeyspace) Hold(fn func(capture func() (io.WriterTo, error))) {
	k.e.Do(true, 0, func(tx *engine.Tx) {
		fn(func() (io.WriterTo, error) { return tx.CaptureState() })
	})
}

// Restore replaces the keyspace; nil restores an empty one.
func (k *engineKeyspace) Restore(r io.Reader) error {
	if r == nil {
		// An empty keyspace at the current time. The token counter is
		// only ever raised, never lowered, by a restore.
		p := []byte("lockredis-snapshot 1\n")
		p = binary.AppendUvarint(p, 0)
		p = binary.AppendVarint(p, k.e.Clock.NowMs())
		p = append(p, 0)
		return k.ks.RestoreSnapshot(bytesReader(p))
	}
	return k.ks.RestoreSnapshot(r)
}

// Follow switches the engine's follower mode and its clock: a follower's
// clock is frozen and set from the entries it applies; a leader's runs on
// from where it stands.
func (k *engineKeyspace) Follow(on bool) {
	k.ks.SetFollower(on)
	if on {
		k.e.Clock.Freeze()
	} else {
		k.e.Clock.Resume()
	}
}

// encodeBatch joins several transactions' encoded changes into one
// kindChanges body.
func encodeBatch(queue [][]byte) []byte {
	size := 0
	for _, q := range queue {
		size += len(q) + binary.MaxVarintLen64
	}
	b := make([]byte, 0, size)
	for _, q := range queue {
		b = binary.AppendUvarint(b, uint64(len(q)))
		b = append(b, q...)
	}
	return b
}

type bytesReaderT struct {
	b []byte
}

func bytesReader(b []byte) io.Reader { return &bytesReaderT{b} }

func (r *bytesReaderT) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.b)
	r.b = r.b[n:]
	return n, nil
}
