package compat

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The idle timeout closes an idle client and spares subscribed and
// blocked ones, as Redis's clientsCronHandleTimeout; set by flag or by
// CONFIG SET (applied at once). The idle client is the last to talk, so
// when it is closed the others have been idle longer: were they not
// spared, they would be gone too. Run on both servers.
func TestIdleTimeout(t *testing.T) {
	for _, tc := range []struct {
		name      string
		args      []string
		configSet bool
	}{
		{"flag", []string{"--timeout", "1"}, false},
		{"config set", nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for name, addr := range map[string]string{
				"lockredis":    startBinary(t, tc.args...),
				"redis-server": startRedis(t, tc.args...),
			} {
				sub := dialRaw(t, addr)
				sub.do(t, "SUBSCRIBE", "ch")
				blocked := dialRaw(t, addr)
				blocked.c.Write(encodeCommand([]string{"BLPOP", "list", "0"}))
				admin := dialRaw(t, addr)
				if tc.configSet {
					if v := admin.do(t, "CONFIG", "SET", "timeout", "1"); v != "+OK\r\n" {
						t.Fatalf("%s: CONFIG SET timeout: %q", name, v)
					}
				}
				if v := admin.do(t, "CONFIG", "GET", "timeout"); v != "*2\r\n$7\r\ntimeout\r\n$1\r\n1\r\n" {
					t.Errorf("%s: CONFIG GET timeout = %q", name, v)
				}
				idle := dialRaw(t, addr)
				idle.do(t, "PING")
				if got := readUntilClosed(t, idle.c); got != "" {
					t.Errorf("%s: the idle client got %q before closing", name, got)
				}
				// Redis closes admin too (idle as long); reconnect.
				admin = dialRaw(t, addr)
				if v := admin.do(t, "LPUSH", "list", "v"); v != ":1\r\n" {
					t.Errorf("%s: LPUSH: %q", name, v)
				}
				blocked.c.SetDeadline(time.Now().Add(replyTimeout))
				if v, err := readReply(blocked.r); err != nil || string(v) != "*2\r\n$4\r\nlist\r\n$1\r\nv\r\n" {
					t.Errorf("%s: the blocked client: %q, %v", name, v, err)
				}
				admin.do(t, "PUBLISH", "ch", "hello")
				sub.c.SetDeadline(time.Now().Add(replyTimeout))
				if v, err := readReply(sub.r); err != nil || string(v) != "*3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$5\r\nhello\r\n" {
					t.Errorf("%s: the subscriber: %q, %v", name, v, err)
				}
			}
		})
	}
}

// raiseNofile raises this process's open-files limit to its hard limit
// and returns it (Go does this at start on Linux; this makes it explicit).
func raiseNofile(t *testing.T) uint64 {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		t.Skipf("getrlimit: %v", err)
	}
	l.Cur = l.Max
	syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l)
	return uint64(l.Cur)
}

