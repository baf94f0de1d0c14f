package engine

import (
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// The lock queue: what the engine knows of locks beyond the keys
// themselves (cmd_lock.go has the commands).
//
// A lock is a string key holding its owner. LOCK.ACQUIRE ... WAIT parks
// the client with the blocking mechanism (blocking.go), ready when its key
// is missing: the transaction that frees the key, by whatever path (DEL, a
// release script, HDEL of a Redisson hash's last field, RENAME, FLUSHDB,
// expiry), re-runs the head waiter's LOCK.ACQUIRE before it commits, so no
// other client ever sees the key free and exactly one waiter is woken.
//
// Expiry needs two more things. A lookup that finds a waited-for key
// expired hands it over on the spot (handOverExpired, called from
// Tx.GetIn), so a polling SET NX cannot win against the queue even when
// it is the first to notice. And each such key gets a timer at its
// deadline (armExpiry) running a one-lookup write transaction, so the
// hand-over does not wait for the next sweep or the next client.
//
// Session locks (SESSION) are released when their connection closes
// (sessionClosed), after LOCKDELAY: the key is kept with its dead owner
// for that long, then expires and passes on like any other.

// lockRegistry is one engine's lock bookkeeping, behind mu (taken under
// the engine lock, never the other way round, and never while holding the
// blocking registry's lock).
type lockRegistry struct {
	e       *Engine
	delayMs atomic.Int64 // lock-delay: LOCKDELAY's default

	mu        sync.Mutex
	holders   map[dbKey]*lockHolder // locks LOCK.ACQUIRE granted, while they last
	bySession map[*Session]map[dbKey]bool
	waits     map[*Session]time.Time // parked LOCK.ACQUIRE ... WAIT, since when
	timers    map[dbKey]*lockTimer
	// replicated is the group's set of session locks, kept while a
	// change listener is set (lock_sessions.go).
	replicated map[dbKey]replSession
	listening  bool // holds one count of e.listening while holders or timers exist

	// closeMu keeps a firing timer's transaction and Close apart.
	closeMu sync.RWMutex
	closed  bool

	stats lockStats
}

// lockHolder is what LOCK.ACQUIRE knows of a lock it granted.
type lockHolder struct {
	owner      string
	token      uint64
	acquiredMs int64
	session    *Session // released when this connection closes; nil: not a session lock
	delayMs    int64    // the session lock's lock-delay
}

// lockTimer expires a waited-for key at its deadline.
type lockTimer struct {
	at int64 // the key's expireAt, unix ms
	t  *time.Timer
}

// lockStats are INFO locks' counters.
type lockStats struct {
	granted         atomic.Int64 // LOCK.ACQUIRE grants, at once or from the queue
	queueGrants     atomic.Int64 // grants to a waiter
	waitTimeouts    atomic.Int64 // waits that ran out of time
	waitAborts      atomic.Int64 // waits ended by a disconnect or a shutdown
	abandoned       atomic.Int64 // grants undone because the waiter had left
	sessionReleases atomic.Int64
	expiryHandovers atomic.Int64 // grants made by a deadline timer
	waitTime        histogram    // from parking to grant
	lateness        histogram    // from a lock's deadline to the timer's grant
}

func (r *lockRegistry) init(e *Engine) {
	r.e = e
	r.holders = make(map[dbKey]*lockHolder)
	r.bySession = make(map[*Session]map[dbKey]bool)
	r.waits = make(map[*Session]time.Time)
	r.timers = make(map[dbKey]*lockTimer)
	e.ks.RegisterState(sessionStateName, sessionState{r})
}

// updateListening keeps one count of e.listening while the registry has
// holders or timers, so that transactions report the keys they touch
// (keyTouched forgets released holders and moves timers). Under r.mu.
func (r *lockRegistry) updateListening() {
	want := len(r.holders) > 0 || len(r.timers) > 0
	if want != r.listening {
		r.listening = want
		if want {
			r.e.listening.Add(1)
		} else {
			r.e.listening.Add(-1)
		}
	}
}

// parked records a LOCK.ACQUIRE that starts waiting.
func (r *lockRegistry) parked(s *Session, now time.Time) {
	r.mu.Lock()
	r.waits[s] = now
	r.mu.Unlock()
}

// servedWaiter reports whether s is a parked waiter being served now.
func (r *lockRegistry) servedWaiter(s *Session) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.waits[s]
	return ok
}

