//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package resp

import "syscall"

// peerClosed reports whether the peer of the socket rc has closed its end
// (or reset it), without reading: a non-blocking MSG_PEEK that finds the
// end of the stream. Bytes still unread before the end hide it (the
// blocked command's connection is then watched by watchPeer). Control
// does not wait for a Read under way in another goroutine.
func peerClosed(rc syscall.RawConn) bool {
	if rc == nil {
		return false
	}
	closed := false
	var buf [1]byte
	err := rc.Control(func(fd uintptr) {
		n, _, err := syscall.Recvfrom(int(fd), buf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		switch {
		case err == nil:
			closed = n == 0
		case err == syscall.EAGAIN || err == syscall.EWOULDBLOCK || err == syscall.EINTR:
		default:
			closed = true // ECONNRESET and the like
		}
	})
	return closed || err != nil
}
