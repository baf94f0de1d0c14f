package keyspace

import (
	"errors"
	"strings"
	"syscall"
)

// The core's errors. Those a command replies with have Redis's wording.
var (
	// ErrRewriteInProgress: BGREWRITEAOF while a rewrite runs.
	ErrRewriteInProgress = errors.New("ERR Background append only file rewriting already in progress")
	// ErrNoAOF: a rewrite or fsync asked of an in-memory keyspace.
	ErrNoAOF = errors.New("ERR no append only file: the keyspace is in memory")

	errCorruptAOF = errors.New("corrupt")
	// errRollback makes buntdb discard the transaction.
	errRollback = errors.New("rollback")
)

// MisconfMessage is Redis's writeCommandsGetDiskErrorMessage for the AOF:
// the reply write commands get while err keeps the AOF from being written.
func MisconfMessage(err error) string {
	return "MISCONF Errors writing to the AOF file: " + Strerror(err)
}

// Strerror is err as Redis's strerror words it: an errno's text with a
// capital letter, else err's own text.
func Strerror(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		if msg := errno.Error(); msg != "" {
			return strings.ToUpper(msg[:1]) + msg[1:]
		}
	}
	return err.Error()
}

// errnoOf is err's errno, 0 when it has none (INFO's aof_last_write_errno).
func errnoOf(err error) int {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return int(errno)
	}
	return 0
}