// waitEnded is a Blocked's onCancel: the wait ran out or its client left.
func (r *lockRegistry) waitEnded(b *Blocked) {
	r.mu.Lock()
	delete(r.waits, b.sess)
	r.mu.Unlock()
	if !b.Deadline.IsZero() && !r.e.Clock.Now().Before(b.Deadline) {
		r.stats.waitTimeouts.Add(1)
	} else {
		r.stats.waitAborts.Add(1)
	}
}

// granted records a lock LOCK.ACQUIRE just gave s (at once or from the
// queue), inside the granting transaction.
func (r *lockRegistry) granted(tx *Tx, s *Session, k dbKey, owner string, token uint64, session bool, delayMs int64) {
	r.stats.granted.Add(1)
	r.mu.Lock()
	defer r.mu.Unlock()
	if since, ok := r.waits[s]; ok {
		delete(r.waits, s)
		r.stats.queueGrants.Add(1)
		r.stats.waitTime.add(tx.Now.Sub(since))
	}
	h := r.holders[k]
	if h == nil || h.owner != owner || h.token != token {
		if h != nil {
			r.endSessionLocked(tx, k, h)
		}
		h = &lockHolder{owner: owner, token: token, acquiredMs: tx.Ms}
		r.holders[k] = h
	}
	if session {
		r.dropSessionLocked(k, h)
		h.session, h.delayMs = s, delayMs
		r.recordSessionLocked(tx, '+', k, replSession{token: token, delayMs: delayMs})
		if r.bySession[s] == nil {
			r.bySession[s] = make(map[dbKey]bool)
		}
		r.bySession[s][k] = true
	}
	r.updateListening()
}

// dropSessionLocked forgets that h belongs to a connection. Under r.mu.
func (r *lockRegistry) dropSessionLocked(k dbKey, h *lockHolder) {
	if h.session == nil {
		return
	}
	if m := r.bySession[h.session]; m != nil {
		delete(m, k)
		if len(m) == 0 {
			delete(r.bySession, h.session)
		}
	}
	h.session = nil
}

// holder returns what LOCK.ACQUIRE knows of the lock at k if it still
// holds owner.
func (r *lockRegistry) holder(k dbKey, owner string) (lockHolder, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	h := r.holders[k]
	if h == nil || h.owner != owner {
		return lockHolder{}, false
	}
	return *h, true
}

// keyTouched forgets a holder whose key no longer holds its owner, and
// keeps the deadline timer of a waited-for key in step with its expiry
// (a grant, PEXPIRE, a lock-delay). It runs after the blocking registry's
// keyTouched, so a freed key has already passed to its next owner.
func (r *lockRegistry) keyTouched(tx *Tx, k dbKey) {
	r.mu.Lock()
	h := r.holders[k]
	_, timed := r.timers[k]
	r.mu.Unlock()
	waiters := r.e.blocks.lockWaiters(k)
	if h == nil && !timed && waiters == 0 {
		return
	}
	v, ok := tx.GetIn(k.db, []byte(k.key))
	if h != nil && (!ok || v.Type != TypeString || v.Payload != h.owner) {
		r.mu.Lock()
		if r.holders[k] == h {
			r.endSessionLocked(tx, k, h)
			delete(r.holders, k)
		}
		r.updateListening()
		r.mu.Unlock()
	}
	r.armExpiry(k, v, ok, waiters)
}

func (r *lockRegistry) dbFlushed(*Tx, int) {} // the blocking registry reports waited-for keys

