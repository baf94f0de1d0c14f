package engine

import (
	"time"
)

// Waiting, for every caller. A command that finds nothing to do yet
// (BLPOP on empty lists, LOCK.ACQUIRE ... WAIT on a held lock) parks
// itself as a *Blocked and writes no reply; whoever ran it (a connection
// in resp/, the Go API's Do, later a forwarded command) finds it in
// Session.Blocked and calls Await, which ends in one of four ways: the
// command was served by a transaction that changed one of its keys, its
// deadline passed, CLIENT UNBLOCK ended it, or the caller stopped waiting
// (the server closes, a context is cancelled, the client left).
//
// A Blocked moves once, under its mutex, from waiting to served or to
// ended, so an element popped (or a lock granted) for a client that timed
// out at the same moment is never lost. A client that left is found out
// at the latest when it would be served: the serving transaction asks the
// session's Alive probe first, and skips a dead client for the next one.
//
// List, sorted-set and stream waiters are kept per key in the blocking
// registry below; lock waiters in the lock queue (lockqueue.go), which
// hands locks over itself.

// Ready is closed when the command has been served (or ended by the
// server: CLIENT UNBLOCK, a client found gone).
func (b *Blocked) Ready() <-chan struct{} { return b.ready }

// Reply returns the served command's reply; call it after Ready.
func (b *Blocked) Reply() Reply { return b.rec.Last() }

// isAlive asks the client's probe, if it has one.
func (b *Blocked) isAlive() bool { return b.alive == nil || b.alive() }

// endLocked moves a waiting b to ended, under b.mu. It reports false when
// b was no longer waiting.
func (b *Blocked) endLocked(rep Reply, deliver bool) bool {
	if b.state != blockWaiting {
		return false
	}
	b.state, b.final, b.deliver = blockEnded, rep, deliver
	return true
}

// end gives up a waiting b (tx: the transaction it happens in, nil
// outside one) and reports whether it was still waiting. byServer: the
// waiter is woken (its Ready closes) to send final.
func (b *Blocked) end(tx *Tx, why endReason, rep Reply, deliver, byServer bool) bool {
	b.mu.Lock()
	ok := b.endLocked(rep, deliver)
	b.mu.Unlock()
	if !ok {
		return false
	}
	b.finish(tx, why, byServer)
	return true
}

// finish is what follows a waiting b's end: it leaves its registry, and
// the waiter is woken when someone else ended it.
func (b *Blocked) finish(tx *Tx, why endReason, byServer bool) {
	if b.registered {
		b.e.blocks.remove(b)
	}
	if b.onEnd != nil {
		b.onEnd(tx, why)
	}
	if byServer {
		close(b.ready)
	}
}

// Cancel gives up waiting as a client that left would. It returns false
// if the command was served (or ended) meanwhile.
func (b *Blocked) Cancel() bool { return b.end(nil, endAbort, b.TimeoutReply, false, false) }

// Abandon is called instead of delivering Reply when the client left
// after the command was served.
func (b *Blocked) Abandon() {
	if b.onAbandon != nil {
		b.onAbandon()
	}
}

// Await waits for the end of a blocked command: served, its deadline,
// CLIENT UNBLOCK, stop closed (the server closes, a context is
// cancelled: the timeout reply), or gone closed (the client left: nothing
// to send). It returns the reply to send, and false when there is none:
// the client left, before it was served or right after (a lock granted to
// it is then passed on). Either channel may be nil.
func (b *Blocked) Await(stop, gone <-chan struct{}) (Reply, bool) {
	sess := b.sess
	defer sess.blocked.CompareAndSwap(b, nil)
	var timeout <-chan time.Time
	if !b.Deadline.IsZero() {
		t := time.NewTimer(b.Deadline.Sub(b.e.Clock.Now()))
		defer t.Stop()
		timeout = t.C
	}
	why, left := endAbort, false
	select {
	case <-b.ready:
	case <-timeout:
		why = endTimeout
	case <-stop:
	case <-gone:
		left = true
	}
	if b.end(nil, why, b.TimeoutReply, !left, false) {
		return b.TimeoutReply, !left
	}
	b.mu.Lock()
	state, final, deliver := b.state, b.final, b.deliver
	b.mu.Unlock()
	if state == blockEnded {
		return final, deliver
	}
	if left || closed(gone) || !b.isAlive() {
		// Served as the client left: nobody will read the reply.
		b.Abandon()
		return Reply{}, false
	}
	return b.Reply(), true
}

