package compat

import (
	"os/exec"
	"testing"
)

// requireRedisPy returns a python3 that can import redis (redis-py). The
// Debian package python3-redis installs it for /usr/bin/python3, which
// may not be the python3 first on PATH (pyenv, venvs).
func requireRedisPy(t *testing.T) string {
	t.Helper()
	candidates := []string{"/usr/bin/python3"}
	if p, err := exec.LookPath("python3"); err == nil {
		candidates = append(candidates, p)
	}
	for _, py := range candidates {
		if exec.Command(py, "-c", "import redis").Run() == nil {
			return py
		}
	}
	missingDep(t, "redis-py not installed: apt-get install python3-redis")
	return ""
}

// TestRedisPyLock runs redis-py's Lock (python/lock.py) against lockredis,
// embedded and as the built binary: acquire, a blocking acquire that times
// out, extend, reacquire, non-owner errors, release, expiry, exclusion.
func TestRedisPyLock(t *testing.T) {
	py := requireRedisPy(t)
	want := []string{"acquire", "blocking acquire times out", "extend and reacquire",
		"non-owner raises LockNotOwnedError", "release", "expiry", "exclusion"}
	for _, kind := range []string{"embedded", "binary"} {
		t.Run(kind, func(t *testing.T) {
			runClientScript(t, "python", py, "lock.py", lockServers(t, kind, 1), want)
		})
	}
}
