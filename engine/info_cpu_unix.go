//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package engine

import (
	"syscall"
	"time"
)

// processCPU is the CPU time the process has used, for INFO's
// used_cpu_user and used_cpu_sys.
func processCPU() (user, sys time.Duration) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
}
