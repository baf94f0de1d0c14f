package main

import (
	"errors"
	"strings"
)

// adjustLimit is adjustOpenFilesLimit over a getter and a setter, so that
// tests can play a system with any limits. Texts are Redis 7.0's.
func adjustLimit(maxclients int, logf func(level, format string, args ...any),
	get func() (uint64, error), set func(uint64) error) (int, bool) {
	maxfiles := uint64(maxclients) + minReservedFDs
	old, err := get()
	if err != nil {
		logf("warning", "Unable to obtain the current NOFILE limit (%v), assuming 1024 and setting the max clients configuration accordingly.", err)
		return 1024 - minReservedFDs, true
	}
	if old >= maxfiles {
		return maxclients, true
	}
	const step = 16
	best := maxfiles
	// The last refusal, reported when the limit ends up short even if a
	// lower attempt succeeded (Redis's setrlimit_error).
	var setErr error = errors.New("unknown error")
	for best > old {
		err := set(best)
		if err == nil {
			break
		}
		setErr = err
		if best < step {
			best = old
			break
		}
		best -= step
	}
	// The limit we had is still good if every attempt was lower.
	if best < old {
		best = old
	}
	if best >= maxfiles {
		logf("notice", "Increased maximum number of open files to %d (it was originally set to %d).", maxfiles, old)
		return maxclients, true
	}
	if best <= minReservedFDs {
		logf("warning", "Your current 'ulimit -n' of %d is not enough for the server to start. Please increase your open file limit to at least %d. Exiting.", old, maxfiles)
		return 0, false
	}
	reduced := int(best - minReservedFDs)
	logf("warning", "You requested maxclients of %d requiring at least %d max file descriptors.", maxclients, maxfiles)
	logf("warning", "Server can't set maximum open files to %d because of OS error: %s.", maxfiles, strerror(setErr))
	logf("warning", "Current maximum open files is %d. maxclients has been reduced to %d to compensate for low ulimit. If you need higher maxclients increase 'ulimit -n'.", best, reduced)
	return reduced, true
}

// strerror spells an error as C's strerror does ("Operation not
// permitted"), the way Redis's log lines show it.
func strerror(err error) string {
	s := err.Error()
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
