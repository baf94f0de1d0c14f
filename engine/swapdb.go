package engine

// SWAPDB index1 index2 swaps the contents of two databases in one
// exclusive transaction.
//
// The keyspace stores each key under its database number as first byte,
// and the append-only file records those stored keys. SWAPDB rewrites the
// keys of both databases under their new number: O(n) in the keys of the
// two databases. An indirection table (logical database -> stored prefix)
// would make the swap O(1), but every key lookup would pay for it and,
// above all, the AOF would then need the table too, or a restart would
// bring every key back in its old database; rewriting keeps the file
// self-describing, and SWAPDB is rare on a lock server.
//
// As in Redis's dbSwapDatabases: WATCHed keys of either database are
// broken when the key exists on either side (with Redis's rules for keys
// whose time has passed), clients blocked on a key of either database are
// served if the key now holds data they wait for, and values keep their
// expiry and fencing token. Keys whose time has passed move too, as
// Redis moves its dictionaries whole.

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
		c.Tx.swapDBs(int(id1), int(id2))
	}
	c.OK()
}

// parseDBIndex parses an index as Redis's getIntFromObjectOrReply: an
// integer that fits in 32 bits.
func parseDBIndex(b []byte) (int64, bool) {
	n, ok := ParseInt(b)
	return n, ok && n >= -1<<31 && n < 1<<31
}

type storedItem struct{ bkey, raw string }

// storedIn returns every stored item of db, expired or not.
func (tx *Tx) storedIn(db int) []storedItem {
	var out []storedItem
	tx.bt.AscendGreaterOrEqual("", string([]byte{byte(db)}), func(k, v string) bool {
		if len(k) == 0 || k[0] != byte(db) {
			return false
		}
		out = append(out, storedItem{k, v})
		return true
	})
	return out
}

// swapDBs exchanges the stored keys of databases a and b.
func (tx *Tx) swapDBs(a, b int) {
	e := tx.e
	if e.listening.Load() > 0 {
		e.watches.dbSwapped(tx, a, b)
		e.watches.dbSwapped(tx, b, a)
	}
	tx.record(Change{Kind: ChangeSwapDB, DB: a, DB2: b})
	tx.memoDrop()
	defer tx.memoDrop() // the moves below write around it
	ia, ib := tx.storedIn(a), tx.storedIn(b)
	for _, it := range ia {
		tx.bt.Delete(it.bkey)
	}
	for _, it := range ib {
		tx.bt.Delete(it.bkey)
	}
	move := func(items []storedItem, to int) (vol int64) {
		for _, it := range items {
			nk := string(append([]byte{byte(to)}, it.bkey[1:]...))
			if _, _, err := tx.bt.Set(nk, it.raw, nil); err != nil {
				panic(err)
			}
			if at := expireAtOf(it.raw); at != 0 {
				vol++
				tx.expiring = append(tx.expiring, expiryEntry{at, nk})
			}
			if at := storedFieldExpiry(it.raw); at != 0 {
				tx.fieldExpiring = append(tx.fieldExpiring, expiryEntry{at, nk})
			}
		}
		return vol
	}
	va, vb := move(ia, b), move(ib, a)
	na, nb := int64(len(ia)), int64(len(ib))
	tx.keyDelta[a] += nb - na
	tx.keyDelta[b] += na - nb
	tx.volDelta[a] += vb - va
	tx.volDelta[b] += va - vb
	if len(ia)+len(ib) > 0 {
		tx.wroteAOF = true
	}
	// Clients blocked on a key of either database may be served now
	// (not while applying changes: see Apply).
	if tx.applying {
		return
	}
	for _, k := range e.blocks.keysIn(a, b) {
		e.blocks.keyTouched(tx, k)
	}
	for _, k := range e.locks.keysIn(a, b) {
		e.locks.serve(tx, k)
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
	stored := func(db int, key string) bool {
		_, err := tx.bt.Get(tx.tmpKey(db, StringBytes(key)))
		return err == nil
	}
	for k, set := range w.byKy {
		if k.db != emptied {
			continue
		}
		inEmptied := stored(emptied, k.key)
		inReplaced := stored(replacedWith, k.key)
		if !inEmptied && !inReplaced {
			continue
		}
		replacedExpired := inReplaced && tx.storedButExpired(replacedWith, StringBytes(k.key))
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
