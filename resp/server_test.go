package resp

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lockredis/lockredis/engine"
)

// testServer is a Server on 127.0.0.1:0 with its own engine.
type testServer struct {
	*Server
	eng  *engine.Engine
	addr string
}

func startServer(t *testing.T, cfg engine.Config, opts Options) *testServer {
	t.Helper()
	eng, err := engine.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := New(eng, opts)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
		eng.Close()
	})
	return &testServer{Server: srv, eng: eng, addr: ln.Addr().String()}
}

// rawClient is a client socket that sends raw bytes and reads raw replies.
type rawClient struct {
	t  *testing.T
	c  net.Conn
	rd *bufio.Reader
}

func (ts *testServer) dial(t *testing.T) *rawClient {
	t.Helper()
	c, err := net.Dial("tcp", ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &rawClient{t: t, c: c, rd: bufio.NewReader(c)}
}

func (rc *rawClient) send(s string) {
	rc.t.Helper()
	if _, err := rc.c.Write([]byte(s)); err != nil {
		rc.t.Fatalf("write: %v", err)
	}
}

// reply reads one whole reply and returns its bytes.
func (rc *rawClient) reply() string {
	rc.t.Helper()
	rc.c.SetReadDeadline(time.Now().Add(10 * time.Second))
	var b bytes.Buffer
	if err := readReply(rc.rd, &b); err != nil {
		rc.t.Fatalf("reading reply (got %q so far): %v", b.String(), err)
	}
	return b.String()
}

func readReply(rd *bufio.Reader, b *bytes.Buffer) error {
	line, err := rd.ReadString('\n')
	b.WriteString(line)
	if err != nil {
		return err
	}
	if len(line) < 3 {
		return fmt.Errorf("bad reply line %q", line)
	}
	switch line[0] {
	case '$', '=', '!':
		n, _ := strconv.Atoi(line[1 : len(line)-2])
		if n < 0 {
			return nil
		}
		_, err := io.CopyN(b, rd, int64(n)+2)
		return err
	case '*', '~', '>', '%':
		n, _ := strconv.Atoi(line[1 : len(line)-2])
		if line[0] == '%' {
			n *= 2
		}
		for range n {
			if err := readReply(rd, b); err != nil {
				return err
			}
		}
	}
	return nil
}

// rest reads until the server closes the connection and returns what came.
// It fails if the connection stays open.
func (rc *rawClient) rest() string {
	rc.t.Helper()
	rc.c.SetReadDeadline(time.Now().Add(10 * time.Second))
	b, err := io.ReadAll(rc.rd)
	if err != nil && !errors.Is(err, net.ErrClosed) && !isReset(err) {
		rc.t.Fatalf("connection not closed (got %q): %v", b, err)
	}
	return string(b)
}

func isReset(err error) bool {
	return err != nil && strings.Contains(err.Error(), "connection reset")
}

// ping checks that the connection works.
func (rc *rawClient) ping() {
	rc.t.Helper()
	rc.send("PING\r\n")
	if got := rc.reply(); got != "+PONG\r\n" {
		rc.t.Fatalf("PING: %q", got)
	}
}

// TestServerHostileInputs: each input gets Redis's exact reply bytes and a
// closed connection, while another client keeps working.
func TestServerHostileInputs(t *testing.T) {
	ts := startServer(t, engine.Config{}, Options{})
	other := ts.dial(t)
	tests := []struct {
		name, in, want string
	}{
		{"19-digit bulk length", "*1\r\n$9223372036854775806\r\nabc\r\n",
			"-ERR Protocol error: invalid bulk length\r\n"},
		{"19-digit count", "*9000000000000000000\r\n$4\r\nPING\r\n",
			"-ERR Protocol error: invalid multibulk length\r\n"},
		{"count above INT_MAX", "*2147483648\r\n", "-ERR Protocol error: invalid multibulk length\r\n"},
		{"bulk above 512MB", "*1\r\n$536870913\r\n", "-ERR Protocol error: invalid bulk length\r\n"},
		{"plus instead of dollar", "*1\r\n+4\r\nPING\r\n", "-ERR Protocol error: expected '$', got '+'\r\n"},
		{"CR instead of dollar", "*1\r\n\r\n", "-ERR Protocol error: expected '$', got ' '\r\n"},
		{"negative bulk", "*1\r\n$-1\r\nPING\r\n", "-ERR Protocol error: invalid bulk length\r\n"},
		{"unbalanced quotes", "ECHO \"a\"b\r\n", "-ERR Protocol error: unbalanced quotes in request\r\n"},
		{"replies before the error", "PING\r\n*1\r\n$4\r\nPING\r\n*x\r\n",
			"+PONG\r\n+PONG\r\n-ERR Protocol error: invalid multibulk length\r\n"},
		{"set before the error", frame("SET", "hostile", "1") + frame("GET", "hostile") + "*1\r\n$-5\r\n",
			"+OK\r\n$1\r\n1\r\n-ERR Protocol error: invalid bulk length\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := ts.eng.Stats.ProtocolErrors.Load()
			c := ts.dial(t)
			c.send(tt.in)
			if got := c.rest(); got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
			if n := ts.eng.Stats.ProtocolErrors.Load() - before; n != 1 {
				t.Fatalf("%d protocol errors counted", n)
			}
			other.ping()
		})
	}
}

