package keyspace

import (
	"fmt"
	"time"
)

// SetChangeListener starts (nil: stops) reporting the changes of write
// transactions to l. Transactions already running may or may not report.
func (s *Store) SetChangeListener(l ChangeListener) {
	if l == nil {
		s.changes.listener.Store(nil)
		return
	}
	s.changes.listener.Store(&l)
}

// Recording reports whether a change listener is set: write transactions
// record their changes for it (the engine's batches then keep out).
func (s *Store) Recording() bool { return s.changes.listener.Load() != nil }

// RegisterState registers the handler of the state recorded as name
// (Tx.RecordState), which Apply, Snapshot and Restore use.
func (s *Store) RegisterState(name string, h StateHandler) {
	s.changes.statesMu.Lock()
	defer s.changes.statesMu.Unlock()
	if s.changes.states == nil {
		s.changes.states = make(map[string]StateHandler)
	}
	s.changes.states[name] = h
}

func (s *Store) stateHandler(name string) StateHandler {
	s.changes.statesMu.Lock()
	defer s.changes.statesMu.Unlock()
	return s.changes.states[name]
}

// stateNames returns the registered state names, sorted.
func (s *Store) stateNames() []string {
	s.changes.statesMu.Lock()
	defer s.changes.statesMu.Unlock()
	names := make([]string, 0, len(s.changes.states))
	for n := range s.changes.states {
		names = append(names, n)
	}
	for i := 1; i < len(names); i++ {
		for j := i; j > 0 && names[j] < names[j-1]; j-- {
			names[j], names[j-1] = names[j-1], names[j]
		}
	}
	return names
}

// Apply applies a batch of changes from another store (a leader's, or a
// log or snapshot being replayed) in one write transaction running at the
// batch's time: the stored bytes end up exactly as on the store that
// recorded them. Listeners of key changes above the core see the changes
// (WATCH, client tracking), but nothing is served or handed over, no
// keyspace event is raised, and the batch is not reported to this
// store's ChangeListener. A batch that names a database this store
// lacks, or state no handler is registered for, is refused whole.
func (s *Store) Apply(b *ChangeBatch) error {
	if err := s.checkBatch(b); err != nil {
		return err
	}
	var err error
	functions := false
	tx := s.Get()
	tx.applying = true
	if b.Time != 0 {
		tx.at = time.UnixMilli(b.Time)
	}
	s.Run(tx, true, 0, func(tx *Tx) {
		functions, err = tx.applyChanges(b)
		if err != nil {
			tx.Rollback()
		}
	})
	if err == nil && functions {
		s.functionsApplied()
	}
	return err
}

// checkBatch refuses what Apply could not apply whole.
func (s *Store) checkBatch(b *ChangeBatch) error {
	n := s.Databases()
	for i := range b.Changes {
		c := &b.Changes[i]
		switch c.Kind {
		case ChangePut, ChangeDelete, ChangeFlushDB:
			if c.DB < 0 || c.DB >= n {
				return fmt.Errorf("keyspace: change %d: database %d out of range", i, c.DB)
			}
			if c.Kind == ChangePut && !validStored(c.Raw) {
				return fmt.Errorf("keyspace: change %d: stored value too short", i)
			}
		case ChangeSwapDB:
			if c.DB < 0 || c.DB >= n || c.DB2 < 0 || c.DB2 >= n {
				return fmt.Errorf("keyspace: change %d: database out of range", i)
			}
		case ChangeFlushAll, ChangeFunctions:
		case ChangeState:
			if s.stateHandler(c.Key) == nil {
				return fmt.Errorf("keyspace: change %d: no handler for state %q", i, c.Key)
			}
		default:
			return fmt.Errorf("keyspace: change %d: unknown kind %d", i, c.Kind)
		}
	}
	return nil
}

// applyChanges is Apply's body; functions reports that it stored the
// function libraries.
func (tx *Tx) applyChanges(b *ChangeBatch) (functions bool, err error) {
	s := tx.s
	for i := range b.Changes {
		c := &b.Changes[i]
		switch c.Kind {
		case ChangePut:
			tx.putStored(storeKey(c.DB, s2b(c.Key)), c.Raw)
		case ChangeDelete:
			tx.remove(storeKey(c.DB, s2b(c.Key)), c.DB)
		case ChangeFlushDB:
			tx.FlushDB(c.DB)
		case ChangeFlushAll:
			tx.FlushAll()
		case ChangeSwapDB:
			if c.DB != c.DB2 {
				tx.SwapDBs(c.DB, c.DB2)
			}
		case ChangeFunctions:
			tx.PutFunctions([]byte(c.Raw))
			functions = true
		case ChangeState:
			if err := s.stateHandler(c.Key).ApplyState(tx, []byte(c.Raw)); err != nil {
				return false, fmt.Errorf("keyspace: state %q: %w", c.Key, err)
			}
		}
	}
	s.tokens.raise(b.NextToken)
	return functions, nil
}

// putStored stores raw under bkey as it is (Apply): the bookkeeping of
// PutIn (counters, memory, expiry queues, listeners) without choosing a
// token or raising events.
func (tx *Tx) putStored(bkey, raw string) {
	db := int(bkey[0])
	var before string
	var existed bool
	if tx.flushedAll {
		// After DeleteAll buntdb's Set no longer reports what it
		// replaced (see PutIn): look first.
		v, err := tx.bt.Get(bkey)
		before, existed = v, err == nil
	}
	prev, replaced, err := tx.bt.Set(bkey, raw, nil)
	if err != nil {
		panic(err) // only possible on a closed or read-only tx: a bug
	}
	if tx.flushedAll {
		prev, replaced = before, existed
	}
	tx.memoWrote(bkey, raw, true)
	tx.wroteAOF = true
	tx.touch(db, bkey[1:])
	tx.memDelta += itemMemory(bkey, raw)
	if replaced {
		tx.memDelta -= itemMemory(bkey, prev)
		if expireAtOf(prev) != 0 {
			tx.volDelta[db]--
		}
	} else {
		tx.keyDelta[db]++
	}
	if at := expireAtOf(raw); at != 0 {
		tx.volDelta[db]++
		tx.expiring = append(tx.expiring, expiryEntry{at, bkey})
	}
	if typeOf(raw) == TypeHash {
		tx.queueFieldExpiry(bkey, DecodeValue(raw).Payload, prev)
	}
}

// SetFollower switches the store to follow another's changes (on) or
// back to acting on its own (off). A follower expires nothing by itself:
// no active expiry (keys and hash fields), no deletion of the expired
// keys a lookup meets (they read as missing), no hand-over on expiry
// (TxHooks.HandOver); the layer above reads Follower to stop its own
// (the engine's lock deadline timers and session-lock releases). Its
// keyspace changes only through Apply and RestoreSnapshot, at the times
// the batches carry. Its clock is the replication layer's to set
// (Clock.SetTime on a manual clock, Clock.Resume when it leads).
func (s *Store) SetFollower(on bool) { s.changes.follower.Store(on) }

// Follower reports whether SetFollower switched the store on.
func (s *Store) Follower() bool { return s.changes.follower.Load() }

// LastChangeSeq is the Seq of the last change batch this store made
// (0: none yet): a replicated leader compares it with what it has
// committed and applied.
func (s *Store) LastChangeSeq() uint64 { return s.changes.seq.Load() }
