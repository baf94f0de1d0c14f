//go:build unix

package resp

import "syscall"

// inputReady reports whether a read of the socket fd would not wait: it
// holds bytes, or the end of the stream, or an error.
func inputReady(fd uintptr) bool {
	var b [1]byte
	_, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
	return err != syscall.EAGAIN && err != syscall.EWOULDBLOCK
}
