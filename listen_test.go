package lockredis

import (
	"fmt"
	"net"
	"strings"
	"testing"
)

// TestListenAll: port 0 picks one free port for every address, and an
// optional address the machine lacks is skipped with a log line.
func TestListenAll(t *testing.T) {
	var logged []string
	logf := func(level, format string, args ...any) { logged = append(logged, fmt.Sprintf(format, args...)) }
	lns, err := listenAll([]string{"127.0.0.1:0", "127.0.0.2:0", "-203.0.113.7:0"}, logf)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, ln := range lns {
			ln.Close()
		}
	}()
	if len(lns) != 2 {
		t.Fatalf("%d listeners, want 2", len(lns))
	}
	p0, p1 := lns[0].Addr().(*net.TCPAddr).Port, lns[1].Addr().(*net.TCPAddr).Port
	if p0 != p1 {
		t.Errorf("ports %d and %d, want one port", p0, p1)
	}
	if len(logged) != 1 || !strings.Contains(logged[0], "203.0.113.7") {
		t.Errorf("log: %q", logged)
	}
	if _, err := listenAll([]string{"127.0.0.1:0", "203.0.113.7:0"}, logf); err == nil {
		t.Error("a required address the machine lacks was accepted")
	}
}

// TestServerSeveralAddrs: an embedded server answers on each of its
// addresses, and Close releases them all.
func TestServerSeveralAddrs(t *testing.T) {
	s := NewServer(Options{Addrs: []string{"127.0.0.1:0", "127.0.0.2:0"}})
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	addrs := s.Addrs()
	for _, a := range addrs {
		c, err := net.Dial("tcp", a)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, "PING\r\n")
		buf := make([]byte, 7)
		if n, _ := c.Read(buf); string(buf[:n]) != "+PONG\r\n" {
			t.Errorf("PING on %s: %q", a, buf[:n])
		}
		c.Close()
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		if c, err := net.Dial("tcp", a); err == nil {
			c.Close()
			t.Errorf("%s still accepts after Close", a)
		}
	}
}
