package engine

import "errors"

// SWAPDB index1 index2 swaps the contents of two databases in one
// exclusive transaction (the keys move in keyspace/swap.go).
//
// As in Redis's dbSwapDatabases: WATCHed keys of either database are
// broken when the key exists on either side (with Redis's rules for keys
// whose time has passed), clients blocked on a key of either database are
// served if the key now holds data they wait for, and values keep their
// expiry and fencing token. Keys whose time has passed move too, as
// Redis moves its dictionaries whole.

// Error replies of this file's commands (errors.go has the shared ones).
var (
	errDBIndexRange    = replyError("ERR DB index is out of range")
	errSwapDBFirst     = replyError("ERR invalid first DB index")
	errSwapDBInCluster = errors.New("ERR SWAPDB is not allowed in cluster mode")
	errSwapDBSecond    = replyError("ERR invalid second DB index")
)

func cmdSwapDB(c *Call) {
	if c.E.cluster.enabled {
		c.Err(errSwapDBInCluster)
		return
	}
	id1, ok := parseDBIndex(c.Args[1])
	if !ok {
		c.Err(errSwapDBFirst)
		return
	}
	id2, ok := parseDBIndex(c.Args[2])
	if !ok {
		c.Err(errSwapDBSecond)
		return
	}
	n := int64(c.E.Databases())
	if id1 < 0 || id1 >= n || id2 < 0 || id2 >= n {
		c.Err(errDBIndexRange)
		return
	}
	if id1 != id2 {
		c.Tx.SwapDBs(int(id1), int(id2))
	}
	c.OK()
}

// parseDBIndex parses an index as Redis's getIntFromObjectOrReply: an
// integer that fits in 32 bits.
func parseDBIndex(b []byte) (int64, bool) {
	n, ok := ParseInt(b)
	return n, ok && n >= -1<<31 && n < 1<<31
}

// Swapping and Swapped are the keyspace's hooks around SWAPDB's move
// (keyspace/swap.go): WATCHes break before, blocked clients are served
// after (not while applying a leader's changes: see keyspace.Apply).
func (tx *Tx) Swapping(a, b int) {
	if tx.e.listening.Load() > 0 {
		tx.e.watches.dbSwapped(tx, a, b)
		tx.e.watches.dbSwapped(tx, b, a)
	}
}

// Swapped is the hook after SWAPDB's move: see Swapping.
func (tx *Tx) Swapped(a, b int) {
	if tx.Applying() {
		return
	}
	for _, k := range tx.e.blocks.keysIn(a, b) {
		tx.e.blocks.keyTouched(tx, k)
	}
	for _, k := range tx.e.locks.keysIn(a, b) {
		tx.e.locks.serve(tx, k)
	}
}

// keysIn lists the keys of databases a and b that clients are blocked on.
func (r *blockRegistry) keysIn(a, b int) []dbKey {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []dbKey
	for k, list := range r.byKey {
		if (k.db == a || k.db == b) && len(list) > 0 {
			out = append(out, k)
		}
	}
	return out
}

// dbSwapped breaks the WATCHes of keys of emptied when SWAPDB replaces it
// with replacedWith, as Redis's touchAllWatchedKeysInDb: a watched key
// that exists on either side is touched, except that a key watched after
// its time passed stays unchanged if it is gone or still expired after
// the swap, and a missing key replaced by an expired one counts as
// unchanged but expired from then on. It runs before the keys move.
func (w *watchRegistry) dbSwapped(tx *Tx, emptied, replacedWith int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	stored := func(db int, key string) bool { return tx.IsStored(db, StringBytes(key)) }
	for k, set := range w.byKy {
		if k.db != emptied {
			continue
		}
		inEmptied := stored(emptied, k.key)
		inReplaced := stored(replacedWith, k.key)
		if !inEmptied && !inReplaced {
			continue
		}
		replacedExpired := inReplaced && tx.StoredButExpired(replacedWith, StringBytes(k.key))
		for ws := range set {
			if ws.keys[k] { // watched while already expired
				if !inReplaced {
					ws.keys[k] = false
					continue
				}
				if replacedExpired {
					continue
				}
			} else if !inEmptied && replacedExpired {
				ws.keys[k] = true
				continue
			}
			ws.dirty.Store(true)
		}
	}
}
