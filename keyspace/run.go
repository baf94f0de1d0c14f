package keyspace

import (
	"errors"

	"github.com/tidwall/buntdb"
)

// Do runs fn in a transaction on database db: exclusive when write is set,
// shared otherwise. A panic in fn rolls the transaction back and is
// re-raised after the lock is released.
func (s *Store) Do(write bool, db int, fn func(tx *Tx)) {
	s.Run(s.Get(), write, db, fn)
}

// Get takes a Tx from the pool for Run; its hooks (Hooks) can be prepared
// before it runs.
func (s *Store) Get() *Tx { return s.txPool.Get().(*Tx) }

// Run runs tx (from Get), then returns it to the pool. fn is its body; a
// nil fn runs the hooks' Body. In order: the body, then (write) the
// Committing hook, buntdb's commit, the change listener and the
// after-commit effects in commit order, the deletion of expired keys a
// read transaction found, the restart fence's record, (appendfsync
// always) the fsync covering the commit, and the Finished hook.
func (s *Store) Run(tx *Tx, write bool, db int, fn func(tx *Tx)) {
	tx.write = write
	tx.DB = db
	tx.body = fn
	tx.recording = write && !tx.applying && s.changes.listener.Load() != nil
	// Persistence bookkeeping (persist.go): an fsync must cover this commit.
	tx.alwaysSync = write && s.persist != nil && s.persist.policy == FsyncAlways
	var err error
	if write {
		err = s.db.Update(tx.runFn)
	} else {
		err = s.db.View(tx.runFn)
	}
	if err != nil && !errors.Is(err, errRollback) {
		s.Logf("warning", "transaction failed: %v", err)
	}
	if write && s.persist != nil && !errors.Is(err, errRollback) && (err != nil || tx.wroteAOF) {
		// Only a commit that wrote tells whether the disk takes writes.
		s.persist.setWriteErr(err)
		if err != nil {
			tx.up.CommitFailed(err) // buntdb rolled back what the body did
		}
	}
	s.commit(tx, err == nil)
	if len(tx.found) > 0 {
		s.expireAfterRead(tx) // before the reply: see there
	}
	if err == nil {
		if tx.maxTTL > 0 {
			s.fence.grant(tx.maxTTL, s.cfg.Logf) // durable before the reply
		}
		if tx.alwaysSync && tx.wroteAOF {
			// Group commit: the reply waits for an fsync covering it.
			s.persist.waitDurable()
		}
	}
	// Last: the layer above sends replies of other clients from here
	// (a blocked command this transaction served).
	tx.up.Finished()
	panicked := tx.panicked
	tx.reset()
	tx.up.Reset()
	s.txPool.Put(tx)
	if panicked != nil {
		panic(panicked)
	}
}

// run is the buntdb transaction function of every Run; the Tx keeps it as
// a method value (runFn) so that passing it allocates nothing.
func (tx *Tx) run(bt *buntdb.Tx) (err error) {
	s := tx.s
	defer func() {
		if r := recover(); r != nil {
			tx.panicked = r
			err = errRollback
		}
	}()
	tx.bt = bt
	if tx.at.IsZero() {
		tx.Now = s.Clock.Now()
	} else {
		tx.Now = tx.at // Apply runs at its batch's time
	}
	tx.Ms = tx.Now.UnixMilli()
	if tx.body != nil {
		tx.body(tx)
	} else {
		tx.up.Body()
	}
	if tx.rollback {
		return errRollback
	}
	if tx.write {
		tx.up.Committing()
		for _, ent := range tx.expiring {
			s.expiries.add(ent.at, ent.bkey)
			tx.maxTTL = max(tx.maxTTL, ent.at-tx.Ms) // for the restart fence
		}
		for _, ent := range tx.fieldExpiring {
			s.fieldExpiries.add(ent.at, ent.bkey)
		}
	}
	if tx.recording {
		tx.closeBatch() // record.go
	}
	if len(tx.after) > 0 || tx.batch != nil {
		// Number the transaction while it still holds the lock, so
		// that effects run after commit in commit order.
		tx.seq = s.afterSeq.Add(1)
	}
	return nil
}

// commit applies a finished transaction's effects: counters, and the
// functions queued with After (PUBLISH deliveries), which run only if it
// committed, and in the order transactions committed.
//
// A ChangeListener (batch.go) is told of the transaction's batch first,
// in the same order; the wait it returns runs between the two, so that
// waiting for one batch holds back neither the next batch's Committed nor
// anything but this transaction's own effects (and, to keep their order,
// those of later transactions).
func (s *Store) commit(tx *Tx, ok bool) {
	if tx.seq != 0 {
		s.afterMu.Lock()
		for s.changes.listenDone != tx.seq-1 {
			s.afterCond.Wait()
		}
		var wait func()
		if ok && tx.batch != nil {
			if l := s.changes.listener.Load(); l != nil {
				wait = (*l).Committed(tx.batch)
			}
		}
		s.changes.listenDone = tx.seq
		if wait != nil {
			s.afterCond.Broadcast()
			s.afterMu.Unlock()
			wait()
			s.afterMu.Lock()
		}
		for s.afterDone != tx.seq-1 {
			s.afterCond.Wait()
		}
		if ok {
			for _, fn := range tx.after {
				fn()
			}
		}
		s.afterDone = tx.seq
		s.afterCond.Broadcast()
		s.afterMu.Unlock()
	}
	if !ok {
		return
	}
	for i, d := range tx.keyDelta {
		if d != 0 {
			s.keys[i].Add(d)
		}
		if v := tx.volDelta[i]; v != 0 {
			s.volatile[i].Add(v)
		}
	}
	if tx.expired > 0 {
		s.expired.Add(tx.expired)
	}
	if tx.memDelta != 0 {
		s.dataset.Add(tx.memDelta)
	}
}

// expireAfterRead deletes the expired keys a read transaction found and
// could not delete itself, in a write transaction of its own. Store.Run
// runs it before the read command returns, so before its reply is sent:
// the next command of any client sees them gone, as after Redis's lookup.
func (s *Store) expireAfterRead(read *Tx) {
	tx := s.Get()
	tx.found = append(tx.found, read.found...)
	tx.up.Inherit(read.up) // the reader's command deleted them (tracking)
	tx.expiredAnnounced = true
	s.Run(tx, true, read.DB, (*Tx).expireFound)
}
