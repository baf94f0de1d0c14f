package lockredis

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/lockredis/lockredis/engine"
)

// lockConn is a raw RESP connection for the lock tests.
type lockConn struct {
	t  *testing.T
	c  net.Conn
	rd *bufio.Reader
}

func dialLock(t *testing.T, addr string) *lockConn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &lockConn{t, c, bufio.NewReader(c)}
}

// send writes a command as a multibulk.
func (lc *lockConn) send(args ...string) {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := lc.c.Write([]byte(b.String())); err != nil {
		lc.t.Error(err)
	}
}

// read returns the next reply's first line (enough for the integer,
// nil and bulk-less replies these tests read; a bulk's data line is
// appended after a space).
func (lc *lockConn) read(timeout time.Duration) (string, error) {
	lc.c.SetReadDeadline(time.Now().Add(timeout))
	line, err := lc.rd.ReadString('\n')
	if err != nil {
		return "", err
	}
	line = strings.TrimRight(line, "\r\n")
	if strings.HasPrefix(line, "$") && line != "$-1" {
		data, err := lc.rd.ReadString('\n')
		if err != nil {
			return "", err
		}
		line += " " + strings.TrimRight(data, "\r\n")
	}
	return line, nil
}

func (lc *lockConn) do(args ...string) string {
	lc.t.Helper()
	lc.send(args...)
	r, err := lc.read(10 * time.Second)
	if err != nil {
		lc.t.Fatalf("%q: %v", args, err)
	}
	return r
}

// infoLocks reads one INFO locks field.
func infoLocks(t *testing.T, srv *Server, field string) int64 {
	t.Helper()
	for _, line := range strings.Split(srv.Do("INFO", "locks").Str, "\r\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	t.Fatalf("INFO locks has no %s", field)
	return 0
}

// waitFor polls cond (a state change over sockets takes a moment to be
// seen by the server) for up to 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// 1,000 clients queue for one key over real sockets: each is granted the
// lock in arrival order, alone, once per release.
func TestLockQueueThousandWaitersOverSockets(t *testing.T) {
	const n = 1000
	srv := RunT(t)
	holder := dialLock(t, srv.Addr())
	if got := holder.do("LOCK.ACQUIRE", "q", "holder", "60000"); !strings.HasPrefix(got, ":") {
		t.Fatal(got)
	}
	// Connect from a pool of goroutines, then queue one by one so that
	// the arrival order is known.
	conns := make([]*lockConn, n)
	var wg sync.WaitGroup
	next := atomic.Int64{}
	for g := 0; g < 32; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				c, err := net.Dial("tcp", srv.Addr())
				if err != nil {
					t.Error(err)
					return
				}
				conns[i] = &lockConn{t, c, bufio.NewReader(c)}
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	defer func() {
		for _, c := range conns {
			c.c.Close()
		}
	}()
	for i, c := range conns {
		c.send("LOCK.ACQUIRE", "q", "w"+strconv.Itoa(i), "60000", "WAIT", "0")
		waitFor(t, "waiter "+strconv.Itoa(i), func() bool { return srv.Engine().BlockedClients() == i+1 })
	}

	var (
		mu      sync.Mutex
		order   []int
		holding atomic.Int32
	)
	grantsBefore := infoLocks(t, srv, "queue_grants")
	for i, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := c.read(60 * time.Second)
			if err != nil || !strings.HasPrefix(got, ":") {
				t.Errorf("waiter %d: %q %v", i, got, err)
				return
			}
			if holding.Add(1) != 1 {
				t.Errorf("waiter %d granted while another holds the lock", i)
			}
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
			owner := "w" + strconv.Itoa(i)
			if got := c.do("GET", "q"); got != "$2 "+owner && got != "$3 "+owner && got != "$4 "+owner {
				t.Errorf("waiter %d granted, GET q = %q", i, got)
			}
			holding.Add(-1)
			if got := c.do("LOCK.RELEASE", "q", owner); got != ":1" {
				t.Errorf("waiter %d release: %q", i, got)
			}
		}()
	}
	holder.do("LOCK.RELEASE", "q", "holder")
	wg.Wait()
	for i, w := range order {
		if w != i {
			t.Fatalf("grant %d went to waiter %d: not FIFO", i, w)
		}
	}
	// Exactly one grant per release: n releases of the holder and waiters
	// but the last, n grants.
	if got := infoLocks(t, srv, "queue_grants") - grantsBefore; got != n {
		t.Errorf("%d queue grants for %d releases", got, n)
	}
	t.Logf("wait p50 %s ms, p99 %s ms", infoField(srv, "wait_time_p50_ms"), infoField(srv, "wait_time_p99_ms"))
}

