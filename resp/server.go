// Package resp serves the engine over TCP: connections, the protocol guard
// in front of redcon, subscribed connections and the encoding of replies as
// RESP2 or RESP3. Every command goes through engine.Dispatch, which holds
// the per-client state (auth, selected db, protocol, MULTI queue); resp
// holds no data logic and re-checks nothing.
package resp

import (
	"crypto/tls"
	"errors"
	"net"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lockredis/lockredis/engine"
	"github.com/lockredis/lockredis/pubsub"
	"github.com/tidwall/redcon"
)

// Options configures a Server.
type Options struct {
	MaxClients int // 0: 10000, as Redis
	// Limits on client input; zero values take Redis's defaults.
	Limits Limits
	Logf   func(level, format string, args ...any)
	// Hub delivers pub/sub messages; nil disables SUBSCRIBE.
	Hub *pubsub.Hub
	// Router, when set, sees every command first and holds replies
	// (router.go); a replicated node sets it.
	Router Router
}

// Server accepts RESP connections for one engine, on one listener or
// several (bind 127.0.0.1 ::1): Serve is called once per listener.
type Server struct {
	eng  *engine.Engine
	opts Options

	mu      sync.Mutex
	lns     []net.Listener // every listener Serve was given
	clients map[*client]struct{}
	count   atomic.Int64
	// maxClientsLogged: when (unix s) refusing a client for maxclients
	// was last logged.
	maxClientsLogged atomic.Int64
	conns            sync.WaitGroup // one per accepted connection until it is gone
	serving          sync.WaitGroup // one per Serve call until it returns
	closed           bool
	closing          chan struct{} // closed by Close: wakes blocked commands
	cron             sync.Once     // starts the cron (cron.go) with the first Serve
}

// client is one connection's state, kept in the redcon context.
type client struct {
	srv  *Server
	rc   redcon.Conn
	gc   *guardConn
	sess *engine.Session
	enc  Encoder
	out  replyStats // CLIENT LIST's figures of the replies (clientstats.go)

	// Set once the connection subscribed: redcon no longer serves it.
	dc  redcon.DetachedConn
	sub *pubsub.Subscriber

	// busy is set while a command runs, including while it blocks or
	// waits out a pause: the idle timeout spares such a client, as Redis
	// spares CLIENT_BLOCKED ones (cron.go).
	busy atomic.Bool

	// rconn is the Router's view of the connection (router.go).
	rconn Conn

	// batchCmds: the commands of the read being run (batch.go), kept
	// for the next read.
	batchCmds  []redcon.Command
	batchJoins []batchMember
	// detachedCmds: the rest of the read of a command that detached the
	// connection, run first by serveDetached (batch.go).
	detachedCmds []redcon.Command

	// pushMu orders the frames pushed to a detached connection with a
	// reply that has frames of its own to follow it (flushWithAfterReply):
	// while holding is set, pushes are appended to held, after the reply.
	pushMu  sync.Mutex
	holding bool
	held    []byte
}

// New makes a server for eng. Call Serve to accept connections.
func New(eng *engine.Engine, opts Options) *Server {
	if opts.MaxClients == 0 {
		opts.MaxClients = 10000
	}
	if opts.Logf == nil {
		opts.Logf = func(string, string, ...any) {}
	}
	opts.Limits = opts.Limits.withDefaults()
	return &Server{eng: eng, opts: opts, clients: make(map[*client]struct{}), closing: make(chan struct{})}
}

// Serve accepts connections on ln until Close; call it once per listener,
// each in its own goroutine. It returns nil after Close, also when Close
// came first (ln is then closed at once).
func (s *Server) Serve(ln net.Listener) error { return s.serve(ln, nil) }

// serve is Serve, or ServeTLS when tlsCfg is set.
func (s *Server) serve(ln net.Listener, tlsCfg *tls.Config) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		ln.Close()
		return nil
	}
	gl := &guardListener{Listener: ln, srv: s, tls: tlsCfg}
	s.lns = append(s.lns, gl)
	s.serving.Add(1)
	s.mu.Unlock()
	defer s.serving.Done()
	s.cron.Do(func() {
		s.serving.Add(1)
		go func() {
			defer s.serving.Done()
			s.runCron()
		}()
	})
	// One redcon server per listener: its accept loop reads one listener
	// and drops its connection table when that loop ends.
	rs := redcon.NewServerNetwork("tcp", "", s.handle, s.accept, s.onClosed)
	rs.AcceptError = func(err error) {
		// EMFILE and friends: log and back off instead of spinning.
		s.opts.Logf("warning", "accept: %v", err)
		time.Sleep(10 * time.Millisecond)
	}
	err := rs.Serve(gl)
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return nil
	}
	return err
}

