package keyspace

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tidwall/buntdb"
)

// Snapshot copies the keyspace of an in-memory store; it fails for one
// whose keyspace is a file (restart it from the file instead).
func (s *Store) Snapshot() (*Snapshot, error) {
	if s.persist != nil {
		return nil, errors.New("keyspace: the keyspace is a file")
	}
	var buf bytes.Buffer
	if err := s.db.Save(&buf); err != nil {
		return nil, err
	}
	snap := &Snapshot{data: buf.Bytes()}
	// Read after Save: a token handed out meanwhile is counted too.
	err := s.db.View(func(*buntdb.Tx) error {
		snap.nextToken = s.tokens.next
		return nil
	})
	return snap, err
}

// The snapshot stream (WriteSnapshot, RestoreSnapshot): everything the
// replicated state holds, for Raft snapshots and for a follower that must
// rebuild. It is the magic line, then the header and records in the binary
// form of a change batch (batch.go):
//
//	"lockredis-snapshot 1\n"
//	nextToken (uvarint) | time (zigzag varint, unix ms)
//	change...   put for every stored key, functions when there are
//	            libraries, state for every registered StateHandler
//	0           (one zero byte: the end)
const snapshotMagic = "lockredis-snapshot 1\n"

var errBadSnapshot = errors.New("keyspace: malformed snapshot")

// WriteSnapshot writes the whole state to w: every database's keys with
// their stored bytes, the function libraries, the fencing-token counter
// and the registered states, as of one moment (it reads them in one read
// transaction and writes them after it, so writers wait only for the
// copy of references, not for w).
func (s *Store) WriteSnapshot(w io.Writer) error {
	st, err := s.CaptureState()
	if err != nil {
		return err
	}
	_, err = st.WriteTo(w)
	return err
}

// CapturedState is the whole state as of one moment (CaptureState,
// Tx.CaptureState), to be written in the snapshot stream's format by
// WriteTo. It shares the stored strings with the keyspace (they are never
// modified in place) and holds no lock, so WriteTo may run while writers
// go on.
type CapturedState struct {
	items        []storedItem
	functions    string
	hasFunctions bool
	next         uint64
	at           int64
	states       []Change
}

// CaptureState captures the state in a read transaction.
func (s *Store) CaptureState() (*CapturedState, error) {
	var st *CapturedState
	var err error
	s.Do(false, 0, func(tx *Tx) { st, err = tx.CaptureState() })
	return st, err
}

// CaptureState captures the state as this transaction sees it. A caller
// that must hold writers off while it decides when to capture (a Raft
// leader compacting its log under load: replication) runs it inside a
// write transaction of its own.
func (tx *Tx) CaptureState() (*CapturedState, error) {
	s := tx.s
	st := &CapturedState{next: s.tokens.next, at: tx.Ms}
	tx.bt.Ascend("", func(k, v string) bool {
		switch {
		case k == functionsKey:
			st.functions, st.hasFunctions = v, true
		case int(k[0]) < s.Databases():
			st.items = append(st.items, storedItem{k, v})
		}
		return true
	})
	for _, name := range s.stateNames() {
		p, err := s.stateHandler(name).SaveState()
		if err != nil {
			return nil, fmt.Errorf("keyspace: state %q: %w", name, err)
		}
		st.states = append(st.states, Change{Kind: ChangeState, Key: name, Raw: string(p)})
	}
	return st, nil
}

// WriteTo writes the captured state as a snapshot stream.
func (st *CapturedState) WriteTo(w io.Writer) (int64, error) {
	cw := &countWriter{w: w}
	bw := bufio.NewWriter(cw)
	p := []byte(snapshotMagic)
	p = binary.AppendUvarint(p, st.next)
	p = binary.AppendVarint(p, st.at)
	write := func(c *Change) error {
		p = appendChange(p[:0], c)
		_, err := bw.Write(p)
		return err
	}
	if _, err := bw.Write(p); err != nil {
		return cw.n, err
	}
	for _, it := range st.items {
		c := Change{Kind: ChangePut, DB: int(it.bkey[0]), Key: it.bkey[1:], Raw: it.raw}
		if err := write(&c); err != nil {
			return cw.n, err
		}
	}
	if st.hasFunctions {
		if err := write(&Change{Kind: ChangeFunctions, Raw: st.functions}); err != nil {
			return cw.n, err
		}
	}
	for i := range st.states {
		if err := write(&st.states[i]); err != nil {
			return cw.n, err
		}
	}
	if err := bw.WriteByte(0); err != nil {
		return cw.n, err
	}
	err := bw.Flush()
	return cw.n, err
}

