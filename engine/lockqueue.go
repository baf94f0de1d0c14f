package engine

import (
	"fmt"
	"time"
)

// The lock queue: what the engine knows of locks beyond the keys
// themselves (cmd_lock.go has the commands, lock_layout.go how each kind
// is stored, lock_session.go the sessions).
//
// A request that cannot have its locks (LOCK.ACQUIRE or LOCK.ACQUIREALL
// ... WAIT) waits in the queue of each of its keys, in arrival order: its
// lockWaiter is the one place that holds what it asked for. Whatever
// changes a waited-for key (a release, DEL, a release script, HDEL of a
// Redisson hash's last field, RENAME, FLUSHDB, expiry, a session's end)
// reports it here inside its transaction, and the queue is served before
// that transaction commits: no other client ever sees the key free, and
// exactly the waiters that get a lock are woken.
//
// Serving walks the queue from its head and stops at the first waiter
// that cannot be granted: a waiter is granted only when it is at the
// head of the queue of every one of its keys and every key admits its
// mode (exclusive: free; shared: free or held by readers; permits: fewer
// holders than permits). So a queued writer stops later readers from
// jumping ahead, readers at the head are granted together, and a
// LOCK.ACQUIREALL request, which holds nothing while it waits, is served
// in arrival order among the requests it conflicts with: every queue is
// in the same global arrival order, so the oldest waiter heads all of its
// queues and no two waiters can wait for each other.
//
// A waiter whose client left is skipped when its turn comes (the
// transaction asks the client's Alive probe), and a grant that raced its
// client's departure anyway is undone and passed on (abandoned).
//
// Expiry needs two more things. A lookup that finds a waited-for key
// expired hands it over on the spot (handOverExpired, called from
// Tx.GetIn), so a polling SET NX cannot win against the queue even when
// it is the first to notice. And each waited-for key gets a timer at its
// next deadline (armKey: the key's expiry, or a semaphore's earliest
// holder deadline), running a write transaction that expires what is due
// and serves the queue, so the hand-over does not wait for the next sweep
// or the next client. Session keys get one too (lock_session.go).

// Error replies of the lock queue's grants.
var errNoSession = replyError("ERR no such session")

// errPermitsDiffer answers a request naming another count of permits than
// the semaphore's holders did.
func errPermitsDiffer(n int64) error {
	return fmt.Errorf("ERR PERMITS differs from the %d the holders of this semaphore named", n)
}

func (r *lockRegistry) init(e *Engine) {
	r.e = e
	r.queues = make(map[dbKey][]*lockWaiter)
	r.held = make(map[dbKey]map[string]grantInfo)
	r.timers = make(map[dbKey]*lockTimer)
	r.sessions = make(map[string]*lockSession)
	r.connSess = make(map[*Session]string)
	r.sessionOf = make(map[holderKey]string)
}

// updateListening keeps one count of e.listening while the registry has
// anything to follow, so that transactions report the keys they touch.
// Under r.mu.
func (r *lockRegistry) updateListening() {
	want := r.waiters > 0 || len(r.held) > 0 || len(r.timers) > 0 || len(r.sessions) > 0
	if want != r.listening {
		r.listening = want
		if want {
			r.e.listening.Add(1)
		} else {
			r.e.listening.Add(-1)
		}
	}
}

// queued reports whether clients wait for key k.
func (r *lockRegistry) queued(k dbKey) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.queues[k])
}

// waiting counts parked requests.
func (r *lockRegistry) waiting() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.waiters
}

// ------------------------------------------------------------ acquiring

