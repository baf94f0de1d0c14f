package main

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/lockredis/lockredis"
	"github.com/lockredis/lockredis/replication"
)

func TestCheckMetricsBind(t *testing.T) {
	for _, tc := range []struct {
		v  string
		ok bool
	}{
		{"", true},
		{"127.0.0.1:9379", true},
		{"[::1]:9379", true},
		{":9379", true},
		{"localhost:0", true},
		{"127.0.0.1", false},
		{"127.0.0.1:http", false},
		{"127.0.0.1:70000", false},
		{"[::1:9379", false},
	} {
		if err := checkMetricsBind(tc.v); (err == nil) != tc.ok {
			t.Errorf("checkMetricsBind(%q) = %v", tc.v, err)
		}
	}
}

func TestNotReady(t *testing.T) {
	for _, tc := range []struct {
		name    string
		st      lockredis.Stats
		running bool
		gs      *replication.Status
		want    string
	}{
		{"ready", lockredis.Stats{}, true, nil, ""},
		{"not running", lockredis.Stats{}, false, nil, "server not running"},
		{"loading", lockredis.Stats{Loading: lockredis.LoadingInfo{Loading: true, Percent: 42.5}}, true, nil, "loading the keyspace (42.50%)"},
		{"fence", lockredis.Stats{RestartFenceActive: true, RestartFenceLeft: 1500 * time.Millisecond}, true, nil, "restart fence active (2 s left)"},
		{"misconf", lockredis.Stats{Persistence: lockredis.PersistInfo{Misconf: "MISCONF Errors writing to the AOF file: No space left on device"}}, true,
			nil, "writes refused: MISCONF Errors writing to the AOF file: No space left on device"},
		{"group leader", lockredis.Stats{}, true, &replication.Status{Running: true, State: "leader", Leading: true, LeaderID: "1"}, ""},
		{"group follower", lockredis.Stats{}, true, &replication.Status{Running: true, State: "follower", LeaderID: "1", LeaderAddr: "10.0.0.1:6379"}, ""},
		{"no leader", lockredis.Stats{}, true, &replication.Status{Running: true, State: "candidate"},
			"no Raft leader known (election under way, or no majority reachable)"},
		{"leader catching up", lockredis.Stats{}, true, &replication.Status{Running: true, State: "leader", LeaderID: "1"},
			"elected Raft leader, catching up with the log"},
		{"leader unannounced", lockredis.Stats{}, true, &replication.Status{Running: true, State: "follower", LeaderID: "2"},
			"Raft leader 2 known but its client address not yet"},
		{"detached", lockredis.Stats{}, true, &replication.Status{State: "shutdown"}, "not attached to its Raft group"},
	} {
		if got := strings.Join(notReady(tc.st, tc.running, tc.gs), "; "); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// syncBuffer is the log of a server run in the background.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// background is the CLI run in a goroutine (runBackground).
type background struct {
	stop chan os.Signal
	log  *syncBuffer
	done chan int
	code int
	once sync.Once
}

// exit stops the server (SIGTERM) and returns its exit status.
func (b *background) exit() int {
	b.once.Do(func() {
		select {
		case b.stop <- syscall.SIGTERM:
		default:
		}
		b.code = <-b.done
	})
	return b.code
}

// runBackground runs the CLI until exit or the end of the test, and waits
// for its log to match ready; it returns the match's first group.
func runBackground(t *testing.T, ready string, args ...string) (string, *background) {
	t.Helper()
	b := &background{stop: make(chan os.Signal, 1), log: &syncBuffer{}, done: make(chan int, 1)}
	args = append([]string{"--port", "0", "--dir", t.TempDir()}, args...)
	go func() { b.done <- run(args, b.log, b.log, b.stop) }()
	t.Cleanup(func() {
		if code := b.exit(); code != 0 {
			t.Errorf("exit status %d:\n%s", code, b.log.String())
		}
	})
	re := regexp.MustCompile(ready)
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if m := re.FindStringSubmatch(b.log.String()); m != nil {
			return m[1], b
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no %q in the log:\n%s", ready, b.log.String())
	return "", nil
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

// TestMetricsEndpoint: --metrics-bind serves /metrics, /healthz and
// /readyz on its own listener, which closes with the server.
// compat_test/metrics_test.go checks the exposition format and that the
// values follow a workload.
func TestMetricsEndpoint(t *testing.T) {
	addr, srv := runBackground(t, `(?s)Metrics on http://(\S+)/metrics.*Ready to accept connections`, "--metrics-bind", "127.0.0.1:0")
	base := "http://" + addr
	if code, body := get(t, base+"/healthz"); code != 200 || body != "ok\n" {
		t.Errorf("/healthz: %d %q", code, body)
	}
	if code, body := get(t, base+"/readyz"); code != 200 || body != "ready\n" {
		t.Errorf("/readyz: %d %q", code, body)
	}
	code, body := get(t, base+"/metrics")
	for _, want := range []string{"\nlockredis_ready 1\n", "\nlockredis_info{redis_version=\"7.0.15\",version=\"" + lockredis.Version + "\"} 1\n",
		"\nlockredis_locks_held 0\n", "\ngo_goroutines ", "\nprocess_open_fds "} {
		if code != 200 || !strings.Contains(body, want) {
			t.Errorf("/metrics (%d) lacks %q", code, want)
		}
	}
	if code, _ := get(t, base+"/nothing"); code != 404 {
		t.Errorf("/nothing: %d", code)
	}
	if code := srv.exit(); code != 0 {
		t.Fatalf("exit status %d", code)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			break
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatal("the metrics listener outlived the server")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestMetricsBindRefused: a metrics address that cannot be bound stops
// the start, as a server port would.
func TestMetricsBindRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	for _, v := range []string{ln.Addr().String(), "127.0.0.1"} {
		code, out := runOnce(t, "--metrics-bind", v)
		if code != 1 || !strings.Contains(out, "metrics") {
			t.Errorf("--metrics-bind %s: exit %d\n%s", v, code, out)
		}
	}
}
