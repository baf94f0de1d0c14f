package resp

import (
	"crypto/tls"
	"net"
)

// ServeTLS is Serve for a TLS port (redis-server's tls-port): ln accepts
// TCP connections and each is wrapped as a TLS server connection with cfg,
// so the guard, the dispatcher and everything after see the decrypted
// stream exactly as on a plain port. The handshake runs on the
// connection's own goroutine at its first read, never in the accept loop,
// so a silent or slow client holds up nobody else. A failed handshake (no
// client certificate when cfg requires one, a plaintext client) is logged
// and closes that connection only.
func (s *Server) ServeTLS(ln net.Listener, cfg *tls.Config) error {
	return s.serve(ln, cfg)
}

// tlsConn is one accepted TLS connection. Only the goroutine reading the
// connection at the time (redcon's, watchPeer's, then serveDetached's,
// never two at once) touches shook.
type tlsConn struct {
	*tls.Conn
	logf  func(level, format string, args ...any)
	shook bool
}

func newTLSConn(c net.Conn, cfg *tls.Config, logf func(level, format string, args ...any)) *tlsConn {
	return &tlsConn{Conn: tls.Server(c, cfg), logf: logf}
}

// Read completes the handshake first, so that its failure is logged as
// redis-server logs it, then reads decrypted bytes.
func (c *tlsConn) Read(p []byte) (int, error) {
	if !c.shook {
		if err := c.Conn.Handshake(); err != nil {
			c.logf("warning", "Error accepting a client connection: %v (addr=%s laddr=%s)",
				err, c.RemoteAddr(), c.LocalAddr())
			return 0, err
		}
		c.shook = true
	}
	return c.Conn.Read(p)
}

// isTLS reports whether g is a TLS connection.
func (g *guardConn) isTLS() bool {
	_, ok := g.Conn.(*tlsConn)
	return ok
}

// Close closes the socket without a close_notify alert. redis-server's
// SSL_shutdown sends one only if the socket takes it at once; tls.Conn's
// Close would wait up to 5 s for a client that does not read, and
// Server.Close and CLIENT KILL close connections one after another.
func (c *tlsConn) Close() error { return c.Conn.NetConn().Close() }
