//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package engine

import "time"

// processCPU reports no CPU time where getrusage is not available.
func processCPU() (user, sys time.Duration) { return 0, 0 }