// admits reports whether the lock at key (in tx.DB) can be given to req
// now, the queue aside: free, held by req's owner in the same mode (a
// refresh), or shared with room for req. It purges a semaphore's expired
// holders first. err is a request that can never be served here.
func admits(tx *Tx, key []byte, req *lockRequest) (bool, error) {
	if req.mode == modeExclusive {
		v, ok := tx.Get(key)
		return !ok || (v.Type == TypeString && v.Payload == req.owner), nil
	}
	if req.mode == modePermits {
		purgeSemaphore(tx, key)
	}
	lv := viewLock(tx, tx.DB, key)
	if !lv.held() {
		return true, nil
	}
	if _, ok := lv.holder(req.owner); ok {
		return lv.kind == lockShared && req.mode == modeShared || lv.kind == lockSemaphore && req.mode == modePermits, nil
	}
	switch {
	case req.mode == modeShared:
		return lv.kind == lockShared, nil
	case lv.kind != lockSemaphore:
		return false, nil
	case lv.permits != 0 && lv.permits != req.permits:
		return false, errPermitsDiffer(lv.permits)
	}
	return int64(len(lv.holders)) < req.permits, nil
}

// grantOne gives req its lock at key (in tx.DB), or refreshes the one its
// owner holds there, and returns the token.
func grantOne(tx *Tx, key []byte, req *lockRequest) uint64 {
	lv := viewLock(tx, tx.DB, key)
	if hv, ok := lv.holder(req.owner); ok {
		// Held by this owner already: a retry after a lost reply. Reset
		// the TTL and answer the same token.
		extendHolder(tx, key, req.owner, req.ttl)
		if lv.kind == lockString {
			return lv.v.Token
		}
		return hv.token
	}
	switch req.mode {
	case modeShared:
		return grantShared(tx, key, req.owner, req.ttl)
	case modePermits:
		return grantPermit(tx, key, req.owner, req.ttl, req.permits)
	}
	return grantExclusive(tx, key, req.owner, req.ttl)
}

// acquire runs a LOCK.ACQUIRE or LOCK.ACQUIREALL: every lock at once when
// none is held by another and nobody waits for one of them (the owner's
// own holds are refreshed), else in line with WAIT, else nil.
func (r *lockRegistry) acquire(c *Call, req *lockRequest) {
	tx := c.Tx
	if req.sessID != "" && !sessionExists(tx, req.sessID) {
		c.Err(errNoSession)
		return
	}
	free := true
	for _, key := range req.keys {
		ok, err := admits(tx, key, req)
		if err != nil {
			c.Err(err)
			return
		}
		if !ok || (r.queued(dbKey{tx.DB, string(key)}) > 0 && !ownerHolds(tx, key, req.owner)) {
			// Held, or waited for by clients who come first.
			free = false
		}
	}
	if free {
		if err := r.e.fenceError(); err != nil && !allExist(tx, req.keys) {
			c.Err(err)
			return
		}
		var one [1]uint64 // LOCK.ACQUIRE's one token, on the stack
		writeTokens(c.W, req, r.grant(tx, c.S, req, one[:0]))
		return
	}
	if !req.wait || !c.CanBlock() {
		c.W.Null() // WAIT inside MULTI or a script is no wait
		return
	}
	r.park(c, req)
}

// ownerHolds reports whether owner holds the lock at key in any mode.
func ownerHolds(tx *Tx, key []byte, owner string) bool {
	lv := viewLock(tx, tx.DB, key)
	_, ok := lv.holder(owner)
	return ok
}

// allExist reports whether every key exists: a refresh creates none, so
// the restart fence lets it through.
func allExist(tx *Tx, keys [][]byte) bool {
	for _, k := range keys {
		if !tx.Exists(k) {
			return false
		}
	}
	return true
}

// writeTokens is the reply of a grant: the token, or for ACQUIREALL the
// array of tokens.
func writeTokens(w Writer, req *lockRequest, tokens []uint64) {
	if !req.all {
		w.Int(int64(tokens[0]))
		return
	}
	w.Array(len(tokens))
	for _, t := range tokens {
		w.Int(int64(t))
	}
}

// grant gives req all its locks in tx (in tx.DB) and records them. The
// tokens are appended to buf (nil, or room the caller does not keep).
func (r *lockRegistry) grant(tx *Tx, s *Session, req *lockRequest, buf []uint64) []uint64 {
	tokens := append(buf[:0], make([]uint64, len(req.keys))...)
	for i, key := range req.keys {
		tokens[i] = grantOne(tx, key, req)
		r.recordGrant(tx, holderKey{tx.DB, string(key), req.owner}, tokens[i])
	}
	r.stats.granted.Add(int64(len(req.keys)))
	switch {
	case req.sessID != "":
		for i, key := range req.keys {
			sessionAddLock(tx, req.sessID, holderKey{tx.DB, string(key), req.owner}, tokens[i], req.ttl, req.delayMs)
		}
	case req.connSess && s != nil:
		id := r.connSession(tx, s)
		for i, key := range req.keys {
			sessionAddLock(tx, id, holderKey{tx.DB, string(key), req.owner}, tokens[i], req.ttl, req.delayMs)
		}
	}
	return tokens
}

