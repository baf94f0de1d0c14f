package resp

import (
	"net"
	"sync/atomic"
	"syscall"
	"unsafe"

	"github.com/lockredis/lockredis/engine"
)

// CLIENT LIST's buffer figures of a connection (engine.ConnStats). The
// connection's goroutine publishes them in atomics as it reads and runs
// commands, since another client's CLIENT LIST reads them at any time.
//
// qbuf is Redis's sdslen(querybuf) while a command runs: what was read
// from the socket and is not yet consumed, the running command included.
// The guard (guard.go) knows where each command ends in the stream; a
// command is consumed when it finished running. Unlike Redis, which trims
// its query buffer once per read, the commands of a pipeline that already
// ran do not count.
type inputStats struct {
	read atomic.Int64 // stream bytes read from the socket
	done atomic.Int64 // stream offset where the last finished command ended
	free atomic.Int64 // room left in the guard's buffer (qbuf-free)
	// ends[head:] are the stream offsets where the commands handed to
	// redcon and not yet finished end, oldest first (connection goroutine
	// only). A head index instead of reslicing keeps the slice's start, so
	// the next command appends into the same array instead of a new one.
	ends []int64
	head int
}

// commandParsed records the end of a command the guard hands on.
func (in *inputStats) commandParsed(end int64) {
	if len(in.ends) == cap(in.ends) && in.head > 0 {
		// A pipeline that never drains: move the pending ends down
		// rather than grow the array for ever.
		n := copy(in.ends, in.ends[in.head:])
		in.ends, in.head = in.ends[:n], 0
	}
	in.ends = append(in.ends, end)
}

// maxKeptEnds is the capacity of ends kept once a pipeline drains: a long
// pipeline's larger array is let go.
const maxKeptEnds = 1024

// commandFinished marks the oldest parsed command as run.
func (in *inputStats) commandFinished() {
	if in.head == len(in.ends) {
		return
	}
	in.done.Store(in.ends[in.head])
	in.head++
	if in.head == len(in.ends) {
		in.head = 0
		if cap(in.ends) > maxKeptEnds {
			in.ends = nil
		} else {
			in.ends = in.ends[:0]
		}
	}
}

// replyStats are the reply side: the encoder's buffer and its peak.
type replyStats struct {
	bufSize atomic.Int64 // rbs
	peak    atomic.Int64 // rbp
	// argvMem and argc: the running (or blocked) command's arguments.
	argvMem atomic.Int64
	argc    atomic.Int32
}

// connMem is what one connection's own structures take (tot-mem's part
// that Redis counts as zmalloc_size(client)).
const connMem = int64(unsafe.Sizeof(client{}) + unsafe.Sizeof(guardConn{}) + unsafe.Sizeof(engine.Session{}))

// connFD is the socket's descriptor, -1 when it has none.
func connFD(c net.Conn) int {
	if tc, ok := c.(*tlsConn); ok {
		c = tc.Conn.NetConn()
	}
	if st, ok := c.(*settleConn); ok {
		c = st.Conn // settle.go's wrapper hides the socket's SyscallConn
	}
	sc, ok := c.(syscall.Conn)
	if !ok {
		return -1
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return -1
	}
	fd := -1
	if rc.Control(func(f uintptr) { fd = int(f) }) != nil {
		return -1
	}
	return fd
}

// connStats is the engine.ConnStats of c, for any goroutine.
func (c *client) connStats(fd int) engine.ConnStats {
	g := c.gc
	pending := g.obuf.pending.Load()
	return engine.ConnStats{
		FD:           fd,
		QueryBuf:     max(g.in.read.Load()-g.in.done.Load(), 0),
		QueryBufFree: g.in.free.Load(),
		ArgvMem:      c.out.argvMem.Load(),
		ArgvLen:      int(c.out.argc.Load()),
		ReplyBufSize: c.out.bufSize.Load(),
		ReplyBufPeak: c.out.peak.Load(),
		ReplyPending: pending,
		Writing:      pending > 0,
		ConnMem:      connMem,
	}
}

// commandStarts records the arguments of the command about to run.
func (c *client) commandStarts(args [][]byte) {
	n := int64(0)
	for _, a := range args {
		n += int64(len(a))
	}
	c.out.argvMem.Store(n)
	c.out.argc.Store(int32(len(args)))
}

// commandSkipped undoes commandStarts for a command that did not run
// (it runs later, alone: batch.go).
func (c *client) commandSkipped() {
	c.out.argvMem.Store(0)
	c.out.argc.Store(0)
}

// commandEnds records that the command ran and its reply was queued.
func (c *client) commandEnds(replyLen int) {
	c.out.argvMem.Store(0)
	c.out.argc.Store(0)
	c.out.bufSize.Store(int64(max(cap(c.enc.Buf), replyLen)))
	if int64(replyLen) > c.out.peak.Load() {
		c.out.peak.Store(int64(replyLen))
	}
	c.gc.in.commandFinished()
}
