package compat

import (
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// readUntilClosed reads what the server sends until it closes the connection; it
// fails the test if the connection stays open (replyTimeout).
func readUntilClosed(t *testing.T, c net.Conn) string {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(replyTimeout))
	b, err := io.ReadAll(c)
	if err != nil && !isReset(err) {
		t.Fatalf("the server did not close the connection: %v (read %q)", err, b)
	}
	return string(b)
}

// An HTTP request sent to the port is cross-protocol scripting: the server
// must close the connection at "POST" or "Host:" and run nothing after it,
// as redis-server 7.0 does, and log Redis's warning once a minute.
func TestCrossProtocolAttack(t *testing.T) {
	requests := []struct{ name, raw, key string }{
		{"post with body", "POST /x HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/plain\r\nContent-Length: 13\r\n\r\nSET pwned 1\r\n", "pwned"},
		{"get with host header", "GET / HTTP/1.1\r\nHost: localhost\r\n\r\nSET pwned2 1\r\n", "pwned2"},
		{"lowercase post", "post / HTTP/1.0\r\n\r\nSET pwned3 1\r\n", "pwned3"},
		{"host inside multi", "MULTI\r\nHOST: x\r\nSET pwned4 1\r\nEXEC\r\n", "pwned4"},
		{"multibulk post", "*1\r\n$4\r\nPoSt\r\n*3\r\n$3\r\nSET\r\n$6\r\npwned5\r\n$1\r\n1\r\n", "pwned5"},
	}
	n := newNode(t, "", "--logfile", filepath.Join(t.TempDir(), "lockredis.log"))
	n.start()
	logfile := n.args[1]
	servers := map[string]string{"redis-server": startRedis(t), "lockredis": n.addr()}
	for _, rq := range requests {
		t.Run(rq.name, func(t *testing.T) {
			got := map[string]string{}
			for name, addr := range servers {
				c, err := net.Dial("tcp", addr)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := c.Write([]byte(rq.raw)); err != nil {
					t.Fatal(err)
				}
				got[name] = readUntilClosed(t, c)
				c.Close()
				if v := dialRaw(t, addr).do(t, "EXISTS", rq.key); v != ":0\r\n" {
					t.Errorf("%s: the request's body ran: EXISTS %s = %q", name, rq.key, v)
				}
			}
			if got["lockredis"] != got["redis-server"] {
				t.Errorf("lockredis answered %q, redis-server %q", got["lockredis"], got["redis-server"])
			}
		})
	}
	// A normal client on the same server is unaffected.
	if v := dialRaw(t, n.addr()).do(t, "PING"); v != "+PONG\r\n" {
		t.Fatalf("PING after the attacks: %q", v)
	}
	n.term()
	log, err := os.ReadFile(logfile)
	if err != nil {
		t.Fatal(err)
	}
	const warning = "# Possible SECURITY ATTACK detected. It looks like somebody is sending POST or Host: commands to Redis. This is likely due to an attacker attempting to use Cross Protocol Scripting to compromise your Redis instance. Connection aborted.\n"
	// Rate-limited as Redis: one line for the whole burst.
	if c := strings.Count(string(log), warning); c != 1 {
		t.Errorf("the warning is logged %d times, want once:\n%s", c, log)
	}
}

// nonLoopbackIPv4 returns an IPv4 address of this machine outside
// 127.0.0.0/8, or nil.
func nonLoopbackIPv4() net.IP {
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if ipn, ok := a.(*net.IPNet); ok && ipn.IP.To4() != nil && !ipn.IP.IsLoopback() {
			return ipn.IP.To4()
		}
	}
	return nil
}

// pingFrom connects to port from the source address src and returns what
// the server answers to PING; a server that closes after answering gets
// "closed" appended.
func pingFrom(t *testing.T, src net.IP, port int) string {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: src}, Timeout: replyTimeout}
	c, err := d.Dial("tcp", net.JoinHostPort(src.String(), strconv.Itoa(port)))
	if err != nil {
		t.Fatalf("dial from %s: %v", src, err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(replyTimeout))
	c.Write(encodeCommand([]string{"PING"}))
	b := make([]byte, 4096)
	var out []byte
	for {
		n, err := c.Read(b)
		out = append(out, b[:n]...)
		if err != nil {
			if err == io.EOF || isReset(err) {
				return string(out) + "closed"
			}
			t.Fatalf("from %s: %v after %q", src, err, out)
		}
		if strings.HasSuffix(string(out), "\r\n") && !strings.HasPrefix(string(out), "-DENIED") {
			return string(out)
		}
	}
}

