package resp

import (
	"crypto/tls"
	"errors"
	"math"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"

	"sync"
	"sync/atomic"
	"time"

	"github.com/lockredis/lockredis/engine"
)

// Limits bound what a client may send, as Redis's protocol limits do.
type Limits struct {
	MaxBulkLen      int64 // proto-max-bulk-len: 512 MB
	MaxMultibulkLen int64 // arguments per command
	MaxInlineLen    int   // inline commands and RESP header lines: 64 KB
	MaxQueryBuffer  int64 // one command: 1 GB (a Server reads client-query-buffer-limit instead)
	UnauthMultibulk int64 // before AUTH: 10 arguments
	UnauthBulkLen   int64 // before AUTH: 16 KB per argument
}

func (l Limits) withDefaults() Limits {
	if l.MaxBulkLen == 0 {
		l.MaxBulkLen = 512 << 20
	}
	if l.MaxMultibulkLen == 0 {
		l.MaxMultibulkLen = 1 << 20
	}
	if l.MaxInlineLen == 0 {
		l.MaxInlineLen = 64 << 10
	}
	if l.MaxQueryBuffer == 0 {
		l.MaxQueryBuffer = 1 << 30
	}
	if l.UnauthMultibulk == 0 {
		l.UnauthMultibulk = 10
	}
	if l.UnauthBulkLen == 0 {
		l.UnauthBulkLen = 16 << 10
	}
	return l
}

// maxQueryBuffer is the most bytes one command may take.
func (g *guardConn) maxQueryBuffer() int64 {
	if g.queryLimit != nil {
		return g.queryLimit()
	}
	return g.limits.MaxQueryBuffer
}

// guardListener wraps accepted connections in guardConn.
type guardListener struct {
	net.Listener
	srv *Server
	tls *tls.Config // a TLS port: connections are decrypted before the guard
}

func (l *guardListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	var raw syscall.RawConn
	if tc, ok := c.(*net.TCPConn); ok {
		setKeepAlive(tc, l.srv.eng.TCPKeepAlive(), l.srv.opts.Logf) // cron.go
		raw, _ = tc.SyscallConn()
	}
	sc := newSettleConn(c) // settle.go
	if sc != nil {
		c = sc
	}
	if l.tls != nil {
		c = newTLSConn(c, l.tls, l.srv.opts.Logf)
	}
	g := newGuardConn(c, l.srv.opts.Limits, &l.srv.eng.Stats, l.srv.opts.Logf)
	g.raw = raw
	g.queryLimit = l.srv.eng.QueryBufferLimit
	g.settle = sc
	return g, nil
}

const (
	// streamChunk is how many bytes of one unfinished command the guard
	// holds before it hands them on, so that a big value streams through
	// instead of being buffered here and again in redcon. Each piece makes
	// redcon parse the command again from its start, which costs little
	// for a big value but is proportional to the arguments so far for a
	// command of many small ones: the guard then holds up to as much as it
	// already handed on, up to maxHold, so that a command of n bytes comes
	// in about log(n/64K) + n/maxHold pieces instead of n/64K.
	streamChunk = 64 << 10
	maxHold     = 1 << 20
	// minBuf is the first buffer size: most connections never need more.
	minBuf = 4 << 10
	// maxInlineOut bounds the frames made from inline commands waiting to
	// be handed out.
	maxInlineOut = 64 << 10
)

// errProtocolClose ends a connection after a protocol violation; redcon
// closes the connection when Read returns it.
var errProtocolClose = errors.New("protocol error: connection closed")

// parseState is where the guard's framing state machine stands.
type parseState uint8

const (
	stCommand  parseState = iota // at a command boundary
	stCount                      // in the "*<count>" line
	stBulkLen                    // in a "$<len>" line
	stBulkData                   // in a bulk's data
	stBulkEnd                    // at the two bytes that follow a bulk's data
	stInline                     // in an inline command line
	stFailed                     // a violation was found; nothing more is parsed
)

// parseResult says why parse stopped.
type parseResult uint8

const (
	needData   parseResult = iota // everything received is parsed
	haveOutput                    // stopped with bytes to hand out first
	failed                        // a violation: g.failMsg says which
)

// lineStatus is the outcome of looking for the end of a line.
type lineStatus uint8