// TestServerHugeLine: 100 MB without a newline ends in an error and a
// close after 64 KB, without the server buffering it.
func TestServerHugeLine(t *testing.T) {
	ts := startServer(t, engine.Config{}, Options{})
	other := ts.dial(t)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	c := ts.dial(t)
	sent := make(chan int64, 1)
	go func() {
		chunk := bytes.Repeat([]byte("x"), 64<<10)
		var n int64
		for n < 100<<20 {
			m, err := c.c.Write(chunk)
			n += int64(m)
			if err != nil {
				break
			}
		}
		sent <- n
	}()
	if got := c.rest(); got != "-ERR Protocol error: too big inline request\r\n" {
		t.Fatalf("got %q", got)
	}
	runtime.ReadMemStats(&after)
	if grown := int64(after.HeapInuse) - int64(before.HeapInuse); grown > 16<<20 {
		t.Fatalf("heap grew by %d bytes", grown)
	}
	c.c.Close()
	if n := <-sent; n >= 100<<20 {
		t.Fatalf("the server read all %d bytes", n)
	} else {
		t.Logf("sent %d bytes; heap grew by %d bytes", n, int64(after.HeapInuse)-int64(before.HeapInuse))
	}
	other.ping()
}

func TestServerIgnoresEmptyCommands(t *testing.T) {
	ts := startServer(t, engine.Config{}, Options{})
	c := ts.dial(t)
	c.send("*0\r\n")
	c.send("*-1\r\n\r\n  \r\n*0\r\n")
	c.ping()
	c.send("*0\r\n*1\r\n$4\r\nPING\r\n")
	if got := c.reply(); got != "+PONG\r\n" {
		t.Fatalf("got %q", got)
	}
}

