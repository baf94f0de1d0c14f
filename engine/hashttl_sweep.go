package engine

// Active expiry of hash fields (HEXPIRE...). Lookups hide a field whose
// time has passed (loadHash); the sweeper removes it. Hashes with field
// expiries are queued by their earliest one (the payload's minAt) in
// the keyspace's field-expiry queue (keyspace.Config.FieldExpiry), with the
// same stale-entry rule as the key queue: whenever a write changes a hash's
// minAt, PutIn queues the new one, so an entry whose time no longer
// matches the stored minAt is dropped.

// expireFieldsDue removes the expired fields of at most limit queued
// hashes whose earliest field expiry has passed, and returns how many
// queue entries it took. Each hash is one decode and one write, like any
// hash command.
func (tx *Tx) expireFieldsDue(limit int) int {
	popped := 0
	for popped < limit {
		db, key, at, ok := tx.PopDueFields()
		if !ok {
			break
		}
		popped++
		v, ok := tx.GetIn(db, key) // an expired key goes as a whole
		if !ok || v.Type != TypeHash || hashFieldExpiry(v.Payload) != at {
			continue // stale: the hash changed since this entry
		}
		h := decodeHash(v.Payload)
		h.hideExpired(at, tx.Ms)
		tx.storeExpiredFields(db, key, h, v.ExpireAt)
	}
	return popped
}

// storeExpiredFields writes back a hash from which fields were removed
// because their time had passed (h.expired of them), as Redis's field
// expiry does: a "hexpired" event, and "del" when it was the last field.
func (tx *Tx) storeExpiredFields(db int, key []byte, h *hashObj, expireAt int64) {
	if h.expired == 0 {
		return
	}
	if h.live == 0 {
		tx.DeleteIn(db, key)
	} else {
		tx.PutIn(db, key, Value{Type: TypeHash, ExpireAt: expireAt, Payload: encodeHash(h)})
	}
	tx.NotifyDB(db, NotifyHash, "hexpired", key)
	if h.live == 0 {
		tx.NotifyDB(db, NotifyGeneric, "del", key)
	}
}