const (
	lineFound   lineStatus = iota
	lineWaiting            // the terminator is there but not the byte after it: wait, never too big
	lineMissing            // no terminator yet (or a NUL hides it, as strchr does in Redis)
)

// guardConn sits between the socket and redcon's parser. redcon reads only
// through Read, which frames the input incrementally the way Redis 7.0's
// processMultibulkBuffer and processInlineBuffer do, enforces Limits, turns
// inline commands into multibulk frames (split as sdssplitargs does), and
// hands redcon whole commands (big ones in a few large pieces), so redcon
// does not parse a partial command again and again and never sees input
// its own parser mishandles (panics, endless loops, unbounded buffers),
// nor the empty commands Redis ignores and redcon refuses. Multibulk frames pass
// through unchanged, except that the two bytes Redis skips without looking
// at (after a header's '\r' and after a bulk's data) are rewritten to
// "\r\n", which redcon insists on.
//
// On a violation, the commands before it are handed out first; when redcon
// asks for more, the error goes straight to the socket and Read fails, so
// redcon flushes the earlier replies, then closes the connection.
type guardConn struct {
	net.Conn
	// raw is the TCP socket under it (under TLS too), for peerProbe.
	raw    syscall.RawConn
	limits Limits
	// queryLimit, when set, is client-query-buffer-limit as CONFIG SET
	// leaves it, read as each command grows (limits.MaxQueryBuffer else).
	queryLimit func() int64
	stats      *engine.Stats
	logf       func(level, format string, args ...any)
	sess       *engine.Session
	needsAuth  func() bool
	// send, once the connection is subscribed, queues bytes behind the
	// replies waiting in its pubsub queue: fail's error goes there.
	send func([]byte)

	// buf[r:rel] is released to redcon; buf[rel:pos] is validated but held
	// until its command ends (or grows big, see release); buf[pos:w] is not
	// parsed yet. base is the stream offset of buf[0].
	buf               []byte
	r, rel, pos, w    int
	base              int64
	out               []byte // frames made from inline commands, handed out before buf[r:rel]
	outR              int
	tokens            []byte // scratch for splitting inline commands
	ends              []int
	state             parseState
	scan              int   // where the search for the current line's end resumes
	stuck             bool  // a NUL byte ended the search: the line never ends
	cmdStart          int64 // stream offset of the current command
	argsLeft, bulkLen int64
	argIndex          int64
	dataStart         int64 // stream offset of the current bulk's data
	reset             bool  // the current command is RESET
	pause             bool  // parse no further until redcon has run what it has
	failMsg           string
	readErr           error // the socket's error, reported once the input before it is handed out
	err               error // the error every Read returns from now on

	// wakeArmed: awaitBlocked waits, and wakeRead may move the read
	// deadline (under wakeMu).
	wakeMu    sync.Mutex
	wakeArmed bool
	wake      func()

	// Sizes, from the constants above; tests make them small.
	firstBuf, minHold, maxHold int

	// lastIO is when the socket last gave or took bytes (unix seconds),
	// Redis's lastinteraction, for the idle timeout (cron.go).
	lastIO atomic.Int64
	// settle, the socket under the connection (nil without a file
	// descriptor), tells a PUBLISH whether the connection has run what
	// its client sent (settle.go).
	settle *settleConn
	// obuf counts replies not yet written (outbuf.go).
	obuf outBuf
	// in is what CLIENT LIST shows of the input (clientstats.go).
	in inputStats
	// work counts the guard's steps: bytes looked at, copied or moved,
	// and parser state changes. Tests check that it grows linearly with
	// the input, however the input is cut into reads (guard_test.go).
	work int64
}

func newGuardConn(c net.Conn, limits Limits, stats *engine.Stats, logf func(level, format string, args ...any)) *guardConn {
	if stats == nil {
		stats = new(engine.Stats)
	}
	if logf == nil {
		logf = func(string, string, ...any) {}
	}
	g := &guardConn{Conn: c, limits: limits.withDefaults(), stats: stats, logf: logf,
		firstBuf: minBuf, minHold: streamChunk, maxHold: maxHold}
	g.lastIO.Store(time.Now().Unix())
	return g
}

