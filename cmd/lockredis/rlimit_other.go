//go:build !unix

package main

// adjustOpenFilesLimit has nothing to adjust where there is no
// RLIMIT_NOFILE.
func adjustOpenFilesLimit(maxclients int, logf func(level, format string, args ...any)) (int, bool) {
	return maxclients, true
}
