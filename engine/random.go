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

// seed makes the picks reproducible (Engine.Seed).
func (r *randSource) seed(seed int64) {
	r.mu.Lock()
	r.r = rand.New(rand.NewPCG(uint64(seed), 0))
	r.mu.Unlock()
	r.seeded.Store(true)
}

// intN returns a random int in [0, n).
func (r *randSource) intN(n int) int {
	if !r.seeded.Load() {
		return rand.IntN(n)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.r.IntN(n)
}