// TestServerSplitPipeline: a pipeline sent at once, split in two at every
// byte boundary, one byte per write and in random chunks gets the same
// replies.
func TestServerSplitPipeline(t *testing.T) {
	ts := startServer(t, engine.Config{}, Options{})
	small := frame("SET", "k", "v") + "GET k\r\n" + "*0\r\n" + "ECHO \"a\\tb\"\r\n" + "\r\n" +
		frame("STRLEN", "k") + "PING\n" + frame("DEL", "k") + frame("GET", "k")
	const smallReplies = "+OK\r\n$1\r\nv\r\n$3\r\na\tb\r\n:1\r\n+PONG\r\n:1\r\n$-1\r\n"
	big := small + frame("SET", "big", strings.Repeat("z", 200<<10)) + frame("STRLEN", "big") + "DEL big\r\n"
	const bigReplies = smallReplies + "+OK\r\n:204800\r\n:1\r\n"
	run := func(pipeline, want string, split func(string) []string) {
		t.Helper()
		c := ts.dial(t)
		c.c.(*net.TCPConn).SetNoDelay(true)
		for _, part := range split(pipeline) {
			c.send(part)
		}
		var got strings.Builder
		for got.Len() < len(want) {
			got.WriteString(c.reply())
		}
		if got.String() != want {
			t.Fatalf("got %q, want %q", got.String(), want)
		}
	}
	run(small, smallReplies, func(s string) []string { return []string{s} })
	run(big, bigReplies, func(s string) []string { return []string{s} })
	for i := 1; i < len(small); i++ {
		run(small, smallReplies, func(s string) []string { return []string{s[:i], s[i:]} })
	}
	run(small, smallReplies, func(s string) []string { return strings.Split(s, "") })
	rng := rand.New(rand.NewPCG(5, 6))
	for range 10 {
		run(big, bigReplies, func(s string) []string {
			var parts []string
			for s != "" {
				n := min(len(s), 1+rng.IntN(300))
				parts = append(parts, s[:n])
				s = s[n:]
			}
			return parts
		})
	}
}

// TestServerInline: inline commands split as Redis splits them; the
// expected replies are redis-server 7.0.15's to the same bytes.
func TestServerInline(t *testing.T) {
	ts := startServer(t, engine.Config{}, Options{})
	tests := []struct{ line, want string }{
		{`ECHO "a b"`, "$3\r\na b\r\n"},
		{"ECHO\t\"tab\\there\"", "$8\r\ntab\there\r\n"},
		{`ECHO "\x41\x4a\x4"`, "$4\r\nAJx4\r\n"},
		{`ECHO "\n\r\t\b\a\\\"\q"`, "$8\r\n\n\r\t\x08\x07\\\"q\r\n"},
		{`ECHO 'it\'s'`, "$4\r\nit's\r\n"},
		{`ECHO foo"bar baz"`, "$10\r\nfoobar baz\r\n"},
		{"\tECHO\t\tx\t", "$1\r\nx\r\n"},
		{`ECHO '\x41'`, "$4\r\n\\x41\r\n"},
		{`ECHO "\xff\x00"`, "$2\r\n\xff\x00\r\n"},
		{`ECHO ""`, "$0\r\n\r\n"},
		{"ECHO a\vb", "$3\r\na\vb\r\n"},
		{`  ECHO   "\"q\""  `, "$3\r\n\"q\"\r\n"},
		{"ECHO a b", "-ERR wrong number of arguments for 'echo' command\r\n"},
	}
	c := ts.dial(t)
	for _, tt := range tests {
		c.send(tt.line + "\r\n")
		if got := c.reply(); got != tt.want {
			t.Errorf("%q: got %q, want %q", tt.line, got, tt.want)
		}
	}
	for _, line := range []string{`ECHO "a"b`, `echo 'a`} {
		c := ts.dial(t)
		c.send(line + "\r\n")
		if got := c.rest(); got != "-ERR Protocol error: unbalanced quotes in request\r\n" {
			t.Errorf("%q: got %q", line, got)
		}
	}
}

