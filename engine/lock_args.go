package engine

import (
	"errors"
	"math"
)

// Arguments the lock commands share (LOCK.* and LOCK.SESSION.*): TTLs,
// durations and their errors.

// errLockArgNotInteger is the reply for an option of a lock command that is
// not an integer: "ERR <name> is not an integer or out of range".
func errLockArgNotInteger(name string) error {
	return errors.New("ERR " + name + " is not an integer or out of range")
}

// errLockArgNegative is the reply for an option that may not be negative.
func errLockArgNegative(name string) error { return errors.New("ERR " + name + " is negative") }

// parseLockTTL reads a TTL in milliseconds: positive, and its deadline
// must fit; anything else is an invalid expire time, as SET's.
func parseLockTTL(c *Call, b []byte) (int64, error) {
	n, ok := ParseInt(b)
	if !ok || n <= 0 || n > math.MaxInt64-c.Tx.Ms {
		return 0, ErrInvalidExpire(c.Cmd.FullName)
	}
	return n, nil
}

// parseLockMs reads a duration in milliseconds that may be 0, for the
// option name (its errors say which).
func parseLockMs(c *Call, b []byte, name string) (int64, error) {
	n, ok := ParseInt(b)
	switch {
	case !ok || n > math.MaxInt64-c.Tx.Ms:
		return 0, errLockArgNotInteger(name)
	case n < 0:
		return 0, errLockArgNegative(name)
	}
	return n, nil
}
