package compat

import (
	"os/exec"
	"syscall"
)

// dieWithTest makes the kernel kill a server process if the test process
// dies first (a panic or a timeout skips t.Cleanup), so no redis-server or
// lockredis is left running.
func dieWithTest(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
