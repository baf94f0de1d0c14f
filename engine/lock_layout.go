package engine

import (
	"math"
	"strconv"
	"strings"
)

// How each kind of lock is stored: in the layout an existing client
// already reads and writes, so that an unmodified client and the LOCK.*
// commands can share a key (docs/locks.md has the table).
//
//	exclusive  a string key holding the owner, its TTL the lock's
//	           (redsync, redislock, redis-py, node-redlock, SET NX).
//	shared     Redisson's RReadWriteLock hash {mode: read, owner: count},
//	           and per holder Redisson's timeout key
//	           {key}:owner:rwlock_timeout:1 (value 1, the holder's TTL);
//	           the hash's TTL is the latest holder's. The timeout key is
//	           created by each grant, so its fencing token is the grant's.
//	semaphore  redis-semaphore's sorted set {owner: score}; ours are scored
//	           by their deadline (unix ms), so redis-semaphore's cleanup
//	           (score < now - lockTimeout) never drops a live one, and the
//	           companion hash {key}:permits holds, per owner of ours,
//	           "token:permits" (a holder without an entry there is a
//	           redis-semaphore client's, scored by its acquire time).
//
// Redisson's own reentrant lock (a hash {uuid:thread: count}) and its
// write lock ({mode: write, uuid:thread:write: count}) are recognised,
// released and extended as Redisson's scripts do, never created here.

// Lock kinds, as LOCK.INFO and LOCK.LIST name them.
const (
	lockString    = "string"    // exclusive: key = owner
	lockShared    = "shared"    // Redisson RReadWriteLock in read mode
	lockRWWrite   = "rwwrite"   // Redisson RReadWriteLock in write mode
	lockRedisson  = "redisson"  // Redisson RLock: hash {uuid:thread -> reentry count}
	lockSemaphore = "semaphore" // redis-semaphore: zset {holder id -> score}
	lockOther     = "other"
)

// Redisson's pub/sub messages (LockPubSub): what its unlock scripts
// publish on the lock's channel when they delete it.
const (
	redissonUnlockMessage     = "0"
	redissonReadUnlockMessage = "1"
)

// suffixName and prefixName are Redisson's names derived from a lock's
// name (RedissonObject): the {name} hash tag keeps them in its slot.
func suffixName(name, suffix string) string {
	if strings.Contains(name, "{") {
		return name + ":" + suffix
	}
	return "{" + name + "}:" + suffix
}

func prefixName(prefix, name string) string {
	if strings.Contains(name, "{") {
		return prefix + ":" + name
	}
	return prefix + ":{" + name + "}"
}

// rwTimeoutKey is the Redisson timeout key of hold n of a read-lock
// holder (RedissonReadLock's rwlock_timeout keys).
func rwTimeoutKey(key, owner string, n int64) []byte {
	return []byte(suffixName(key, owner) + ":rwlock_timeout:" + strconv.FormatInt(n, 10))
}

// permitsKey is the companion hash of a semaphore: our holders' tokens
// and permit counts.
func permitsKey(key string) []byte { return []byte(suffixName(key, "permits")) }

// holderView is one holder of a lock as the keyspace tells it.
type holderView struct {
	owner string
	token uint64 // 0: unknown (a foreign holder's)
	ttl   int64  // ms left; -1: no expiry or unknown
	count int64  // Redisson's reentry count; 1 for ours
	ours  bool   // granted by LOCK.ACQUIRE (shared, semaphore)
	score int64  // semaphore: the member's score
}

// lockView is what a key holds as a lock, at the transaction's now.
type lockView struct {
	kind    string // "" when the key is missing
	v       Value
	holders []holderView
	permits int64 // semaphore: the count our holders named; 0 if none did
}

// held reports whether the key holds anything (a missing key is free).
func (lv lockView) held() bool { return lv.kind != "" }

// holder returns the holder named owner.
func (lv lockView) holder(owner string) (holderView, bool) {
	for _, h := range lv.holders {
		if h.owner == owner {
			return h, true
		}
	}
	return holderView{}, false
}

// viewLock reads the lock at key in db. In a write transaction it looks
// up the shared holders' timeout keys (which deletes expired ones, as
// any lookup does).
func viewLock(tx *Tx, db int, key []byte) lockView {
	v, ok := tx.GetIn(db, key)
	if !ok {
		return lockView{}
	}
	lv := lockView{kind: lockOther, v: v}
	switch v.Type {
	case TypeString:
		lv.kind = lockString
		h := holderView{owner: v.Payload, token: v.Token, ttl: ttlAt(tx, v.ExpireAt), count: 1}
		lv.holders = []holderView{h}
	case TypeHash:
		viewHash(tx, db, key, &lv)
	case TypeZSet:
		viewSemaphore(tx, db, key, &lv)
	}
	return lv
}

