package compat

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lockredis/lockredis"
)

// scriptTimeout bounds one client script; a client stuck on a reply that
// never comes fails its test instead of hanging the run.
const scriptTimeout = 2 * time.Minute

// missingDep fails the test on CI, where compat_test/test.sh installs every
// client, and skips it elsewhere with the command that installs it.
func missingDep(t *testing.T, msg string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// requireNodeClients returns the node binary once the pinned packages of
// node/package-lock.json are installed.
func requireNodeClients(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		missingDep(t, "node not installed: apt-get install nodejs npm, then npm ci --prefix compat_test/node")
	}
	probe := exec.Command(node, "-e", `for (const m of ["ioredis", "ioredis6", "redis", "redis6", "redis-semaphore", "redlock"]) require(m)`)
	probe.Dir = "node"
	if out, err := probe.CombinedOutput(); err != nil {
		missingDep(t, "node clients not installed: npm ci --prefix compat_test/node\n"+string(out))
	}
	return node
}

// lockServers starts n independent servers of one kind: "embedded"
// (lockredis in this process), "binary" (the built cmd/lockredis) or
// "redis-server" (the reference, to show a script's assertions hold there).
func lockServers(t *testing.T, kind string, n int) []string {
	t.Helper()
	addrs := make([]string, n)
	for i := range addrs {
		switch kind {
		case "binary":
			addrs[i] = startBinary(t)
		case "redis-server":
			addrs[i] = startRedis(t)
		default:
			addrs[i] = startEmbedded(t, lockredis.Options{}).Addr()
		}
	}
	return addrs
}

// runClientScript runs a client script (interpreter, then the script and
// the server addresses) in dir. The script exits non-zero at the first
// lock property it finds violated and prints "ok <check>" for each one
// that held; every check in want must have been printed, so a script that
// stops early or skips a check cannot pass.
func runClientScript(t *testing.T, dir, interpreter, script string, addrs []string, want []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), scriptTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, interpreter, append([]string{script}, addrs...)...)
	cmd.Dir = dir
	dieWithTest(cmd)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s against %v: %v\n%s", filepath.Base(interpreter), script, addrs, err, out.String())
	}
	printed := strings.Split(out.String(), "\n")
	for _, w := range want {
		if !slices.Contains(printed, "ok "+w) {
			t.Errorf("%s %s did not report %q:\n%s", filepath.Base(interpreter), script, w, out.String())
		}
	}
}

// TestNodeClients runs unmodified node lock clients (pinned in
// node/package-lock.json) against lockredis, embedded and as the built
// binary, and the RESP3 ones against redis-server too. Each script asserts
// lock semantics; see the script for details.
func TestNodeClients(t *testing.T) {
	node := requireNodeClients(t)
	scripts := []struct {
		script  string
		servers int
		want    []string
		onRedis bool // also run against redis-server
	}{
		// node-redlock 5 (beta) with ioredis 5 across three instances.
		{"redlock.js", 3, []string{"ioredis ready", "acquire", "second acquire refused", "extend",
			"release", "quorum", "multi-resource"}, false},
		// redis-semaphore Mutex and Semaphore with ioredis.
		{"semaphore.js", 1, []string{"mutex exclusion and release", "mutex expiry", "mutex refresh",
			"semaphore limit", "semaphore expiry"}, false},
		// node-redis v4 (RESP2): SET NX PX and Lua compare-and-delete.
		{"noderedis.js", 1, []string{"set nx px and compare-and-delete", "expiry", "exclusion"}, false},
		// node-redis v6 and ioredis 6, RESP3 by default: the connection is
		// checked to be RESP3 (CLIENT INFO resp=3, map and double replies),
		// then SET NX PX, owner-only release, expiry, a subscriber running
		// commands on its subscribed connection and woken by the unlock
		// message, and exclusion.
		{"noderedis6.js", 1, []string{"resp3", "set nx px and owner-only release", "expiry",
			"subscriber woken by unlock", "exclusion"}, true},
		{"ioredis6.js", 1, []string{"resp3", "set nx px and owner-only release", "expiry",
			"subscriber woken by unlock", "exclusion"}, true},
	}
	for _, kind := range []string{"embedded", "binary", "redis-server"} {
		for _, s := range scripts {
			if kind == "redis-server" && !s.onRedis {
				continue
			}
			t.Run(kind+"/"+strings.TrimSuffix(s.script, ".js"), func(t *testing.T) {
				runClientScript(t, "node", node, s.script, lockServers(t, kind, s.servers), s.want)
			})
		}
	}
}
