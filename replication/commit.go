package replication

import (
	"errors"
	"sync"
	"time"
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
// entry and hands it to raft, without waiting for the previous entry to
// commit: while an entry is being appended and fsynced, the next batch
// grows, so many clients' writes share one append and one fsync. Entries
// commit in order; committed is the seq of the last change known to be
// committed. A reply that depends on seq s waits for committed >= s.
type committer struct {
	n *Node

	mu        sync.Mutex
	cond      *sync.Cond
	term      uint64   // the term the queued changes belong to
	queue     [][]byte // encoded change batches not yet in an entry
	captured  uint64   // Seq of the last batch captured (engine.ChangeBatch.Seq)
	committed uint64   // Seq of the last batch known to be committed
	failed    error    // set when entries of term may never commit
	wake      chan struct{}
	lastEntry time.Time // when the last entry was made (ticks fill gaps)
}

func newCommitter(n *Node) *committer {
	c := &committer{n: n, wake: make(chan struct{}, 1)}
	c.cond = sync.NewCond(&c.mu)
	return c
}

// reset starts a new leadership term: nothing is queued or pending.
// seq is the engine's last Seq: everything up to it is in the log.
func (c *committer) reset(term, seq uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.term, c.queue, c.failed = term, nil, nil
	c.captured, c.committed = seq, seq
	c.cond.Broadcast()
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
func (c *committer) wait(seq uint64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.committed < seq && c.failed == nil {
		c.cond.Wait()
	}
	if c.committed >= seq {
		return nil
	}
	return c.failed
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
	c.cond.Broadcast()
	return uncommitted
}

// run makes entries of what is queued, until the node stops. While the
// node leads and nothing was written for a while, it makes a tick entry
// so that the replicated clock a new leader continues from stays recent.
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
		c.flush()
	}
}

// tickEvery bounds how stale the replicated clock gets while the group
// is idle: a new leader's clock starts at most about this much (plus the
// election) behind the old leader's, so TTLs are extended by at most that.
const tickEvery = time.Second

// flush sends what is queued as one entry and arranges for the waiters to
// learn when it commits.
func (c *committer) flush() {
	r := c.n.r.Load()
	if r == nil {
		return
	}
	c.mu.Lock()
	term, queue, upTo, failed := c.term, c.queue, c.captured, c.failed
	if term == 0 || failed != nil || c.n.leading.Load() != term {
		// Not serving yet (a new leader announcing itself): what is
		// queued waits.
		c.mu.Unlock()
		return
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
		return
	}
	c.mu.Lock()
	c.lastEntry = time.Now()
	c.mu.Unlock()
	f := r.Apply(data, 0)
	if len(queue) == 0 {
		return
	}
	// Waiting for the future in a goroutine of its own lets the next
	// batch go out now; raft resolves futures in log order, and the
	// committed mark only moves forward.
	go func() {
		err := f.Error()
		c.mu.Lock()
		defer c.mu.Unlock()
		if err != nil {
			if c.failed == nil && c.term == term {
				c.failed = errLeadershipLost
			}
		} else if c.term == term && upTo > c.committed {
			c.committed = upTo
		}
		c.cond.Broadcast()
	}()
}

// kick makes run look at the queue now.
func (c *committer) kick() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}