// ttlAt is PTTL's answer for an expiry: -1 without one.
func ttlAt(tx *Tx, at int64) int64 {
	if at == 0 {
		return -1
	}
	return max(at-tx.Ms, 0)
}

// viewHash recognises Redisson's locks: a hash whose fields (but a
// read/write lock's "mode") map to positive counts.
func viewHash(tx *Tx, db int, key []byte, lv *lockView) {
	h := decodeHash(lv.v.Payload)
	h.hideExpired(hashFieldExpiry(lv.v.Payload), tx.Ms)
	mode, hasMode := h.get([]byte("mode"))
	var holders []holderView
	ok := true
	h.each(func(f, val string) {
		if f == "mode" {
			return
		}
		// Redisson names holders uuid:thread; LOCK.ACQUIRE ... SHARED
		// any owner, in a hash that has a mode.
		n, isInt := ParseInt(StringBytes(val))
		if !isInt || n <= 0 || (!hasMode && !strings.Contains(f, ":")) {
			ok = false
		}
		holders = append(holders, holderView{owner: f, count: n, ttl: ttlAt(tx, lv.v.ExpireAt), token: lv.v.Token})
	})
	switch {
	case !ok:
	case hasMode && mode == "read" && len(holders) > 0:
		lv.kind = lockShared
		live := holders[:0]
		for _, hv := range holders {
			// A reader holds while one of its timeout keys lives
			// (Redisson's unlock script counts them the same way).
			hv.ttl, hv.token = -1, 0
			found := false
			for i := hv.count; i >= 1; i-- {
				if tv, ok := tx.GetIn(db, rwTimeoutKey(string(key), hv.owner, i)); ok {
					found = true
					hv.ttl = max(hv.ttl, ttlAt(tx, tv.ExpireAt))
					if i == 1 {
						hv.token = tv.Token
					}
				}
			}
			hv.ours = found
			if found {
				live = append(live, hv)
			}
		}
		lv.holders = live
	case hasMode && mode == "write" && len(holders) > 0:
		lv.kind = lockRWWrite
		lv.holders = holders
	case !hasMode && len(holders) > 0:
		lv.kind = lockRedisson
		lv.holders = holders
	}
}

// viewSemaphore recognises a semaphore: a sorted set whose scores are
// whole milliseconds. Holders of ours whose deadline passed are left out
// (purgeSemaphore removes them).
func viewSemaphore(tx *Tx, db int, key []byte, lv *lockView) {
	z := decodeZset(lv.v.Payload)
	for _, e := range z.ents {
		if e.score < 0 || e.score != math.Trunc(e.score) || e.score > 1<<53 {
			return
		}
	}
	var meta *hashObj
	if hv, ok := tx.GetIn(db, permitsKey(string(key))); ok && hv.Type == TypeHash {
		meta = decodeHash(hv.Payload)
	}
	for _, e := range z.ents {
		h := holderView{owner: e.member, count: 1, ttl: -1, score: int64(e.score)}
		if meta != nil {
			if rec, ok := meta.get([]byte(e.member)); ok {
				tok, n := parsePermitRecord(rec)
				if h.score < tx.Ms {
					continue // its deadline passed
				}
				h.ours, h.token, h.ttl = true, tok, h.score-tx.Ms
				lv.permits = n
			}
		}
		lv.holders = append(lv.holders, h)
	}
	if len(z.ents) > 0 {
		lv.kind = lockSemaphore
	}
}

// parsePermitRecord reads a companion hash value "token:permits".
func parsePermitRecord(s string) (token uint64, permits int64) {
	i := strings.IndexByte(s, ':')
	if i < 0 {
		return 0, 0
	}
	t, _ := strconv.ParseUint(s[:i], 10, 64)
	n, _ := strconv.ParseInt(s[i+1:], 10, 64)
	return t, n
}

