package main

import (
	"math"
	"runtime/debug"
	"strconv"
)

// The Go memory limit follows maxmemory. maxmemory bounds the keyspace
// (INFO used_memory: the keyspace's estimate of its live heap); the
// process also holds what maxmemory does not count (client buffers, Lua
// states, pub/sub queues) and the garbage between two collections, which
// GOGC=100 lets grow to the size of the live heap: with a full keyspace the
// heap would reach twice maxmemory. Under a memory limit of maxmemory plus
// a quarter plus 32 MiB the collector paces by GOGC as usual while the heap
// is well below it, and runs sooner instead of letting the heap double as
// it nears it (at most half the CPU: the runtime's own cap, so a heap past
// the limit slows the server rather than stalling it).
//
// This is the binary's choice, not the library's: the limit is one per
// process, and an embedding program may run many servers or hold other
// memory. A GOMEMLIMIT in the environment is the operator's choice and
// wins; maxmemory 0 (Redis's default, no limit) leaves the runtime without
// a limit, as Go's default is.
const memLimitBase = 32 << 20

// goMemoryLimit is the Go memory limit for maxmemory bytes (math.MaxInt64,
// no limit, for 0).
func goMemoryLimit(maxmemory int64) int64 {
	if maxmemory <= 0 {
		return math.MaxInt64
	}
	headroom := maxmemory/4 + memLimitBase
	if maxmemory > math.MaxInt64-headroom {
		return math.MaxInt64
	}
	return maxmemory + headroom
}

// memLimit applies maxmemory to the Go memory limit, at start and on
// CONFIG SET maxmemory.
type memLimit struct {
	fromEnv bool                    // GOMEMLIMIT was given: left alone
	set     func(limit int64) int64 // debug.SetMemoryLimit (tests replace it)
	logf    func(level, format string, args ...any)
}

func newMemLimit(env string, logf func(level, format string, args ...any)) *memLimit {
	return &memLimit{fromEnv: env != "", set: debug.SetMemoryLimit, logf: logf}
}

// apply sets the limit for maxmemory bytes.
func (m *memLimit) apply(maxmemory int64) {
	if m.fromEnv {
		if maxmemory > 0 {
			m.logf("verbose", "GOMEMLIMIT is set: maxmemory %d leaves the Go memory limit (%d) alone", maxmemory, m.set(-1))
		}
		return
	}
	limit := goMemoryLimit(maxmemory)
	m.set(limit)
	if limit == math.MaxInt64 {
		m.logf("verbose", "maxmemory 0: no Go memory limit")
		return
	}
	m.logf("verbose", "Go memory limit %d MiB for maxmemory %d bytes", limit>>20, maxmemory)
}

// onConfigSet follows CONFIG SET maxmemory (its value is in bytes, the
// settings' normalized form).
func (m *memLimit) onConfigSet(name, value string) {
	if name != "maxmemory" {
		return
	}
	if n, err := strconv.ParseInt(value, 10, 64); err == nil {
		m.apply(n)
	}
}
