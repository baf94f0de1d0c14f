package engine

import (
	"encoding/hex"
	"sort"
	"strconv"
	"strings"
)

// Lock sessions, Consul's and Chubby's: a lease that the locks taken under
// it share. LOCK.SESSION CREATE makes a named one with a TTL that one
// RENEW extends for all its locks; LOCK.ACQUIRE ... SESSION uses the
// connection's own, which ends when the connection closes. When a session
// ends (DESTROY, its TTL, its connection, its key deleted or flushed)
// every lock it still holds is released, after its lock-delay, and handed
// to waiters in that same transaction.
//
// A session IS a key, so that it survives restarts with persistence and a
// replicated state machine replicates and snapshots it as any key change:
// the hash lockredis:session:<id> in database 0, with the session's TTL
// as the key's (none for a connection's), holding
//
//	ttl        the TTL RENEW restores, ms (0 for a connection's session)
//	lockdelay  the lock-delay of its locks, ms
//	client     the connection's client id (a connection's session only)
//	lock:<db>:<keylen>:<key><owner>  "token:ttl:lockdelay", per lock
//
// The registry indexes them (sessions, sessionOf), re-read from the key
// whenever it changes (keyTouched); that index is also how the end of a
// session, which only sees its key gone, knows which locks it held. A
// connection's sessions left over from before a restart end at start-up
// (their connections are gone).

// sessionKeyPrefix names session keys in database 0.
const sessionKeyPrefix = "lockredis:session:"

// isSessionKey reports whether k names a session key.
func isSessionKey(k dbKey) bool {
	return k.db == 0 && strings.HasPrefix(k.key, sessionKeyPrefix)
}

func sessionKey(id string) []byte { return []byte(sessionKeyPrefix + id) }

// lockField is the session hash's field of a lock.
func lockField(hk holderKey) string {
	return "lock:" + strconv.Itoa(hk.db) + ":" + strconv.Itoa(len(hk.key)) + ":" + hk.key + hk.owner
}

// parseLockField reads lockField back.
func parseLockField(f string) (holderKey, bool) {
	rest, ok := strings.CutPrefix(f, "lock:")
	if !ok {
		return holderKey{}, false
	}
	dbs, rest, ok1 := strings.Cut(rest, ":")
	ns, rest, ok2 := strings.Cut(rest, ":")
	db, err1 := strconv.Atoi(dbs)
	n, err2 := strconv.Atoi(ns)
	if !ok1 || !ok2 || err1 != nil || err2 != nil || n < 0 || n > len(rest) {
		return holderKey{}, false
	}
	return holderKey{db: db, key: rest[:n], owner: rest[n:]}, true
}

// decodeSession reads a session key's value.
func decodeSession(id string, v Value) *lockSession {
	s := &lockSession{id: id, expireAt: v.ExpireAt, locks: make(map[holderKey]sessionLock)}
	h := decodeHash(v.Payload)
	h.each(func(f, val string) {
		switch f {
		case "ttl":
			s.ttl, _ = strconv.ParseInt(val, 10, 64)
		case "lockdelay":
			s.delay, _ = strconv.ParseInt(val, 10, 64)
		case "client":
			s.client, _ = strconv.ParseInt(val, 10, 64)
		default:
			hk, ok := parseLockField(f)
			if !ok {
				return
			}
			parts := strings.SplitN(val, ":", 3)
			if len(parts) != 3 {
				return
			}
			var l sessionLock
			l.token, _ = strconv.ParseUint(parts[0], 10, 64)
			l.ttl, _ = strconv.ParseInt(parts[1], 10, 64)
			l.delay, _ = strconv.ParseInt(parts[2], 10, 64)
			s.locks[hk] = l
		}
	})
	return s
}

// sessionExists reports whether the session id lives.
func sessionExists(tx *Tx, id string) bool {
	v, ok := tx.GetIn(0, sessionKey(id))
	return ok && v.Type == TypeHash
}

