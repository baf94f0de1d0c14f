package resp

import (
	"net"
	"syscall"
	"testing"

	"github.com/lockredis/lockredis/engine"
)

// tcp-keepalive reaches the accepted sockets as Redis's anetKeepAlive
// sets it: SO_KEEPALIVE, TCP_KEEPIDLE = period, TCP_KEEPINTVL = period/3
// (at least 1), TCP_KEEPCNT = 3; 0 turns keepalive off. Read back with
// getsockopt on the server's side of the connection.
func TestTCPKeepAlive(t *testing.T) {
	for _, tc := range []struct {
		param                   string // "" : the default
		on, idle, intvl, probes int
	}{
		{"", 1, 300, 100, 3},
		{"60", 1, 60, 20, 3},
		{"2", 1, 2, 1, 3},
		{"0", 0, -1, -1, -1},
	} {
		t.Run("tcp-keepalive="+tc.param, func(t *testing.T) {
			params := map[string]string{}
			if tc.param != "" {
				params["tcp-keepalive"] = tc.param
			}
			ts := startServer(t, engine.Config{Params: params}, Options{})
			rc := ts.dial(t)
			rc.send("PING\r\n")
			rc.reply()
			var conn net.Conn
			ts.mu.Lock()
			for c := range ts.clients {
				conn = c.gc.settle.Conn // the socket under the guard (settle.go)
			}
			ts.mu.Unlock()
			raw, err := conn.(*net.TCPConn).SyscallConn()
			if err != nil {
				t.Fatal(err)
			}
			get := func(level, opt int) int {
				var v int
				var gerr error
				raw.Control(func(fd uintptr) { v, gerr = syscall.GetsockoptInt(int(fd), level, opt) })
				if gerr != nil {
					t.Fatal(gerr)
				}
				return v
			}
			if got := get(syscall.SOL_SOCKET, syscall.SO_KEEPALIVE); got != tc.on {
				t.Errorf("SO_KEEPALIVE = %d, want %d", got, tc.on)
			}
			if tc.on == 0 {
				return
			}
			for _, o := range []struct {
				name      string
				opt, want int
			}{
				{"TCP_KEEPIDLE", syscall.TCP_KEEPIDLE, tc.idle},
				{"TCP_KEEPINTVL", syscall.TCP_KEEPINTVL, tc.intvl},
				{"TCP_KEEPCNT", syscall.TCP_KEEPCNT, tc.probes},
			} {
				if got := get(syscall.IPPROTO_TCP, o.opt); got != o.want {
					t.Errorf("%s = %d, want %d", o.name, got, o.want)
				}
			}
		})
	}
}
