//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package resp

import (
	"sync"
	"syscall"
)

// peerProbe tells whether the peer of one socket has closed its end (or
// reset it), without reading: a non-blocking MSG_PEEK that finds the end
// of the stream. Bytes still unread before the end hide it (the blocked
// command's connection reads ahead meanwhile, awaitBlocked). Control does
// not wait for a Read under way in another goroutine. It is the session's
// Alive probe, asked once per lock grant or served BLPOP: the function
// handed to Control and its buffer are made once per connection, so a
// probe allocates nothing; mu orders probes of one socket.
type peerProbe struct {
	mu     sync.Mutex
	raw    syscall.RawConn
	closed bool
	buf    [1]byte
	look   func(fd uintptr)
}

func newPeerProbe(raw syscall.RawConn) *peerProbe {
	p := &peerProbe{raw: raw}
	p.look = p.peek
	return p
}

// alive reports false once the peer has closed its end.
func (p *peerProbe) alive() bool {
	if p.raw == nil {
		return true
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = false
	err := p.raw.Control(p.look)
	return !p.closed && err == nil
}

func (p *peerProbe) peek(fd uintptr) {
	n, _, err := syscall.Recvfrom(int(fd), p.buf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
	switch {
	case err == nil:
		p.closed = n == 0
	case err == syscall.EAGAIN || err == syscall.EWOULDBLOCK || err == syscall.EINTR:
	default:
		p.closed = true // ECONNRESET and the like
	}
}
