package resp

import (
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// A subscribed connection is a pubsub.Settler: a PUBLISH from another
// client waits until the commands this client sent before it have run
// (pubsub/settle.go says why). The connection is settled when its reader
// waits for the socket, which it does only once every command it was
// given has run, and the socket holds no input: no bytes, nor the end of
// the stream (a client that closed its connection is gone for a PUBLISH
// sent after, as in Redis). Or once the reader has ended.
//
// The reader must not take bytes from the socket while it counts as
// waiting, or a PUBLISH could find the socket empty and the reader
// waiting while the bytes it just took have not run: once subscribed, it
// first waits for input without taking it, stops counting as waiting,
// then reads.

// settleConn is an accepted socket as the guard reads it (under TLS, the
// encrypted stream).
type settleConn struct {
	net.Conn
	raw syscall.RawConn

	on      atomic.Bool // the connection subscribed: reads wait first
	waiting atomic.Bool // the reader waits for input (see Read)
	gone    atomic.Bool // the connection's reader has ended
	waiters atomic.Int32
	mu      sync.Mutex
	idle    chan struct{} // closed (and replaced) when the reader next waits or ends
}

// newSettleConn wraps c if it has a file descriptor to look into; else it
// returns nil and the connection is always settled as far as PUBLISH can
// tell.
func newSettleConn(c net.Conn) *settleConn {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return nil
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	return &settleConn{Conn: c, raw: raw}
}

// Read, once the connection subscribed, waits until the socket has input
// before taking any (Settled counts the reader as waiting meanwhile).
func (c *settleConn) Read(p []byte) (int, error) {
	if c.on.Load() {
		c.waiting.Store(true)
		c.wake()
		// An error here (a deadline, a close) is the read's error too.
		c.raw.Read(func(fd uintptr) bool { return inputReady(fd) })
		c.waiting.Store(false)
	}
	return c.Conn.Read(p)
}

// Settled implements pubsub.Settler. The socket is looked at before the
// reader's state: the reader stops waiting before it takes input, so
// input found gone with the reader still waiting was never taken.
func (c *settleConn) Settled() bool {
	if c.gone.Load() {
		return true
	}
	ready := false
	c.raw.Control(func(fd uintptr) { ready = inputReady(fd) })
	return !ready && c.waiting.Load()
}

// WaitSettled implements pubsub.Settler.
func (c *settleConn) WaitSettled(deadline time.Time) {
	c.waiters.Add(1)
	defer c.waiters.Add(-1)
	var timer *time.Timer
	for {
		c.mu.Lock()
		if c.idle == nil {
			c.idle = make(chan struct{})
		}
		idle := c.idle
		c.mu.Unlock()
		if c.Settled() {
			return
		}
		if timer == nil {
			timer = time.NewTimer(time.Until(deadline))
			defer timer.Stop()
		}
		select {
		case <-idle:
		case <-timer.C:
			return
		}
	}
}

// readerGone marks the end of the connection's reader.
func (c *settleConn) readerGone() {
	c.gone.Store(true)
	c.wake()
}

// wake wakes the PUBLISHes waiting in WaitSettled, to look again.
func (c *settleConn) wake() {
	if c.waiters.Load() == 0 {
		return
	}
	c.mu.Lock()
	if c.idle != nil {
		close(c.idle)
		c.idle = nil
	}
	c.mu.Unlock()
}
