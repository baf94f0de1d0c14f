package main

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/lockredis/lockredis/engine"
)

// runOnce runs the CLI with args on a free port in its own directory and
// stops it as soon as it is up. It returns the exit status and the output.
func runOnce(t *testing.T, args ...string) (int, string) {
	t.Helper()
	stop := make(chan os.Signal, 1)
	stop <- syscall.SIGTERM // read only once the server is up
	var out bytes.Buffer
	args = append([]string{"--port", "0", "--dir", t.TempDir()}, args...)
	code := run(args, &out, &out, stop)
	return code, out.String()
}

// TestCLIAgreesWithEngine: the CLI accepts exactly the values the engine
// accepts, and refuses the others with the engine's error text.
func TestCLIAgreesWithEngine(t *testing.T) {
	for _, tc := range []struct {
		flag, value string
		config      func(dir, value string) engine.Config
	}{
		{"--restart-fence", "auto", fence},
		{"--restart-fence", "AUTO", fence},
		{"--restart-fence", "off", fence},
		{"--restart-fence", "no", fence},
		{"--restart-fence", "0", fence},
		{"--restart-fence", "30s", fence},
		{"--restart-fence", "-1s", fence},
		{"--restart-fence", "yes", fence},
		{"--restart-fence", "soon", fence},
		{"--appendfsync", "always", fsync},
		{"--appendfsync", "ALWAYS", fsync}, // redis-server accepts any case
		{"--appendfsync", "everysec", fsync},
		{"--appendfsync", "no", fsync},
		{"--appendfsync", "sometimes", fsync},
		{"--appendfilename", "locks.aof", filename},
		{"--appendfilename", "sub/locks.aof", filename},
		{"--databases", "1", databases},
		{"--databases", "256", databases},
		{"--databases", "257", databases},
		{"--databases", "-1", databases},
		{"--maxmemory", "1gb", maxmemory},
		{"--maxmemory", "100MB", maxmemory},
		{"--maxmemory", "1048576", maxmemory},
		{"--maxmemory", "lots", maxmemory},
		{"--maxmemory", "-1", maxmemory},
		{"--maxmemory-policy", "noeviction", policy},
		{"--maxmemory-policy", "NOEVICTION", policy},
		{"--maxmemory-policy", "allkeys-lru", policy},
		{"--maxmemory-policy", "evict", policy},
		{"--notify-keyspace-events", "KEA", notifyEvents},
		{"--notify-keyspace-events", "Ex", notifyEvents},
		{"--notify-keyspace-events", "", notifyEvents},
		{"--notify-keyspace-events", "KEQ", notifyEvents},
	} {
		t.Run(tc.flag+"="+tc.value, func(t *testing.T) {
			eng, engErr := engine.New(tc.config(t.TempDir(), tc.value))
			if engErr == nil {
				eng.Close()
			}
			code, out := runOnce(t, tc.flag, tc.value)
			if engErr == nil && code != 0 {
				t.Fatalf("the engine accepts %s %q, the CLI refuses it (exit %d):\n%s", tc.flag, tc.value, code, out)
			}
			if engErr != nil && (code == 0 || !strings.Contains(out, engErr.Error())) {
				t.Fatalf("the engine refuses %s %q with %q; the CLI exited %d with:\n%s", tc.flag, tc.value, engErr, code, out)
			}
		})
	}
}

func maxmemory(dir, v string) engine.Config {
	return engine.Config{Dir: dir, Params: map[string]string{"maxmemory": v}}
}

func notifyEvents(dir, v string) engine.Config {
	return engine.Config{Dir: dir, Params: map[string]string{"notify-keyspace-events": v}}
}

func policy(dir, v string) engine.Config { return engine.Config{Dir: dir, MaxMemoryPolicy: v} }

func fence(dir, v string) engine.Config { return engine.Config{Dir: dir, RestartFence: v} }

func fsync(dir, v string) engine.Config {
	return engine.Config{Dir: dir, AppendOnly: true, AppendFsync: v}
}

func filename(dir, v string) engine.Config {
	return engine.Config{Dir: dir, AppendOnly: true, AppendFilename: v}
}

func databases(dir, v string) engine.Config {
	n, _ := strconv.Atoi(v)
	return engine.Config{Dir: dir, Databases: n}
}

// TestCLIYesNo: appendonly reads yes|no in any case, as redis-server does
// (it refuses "1", "true" and "" with "argument must be 'yes' or 'no'").
func TestCLIYesNo(t *testing.T) {
	for _, tc := range []struct {
		value string
		ok    bool
	}{
		{"yes", true}, {"YES", true}, {"no", true}, {"No", true},
		{"1", false}, {"true", false}, {"", false},
	} {
		_, engErr := engine.ParseYesNo("appendonly", tc.value)
		if (engErr == nil) != tc.ok {
			t.Errorf("engine.ParseYesNo(%q): %v, want ok=%v", tc.value, engErr, tc.ok)
		}
		code, out := runOnce(t, "--appendonly", tc.value)
		if (code == 0) != tc.ok {
			t.Errorf("--appendonly %q: exit %d, want ok=%v:\n%s", tc.value, code, tc.ok, out)
		}
		if !tc.ok && !strings.Contains(out, "argument must be 'yes' or 'no'") {
			t.Errorf("--appendonly %q: want Redis's error text, got:\n%s", tc.value, out)
		}
	}
}

// TestCLIDatabasesZero: the library reads Databases 0 as "the default
// 16", so the CLI refuses 0 itself, as redis-server does.
func TestCLIDatabasesZero(t *testing.T) {
	if code, out := runOnce(t, "--databases", "0"); code == 0 {
		t.Fatalf("--databases 0 accepted:\n%s", out)
	}
}

// TestBinaryDoesNotLinkTesting: the server binary must not carry the
// testing package through our code (lockredis.RunT and raftgroup take
// small interfaces instead of testing.TB). The one exception is
// github.com/hashicorp/raft, whose testing.go (cluster helpers for its
// users' tests) is part of its main package; since Go 1.13 importing
// testing registers no flags (testing.Init does, in test binaries only).
func TestBinaryDoesNotLinkTesting(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}} {{join .Imports " "}}`, ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		for _, imp := range fields[1:] {
			if imp == "testing" && fields[0] != "github.com/hashicorp/raft" {
				t.Errorf("%s imports the testing package", fields[0])
			}
		}
	}
}
