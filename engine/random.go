package engine

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
)

// randSource picks what SPOP, SRANDMEMBER, HRANDFIELD, ZRANDMEMBER and
// RANDOMKEY return. Unseeded it draws from math/rand/v2's global
// generator, which needs no lock; after Engine.Seed it draws from the
// engine's own generator, so that a test gets the same picks on every run
// without touching other servers of the process.
type randSource struct {
	seeded atomic.Bool
	mu     sync.Mutex // read commands run concurrently: guards r
	r      *rand.Rand
}

// Seed makes the engine's random picks reproducible: after Seed(n), the
// same commands on the same data pick the same elements.
func (e *Engine) Seed(seed int64) {
	e.rand.mu.Lock()
	e.rand.r = rand.New(rand.NewPCG(uint64(seed), 0))
	e.rand.mu.Unlock()
	e.rand.seeded.Store(true)
}

// randIntN returns a random int in [0, n).
func (e *Engine) randIntN(n int) int {
	if !e.rand.seeded.Load() {
		return rand.IntN(n)
	}
	e.rand.mu.Lock()
	defer e.rand.mu.Unlock()
	return e.rand.r.IntN(n)
}