// purgeSemaphore removes the holders of ours whose deadline passed from
// the semaphore at key (and their companion entries), and companion
// entries without a member; it reports how many holders it removed.
func purgeSemaphore(tx *Tx, key []byte) int {
	pk := permitsKey(string(key))
	meta, metaExp, err := loadHash(tx, pk, false)
	if meta == nil || err != nil {
		return 0
	}
	z, zexp, err := loadZset(tx, key, false)
	if err != nil {
		return 0
	}
	removed, orphans := 0, 0
	var gone []bool
	meta.each(func(owner, _ string) {
		i := -1
		if z != nil {
			i = z.find([]byte(owner))
		}
		switch {
		case i < 0:
			meta.del([]byte(owner)) // its member left (ZREM, the key deleted)
			orphans++
		case int64(z.ents[i].score) < tx.Ms:
			if gone == nil {
				gone = make([]bool, len(z.ents))
			}
			gone[i] = true
			meta.del([]byte(owner))
			removed++
		}
	})
	if removed > 0 {
		z.replace(gone, nil)
		storeZset(tx, key, z, zexp)
		tx.Notify(NotifyZset, "zrem", key)
		if len(z.ents) == 0 {
			tx.Notify(NotifyGeneric, "del", key)
		}
	}
	if removed > 0 || orphans > 0 || meta.expired > 0 {
		// Only then: every LOCK.ACQUIRE PERMITS and every serving of
		// its queue purges, and rewriting an unchanged hash was a
		// tenth of the server's CPU per grant in the semaphore bench.
		storeHash(tx, pk, meta, metaExp)
	}
	return removed
}

// ---------------------------------------------------------------- grants

// grantExclusive stores an exclusive lock: SET key owner PX ttl NX.
func grantExclusive(tx *Tx, key []byte, owner string, ttl int64) uint64 {
	tx.Put(key, Value{Type: TypeString, ExpireAt: tx.Ms + ttl, Payload: owner})
	tx.Notify(NotifyString, "set", key)
	tx.Notify(NotifyGeneric, "expire", key)
	tok, _ := tx.Token(key)
	return tok
}

// grantShared adds a reader to the read/write lock at key (creating it
// in read mode): HSET key mode read, HSET key owner 1, SET its timeout
// key 1 PX ttl, and the hash's TTL at least ttl, as Redisson's tryLock
// script does. The token is the timeout key's, created by this grant.
func grantShared(tx *Tx, key []byte, owner string, ttl int64) uint64 {
	h, exp, _ := loadHash(tx, key, false)
	if h == nil {
		h = &hashObj{}
		h.put([]byte("mode"), "read")
	}
	h.put([]byte(owner), "1")
	exp = max(exp, tx.Ms+ttl)
	storeHash(tx, key, h, exp)
	tx.Notify(NotifyHash, "hset", key)
	tk := rwTimeoutKey(string(key), owner, 1)
	tx.Put(tk, Value{Type: TypeString, ExpireAt: tx.Ms + ttl, Payload: "1"})
	tx.Notify(NotifyString, "set", tk)
	tx.Notify(NotifyGeneric, "expire", tk)
	tx.Notify(NotifyGeneric, "expire", key)
	tok, _ := tx.Token(tk)
	return tok
}

// grantPermit adds a holder to the semaphore at key: ZADD key deadline
// owner, its companion entry, both keys' TTL at least the deadline. The
// token is a fresh one from the server's counter.
func grantPermit(tx *Tx, key []byte, owner string, ttl, permits int64) uint64 {
	deadline := tx.Ms + ttl
	z, zexp, _ := loadZset(tx, key, false)
	if z == nil {
		z = &zsetObj{}
	}
	z.replace(nil, []zent{{member: owner, score: float64(deadline)}})
	if len(z.ents) > zsetMaxListpackEntries || len(owner) > zsetMaxListpackValue {
		z.large = true
	}
	if zexp != 0 || len(z.ents) == 1 {
		zexp = max(zexp, deadline)
	}
	storeZset(tx, key, z, zexp)
	tx.Notify(NotifyZset, "zadd", key)
	tx.Notify(NotifyGeneric, "expire", key)
	tok := tx.TakeToken() // a holder of its own in a key that exists
	pk := permitsKey(string(key))
	meta, mexp, _ := loadHash(tx, pk, false)
	if meta == nil {
		meta = &hashObj{}
	}
	meta.put([]byte(owner), strconv.FormatUint(tok, 10)+":"+strconv.FormatInt(permits, 10))
	storeHash(tx, pk, meta, max(mexp, deadline))
	tx.Notify(NotifyHash, "hset", pk)
	tx.Notify(NotifyGeneric, "expire", pk)
	return tok
}

// ------------------------------------------------------ release, extend

