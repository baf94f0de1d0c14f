package engine

// Active expiry of hash fields (HEXPIRE...). Lookups hide a field whose
// time has passed (loadHash); the sweeper removes it. Hashes with field
// expiries are queued by their earliest one (the payload's minAt) in
// Engine.fieldExpiries, with the same stale-entry rule as the key queue:
// whenever a write changes a hash's minAt, PutIn queues the new one, so an
// entry whose time no longer matches the stored minAt is dropped.

// storedFieldExpiry is the earliest field expiry of an encoded item, 0 when
// it is not a hash or no field has one.
func storedFieldExpiry(raw string) int64 {
	if len(raw) < headerLen || Type(raw[0]&^hasToken) != TypeHash {
		return 0
	}
	return hashFieldExpiry(decodeValue(raw).Payload)
}

// queueFieldExpiry queues a hash written under bkey for the sweeper when
// its earliest field expiry is new (prev is what the write replaced).
func (tx *Tx) queueFieldExpiry(bkey, payload, prev string) {
	if at := hashFieldExpiry(payload); at != 0 && at != storedFieldExpiry(prev) {
		tx.fieldExpiring = append(tx.fieldExpiring, expiryEntry{at, bkey})
	}
}

// expireFieldsDue removes the expired fields of at most limit queued
// hashes whose earliest field expiry has passed, and returns how many
// queue entries it took. Each hash is one decode and one write, like any
// hash command.
func (tx *Tx) expireFieldsDue(limit int) int {
	popped := 0
	for popped < limit {
		ent, ok := tx.e.fieldExpiries.popDue(tx.Ms)
		if !ok {
			break
		}
		popped++
		db, key := int(ent.bkey[0]), StringBytes(ent.bkey[1:])
		v, ok := tx.GetIn(db, key) // an expired key goes as a whole
		if !ok || v.Type != TypeHash || hashFieldExpiry(v.Payload) != ent.at {
			continue // stale: the hash changed since this entry
		}
		h := decodeHash(v.Payload)
		h.hideExpired(ent.at, tx.Ms)
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
		tx.remove(storeKey(db, key), db)
	} else {
		tx.PutIn(db, key, Value{Type: TypeHash, ExpireAt: expireAt, Payload: encodeHash(h)})
	}
	tx.NotifyDB(db, NotifyHash, "hexpired", key)
	if h.live == 0 {
		tx.NotifyDB(db, NotifyGeneric, "del", key)
	}
}