// TestServerUnauthenticated: the AUTH flow over a socket and the limits
// before AUTH, with redis-server 7.0.15's replies (--requirepass).
func TestServerUnauthenticated(t *testing.T) {
	ts := startServer(t, engine.Config{Params: map[string]string{"requirepass": "sekret"}}, Options{})
	const noauth = "-NOAUTH Authentication required.\r\n"
	t.Run("NOAUTH", func(t *testing.T) {
		c := ts.dial(t)
		for _, cmd := range []string{"PING\r\n", frame("GET", "k"), frame("SET", "k", "v"), "NOSUCH\r\n"} {
			c.send(cmd)
			got := c.reply()
			if cmd == "NOSUCH\r\n" {
				// The lookup comes first, as in Redis.
				if !strings.HasPrefix(got, "-ERR unknown command 'NOSUCH'") {
					t.Errorf("%q: got %q", cmd, got)
				}
				continue
			}
			if got != noauth {
				t.Errorf("%q: got %q", cmd, got)
			}
		}
		c.send("AUTH wrong\r\n")
		if got := c.reply(); got != "-WRONGPASS invalid username-password pair or user is disabled.\r\n" {
			t.Errorf("AUTH wrong: %q", got)
		}
		c.send("AUTH sekret\r\nPING\r\n")
		if got := c.reply() + c.reply(); got != "+OK\r\n+PONG\r\n" {
			t.Errorf("AUTH: %q", got)
		}
		c.send("QUIT\r\n")
		if got := c.rest(); got != "+OK\r\n" {
			t.Errorf("QUIT: %q", got)
		}
	})
	tests := []struct{ name, in, want string }{
		{"count", "*11\r\n", "-ERR Protocol error: unauthenticated multibulk length\r\n"},
		{"count over our cap", "*2000000\r\n", "-ERR Protocol error: unauthenticated multibulk length\r\n"},
		{"bulk", "*1\r\n$16385\r\n", "-ERR Protocol error: unauthenticated bulk length\r\n"},
		{"bulk over 512MB", "*1\r\n$600000000\r\n", "-ERR Protocol error: invalid bulk length\r\n"},
		{"after wrong AUTH", frame("AUTH", "bad") + "*11\r\n",
			"-WRONGPASS invalid username-password pair or user is disabled.\r\n" +
				"-ERR Protocol error: unauthenticated multibulk length\r\n"},
		{"after RESET", frame("AUTH", "sekret") + frame("RESET") + "*11\r\n",
			"+OK\r\n+RESET\r\n-ERR Protocol error: unauthenticated multibulk length\r\n"},
		{"after inline RESET", "AUTH sekret\r\nRESET\r\n*11\r\n",
			"+OK\r\n+RESET\r\n-ERR Protocol error: unauthenticated multibulk length\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ts.dial(t)
			c.send(tt.in)
			if got := c.rest(); got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
	t.Run("limits lift after AUTH in the same write", func(t *testing.T) {
		c := ts.dial(t)
		big := strings.Repeat("v", 20000)
		c.send(frame("AUTH", "sekret") + frame("SET", "big", big) + frame("MSET", "a", "1", "b", "2", "c", "3", "d", "4", "e", "5") + frame("STRLEN", "big"))
		if got := c.reply() + c.reply() + c.reply() + c.reply(); got != "+OK\r\n+OK\r\n+OK\r\n:20000\r\n" {
			t.Fatalf("got %q", got)
		}
	})
	t.Run("inline has no limit", func(t *testing.T) {
		c := ts.dial(t)
		c.send("PING a b c d e f g h i j k l m\r\n")
		if got := c.reply(); got != "-NOAUTH Authentication required.\r\n" {
			t.Fatalf("got %q", got)
		}
	})
}

// TestServerMaxClients: the client over the limit gets Redis's error and a
// close; the slot frees when a client leaves.
func TestServerMaxClients(t *testing.T) {
	ts := startServer(t, engine.Config{}, Options{MaxClients: 2})
	a, b := ts.dial(t), ts.dial(t)
	a.ping()
	b.ping()
	c := ts.dial(t)
	if got := c.rest(); got != "-ERR max number of clients reached\r\n" {
		t.Fatalf("got %q", got)
	}
	if n := ts.eng.Stats.Rejected.Load(); n != 1 {
		t.Fatalf("rejected %d", n)
	}
	a.c.Close()
	waitFor(t, func() bool { return ts.ClientCount() == 1 })
	d := ts.dial(t)
	d.ping()
	b.ping()
}

// serverGoroutines returns the stacks of the goroutines running redcon or
// Server code.
func serverGoroutines() []string {
	buf := make([]byte, 1<<20)
	var out []string
	for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
		if strings.Contains(g, "tidwall/redcon") || strings.Contains(g, "lockredis/resp.(*") {
			out = append(out, g)
		}
	}
	return out
}

// waitFor polls cond for up to 10 seconds.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for range 1000 {
		if cond() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("condition not met")
}