// Read hands redcon the next validated bytes, reading the socket only when
// nothing is ready. It blocks only in the socket read, so it returns as
// soon as the peer is gone or the connection is closed.
func (g *guardConn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		if n := g.deliver(p); n > 0 {
			return n, nil
		}
		if g.err != nil {
			return 0, g.err
		}
		// Nothing is left to hand out, so redcon has run every command it
		// was given: the authentication state is current again.
		g.pause = false
		switch g.parse() {
		case haveOutput:
		case failed:
			if !g.hasOutput() {
				g.err = g.fail()
			}
		case needData:
			if g.hasOutput() {
				continue
			}
			if g.readErr != nil {
				g.err = g.readErr
				continue
			}
			g.readErr = g.fill()
		}
	}
}

// Write counts the bytes sent, for INFO.
func (g *guardConn) Write(b []byte) (int, error) {
	n, err := g.Conn.Write(b)
	g.obuf.written(n)
	g.stats.NetOutputBytes.Add(int64(n))
	if n > 0 {
		g.lastIO.Store(time.Now().Unix())
	}
	return n, err
}

func (g *guardConn) hasOutput() bool { return g.outR < len(g.out) || g.r < g.rel }

// deliver copies released bytes into p: inline frames first, then the
// buffer (the parser adds to out only when the buffer has nothing
// released, so this keeps the client's order).
func (g *guardConn) deliver(p []byte) int {
	n := 0
	if g.outR < len(g.out) {
		n = copy(p, g.out[g.outR:])
		g.outR += n
		if g.outR < len(g.out) {
			return n
		}
		g.out, g.outR = g.out[:0], 0
	}
	if g.r < g.rel {
		m := copy(p[n:], g.buf[g.r:g.rel])
		g.r += m
		n += m
	}
	g.work += int64(n)
	return n
}

// fill reads from the socket into the free end of the buffer, first moving
// the held bytes to the front and growing the buffer if it is full. The
// parser holds at most one line (64 KB) or what release allows, so the
// buffer stays at 64 KB plus one read, or twice maxHold while a big
// command passes; it shrinks back between commands.
func (g *guardConn) fill() error {
	if g.r == g.w && g.state == stCommand && len(g.buf) > 2*g.minHold {
		g.shift(g.r)
		g.buf = nil
	}
	if g.buf == nil {
		g.buf = make([]byte, g.firstBuf)
	}
	if g.r > 0 && (g.r == g.w || len(g.buf)-g.w < len(g.buf)/4) {
		g.shift(g.r)
	}
	if g.w == len(g.buf) {
		nb := make([]byte, 2*len(g.buf))
		g.work += int64(copy(nb, g.buf[:g.w]))
		g.buf = nb
	}
	n, err := g.Conn.Read(g.buf[g.w:])
	if n > 0 {
		g.w += n
		g.in.read.Store(g.base + int64(g.w))
		g.in.free.Store(int64(len(g.buf) - g.w))
		g.stats.NetInputBytes.Add(int64(n))
		g.lastIO.Store(time.Now().Unix())
	}
	if err == nil && n == 0 {
		return nil
	}
	return err
}

// shift drops the first d bytes of the buffer, which redcon already has.
func (g *guardConn) shift(d int) {
	if d == 0 {
		return
	}
	g.work += int64(copy(g.buf, g.buf[d:g.w]))
	g.r -= d
	g.rel -= d
	g.pos -= d
	g.scan -= d
	g.w -= d
	g.base += int64(d)
}

// fail ends the connection: the error reply goes straight to the socket,
// after redcon has flushed the replies to the commands before it (on a
// subscribed connection, into its queue after them).
func (g *guardConn) fail() error {
	g.stats.ProtocolErrors.Add(1)
	if g.failMsg == "" {
		// Redis closes such a client without a reply.
		g.logf("warning", "closing client %s that reached max query buffer length", g.RemoteAddr())
		return errProtocolClose
	}
	// Redis's setProtocolError log line, at verbose level as in Redis.
	g.logf("verbose", "Protocol error (%s) from client: addr=%s. Query buffer during protocol error: '%s'",
		strings.TrimPrefix(g.failMsg, "Protocol error: "), g.RemoteAddr(), g.querySample())
	msg := make([]byte, 0, len(g.failMsg)+7)
	msg = append(msg, "-ERR "...)
	msg = append(msg, g.failMsg...)
	msg = append(msg, '\r', '\n')
	if g.send != nil {
		g.send(msg) // after the replies queued before it
	} else {
		g.Write(msg)
	}
	return errProtocolClose
}