// newSessionID is 128 random bits in hex (the engine's random source, so
// a seeded test gets the same ids).
func (e *Engine) newSessionID() string {
	var b [16]byte
	for i := range b {
		b[i] = byte(e.randIntN(256))
	}
	return hex.EncodeToString(b[:])
}

// createSession stores a new session key and returns its id.
func createSession(tx *Tx, ttl, delay, client int64) string {
	id := tx.e.newSessionID()
	for sessionExists(tx, id) {
		id = tx.e.newSessionID()
	}
	h := &hashObj{}
	h.put([]byte("ttl"), strconv.FormatInt(ttl, 10))
	h.put([]byte("lockdelay"), strconv.FormatInt(delay, 10))
	if client != 0 {
		h.put([]byte("client"), strconv.FormatInt(client, 10))
	}
	var at int64
	if ttl > 0 {
		at = tx.Ms + ttl
	}
	key := sessionKey(id)
	tx.PutIn(0, key, Value{Type: TypeHash, ExpireAt: at, Payload: encodeHash(h)})
	tx.NotifyDB(0, NotifyHash, "hset", key)
	if at != 0 {
		tx.NotifyDB(0, NotifyGeneric, "expire", key)
	}
	return id
}

// sessionAddLock records in session id that it holds the lock hk.
func sessionAddLock(tx *Tx, id string, hk holderKey, token uint64, ttl, delay int64) {
	key := sessionKey(id)
	v, ok := tx.GetIn(0, key)
	if !ok || v.Type != TypeHash {
		return
	}
	h := decodeHash(v.Payload)
	h.put([]byte(lockField(hk)), strconv.FormatUint(token, 10)+":"+strconv.FormatInt(ttl, 10)+":"+strconv.FormatInt(delay, 10))
	v.Payload = encodeHash(h)
	tx.PutIn(0, key, v)
	tx.NotifyDB(0, NotifyHash, "hset", key)
}

// sessionDropLocks removes locks from session id's key.
func sessionDropLocks(tx *Tx, id string, hks []holderKey) {
	key := sessionKey(id)
	v, ok := tx.GetIn(0, key)
	if !ok || v.Type != TypeHash {
		return
	}
	h := decodeHash(v.Payload)
	n := 0
	for _, hk := range hks {
		if h.del([]byte(lockField(hk))) {
			n++
		}
	}
	if n == 0 {
		return
	}
	v.Payload = encodeHash(h)
	tx.PutIn(0, key, v)
	tx.NotifyDB(0, NotifyHash, "hdel", key)
}

// stillHeld reports whether the lock hk still holds the grant with token.
func stillHeld(tx *Tx, hk holderKey, token uint64) bool {
	hv, ok := viewLock(tx, hk.db, []byte(hk.key)).holder(hk.owner)
	return ok && (hv.token == 0 || hv.token == token)
}

// forgetSessionLock is called when a lock is released by its owner: its
// session no longer holds it.
func (r *lockRegistry) forgetSessionLock(tx *Tx, hk holderKey) {
	r.mu.Lock()
	id, ok := r.sessionOf[hk]
	r.mu.Unlock()
	if ok {
		sessionDropLocks(tx, id, []holderKey{hk})
	}
}

// sessionOfLock returns the session holding the lock hk, if any.
func (r *lockRegistry) sessionOfLock(hk holderKey) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	id, ok := r.sessionOf[hk]
	return id, ok
}

