package keyspace

import (
	"time"
)

// Writable reports whether the transaction may write.
func (tx *Tx) Writable() bool { return tx.write }

// Hooks is the layer above's context of this transaction.
func (tx *Tx) Hooks() TxHooks { return tx.up }

// Store is the store the transaction runs on.
func (tx *Tx) Store() *Store { return tx.s }

// Iterating reports whether a scan of stored keys is under way: nothing
// may be written until it ends.
func (tx *Tx) Iterating() bool { return tx.iterating }

// Rollback discards every write of this transaction when it ends (used by
// a script killed for running too long).
func (tx *Tx) Rollback() { tx.rollback = true }

// After queues fn to run once the transaction has committed, outside the
// keyspace lock, in the order queued. A rolled-back transaction drops it.
func (tx *Tx) After(fn func()) { tx.after = append(tx.after, fn) }

func (tx *Tx) reset() {
	tx.memoOK = false
	tx.memoRaw = ""
	tx.bt = nil
	tx.readToken = 0
	tx.rollback = false
	tx.expired = 0
	clear(tx.found) // drop the key strings for the GC
	tx.found = tx.found[:0]
	tx.iterating = false
	tx.expiredAnnounced = false
	tx.seq = 0
	tx.flushedAll = false
	tx.body = nil
	tx.panicked = nil
	tx.alwaysSync = false
	tx.wroteAOF = false
	tx.maxTTL = 0
	tx.memDelta = 0
	for i := range tx.keyDelta {
		tx.keyDelta[i] = 0
		tx.volDelta[i] = 0
	}
	for i := range tx.after {
		tx.after[i] = nil
	}
	tx.after = tx.after[:0]
	tx.expiring = tx.expiring[:0]
	tx.fieldExpiring = tx.fieldExpiring[:0]
	tx.flushing = false
	tx.recording = false
	tx.changes = nil
	tx.batch = nil
	tx.applying = false
	tx.at = time.Time{}
}

// tmpKey is the buntdb key of key in db; valid until the next tmpKey call.
// Only for reads: buntdb keeps the strings it is given on writes.
func (tx *Tx) tmpKey(db int, key []byte) string {
	tx.keyBuf = append(append(tx.keyBuf[:0], byte(db)), key...)
	return b2s(tx.keyBuf)
}

// Stored returns the stored bytes of key in db whatever its expiry
// (MEMORY USAGE's measure), false when nothing is stored.
func (tx *Tx) Stored(db int, key []byte) (string, bool) {
	raw, err := tx.bt.Get(tx.tmpKey(db, key))
	return raw, err == nil
}

// stored is buntdb's Get through the memo.
func (tx *Tx) stored(bkey string) (string, bool) {
	if tx.memoOK && string(tx.memoKey) == bkey {
		return tx.memoRaw, tx.memoFound
	}
	raw, err := tx.bt.Get(bkey)
	tx.memoWrote(bkey, raw, err == nil)
	return raw, err == nil
}

// memoWrote records what bkey now holds (found false: nothing).
func (tx *Tx) memoWrote(bkey, raw string, found bool) {
	tx.memoKey = append(tx.memoKey[:0], bkey...)
	tx.memoRaw, tx.memoFound, tx.memoOK = raw, found, true
}

// memoDrop forgets the memo: a write whose result it does not know.
func (tx *Tx) memoDrop() { tx.memoOK, tx.memoRaw = false, "" }

func storeKey(db int, key []byte) string {
	b := make([]byte, 1+len(key))
	b[0] = byte(db)
	copy(b[1:], key)
	return b2s(b)
}

// Get returns the live value of key in the current database. An expired key
// is missing, and deleted as Redis does (see foundExpired).
func (tx *Tx) Get(key []byte) (Value, bool) {
	return tx.GetIn(tx.DB, key)
}

