//go:build unix

package main

import "syscall"

// minReservedFDs is Redis's CONFIG_MIN_RESERVED_FDS: descriptors kept for
// listeners, files and logs beyond one per client.
const minReservedFDs = 32

// adjustOpenFilesLimit is Redis's adjustOpenFilesLimit: make room for
// maxclients connections by raising RLIMIT_NOFILE (soft and hard) to
// maxclients+32, trying 16 fewer at a time when the system refuses; if the
// limit stays short, maxclients shrinks to fit, with Redis's warnings. It
// returns the maxclients to use, false when not even one client fits
// (Redis exits then). Go already raised the soft limit to the hard one at
// start, so this acts only when the hard limit is short.
func adjustOpenFilesLimit(maxclients int, logf func(level, format string, args ...any)) (int, bool) {
	return adjustLimit(maxclients, logf, getNofile, setNofile)
}

func getNofile() (uint64, error) {
	var l syscall.Rlimit
	err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l)
	return uint64(l.Cur), err
}

func setNofile(n uint64) error {
	return syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: n, Max: n})
}