// Protected mode as Redis 7.0's clientAcceptHandler: with no password,
// a client not from 127.0.0.1 or ::1 gets the DENIED text and is closed,
// whatever bind says; 127.0.0.2 counts as remote (verified against
// redis-server 7.0.15). Each case runs on both servers, listening on
// 127.0.0.1, 127.0.0.2 and this machine's non-loopback IPv4 if it has one.
func TestProtectedMode(t *testing.T) {
	sources := []net.IP{net.IPv4(127, 0, 0, 1), net.IPv4(127, 0, 0, 2)}
	if ip := nonLoopbackIPv4(); ip != nil {
		sources = append(sources, ip)
	} else {
		t.Log("no non-loopback IPv4 address here: testing from 127.0.0.2 only")
	}
	var binds []string
	for _, ip := range sources {
		binds = append(binds, ip.String())
	}
	bind := strings.Join(binds, " ")
	denied := "-DENIED Redis is running in protected mode"
	conf := filepath.Join(t.TempDir(), "protected.conf")
	if err := os.WriteFile(conf, []byte("protected-mode no\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name       string
		args       []string // both servers
		lockArgs   []string // lockredis only (a config file)
		configSet  string   // CONFIG SET protected-mode, from 127.0.0.1, first
		wantRemote string   // prefix of the answer from a non-local source
		wantGet    string
	}{
		{name: "default", wantRemote: denied, wantGet: "yes"},
		{name: "flag no", args: []string{"--protected-mode", "no"}, wantRemote: "+PONG", wantGet: "no"},
		{name: "password", args: []string{"--requirepass", "pw"}, wantRemote: "-NOAUTH", wantGet: "yes"},
		{name: "config set no", configSet: "no", wantRemote: "+PONG", wantGet: "no"},
		{name: "config set yes", args: []string{"--protected-mode", "no"}, configSet: "yes", wantRemote: denied, wantGet: "yes"},
		{name: "config file", lockArgs: []string{conf}, wantRemote: "+PONG", wantGet: "no"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			servers := map[string]string{
				"lockredis": startBinary(t, append(append(tc.lockArgs, "--bind", bind), tc.args...)...),
			}
			if tc.lockArgs == nil {
				servers["redis-server"] = startRedis(t, append([]string{"--bind", bind}, tc.args...)...)
			}
			for name, addr := range servers {
				_, p, _ := net.SplitHostPort(addr)
				port, _ := strconv.Atoi(p)
				admin := dialRaw(t, addr)
				if tc.args != nil && tc.args[0] == "--requirepass" {
					admin.do(t, "AUTH", "pw")
				}
				if tc.configSet != "" {
					if v := admin.do(t, "CONFIG", "SET", "protected-mode", tc.configSet); v != "+OK\r\n" {
						t.Fatalf("%s: CONFIG SET: %q", name, v)
					}
				}
				if v := admin.do(t, "CONFIG", "GET", "protected-mode"); !strings.HasSuffix(v, "$"+strconv.Itoa(len(tc.wantGet))+"\r\n"+tc.wantGet+"\r\n") {
					t.Errorf("%s: CONFIG GET protected-mode = %q, want %s", name, v, tc.wantGet)
				}
				for _, src := range sources {
					got := pingFrom(t, src, port)
					want := tc.wantRemote
					if src.Equal(net.IPv4(127, 0, 0, 1)) && tc.wantRemote == denied {
						want = "+PONG"
					}
					if !strings.HasPrefix(got, want) {
						t.Errorf("%s: PING from %s = %q, want %s...", name, src, got, want)
					}
					if want == denied && !strings.HasSuffix(got, "\r\nclosed") {
						t.Errorf("%s: from %s the connection stayed open: %q", name, src, got)
					}
				}
				rejected := infoField(t, admin, "stats", "rejected_connections")
				wantRejected := 0
				if tc.wantRemote == denied {
					wantRejected = len(sources) - 1
				}
				if rejected != strconv.Itoa(wantRejected) {
					t.Errorf("%s: rejected_connections = %s, want %d", name, rejected, wantRejected)
				}
			}
			if tc.lockArgs == nil {
				// The DENIED text, byte for byte.
				a, b := pingFrom(t, sources[1], portOf(servers["lockredis"])), pingFrom(t, sources[1], portOf(servers["redis-server"]))
				if a != b {
					t.Errorf("from %s lockredis answered\n%q\nredis-server\n%q", sources[1], a, b)
				}
			}
		})
	}
}

func portOf(addr string) int {
	_, p, _ := net.SplitHostPort(addr)
	n, _ := strconv.Atoi(p)
	return n
}

// SIGHUP is ignored (with a log line) as redis-server ignores it; the
// server then still serves and stops cleanly on SIGTERM, so no restart
// fence follows.
func TestSIGHUPIgnored(t *testing.T) {
	logfile := filepath.Join(t.TempDir(), "lockredis.log")
	n := newNode(t, "", "--logfile", logfile)
	n.start()
	n.mu.Lock()
	proc := n.cmd.Process
	n.mu.Unlock()
	for i := 1; i <= 2; i++ {
		if err := proc.Signal(syscall.SIGHUP); err != nil {
			t.Fatal(err)
		}
		// The log line says the signal arrived and was handled.
		deadline := time.Now().Add(10 * time.Second)
		for {
			b, _ := os.ReadFile(logfile)
			if strings.Count(string(b), "Received SIGHUP, ignored") == i {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("SIGHUP %d: no log line:\n%s", i, b)
			}
			time.Sleep(20 * time.Millisecond)
		}
		if v := dialRaw(t, n.addr()).do(t, "PING"); v != "+PONG\r\n" {
			t.Fatalf("PING after SIGHUP %d: %q", i, v)
		}
	}
	n.term() // exit status 0
	b, _ := os.ReadFile(logfile)
	if !strings.Contains(string(b), "ready to exit, bye bye") {
		t.Errorf("no clean exit in the log:\n%s", b)
	}
	// The clean marker: no restart fence after this stop.
	n.start()
	if v := dialRaw(t, n.addr()).do(t, "SET", "new", "x", "NX", "PX", "10000"); v != "+OK\r\n" {
		t.Fatalf("after SIGHUP then SIGTERM: %q", v)
	}
}
