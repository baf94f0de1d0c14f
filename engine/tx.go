package engine

import (
	"github.com/lockredis/lockredis/keyspace"
)

// newTx is the keyspace's NewTxHooks: the command context of a new pooled
// keyspace transaction.
func (e *Engine) newTx(ktx *keyspace.Tx) keyspace.TxHooks {
	return &Tx{Tx: ktx, e: e}
}

// GetType returns the value if it exists and has type t, WRONGTYPE if it
// exists with another type.
func (tx *Tx) GetType(key []byte, t Type) (Value, bool, error) {
	v, ok := tx.Get(key)
	if !ok {
		return v, false, nil
	}
	if v.Type != t {
		return v, false, ErrWrongType
	}
	return v, true, nil
}

// Hooks (keyspace.TxHooks).

// Body runs the transaction's body.
func (tx *Tx) Body() { tx.body(tx) }

// KeyTouched hears of a changed key. Tracking clients are told at once
// (the change must invalidate what was read before it in the same
// transaction, not what is read after it); the listeners at commit
// (Committing).
func (tx *Tx) KeyTouched(db int, key string) { tx.touch(db, key) }

// Flushing tells the listeners that db (all if < 0) is about to be
// emptied.
func (tx *Tx) Flushing(db int) { tx.notifyFlush(db) }

// KeyExpired raises "expired".
func (tx *Tx) KeyExpired(db int, key []byte) { tx.NotifyDB(db, NotifyExpired, "expired", key) }

// KeyCreated raises "new".
func (tx *Tx) KeyCreated(db int, key []byte) { tx.notifyNew(db, key) }

// HandOver runs the lock queue for a key a lookup just expired
// (lockqueue.go).
func (tx *Tx) HandOver(db int, key []byte) bool { return tx.handOverExpired(db, key) }

// ExpireFields is the sweeper's turn for hash fields (hashttl_sweep.go).
func (tx *Tx) ExpireFields(limit int) int { return tx.expireFieldsDue(limit) }

// Committing serves the listeners of the keys the transaction changed,
// still under the lock. Blocked clients are served after the command, as
// by Redis's handleClientsBlockedOnKeys: what they raise reaches a RESP3
// client subscribed to its own events after its whole reply.
func (tx *Tx) Committing() {
	if tx.call.S != nil {
		tx.clientCall = &tx.call
	}
	tx.notifyTouched()
	tx.clientCall = nil
}

// CommitFailed replaces the reply with the disk error: buntdb rolled
// back what the handler replied about.
func (tx *Tx) CommitFailed(err error) {
	if tx.retractable {
		// A batch: every command answered since its first write gets
		// the error (the later ones would have been refused MISCONF).
		tx.e.replaceWithDiskError(tx.callW, tx.replyMark, err, max(1, tx.cmdBatch.replies))
	}
}

// Inherit takes over the reader's client: this transaction deletes what
// the reader found expired, on its command's behalf (tracking: NOLOOP).
func (tx *Tx) Inherit(read keyspace.TxHooks) { tx.client = read.(*Tx).client }

// Finished records the keys a tracking client read, after the deletions
// of what the read found expired (tracking.go, rememberCall).
func (tx *Tx) Finished() {
	if tx.readBy != nil {
		tx.e.tracker.remember(tx.readBy, tx.readKeys)
	}
}

// Reset clears the command context for the next transaction.
func (tx *Tx) Reset() {
	tx.handingOver = false
	tx.body = nil
	tx.call = Call{}
	tx.callW = nil
	tx.depth = 0
	tx.replyMark, tx.retractable = 0, false
	tx.cmdBatch = Batch{}
	tx.touched = tx.touched[:0]
	tx.quiet = false
	tx.quietTouched = tx.quietTouched[:0]
	tx.client = nil
	tx.bcastKeys = nil // kept by a queued broadcast until it ran
	tx.readBy = nil
	tx.readKeys = nil
	tx.clientCall = nil
}

// notifyTouched runs at the end of a write transaction (Committing),
// still under the engine lock, so that a listener's view (a dirty WATCH) is settled before
// any other transaction starts.
func (tx *Tx) notifyTouched() {
	if len(tx.touched) == 0 && len(tx.quietTouched) == 0 {
		return
	}
	tx.e.listenersMu.Lock()
	ls := tx.e.listeners
	tx.e.listenersMu.Unlock()
	// Serving a blocked client changes keys too: walk the lists as they
	// grow.
	for i, j := 0, 0; i < len(tx.touched) || j < len(tx.quietTouched); {
		if i < len(tx.touched) {
			k := tx.touched[i]
			i++
			for _, l := range ls {
				if !(l.acts && tx.Applying()) {
					l.keyTouched(tx, k)
				}
			}
			continue
		}
		k := tx.quietTouched[j]
		j++
		if !tx.Applying() {
			tx.e.blocks.serve(tx, k)
		}
	}
}

// notifyFlush tells listeners that db (all if < 0) is about to be emptied.
func (tx *Tx) notifyFlush(db int) {
	if tx.e.tracker.active() {
		tx.e.tracker.flushed(tx)
	}
	if tx.e.listening.Load() == 0 {
		return
	}
	tx.e.listenersMu.Lock()
	ls := tx.e.listeners
	tx.e.listenersMu.Unlock()
	for _, l := range ls {
		if !(l.acts && tx.Applying()) {
			l.dbFlushed(tx, db)
		}
	}
}
