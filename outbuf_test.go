package lockredis

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// logRecorder keeps a server's log lines.
type logRecorder struct {
	mu    sync.Mutex
	lines []string
}

func (l *logRecorder) logf(level, format string, args ...any) {
	l.mu.Lock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
	l.mu.Unlock()
}

func (l *logRecorder) count(sub string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, s := range l.lines {
		if strings.Contains(s, sub) {
			n++
		}
	}
	return n
}

// TestOutputBufferLimitNormal: a client that pipelines many GETs of a big
// value without reading is closed once its pending replies pass the
// normal class's hard limit, or stay past the soft one for its seconds,
// with Redis's log line; with Redis's default "normal 0 0 0" nothing
// happens and every reply arrives. The limit comes from the start
// (Params) or from CONFIG SET.
func TestOutputBufferLimitNormal(t *testing.T) {
	const gets = 100
	big := strings.Repeat("x", 64<<10) // 100 replies: 6.4 MB
	const logLine = "scheduled to be closed ASAP for overcoming of output buffer limits."
	for _, tc := range []struct {
		name      string
		start     string // Params["client-output-buffer-limit"], "" for none
		configSet string // CONFIG SET client-output-buffer-limit, "" for none
		get       string // CONFIG GET's value then
		closed    bool
	}{
		{name: "default no limit", get: "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60"},
		{name: "hard from start", start: "normal 1mb 0 0", closed: true,
			get: "normal 1048576 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60"},
		{name: "hard by CONFIG SET", configSet: "normal 1mb 0 0 pubsub 32mb 8mb 60", closed: true,
			get: "normal 1048576 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60"},
		{name: "soft by CONFIG SET", configSet: "normal 0 512kb 0", closed: true,
			get: "normal 0 524288 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60"},
		{name: "set back to none", start: "normal 1mb 0 0", configSet: "normal 0 0 0",
			get: "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			logs := &logRecorder{}
			opts := Options{Logf: logs.logf}
			if tc.start != "" {
				opts.Params = map[string]string{"client-output-buffer-limit": tc.start}
			}
			srv := NewServer(opts)
			if err := srv.Start(); err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			admin, err := net.Dial("tcp", srv.Addr())
			if err != nil {
				t.Fatal(err)
			}
			defer admin.Close()
			ard := bufio.NewReader(admin)
			if got := rawDo(t, admin, ard, "SET big "+big); got != "+OK" {
				t.Fatal(got)
			}
			if tc.configSet != "" {
				if got := rawDo(t, admin, ard, `CONFIG SET client-output-buffer-limit "`+tc.configSet+`"`); got != "+OK" {
					t.Fatal(got)
				}
			}
			rawDo(t, admin, ard, "CONFIG GET client-output-buffer-limit") // *2
			ard.ReadString('\n')                                          // $26
			ard.ReadString('\n')                                          // name
			ard.ReadString('\n')                                          // $n
			if got, _ := ard.ReadString('\n'); strings.TrimRight(got, "\r\n") != tc.get {
				t.Errorf("CONFIG GET client-output-buffer-limit: %q, want %q", got, tc.get)
			}

			c, err := net.Dial("tcp", srv.Addr())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if _, err := c.Write([]byte(strings.Repeat("GET big\r\n", gets))); err != nil {
				t.Fatal(err)
			}
			if tc.closed {
				// Not reading: wait for the server to give up on us.
				deadline := time.Now().Add(60 * time.Second)
				for logs.count(logLine) == 0 && time.Now().Before(deadline) {
					time.Sleep(5 * time.Millisecond)
				}
				if n := logs.count(logLine); n != 1 {
					t.Fatalf("%d log lines %q, want 1", n, logLine)
				}
				if logs.count("Client id=") != 1 {
					t.Errorf("the log line does not describe the client: %q", logs.lines)
				}
			}
			// Only a guard against a hang: a loaded CI machine running
			// -race can take seconds for these 6.4 MB.
			c.SetReadDeadline(time.Now().Add(60 * time.Second))
			rd := bufio.NewReaderSize(c, 1<<20)
			got := 0
			for ; got < gets; got++ {
				line, err := rd.ReadString('\n')
				if err != nil {
					break
				}
				if line != fmt.Sprintf("$%d\r\n", len(big)) {
					t.Fatalf("reply %d: %q", got, line)
				}
				if _, err := io.CopyN(io.Discard, rd, int64(len(big)+2)); err != nil {
					break
				}
			}
			if tc.closed && got == gets {
				t.Errorf("all %d replies arrived: the client was not closed", gets)
			}
			if !tc.closed && got != gets {
				t.Errorf("%d of %d replies arrived", got, gets)
			}
			if !tc.closed && logs.count(logLine) != 0 {
				t.Errorf("closed without a limit: %q", logs.lines)
			}
			// The server goes on serving others.
			if got := rawDo(t, admin, ard, "PING"); got != "+PONG" {
				t.Errorf("PING: %s", got)
			}
		})
	}
}
