package compat

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// What contrib/ ships for operators, checked with the tools that read it:
// the systemd unit (systemd-analyze), the Grafana dashboard and the
// Prometheus alert rules (JSON, promtool, and their metric names against a
// real scrape), the logrotate file (logrotate, on a running server's log).
// The example config file is checked in cmd/lockredis (contrib_test.go).

const contribDir = "../contrib"

// metricName finds the names of metrics in a PromQL expression: ours,
// the process's and the Go runtime's.
var metricName = regexp.MustCompile(`\b(?:lockredis|process|go)_[a-z0-9_]+\b`)

// scrapedNames are the sample names a scrape can have: each family's, and
// a histogram's _bucket, _sum and _count. An error reply first, so that
// the families of labelled series that appear with use are there.
func scrapedNames(t *testing.T) map[string]bool {
	t.Helper()
	addr, base := startMetricsBinary(t, "--appendonly", "yes")
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	defer rdb.Close()
	rdb.Set(context.Background(), "k", "v", 0)
	if rdb.Incr(context.Background(), "k").Err() == nil {
		t.Fatal("INCR of a non-number succeeded")
	}
	names := map[string]bool{}
	for name, f := range scrape(t, base) {
		names[name] = true
		if f.GetType().String() == "HISTOGRAM" {
			for _, s := range []string{"_bucket", "_sum", "_count"} {
				names[name+s] = true
			}
		}
	}
	return names
}

