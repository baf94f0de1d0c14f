package lockredis

import (
	"net"
	"sync"
	"sync/atomic"
)

// portListener is a plain listener CONFIG SET port or bind can move:
// retire releases its address but keeps its accept loop, and with it the
// connections it accepted (redcon closes those when the loop ends), until
// the server closes, as redis-server keeps its clients when its port
// changes.
type portListener struct {
	net.Listener
	retired  atomic.Bool
	once     sync.Once
	shutdown chan struct{}
}

func movable(lns []net.Listener) []*portListener {
	out := make([]*portListener, len(lns))
	for i, ln := range lns {
		out[i] = &portListener{Listener: ln, shutdown: make(chan struct{})}
	}
	return out
}

func (l *portListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil && l.retired.Load() {
		<-l.shutdown
		return nil, net.ErrClosed
	}
	return c, err
}

// retire releases the address; the accept loop waits for Close.
func (l *portListener) retire() {
	l.retired.Store(true)
	l.Listener.Close()
}

func (l *portListener) Close() error {
	l.once.Do(func() { close(l.shutdown) })
	err := l.Listener.Close()
	if l.retired.Load() {
		return nil
	}
	return err
}
