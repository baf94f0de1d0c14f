package keyspace

import (
	"sync"
	"sync/atomic"
)

// Fencing tokens. Every creation of a key that did not exist (SET NX, a lock
// script's HINCRBY on a missing hash, LOCK.ACQUIRE, RENAME onto a free
// name, anything) takes the next value of a server-wide counter, kept with
// the key in its value header; a key that is changed keeps its token. So a
// holder can read the token of the lock it holds (LOCK.TOKEN) and a
// resource can refuse a request whose token is older than one it has seen
// (Kleppmann's fencing), or ask the server (LOCK.CHECK, Chubby's
// CheckSequencer).
//
// Tokens only grow, also across restarts and crashes: with a state file
// (Dir), ranges of tokens are reserved in it, written and fsynced before any
// token of a range is handed out, and a start resumes after the last
// reserved range (and after the largest token a loaded key holds).

// tokenRange is how many tokens one write of the state file reserves. A
// crash skips what was left of it: tokens must grow, not be dense.
const tokenRange = 1 << 20

// tokenCounter hands out tokens. next is read and moved only inside write
// transactions, which buntdb runs one at a time; mu orders reservations
// against Close.
type tokenCounter struct {
	next uint64 // the next token to hand out
	// For Stats: the last token handed out (next-1, readable outside
	// transactions), and the last one before this engine started.
	issued  atomic.Uint64
	first   uint64
	limit   uint64 // tokens below limit are reserved on disk
	mu      sync.Mutex
	reserve func(limit uint64) error // records limit durably; nil: no state file
}

// start sets the first token after the reserved ones and after the largest
// token of the loaded keys.
func (tc *tokenCounter) start(reserved, loaded uint64) {
	tc.next = max(reserved, loaded) + 1
	tc.first = tc.next - 1
	tc.issued.Store(tc.first)
	tc.limit = tc.next
	if tc.reserve == nil {
		tc.limit = ^uint64(0)
	}
}

// low reports whether less than half a range is left: the next command
// that may create keys reserves the next range first (ensureReserved).
func (tc *tokenCounter) low() bool { return tc.limit-tc.next < tokenRange/2 }

// ensureReserved reserves the next range when it runs low. It is called
// before a command that may create keys runs, so that a failing disk is
// reported to that command instead of weakening the guarantee.
func (tc *tokenCounter) ensureReserved() error {
	if !tc.low() {
		return nil
	}
	tc.mu.Lock()
	defer tc.mu.Unlock()
	if !tc.low() {
		return nil
	}
	limit := tc.next + tokenRange
	if err := tc.reserve(limit); err != nil {
		return err
	}
	tc.limit = limit
	return nil
}

// take hands out the next token. One transaction creating more keys than
// half a range holds reserves here, inside it.
func (tc *tokenCounter) take(logf func(level, format string, args ...any)) uint64 {
	if tc.next >= tc.limit {
		if err := tc.ensureReserved(); err != nil {
			// Handing out an unreserved token is the lesser evil than
			// failing a transaction half way; the log says so.
			logf("warning", "Fencing tokens: could not reserve a range (%v); tokens may repeat after a crash", err)
			tc.limit = tc.next + 1
		}
	}
	t := tc.next
	tc.next++
	tc.issued.Store(t)
	return t
}

// raise moves the counter up to next (never down): a follower continues
// strictly above every token its leader handed out. Under the write lock.
func (tc *tokenCounter) raise(next uint64) {
	if next > tc.next {
		tc.next = next
	}
}