// recordGrant remembers a grant for LOCK.INFO and INFO.
func (r *lockRegistry) recordGrant(tx *Tx, hk holderKey, token uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := dbKey{hk.db, hk.key}
	m := r.held[k]
	if m == nil {
		if n := len(r.spareHeld); n > 0 {
			m = r.spareHeld[n-1]
			r.spareHeld[n-1] = nil
			r.spareHeld = r.spareHeld[:n-1]
		} else {
			m = make(map[string]grantInfo)
		}
		r.held[k] = m
	}
	if g, ok := m[hk.owner]; !ok || g.token != token {
		m[hk.owner] = grantInfo{token: token, acquiredMs: tx.Ms}
	}
	r.updateListening()
}

// grantedAt returns when LOCK.ACQUIRE granted owner the lock at k, if it
// did and the grant still holds (its token).
func (r *lockRegistry) grantedAt(k dbKey, owner string, token uint64) (int64, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	g, ok := r.held[k][owner]
	if !ok || (token != 0 && g.token != token) {
		return 0, false
	}
	return g.acquiredMs, true
}

// park queues req until it can be served.
func (r *lockRegistry) park(c *Call, req *lockRequest) {
	tx := c.Tx
	b := c.parked(time.Duration(req.waitMs)*time.Millisecond, Reply{Kind: KindNull})
	w := &lockWaiter{req: *req, db: tx.DB, b: b, sess: c.S, since: tx.Now}
	w.req.keys = make([][]byte, len(req.keys))
	for i, k := range req.keys {
		w.req.keys[i] = []byte(string(k)) // the caller reuses its argument buffers
		w.keys = append(w.keys, dbKey{tx.DB, string(k)})
	}
	b.onEnd = func(tx *Tx, why endReason) { r.waitEnded(tx, w, why) }
	b.onAbandon = func() { r.abandoned(w) }
	r.mu.Lock()
	for _, k := range w.keys {
		r.queues[k] = append(r.queues[k], w)
	}
	r.waiters++
	r.updateListening()
	r.mu.Unlock()
	for _, k := range w.keys {
		r.armKey(tx, k)
	}
}

// unqueue takes w out of its queues; it returns the keys whose queue it
// headed (their next waiters may be served now).
func (r *lockRegistry) unqueue(w *lockWaiter) []dbKey {
	r.mu.Lock()
	defer r.mu.Unlock()
	var headed []dbKey
	found := false
	for _, k := range w.keys {
		q := r.queues[k]
		for i, x := range q {
			if x != w {
				continue
			}
			found = true
			if i == 0 {
				headed = append(headed, k)
			}
			q = append(q[:i:i], q[i+1:]...)
			break
		}
		if len(q) == 0 {
			delete(r.queues, k)
		} else {
			r.queues[k] = q
		}
	}
	if found {
		r.waiters--
		r.updateListening()
	}
	return headed
}

// waitEnded is a waiter's onEnd: it leaves the queues, and the waiters
// it stood before are served if they can be now (tx: the transaction it
// ended in, nil outside one).
func (r *lockRegistry) waitEnded(tx *Tx, w *lockWaiter, why endReason) {
	headed := r.unqueue(w)
	switch why {
	case endTimeout:
		r.stats.waitTimeouts.Add(1)
	default:
		r.stats.waitAborts.Add(1)
	}
	if len(headed) == 0 || r.e.ks.Follower() {
		return
	}
	if tx != nil {
		r.serveKeys(tx, headed)
		return
	}
	r.closeMu.RLock()
	defer r.closeMu.RUnlock()
	if r.closed {
		return
	}
	r.e.Do(true, w.db, func(tx *Tx) { r.serveKeys(tx, headed) })
}

