package compat

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestRedisBenchmark runs redis-benchmark against the built binary: the
// standard set/get tests and the lock acquire as a custom command. It
// exits non-zero on the first error reply, so success means every reply
// was one redis-benchmark accepts; the acquires must also have created keys.
func TestRedisBenchmark(t *testing.T) {
	bench := requireTool(t, "redis-benchmark")
	cli := requireTool(t, "redis-cli")
	addr := startBinary(t)
	port := addr[strings.LastIndex(addr, ":")+1:]
	runs := [][]string{
		{"-p", port, "-n", "2000", "-c", "10", "-q", "-t", "set,get"},
		{"-p", port, "-n", "2000", "-c", "10", "-r", "1000", "-q", "SET", "lock:__rand_int__", "tok", "NX", "PX", "30000"},
	}
	for _, args := range runs {
		out, err := exec.Command(bench, args...).CombinedOutput()
		if err != nil || strings.Contains(string(out), "Error") {
			t.Fatalf("redis-benchmark %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	out, err := exec.Command(cli, "-p", port, "DBSIZE").Output()
	if err != nil {
		t.Fatal(err)
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	if n < 100 {
		t.Fatalf("DBSIZE after the SET NX PX run is %d: the lock keys were not created", n)
	}
}
