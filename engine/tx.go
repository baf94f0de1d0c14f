package engine

import (
	"time"

	"github.com/tidwall/buntdb"
)

// Tx is one atomic unit of work on the keyspace: a command, a script or an
// EXEC. It sees one frozen "now". Writes become visible to others, and their
// effects (counters, deferred publishes) happen, only when it commits.
type Tx struct {
	e        *Engine
	bt       *buntdb.Tx
	write    bool
	rollback bool

	// Now is the frozen time of this unit of work, Ms the same in unix ms.
	Now time.Time
	Ms  int64
	// DB is the database the current command works on.
	DB int

	keyBuf   []byte
	keyDelta []int64 // per-db change in key count, applied at commit
	volDelta []int64 // per-db change in keys with an expiry
	expired  int64   // keys removed because they had expired
	after    []func()
	touched  []dbKey       // changed keys, recorded only while someone listens
	expiring []expiryEntry // keys given an expiry, queued for the sweeper at commit
	seq      uint64        // order of this transaction's after-commit effects
	// flushedAll: FlushAll ran in this transaction (see PutIn).
	flushedAll bool

	// How Engine.do runs it (engine.go).
	body       func(*Tx)
	runFn      func(*buntdb.Tx) error // tx.run, bound once
	call       Call                   // the command run opens this transaction for (dispatch.go)
	callW      Writer                 // its writer and start time
	callStart  time.Time
	nested     []*Call // reused Calls of RunIn, by depth
	depth      int
	panicked   any
	alwaysSync bool
	// wroteAOF: the transaction changed an item, so buntdb's commit
	// appends to the AOF when there is one (and, with appendfsync always,
	// the reply waits for an fsync covering it).
	wroteAOF bool
	maxTTL   int64
}

// Writable reports whether the transaction may write.
func (tx *Tx) Writable() bool { return tx.write }

// Rollback discards every write of this transaction when it ends (used by
// a script killed for running too long).
func (tx *Tx) Rollback() { tx.rollback = true }

// After queues fn to run once the transaction has committed, outside the
// engine lock, in the order queued. A rolled-back transaction drops it.
func (tx *Tx) After(fn func()) { tx.after = append(tx.after, fn) }

func (tx *Tx) reset() {
	tx.bt = nil
	tx.rollback = false
	tx.expired = 0
	tx.seq = 0
	tx.flushedAll = false
	tx.body = nil
	tx.call = Call{}
	tx.callW = nil
	tx.depth = 0
	tx.panicked = nil
	tx.alwaysSync = false
	tx.wroteAOF = false
	tx.maxTTL = 0
	for i := range tx.keyDelta {
		tx.keyDelta[i] = 0
		tx.volDelta[i] = 0
	}
	for i := range tx.after {
		tx.after[i] = nil
	}
	tx.after = tx.after[:0]
	tx.touched = tx.touched[:0]
	tx.expiring = tx.expiring[:0]
}

// pushCall returns a Call for a command run inside this transaction, reused
// across transactions; popCall releases it. Handlers do not keep their Call.
func (tx *Tx) pushCall() *Call {
	if tx.depth == len(tx.nested) {
		tx.nested = append(tx.nested, new(Call))
	}
	c := tx.nested[tx.depth]
	tx.depth++
	return c
}

func (tx *Tx) popCall() {
	tx.depth--
	*tx.nested[tx.depth] = Call{}
}

// tmpKey is the buntdb key of key in db; valid until the next tmpKey call.
// Only for reads: buntdb keeps the strings it is given on writes.
func (tx *Tx) tmpKey(db int, key []byte) string {
	tx.keyBuf = append(append(tx.keyBuf[:0], byte(db)), key...)
	return b2s(tx.keyBuf)
}

func storeKey(db int, key []byte) string {
	b := make([]byte, 1+len(key))
	b[0] = byte(db)
	copy(b[1:], key)
	return b2s(b)
}

// Get returns the live value of key in the current database. An expired key
// is missing; in a write transaction it is also deleted, as Redis does.
func (tx *Tx) Get(key []byte) (Value, bool) {
	return tx.GetIn(tx.DB, key)
}

// GetIn is Get for another database. As in Redis, a key is live through
// its expiry millisecond and gone after it (expired when now > expireAt).
func (tx *Tx) GetIn(db int, key []byte) (Value, bool) {
	raw, err := tx.bt.Get(tx.tmpKey(db, key))
	if err != nil {
		return Value{}, false
	}
	v := decodeValue(raw)
	if v.ExpireAt != 0 && v.ExpireAt < tx.Ms {
		if tx.write {
			tx.remove(storeKey(db, key), db)
			tx.expired++
		}
		return Value{}, false
	}
	return v, true
}

