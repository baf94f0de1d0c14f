package engine

import (
	"sync/atomic"
	"time"
)

// lockMode is what a request asks for on each of its keys.
type lockMode uint8

const (
	modeExclusive lockMode = iota
	modeShared
	modePermits
)

func (m lockMode) String() string {
	switch m {
	case modeShared:
		return "shared"
	case modePermits:
		return "permits"
	}
	return "exclusive"
}

// lockRequest is a parsed LOCK.ACQUIRE or LOCK.ACQUIREALL.
type lockRequest struct {
	keys     [][]byte
	owner    string
	ttl      int64
	mode     lockMode
	permits  int64 // modePermits
	wait     bool
	waitMs   int64
	sessID   string // SESSIONID: a named session's id
	connSess bool   // SESSION: the connection's own session
	delayMs  int64  // LOCKDELAY, or the default
	all      bool   // LOCK.ACQUIREALL: the reply is an array
}

// holderKey names one holder of one lock.
type holderKey struct {
	db    int
	key   string
	owner string
}

// grantInfo is what the registry remembers of a grant.
type grantInfo struct {
	token      uint64
	acquiredMs int64
}

// lockTimer runs a write transaction at a key's next deadline.
type lockTimer struct {
	at int64 // unix ms
	t  *time.Timer
}

// lockStats are INFO locks' counters.
type lockStats struct {
	granted         atomic.Int64 // grants, at once or from the queue
	queueGrants     atomic.Int64 // grants to a waiter
	waitTimeouts    atomic.Int64 // waits that ran out of time
	waitAborts      atomic.Int64 // waits ended by a disconnect, a shutdown, CLIENT UNBLOCK
	abandoned       atomic.Int64 // grants undone because the waiter had left
	sessionReleases atomic.Int64 // locks released by the end of their session
	sessionExpiries atomic.Int64 // sessions ended by their TTL
	expiryHandovers atomic.Int64 // grants made by a deadline timer
	waitTime        histogram    // from parking to grant
	lateness        histogram    // from a lock's deadline to the timer's grant
}

// resetStats zeroes the counters (CONFIG RESETSTAT).
func (st *lockStats) reset() {
	for _, v := range []*atomic.Int64{&st.granted, &st.queueGrants, &st.waitTimeouts, &st.waitAborts,
		&st.abandoned, &st.sessionReleases, &st.sessionExpiries, &st.expiryHandovers} {
		v.Store(0)
	}
	st.waitTime.reset()
	st.lateness.reset()
}

// lockSession is the index of one session key.
type lockSession struct {
	id       string
	client   int64 // a connection's session: its client id; 0 for a named one
	ttl      int64
	delay    int64
	expireAt int64
	locks    map[holderKey]sessionLock
}

// sessionLock is one lock of a session.
type sessionLock struct {
	token uint64
	ttl   int64 // the lock's TTL, restored by RENEW
	delay int64
}
