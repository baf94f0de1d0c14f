package compat

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// bulkGet is CONFIG GET's raw RESP2 reply for one parameter.
func bulkGet(name, value string) string {
	return fmt.Sprintf("*2\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n", len(name), name, len(value), value)
}

// TestStockRedisConf: Debian's stock /etc/redis/redis.conf starts the
// built lockredis (its dir, logfile, pidfile and daemonize overridden by
// flags later on the command line): it answers PING, writes its pid file,
// logs the directives it ignores in one line, and CONFIG GET reports
// what the file says for directives it implements.
func TestStockRedisConf(t *testing.T) {
	const stock = "/etc/redis/redis.conf"
	src, err := os.ReadFile(stock)
	if err != nil {
		t.Skipf("no stock config: %v", err)
	}
	dir := t.TempDir()
	conf := filepath.Join(dir, "redis.conf")
	if err := os.WriteFile(conf, src, 0o644); err != nil {
		t.Fatal(err)
	}
	logfile := filepath.Join(dir, "lockredis.log")
	pidfile := filepath.Join(dir, "lockredis.pid")
	addr := startBinary(t, conf, "--dir", dir, "--logfile", logfile, "--pidfile", pidfile, "--daemonize", "no")
	c := dialRaw(t, addr)
	if got := c.do(t, "PING"); got != "+PONG\r\n" {
		t.Fatalf("PING: %q", got)
	}
	for _, tc := range []struct{ name, want string }{
		{"databases", "16"},
		{"tcp-keepalive", "300"},
		{"timeout", "0"},
		{"protected-mode", "yes"},
		{"appendonly", "no"},
		{"appendfsync", "everysec"},
		{"appendfilename", "appendonly.aof"},
		{"loglevel", "notice"},
		{"hz", "10"},
		{"supervised", "no"}, // commented out in the stock file
		{"daemonize", "no"},  // the flag wins over the file
		{"logfile", logfile},
		{"pidfile", pidfile},
		{"client-output-buffer-limit", "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60"},
	} {
		if got := c.do(t, "CONFIG", "GET", tc.name); got != bulkGet(tc.name, tc.want) {
			t.Errorf("CONFIG GET %s: %q, want %q", tc.name, got, bulkGet(tc.name, tc.want))
		}
	}
	pid, err := os.ReadFile(pidfile)
	if n, _ := strconv.Atoi(strings.TrimSpace(string(pid))); err != nil || n <= 0 {
		t.Errorf("pid file: %q %v", pid, err)
	}
	log, _ := os.ReadFile(logfile)
	var ignored string
	for _, l := range strings.Split(string(log), "\n") {
		if i := strings.Index(l, "Accepted and ignored: "); i >= 0 {
			if ignored != "" {
				t.Errorf("two ignored lines:\n%s", log)
			}
			ignored = l[i:]
		}
	}
	for _, d := range []string{"tcp-backlog", "stop-writes-on-bgsave-error", "dbfilename", "repl-diskless-sync",
		"lazyfree-lazy-eviction", "hash-max-listpack-entries", "jemalloc-bg-thread", "appenddirname", "hz"} {
		if !strings.Contains(ignored+" ", " "+d+" ") {
			t.Errorf("%s not in %q", d, ignored)
		}
	}
	for _, d := range []string{"port", "bind", "daemonize", "logfile", "appendonly", "client-output-buffer-limit"} {
		if strings.Contains(ignored+" ", " "+d+" ") {
			t.Errorf("implemented %s listed as ignored: %q", d, ignored)
		}
	}
}

// TestConfigRewriteBinary: CONFIG SET, CONFIG REWRITE, restart with the
// file: CONFIG GET shows the new values, and the file keeps its comments.
func TestConfigRewriteBinary(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "lockredis.conf")
	orig := "# my settings\ntimeout 0\nclient-output-buffer-limit normal 0 0 0\nhz 10\n"
	if err := os.WriteFile(conf, []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	sets := [][2]string{
		{"timeout", "7"},
		{"maxmemory", "2097152"},
		{"client-output-buffer-limit", "normal 1048576 0 0 slave 268435456 67108864 60 pubsub 1024 0 0"},
		{"lock-delay", "250"},
		{"hz", "20"},
	}
	t.Run("set and rewrite", func(t *testing.T) {
		c := dialRaw(t, startBinary(t, conf, "--dir", dir))
		for _, s := range sets {
			if got := c.do(t, "CONFIG", "SET", s[0], s[1]); got != "+OK\r\n" {
				t.Fatalf("CONFIG SET %s: %q", s[0], got)
			}
		}
		if got := c.do(t, "CONFIG", "REWRITE"); got != "+OK\r\n" {
			t.Fatalf("CONFIG REWRITE: %q", got)
		}
	})
	text, _ := os.ReadFile(conf)
	if !strings.HasPrefix(string(text), "# my settings\ntimeout 7\nclient-output-buffer-limit normal 1mb 0 0\n") {
		t.Errorf("rewritten file:\n%s", text)
	}
	t.Run("restart", func(t *testing.T) {
		c := dialRaw(t, startBinary(t, conf, "--dir", dir))
		for _, s := range sets {
			if got := c.do(t, "CONFIG", "GET", s[0]); got != bulkGet(s[0], s[1]) {
				t.Errorf("CONFIG GET %s after restart: %q, want %q", s[0], got, bulkGet(s[0], s[1]))
			}
		}
	})
	t.Run("no config file", func(t *testing.T) {
		c := dialRaw(t, startBinary(t))
		if got := c.do(t, "CONFIG", "REWRITE"); got != "-ERR The server is running without a config file\r\n" {
			t.Errorf("CONFIG REWRITE: %q", got)
		}
	})
}
