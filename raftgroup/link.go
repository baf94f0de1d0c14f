package raftgroup

import (
	"net"
)

// A link carries one connection a node opened to another node's client
// port (a follower's forwarded client, its reports to the leader). A
// partition or a pause stalls it as a real network cut would: bytes, and
// a close, cross only while the two nodes reach each other; what was sent
// during the cut arrives when it heals. Refusing only new connections
// would let a cut-off follower's existing ones go on talking to the
// leader, which no partition of real hosts allows.
//
// The node gets one end of a net.Pipe (deadlines work as on a socket);
// two goroutines pump between the other end and the TCP connection,
// each waiting for the link before it passes anything on.
func (g *Group) link(tcp net.Conn, from, to *Member) net.Conn {
	mine, theirs := net.Pipe()
	go g.pump(tcp, theirs, from, to)
	go g.pump(theirs, tcp, from, to)
	return mine
}

// pump copies src to dst while the link is up; when src ends, it closes
// both once the link is up (or the group closed).
func (g *Group) pump(dst, src net.Conn, from, to *Member) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if !g.waitLinked(from, to) {
				break
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				break
			}
		}
		if err != nil {
			break
		}
	}
	g.waitLinked(from, to)
	dst.Close()
	src.Close()
}

// waitLinked waits until from and to reach each other; false when the
// group closed first.
func (g *Group) waitLinked(from, to *Member) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	for !g.closed && (g.cut[from.ID][to.ID] || g.cut[to.ID][from.ID] || from.paused || to.paused) {
		g.changed.Wait()
	}
	return !g.closed
}