// Close stops accepting on every listener, closes every connection and
// waits for every Serve to return.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	close(s.closing)
	lns := s.lns
	clients := make([]*client, 0, len(s.clients))
	for c := range s.clients {
		clients = append(clients, c)
	}
	s.mu.Unlock()
	for _, ln := range lns {
		ln.Close()
	}
	for _, c := range clients {
		c.gc.Conn.Close()
	}
	// Wait for Serve and for every connection goroutine, so that no
	// command runs once Close has returned.
	all := make(chan struct{})
	go func() {
		s.serving.Wait()
		s.conns.Wait()
		close(all)
	}()
	select {
	case <-all:
		return nil
	case <-time.After(5 * time.Second):
		return errors.New("timed out waiting for connections to close")
	}
}

// ClientCount is the number of open connections.
func (s *Server) ClientCount() int { return int(s.count.Load()) }

func (s *Server) accept(rc redcon.Conn) bool {
	gc, _ := rc.NetConn().(*guardConn)
	if gc == nil {
		return false
	}
	if s.count.Load() >= int64(s.opts.MaxClients) {
		s.eng.Stats.Rejected.Add(1)
		// redis-server refuses silently; an operator wants to know, so
		// say it, at most once a minute (rejected_connections counts all).
		now, last := time.Now().Unix(), s.maxClientsLogged.Load()
		if last < now-60 && s.maxClientsLogged.CompareAndSwap(last, now) {
			s.opts.Logf("warning", "Max number of clients reached (maxclients %d): refusing connections, e.g. from %s", s.opts.MaxClients, rc.RemoteAddr())
		}
		if !gc.isTLS() {
			// As Redis: on a TLS port no handshake was done yet, so
			// nothing is written and the connection just drops.
			rc.WriteError(engine.ErrMaxClients.Error())
		}
		return false
	}
	// Protected mode (Redis's clientAcceptHandler): after the maxclients
	// check, before the client exists; the text goes out, then the close.
	if s.eng.ProtectedModeRefuses(rc.RemoteAddr()) {
		s.eng.Stats.Rejected.Add(1)
		rc.WriteError(engine.ErrProtectedMode.Error())
		return false
	}
	sess := engine.NewSession("normal")
	sess.SetAddrs(rc.RemoteAddr(), gc.LocalAddr().String())
	s.eng.AddSession(sess)
	c := &client{srv: s, rc: rc, gc: gc, sess: sess, enc: Encoder{Proto: 2}}
	c.rconn.c = c
	gc.sess = sess
	fd := connFD(gc.Conn)
	sess.SetConnStats(func() engine.ConnStats { return c.connStats(fd) })
	gc.needsAuth = func() bool { return s.eng.NeedsAuth(sess) }
	sess.Close = func() { gc.Conn.Close() }
	// Asked under the engine lock before a blocked command is served: a
	// client that closed its connection is skipped for the next one.
	sess.Alive = func() bool { return !peerClosed(gc.raw) }
	sess.Done = s.closing
	sess.BeforeRun = func(cmd *engine.Command) {
		if c.dc == nil && s.opts.Hub != nil && needsDetach(sess, cmd) {
			s.detach(c)
		}
	}
	sess.OnReset = func() {
		if c.sub != nil {
			c.sub.UnsubscribeAll() // RESET leaves subscribed mode
		}
	}
	rc.SetContext(c)
	s.mu.Lock()
	s.clients[c] = struct{}{}
	s.mu.Unlock()
	s.count.Add(1)
	s.conns.Add(1)
	s.eng.Stats.Connections.Add(1)
	return true
}

func (s *Server) onClosed(rc redcon.Conn, err error) {
	c, _ := rc.Context().(*client)
	if c == nil {
		return
	}
	if c.dc != nil {
		// Detached, not closed: redcon's goroutine for it has ended and
		// ours takes over. (redcon holds its lock here: only start it.)
		go s.serveDetached(c)
		return
	}
	s.forget(c)
}

func (s *Server) forget(c *client) {
	s.mu.Lock()
	_, ok := s.clients[c]
	delete(s.clients, c)
	s.mu.Unlock()
	if ok {
		s.count.Add(-1)
		if s.opts.Router != nil {
			s.opts.Router.Closed(&c.rconn)
		}
		s.eng.RemoveSession(c.sess)
		s.conns.Done()
	}
}

// handle runs one command read from a connection, or, when redcon parsed
// more from the same read and they may run together, the batch of them
// (batch.go).
func (s *Server) handle(rc redcon.Conn, cmd redcon.Command) {
	if s.opts.Router == nil && len(rc.PeekPipeline()) > 0 {
		c := rc.Context().(*client)
		if s.batchOpen(c) {
			s.handleRead(rc, c, cmd, rc.ReadPipeline())
			return
		}
	}
	s.handleOne(rc, cmd)
}