// GetIn is Get for another database. As in Redis, a key is live through
// its expiry millisecond and gone after it (expired when now > expireAt).
func (tx *Tx) GetIn(db int, key []byte) (Value, bool) {
	bkey := tx.tmpKey(db, key)
	raw, ok := tx.stored(bkey)
	if !ok {
		return Value{}, false
	}
	v := DecodeValue(raw)
	if v.ExpireAt != 0 && v.ExpireAt < tx.Ms {
		tx.FoundExpired(db, key, v.ExpireAt)
		// A lock with waiters passes to the first of them as it expires
		// (the lock queue, above): whoever looked sees the new holder.
		if tx.write && !tx.iterating && !tx.passive() && tx.up.HandOver(db, key) {
			return tx.GetIn(db, key)
		}
		return Value{}, false
	}
	if tx.write {
		tx.rememberToken(bkey, v.Token)
	}
	return v, true
}

// StoredButExpired reports whether key is still stored in db although its
// time has passed (Redis's keyIsExpired). It deletes nothing: WATCH and
// EXEC look without expiring, as in Redis.
func (tx *Tx) StoredButExpired(db int, key []byte) bool {
	raw, err := tx.bt.Get(tx.tmpKey(db, key))
	if err != nil {
		return false
	}
	exp := expireAtOf(raw)
	return exp != 0 && exp < tx.Ms
}

// FoundExpired is what a lookup does with a key whose time has passed
// (Redis's expireIfNeeded): the key must be gone for every later command,
// DBSIZE included. A write transaction deletes it at once. A read
// transaction cannot, nor can anyone while buntdb iterates: the key is
// recorded with its expiry, and expireFound deletes it after the iteration
// or, for a read transaction, in a write transaction of its own that
// Store.Run runs before it returns (so before the reply is sent).
func (tx *Tx) FoundExpired(db int, key []byte, at int64) {
	if tx.passive() {
		return // a follower's keys expire by its leader's batches
	}
	if tx.write && !tx.iterating {
		tx.expireKey(storeKey(db, key))
		return
	}
	bkey := storeKey(db, key)
	if !tx.write {
		// The "expired" event goes out now, in the order of the reader's
		// other events (a "keymiss" follows it), once per key as in
		// Redis, where the first lookup deleted it; expireAfterRead
		// deletes it without another.
		for _, ent := range tx.found {
			if ent.bkey == bkey {
				return
			}
		}
		tx.up.KeyExpired(db, key)
	}
	tx.found = append(tx.found, expiryEntry{at, bkey})
}

// expireFound deletes the keys foundExpired recorded that are still stored
// with the same expiry, which has passed: a key deleted, re-created or
// given another TTL in between is not the key that was found expired.
func (tx *Tx) expireFound() {
	for _, ent := range tx.found {
		raw, err := tx.bt.Get(ent.bkey)
		if err == nil && expireAtOf(raw) == ent.at && ent.at < tx.Ms {
			tx.expireKey(ent.bkey)
		}
	}
	clear(tx.found)
	tx.found = tx.found[:0]
}

// expireKey deletes a stored key because its time has passed, and raises
// "expired" unless a read transaction already did (expiredAnnounced).
func (tx *Tx) expireKey(bkey string) {
	if tx.remove(bkey, int(bkey[0])) {
		tx.keyExpired()
		if !tx.expiredAnnounced {
			tx.up.KeyExpired(int(bkey[0]), s2b(bkey[1:]))
		}
	}
}

// keyExpired records that a key expired: deleted by expireKey (a lookup or
// the sweeper), or overwritten by PutIn. Every expiry passes here once, so
// expired_keys counts each key once.
func (tx *Tx) keyExpired() { tx.expired++ }

