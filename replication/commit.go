package replication

import (
	"errors"
	"sync"
	"time"

	"github.com/hashicorp/raft"
)

var (
	errLeadershipLost = errors.New("TRYAGAIN leadership changed before the write was committed; the write may or may not have taken effect")
	errShutdown       = errors.New("TRYAGAIN this node is shutting down")
	errNotLeader      = errors.New("TRYAGAIN this node is not the group's leader")
)

// committer turns a leader's committed write transactions into Raft
// entries and tells who waits when they are committed.
//
// The engine reports each write transaction's changes in commit order
// (capture, under the engine's write lock); they queue here, numbered by
// seq. One goroutine (run) takes everything queued so far, makes it one
// entry and hands it to raft once the entry before it has committed:
// while an entry is being appended, replicated and fsynced, the next
// batch grows, so many clients' writes share one entry, one append and
// one fsync on each node. Entries commit in order;
// committed is the seq of the last change known to be committed. A reply
// that depends on seq s waits for committed >= s.
type committer struct {
	n *Node

	mu        sync.Mutex
	term      uint64   // the term the queued changes belong to
	queue     [][]byte // encoded change batches not yet in an entry
	captured  uint64   // Seq of the last batch captured (engine.ChangeBatch.Seq)
	committed uint64   // Seq of the last batch known to be committed
	failed    error    // set when entries of term may never commit
	wake      chan struct{}
	lastEntry time.Time // when the last entry was made (ticks fill gaps)
	// waiters wait for a Seq to commit, each told its outcome once.
	waiters []waiter
}

// waiter is a reply waiting for the change seq to commit; done gets nil
// when it has, or the error that ended the term.
type waiter struct {
	seq  uint64
	done chan error
}

func newCommitter(n *Node) *committer {
	return &committer{n: n, wake: make(chan struct{}, 1)}
}

// reset starts a new leadership term: nothing is queued or pending.
// seq is the engine's last Seq: everything up to it is in the log.
func (c *committer) reset(term, seq uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.term, c.queue, c.failed = term, nil, nil
	c.captured, c.committed = seq, seq
	// fail told every waiter of the previous term already.
	c.release(errLeadershipLost)
}

// capture queues one committed write transaction's encoded changes, Seq
// seq. Called in commit order.
func (c *committer) capture(seq uint64, changes []byte) {
	c.mu.Lock()
	c.captured = seq
	c.queue = append(c.queue, changes)
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// wait blocks until the change seq is committed, or fails.
//
// Each waiter is woken once, by the commit that covers it (or the end of
// the term), and is handed its outcome: not every waiter at every
// commit, which at 50 clients and one entry per write or two cost more
// CPU than the writes themselves.
func (c *committer) wait(seq uint64) error { return <-c.register(seq) }

// register is wait's first half: the channel that gets seq's outcome
// (at once when it is known already).
func (c *committer) register(seq uint64) <-chan error {
	done := make(chan error, 1)
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.committed >= seq:
		done <- nil
	case c.failed != nil:
		done <- c.failed
	default:
		c.waiters = append(c.waiters, waiter{seq: seq, done: done})
	}
	return done
}

// advance records that everything up to seq is committed and wakes its
// waiters. Called with mu held.
func (c *committer) advance(seq uint64) {
	if seq <= c.committed {
		return
	}
	c.committed = seq
	kept := c.waiters[:0]
	for _, w := range c.waiters {
		if w.seq <= seq {
			w.done <- nil
		} else {
			kept = append(kept, w)
		}
	}
	clear(c.waiters[len(kept):])
	c.waiters = kept
}

// release hands err to every waiter. Called with mu held.
func (c *committer) release(err error) {
	for _, w := range c.waiters {
		w.done <- err
	}
	clear(c.waiters)
	c.waiters = c.waiters[:0]
}

