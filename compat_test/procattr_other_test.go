//go:build !linux

package compat

import "os/exec"

// dieWithTest does nothing where the kernel has no parent-death signal.
func dieWithTest(cmd *exec.Cmd) {}