// serveKeys serves the queues of keys.
func (r *lockRegistry) serveKeys(tx *Tx, keys []dbKey) {
	saved := tx.DB
	for _, k := range keys {
		r.serve(tx, k)
	}
	tx.DB = saved
}

// serve grants the lock at k to its waiters that can have it now, head
// first, inside tx; it stops at the first that cannot.
func (r *lockRegistry) serve(tx *Tx, k dbKey) {
	if r.e.ks.Follower() {
		return
	}
	saved := tx.DB
	defer func() { tx.DB = saved }()
	for {
		r.mu.Lock()
		var w *lockWaiter
		if q := r.queues[k]; len(q) > 0 {
			w = q[0]
		}
		r.mu.Unlock()
		if w == nil || !r.serveWaiter(tx, w) {
			r.armKey(tx, k)
			return
		}
	}
}

// serveWaiter serves w if it heads every queue it is in and every one of
// its keys admits it; it reports whether w left the queues (served, or
// skipped because its client left).
func (r *lockRegistry) serveWaiter(tx *Tx, w *lockWaiter) bool {
	r.mu.Lock()
	for _, k := range w.keys {
		if q := r.queues[k]; len(q) == 0 || q[0] != w {
			r.mu.Unlock()
			return false
		}
	}
	r.mu.Unlock()
	tx.DB = w.db
	var refused error // a request that can never be served: its reply
	for _, key := range w.req.keys {
		ok, err := admits(tx, key, &w.req)
		if err == nil && !ok {
			return false
		}
		if refused == nil {
			refused = err
		}
	}
	b := w.b
	b.mu.Lock()
	if b.state != blockWaiting {
		b.mu.Unlock()
		r.unqueue(w)
		return true
	}
	if !b.isAlive() {
		// The client left before its turn came: the next one goes.
		b.endLocked(Reply{}, false)
		b.mu.Unlock()
		b.finish(tx, endAbort, true)
		return true
	}
	r.grantWaiter(tx, w, refused)
	b.state = blockServed
	b.mu.Unlock()
	r.unqueue(w)
	close(b.ready)
	return true
}

// grantWaiter writes w's reply, under b.mu: its locks, or why it cannot
// have them (refused: a semaphore now used with another count, as
// serveWaiter's admits found it, which is not asked again; the restart
// fence; a session that ended).
func (r *lockRegistry) grantWaiter(tx *Tx, w *lockWaiter, refused error) {
	rec := &w.b.rec
	if refused != nil {
		rec.Error(refused.Error())
		return
	}
	if w.req.sessID != "" && !sessionExists(tx, w.req.sessID) {
		rec.Error(errNoSession.Error())
		return
	}
	if err := r.e.fenceError(); err != nil && !allExist(tx, w.req.keys) {
		rec.Error(err.Error())
		return
	}
	tokens := r.grant(tx, w.sess, &w.req, nil)
	for _, key := range w.req.keys {
		w.grants = append(w.grants, holderKey{w.db, string(key), w.req.owner})
	}
	w.tokens = tokens
	writeTokens(rec, &w.req, tokens)
	r.stats.queueGrants.Add(1)
	r.stats.waitTime.add(tx.Now.Sub(w.since))
}

// abandoned undoes the grants of a waiter whose client left before the
// reply reached it: each lock it still holds with the token it was given
// goes to the next waiter at once.
func (r *lockRegistry) abandoned(w *lockWaiter) {
	if len(w.grants) == 0 {
		return
	}
	r.closeMu.RLock()
	defer r.closeMu.RUnlock()
	if r.closed {
		return
	}
	undone := false
	r.e.Do(true, w.db, func(tx *Tx) {
		for i, hk := range w.grants {
			tx.DB = hk.db
			key := []byte(hk.key)
			hv, ok := viewLock(tx, hk.db, key).holder(hk.owner)
			if !ok || (hv.token != 0 && hv.token != w.tokens[i]) {
				continue // released or taken again since
			}
			if releaseHolder(tx, key, hk.owner) {
				undone = true
			}
		}
	})
	if undone {
		r.stats.abandoned.Add(1)
	}
}

