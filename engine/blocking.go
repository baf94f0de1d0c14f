package engine

import (
	"sync"
	"time"
)

// Blocking commands (BLPOP, BRPOP, BLMOVE...). A command that finds nothing
// to pop calls c.Block: it writes no reply, and the connection waits on
// the returned *Blocked. The transaction that later pushes to one of the
// keys serves waiters itself, first come first served, by running each
// waiter's command inside that same transaction (as Redis does right after
// the pushing command). A waiter's state moves once, under its mutex, from
// waiting to served or to cancelled, so an element popped for a client
// that timed out at the same moment is never lost.

type blockState uint8

const (
	blockWaiting blockState = iota
	blockServed
	blockCancelled
)

// Blocked is a command waiting for one of its keys.
type Blocked struct {
	e        *Engine
	sess     *Session
	cmd      *Command
	args     [][]byte
	keys     []dbKey
	want     Type      // the type a key must hold to serve it; typeMissing: no key
	Deadline time.Time // zero: wait forever
	// TimeoutReply is what the client gets if nothing arrives in time.
	TimeoutReply Reply

	// onCancel runs when the wait is given up; onAbandon when the command
	// was served but its connection went away before the reply could
	// reach it (LOCK.ACQUIRE passes such a grant on, lockqueue.go).
	onCancel, onAbandon func()

	// readyFn, when set, decides instead of want whether a changed key
	// serves the command now (a stream waiter needs entries newer than
	// the ID it waits after, not just a stream). signaled says whether a
	// command signaled the key since the last check (SignalReady).
	readyFn  func(tx *Tx, key []byte, signaled bool) bool
	signaled map[string]bool // under the registry's mu

	mu    sync.Mutex
	state blockState
	rec   Recorder
	ready chan struct{}
}

// typeMissing is the want of a waiter served when its key does not exist
// (LOCK.ACQUIRE ... WAIT): no stored value has type 0.
const typeMissing Type = 0

// Ready is closed when the command has been served.
func (b *Blocked) Ready() <-chan struct{} { return b.ready }

// Reply returns the served command's reply; call it after Ready.
func (b *Blocked) Reply() Reply { return b.rec.Last() }

// Cancel gives up waiting (timeout, disconnect). It returns false if the
// command was served meanwhile: the caller must then deliver Reply.
func (b *Blocked) Cancel() bool {
	b.mu.Lock()
	if b.state != blockWaiting {
		b.mu.Unlock()
		return false
	}
	b.state = blockCancelled
	b.mu.Unlock()
	b.e.blocks.remove(b)
	if b.onCancel != nil {
		b.onCancel()
	}
	return true
}

// Abandon is called by the connection instead of delivering Reply when
// the client left after the command was served (Cancel returned false).
func (b *Blocked) Abandon() {
	if b.onAbandon != nil {
		b.onAbandon()
	}
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

// CanBlock reports whether this call may block: only a command run by a
// client connection on its own. Inside MULTI/EXEC or a script, blocking
// commands answer at once, as in Redis.
func (c *Call) CanBlock() bool { return c.canBlock }

// Block parks the command until one of keys (in the current database)
// holds a value of type want, or timeout passes (0: forever), when
// onTimeout is the reply. The handler must return without a reply; the
// connection finds the request in Session.Blocked.
func (c *Call) Block(keys [][]byte, want Type, timeout time.Duration, onTimeout Reply) {
	c.block(keys, want, timeout, onTimeout)
}

// BlockUntil is Block with a readiness test of its own: the command runs
// again, with args (c.served set), when ready reports true for a key.
func (c *Call) BlockUntil(keys, args [][]byte, timeout time.Duration, onTimeout Reply, ready func(tx *Tx, key []byte, signaled bool) bool) {
	b := c.block(keys, TypeStream, timeout, onTimeout)
	b.args = args
	b.readyFn = ready
}

func (c *Call) block(keys [][]byte, want Type, timeout time.Duration, onTimeout Reply) *Blocked {
	b := &Blocked{e: c.E, sess: c.S, cmd: c.Cmd, args: c.Args, want: want, ready: make(chan struct{}), TimeoutReply: onTimeout}
	if timeout > 0 {
		b.Deadline = c.E.Clock.Now().Add(timeout)
	}
	for _, k := range keys {
		b.keys = append(b.keys, dbKey{c.Tx.DB, string(k)})
	}
	c.E.blocks.add(b)
	c.S.Blocked = b
	return b
}

// blockRegistry holds the waiters per key, in arrival order.
type blockRegistry struct {
	e     *Engine
	mu    sync.Mutex
	byKey map[dbKey][]*Blocked
	count int
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
	r.count++
	r.e.listening.Add(1)
}

func (r *blockRegistry) remove(b *Blocked) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.removeLocked(b)
}

func (r *blockRegistry) removeLocked(b *Blocked) {
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

// Waiting is the number of blocked clients (INFO blocked_clients).
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
		// The first waiter the key can serve goes first. Waiters of one
		// kind (list pops, locks) are ready alike, so this is the head of
		// the queue for them; stream readers each wait after their own ID.
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
		// The waiter's goroutine is parked, so its session (still on the
		// database it blocked in) is safe to use here.
		tx.e.serveBlocked(tx, b.sess, b.cmd, b.args, []byte(k.key), &b.rec)
		b.state = blockServed
		b.mu.Unlock()
		r.remove(b)
		close(b.ready)
	}
}

// ready reports whether the key can serve b's command now: it holds a
// value of the type b waits for, or, for a lock waiter, it is gone; a
// stream waiter's own test decides for it.
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
	if b.want == typeMissing {
		return !ok
	}
	if !ok {
		return false
	}
	return v.Type == b.want
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

// dbFlushed reports the keys lock waiters wait for as changed, so that
// the flush that empties them hands each to its first waiter, and the
// keys of stream waiters, whose XREADGROUP learns that its stream is
// gone (Redis's scanDatabaseForDeletedStreams); a list waiter has
// nothing to gain from a flush.
func (r *blockRegistry) dbFlushed(tx *Tx, db int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k, list := range r.byKey {
		if (db < 0 || k.db == db) && len(list) > 0 && (list[0].want == typeMissing || list[0].want == TypeStream) {
			tx.touch(k.db, k.key)
		}
	}
}

// lockWaiters counts the clients waiting for key k to be missing.
func (r *blockRegistry) lockWaiters(k dbKey) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, b := range r.byKey[k] {
		if b.want == typeMissing {
			n++
		}
	}
	return n
}
