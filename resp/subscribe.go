package resp

import (
	"github.com/lockredis/lockredis/engine"
	"github.com/lockredis/lockredis/pubsub"
	"github.com/tidwall/redcon"
)

// Subscribing detaches a connection from redcon's loop: from then on a
// goroutine of ours reads its commands and every reply goes through the
// pubsub.Subscriber's queue, in order with the messages.

// detach takes the connection over from redcon. It runs inside the
// handler, before the command that subscribes.
func (s *Server) detach(c *client) {
	c.dc = c.rc.Detach()
	// Replies to the commands before this one in the same pipeline are
	// still in redcon's buffer: send them first.
	c.dc.Flush()
	var settler pubsub.Settler // settle.go
	if sc := c.gc.settle; sc != nil {
		sc.on.Store(true)
		settler = sc
	}
	c.sub = s.opts.Hub.Attach(c.sess, c.gc.Conn, func() { c.gc.Conn.Close() }, settler)
	c.gc.send = c.sub.Send
	c.enc.flush = func(b []byte) {
		if !c.sess.ReplyMuted() { // CLIENT REPLY OFF/SKIP
			c.sub.Send(b)
		}
	}
	c.sess.SetPush(func(write func(engine.Writer)) {
		enc := Encoder{Proto: c.sess.SharedProto()}
		write(&enc)
		c.pushMu.Lock()
		if c.holding {
			c.held = append(c.held, enc.Buf...) // server.go's flushWithAfterReply
		} else {
			c.sub.Send(enc.Buf)
		}
		c.pushMu.Unlock()
	})
}

// needsDetach reports whether the connection may receive pushes once cmd
// has run (it subscribes, or turns tracking on): itself, or as EXEC of a
// queue holding such a command.
func needsDetach(sess *engine.Session, cmd *engine.Command) bool {
	return cmd.Flags.Has(engine.FlagReceivesPushes) ||
		sess.InMulti() && sess.QueueHas(func(q *engine.Command) bool { return q.Flags.Has(engine.FlagReceivesPushes) })
}

// serveDetached reads and runs the commands of a detached connection until
// it closes or QUITs.
func (s *Server) serveDetached(c *client) {
	defer func() {
		c.sub.Close()
		if sc := c.gc.settle; sc != nil {
			sc.readerGone()
		}
		s.forget(c)
	}()
	for {
		var cmd redcon.Command
		if len(c.detachedCmds) > 0 {
			cmd, c.detachedCmds = c.detachedCmds[0], c.detachedCmds[1:]
		} else {
			var err error
			if cmd, err = c.dc.ReadCommand(); err != nil {
				return
			}
		}
		s.runOne(c, cmd.Args)
		if c.sess.CloseAfterReply {
			return
		}
	}
}