// closed reports whether ch (nil: never) is closed.
func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// errUnblocked is the reply of a client ended by CLIENT UNBLOCK ... ERROR.
var errUnblocked = replyError("UNBLOCKED client unblocked via CLIENT UNBLOCK")

// unblockClient is CLIENT UNBLOCK: it ends the blocked command of client
// id, which then answers its timeout reply, or the UNBLOCKED error. It
// reports whether there was one.
func (e *Engine) unblockClient(tx *Tx, id int64, withError bool) bool {
	e.clientsMu.Lock()
	s := e.clients[id]
	e.clientsMu.Unlock()
	if s == nil {
		return false
	}
	b := s.blocked.Load()
	if b == nil {
		return false
	}
	rep := b.TimeoutReply
	if withError {
		rep = Reply{Kind: KindError, Str: errUnblocked.Error()}
	}
	return b.end(tx, endUnblock, rep, true, true)
}

// servedKeys returns the keys a blocking command is to try: keys, or only
// the key whose change runs the command for a waiter, as Redis serves a
// waiter from the key that became ready whatever the keys before it hold
// (another type, or data that arrived later in the same transaction).
func (c *Call) servedKeys(keys [][]byte) [][]byte {
	if c.served == nil {
		return keys
	}
	return [][]byte{c.served}
}

// CanBlock reports whether this call may block: only a client's command
// run on its own (a connection's, the Go API's). Inside MULTI/EXEC or a
// script, blocking commands answer at once, as in Redis.
func (c *Call) CanBlock() bool { return c.canBlock }

// Block parks the command until one of keys (in the current database)
// holds a value of type want, or timeout passes (0: forever), when
// onTimeout is the reply. The handler must return without a reply; the
// caller finds the request in Session.Blocked.
func (c *Call) Block(keys [][]byte, want Type, timeout time.Duration, onTimeout Reply) {
	b := c.parked(timeout, onTimeout)
	b.want = want
	for _, k := range keys {
		b.keys = append(b.keys, dbKey{c.Tx.DB, string(k)})
	}
	c.E.blocks.add(b)
}

// BlockUntil is Block with a readiness test of its own: the command runs
// again, with args (c.served set), when ready reports true for a key.
func (c *Call) BlockUntil(keys, args [][]byte, timeout time.Duration, onTimeout Reply, ready func(tx *Tx, key []byte, signaled bool) bool) {
	b := c.parked(timeout, onTimeout)
	b.want, b.args, b.readyFn = TypeStream, args, ready
	for _, k := range keys {
		b.keys = append(b.keys, dbKey{c.Tx.DB, string(k)})
	}
	c.E.blocks.add(b)
}

// parked makes the Blocked of this call and hands it to its session; the
// caller registers it where it waits.
func (c *Call) parked(timeout time.Duration, onTimeout Reply) *Blocked {
	b := &Blocked{e: c.E, sess: c.S, db: c.Tx.DB, cmd: c.Cmd, args: c.Args, ready: make(chan struct{}),
		TimeoutReply: onTimeout, alive: c.S.Alive}
	if timeout > 0 {
		b.Deadline = c.E.Clock.Now().Add(timeout)
	}
	c.S.Blocked = b
	c.S.blocked.Store(b)
	return b
}

func (r *blockRegistry) add(b *Blocked) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byKey == nil {
		r.byKey = make(map[dbKey][]*Blocked)
	}
	for _, k := range b.keys {
		r.byKey[k] = append(r.byKey[k], b)
	}
	b.registered = true
	r.count++
	r.e.listening.Add(1)
}

func (r *blockRegistry) remove(b *Blocked) {
	r.mu.Lock()
	defer r.mu.Unlock()
	found := false
	for _, k := range b.keys {
		list := r.byKey[k]
		for i, w := range list {
			if w == b {
				list = append(list[:i:i], list[i+1:]...)
				found = true
				break
			}
		}
		if len(list) == 0 {
			delete(r.byKey, k)
		} else {
			r.byKey[k] = list
		}
	}
	if found {
		r.count--
		r.e.listening.Add(-1)
	}
}

// waitsOn reports whether a client is blocked on k (batch.go).
func (r *blockRegistry) waitsOn(k dbKey) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.byKey[k]) > 0
}

// Waiting is the number of clients blocked on lists, sorted sets and
// streams.
func (r *blockRegistry) Waiting() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.count
}

// keyTouched serves the waiters of a changed key while it has data. It
// runs under the engine lock inside the changing transaction; serving a
// waiter changes keys too, which comes back here and serves the next.
// The change is one Redis reports as a modification: stream waiters take
// it as a signal (a key added, deleted or overwritten, XADD...).
func (r *blockRegistry) keyTouched(tx *Tx, k dbKey) {
	r.signal(k)
	r.serve(tx, k)
}