// releaseHolder frees owner's hold on the lock at key, whatever its kind,
// as the releasing script of the client that made the layout does; it
// reports whether owner held it. Redisson's locks publish their unlock
// message when they are deleted, so that Redisson clients waiting on them
// wake up.
func releaseHolder(tx *Tx, key []byte, owner string) bool {
	// A string lock (SET NX's, LOCK.ACQUIRE's) is released without
	// viewLock, which allocates its holder list.
	v, ok := tx.GetIn(tx.DB, key)
	if !ok {
		return false
	}
	if v.Type == TypeString {
		if v.Payload != owner {
			return false
		}
		tx.Delete(key)
		tx.Notify(NotifyGeneric, "del", key) // as a DEL
		return true
	}
	lv := viewLock(tx, tx.DB, key) // the same lookup again, from the memo
	switch lv.kind {
	case lockShared:
		if _, ok := lv.holder(owner); !ok {
			return false
		}
		releaseReader(tx, key, owner)
		return true
	case lockRedisson, lockRWWrite:
		field := owner
		if lv.kind == lockRWWrite && !strings.HasSuffix(owner, ":write") {
			if _, ok := lv.holder(owner); !ok {
				field = owner + ":write"
			}
		}
		if _, ok := lv.holder(field); !ok {
			return false
		}
		releaseRedisson(tx, key, field, lv.kind)
		return true
	case lockSemaphore:
		if _, ok := lv.holder(owner); !ok {
			return false
		}
		releasePermit(tx, key, owner)
		return true
	}
	return false
}

// releaseReader is Redisson's read unlock for a holder of ours (one
// hold): HDEL, DEL its timeout key, then either the hash's TTL set to the
// latest remaining holder's, or, with no holder left, DEL and the unlock
// message on redisson_rwlock:{key}.
func releaseReader(tx *Tx, key []byte, owner string) {
	h, exp, _ := loadHash(tx, key, false)
	if h == nil {
		return
	}
	var count int64 = 1
	if val, ok := h.get([]byte(owner)); ok {
		count, _ = ParseInt(StringBytes(val))
	}
	h.del([]byte(owner))
	storeHash(tx, key, h, exp)
	tx.Notify(NotifyHash, "hdel", key)
	for i := count; i >= 1; i-- {
		tk := rwTimeoutKey(string(key), owner, i)
		if tx.Delete(tk) {
			tx.Notify(NotifyGeneric, "del", tk)
		}
	}
	settleShared(tx, key, redissonUnlockMessage)
}

// settleShared gives the read/write lock at key the TTL of its latest
// live holder, or deletes it (publishing msg on its Redisson channel)
// when none is left.
func settleShared(tx *Tx, key []byte, msg string) {
	lv := viewLock(tx, tx.DB, key)
	if lv.kind == lockShared {
		var latest int64 = -1
		for _, hv := range lv.holders {
			latest = max(latest, hv.ttl)
		}
		if latest > 0 {
			if v, ok := tx.Get(key); ok && v.ExpireAt != tx.Ms+latest {
				v.ExpireAt = tx.Ms + latest
				tx.Put(key, v)
				tx.Notify(NotifyGeneric, "expire", key)
			}
			return
		}
	}
	if lv.kind == lockShared || (lv.kind == lockOther && lv.v.Type == TypeHash && onlyMode(lv.v)) {
		tx.Delete(key)
		tx.Notify(NotifyGeneric, "del", key)
		tx.publishAfter(prefixName("redisson_rwlock", string(key)), msg)
	}
}

// onlyMode reports whether a hash holds nothing but a "mode" field.
func onlyMode(v Value) bool {
	h := decodeHash(v.Payload)
	_, ok := h.get([]byte("mode"))
	return ok && h.live == 1
}

// releaseRedisson is Redisson's unlock of one hold of field: HINCRBY -1,
// and at zero HDEL; a reentrant lock left without holders is deleted and
// its unlock message published; a write lock whose writer still holds
// reads goes back to read mode.
func releaseRedisson(tx *Tx, key []byte, field, kind string) {
	h, exp, _ := loadHash(tx, key, false)
	if h == nil {
		return
	}
	val, _ := h.get([]byte(field))
	n, _ := ParseInt(StringBytes(val))
	if n > 1 {
		h.put([]byte(field), strconv.FormatInt(n-1, 10))
		storeHash(tx, key, h, exp)
		tx.Notify(NotifyHash, "hincrby", key)
		return
	}
	h.del([]byte(field))
	switch {
	case kind == lockRedisson && h.live == 0:
		tx.Delete(key)
		tx.Notify(NotifyGeneric, "del", key)
		tx.publishAfter(prefixName("redisson_lock__channel", string(key)), redissonUnlockMessage)
	case kind == lockRWWrite && h.live == 1:
		tx.Delete(key)
		tx.Notify(NotifyGeneric, "del", key)
		tx.publishAfter(prefixName("redisson_rwlock", string(key)), redissonReadUnlockMessage)
	case kind == lockRWWrite:
		h.put([]byte("mode"), "read")
		storeHash(tx, key, h, exp)
		tx.Notify(NotifyHash, "hdel", key)
		tx.Notify(NotifyHash, "hset", key)
	default:
		storeHash(tx, key, h, exp)
		tx.Notify(NotifyHash, "hdel", key)
	}
}

