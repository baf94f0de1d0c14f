package keyspace

import (
	"sync"
	"time"
)

// Clock is the keyspace's time. A real clock reads the wall time once at
// start and then advances by the monotonic clock, so stepping the system
// clock neither expires a lock early nor keeps it late. An offset, moved by
// FastForward, is added on top. A manual clock moves only when told to.
type Clock struct {
	mu        sync.Mutex
	manual    bool
	startWall time.Time // wall reading at start, monotonic part stripped
	startMono time.Time // carries the monotonic reading
	offset    time.Duration
	manualNow time.Time
}

// NewClock returns a clock that follows real time.
func NewClock() *Clock {
	now := time.Now()
	return &Clock{startWall: now.Round(0), startMono: now}
}

// NewManualClock returns a clock frozen at start until moved by
// FastForward or SetTime.
func NewManualClock(start time.Time) *Clock {
	if start.IsZero() {
		start = time.Now()
	}
	return &Clock{manual: true, manualNow: start.Round(0)}
}

// Now is the current time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.manual {
		return c.manualNow
	}
	return c.startWall.Add(time.Since(c.startMono) + c.offset)
}

// NowMs is Now in unix milliseconds.
func (c *Clock) NowMs() int64 { return c.Now().UnixMilli() }

// FastForward moves the clock forward by d (backward if d is negative).
func (c *Clock) FastForward(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.manual {
		c.manualNow = c.manualNow.Add(d)
		return
	}
	c.offset += d
}

// SetTime makes Now return t (and advance from there if the clock is real).
func (c *Clock) SetTime(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.manual {
		c.manualNow = t.Round(0)
		return
	}
	c.offset = t.Sub(c.startWall.Add(time.Since(c.startMono)))
}

// Manual reports whether the clock only moves when told to.
func (c *Clock) Manual() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.manual
}

// Freeze makes the clock manual at its current time: from now on it moves
// only by SetTime and FastForward. A follower's clock is frozen and set
// from the batches it applies (Store.SetFollower).
func (c *Clock) Freeze() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.manual {
		return
	}
	c.manualNow = c.startWall.Add(time.Since(c.startMono) + c.offset)
	c.manual = true
}

// Resume makes a manual clock follow real time again from where it
// stands, advancing by the monotonic clock, never the wall clock: a
// follower that takes over continues from the last applied batch's time,
// so a lock never expires earlier than its old leader would have expired
// it.
func (c *Clock) Resume() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.manual {
		return
	}
	now := time.Now()
	c.startWall, c.startMono, c.offset = c.manualNow, now, 0
	c.manual = false
}