// handleOne runs one command read from a connection.
func (s *Server) handleOne(rc redcon.Conn, cmd redcon.Command) {
	c := rc.Context().(*client)
	if c.sess.CloseAfterReply || c.gc.obuf.closed.Load() {
		return // closing: nothing pipelined after QUIT, an HTTP header or an output buffer overrun runs
	}
	s.runOne(c, cmd.Args)
	if c.sess.CloseAfterReply && c.dc == nil {
		// redcon would go on with the rest of what it read (the body of
		// an HTTP POST, whatever follows QUIT): drop it, as Redis stops
		// parsing a client it is closing.
		rc.ReadPipeline()
		rc.Close()
	}
}

// runOne runs a command and queues its reply, waiting first if the command
// blocked.
func (s *Server) runOne(c *client, args [][]byte) {
	c.commandStarts(args)
	replyLen := 0
	defer func() { c.commandEnds(replyLen) }() // after the recover below
	defer func() {
		if r := recover(); r != nil {
			s.opts.Logf("warning", "panic serving %s: %v\n%s", c.sess.Addr(), r, debug.Stack())
			c.enc.Buf = c.enc.Buf[:0]
			c.enc.Error(engine.ErrPanic.Error())
			c.flush()
		}
	}()
	c.busy.Store(true)
	defer c.busy.Store(false)
	c.enc.Proto = c.sess.Proto
	router := s.opts.Router
	if router != nil && router.Route(&c.rconn, args) {
		c.flush()
		return
	}
	s.eng.Dispatch(c.sess, nil, args, &c.enc)
	if b := c.sess.Blocked; b != nil {
		c.sess.Blocked = nil
		s.waitBlocked(c, b)
	}
	if router != nil {
		if err := router.Hold(&c.rconn, args); err != nil {
			c.enc.Buf = c.enc.Buf[:0]
			c.enc.Error(err.Error())
		}
	}
	if c.sess.DropReply() { // CLIENT REPLY OFF/SKIP
		c.enc.Buf = c.enc.Buf[:0]
	}
	replyLen = len(c.enc.Buf)
	if c.sess.CloseAfterReply && c.sub != nil {
		// QUIT: a client that read the +OK is no longer subscribed.
		c.sub.UnsubscribeAll()
	}
	// A monitor's line for its own command and the invalidations of the
	// keys this command changed follow its reply.
	if c.sub != nil && c.sess.HasAfterReply() {
		c.flushWithAfterReply()
		return
	}
	c.flush()
	c.sess.RunAfterReply()
}

// flushWithAfterReply queues the reply and the frames that follow it (the
// session's after-reply work) as one piece on a detached connection. Sent
// one after the other, a client that had read the reply could make another
// client's command push its frame (a MONITOR line) in between, as
// TestDiffMonitor saw under load; Redis appends them to the reply buffer in
// one event-loop turn. Pushes from other goroutines meanwhile go after the
// reply too: they ran at the same time as this command.
func (c *client) flushWithAfterReply() {
	c.pushMu.Lock()
	c.holding = true
	c.held = append(c.held[:0], c.enc.Buf...)
	c.pushMu.Unlock()
	c.enc.Buf = c.enc.Buf[:0]
	c.sess.RunAfterReply()
	c.pushMu.Lock()
	c.holding = false
	if len(c.held) > 0 {
		c.sub.Send(c.held) // Send copies
	}
	c.held = c.held[:0]
	c.pushMu.Unlock()
}

// waitBlocked parks the connection until its blocking command ends
// (engine's Blocked.Await): served, timed out, unblocked, the server
// closing, or the client gone (then nothing is written).
func (s *Server) waitBlocked(c *client, b *engine.Blocked) {
	gone, stopWatch := c.gc.watchPeer()
	rep, ok := b.Await(s.closing, gone)
	stopWatch()
	if ok {
		rep.Replay(&c.enc)
	}
}

// flush hands the encoded reply to redcon, which writes it to the socket
// after the pipeline batch.
func (c *client) flush() {
	if len(c.enc.Buf) == 0 {
		return
	}
	if c.sub != nil {
		c.sub.Send(c.enc.Buf)
	} else {
		c.rc.WriteRaw(c.enc.Buf)
		c.gc.obuf.pending.Add(int64(len(c.enc.Buf)))
		c.srv.checkOutputLimit(c, time.Now()) // outbuf.go
	}
	if cap(c.enc.Buf) > 64<<10 {
		c.enc.Buf = nil
	} else {
		c.enc.Buf = c.enc.Buf[:0]
	}
}

// String describes the server for logs.
func (s *Server) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.lns) == 0 {
		return "resp server (not serving)"
	}
	addrs := make([]string, len(s.lns))
	for i, ln := range s.lns {
		addrs[i] = ln.Addr().String()
	}
	return "resp server on " + strings.Join(addrs, " ")
}