// querySample is what is left of the read at a protocol error, at most
// 128 bytes, with unprintable bytes as '.', as Redis logs it.
func (g *guardConn) querySample() string {
	b := []byte(nil)
	if g.pos >= 0 && g.pos <= g.w && g.w <= len(g.buf) {
		b = append(b, g.buf[g.pos:min(g.w, g.pos+128)]...)
	}
	for i, c := range b {
		if c < ' ' || c > '~' {
			b[i] = '.'
		}
	}
	return string(b)
}

// violation stops the parser; fail reports msg ("": close silently) once
// the commands before it are handed out.
func (g *guardConn) violation(msg string) parseResult {
	g.failMsg = msg
	g.state = stFailed
	return failed
}

func (g *guardConn) authRequired() bool { return g.needsAuth != nil && g.needsAuth() }

// parse advances the state machine over buf[pos:w], releasing each
// command as it ends.
func (g *guardConn) parse() parseResult {
	for !g.pause {
		g.work++
		switch g.state {
		case stFailed:
			return failed

		case stCommand:
			if g.pos == g.w {
				return needData
			}
			g.cmdStart = g.base + int64(g.pos)
			g.scan, g.stuck = g.pos, false
			g.argIndex, g.reset = 0, false
			if g.buf[g.pos] == '*' {
				g.state = stCount
			} else {
				g.state = stInline
			}

		case stCount:
			end, st := g.lineEnd('\r')
			if st != lineFound {
				if st == lineMissing && g.w-g.pos > g.limits.MaxInlineLen {
					return g.violation("Protocol error: too big mbulk count string")
				}
				return needData
			}
			n, ok := engine.ParseInt(g.buf[g.pos+1 : end])
			switch {
			case !ok || n > math.MaxInt32:
				return g.violation("Protocol error: invalid multibulk length")
			case n > g.limits.UnauthMultibulk && g.authRequired():
				return g.violation("Protocol error: unauthenticated multibulk length")
			case n > g.limits.MaxMultibulkLen:
				// Redis 7 allows INT_MAX; redcon loops over the count.
				return g.violation("Protocol error: invalid multibulk length")
			}
			g.buf[end+1] = '\n'
			if n <= 0 {
				// Redis ignores empty and negative counts; redcon would
				// fail on them, so they are dropped here, which needs the
				// buffer to have nothing released before them.
				if g.r != g.rel {
					return haveOutput
				}
				g.skipTo(end + 2)
				continue
			}
			g.argsLeft = n
			g.pos, g.scan = end+2, end+2
			g.state = stBulkLen

		case stBulkLen:
			end, st := g.lineEnd('\r')
			if st != lineFound {
				if st == lineMissing && g.w-g.pos > g.limits.MaxInlineLen {
					return g.violation("Protocol error: too big bulk count string")
				}
				return g.release()
			}
			if c := g.buf[g.pos]; c != '$' {
				if c == '\r' || c == '\n' {
					c = ' ' // Redis keeps error lines single
				}
				return g.violation("Protocol error: expected '$', got '" + string([]byte{c}) + "'")
			}
			n, ok := engine.ParseInt(g.buf[g.pos+1 : end])
			switch {
			case !ok || n < 0 || n > g.limits.MaxBulkLen:
				return g.violation("Protocol error: invalid bulk length")
			case n > g.limits.UnauthBulkLen && g.authRequired():
				return g.violation("Protocol error: unauthenticated bulk length")
			}
			g.buf[end+1] = '\n'
			g.bulkLen = n
			g.pos = end + 2
			g.dataStart = g.base + int64(g.pos)
			g.state = stBulkData

		case stBulkData:
			avail := int64(g.w - g.pos)
			if g.argIndex == 0 && g.bulkLen == 5 && g.base+int64(g.pos) == g.dataStart {
				// RESET can make the client unauthenticated again: see
				// the pause in commandDone.
				if avail < 5 {
					return g.release()
				}
				g.reset = engine.EqualFold(g.buf[g.pos:g.pos+5], "reset")
			}
			take := min(avail, g.bulkLen)
			g.pos += int(take)
			g.bulkLen -= take
			if g.base+int64(g.pos)-g.cmdStart > g.maxQueryBuffer() {
				// client-query-buffer-limit: Redis closes without a reply.
				return g.violation("")
			}
			if g.bulkLen > 0 {
				return g.release()
			}
			g.state = stBulkEnd

		case stBulkEnd:
			if g.w-g.pos < 2 {
				return g.release()
			}
			// Redis skips these two bytes without looking at them.
			g.buf[g.pos], g.buf[g.pos+1] = '\r', '\n'
			g.pos += 2
			g.argIndex++
			g.argsLeft--
			if g.argsLeft > 0 {
				g.scan = g.pos
				g.state = stBulkLen
				continue
			}
			g.rel = g.pos
			g.state = stCommand
			g.commandDone()

		case stInline:
			end, st := g.lineEnd('\n')
			if st != lineFound {
				if g.w-g.pos > g.limits.MaxInlineLen {
					return g.violation("Protocol error: too big inline request")
				}
				return needData
			}
			// The frame goes to out, which is handed out before the
			// buffer: nothing may be released in the buffer now.
			if g.r != g.rel || len(g.out) >= maxInlineOut {
				return haveOutput
			}
			line := g.buf[g.pos:end]
			if len(line) > 0 && line[len(line)-1] == '\r' {
				line = line[:len(line)-1]
			}
			var ok bool
			g.work += 2 * int64(len(line)) // split, then framed
			g.tokens, g.ends, ok = engine.AppendSplitArgs(line, g.tokens[:0], g.ends[:0])
			if !ok {
				return g.violation("Protocol error: unbalanced quotes in request")
			}
			g.skipTo(end + 1)
			if len(g.ends) > 0 {
				g.out = appendFrame(g.out, g.tokens, g.ends)
				g.reset = engine.EqualFold(g.tokens[:g.ends[0]], "reset")
				g.commandDone()
			}
		}
	}
	return haveOutput
}

