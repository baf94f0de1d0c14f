package resp

import (
	"runtime/debug"

	"github.com/lockredis/lockredis/engine"
	"github.com/tidwall/redcon"
)

// One transaction per read: the commands redcon parsed from one read of a
// connection run, where they may, as batches in one keyspace transaction
// each (engine/batch.go says which commands join and why the replies are
// those of one-by-one execution). Here: the connection's side. Replies
// of a batch are encoded in order into the connection's buffer and handed
// to redcon only once the batch committed (and, appendfsync always, is on
// disk), so no client can read a reply whose effect is not durable yet.

// batchOpen reports whether the connection may run batches now: redcon
// serves it (not subscribed), it is not closing, and no output buffer
// limit must stop it between two replies (a limit is checked at each
// flush; a batch flushes once).
func (s *Server) batchOpen(c *client) bool {
	if c.dc != nil || c.sub != nil || c.sess.CloseAfterReply || c.gc.obuf.closed.Load() {
		return false
	}
	l := s.eng.OutputLimit(engine.OutputNormal)
	return l.Hard <= 0 && l.Soft <= 0
}

// handleRead runs first and the rest of the commands of its read, in
// order: runs of two or more commands that join a batch together, the
// others one by one as handle would.
func (s *Server) handleRead(rc redcon.Conn, c *client, first redcon.Command, rest []redcon.Command) {
	cmds := append(append(c.batchCmds[:0], first), rest...)
	// Which commands may join, looked up once: a batch that ends early
	// leaves the rest of its run for the next one.
	joins := c.batchJoins[:0]
	for _, cmd := range cmds {
		j, w := s.eng.BatchCommand(cmd.Args)
		joins = append(joins, batchMember{j, w})
	}
	for i := 0; i < len(cmds); {
		if joins[i].cmd != nil && s.batchOpen(c) && s.eng.BatchOpen(c.sess) {
			write, k := false, i
			for ; k < len(cmds) && k-i < maxBatch && joins[k].cmd != nil; k++ {
				write = write || joins[k].write
			}
			if k-i >= 2 {
				if ran := s.runBatch(c, cmds[i:k], joins[i:k], write); ran > 0 {
					i += ran
					continue
				}
			}
		}
		s.handleOne(rc, cmds[i])
		i++
		if c.dc != nil && i < len(cmds) {
			// It detached the connection (SUBSCRIBE...): redcon's
			// Detach hands the rest of the read to the detached
			// connection, which serveDetached runs once this handler
			// returned; here the rest was already taken, so pass it
			// on (the arguments stay valid: serveDetached reads from
			// the same buffer only after them).
			c.detachedCmds = append([]redcon.Command(nil), cmds[i:]...)
			break
		}
	}
	// The arguments point into redcon's read buffer: keep none.
	clear(cmds)
	clear(joins)
	if cap(cmds) <= 64 {
		c.batchCmds, c.batchJoins = cmds[:0], joins[:0]
	} else {
		c.batchCmds, c.batchJoins = nil, nil
	}
}

// maxBatch bounds a batch: a write batch holds the engine lock for all
// its commands, so a read of thousands of small commands (64 KB of SETs)
// would keep every other connection waiting for milliseconds; past a few
// dozen commands the transaction's own cost is already shared out.
const maxBatch = 128

// batchMember is what engine.BatchCommand said of a command of the read.
type batchMember struct {
	cmd   *engine.Command // nil: runs alone
	write bool
}

// runBatch runs cmds (which all joined) as one batch, as far as the
// engine lets them, and hands their replies to redcon. It returns how
// many ran; the caller runs the next one alone.
func (s *Server) runBatch(c *client, cmds []redcon.Command, joins []batchMember, write bool) (ran int) {
	start := len(c.enc.Buf)
	inCommand := false
	defer func() {
		if r := recover(); r != nil {
			// The transaction rolled back: the batch's replies go, and
			// one error answers it, as runOne answers a panic.
			s.opts.Logf("warning", "panic serving %s: %v\n%s", c.sess.Addr(), r, debug.Stack())
			c.enc.Buf = c.enc.Buf[:start]
			c.enc.Error(engine.ErrPanic.Error())
			c.flush()
			if inCommand {
				c.commandEnds(0)
				ran++
			}
			ran = max(ran, 1)
		}
	}()
	c.busy.Store(true)
	defer c.busy.Store(false)
	c.enc.Proto = c.sess.Proto
	s.eng.RunBatch(c.sess, write, func(b *engine.Batch) {
		for i, cmd := range cmds {
			c.commandStarts(cmd.Args)
			inCommand = true
			mark := len(c.enc.Buf)
			ok, more := b.Dispatch(joins[i].cmd, cmd.Args, &c.enc)
			if !ok {
				inCommand = false
				c.commandSkipped()
				return
			}
			if c.sess.DropReply() { // CLIENT REPLY is no member: a safeguard
				c.enc.Buf = c.enc.Buf[:mark]
			}
			c.commandEnds(len(c.enc.Buf) - mark)
			inCommand = false
			ran++
			if !more {
				return
			}
		}
	})
	c.flush()
	c.sess.RunAfterReply()
	return ran
}