// serve serves the waiters of key k that it can serve now, first come
// first served; a quiet change (Tx.quiet) comes here without a signal.
func (r *blockRegistry) serve(tx *Tx, k dbKey) {
	for {
		// The first waiter the key can serve goes first. List and sorted
		// set waiters are ready alike, so this is the head of the queue
		// for them; stream readers each wait after their own ID.
		r.mu.Lock()
		list := append([]*Blocked(nil), r.byKey[k]...)
		r.mu.Unlock()
		var b *Blocked
		for _, w := range list {
			if r.ready(tx, k, w) {
				b = w
				break
			}
		}
		if b == nil {
			r.clearSignals(k)
			return
		}
		b.mu.Lock()
		if b.state != blockWaiting {
			b.mu.Unlock()
			r.remove(b)
			continue
		}
		if !b.isAlive() {
			// The client left before the data came: it goes to the next.
			b.endLocked(Reply{}, false)
			b.mu.Unlock()
			b.finish(tx, endAbort, true)
			continue
		}
		// The waiter's goroutine is parked, so its session is safe to
		// use here.
		tx.e.serveBlocked(tx, b.sess, b.db, b.cmd, b.args, []byte(k.key), &b.rec)
		b.state = blockServed
		b.mu.Unlock()
		r.remove(b)
		close(b.ready)
	}
}

// ready reports whether the key can serve b's command now: it holds a
// value of the type b waits for; a stream waiter's own test decides for
// it.
func (r *blockRegistry) ready(tx *Tx, k dbKey, b *Blocked) bool {
	if b.readyFn != nil {
		r.mu.Lock()
		sig := b.signaled[k.key]
		r.mu.Unlock()
		saved := tx.DB
		tx.DB = k.db
		ok := b.readyFn(tx, []byte(k.key), sig)
		tx.DB = saved
		return ok
	}
	v, ok := tx.GetIn(k.db, []byte(k.key))
	return ok && v.Type == b.want
}

// SignalReady tells the stream waiters of key (in the current database)
// that a command signaled it, as Redis's signalKeyAsReady: unlike a list
// waiter, a stream waiter is checked only for keys so signaled, not after
// every change (XSETID, XGROUP SETID serve nobody). Any change Redis
// reports as a modification signals (keyTouched); a quiet write that
// Redis signals (XGROUP DESTROY) calls this.
func (tx *Tx) SignalReady(key []byte) {
	if tx.e.listening.Load() == 0 {
		return
	}
	tx.e.blocks.signal(dbKey{tx.DB, string(key)})
}

func (r *blockRegistry) signal(k dbKey) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, b := range r.byKey[k] {
		if b.readyFn != nil {
			if b.signaled == nil {
				b.signaled = make(map[string]bool)
			}
			b.signaled[k.key] = true
		}
	}
}

// clearSignals forgets the signals of key once its waiters are checked.
func (r *blockRegistry) clearSignals(k dbKey) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, b := range r.byKey[k] {
		delete(b.signaled, k.key)
	}
}

// dbFlushed reports the keys of stream waiters as changed, so that their
// XREADGROUP learns that its stream is gone (Redis's
// scanDatabaseForDeletedStreams); a list waiter has nothing to gain from
// a flush.
func (r *blockRegistry) dbFlushed(tx *Tx, db int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k, list := range r.byKey {
		if (db < 0 || k.db == db) && len(list) > 0 && list[0].want == TypeStream {
			tx.touch(k.db, k.key)
		}
	}
}

// serveBlocked runs the command of a blocked client inside the transaction
// that gave its key data, in the database it blocked in. Its call was
// counted when it blocked, as Redis counts a blocked command once, when it
// is served.
func (e *Engine) serveBlocked(tx *Tx, s *Session, db int, cmd *Command, args [][]byte, key []byte, w Writer) {
	tx.DB = db
	c := tx.pushCall()
	*c = Call{E: e, S: s, W: w, Args: args, Cmd: cmd, Tx: tx, served: key}
	// The restart fence holds for a served waiter too: a lock handed over
	// (LOCK.ACQUIRE WAIT) or a BLMOVE destination would create a key the
	// fence must refuse; the waiter gets the fence's TRYAGAIN instead.
	if !e.fenceRefuses(tx, cmd, args, w) {
		cmd.Handler(c)
	}
	tx.popCall()
}
