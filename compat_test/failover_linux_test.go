//go:build linux

package compat

import (
	"bufio"
	"context"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestFailoverClients runs unmodified Redis clients against a 3-node group
// of the built binary and kills its leader (SIGKILL) while they hold
// locks: redis-py's Lock through Sentinel and through RedisCluster,
// ioredis with the nodes as its sentinels (a SET NX PX lock with Lua
// compare-and-delete, and node-redlock over it) and ioredis's Cluster.
// Each script (python/failover.py, node/failover.js) asserts that a lock
// taken before the kill is still held after it (another owner refused as
// soon as the group answers), still its owner's (extend, release), and
// passes on once released. The group's nodes answer SENTINEL and CLUSTER
// for the group (docs/replication.md), so the clients find the new leader
// by themselves.
func TestFailoverClients(t *testing.T) {
	requireGroupBinary(t)
	py := requireRedisPy(t)
	node := requireNodeClients(t)
	for _, tc := range []struct {
		name, dir, interpreter, script, mode string
		cluster                              bool
		want                                 []string
	}{
		{"redis-py sentinel", "python", py, "failover.py", "sentinel", false,
			[]string{"acquire", "lock held across the failover", "owner still owns it", "released and reacquired"}},
		{"redis-py cluster", "python", py, "failover.py", "cluster", true,
			[]string{"acquire", "lock held across the failover", "owner still owns it", "released and reacquired"}},
		{"ioredis sentinel", "node", node, "failover.js", "sentinel", false,
			[]string{"ioredis sentinel acquire", "redlock acquire", "lock held across the failover",
				"owner kept it, released and reacquired", "redlock lock held across the failover",
				"redlock extend, release and reacquire after the failover"}},
		{"ioredis cluster", "node", node, "failover.js", "cluster", true,
			[]string{"ioredis cluster acquire", "lock held across the failover", "owner kept it, released and reacquired"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var extra []string
			if tc.cluster {
				extra = []string{"--cluster-enabled", "yes"}
			}
			c := newJepsenCluster(t, 3, true, extra...)
			out := runFailoverScript(t, c, tc.dir, tc.interpreter, tc.script, tc.mode)
			for _, w := range tc.want {
				if !slices.Contains(out, "ok "+w) {
					t.Errorf("%s %s did not report %q:\n%s", tc.script, tc.mode, w, strings.Join(out, "\n"))
				}
			}
		})
	}
}

// runFailoverScript runs a failover script against the group's nodes:
// when it prints "kill" the leader is killed with SIGKILL, then the
// script is told so by a line on its stdin. It returns the script's
// output lines; the test fails if the script fails.
func runFailoverScript(t *testing.T, c *jepsenCluster, dir, interpreter, script, mode string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, interpreter, append([]string{script, mode}, c.addrs()...)...)
	cmd.Dir = dir
	dieWithTest(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var lines []string
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		line := sc.Text()
		lines = append(lines, line)
		if strings.HasPrefix(line, "info ") {
			t.Log(line)
		}
		if line != "kill" {
			continue
		}
		leader, err := c.waitLeader(10 * time.Second)
		if err != nil {
			t.Errorf("no leader to kill: %v", err)
			break
		}
		t.Logf("killing the leader %s", leader)
		if err := leader.kill9(); err != nil {
			t.Errorf("kill -9 %s: %v", leader, err)
			break
		}
		io.WriteString(stdin, "killed\n")
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%s %s %s: %v\n%s\n%s", interpreter, script, mode, err, strings.Join(lines, "\n"), stderr.String())
	}
	return lines
}
