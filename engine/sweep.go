package engine

import "time"

const (
	sweepEvery  = 100 * time.Millisecond // Redis's hz 10
	sweepBatch  = 200                    // keys deleted per transaction
	sweepBudget = 25 * time.Millisecond  // time one tick may spend
)

// sweeper removes expired keys in the background. Lookups already hide
// expired keys; this reclaims the memory of keys nobody reads again.
func (e *Engine) sweeper() {
	defer e.wg.Done()
	t := time.NewTicker(sweepEvery)
	defer t.Stop()
	for {
		select {
		case <-e.stop:
			return
		case <-t.C:
			e.Stats.ExpireCycleRuns.Add(1)
			e.Sweep(sweepBudget)
		}
	}
}

// Sweep deletes expired keys, at most sweepBatch per transaction so that
// other clients get the lock in between, until none is left or budget has
// passed (budget <= 0: until none is left). It returns how many it deleted.
func (e *Engine) Sweep(budget time.Duration) int {
	start := time.Now()
	total := 0
	for {
		popped, deleted := 0, 0
		e.Do(true, 0, func(tx *Tx) {
			for popped < sweepBatch {
				ent, ok := e.expiries.popDue(tx.Ms)
				if !ok {
					break
				}
				popped++
				raw, err := tx.bt.Get(ent.bkey)
				if err != nil || expireAtOf(raw) != ent.at {
					continue // stale: the key changed since this entry
				}
				tx.remove(ent.bkey, int(ent.bkey[0]))
				deleted++
			}
			tx.expired += int64(deleted)
		})
		total += deleted
		if popped < sweepBatch || (budget > 0 && time.Since(start) > budget) {
			return total
		}
	}
}