// ------------------------------------------------------- key changes

// keyTouched follows a changed key: a waited-for key's queue is served
// (its lock may be free now), a session key that went away ends its
// session, what was granted and is gone is forgotten, and the deadline
// timer follows the key's expiry.
func (r *lockRegistry) keyTouched(tx *Tx, k dbKey) {
	if isSessionKey(k) {
		r.sessionTouched(tx, k)
	}
	r.mu.Lock()
	_, held := r.held[k]
	q := len(r.queues[k])
	_, timed := r.timers[k]
	r.mu.Unlock()
	if held {
		r.forgetReleased(tx, k)
	}
	if q > 0 {
		r.serve(tx, k)
	} else if timed {
		r.armKey(tx, k)
	}
}

// follows reports whether keyTouched has anything to do for k: a
// session key, a lock held through the registry, waiters or a deadline
// timer (batch.go ends its batch after such a change).
func (r *lockRegistry) follows(k dbKey) bool {
	if isSessionKey(k) {
		return true
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	_, held := r.held[k]
	_, timed := r.timers[k]
	return held || timed || len(r.queues[k]) > 0
}

// forgetReleased drops the grants recorded for k that no longer hold.
func (r *lockRegistry) forgetReleased(tx *Tx, k dbKey) {
	lv := viewLock(tx, k.db, StringBytes(k.key))
	r.mu.Lock()
	defer r.mu.Unlock()
	m := r.held[k]
	owners := len(m)
	for owner, g := range m {
		hv, ok := lv.holder(owner)
		if !ok || (hv.token != 0 && hv.token != g.token) {
			delete(m, owner)
		}
	}
	if len(m) == 0 {
		delete(r.held, k)
		// A map that held many owners (a semaphore's) stays big: not kept.
		if m != nil && owners <= 8 && len(r.spareHeld) < maxSpareHeld {
			r.spareHeld = append(r.spareHeld, m)
		}
		r.updateListening()
	}
}

// maxSpareHeld bounds lockRegistry.spareHeld.
const maxSpareHeld = 64

// dbFlushed reports the waited-for keys of the flushed databases as
// changed, so that the flush that empties them hands each to its first
// waiter, and the session keys, so that the sessions end.
func (r *lockRegistry) dbFlushed(tx *Tx, db int) {
	r.mu.Lock()
	var keys []dbKey
	for k := range r.queues {
		if db < 0 || k.db == db {
			keys = append(keys, k)
		}
	}
	if db <= 0 {
		for id := range r.sessions {
			keys = append(keys, dbKey{0, sessionKeyPrefix + id})
		}
	}
	r.mu.Unlock()
	for _, k := range keys {
		tx.touch(k.db, k.key)
	}
}

// keysIn lists the waited-for keys of databases a and b (SWAPDB).
func (r *lockRegistry) keysIn(a, b int) []dbKey {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []dbKey
	for k := range r.queues {
		if k.db == a || k.db == b {
			out = append(out, k)
		}
	}
	return out
}

// nextDeadline is when the lock at k may next change by itself: its
// expiry, or a semaphore's earliest holder deadline; 0 for never.
func nextDeadline(tx *Tx, k dbKey) int64 {
	v, ok := tx.GetIn(k.db, []byte(k.key))
	if !ok {
		return 0
	}
	at := v.ExpireAt
	if v.Type == TypeZSet {
		lv := lockView{kind: lockOther, v: v}
		viewSemaphore(tx, k.db, []byte(k.key), &lv)
		for _, h := range lv.holders {
			if h.ours && (at == 0 || h.score < at) {
				at = h.score
			}
		}
	}
	return at
}

// armKey sets, moves or stops the timer of key k: while clients wait for
// it (or it is a session key), at its next deadline.
func (r *lockRegistry) armKey(tx *Tx, k dbKey) {
	if r.e.ks.Follower() {
		return
	}
	at := int64(0)
	r.mu.Lock()
	want := len(r.queues[k]) > 0 || (isSessionKey(k) && r.sessions[k.key[len(sessionKeyPrefix):]] != nil)
	r.mu.Unlock()
	if want {
		at = nextDeadline(tx, k)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	lt := r.timers[k]
	if at == 0 {
		if lt != nil {
			if lt.t != nil {
				lt.t.Stop()
			}
			delete(r.timers, k)
			r.updateListening()
		}
		return
	}
	if lt != nil && lt.at == at {
		return
	}
	if lt != nil && lt.t != nil {
		lt.t.Stop()
	}
	lt = &lockTimer{at: at}
	if !r.e.Clock.Manual() {
		// A key is live through its expireAt millisecond (Tx.GetIn). A
		// manual clock has no deadlines in real time: Sweep fires them
		// when the clock is moved (fireDue).
		d := time.UnixMilli(at + 1).Sub(r.e.Clock.Now())
		lt.t = time.AfterFunc(d, func() { r.fire(k, at) })
	}
	r.timers[k] = lt
	r.updateListening()
}

// fire is a deadline timer: a write transaction that looks the key up,
// which expires it through the one lazy-expiry path (Tx.GetIn) and hands
// it to the first waiter there, purges a semaphore's expired holders,
// and serves the queue. It re-arms itself if the clock had not quite
// reached the deadline.
func (r *lockRegistry) fire(k dbKey, at int64) {
	r.closeMu.RLock()
	defer r.closeMu.RUnlock()
	if r.closed || r.e.ks.Follower() {
		return
	}
	handedOver := false
	r.e.Do(true, k.db, func(tx *Tx) {
		r.mu.Lock()
		if lt := r.timers[k]; lt != nil && lt.at == at {
			delete(r.timers, k)
		}
		r.mu.Unlock()
		before := r.stats.queueGrants.Load()
		key := []byte(k.key)
		if v, ok := tx.GetIn(k.db, key); ok && v.Type == TypeZSet {
			tx.DB = k.db
			purgeSemaphore(tx, key)
		}
		r.serve(tx, k)
		handedOver = r.stats.queueGrants.Load() != before
		r.armKey(tx, k)
	})
	if handedOver {
		r.stats.expiryHandovers.Add(1)
		r.stats.lateness.add(r.e.Clock.Now().Sub(time.UnixMilli(at)))
	}
}

// fireDue fires the timers whose deadline passed: with a manual clock
// (tests), after the clock moved (Sweep calls it).
func (r *lockRegistry) fireDue() {
	now := r.e.Clock.NowMs()
	r.mu.Lock()
	type due struct {
		k  dbKey
		at int64
	}
	var list []due
	for k, lt := range r.timers {
		if lt.t == nil && lt.at < now {
			list = append(list, due{k, lt.at})
		}
	}
	r.mu.Unlock()
	for _, d := range list {
		r.fire(d.k, d.at)
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
	if tx.e.locks.queued(k) == 0 {
		return false
	}
	tx.handingOver = true
	tx.e.locks.serve(tx, k)
	tx.handingOver = false
	return true
}

// close stops the deadline timers for good.
func (r *lockRegistry) close() {
	r.closeMu.Lock()
	r.closed = true
	r.closeMu.Unlock()
	r.mu.Lock()
	for k, lt := range r.timers {
		if lt.t != nil {
			lt.t.Stop()
		}
		delete(r.timers, k)
	}
	r.updateListening()
	r.mu.Unlock()
}

// ------------------------------------------------------------- figures

// heldCounts counts the locks LOCK.ACQUIRE granted that still hold: keys,
// and of them the shared ones and the semaphores.
func (r *lockRegistry) heldCounts() (keys, holders int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, m := range r.held {
		holders += len(m)
	}
	return len(r.held), holders
}

// bindLockParams binds lock-delay (ms), LOCK.ACQUIRE LOCKDELAY's default.
func (e *Engine) bindLockParams() {
	e.bindParam("lock-delay", intParam(&e.locks.delayMs))
}

// BlockedClients is the number of clients waiting in a blocking command.
func (e *Engine) BlockedClients() int { return e.blocks.Waiting() + e.locks.waiting() }