// skipTo drops the input up to i (a dropped or converted command). Only
// valid when nothing is released in the buffer.
func (g *guardConn) skipTo(i int) {
	g.pos, g.r, g.rel = i, i, i
	g.state = stCommand
}

// commandDone runs at the end of each command that redcon will run. Before
// AUTH, and after RESET (which can undo AUTH), the next command's limits
// depend on what this one does, so parsing waits until redcon has run it.
func (g *guardConn) commandDone() {
	g.in.commandParsed(g.base + int64(g.pos))
	if g.reset || g.authRequired() {
		g.pause = true
	}
}

// release hands on the validated part of an unfinished command once it
// holds more than streamChunk bytes, or more than it handed on before (up
// to maxHold), so that big commands stream (see streamChunk).
func (g *guardConn) release() parseResult {
	hold := min(max(g.base+int64(g.rel)-g.cmdStart, int64(g.minHold)), int64(g.maxHold))
	if g.pos > g.rel && int64(g.w-g.rel) > hold {
		g.rel = g.pos
		return haveOutput
	}
	return needData
}

// lineEnd looks for the end of the line that starts at pos, as Redis's
// strchr does: a NUL byte ends the search for good. A '\r' needs one more
// byte after it (Redis skips two bytes without checking the second).
func (g *guardConn) lineEnd(term byte) (int, lineStatus) {
	if !g.stuck {
		for i := g.scan; i < g.w; i++ {
			c := g.buf[i]
			if c == term {
				g.work += int64(i - g.scan + 1)
				g.scan = i
				if term == '\r' && i+1 == g.w {
					return 0, lineWaiting
				}
				return i, lineFound
			}
			if c == 0 {
				g.work += int64(i - g.scan + 1)
				g.stuck = true
				break
			}
		}
		if !g.stuck {
			g.work += int64(g.w - g.scan)
			g.scan = g.w
		}
	}
	return 0, lineMissing
}

// appendFrame appends the multibulk frame for the arguments tokens split
// at ends.
func appendFrame(out, tokens []byte, ends []int) []byte {
	out = append(out, '*')
	out = strconv.AppendInt(out, int64(len(ends)), 10)
	out = append(out, '\r', '\n')
	start := 0
	for _, end := range ends {
		out = append(out, '$')
		out = strconv.AppendInt(out, int64(end-start), 10)
		out = append(out, '\r', '\n')
		out = append(out, tokens[start:end]...)
		out = append(out, '\r', '\n')
		start = end
	}
	return out
}