// countWriter counts what reaches w (CapturedState.WriteTo's result).
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// RestoreSnapshot replaces the whole state with what WriteSnapshot wrote,
// in one write transaction run at the snapshot's time, as Apply runs a
// batch: every database is emptied, the keys, the function libraries
// (none when the snapshot has none) and every registered state (empty
// when the snapshot lacks it) are replaced, and the token counter rises
// to the snapshot's (never falls). Listeners above the core see the
// flush and the keys, the ChangeListener nothing. A malformed snapshot
// changes nothing.
func (s *Store) RestoreSnapshot(r io.Reader) error {
	br := bufio.NewReader(r)
	magic := make([]byte, len(snapshotMagic))
	if _, err := io.ReadFull(br, magic); err != nil || string(magic) != snapshotMagic {
		return errBadSnapshot
	}
	next, err := binary.ReadUvarint(br)
	if err != nil {
		return errBadSnapshot
	}
	at, err := binary.ReadVarint(br)
	if err != nil {
		return errBadSnapshot
	}
	var rerr error
	tx := s.Get()
	tx.applying = true
	tx.at = time.UnixMilli(at)
	s.Run(tx, true, 0, func(tx *Tx) {
		rerr = tx.restoreSnapshot(br, next)
		if rerr != nil {
			tx.Rollback()
		}
	})
	if rerr == nil {
		s.functionsApplied()
	}
	return rerr
}

// restoreSnapshot is RestoreSnapshot's body, after the header.
func (tx *Tx) restoreSnapshot(br *bufio.Reader, next uint64) error {
	s := tx.s
	tx.FlushAll()
	tx.PutFunctions(nil)
	restored := map[string]bool{}
	for {
		c, err := readChange(br)
		if err != nil {
			return err
		}
		switch c.Kind {
		case 0:
			for _, name := range s.stateNames() {
				if !restored[name] {
					if err := s.stateHandler(name).RestoreState(tx, nil); err != nil {
						return fmt.Errorf("keyspace: state %q: %w", name, err)
					}
				}
			}
			s.tokens.raise(next)
			return nil
		case ChangePut:
			if c.DB >= s.Databases() || !validStored(c.Raw) {
				return errBadSnapshot
			}
			tx.putStored(storeKey(c.DB, s2b(c.Key)), c.Raw)
		case ChangeFunctions:
			tx.PutFunctions([]byte(c.Raw))
		case ChangeState:
			h := s.stateHandler(c.Key)
			if h == nil {
				return fmt.Errorf("keyspace: snapshot: no handler for state %q", c.Key)
			}
			if err := h.RestoreState(tx, []byte(c.Raw)); err != nil {
				return fmt.Errorf("keyspace: state %q: %w", c.Key, err)
			}
			restored[c.Key] = true
		default:
			return errBadSnapshot
		}
	}
}

// readChange reads one record of a snapshot: Kind 0 is its end.
func readChange(br *bufio.Reader) (Change, error) {
	kind, err := br.ReadByte()
	if err != nil {
		return Change{}, errBadSnapshot
	}
	c := Change{Kind: ChangeKind(kind)}
	str := func() string {
		if err != nil {
			return ""
		}
		var n uint64
		if n, err = binary.ReadUvarint(br); err != nil {
			return ""
		}
		// Grown as the bytes arrive: a length that lies costs no memory.
		var sb strings.Builder
		_, err = io.CopyN(&sb, br, int64(min(n, 1<<62)))
		return sb.String()
	}
	db := func() int {
		if err != nil {
			return 0
		}
		var n uint64
		if n, err = binary.ReadUvarint(br); err == nil && n > 255 {
			err = errBadSnapshot
		}
		return int(n)
	}
	switch c.Kind {
	case 0:
	case ChangePut:
		c.DB = db()
		c.Key = str()
		c.Raw = str()
	case ChangeFunctions:
		c.Raw = str()
	case ChangeState:
		c.Key = str()
		c.Raw = str()
	default:
		return Change{}, errBadSnapshot
	}
	if err != nil {
		return Change{}, errBadSnapshot
	}
	return c, nil
}