// releasePermit removes owner from the semaphore at key (ZREM, as
// redis-semaphore's release) and from its companion hash.
func releasePermit(tx *Tx, key []byte, owner string) {
	z, exp, _ := loadZset(tx, key, false)
	if z == nil {
		return
	}
	if i := z.find([]byte(owner)); i >= 0 {
		z.removeRange(i, i+1)
		storeZset(tx, key, z, exp)
		tx.Notify(NotifyZset, "zrem", key)
		if len(z.ents) == 0 {
			tx.Notify(NotifyGeneric, "del", key)
		}
	}
	pk := permitsKey(string(key))
	if meta, mexp, _ := loadHash(tx, pk, false); meta != nil && meta.del([]byte(owner)) {
		storeHash(tx, pk, meta, mexp)
		tx.Notify(NotifyHash, "hdel", pk)
		if meta.live == 0 {
			tx.Notify(NotifyGeneric, "del", pk)
		}
	}
}

// extendHolder sets owner's hold on the lock at key to expire ttl ms from
// now, whatever the kind; it reports whether owner held it.
func extendHolder(tx *Tx, key []byte, owner string, ttl int64) bool {
	lv := viewLock(tx, tx.DB, key)
	at := tx.Ms + ttl
	switch lv.kind {
	case lockString:
		if lv.v.Payload != owner {
			return false
		}
		setExpiry(tx, key, lv.v, at)
	case lockRedisson, lockRWWrite:
		if _, ok := lv.holder(owner); !ok {
			if _, ok := lv.holder(owner + ":write"); !ok || lv.kind != lockRWWrite {
				return false
			}
		}
		setExpiry(tx, key, lv.v, at)
	case lockShared:
		hv, ok := lv.holder(owner)
		if !ok {
			return false
		}
		for i := hv.count; i >= 1; i-- {
			tk := rwTimeoutKey(string(key), owner, i)
			if tv, ok := tx.Get(tk); ok {
				setExpiry(tx, tk, tv, at)
			}
		}
		if v, ok := tx.Get(key); ok && (v.ExpireAt != 0 && v.ExpireAt < at) {
			setExpiry(tx, key, v, at)
		} else {
			settleShared(tx, key, redissonUnlockMessage)
		}
	case lockSemaphore:
		hv, ok := lv.holder(owner)
		if !ok {
			return false
		}
		if !hv.ours {
			// redis-semaphore's refresh: a new score (its time).
			at = tx.Ms
		}
		z, zexp, _ := loadZset(tx, key, false)
		z.replace(markMember(z, owner), []zent{{member: owner, score: float64(at)}})
		if hv.ours && zexp != 0 {
			zexp = max(zexp, at)
		}
		storeZset(tx, key, z, zexp)
		tx.Notify(NotifyZset, "zadd", key)
		if hv.ours {
			pk := permitsKey(string(key))
			if pv, ok := tx.Get(pk); ok && pv.ExpireAt != 0 && pv.ExpireAt < at {
				setExpiry(tx, pk, pv, at)
			}
		}
	default:
		return false
	}
	return true
}

// markMember marks owner's entry of z for replace.
func markMember(z *zsetObj, owner string) []bool {
	gone := make([]bool, len(z.ents))
	if i := z.find([]byte(owner)); i >= 0 {
		gone[i] = true
	}
	return gone
}

// setExpiry gives key (holding v) the expiry at, as a PEXPIRE.
func setExpiry(tx *Tx, key []byte, v Value, at int64) {
	v.ExpireAt = at
	tx.Put(key, v)
	tx.Notify(NotifyGeneric, "expire", key)
}

// publishAfter publishes message on channel once the transaction commits,
// as a script's PUBLISH (Redisson's unlock messages).
func (tx *Tx) publishAfter(channel, message string) {
	p := tx.e.publisher
	if p == nil {
		return
	}
	tx.After(func() { p.Deliver([]byte(channel), []byte(message)) })
}
