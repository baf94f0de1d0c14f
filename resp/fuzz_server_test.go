package resp

import (
	"bytes"
	"io"
	"net"
	"os"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/lockredis/lockredis/engine"
	"github.com/lockredis/lockredis/pubsub"
)

// FuzzServer feeds arbitrary bytes to a whole server (guard, redcon's
// parser, the engine, subscribed connections, the RESP2/RESP3 encoder) over
// an in-memory connection, in reads of at most chunk bytes, as a client
// that then waits for more. The server must not panic or hang; everything
// it writes must be a sequence of complete, well-formed replies (RESP3
// types only once HELLO could have switched); after a protocol error it
// writes nothing more and closes the connection without waiting for the
// client, and without one it waits for more input. Blocking commands and
// CLIENT PAUSE, which wait by design, are replaced by an error (their
// arguments are fuzzed through Dispatch by FuzzDispatch in the root
// package). With auth set, the server has a password, so the tighter
// limits before AUTH apply.
//
//	go test -run '^$' -fuzz '^FuzzServer$' -fuzztime 5m ./resp
func FuzzServer(f *testing.F) {
	seeds := []string{
		"PING\r\n",
		frame("SET", "k", "v") + frame("GET", "k") + "ECHO \"a\\x41\\n\" 'b'\r\n",
		"HELLO 3\r\nHGETALL h\r\nCONFIG GET maxclients\r\nZSCORE z m\r\nCLIENT INFO\r\n",
		"HELLO 3\r\nSUBSCRIBE a b\r\nPING\r\nPUBLISH a x\r\nUNSUBSCRIBE\r\nQUIT\r\nPING\r\n",
		"SUBSCRIBE a\r\nPING\r\n*1\r\n$-5\r\n",
		"MULTI\r\nSET k 1\r\nINCR k\r\nSUBSCRIBE c\r\nEXEC\r\nPING\r\n",
		"PING\r\n*1\r\n$4\r\nPING\r\n*x\r\n",
		"*2\r\n$4\r\nECHO\r\n$3\r\nabcXY",
		"ECHO \"a\"b\r\n",
		"*3\r\n$3\r\nSET\r\n$1\r\nk",
		"AUTH wrong\r\n*11\r\n",
		"HELLO 3 AUTH default pw\r\nCLIENT TRACKING on\r\nGET k\r\nSET k 2\r\n",
		"CLIENT REPLY OFF\r\nPING\r\nCLIENT REPLY ON\r\nPING\r\n",
		"BLPOP l 0\r\nCLIENT PAUSE 100000\r\nPING\r\n",
		"RESET\r\nHELLO 2\r\nQUIT\r\n",
		"\r\n\n   *0\r\n*-1\r\n" + frame("PING"),
		"*1\r\n$9223372036854775806\r\nabc\r\n",
	}
	for i, s := range seeds {
		f.Add([]byte(s), uint8(i*37), i%3 == 0)
	}
	f.Fuzz(func(t *testing.T, data []byte, chunk uint8, auth bool) {
		defer fuzzWatch(data, chunk, auth)()
		checkServer(t, data, int(chunk)+1, auth)
	})
}

