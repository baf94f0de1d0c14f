package keyspace

// TxHooks is how the layer above takes part in a transaction: the core
// calls up through it, never by name. Every method runs inside the
// transaction, under its lock, unless said otherwise.
type TxHooks interface {
	// Body runs the work the transaction was started for, when it was
	// started by Store.Run with a nil body.
	Body()
	// KeyTouched: a write changed key in db (set, deleted, expired); not
	// called for each key a flush removes (Flushing says it once).
	KeyTouched(db int, key string)
	// Flushing: db (every database when db < 0) is about to be emptied.
	Flushing(db int)
	// Swapping and Swapped: SWAPDB is about to exchange, and has
	// exchanged, the keys of databases a and b.
	Swapping(a, b int)
	Swapped(a, b int)
	// KeyExpired: a key whose time had passed is being deleted (or, in a
	// read transaction, was found so: it is deleted after it).
	KeyExpired(db int, key []byte)
	// KeyCreated: a write creates key (it did not exist, or had expired).
	KeyCreated(db int, key []byte)
	// HandOver: a lookup in a write transaction has just deleted the
	// expired key; true when the layer above wrote it again (a lock
	// queue handing it to its next holder): the lookup then reads again.
	HandOver(db int, key []byte) bool
	// ExpireFields: the sweeper's turn for hash fields: expire at most
	// limit of the hashes PopDueFields returns; it returns how many it
	// popped.
	ExpireFields(limit int) int
	// Committing: the write transaction's body is done and it will
	// commit; the last moment to change keys in it.
	Committing()
	// CommitFailed: buntdb could not commit what the body did (an AOF
	// write failed); called after the lock is released.
	CommitFailed(err error)
	// Inherit: this transaction deletes the expired keys read (another
	// transaction's hooks) found, on its behalf.
	Inherit(read TxHooks)
	// Finished: the transaction is over, committed or not, its
	// after-commit effects ran and, committed, it is durable (the restart
	// fence's record, appendfsync always's fsync); called after the lock
	// is released.
	Finished()
	// Reset: the Tx goes back to the pool.
	Reset()
}

// NopHooks is a TxHooks that does nothing: a store used on its own, and a
// base to embed.
type NopHooks struct{}

// Body does nothing.
func (NopHooks) Body() {}

// KeyTouched does nothing.
func (NopHooks) KeyTouched(int, string) {}

// Flushing does nothing.
func (NopHooks) Flushing(int) {}

// Swapping does nothing.
func (NopHooks) Swapping(int, int) {}

// Swapped does nothing.
func (NopHooks) Swapped(int, int) {}

// KeyExpired does nothing.
func (NopHooks) KeyExpired(int, []byte) {}

// KeyCreated does nothing.
func (NopHooks) KeyCreated(int, []byte) {}

// HandOver hands nothing over: false.
func (NopHooks) HandOver(int, []byte) bool { return false }

// ExpireFields expires no field: 0.
func (NopHooks) ExpireFields(int) int { return 0 }

// Committing does nothing.
func (NopHooks) Committing() {}

// CommitFailed does nothing.
func (NopHooks) CommitFailed(error) {}

// Inherit does nothing.
func (NopHooks) Inherit(TxHooks) {}

// Finished does nothing.
func (NopHooks) Finished() {}

// Reset does nothing.
func (NopHooks) Reset() {}