// armExpiry sets, moves or stops the timer that expires the waited-for
// key k (value v, live when ok) at its deadline. A manual clock has no
// deadlines in real time: there the sweeper and lookups expire keys when
// the clock is moved.
func (r *lockRegistry) armExpiry(k dbKey, v Value, ok bool, waiters int) {
	if r.e.Clock.Manual() || r.e.ks.Follower() {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	lt := r.timers[k]
	if !ok || waiters == 0 || v.ExpireAt == 0 {
		if lt != nil {
			lt.t.Stop()
			delete(r.timers, k)
			r.updateListening()
		}
		return
	}
	if lt != nil && lt.at == v.ExpireAt {
		return
	}
	if lt != nil {
		lt.t.Stop()
	}
	at := v.ExpireAt
	// A key is live through its expireAt millisecond (Tx.GetIn).
	d := time.UnixMilli(at + 1).Sub(r.e.Clock.Now())
	lt = &lockTimer{at: at}
	lt.t = time.AfterFunc(d, func() { r.fire(k, at) })
	r.timers[k] = lt
	r.updateListening()
}

// fire is a deadline timer: a write transaction that looks the key up,
// which expires it through the one lazy-expiry path (Tx.GetIn) and hands
// it to the first waiter there. It re-arms itself if the clock had not
// quite reached the deadline.
func (r *lockRegistry) fire(k dbKey, at int64) {
	r.closeMu.RLock()
	defer r.closeMu.RUnlock()
	if r.closed {
		return
	}
	handedOver := false
	r.e.Do(true, k.db, func(tx *Tx) {
		r.mu.Lock()
		if lt := r.timers[k]; lt != nil && lt.at == at {
			delete(r.timers, k)
			r.updateListening()
		}
		r.mu.Unlock()
		before := r.stats.queueGrants.Load()
		v, ok := tx.GetIn(k.db, []byte(k.key))
		handedOver = r.stats.queueGrants.Load() != before
		r.armExpiry(k, v, ok, r.e.blocks.lockWaiters(k))
	})
	if handedOver {
		r.stats.expiryHandovers.Add(1)
		r.stats.lateness.add(r.e.Clock.Now().Sub(time.UnixMilli(at)))
	}
}

// handOverExpired is Tx.GetIn's hook (HandOver) for a key it just found
// expired and deleted in a write transaction: if clients wait for the key,
// the first is granted it now, before the command that looked can see it
// free. It reports whether it ran the queue; GetIn then reads the key
// again.
func (tx *Tx) handOverExpired(db int, key []byte) bool {
	if tx.handingOver || tx.e.listening.Load() == 0 {
		return false
	}
	k := dbKey{db, string(key)}
	if tx.e.blocks.lockWaiters(k) == 0 {
		return false
	}
	tx.handingOver = true
	saved := tx.DB
	tx.e.blocks.keyTouched(tx, k)
	tx.DB = saved
	tx.handingOver = false
	return true
}

// abandoned undoes a queue grant whose client left before the reply
// reached it: the lock goes to the next waiter at once.
func (r *lockRegistry) abandoned(b *Blocked, k dbKey, owner string) {
	rep := b.Reply()
	if rep.Kind != KindInt {
		return // not a grant
	}
	r.e.Do(true, k.db, func(tx *Tx) {
		key := []byte(k.key)
		v, ok := tx.Get(key)
		if !ok || v.Type != TypeString || v.Payload != owner {
			return
		}
		if tok, _ := tx.Token(key); int64(tok) != rep.Int {
			return
		}
		tx.Delete(key)
		tx.Notify(NotifyGeneric, "del", key)
		r.stats.abandoned.Add(1)
	})
}

// sessionClosed releases the session locks of a connection that closed:
// at once, or after their lock-delay by keeping the key with its dead
// owner that much longer.
func (r *lockRegistry) sessionClosed(s *Session) {
	r.mu.Lock()
	delete(r.waits, s)
	var keys []dbKey
	var hs []lockHolder
	for k := range r.bySession[s] {
		if h := r.holders[k]; h != nil && h.session == s {
			keys = append(keys, k)
			hs = append(hs, *h)
			h.session = nil
		}
	}
	delete(r.bySession, s)
	r.mu.Unlock()
	if len(keys) == 0 || r.e.ks.Follower() {
		return // a follower's locks are released by its leader's batches
	}
	r.closeMu.RLock()
	defer r.closeMu.RUnlock()
	if r.closed {
		return
	}
	r.e.Do(true, 0, func(tx *Tx) {
		for i, k := range keys {
			r.mu.Lock()
			r.recordSessionLocked(tx, '-', k, replSession{token: hs[i].token, delayMs: hs[i].delayMs})
			r.mu.Unlock()
			tx.DB = k.db
			key := []byte(k.key)
			v, ok := tx.Get(key)
			if !ok || v.Type != TypeString || v.Payload != hs[i].owner {
				continue
			}
			if tok, _ := tx.Token(key); tok != hs[i].token {
				continue // the same owner took it again since: not this lock
			}
			r.stats.sessionReleases.Add(1)
			if d := hs[i].delayMs; d > 0 {
				v.ExpireAt = tx.Ms + d
				tx.Put(key, v)
				tx.Notify(NotifyGeneric, "expire", key)
			} else {
				tx.Delete(key)
				tx.Notify(NotifyGeneric, "del", key)
			}
		}
	})
}

// close stops the deadline timers for good.
func (r *lockRegistry) close() {
	r.closeMu.Lock()
	r.closed = true
	r.closeMu.Unlock()
	r.mu.Lock()
	for k, lt := range r.timers {
		lt.t.Stop()
		delete(r.timers, k)
	}
	r.updateListening()
	r.mu.Unlock()
}

// held counts the locks LOCK.ACQUIRE granted that still exist.
func (r *lockRegistry) held() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.holders)
}

