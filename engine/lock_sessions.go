package engine

import (
	"encoding/binary"
	"errors"

	"github.com/lockredis/lockredis/keyspace"
)

// Session locks across a replicated group's leader changes.
//
// Which locks are session locks is the granting server's memory
// (lockHolder.session): a follower applying the leader's changes sees
// keys, not connections. When the leader changes, every connection that
// held a session lock is gone (a direct client's leader died or stepped
// down and closed it; a follower closes its forwarded connections when
// the leader changes), yet the new leader would keep their locks until
// their TTL. So while a change listener is set, grants and releases of
// session locks are recorded as replicated state (RecordState under
// sessionStateName): every node keeps the same set of (key, token,
// lock-delay), and a new leader ends them all (SessionLocks before it
// serves, ReleaseSessionLocks after),
// as sessionClosed ends a closed connection's. A standalone server
// records nothing.

const sessionStateName = "lock.sessions"

// replSession is a session lock as the replicated state knows it.
type replSession struct {
	token   uint64
	delayMs int64
}

// sessionRecord encodes one change of the set: op '+' (granted) or '-'
// (released), db, key, token, lock-delay.
func sessionRecord(op byte, k dbKey, s replSession) []byte {
	p := []byte{op}
	p = binary.AppendUvarint(p, uint64(k.db))
	p = binary.AppendUvarint(p, uint64(len(k.key)))
	p = append(p, k.key...)
	p = binary.AppendUvarint(p, s.token)
	return binary.AppendVarint(p, s.delayMs)
}

var errBadSessionRecord = errors.New("engine: malformed session-lock record")

// recordSessionLocked notes a grant (op '+') or release ('-') of a session
// lock in tx's batch and in this engine's copy of the set. Under r.mu.
func (r *lockRegistry) recordSessionLocked(tx *Tx, op byte, k dbKey, s replSession) {
	if !tx.Recording() {
		return
	}
	tx.RecordState(sessionStateName, sessionRecord(op, k, s))
	r.applySessionLocked(op, k, s)
}

// endSessionLocked forgets that h belongs to a connection, and records
// the end of its session lock. Under r.mu.
func (r *lockRegistry) endSessionLocked(tx *Tx, k dbKey, h *lockHolder) {
	if h.session != nil {
		r.recordSessionLocked(tx, '-', k, replSession{token: h.token, delayMs: h.delayMs})
	}
	r.dropSessionLocked(k, h)
}

func (r *lockRegistry) applySessionLocked(op byte, k dbKey, s replSession) {
	if op == '+' {
		if r.replicated == nil {
			r.replicated = make(map[dbKey]replSession)
		}
		r.replicated[k] = s
	} else if cur, ok := r.replicated[k]; ok && cur.token == s.token {
		delete(r.replicated, k)
	}
}

// sessionState is the StateHandler of the replicated set.
type sessionState struct{ r *lockRegistry }

func (h sessionState) ApplyState(_ *keyspace.Tx, p []byte) error {
	if len(p) == 0 {
		return errBadSessionRecord
	}
	op := p[0]
	d := recDecoder{p: p[1:]}
	k, s := d.record()
	if d.bad || len(d.p) != 0 || (op != '+' && op != '-') {
		return errBadSessionRecord
	}
	h.r.mu.Lock()
	h.r.applySessionLocked(op, k, s)
	h.r.mu.Unlock()
	return nil
}

func (h sessionState) SaveState() ([]byte, error) {
	h.r.mu.Lock()
	defer h.r.mu.Unlock()
	p := binary.AppendUvarint(nil, uint64(len(h.r.replicated)))
	for k, s := range h.r.replicated {
		p = append(p, sessionRecord('+', k, s)...)
	}
	return p, nil
}

func (h sessionState) RestoreState(_ *keyspace.Tx, p []byte) error {
	set := map[dbKey]replSession{}
	if len(p) > 0 {
		d := recDecoder{p: p}
		n := d.uvarint()
		for i := uint64(0); i < n && !d.bad; i++ {
			if len(d.p) == 0 || d.p[0] != '+' {
				return errBadSessionRecord
			}
			d.p = d.p[1:]
			k, s := d.record()
			set[k] = s
		}
		if d.bad || len(d.p) != 0 {
			return errBadSessionRecord
		}
	}
	h.r.mu.Lock()
	h.r.replicated = set
	h.r.mu.Unlock()
	return nil
}

// SessionLocks is the session locks the replicated state knows of now.
type SessionLocks struct{ m map[dbKey]replSession }

// Len is how many there are.
func (s SessionLocks) Len() int { return len(s.m) }

// SessionLocks copies the replicated set of session locks: a new leader
// of a replicated group takes it before it serves (every one of them is
// orphaned, since no connection that held one survived the change), and
// ends them with ReleaseSessionLocks once it serves.
func (e *Engine) SessionLocks() SessionLocks {
	r := &e.locks
	r.mu.Lock()
	defer r.mu.Unlock()
	set := make(map[dbKey]replSession, len(r.replicated))
	for k, s := range r.replicated {
		set[k] = s
	}
	return SessionLocks{set}
}

// ReleaseSessionLocks ends the session locks of locks, as a closed
// connection's are ended (after their lock-delay); one taken again since
// (another token) is left alone. It returns how many it ended. It does
// nothing on a follower: the leader decides.
func (e *Engine) ReleaseSessionLocks(locks SessionLocks) int {
	r := &e.locks
	set := locks.m
	if len(set) == 0 {
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
		for k, s := range set {
			r.mu.Lock()
			r.recordSessionLocked(tx, '-', k, s)
			if h := r.holders[k]; h != nil && h.token == s.token {
				r.dropSessionLocked(k, h)
			}
			r.mu.Unlock()
			tx.DB = k.db
			key := []byte(k.key)
			v, ok := tx.Get(key)
			if !ok || v.Type != TypeString {
				continue
			}
			if tok, _ := tx.Token(key); tok != s.token {
				continue // taken again since: not this lock
			}
			ended++
			r.stats.sessionReleases.Add(1)
			if s.delayMs > 0 {
				v.ExpireAt = tx.Ms + s.delayMs
				tx.Put(key, v)
				tx.Notify(NotifyGeneric, "expire", key)
			} else {
				tx.Delete(key)
				tx.Notify(NotifyGeneric, "del", key)
			}
		}
	})
	return ended
}

// recDecoder reads session records; bad sticks at the first error.
type recDecoder struct {
	p   []byte
	bad bool
}

func (d *recDecoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.p)
	if n <= 0 {
		d.bad = true
		return 0
	}
	d.p = d.p[n:]
	return v
}

func (d *recDecoder) record() (dbKey, replSession) {
	db := d.uvarint()
	l := d.uvarint()
	if d.bad || db > 255 || l > uint64(len(d.p)) {
		d.bad = true
		return dbKey{}, replSession{}
	}
	k := dbKey{db: int(db), key: string(d.p[:l])}
	d.p = d.p[l:]
	s := replSession{token: d.uvarint()}
	v, n := binary.Varint(d.p)
	if n <= 0 {
		d.bad = true
		return k, s
	}
	d.p = d.p[n:]
	s.delayMs = v
	return k, s
}