// pendingExpired is how many distinct keys of db this read transaction has
// found expired and not yet deleted: counts of stored keys leave them out,
// as they would be in Redis, where the lookup deleted them.
func (tx *Tx) pendingExpired(db int) int64 {
	if len(tx.found) == 0 {
		return 0
	}
	seen := make(map[string]struct{}, len(tx.found))
	for _, ent := range tx.found {
		if int(ent.bkey[0]) == db {
			seen[ent.bkey] = struct{}{}
		}
	}
	return int64(len(seen))
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

// PutIn is Put for another database. A key that exists keeps its fencing
// token; a new one (or one whose time had passed) takes the next token.
func (tx *Tx) PutIn(db int, key []byte, v Value) {
	// The key and its stored value share one allocation: buntdb keeps
	// both strings in the item for as long as it lives, and a Set of the
	// same key replaces both.
	// Room for the token tokenFor will pick: the next one at most.
	kv := make([]byte, 1+len(key), 1+len(key)+encodedCap(v, tx.s.tokens.next))
	kv[0] = byte(db)
	copy(kv[1:], key)
	bkey := b2s(kv)
	var before string
	var existed bool
	if tx.flushedAll {
		// After DeleteAll in the same transaction buntdb's Set no longer
		// reports what it replaced: look first.
		raw, err := tx.bt.Get(bkey)
		before, existed = raw, err == nil
	}
	// One write in the usual cases: the token is known from the read that
	// preceded it, or the key is new. A blind write over an existing key
	// (SET without NX, MSET) writes again with the key's own token.
	token, fresh := tx.tokenFor(bkey)
	v.Token = token
	enc := b2s(appendValue(kv, v)[len(kv):])
	prev, replaced, err := tx.bt.Set(bkey, enc, nil)
	if err != nil {
		panic(err) // only possible on a closed or read-only tx: a bug
	}
	tx.memoWrote(bkey, enc, true)
	tx.wroteAOF = true
	if tx.flushedAll {
		prev, replaced = before, existed
	}
	live := replaced && !(expireAtOf(prev) != 0 && expireAtOf(prev) < tx.Ms)
	switch {
	case live && tokenOf(prev) != token:
		// Stored again with the right token: under a key of its own,
		// since bkey's array holds the first encoding, which would
		// otherwise live on with the key.
		v.Token = tokenOf(prev)
		bkey, enc = storeKey(db, key), EncodeValue(v)
		tx.bt.Set(bkey, enc, nil)
		tx.memoWrote(bkey, enc, true)
	case !live && !fresh:
		v.Token = tx.s.tokens.take(tx.s.cfg.Logf)
		bkey, enc = storeKey(db, key), EncodeValue(v)
		tx.bt.Set(bkey, enc, nil)
		tx.memoWrote(bkey, enc, true)
	case !live:
		tx.s.tokens.take(tx.s.cfg.Logf)
	}
	tx.rememberToken(bkey, v.Token)
	tx.recordPut(bkey, enc)
	tx.touch(db, bkey[1:])
	tx.memDelta += itemMemory(bkey, enc)
	if replaced {
		tx.memDelta -= itemMemory(bkey, prev)
	}
	if !replaced {
		tx.keyDelta[db]++
	} else if at := expireAtOf(prev); at != 0 {
		tx.volDelta[db]--
		if at < tx.Ms {
			// Overwriting a key whose time has passed: Redis's write
			// lookup would have expired it first.
			tx.keyExpired()
			tx.up.KeyExpired(db, key)
		}
	}
	if !live {
		tx.up.KeyCreated(db, key)
	}
	if v.ExpireAt != 0 {
		tx.volDelta[db]++
		tx.expiring = append(tx.expiring, expiryEntry{v.ExpireAt, bkey})
	}
	if v.Type == TypeHash {
		tx.queueFieldExpiry(bkey, v.Payload, prev)
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

// remove deletes a stored item whatever its expiry, and reports whether
// there was one.
func (tx *Tx) remove(bkey string, db int) bool {
	prev, err := tx.bt.Delete(bkey)
	tx.memoWrote(bkey, "", false)
	if err != nil {
		return false
	}
	tx.wroteAOF = true
	if db >= len(tx.keyDelta) {
		return true
	}
	if !tx.flushing { // FlushDB records itself
		tx.record(Change{Kind: ChangeDelete, DB: db, Key: bkey[1:]})
	}
	tx.memDelta -= itemMemory(bkey, prev)
	tx.touch(db, bkey[1:])
	tx.keyDelta[db]--
	if expireAtOf(prev) != 0 {
		tx.volDelta[db]--
	}
	return true
}

// Scan calls fn for each live key of db in key order, starting at the first
// key >= from. fn returns false to stop. Keys must not be modified during
// the scan; collect them and write afterwards. Expired keys are skipped and
// stay stored: Redis 7.0's KEYS asks keyIsExpired, which deletes nothing.
func (tx *Tx) Scan(db int, from []byte, fn func(key string, v Value) bool) {
	tx.ScanStored(db, from, func(key string, v Value, expired bool) bool {
		return expired || fn(key, v)
	})
}

// ScanStored calls fn for every stored key of db in key order, expired
// (its time has passed) or not, starting at the first key >= from; fn
// returns false to stop. fn must not write, but may hand expired keys to
// FoundExpired: in a write transaction they are deleted when the
// iteration ends.
func (tx *Tx) ScanStored(db int, from []byte, fn func(key string, v Value, expired bool) bool) {
	pivot := string(append([]byte{byte(db)}, from...))
	tx.iterating = true
	tx.bt.AscendGreaterOrEqual("", pivot, func(k, raw string) bool {
		if len(k) == 0 || k[0] != byte(db) {
			return false
		}
		v := DecodeValue(raw)
		return fn(k[1:], v, v.ExpireAt != 0 && v.ExpireAt < tx.Ms)
	})
	tx.iterating = false
	if tx.write {
		tx.expireFound()
	}
}

// FlushDB deletes every key of db.
func (tx *Tx) FlushDB(db int) {
	tx.up.Flushing(db)
	tx.record(Change{Kind: ChangeFlushDB, DB: db})
	var keys []string
	tx.bt.AscendGreaterOrEqual("", string([]byte{byte(db)}), func(k, _ string) bool {
		if len(k) == 0 || k[0] != byte(db) {
			return false
		}
		keys = append(keys, k)
		return true
	})
	// The flush already told the layer above; do not report each key.
	tx.flushing = true
	for _, k := range keys {
		tx.remove(k, db)
	}
	tx.flushing = false
}

// FlushAll deletes every key of every database.
func (tx *Tx) FlushAll() {
	tx.up.Flushing(-1)
	tx.record(Change{Kind: ChangeFlushAll})
	keep := tx.keepFunctions() // functions.go
	tx.memoDrop()
	if err := tx.bt.DeleteAll(); err != nil {
		panic(err)
	}
	keep()
	tx.wroteAOF = true
	tx.s.expiries.reset()
	tx.expiring = tx.expiring[:0]
	tx.s.fieldExpiries.reset()
	tx.fieldExpiring = tx.fieldExpiring[:0]
	tx.flushedAll = true
	for i := range tx.keyDelta {
		tx.keyDelta[i] = -tx.s.keys[i].Load()
		tx.volDelta[i] = -tx.s.volatile[i].Load()
	}
	tx.memDelta = -tx.s.dataset.Load()
}

// KeyCount is the number of stored keys in db (expired keys no lookup has
// met yet included, as Redis's DBSIZE), as of this transaction.
func (tx *Tx) KeyCount(db int) int64 {
	return tx.s.keys[db].Load() + tx.keyDelta[db] - tx.pendingExpired(db)
}

// VolatileCount is the number of stored keys with an expiry in db.
func (tx *Tx) VolatileCount(db int) int64 {
	return tx.s.volatile[db].Load() + tx.volDelta[db] - tx.pendingExpired(db)
}

// RandomKey returns a random live key of db, or false when db is empty.
// Like Redis's dbRandomKey it deletes the expired keys it meets on the way.
func (tx *Tx) RandomKey(db int) (string, bool) {
	n := tx.KeyCount(db)
	if n <= 0 {
		return "", false
	}
	var found string
	ok := false
	firstLive := func(key string, v Value, expired bool) bool {
		if expired {
			tx.FoundExpired(db, s2b(key), v.ExpireAt)
			return true
		}
		found, ok = key, true
		return false
	}
	// Walk from a random key found by a random prefix; fall back to the
	// first live key. Uniformity is not required by Redis either.
	for try := 0; try < 5 && !ok; try++ {
		pivot := []byte{byte(tx.s.randIntN(256)), byte(tx.s.randIntN(256))}
		tx.ScanStored(db, pivot, firstLive)
	}
	if !ok {
		tx.ScanStored(db, nil, firstLive)
	}
	return found, ok
}

// touch reports a changed key to the layer above, except while a flush
// (which reported itself) removes keys one by one.
func (tx *Tx) touch(db int, key string) {
	if !tx.flushing {
		tx.up.KeyTouched(db, key)
	}
}

// queueFieldExpiry queues a hash written under bkey for the sweeper when
// its earliest field expiry is new (prev is what the write replaced).
func (tx *Tx) queueFieldExpiry(bkey, payload, prev string) {
	if at := tx.s.fieldExpiry(payload); at != 0 && at != tx.s.storedFieldExpiry(prev) {
		tx.fieldExpiring = append(tx.fieldExpiring, expiryEntry{at, bkey})
	}
}

// PopDueFields pops a hash whose earliest field expiry has passed, for
// Hooks.ExpireFields; at is that expiry: a hash whose stored one differs
// changed since it was queued, and the entry is stale.
func (tx *Tx) PopDueFields() (db int, key []byte, at int64, ok bool) {
	ent, ok := tx.s.fieldExpiries.popDue(tx.Ms)
	if !ok {
		return 0, nil, 0, false
	}
	return int(ent.bkey[0]), s2b(ent.bkey[1:]), ent.at, true
}

// GrantTTL records that this transaction granted something for ms
// milliseconds (a field TTL): the restart fence covers it (fence.go).
func (tx *Tx) GrantTTL(ms int64) { tx.maxTTL = max(tx.maxTTL, ms) }

// Rewrite stores v under key in db in place of the live value it holds,
// keeping its token, without reporting a change: an encoding conversion
// Redis makes silently (SORT's listpack to skiplist).
func (tx *Tx) Rewrite(db int, key []byte, v Value) {
	bkey := storeKey(db, key)
	prev, err := tx.bt.Get(bkey)
	if err != nil {
		panic("keyspace: Rewrite of a missing key") // only a bug gets here
	}
	v.Token = tokenOf(prev)
	enc := EncodeValue(v)
	if _, _, err := tx.bt.Set(bkey, enc, nil); err != nil {
		panic(err)
	}
	tx.memoWrote(bkey, enc, true)
	tx.wroteAOF = true
	tx.recordPut(bkey, enc)
	tx.memDelta += itemMemory(bkey, enc) - itemMemory(bkey, prev)
}

// Token returns the fencing token of key in the current database, false
// when the key does not exist.
func (tx *Tx) Token(key []byte) (uint64, bool) {
	v, ok := tx.Get(key)
	return v.Token, ok
}

// TakeToken hands out a fencing token that no key creation takes: a grant
// inside a key that already exists (a semaphore's holder, engine's
// lock_layout.go). The counter after the transaction goes with its
// change batch, as for any token.
func (tx *Tx) TakeToken() uint64 { return tx.s.tokens.take(tx.s.cfg.Logf) }

// tokenFor is the token Put writes for bkey before it knows whether the key
// exists: the token of the key when this transaction just read it, else
// the next counter value (fresh, not taken yet). Put corrects it after the
// write when the guess was wrong.
func (tx *Tx) tokenFor(bkey string) (token uint64, fresh bool) {
	if tx.readToken != 0 && string(tx.readKey) == bkey {
		return tx.readToken, false
	}
	return tx.s.tokens.next, true
}

// rememberToken notes the token of a key just read, for the write that
// usually follows (tokenFor).
func (tx *Tx) rememberToken(bkey string, token uint64) {
	tx.readKey = append(tx.readKey[:0], bkey...)
	tx.readToken = token
}