// TestGrafanaDashboard: the dashboard is valid JSON of Grafana's shape and
// every metric its panels and variables query is in a scrape.
func TestGrafanaDashboard(t *testing.T) {
	body, err := os.ReadFile(filepath.Join(contribDir, "grafana/lockredis-dashboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Title      string
		UID        string
		Templating struct {
			List []struct {
				Name  string
				Query any
			}
		}
		Panels []struct {
			ID      int
			Type    string
			Title   string
			Targets []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(body, &dash); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if dash.Title == "" || dash.UID == "" || len(dash.Panels) == 0 {
		t.Fatalf("not a dashboard: title %q uid %q, %d panels", dash.Title, dash.UID, len(dash.Panels))
	}
	names := scrapedNames(t)
	ids := map[int]bool{}
	queried := 0
	for _, p := range dash.Panels {
		if ids[p.ID] {
			t.Errorf("panel id %d used twice", p.ID)
		}
		ids[p.ID] = true
		if p.Type == "row" {
			continue
		}
		if len(p.Targets) == 0 {
			t.Errorf("panel %q queries nothing", p.Title)
		}
		for _, tg := range p.Targets {
			found := metricName.FindAllString(tg.Expr, -1)
			if len(found) == 0 {
				t.Errorf("panel %q: no metric in %q", p.Title, tg.Expr)
			}
			for _, n := range found {
				queried++
				if !names[n] {
					t.Errorf("panel %q queries %s, which the server does not export", p.Title, n)
				}
			}
		}
	}
	for _, v := range dash.Templating.List {
		q, _ := json.Marshal(v.Query)
		for _, n := range metricName.FindAllString(string(q), -1) {
			if !names[n] {
				t.Errorf("variable %s queries %s, which the server does not export", v.Name, n)
			}
		}
	}
	t.Logf("%d panels, %d metric references", len(dash.Panels), queried)
}

// TestAlertRules: promtool accepts the rules, and every metric they use is
// exported (up is Prometheus's own).
func TestAlertRules(t *testing.T) {
	promtool := requireTool(t, "promtool")
	rules := filepath.Join(contribDir, "prometheus/lockredis-alerts.yml")
	out, err := exec.Command(promtool, "check", "rules", rules).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "SUCCESS") {
		t.Fatalf("promtool check rules: %v\n%s", err, out)
	}
	body, err := os.ReadFile(rules)
	if err != nil {
		t.Fatal(err)
	}
	names := scrapedNames(t)
	alerts := 0
	for _, line := range strings.Split(string(body), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "- alert:") {
			alerts++
		}
		if !strings.HasPrefix(line, "expr:") {
			continue
		}
		for _, n := range metricName.FindAllString(line, -1) {
			if !names[n] {
				t.Errorf("a rule uses %s, which the server does not export: %s", n, line)
			}
		}
	}
	// What the operations page promises to alert on.
	for _, want := range []string{"LockredisLockWaitP99High", "LockredisRestartFenceActive", "LockredisAOFWriteErrors", "LockredisMemoryNearMax"} {
		if !bytes.Contains(body, []byte("alert: "+want+"\n")) {
			t.Errorf("no alert %s", want)
		}
	}
	t.Logf("%d alerts", alerts)
}

// TestSystemdUnit: systemd-analyze verify finds nothing to say about the
// unit (it checks the syntax, every directive, and that ExecStart's binary
// exists: the built one stands in for /usr/local/bin/lockredis), and its
// offline security review scores at most 2.0 ("OK"). There is no running
// systemd to start it, so the test then runs ExecStart's command line as
// systemd would, with NOTIFY_SOCKET, and waits for READY=1.
func TestSystemdUnit(t *testing.T) {
	analyze := requireTool(t, "systemd-analyze")
	bin := lockredisBinary(t)
	unit, err := os.ReadFile(filepath.Join(contribDir, "systemd/lockredis.service"))
	if err != nil {
		t.Fatal(err)
	}
	execStart := regexp.MustCompile(`(?m)^ExecStart=(\S+) (.*)$`).FindSubmatch(unit)
	if execStart == nil || string(execStart[1]) != "/usr/local/bin/lockredis" {
		t.Fatalf("ExecStart: %q", execStart)
	}
	dir := t.TempDir()
	test := filepath.Join(dir, "lockredis.service")
	unit = bytes.Replace(unit, []byte("\nExecStart="+string(execStart[1])), []byte("\nExecStart="+bin), 1)
	if err := os.WriteFile(test, unit, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(analyze, "verify", test).CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
	out, err = exec.Command(analyze, "security", "--offline=yes", "--threshold=20", test).CombinedOutput()
	if err != nil {
		t.Errorf("systemd-analyze security: exposure above 2.0 (%v):\n%s", err, out)
	}

	// ExecStart's arguments, with the example config in place of
	// /etc/lockredis/lockredis.conf and this test's port and directory.
	args := strings.Fields(string(execStart[2]))
	if len(args) == 0 || args[0] != "/etc/lockredis/lockredis.conf" {
		t.Fatalf("ExecStart's arguments: %q", args)
	}
	args[0] = filepath.Join(contribDir, "lockredis.conf")
	sock := filepath.Join(dir, "notify")
	notify, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: sock, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	defer notify.Close()
	addr := startProcess(t, "lockredis", func(port int) *exec.Cmd {
		cmd := exec.Command(bin, append(args, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", dir)...)
		cmd.Env = append(os.Environ(), "NOTIFY_SOCKET="+sock)
		return cmd
	}, stopBinary)
	notify.SetReadDeadline(time.Now().Add(10 * time.Second))
	buf := make([]byte, 4096)
	n, err := notify.Read(buf)
	if err != nil || !strings.Contains(string(buf[:n]), "READY=1\n") {
		t.Fatalf("sd_notify: %q, %v", buf[:n], err)
	}
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	defer rdb.Close()
	if v, err := rdb.ConfigGet(context.Background(), "appendonly").Result(); err != nil || v["appendonly"] != "yes" {
		t.Errorf("the unit's server: appendonly %v %v", v, err)
	}
}

// TestLogrotate: logrotate rotates a running server's log with the
// shipped file (its path and user moved to the test's), and the server's
// next lines start the emptied file (copytruncate).
func TestLogrotate(t *testing.T) {
	logrotate := requireTool(t, "logrotate")
	dir := t.TempDir()
	logfile := filepath.Join(dir, "lockredis.log")
	addr := startBinary(t, "--logfile", logfile)
	conf, err := os.ReadFile(filepath.Join(contribDir, "logrotate/lockredis"))
	if err != nil {
		t.Fatal(err)
	}
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	g, err := user.LookupGroupId(u.Gid)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(conf), "/var/log/lockredis/*.log", filepath.Join(dir, "*.log"), 1)
	s = strings.Replace(s, "su lockredis lockredis", "su "+u.Username+" "+g.Name, 1)
	if s == string(conf) {
		t.Fatal("the logrotate file's path or user moved")
	}
	testConf := filepath.Join(t.TempDir(), "lockredis")
	if err := os.WriteFile(testConf, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(logrotate, "--force", "--state", filepath.Join(dir, "state"), testConf).CombinedOutput()
	if err != nil {
		t.Fatalf("logrotate: %v\n%s", err, out)
	}
	rotated, err := os.ReadFile(logfile + ".1")
	if err != nil || !bytes.Contains(rotated, []byte("Ready to accept connections")) {
		t.Fatalf("rotated log: %v\n%s", err, rotated)
	}
	// CLIENT KILL logs a line.
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	defer rdb.Close()
	victim := redis.NewClient(&redis.Options{Addr: addr, PoolSize: 1, ClientName: "victim"})
	defer victim.Close()
	victim.Ping(ctx)
	if err := rdb.Do(ctx, "CLIENT", "KILL", "SKIPME", "yes", "USER", "default").Err(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool {
		b, _ := os.ReadFile(logfile)
		return bytes.Contains(b, []byte("killed by CLIENT KILL"))
	})
	b, _ := os.ReadFile(logfile)
	if bytes.IndexByte(b, 0) >= 0 || bytes.Contains(b, []byte("Ready to accept connections")) {
		t.Errorf("the log after rotation has a hole or old lines: %q", b)
	}
}