// sessionTouched re-reads a changed session key into the index; a session
// whose key is gone has ended, and its locks are released here.
func (r *lockRegistry) sessionTouched(tx *Tx, k dbKey) {
	id := k.key[len(sessionKeyPrefix):]
	v, ok := tx.GetIn(0, []byte(k.key))
	if ok && v.Type == TypeHash {
		s := decodeSession(id, v)
		r.mu.Lock()
		r.unindexLocked(r.sessions[id])
		r.sessions[id] = s
		for hk := range s.locks {
			r.sessionOf[hk] = id
		}
		r.updateListening()
		r.mu.Unlock()
		r.armKey(tx, k)
		return
	}
	r.mu.Lock()
	s := r.sessions[id]
	r.unindexLocked(s)
	delete(r.sessions, id)
	for c, cid := range r.connSess {
		if cid == id {
			delete(r.connSess, c)
		}
	}
	r.updateListening()
	r.mu.Unlock()
	r.armKey(tx, k)
	if s == nil || r.e.ks.Follower() {
		return
	}
	if s.expireAt != 0 && s.expireAt < tx.Ms {
		r.stats.sessionExpiries.Add(1)
	}
	r.endSession(tx, s)
}

// unindexLocked forgets the locks of s in sessionOf. Under r.mu.
func (r *lockRegistry) unindexLocked(s *lockSession) {
	if s == nil {
		return
	}
	for hk := range s.locks {
		if r.sessionOf[hk] == s.id {
			delete(r.sessionOf, hk)
		}
	}
}

// endSession releases the locks of an ended session that still hold its
// grants: at once, or after their lock-delay by keeping each with its
// dead owner that much longer. Releases hand over in this transaction.
func (r *lockRegistry) endSession(tx *Tx, s *lockSession) {
	saved := tx.DB
	defer func() { tx.DB = saved }()
	for _, hk := range sortedLocks(s.locks) {
		l := s.locks[hk]
		tx.DB = hk.db
		if !stillHeld(tx, hk, l.token) {
			continue // released, expired, or taken again since
		}
		r.stats.sessionReleases.Add(1)
		if l.delay > 0 {
			extendHolder(tx, []byte(hk.key), hk.owner, l.delay)
		} else {
			releaseHolder(tx, []byte(hk.key), hk.owner)
		}
	}
}

// sortedLocks orders a session's locks, so that ending it releases them
// in the same order on every run.
func sortedLocks(m map[holderKey]sessionLock) []holderKey {
	out := make([]holderKey, 0, len(m))
	for hk := range m {
		out = append(out, hk)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.db != b.db {
			return a.db < b.db
		}
		if a.key != b.key {
			return a.key < b.key
		}
		return a.owner < b.owner
	})
	return out
}

// connSession returns the session of connection s's SESSION locks,
// creating it.
func (r *lockRegistry) connSession(tx *Tx, s *Session) string {
	r.mu.Lock()
	id, ok := r.connSess[s]
	r.mu.Unlock()
	if ok && sessionExists(tx, id) {
		return id
	}
	id = createSession(tx, 0, r.delayMs.Load(), s.ID)
	r.mu.Lock()
	r.connSess[s] = id
	r.mu.Unlock()
	return id
}

// sessionClosed ends the session of a connection that closed: its
// SESSION locks are released (after their lock-delay).
func (r *lockRegistry) sessionClosed(s *Session) {
	r.mu.Lock()
	id, ok := r.connSess[s]
	delete(r.connSess, s)
	r.mu.Unlock()
	if !ok || r.e.ks.Follower() {
		return // a follower's sessions end by its leader's batches
	}
	r.closeMu.RLock()
	defer r.closeMu.RUnlock()
	if r.closed {
		return
	}
	r.e.Do(true, 0, func(tx *Tx) {
		key := sessionKey(id)
		if tx.DeleteIn(0, key) {
			tx.NotifyDB(0, NotifyGeneric, "del", key)
		}
	})
}

// sessionCount is the number of sessions.
func (r *lockRegistry) sessionCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.sessions)
}

