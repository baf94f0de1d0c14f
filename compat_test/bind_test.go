package compat

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// haveIPv6Loopback reports whether this machine can listen on ::1 (some
// containers have no IPv6 at all).
func haveIPv6Loopback() bool {
	ln, err := net.Listen("tcp", "[::1]:0")
	if err != nil {
		return false
	}
	ln.Close()
	return true
}

// startBinaryExact starts the built lockredis with exactly these arguments
// after --port (no --bind added): the first address must be 127.0.0.1,
// where startProcess waits for it. It returns the port.
func startBinaryExact(t *testing.T, args ...string) string {
	t.Helper()
	bin := lockredisBinary(t)
	addr := startProcess(t, "lockredis", func(port int) *exec.Cmd {
		all := append([]string{"--port", strconv.Itoa(port), "--dir", t.TempDir()}, args...)
		return exec.Command(bin, all...)
	}, stopBinary)
	_, port, _ := net.SplitHostPort(addr)
	return port
}

// TestBinaryBindSeveral: like redis-server, "bind 127.0.0.1 127.0.0.2"
// (one --bind value with spaces, or the config-file directive) listens on
// every address, "-addr" skips an address the machine lacks, and CONFIG GET
// bind reports the value as given.
func TestBinaryBindSeveral(t *testing.T) {
	ipv6 := haveIPv6Loopback()
	t.Logf("IPv6 loopback ::1 available: %v", ipv6)
	conf := func(line string) string {
		path := filepath.Join(t.TempDir(), "lockredis.conf")
		if err := os.WriteFile(path, []byte(line+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for _, tc := range []struct {
		name string
		args []string
		bind string   // CONFIG GET bind
		up   []string // hosts that must answer
	}{
		// 127.0.0.0/8 is all loopback on Linux: two real IPv4 addresses
		// whether or not the machine has IPv6.
		{"flag", []string{"--bind", "127.0.0.1 127.0.0.2"}, "127.0.0.1 127.0.0.2", []string{"127.0.0.1", "127.0.0.2"}},
		{"config file", []string{conf("bind 127.0.0.1 127.0.0.2")}, "127.0.0.1 127.0.0.2", []string{"127.0.0.1", "127.0.0.2"}},
		// 203.0.113.7 (TEST-NET-3) is on no interface: optional, skipped.
		{"optional missing", []string{"--bind", "127.0.0.1 -203.0.113.7"}, "127.0.0.1 -203.0.113.7", []string{"127.0.0.1"}},
		{"optional ::1", []string{"--bind", "127.0.0.1 -::1"}, "127.0.0.1 -::1", loopbacks(ipv6, "127.0.0.1", "::1")},
		{"::1 in config file", []string{conf("bind 127.0.0.1 -::1")}, "127.0.0.1 -::1", loopbacks(ipv6, "127.0.0.1", "::1")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			port := startBinaryExact(t, tc.args...)
			for _, host := range tc.up {
				c := dialRaw(t, net.JoinHostPort(host, port))
				if got := c.do(t, "PING"); got != "+PONG\r\n" {
					t.Errorf("PING on %s: %q", host, got)
				}
				want := "*2\r\n$4\r\nbind\r\n$" + strconv.Itoa(len(tc.bind)) + "\r\n" + tc.bind + "\r\n"
				if got := c.do(t, "CONFIG", "GET", "bind"); got != want {
					t.Errorf("CONFIG GET bind on %s: got %q, want %q", host, got, want)
				}
			}
		})
	}
}

// loopbacks is hosts without ::1 when the machine has no IPv6.
func loopbacks(ipv6 bool, hosts ...string) []string {
	var out []string
	for _, h := range hosts {
		if strings.Contains(h, ":") && !ipv6 {
			continue
		}
		out = append(out, h)
	}
	return out
}

// TestBinaryBindRequiredMissing: an address written without '-' that the
// machine lacks stops the start, as in redis-server ("Failed listening").
func TestBinaryBindRequiredMissing(t *testing.T) {
	bin := lockredisBinary(t)
	out, err := exec.Command(bin, "--port", strconv.Itoa(freePort(t)), "--dir", t.TempDir(),
		"--bind", "127.0.0.1 203.0.113.7").CombinedOutput()
	if err == nil {
		t.Fatalf("started without 203.0.113.7:\n%s", out)
	}
	if !strings.Contains(string(out), "203.0.113.7") {
		t.Errorf("the error should name the address:\n%s", out)
	}
}
