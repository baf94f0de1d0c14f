package resp

import "github.com/lockredis/lockredis/engine"

// Subscribing detaches a connection from redcon's loop: from then on a
// goroutine of ours reads its commands and every reply goes through the
// pubsub.Subscriber's queue, in order with the messages.

// isSubscribe reports whether the command puts the connection in
// subscribed mode, or may make it receive pushes: CLIENT TRACKING
// (invalidations in RESP3, tracking-redir-broken).
func isSubscribe(name string) bool {
	switch name {
	case "subscribe", "psubscribe", "ssubscribe", "client|tracking":
		return true
	}
	return false
}

// detach takes the connection over from redcon. It runs inside the
// handler, before the command that subscribes.
func (s *Server) detach(c *client) {
	c.dc = c.rc.Detach()
	// Replies to the commands before this one in the same pipeline are
	// still in redcon's buffer: send them first.
	c.dc.Flush()
	c.sub = s.opts.Hub.Attach(c.sess, c.gc.Conn, func() { c.gc.Conn.Close() })
	c.enc.flush = func(b []byte) {
		if !c.sess.ReplyMuted() { // CLIENT REPLY OFF/SKIP
			c.sub.Send(b)
		}
	}
	c.sess.SetPush(c.sub.Send)
}

// needsDetach reports whether cmd will subscribe: itself, or as EXEC of a
// queue holding a subscribe.
func needsDetach(sess *engine.Session, cmd *engine.Command) bool {
	if isSubscribe(cmd.FullName) {
		return true
	}
	return cmd.FullName == "exec" && sess.QueueHas(func(q *engine.Command) bool { return isSubscribe(q.FullName) })
}

// serveDetached reads and runs the commands of a detached connection until
// it closes or QUITs.
func (s *Server) serveDetached(c *client) {
	defer func() {
		c.sub.Close()
		s.forget(c)
	}()
	for {
		cmd, err := c.dc.ReadCommand()
		if err != nil {
			return
		}
		s.runOne(c, cmd.Args)
		if c.sess.CloseAfterReply {
			return
		}
	}
}