func infoField(srv *Server, field string) string {
	for _, line := range strings.Split(srv.Do("INFO", "locks").Str, "\r\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return v
		}
	}
	return ""
}

// A waiter whose WAIT runs out gets nil and leaves the queue; one that
// disconnects leaves it too, and the next waiter is served.
func TestLockWaitTimeoutAndDisconnect(t *testing.T) {
	srv := RunT(t)
	holder := dialLock(t, srv.Addr())
	holder.do("LOCK.ACQUIRE", "k", "holder", "60000")
	if got := dialLock(t, srv.Addr()).do("LOCK.ACQUIRE", "k", "x", "1000", "WAIT", "20"); got != "$-1" {
		t.Errorf("timed-out wait: %q", got)
	}
	gone := dialLock(t, srv.Addr())
	gone.send("LOCK.ACQUIRE", "k", "gone", "60000", "WAIT", "0")
	last := dialLock(t, srv.Addr())
	waitFor(t, "the first waiter", func() bool { return srv.Engine().BlockedClients() == 1 })
	last.send("LOCK.ACQUIRE", "k", "last", "60000", "WAIT", "0")
	waitFor(t, "the second waiter", func() bool { return srv.Engine().BlockedClients() == 2 })
	gone.c.Close()
	waitFor(t, "the disconnect", func() bool { return srv.Engine().BlockedClients() == 1 })
	holder.do("DEL", "k")
	if got, err := last.read(10 * time.Second); err != nil || !strings.HasPrefix(got, ":") {
		t.Fatalf("last waiter: %q %v", got, err)
	}
	if got := holder.do("GET", "k"); got != "$4 last" {
		t.Errorf("GET k = %q", got)
	}
	if infoLocks(t, srv, "wait_timeouts") != 1 || infoLocks(t, srv, "wait_aborts") != 1 {
		t.Errorf("INFO locks:\n%s", srv.Do("INFO", "locks").Str)
	}
}

// A lock that expires with waiters is handed over by its deadline timer,
// with no other client touching the key. How late is logged, never
// asserted.
func TestLockExpiryHandOverLateness(t *testing.T) {
	srv := RunT(t)
	// Only the timers may hand over: the sweeper, which also would on a
	// loaded machine, is off.
	srv.Engine().SetActiveExpire(false)
	holder := dialLock(t, srv.Addr())
	waiter := dialLock(t, srv.Addr())
	for i := 0; i < 20; i++ {
		key := "e" + strconv.Itoa(i)
		holder.do("LOCK.ACQUIRE", key, "holder", "30")
		waiter.send("LOCK.ACQUIRE", key, "waiter", "60000", "WAIT", "0")
		if got, err := waiter.read(10 * time.Second); err != nil || !strings.HasPrefix(got, ":") {
			t.Fatalf("waiter: %q %v", got, err)
		}
	}
	// A waiter whose command arrives after the 30 ms have passed (a slow,
	// loaded machine) takes the free lock at once, not by a hand-over: so
	// at least one, at most 20, were the timers'.
	if got := infoLocks(t, srv, "expiry_handovers"); got < 1 || got > 20 {
		t.Errorf("expiry_handovers = %d, want 1..20", got)
	}
	t.Logf("expiry hand-over late by p50 %s ms, p99 %s ms (20 locks, 30 ms TTL)",
		infoField(srv, "expiry_handover_late_p50_ms"), infoField(srv, "expiry_handover_late_p99_ms"))
}

// sessionHelperEnv makes the test binary a lock holder: it takes the
// SESSION lock the variable names ("addr key owner lockdelay"), says
// "held" and waits to be killed.
const sessionHelperEnv = "LOCKREDIS_SESSION_HELPER"

func TestMain(m *testing.M) {
	if spec := os.Getenv(sessionHelperEnv); spec != "" {
		f := strings.Fields(spec)
		c, err := net.Dial("tcp", f[0])
		if err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		fmt.Fprintf(c, "*7\r\n$12\r\nLOCK.ACQUIRE\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n$5\r\n60000\r\n$7\r\nSESSION\r\n$9\r\nLOCKDELAY\r\n$%d\r\n%s\r\n",
			len(f[1]), f[1], len(f[2]), f[2], len(f[3]), f[3])
		line, err := bufio.NewReader(c).ReadString('\n')
		if err != nil || !strings.HasPrefix(line, ":") {
			fmt.Println("not granted:", line, err)
			os.Exit(1)
		}
		fmt.Println("held")
		time.Sleep(time.Hour) // until killed
	}
	os.Exit(m.Run())
}

