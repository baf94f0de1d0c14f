package resp

import (
	"github.com/lockredis/lockredis/engine"
)

// Router lets a layer above the server (replication/) see every command of
// a connection before it runs here, and hold its reply before it leaves:
// a follower forwards commands to its leader, a leader holds a reply until
// the write it depends on is committed by a majority. The server calls
// Route, then (when Route did not answer) dispatches the command, waits
// if it blocked, calls Hold, and writes the reply. Both run on the
// connection's goroutine, one command at a time.
type Router interface {
	// Route answers the command itself (into c, with Reply) and returns
	// true, or returns false to let this server run it.
	Route(c *Conn, args [][]byte) bool
	// Hold runs after a command ran here, before its reply is written.
	// An error replaces the reply.
	Hold(c *Conn, args [][]byte) error
	// Closed is called once when the connection has closed.
	Closed(c *Conn)
}

// Conn is what a Router sees of a client connection.
type Conn struct {
	c *client
	// State is the router's own, per connection.
	State any
}

// Session is the connection's engine session (database, protocol, auth).
func (rc *Conn) Session() *engine.Session { return rc.c.sess }

// Reply appends an encoded reply (raw RESP bytes) to what the command
// answers.
func (rc *Conn) Reply(raw []byte) { rc.c.enc.Buf = append(rc.c.enc.Buf, raw...) }

// Writer encodes a reply in the connection's protocol.
func (rc *Conn) Writer() engine.Writer {
	rc.c.enc.Proto = rc.c.sess.Proto
	return &rc.c.enc
}

// LocalAddr is the address the client connected to.
func (rc *Conn) LocalAddr() string { return rc.c.gc.LocalAddr().String() }

// Close closes the connection.
func (rc *Conn) Close() { rc.c.gc.Conn.Close() }

// WatchPeer reports, through gone, when the client goes away while a
// command waits; stop ends the watch and must be called before the next
// read from the connection.
func (rc *Conn) WatchPeer() (gone <-chan struct{}, stop func()) { return rc.c.gc.watchPeer() }

// Stream takes the connection out of request/reply order: from then on
// send writes bytes to the client at any time, from any goroutine (a
// follower relays its leader's pub/sub messages this way), and every
// command read is still given to Route. Replies already encoded leave
// first.
func (rc *Conn) Stream() (send func([]byte)) {
	c := rc.c
	if c.dc == nil {
		if c.srv.opts.Hub == nil {
			return nil
		}
		c.srv.detach(c)
	}
	if len(c.enc.Buf) > 0 {
		c.sub.Send(c.enc.Buf)
		c.enc.Buf = c.enc.Buf[:0]
	}
	return c.sub.Send
}
