package raftgroup_test

import (
	"os/exec"
	"strings"
	"testing"
)

// A program that embeds a single server compiles none of the replication:
// the root package depends neither on hashicorp/raft nor on package
// replication.
func TestRootPackageCompilesNoReplication(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/lockredis/lockredis").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "github.com/hashicorp/") || strings.HasSuffix(dep, "/replication") || strings.HasSuffix(dep, "/raftgroup") {
			t.Errorf("the root package depends on %s", dep)
		}
	}
}