// storedButExpired reports whether key is still stored in db although its
// time has passed (Redis's keyIsExpired).
func (tx *Tx) storedButExpired(db int, key []byte) bool {
	raw, err := tx.bt.Get(tx.tmpKey(db, key))
	if err != nil {
		return false
	}
	exp := expireAtOf(raw)
	return exp != 0 && exp < tx.Ms
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

// Exists reports whether key is live in the current database.
func (tx *Tx) Exists(key []byte) bool {
	_, ok := tx.Get(key)
	return ok
}

// Put stores v under key in the current database.
func (tx *Tx) Put(key []byte, v Value) {
	tx.PutIn(tx.DB, key, v)
}

// PutIn is Put for another database.
func (tx *Tx) PutIn(db int, key []byte, v Value) {
	bkey := storeKey(db, key)
	var before string
	var existed bool
	if tx.flushedAll {
		// After DeleteAll in the same transaction buntdb's Set no longer
		// reports what it replaced: look first.
		raw, err := tx.bt.Get(bkey)
		before, existed = raw, err == nil
	}
	prev, replaced, err := tx.bt.Set(bkey, encodeValue(v), nil)
	if err != nil {
		panic(err) // only possible on a closed or read-only tx: a bug
	}
	tx.wroteAOF = true
	if tx.flushedAll {
		prev, replaced = before, existed
	}
	tx.touch(db, bkey[1:])
	if !replaced {
		tx.keyDelta[db]++
	} else if expireAtOf(prev) != 0 {
		tx.volDelta[db]--
	}
	if v.ExpireAt != 0 {
		tx.volDelta[db]++
		tx.expiring = append(tx.expiring, expiryEntry{v.ExpireAt, bkey})
	}
}

// Delete removes key from the current database and reports whether a live
// key was there.
func (tx *Tx) Delete(key []byte) bool {
	return tx.DeleteIn(tx.DB, key)
}

// DeleteIn is Delete for another database.
func (tx *Tx) DeleteIn(db int, key []byte) bool {
	if _, ok := tx.GetIn(db, key); !ok {
		return false
	}
	tx.remove(storeKey(db, key), db)
	return true
}

// remove deletes a stored item whatever its expiry.
func (tx *Tx) remove(bkey string, db int) {
	prev, err := tx.bt.Delete(bkey)
	if err != nil {
		return
	}
	tx.wroteAOF = true
	if db >= len(tx.keyDelta) {
		return
	}
	tx.touch(db, bkey[1:])
	tx.keyDelta[db]--
	if expireAtOf(prev) != 0 {
		tx.volDelta[db]--
	}
}

// Scan calls fn for each live key of db in key order, starting at the first
// key >= from. fn returns false to stop. Keys must not be modified during
// the scan; collect them and write afterwards.
func (tx *Tx) Scan(db int, from []byte, fn func(key string, v Value) bool) {
	pivot := string(append([]byte{byte(db)}, from...))
	tx.bt.AscendGreaterOrEqual("", pivot, func(k, raw string) bool {
		if len(k) == 0 || k[0] != byte(db) {
			return false
		}
		v := decodeValue(raw)
		if v.ExpireAt != 0 && v.ExpireAt < tx.Ms {
			return true
		}
		return fn(k[1:], v)
	})
}

// FlushDB deletes every key of db.
func (tx *Tx) FlushDB(db int) {
	tx.notifyFlush(db)
	var keys []string
	tx.bt.AscendGreaterOrEqual("", string([]byte{byte(db)}), func(k, _ string) bool {
		if len(k) == 0 || k[0] != byte(db) {
			return false
		}
		keys = append(keys, k)
		return true
	})
	// The flush already told listeners; do not report each key again.
	saved := tx.touched
	for _, k := range keys {
		tx.remove(k, db)
	}
	tx.touched = saved
}

// FlushAll deletes every key of every database.
func (tx *Tx) FlushAll() {
	tx.notifyFlush(-1)
	if err := tx.bt.DeleteAll(); err != nil {
		panic(err)
	}
	tx.wroteAOF = true
	tx.e.expiries.reset()
	tx.expiring = tx.expiring[:0]
	tx.flushedAll = true
	for i := range tx.keyDelta {
		tx.keyDelta[i] = -tx.e.keys[i].Load()
		tx.volDelta[i] = -tx.e.volatile[i].Load()
	}
}

// KeyCount is the number of stored keys in db (expired keys not yet
// removed included, as Redis's DBSIZE), as of this transaction.
func (tx *Tx) KeyCount(db int) int64 {
	return tx.e.keys[db].Load() + tx.keyDelta[db]
}

// VolatileCount is the number of stored keys with an expiry in db.
func (tx *Tx) VolatileCount(db int) int64 {
	return tx.e.volatile[db].Load() + tx.volDelta[db]
}

// RandomKey returns a random live key of db, or false when db is empty.
func (tx *Tx) RandomKey(db int) (string, bool) {
	n := tx.KeyCount(db)
	if n <= 0 {
		return "", false
	}
	// Walk from a random key found by a random prefix; fall back to the
	// first live key. Uniformity is not required by Redis either.
	for try := 0; try < 5; try++ {
		var found string
		ok := false
		pivot := []byte{byte(randByte()), byte(randByte())}
		tx.Scan(db, pivot, func(key string, _ Value) bool {
			found, ok = key, true
			return false
		})
		if ok {
			return found, true
		}
	}
	var found string
	ok := false
	tx.Scan(db, nil, func(key string, _ Value) bool {
		found, ok = key, true
		return false
	})
	return found, ok
}