// startHolder runs the helper process and waits until it holds the lock.
func startHolder(t *testing.T, addr, key, owner string, lockDelay int) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s %s %s %d", sessionHelperEnv, addr, key, owner, lockDelay))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "held\n" {
		t.Fatalf("helper: %q %v", line, err)
	}
	return cmd
}

// A SESSION lock whose holder process is killed with SIGKILL goes to the
// waiter, long before its 60 s TTL; with a lock-delay, the dead owner
// keeps it for the delay first.
func TestLockSessionKill9(t *testing.T) {
	for _, delay := range []int{0, 300} {
		t.Run("lockdelay="+strconv.Itoa(delay), func(t *testing.T) {
			srv := RunT(t)
			holder := startHolder(t, srv.Addr(), "s", "dead", delay)
			waiter := dialLock(t, srv.Addr())
			waiter.send("LOCK.ACQUIRE", "s", "waiter", "60000", "WAIT", "0")
			waitFor(t, "the waiter", func() bool { return srv.Engine().BlockedClients() == 1 })
			clients := srv.srv.ClientCount()
			killed := time.Now()
			if err := holder.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			if delay > 0 {
				// The connection is gone, the lock still the dead owner's.
				waitFor(t, "the disconnect", func() bool { return srv.srv.ClientCount() == clients-1 })
				if v, _ := srv.Get("s"); v != "dead" {
					t.Fatalf("right after the kill, s = %q", v)
				}
				if ttl := srv.TTL("s"); ttl <= 0 || ttl > time.Duration(delay)*time.Millisecond {
					t.Errorf("TTL during the lock-delay: %v", ttl)
				}
			}
			if got, err := waiter.read(10 * time.Second); err != nil || !strings.HasPrefix(got, ":") {
				t.Fatalf("waiter: %q %v", got, err)
			}
			t.Logf("granted %v after the kill (lock-delay %d ms)", time.Since(killed), delay)
			if v, _ := srv.Get("s"); v != "waiter" {
				t.Errorf("s = %q", v)
			}
			if got := infoLocks(t, srv, "session_releases"); got != 1 {
				t.Errorf("session_releases = %d", got)
			}
		})
	}
}

// SESSION ends with the connection whichever way it closes.
func TestLockSessionQuitAndClose(t *testing.T) {
	srv := RunT(t)
	for _, how := range []string{"QUIT", "close", "RST"} {
		c := dialLock(t, srv.Addr())
		c.do("LOCK.ACQUIRE", "s-"+how, "me", "60000", "SESSION")
		switch how {
		case "QUIT":
			c.do("QUIT")
		case "close":
			c.c.Close()
		case "RST":
			c.c.(*net.TCPConn).SetLinger(0)
			c.c.Close()
		}
		waitFor(t, "release after "+how, func() bool { return !srv.Exists("s-" + how) })
	}
}

// A waiter is not handed a lock while the restart fence refuses new keys:
// it gets the fence's TRYAGAIN instead, as a SET NX would.
func TestLockHandOverRespectsRestartFence(t *testing.T) {
	dir := t.TempDir()
	first := NewServer(Options{Dir: dir, AppendOnly: true, AppendFsync: "always", RestartFence: "off"})
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	dialLock(t, first.Addr()).do("LOCK.ACQUIRE", "k", "holder", "60000")
	first.Close()
	// As if it had crashed: the state file says it was still running.
	state := filepath.Join(dir, engine.StateFileName)
	b, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(state, bytes.Replace(b, []byte("marker clean"), []byte("marker running"), 1), 0o644); err != nil {
		t.Fatal(err)
	}

	srv := NewServer(Options{Dir: dir, AppendOnly: true, RestartFence: "30s"})
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	holder := dialLock(t, srv.Addr())
	if got := holder.do("GET", "k"); got != "$6 holder" {
		t.Fatalf("the lock did not survive the restart: %q", got)
	}
	waiter := dialLock(t, srv.Addr())
	waiter.send("LOCK.ACQUIRE", "k", "waiter", "60000", "WAIT", "0")
	waitFor(t, "the waiter", func() bool { return srv.Engine().BlockedClients() == 1 })
	if got := holder.do("LOCK.RELEASE", "k", "holder"); got != ":1" {
		t.Fatalf("release during the fence: %q", got)
	}
	got, err := waiter.read(10 * time.Second)
	if err != nil || !strings.HasPrefix(got, "-TRYAGAIN restart fence") {
		t.Errorf("waiter during the fence: %q %v; want TRYAGAIN", got, err)
	}
	if got := holder.do("EXISTS", "k"); got != ":0" {
		t.Errorf("the fence let the hand-over create the key: EXISTS = %q", got)
	}
}
