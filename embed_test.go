package lockredis

import (
	"bufio"
	"net"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// rawDo sends one inline command and returns the first reply line.
func rawDo(t *testing.T, c net.Conn, rd *bufio.Reader, line string) string {
	t.Helper()
	if _, err := c.Write([]byte(line + "\r\n")); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	s, err := rd.ReadString('\n')
	if err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	return strings.TrimRight(s, "\r\n")
}

// dialT connects to srv for the rest of the test.
func dialT(t *testing.T, srv *Server) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, bufio.NewReader(c)
}

func TestFastForwardExpiresLeases(t *testing.T) {
	srv := RunT(t)
	if err := srv.SetTTL("lock", "owner", 30*time.Second); err != nil {
		t.Fatal(err)
	}
	if ttl := srv.TTL("lock"); ttl <= 29*time.Second || ttl > 30*time.Second {
		t.Fatalf("TTL = %v", ttl)
	}
	srv.FastForward(29 * time.Second)
	if !srv.Exists("lock") {
		t.Fatal("lock expired early")
	}
	srv.FastForward(2 * time.Second)
	if srv.Exists("lock") {
		t.Fatal("lock survived its lease")
	}
	if got := srv.Keys(); len(got) != 0 {
		t.Fatalf("Keys = %q", got)
	}
}

// Without FastForward, leases still run out in real time.
func TestRealTimeExpiry(t *testing.T) {
	srv := RunT(t)
	c, rd := dialT(t, srv)
	if got := rawDo(t, c, rd, "SET lock me NX PX 50"); got != "+OK" {
		t.Fatal(got)
	}
	if got := rawDo(t, c, rd, "SET lock you NX PX 50"); got != "$-1" {
		t.Fatal(got)
	}
	time.Sleep(100 * time.Millisecond)
	if got := rawDo(t, c, rd, "SET lock you NX PX 50"); got != "+OK" {
		t.Fatalf("lease did not run out in real time: %s", got)
	}
}

func TestManualClock(t *testing.T) {
	start := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	srv := NewServer(Options{ManualClock: true, StartTime: start})
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	srv.SetTTL("k", "v", time.Second)
	time.Sleep(20 * time.Millisecond)
	if ttl := srv.TTL("k"); ttl != time.Second {
		t.Fatalf("manual clock moved: TTL %v", ttl)
	}
	if got := srv.Do("TIME").Elems[0].Str; got != "1893456000" {
		t.Fatalf("TIME = %s", got)
	}
	srv.FastForward(time.Second)
	if !srv.Exists("k") {
		t.Fatal("gone at its expiry millisecond")
	}
	srv.FastForward(time.Millisecond)
	if srv.Exists("k") {
		t.Fatal("still there after expiry")
	}
}

func TestHelpers(t *testing.T) {
	srv := RunT(t)
	srv.Set("a", "1")
	srv.Set("b", "2")
	if v, err := srv.Get("a"); err != nil || v != "1" {
		t.Fatalf("Get = %q, %v", v, err)
	}
	if _, err := srv.Get("nope"); err != ErrKeyNotFound {
		t.Fatalf("Get missing: %v", err)
	}
	if net.JoinHostPort(srv.Host(), strconv.Itoa(srv.Port())) != srv.Addr() {
		t.Fatalf("Host %q Port %d Addr %q", srv.Host(), srv.Port(), srv.Addr())
	}
	if srv.Engine().Databases() != 16 {
		t.Fatal("Engine")
	}
	at := time.Date(2031, 5, 1, 0, 0, 0, 0, time.UTC)
	srv.SetTime(at)
	if d := srv.Now().Sub(at); d < 0 || d > time.Minute {
		t.Fatalf("Now after SetTime: %v", srv.Now())
	}
	if got := strings.Join(srv.Keys(), ","); got != "a,b" {
		t.Fatalf("Keys = %s", got)
	}
	if !srv.Del("a") || srv.Del("a") {
		t.Fatal("Del")
	}
	if d := srv.Dump(); d != "b (string) \"2\"\n" {
		t.Fatalf("Dump = %q", d)
	}
	srv.FlushAll()
	if len(srv.Keys()) != 0 {
		t.Fatal("FlushAll")
	}
}

