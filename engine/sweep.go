package engine

import "time"

const (
	sweepEvery  = 100 * time.Millisecond // Redis's hz 10
	sweepBatch  = 200                    // keys deleted per transaction
	sweepBudget = 25 * time.Millisecond  // time one tick may spend
)

// sweeper removes expired keys in the background (Redis's active expiry).
// Lookups delete the expired keys they meet (Tx.foundExpired); this
// reclaims the keys nobody reads again.
func (e *Engine) sweeper() {
	defer e.wg.Done()
	t := time.NewTicker(sweepEvery)
	defer t.Stop()
	for {
		select {
		case <-e.stop:
			return
		case <-t.C:
			if e.activeExpireOff.Load() || e.Follower() {
				continue
			}
			e.Stats.ExpireCycleRuns.Add(1)
			start := time.Now()
			e.Sweep(sweepBudget)
			e.LatencySample("expire-cycle", time.Since(start).Milliseconds())
		}
	}
}

// SetActiveExpire turns the background sweeper on or off, as Redis's DEBUG
// SET-ACTIVE-EXPIRE does: with it off only lookups expire keys, which
// makes what a command leaves behind independent of timing (tests).
func (e *Engine) SetActiveExpire(on bool) { e.activeExpireOff.Store(!on) }

// expireAfterRead deletes the expired keys a read transaction found and
// could not delete itself, in a write transaction of its own. Engine.do
// runs it before the read command returns, so before its reply is sent:
// the next command of any client sees them gone, as after Redis's lookup.
func (e *Engine) expireAfterRead(read *Tx) {
	tx := e.txPool.Get().(*Tx)
	tx.found = append(tx.found, read.found...)
	tx.client = read.client // the reader's command deleted them (tracking)
	tx.expiredAnnounced = true
	e.do(tx, true, read.DB, (*Tx).expireFound)
}

// Sweep deletes expired keys, then expired hash fields (hashttl_sweep.go),
// at most sweepBatch keys or hashes per transaction so that other clients
// get the lock in between, until none is left or budget has passed
// (budget <= 0: until none is left). It returns how many keys it deleted.
func (e *Engine) Sweep(budget time.Duration) int {
	if e.Follower() {
		return 0 // see SetFollower
	}
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
				tx.expireKey(ent.bkey)
				deleted++
			}
			popped += tx.expireFieldsDue(sweepBatch - popped)
		})
		total += deleted
		if popped < sweepBatch || (budget > 0 && time.Since(start) > budget) {
			// Lock deadlines that are not key expiries (a semaphore
			// holder's), for a clock that timers do not follow.
			e.locks.fireDue()
			return total
		}
	}
}