// 10,000 concurrent connections to the built binary, 1,000 of them busy:
// every connection is served, each busy one answers every PING, the
// maxclients+1st is refused with Redis's error and counted, and once all
// have closed the server is back to one client and still answers. If the
// hard open-files limit is below what 10,000 need, as many as it allows
// (the test logs how many).
func TestConnectionStorm(t *testing.T) {
	if testing.Short() {
		t.Skip("10,000 connections")
	}
	const want, active, rounds = 10000, 1000, 20
	n := want
	if limit := raiseNofile(t); limit < want+200 {
		n = int(limit) - 200
		t.Logf("open-files hard limit %d: %d connections instead of %d", limit, n, want)
	}
	addr := startBinary(t, "--maxclients", strconv.Itoa(n+1))
	admin := dialRaw(t, addr)
	conns := make([]*rawConn, n)
	for i := range conns {
		c, err := dial(addr)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		conns[i] = c
	}
	defer func() {
		for _, c := range conns {
			c.c.Close()
		}
	}()
	// Every connection: one PING, all sent before any reply is read.
	ping := encodeCommand([]string{"PING"})
	for i, c := range conns {
		c.c.SetDeadline(time.Now().Add(time.Minute))
		if _, err := c.c.Write(ping); err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
	}
	for i, c := range conns {
		if v, err := readReply(c.r); err != nil || string(v) != "+PONG\r\n" {
			t.Fatalf("connection %d: %q, %v", i, v, err)
		}
	}
	if got := infoField(t, admin, "clients", "connected_clients"); got != strconv.Itoa(n+1) {
		t.Errorf("connected_clients = %s, want %d", got, n+1)
	}
	// One more is over maxclients.
	extra := dialRaw(t, addr)
	if got := readUntilClosed(t, extra.c); got != "-ERR max number of clients reached\r\n" {
		t.Errorf("over maxclients: %q", got)
	}
	// The active ones, from 50 goroutines of 20 connections each.
	var wg sync.WaitGroup
	errs := make(chan error, 50)
	for g := 0; g < 50; g++ {
		wg.Add(1)
		go func(mine []*rawConn) {
			defer wg.Done()
			for r := 0; r < rounds; r++ {
				for _, c := range mine {
					if v, err := c.roundTrip(ping); err != nil || string(v) != "+PONG\r\n" {
						errs <- fmt.Errorf("round %d: %q, %v", r, v, err)
						return
					}
				}
			}
		}(conns[g*active/50 : (g+1)*active/50])
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for _, c := range conns {
		c.c.Close()
	}
	deadline := time.Now().Add(time.Minute)
	for infoField(t, admin, "clients", "connected_clients") != "1" {
		if time.Now().After(deadline) {
			t.Fatalf("connected_clients still %s", infoField(t, admin, "clients", "connected_clients"))
		}
		time.Sleep(50 * time.Millisecond)
	}
	if v := dialRaw(t, addr).do(t, "PING"); v != "+PONG\r\n" {
		t.Fatalf("PING after the storm: %q", v)
	}
	if got := infoField(t, admin, "stats", "rejected_connections"); got != "1" {
		t.Errorf("rejected_connections = %s, want 1", got)
	}
}

// With a hard open-files limit too low for maxclients, the binary lowers
// maxclients with Redis's warnings, or refuses to start when not even the
// reserved descriptors fit.
func TestOpenFilesLimit(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	// A process that may raise its hard limit (CAP_SYS_RESOURCE) gets
	// what it asks for: the reduction cannot happen there.
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		t.Skip(err)
	}
	raised := l
	raised.Max++
	if syscall.Setrlimit(syscall.RLIMIT_NOFILE, &raised) == nil {
		syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l)
		t.Skip("this process may raise its hard open-files limit: no reduction to show")
	}
	bin := lockredisBinary(t)
	t.Run("reduced", func(t *testing.T) {
		port := freePort(t)
		logfile := filepath.Join(t.TempDir(), "log")
		cmd := exec.Command(sh, "-c", fmt.Sprintf(`ulimit -n 200 && exec "$0" --port %d --bind 127.0.0.1 --dir "$1" --logfile "$2" --maxclients 10000`, port),
			bin, t.TempDir(), logfile)
		dieWithTest(cmd)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		t.Cleanup(func() { cmd.Process.Signal(syscall.SIGTERM); <-done })
		addr := "127.0.0.1:" + strconv.Itoa(port)
		if _, err := waitPing(addr, nil); err != nil {
			t.Fatal(err)
		}
		if v := dialRaw(t, addr).do(t, "CONFIG", "GET", "maxclients"); v != "*2\r\n$10\r\nmaxclients\r\n$3\r\n168\r\n" {
			t.Errorf("CONFIG GET maxclients = %q", v)
		}
		log, _ := os.ReadFile(logfile)
		for _, line := range []string{
			"# You requested maxclients of 10000 requiring at least 10032 max file descriptors.",
			"# Server can't set maximum open files to 10032 because of OS error: Operation not permitted.",
			"# Current maximum open files is 200. maxclients has been reduced to 168 to compensate for low ulimit. If you need higher maxclients increase 'ulimit -n'.",
		} {
			if !strings.Contains(string(log), line) {
				t.Errorf("log lacks %q:\n%s", line, log)
			}
		}
	})
	t.Run("too low", func(t *testing.T) {
		cmd := exec.Command(sh, "-c", `ulimit -n 20 && exec "$0" --port 0 --bind 127.0.0.1 --dir "$1"`, bin, t.TempDir())
		dieWithTest(cmd)
		out, err := cmd.CombinedOutput()
		if err == nil {
			t.Fatalf("started with 20 descriptors:\n%s", out)
		}
		if !strings.Contains(string(out), "# Your current 'ulimit -n' of 20 is not enough for the server to start. Please increase your open file limit to at least 10032. Exiting.") {
			t.Errorf("output:\n%s", out)
		}
	})
}