// TestServerPanicRecovered: a panicking command gets an error reply and
// leaves the server, the connection and the keyspace working.
func TestServerPanicRecovered(t *testing.T) {
	ts := startServer(t, engine.Config{}, Options{})
	ts.eng.Register(
		&engine.Command{Name: "boom", Spec: engine.NewSpec(1, engine.FlagNoKeyspace), Handler: func(*engine.Call) { panic("boom") }},
		&engine.Command{Name: "boomwrite", Spec: engine.NewSpec(2, engine.FlagWrite, 1, 1, 1),
			Handler: func(c *engine.Call) {
				c.Tx.Put(c.Args[1], engine.Value{Type: engine.TypeString, Payload: "half"})
				panic("boom")
			}},
	)
	c := ts.dial(t)
	other := ts.dial(t)
	want := "-" + engine.ErrPanic.Error() + "\r\n"
	c.send("BOOM\r\nPING\r\n")
	if got := c.reply() + c.reply(); got != want+"+PONG\r\n" {
		t.Fatalf("got %q", got)
	}
	c.send(frame("BOOMWRITE", "k") + frame("EXISTS", "k"))
	if got := c.reply() + c.reply(); got != want+":0\r\n" {
		t.Fatalf("got %q", got)
	}
	other.ping()
}