// loadSessions indexes the session keys the keyspace starts with, and
// ends the connections' sessions among them: their connections did not
// survive the restart.
func (r *lockRegistry) loadSessions() {
	r.e.Do(true, 0, func(tx *Tx) {
		for _, id := range r.indexSessions(tx) {
			if tx.DeleteIn(0, sessionKey(id)) {
				tx.NotifyDB(0, NotifyGeneric, "del", sessionKey(id))
			}
		}
	})
}

// indexSessions rebuilds the index from the session keys stored in tx,
// expired or not, and writes nothing (a new leader calls it before it
// serves, when a write would wait for a commit that only comes once it
// serves; an expired one ends when the key is deleted, as any session).
// What was indexed before is forgotten, not ended: its key's end was
// acted on where it happened. It returns the connections' sessions,
// sorted, so that ending them runs in the same order on every node.
func (r *lockRegistry) indexSessions(tx *Tx) []string {
	sessions := make(map[string]*lockSession)
	sessionOf := make(map[holderKey]string)
	var keys []dbKey
	var conns []string
	tx.ScanStored(0, []byte(sessionKeyPrefix), func(key string, v Value, _ bool) bool {
		if !strings.HasPrefix(key, sessionKeyPrefix) {
			return false
		}
		if v.Type != TypeHash {
			return true
		}
		s := decodeSession(key[len(sessionKeyPrefix):], v)
		sessions[s.id] = s
		for hk := range s.locks {
			sessionOf[hk] = s.id
		}
		if s.client != 0 {
			conns = append(conns, s.id)
		}
		keys = append(keys, dbKey{0, key})
		return true
	})
	r.mu.Lock()
	r.sessions, r.sessionOf = sessions, sessionOf
	for c, id := range r.connSess {
		if sessions[id] == nil {
			delete(r.connSess, c)
		}
	}
	r.updateListening()
	r.mu.Unlock()
	for _, k := range keys {
		r.armKey(tx, k) // a named session's TTL (no timer on a follower)
	}
	sort.Strings(conns)
	return conns
}

// Sessions across a replicated group's leader changes. Sessions are keys,
// so every node has them; but no connection survives a leader change (a
// direct client's leader died or stepped down and closed it; a follower
// closes its forwarded connections when the leader changes), so a new
// leader must end the connections' sessions it inherits, as their
// connections' closing would have, or their locks would stay held until
// their TTL. Named sessions (LOCK.SESSION CREATE) are not tied to a
// connection and keep their TTL.

// OrphanedSessions is the connections' sessions a new leader inherits.
type OrphanedSessions struct{ ids []string }

// Len is how many there are.
func (o OrphanedSessions) Len() int { return len(o.ids) }

// OrphanedSessions re-indexes the sessions from their keys (a follower's
// index may predate a snapshot it restored; timers of named sessions are
// armed only on a leader) and returns the connections' sessions among
// them. A new leader calls it once it leads but before it serves, so
// that no session of a connection it serves is among them, then ends
// them with EndSessions once it serves.
func (e *Engine) OrphanedSessions() OrphanedSessions {
	var ids []string
	e.Do(false, 0, func(tx *Tx) { ids = e.locks.indexSessions(tx) })
	return OrphanedSessions{ids}
}

// EndSessions ends the sessions of o still alive, as their connections'
// closing would have: their locks are released after their lock-delay.
// It returns how many it ended. It does nothing on a follower: the leader
// decides.
func (e *Engine) EndSessions(o OrphanedSessions) int {
	r := &e.locks
	if len(o.ids) == 0 {
		return 0
	}
	r.closeMu.RLock()
	defer r.closeMu.RUnlock()
	if r.closed {
		return 0
	}
	ended := 0
	e.Do(true, 0, func(tx *Tx) {
		if e.ks.Follower() {
			return // leadership lost meanwhile: the next leader ends them
		}
		for _, id := range o.ids {
			key := sessionKey(id)
			if tx.DeleteIn(0, key) {
				tx.NotifyDB(0, NotifyGeneric, "del", key)
				ended++
			}
		}
	})
	return ended
}
