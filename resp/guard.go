package resp

import (
	"net"

	"github.com/lockredis/lockredis/engine"
)

// Limits bound what a client may send, as Redis's protocol limits do.
type Limits struct {
	MaxBulkLen      int64 // proto-max-bulk-len: 512 MB
	MaxMultibulkLen int64 // arguments per command
	MaxInlineLen    int   // inline commands and RESP header lines: 64 KB
	MaxQueryBuffer  int64 // client-query-buffer-limit: 1 GB for one command
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

// guardListener wraps accepted connections in guardConn.
type guardListener struct {
	net.Listener
	srv *Server
}

func (l *guardListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &guardConn{Conn: c, limits: l.srv.opts.Limits}, nil
}

// guardConn sits between the socket and redcon's parser.
// TODO: validate frames against limits before redcon sees them.
type guardConn struct {
	net.Conn
	limits    Limits
	sess      *engine.Session
	needsAuth func() bool
}