// TestServerClose: Close closes every connection, idle or mid-command, and
// returns only once their goroutines are done.
func TestServerClose(t *testing.T) {
	eng, err := engine.New(engine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	started, release := make(chan struct{}), make(chan struct{})
	var finished sync.WaitGroup
	eng.Register(&engine.Command{Name: "slow", Spec: engine.NewSpec(1, engine.FlagNoKeyspace), Handler: func(c *engine.Call) {
		finished.Add(1)
		defer finished.Done()
		close(started)
		<-release
		c.OK()
	}})
	srv := New(eng, Options{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	ts := &testServer{Server: srv, eng: eng, addr: ln.Addr().String()}

	idle := ts.dial(t)
	idle.ping()
	partial := ts.dial(t)
	partial.ping()
	partial.send("*2\r\n$3\r\nGET\r\n$10\r\nabc")
	inline := ts.dial(t)
	inline.ping()
	inline.send("GET k")
	running := ts.dial(t)
	running.send("SLOW\r\n")
	<-started
	waitFor(t, func() bool { return srv.ClientCount() == 4 })

	closed := make(chan error, 1)
	go func() { closed <- srv.Close() }()
	// Close waits for the command that is running.
	select {
	case err := <-closed:
		t.Fatalf("Close returned while a command runs: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	if err := <-served; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	finished.Wait()
	for name, c := range map[string]*rawClient{"idle": idle, "partial": partial, "inline": inline} {
		if got := c.rest(); got != "" {
			t.Errorf("%s: got %q before the close", name, got)
		}
	}
	// The running command's reply may or may not get out; the close must.
	running.rest()
	if n := srv.ClientCount(); n != 0 {
		t.Fatalf("%d clients after Close", n)
	}
	if _, err := net.Dial("tcp", ts.addr); err == nil {
		t.Fatal("still accepting")
	}
	// Every connection goroutine has finished its work (Close waited for
	// them); give them a moment to return.
	for i := 0; len(serverGoroutines()) > 0; i++ {
		if i == 100 {
			t.Fatalf("goroutines left after Close:\n%s", strings.Join(serverGoroutines(), "\n\n"))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestServerVersusRedisOracle sends the same bytes to lockredis and to a
// real redis-server and compares everything that comes back, and whether
// the connection closes. It runs only when RESP_ORACLE names a
// redis-server 7.0 without a password (and RESP_ORACLE_AUTH one started
// with --requirepass sekret), e.g.
//
//	redis-server --port 6437 --save '' --daemonize yes
//	redis-server --port 6438 --save '' --daemonize yes --requirepass sekret
//	RESP_ORACLE=127.0.0.1:6437 RESP_ORACLE_AUTH=127.0.0.1:6438 go test ./resp -run Oracle
func TestServerVersusRedisOracle(t *testing.T) {
	plain, auth := os.Getenv("RESP_ORACLE"), os.Getenv("RESP_ORACLE_AUTH")
	if plain == "" {
		t.Skip("RESP_ORACLE not set")
	}
	inputs := []string{
		"*1\r\n$9223372036854775806\r\nabc\r\n",
		"*9000000000000000000\r\n$4\r\nPING\r\n",
		// Not "*2147483647": Redis waits for the arguments, lockredis caps
		// the count at Limits.MaxMultibulkLen.
		"*2147483648\r\n", "*1\r\n$536870913\r\n", "*1\r\n$536870912\r\n",
		"*0\r\n" + frame("PING"), "*-1\r\n" + frame("PING"), "*-9223372036854775808\r\nPING\r\n",
		"*-9223372036854775809\r\n", "*+1\r\n$4\r\nPING\r\n", "*01\r\n$4\r\nPING\r\n", "* 1\r\n$4\r\nPING\r\n",
		"*\r\n$4\r\nPING\r\n", "*-0\r\nPING\r\n", "*1\r\n+4\r\nPING\r\n", "*1\r\n\r\n", "*1\r\n\n\r\n",
		"*1\r\n\xff\r\n", "*1\r\n$-1\r\nPING\r\n", "*1\r\n$-0\r\nPING\r\n", "*1\r\n$0004\r\nPING\r\n",
		"*1\r\n$ 4\r\nPING\r\n", "*1\r\n$4 \r\nPING\r\n", "*1\r\n$\r\nPING\r\n",
		frame("PING") + "*2147483648\r\n", "*1\rX$4\rXPINGxy" + frame("PING"),
		"*2\r\n$4\r\nECHO\r\n$3\r\nabcXY" + frame("PING"), "*1\x00\r\n$4\r\nPING\r\n", "*1\r\n\x00\r\n",
		"PING\x00\r\n", "PING\r\n\x00PING\r\n", frame("ECHO", "\x00\r\n"), "PING\r\n", "ECHO a\n", "ECHO a\rb\r\n",
		"\r\n\n   \r\n\t\nPING\r\n", frame("PING") + "ECHO x\r\n" + frame("PING") + "PING\r\nPING\r\n",
		"PING\r\nECHO \"a\r\nPING\r\n", `ECHO "a b"` + "\r\n", "ECHO\t\"tab\\there\"\r\n", `ECHO "\x41\x4a\x4"` + "\r\n",
		`ECHO "\n\r\t\b\a\\\"\q"` + "\r\n", `ECHO 'it\'s'` + "\r\n", `ECHO foo"bar baz"` + "\r\n", "\tECHO\t\tx\t\r\n",
		`ECHO '\x41'` + "\r\n", `ECHO "\xff\x00"` + "\r\n", `ECHO ""` + "\r\n", "ECHO a\vb\r\n", `  ECHO   "\"q\""  ` + "\r\n",
		"ECHO a b\r\n", `ECHO "a"b` + "\r\n", `echo 'a` + "\r\n", `ECHO '\\'` + "\r\n", `ECHO "trailing\` + "\r\n",
		"ECHO " + strings.Repeat("y", 64<<10-5) + "\r\n", strings.Repeat("x", 200<<10),
		"*1" + strings.Repeat("1", 200<<10), "*1\r\n$1" + strings.Repeat("1", 200<<10),
		frame("SET", "oracle", "1") + frame("GET", "oracle") + "*1\r\n$-5\r\n" + frame("DEL", "oracle"),
	}
	authInputs := []string{
		"*11\r\n", "*10\r\n", "*2000000\r\n", "*2147483648\r\n", "*1\r\n$16385\r\n", "*1\r\n$16384\r\n",
		"*1\r\n$600000000\r\n", "PING a b c d e f g h i j k l m\r\n", "PING\r\n" + frame("GET", "k"),
		frame("AUTH", "bad") + "*11\r\n", frame("AUTH", "sekret") + frame("RESET") + "*11\r\n",
		"AUTH sekret\r\nRESET\r\n*11\r\n", "AUTH sekret\r\n*11\r\n$4\r\nPING\r\n",
		frame("AUTH", "sekret") + frame("ECHO", strings.Repeat("v", 20000)),
		"AUTH wrong\r\nAUTH sekret\r\nPING\r\nQUIT\r\nPING\r\n",
	}
	compare := func(t *testing.T, ts *testServer, oracle string, inputs []string) {
		for _, in := range inputs {
			want, wantClosed := exchange(t, oracle, in)
			got, gotClosed := exchange(t, ts.addr, in)
			if got != want || gotClosed != wantClosed {
				t.Errorf("input %.80q:\nlockredis %.200q closed=%v\nredis     %.200q closed=%v", in, got, gotClosed, want, wantClosed)
			}
		}
	}
	compare(t, startServer(t, engine.Config{}, Options{}), plain, inputs)
	if auth != "" {
		compare(t, startServer(t, engine.Config{Params: map[string]string{"requirepass": "sekret"}}, Options{}), auth, authInputs)
	}
}

// exchange sends in on a new connection and returns what comes back until
// the server closes the connection or stays quiet for 300 ms.
func exchange(t *testing.T, addr, in string) (string, bool) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	go c.Write([]byte(in))
	var out []byte
	buf := make([]byte, 1<<16)
	for {
		c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
		n, err := c.Read(buf)
		out = append(out, buf[:n]...)
		if err != nil {
			var ne net.Error
			return string(out), !(errors.As(err, &ne) && ne.Timeout())
		}
	}
}

// TestProtocolErrorLogged: a protocol error is logged as Redis's
// setProtocolError logs it (verbose), with what was left of the read.
func TestProtocolErrorLogged(t *testing.T) {
	var mu sync.Mutex
	var lines []string
	ts := startServer(t, engine.Config{}, Options{Logf: func(level, format string, args ...any) {
		mu.Lock()
		lines = append(lines, level+" "+fmt.Sprintf(format, args...))
		mu.Unlock()
	}})
	c, err := net.Dial("tcp", ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write([]byte("*1\r\n$x\r\nPING\r\n"))
	io.Copy(io.Discard, c) // the server replies and closes
	mu.Lock()
	defer mu.Unlock()
	for _, l := range lines {
		if strings.HasPrefix(l, "verbose Protocol error (invalid bulk length) from client: addr=") &&
			strings.Contains(l, "Query buffer during protocol error: '") {
			return
		}
	}
	t.Errorf("no protocol error log line in %q", lines)
}

// TestMaxClientsLogged: refusing a client for maxclients is logged, once a
// minute at most however many are refused.
func TestMaxClientsLogged(t *testing.T) {
	var mu sync.Mutex
	var lines []string
	ts := startServer(t, engine.Config{}, Options{MaxClients: 1, Logf: func(level, format string, args ...any) {
		mu.Lock()
		lines = append(lines, fmt.Sprintf(format, args...))
		mu.Unlock()
	}})
	first, err := net.Dial("tcp", ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	first.Write([]byte("PING\r\n"))
	io.ReadFull(first, make([]byte, 7))
	for range 3 {
		c, err := net.Dial("tcp", ts.addr)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, c) // refused and closed
		c.Close()
	}
	mu.Lock()
	defer mu.Unlock()
	n := 0
	for _, l := range lines {
		if strings.HasPrefix(l, "Max number of clients reached (maxclients 1)") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d max clients log lines, want 1: %q", n, lines)
	}
}