func checkServer(t *testing.T, data []byte, chunk int, auth bool) {
	cfg := engine.Config{}
	if auth {
		cfg.Params = map[string]string{"requirepass": "pw"}
	}
	eng, err := engine.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	disable := func(c *engine.Call) { c.W.Error("ERR disabled in FuzzServer") }
	for _, c := range eng.Table.All() {
		if c.Flags.Has(engine.FlagBlocking) {
			c.Handler = disable
		}
	}
	eng.Table.Get([]byte("client")).Sub([]byte("pause")).Handler = disable
	hub := pubsub.NewHub(pubsub.Limits{}, nil)
	defer hub.Close()
	pubsub.Register(eng, hub)
	srv := New(eng, Options{Hub: hub})
	ln := &memListener{conns: make(chan net.Conn, 1), done: make(chan struct{})}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	conn := newMemConn(data, chunk)
	ln.conns <- conn

	// The server either closes the connection by itself or asks for more
	// input than there is; then the client hangs up.
	hang := time.NewTimer(30 * time.Second) // not a measure: only a hang gets here
	defer hang.Stop()
	idle := false
	select {
	case <-conn.closedCh:
	case <-conn.idle:
		idle = true
		conn.hangUp()
		select {
		case <-conn.closedCh:
		case <-hang.C:
			failHung(t, data, "to close the connection after the client hung up")
		}
	case <-hang.C:
		failHung(t, data, "to reply or ask for more input")
	}
	if err := srv.Close(); err != nil {
		t.Fatalf("input %q: Close: %v", data, err)
	}
	if err := <-served; err != nil {
		t.Fatalf("input %q: Serve: %v", data, err)
	}
	out := conn.output()
	resp3 := bytes.Contains(bytes.ToLower(data), []byte("hello"))
	var last []byte
	for rest := out; len(rest) > 0; {
		next, err := CheckReply(rest, resp3)
		if err != nil {
			t.Fatalf("input %q (reads of %d): reply stream %q: %v", data, chunk, out, err)
		}
		last, rest = rest[:len(rest)-len(next)], next
		if bytes.Contains(last, []byte(engine.ErrPanic.Error())) {
			t.Fatalf("input %q: a command panicked: %q", data, out)
		}
	}
	if eng.Stats.ProtocolErrors.Load() > 0 {
		if idle {
			t.Fatalf("input %q: protocol error, but the server waited for more input; it wrote %q", data, out)
		}
		if !bytes.HasPrefix(last, []byte("-ERR Protocol error")) {
			t.Fatalf("input %q: protocol error, but the last reply is %q (all: %q)", data, last, out)
		}
	}
}

func failHung(t *testing.T, data []byte, what string) {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	t.Fatalf("input %q: the server never came %s\n%s", data, what, buf)
}

// memListener hands out the connections sent on conns.
type memListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func (l *memListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *memListener) Close() error   { l.once.Do(func() { close(l.done) }); return nil }
func (l *memListener) Addr() net.Addr { return memAddr }

var memAddr = &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 6379}

// memConn is the server's end of an in-memory connection: reads return
// the client's bytes, at most chunk at a time; once they are used up a
// read waits (the client is idle, and idle is closed) until the client
// hangs up (io.EOF), the connection closes or a read deadline passes.
type memConn struct {
	mu       sync.Mutex
	cond     *sync.Cond
	in       []byte
	chunk    int
	eof      bool
	expired  bool // the read deadline has passed
	closed   bool
	out      bytes.Buffer
	idle     chan struct{}
	idleOnce sync.Once
	closedCh chan struct{}
}

func newMemConn(in []byte, chunk int) *memConn {
	c := &memConn{in: in, chunk: chunk, idle: make(chan struct{}), closedCh: make(chan struct{})}
	c.cond = sync.NewCond(&c.mu)
	return c
}

func (c *memConn) Read(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		switch {
		case c.closed:
			return 0, net.ErrClosed
		case len(c.in) > 0:
			n := copy(p[:min(len(p), c.chunk)], c.in)
			c.in = c.in[n:]
			return n, nil
		case c.eof:
			return 0, io.EOF
		case c.expired:
			return 0, os.ErrDeadlineExceeded
		}
		c.idleOnce.Do(func() { close(c.idle) })
		c.cond.Wait()
	}
}

func (c *memConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return 0, net.ErrClosed
	}
	return c.out.Write(p)
}

func (c *memConn) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.closed {
		c.closed = true
		close(c.closedCh)
		c.cond.Broadcast()
	}
	return nil
}

func (c *memConn) hangUp() {
	c.mu.Lock()
	c.eof = true
	c.cond.Broadcast()
	c.mu.Unlock()
}

func (c *memConn) output() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return bytes.Clone(c.out.Bytes())
}

func (c *memConn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	c.expired = !t.IsZero() && !t.After(time.Now())
	c.cond.Broadcast()
	c.mu.Unlock()
	return nil
}

func (c *memConn) SetDeadline(t time.Time) error    { return c.SetReadDeadline(t) }
func (c *memConn) SetWriteDeadline(time.Time) error { return nil }
func (c *memConn) LocalAddr() net.Addr              { return memAddr }
func (c *memConn) RemoteAddr() net.Addr             { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 50000} }