// Many servers live in one process and share nothing.
func TestIndependentServers(t *testing.T) {
	nodes := RunCluster(t, 3)
	nodes[0].Set("k", "0")
	if nodes[1].Exists("k") {
		t.Fatal("servers share a keyspace")
	}
	nodes[1].SetTTL("k", "1", time.Second)
	nodes[2].SetTTL("k", "2", time.Second)
	nodes[1].FastForward(2 * time.Second)
	if nodes[1].Exists("k") || !nodes[2].Exists("k") {
		t.Fatal("servers share a clock")
	}
	if len(nodes.Addrs()) != 3 || nodes.Addrs()[0] == nodes.Addrs()[1] {
		t.Fatalf("Addrs = %q", nodes.Addrs())
	}
}

// Close releases the port and every goroutine the server started.
func TestCloseReleasesEverything(t *testing.T) {
	before := runtime.NumGoroutine()
	srv, err := Run()
	if err != nil {
		t.Fatal(err)
	}
	addr := srv.Addr()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	rd := bufio.NewReader(c)
	rawDo(t, c, rd, "PING")
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	c.Close()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("port not released: %v", err)
	}
	ln.Close()
	// buntdb's background goroutine needs up to a second to notice Close.
	deadline := time.Now().Add(3 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<16)
		t.Fatalf("%d goroutines left over (before: %d)\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}
}

// A paused server keeps connections open but answers nothing until Resume.
func TestPauseResume(t *testing.T) {
	srv := RunT(t)
	c, rd := dialT(t, srv)
	srv.Pause()
	c.Write([]byte("PING\r\n"))
	c.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	if _, err := rd.ReadString('\n'); err == nil {
		t.Fatal("paused server answered")
	}
	srv.Resume()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if s, err := rd.ReadString('\n'); err != nil || s != "+PONG\r\n" {
		t.Fatalf("after Resume: %q %v", s, err)
	}
}

// TestDoIsAClient: Server.Do runs as a client of its own, through the same
// checks as a connection: MULTI queues, EXEC runs, SELECT sticks.
func TestDoIsAClient(t *testing.T) {
	srv := RunT(t)
	for _, step := range []struct {
		args []string
		want string
	}{
		{[]string{"MULTI"}, "OK"},
		{[]string{"SET", "a", "1"}, "QUEUED"},
		{[]string{"INCR", "a"}, "QUEUED"},
		{[]string{"EXEC"}, "[OK (integer) 2]"},
		{[]string{"GET"}, "(error) ERR wrong number of arguments for 'get' command"},
		{[]string{"SELECT", "3"}, "OK"},
		{[]string{"SET", "b", "x"}, "OK"},
		{[]string{"GET", "a"}, "(nil)"},
		{[]string{"SELECT", "0"}, "OK"},
		{[]string{"GET", "a"}, `"2"`},
	} {
		if got := srv.Do(step.args...).String(); got != step.want {
			t.Errorf("Do%q = %s, want %s", step.args, got, step.want)
		}
	}
	// The direct helpers are a client of their own too: Do's MULTI does
	// not capture them, and DB(n) picks the database.
	srv.Do("MULTI")
	if err := srv.Set("c", "3"); err != nil {
		t.Fatal(err)
	}
	srv.Do("DISCARD")
	if v, err := srv.Get("c"); err != nil || v != "3" {
		t.Errorf("Get(c) = %q, %v", v, err)
	}
	if v, err := srv.DB(3).Get("b"); err != nil || v != "x" {
		t.Errorf("DB(3).Get(b) = %q, %v", v, err)
	}
	if srv.Exists("b") {
		t.Error("b is in database 3, not 0")
	}
	if err := srv.DB(99).Set("k", "v"); err == nil {
		t.Error("DB(99) should fail: there are 16 databases")
	}
}