// waiting counts parked LOCK.ACQUIRE ... WAIT clients.
func (r *lockRegistry) waiting() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.waits)
}

// infoLocks is INFO's "# Locks" section.
func infoLocks(b []byte, c *Call) []byte {
	r := &c.E.locks
	st := &r.stats
	ms := func(f float64) string { return strconv.FormatFloat(f, 'f', 3, 64) }
	b = append(b, "# Locks\r\n"...)
	b = infoInt(b, "locks_held", int64(r.held()))
	b = infoInt(b, "locks_granted", st.granted.Load())
	b = infoInt(b, "queue_grants", st.queueGrants.Load())
	b = infoInt(b, "wait_timeouts", st.waitTimeouts.Load())
	b = infoInt(b, "wait_aborts", st.waitAborts.Load())
	b = infoInt(b, "abandoned_grants", st.abandoned.Load())
	b = infoInt(b, "session_releases", st.sessionReleases.Load())
	b = infoInt(b, "current_waiters", int64(r.waiting()))
	b = infoLine(b, "wait_time_p50_ms", ms(st.waitTime.quantile(0.50)))
	b = infoLine(b, "wait_time_p99_ms", ms(st.waitTime.quantile(0.99)))
	b = infoInt(b, "expiry_handovers", st.expiryHandovers.Load())
	b = infoLine(b, "expiry_handover_late_p50_ms", ms(st.lateness.quantile(0.50)))
	b = infoLine(b, "expiry_handover_late_p99_ms", ms(st.lateness.quantile(0.99)))
	b = infoInt(b, "lock_delay", r.delayMs.Load())
	return b
}

// resetStats zeroes the counters (CONFIG RESETSTAT).
func (st *lockStats) reset() {
	for _, v := range []*atomic.Int64{&st.granted, &st.queueGrants, &st.waitTimeouts, &st.waitAborts,
		&st.abandoned, &st.sessionReleases, &st.expiryHandovers} {
		v.Store(0)
	}
	st.waitTime.reset()
	st.lateness.reset()
}

// bindLockParams binds lock-delay (ms), LOCK.ACQUIRE LOCKDELAY's default.
func (e *Engine) bindLockParams() {
	e.bindParam("lock-delay", intParam(&e.locks.delayMs))
}
