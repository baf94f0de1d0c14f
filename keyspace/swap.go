package keyspace

// SWAPDB's storage side. The keyspace stores each key under its database
// number as first byte, and the append-only file records those stored
// keys, so swapping two databases rewrites the keys of both under their
// new number: O(n) in the keys of the two databases. An indirection table
// (logical database -> stored prefix) would make the swap O(1), but every
// key lookup would pay for it and, above all, the AOF would then need the
// table too, or a restart would bring every key back in its old database;
// rewriting keeps the file self-describing, and SWAPDB is rare on a lock
// server. Values keep their expiry and fencing token; keys whose time has
// passed move too, as Redis moves its dictionaries whole.

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

// IsStored reports whether anything is stored under key in db, expired or
// not.
func (tx *Tx) IsStored(db int, key []byte) bool {
	_, err := tx.bt.Get(tx.tmpKey(db, key))
	return err == nil
}

// SwapDBs exchanges the stored keys of databases a and b. The layer above
// hears of it before the keys move (Hooks.Swapping) and after
// (Hooks.Swapped).
func (tx *Tx) SwapDBs(a, b int) {
	tx.up.Swapping(a, b)
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
			if at := tx.s.storedFieldExpiry(it.raw); at != 0 {
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
	tx.up.Swapped(a, b)
}
