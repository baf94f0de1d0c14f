package engine

import (
	"fmt"
	"strings"
	"testing"
)

// The protected-mode decision, as Redis 7.0's clientAcceptHandler and
// islocalClient: only 127.0.0.1 and ::1 are local, bind plays no part.
func TestProtectedModeRefuses(t *testing.T) {
	for _, tc := range []struct {
		protected, password string
		peer                string
		refused             bool
	}{
		{"yes", "", "127.0.0.1:5000", false},
		{"yes", "", "[::1]:5000", false},
		{"yes", "", "[::ffff:127.0.0.1]:5000", false},
		{"yes", "", "127.0.0.2:5000", true},
		{"yes", "", "192.0.2.7:5000", true},
		{"yes", "", "[2001:db8::1]:5000", true},
		{"yes", "", "not an address", true},
		{"yes", "pw", "192.0.2.7:5000", false},
		{"no", "", "192.0.2.7:5000", false},
	} {
		e, err := New(Config{Params: map[string]string{"requirepass": tc.password, "protected-mode": tc.protected}})
		if err != nil {
			t.Fatal(err)
		}
		if got := e.ProtectedModeRefuses(tc.peer); got != tc.refused {
			t.Errorf("protected-mode %s, password %q, peer %s: refused %v, want %v", tc.protected, tc.password, tc.peer, got, tc.refused)
		}
		e.Close()
	}
}

// The connection settings: validated at start, live under CONFIG SET.
func TestNetParams(t *testing.T) {
	for _, bad := range []map[string]string{
		{"protected-mode": "maybe"}, {"timeout": "-1"}, {"tcp-keepalive": "x"},
	} {
		if e, err := New(Config{Params: bad}); err == nil {
			e.Close()
			t.Errorf("%v accepted", bad)
		}
	}
	te := newTestEngine(t)
	e := te.Engine
	if e.IdleTimeout() != 0 || e.TCPKeepAlive().Seconds() != 300 || !e.net.protectedMode.Load() {
		t.Fatalf("defaults: timeout %v, keepalive %v", e.IdleTimeout(), e.TCPKeepAlive())
	}
	te.do("CONFIG", "SET", "timeout", "7", "tcp-keepalive", "0", "protected-mode", "NO")
	for _, tc := range []struct{ name, want string }{
		{"timeout", "7"}, {"tcp-keepalive", "0"}, {"protected-mode", "no"},
	} {
		if got := fmt.Sprint(te.do("CONFIG", "GET", tc.name)); !strings.Contains(got, tc.want) {
			t.Errorf("CONFIG GET %s = %s, want %s", tc.name, got, tc.want)
		}
	}
	if e.IdleTimeout().Seconds() != 7 || e.TCPKeepAlive() != 0 || e.net.protectedMode.Load() {
		t.Errorf("after CONFIG SET: timeout %v, keepalive %v, protected %v", e.IdleTimeout(), e.TCPKeepAlive(), e.net.protectedMode.Load())
	}
}