// fail ends the term: every waiter gets err. It reports whether changes
// were captured that are not known to be committed (the engine then holds
// state the group may not have).
// engineSeq is the engine's last Seq: a write that ran as the engine
// switched to follower mode was not captured but is in the engine.
func (c *committer) fail(err error, engineSeq uint64) (uncommitted bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	uncommitted = c.committed < max(c.captured, engineSeq)
	if c.failed == nil {
		c.failed = err
	}
	c.queue = nil
	c.release(c.failed)
	return uncommitted
}

// run makes entries of what is queued, until the node stops. While the
// node leads and nothing was written for a while, it makes a tick entry
// so that the replicated clock a new leader continues from stays recent.
//
// One change entry is in raft at a time: run waits for its commit, then
// at once makes the next one of everything queued meanwhile. Raft would
// take more (its leader stores all pending entries in one bbolt commit),
// but every entry costs its encoding, a bbolt put, an apply on every node
// and goroutine hand-offs, and the group is bound by CPU before its disk
// (three processes each fsyncing and switching per commit). Measured
// with 50 clients alternating with a standalone node on the 2 shared
// cores: without a bound one entry per 1.2 writes; with 1, 2 or 3 in
// flight 15, 10 and 8 writes per entry, and 1 was the fastest and used
// the least CPU, 15% less than no bound (docs/replication.md#figures).
// Waiting here rather than in a goroutine per entry saves a hand-off
// between a commit and the next entry.
func (c *committer) run() {
	defer c.n.wg.Done()
	tick := time.NewTicker(tickEvery / 2)
	defer tick.Stop()
	for {
		select {
		case <-c.n.stop:
			return
		case <-c.wake:
		case <-tick.C:
		}
		for {
			f, term, upTo := c.flush()
			if f == nil {
				break
			}
			// Raft resolves the future when the entry is committed and
			// applied, or fails it when leadership is lost or raft
			// shuts down.
			c.resolved(term, upTo, f.Error())
			select {
			case <-c.n.stop:
				return
			default:
			}
		}
	}
}

// tickEvery bounds how stale the replicated clock gets while the group
// is idle: a new leader's clock starts at most about this much (plus the
// election) behind the old leader's, so TTLs are extended by at most that.
const tickEvery = time.Second

// flush sends what is queued as one entry. When the entry carries
// changes it returns its future, the term and the Seq of its last change.
func (c *committer) flush() (f raft.ApplyFuture, term, upTo uint64) {
	r := c.n.r.Load()
	if r == nil {
		return nil, 0, 0
	}
	c.mu.Lock()
	term, queue, upTo, failed := c.term, c.queue, c.captured, c.failed
	if term == 0 || failed != nil || c.n.leading.Load() != term {
		// Not serving yet (a new leader announcing itself): what is
		// queued waits.
		c.mu.Unlock()
		return nil, 0, 0
	}
	c.queue = nil
	idle := time.Since(c.lastEntry) >= tickEvery
	c.mu.Unlock()
	var data []byte
	switch {
	case len(queue) > 0:
		data = c.n.makeEntry(kindChanges, term, encodeBatch(queue))
	case idle:
		data = c.n.makeEntry(kindTick, term, nil)
	default:
		return nil, 0, 0
	}
	c.mu.Lock()
	c.lastEntry = time.Now()
	c.mu.Unlock()
	f = r.Apply(data, 0)
	if len(queue) == 0 {
		return nil, 0, 0
	}
	return f, term, upTo
}

// resolved records the outcome of an entry of term that carried the
// changes up to upTo: committed, or failed (then nothing after the last
// commit of the term is known to be, and every waiter fails).
func (c *committer) resolved(term, upTo uint64, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.term != term {
		return
	}
	switch {
	case err != nil:
		if c.failed == nil {
			c.failed = errLeadershipLost
		}
		c.release(c.failed)
	case c.failed == nil:
		c.advance(upTo)
	}
}

// kick makes run look at the queue now.
func (c *committer) kick() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}