// isCSpace is C's isspace in the C locale.
// peekLimit bounds what watchPeer reads ahead while a command is blocked.
const peekLimit = 64 << 10

// longAgo is a read deadline that has passed: it wakes a read at once.
var longAgo = time.Unix(1, 0)

// wakeRead is awaitBlocked's wake: it interrupts the read of the waiting
// connection, unless the wait is over.
func (g *guardConn) wakeRead() {
	g.wakeMu.Lock()
	if g.wakeArmed {
		g.Conn.SetReadDeadline(longAgo)
	}
	g.wakeMu.Unlock()
}

// awaitBlocked waits for the end of b, the connection's blocked command
// (BLPOP, LOCK.ACQUIRE ... WAIT...), and returns what Blocked.Await
// returns. It is watchPeer and Await in the connection's own goroutine:
// the goroutine reads ahead into the guard's buffer as watchPeer's does
// (a client that goes away ends the wait), with b's deadline as the read
// deadline, and whoever serves or ends b wakes it by moving the read
// deadline to the past (Blocked.SetWake). So a wait costs no goroutine,
// channel or timer of its own, and a grant wakes one goroutine, not two
// (the lock queue under contention, docs/locks.md). closing is the
// server's: it closes the socket too, which ends the read. Past
// peekLimit of unread input it stops reading and waits as Await does.
func (g *guardConn) awaitBlocked(b *engine.Blocked, closing <-chan struct{}) (engine.Reply, bool) {
	if g.readErr != nil || g.w-g.r >= peekLimit {
		return b.Await(closing, nil)
	}
	deadline := time.Time{}
	if left, ok := b.TimeLeft(); ok {
		deadline = time.Now().Add(left)
	}
	g.Conn.SetReadDeadline(deadline)
	g.wakeMu.Lock()
	g.wakeArmed = true
	g.wakeMu.Unlock()
	defer func() {
		// A wake that comes after this (b settled by another goroutine
		// as the deadline passed) must not cut redcon's next read.
		g.wakeMu.Lock()
		g.wakeArmed = false
		g.Conn.SetReadDeadline(time.Time{})
		g.wakeMu.Unlock()
	}()
	if g.wake == nil {
		g.wake = g.wakeRead // made once: a method value allocates
	}
	if !b.SetWake(g.wake) {
		return b.Conclude(false, false) // settled already
	}
	for g.readErr == nil && g.w-g.r < peekLimit {
		err := g.fill()
		if err == nil {
			continue
		}
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			g.readErr = err
			return b.Conclude(false, true)
		}
		select {
		case <-b.Ready():
			return b.Conclude(false, false)
		case <-closing:
			return b.Conclude(false, false)
		default:
		}
		if !deadline.IsZero() && !time.Now().Before(deadline) {
			return b.Conclude(true, false)
		}
		// A deadline moved by something else than b's end (the late
		// wake of the connection's previous blocked command): wait on,
		// and look at Ready again, as b's own wake may have come between
		// the look above and this.
		g.Conn.SetReadDeadline(deadline)
		select {
		case <-b.Ready():
			return b.Conclude(false, false)
		default:
		}
	}
	if g.readErr != nil {
		return b.Conclude(false, true)
	}
	return b.Await(closing, nil)
}

// watchPeer notices a client that goes away while its command is blocked
// (BLPOP...). redcon is not reading then, so a goroutine reads ahead into
// the guard's buffer (the bytes are parsed later, as if just arrived) and
// closes gone when the socket reports an end. stop interrupts that read
// and must be called before redcon reads again.
func (g *guardConn) watchPeer() (gone <-chan struct{}, stop func()) {
	ch := make(chan struct{})
	done := make(chan struct{})
	var quit atomic.Bool
	go func() {
		defer close(done)
		for !quit.Load() && g.readErr == nil && g.w-g.r < peekLimit {
			err := g.fill()
			if err == nil {
				continue
			}
			if quit.Load() {
				return // our own deadline: nothing to report
			}
			g.readErr = err
			close(ch)
			return
		}
	}()
	return ch, func() {
		quit.Store(true)
		g.Conn.SetReadDeadline(time.Now())
		<-done
		g.Conn.SetReadDeadline(time.Time{})
	}
}
