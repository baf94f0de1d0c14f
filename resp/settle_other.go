//go:build !unix

package resp

// inputReady cannot look into the socket here: the reader reads at once,
// and a PUBLISH waits only for the commands a subscriber's reader already
// has (settle.go).
func inputReady(fd uintptr) bool { return true }
