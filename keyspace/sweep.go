package keyspace

import (
	"time"
)

const (
	sweepEvery  = 100 * time.Millisecond // Redis's hz 10
	sweepBatch  = 200                    // keys deleted per transaction
	sweepBudget = 25 * time.Millisecond  // time one tick may spend
)

// sweeper removes expired keys in the background (Redis's active expiry).
// Lookups delete the expired keys they meet (Tx.FoundExpired); this
// reclaims the keys nobody reads again.
func (s *Store) sweeper() {
	defer s.wg.Done()
	t := time.NewTicker(sweepEvery)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			if s.activeExpireOff.Load() || s.Follower() {
				continue
			}
			start := time.Now()
			s.Sweep(sweepBudget)
			if s.cfg.OnSweep != nil {
				s.cfg.OnSweep(time.Since(start))
			}
		}
	}
}

// SetActiveExpire turns the background sweeper on or off, as Redis's DEBUG
// SET-ACTIVE-EXPIRE does: with it off only lookups expire keys, which
// makes what a command leaves behind independent of timing (tests).
func (s *Store) SetActiveExpire(on bool) { s.activeExpireOff.Store(!on) }

// ActiveExpire reports whether the background sweeper is on.
func (s *Store) ActiveExpire() bool { return !s.activeExpireOff.Load() }

// Sweep deletes expired keys, then expired hash fields (Hooks.ExpireFields),
// at most sweepBatch keys or hashes per transaction so that other clients
// get the lock in between, until none is left or budget has passed
// (budget <= 0: until none is left). It returns how many keys it deleted.
func (s *Store) Sweep(budget time.Duration) int {
	if s.Follower() {
		return 0 // see SetFollower
	}
	start := time.Now()
	total := 0
	for {
		popped, deleted := 0, 0
		s.Do(true, 0, func(tx *Tx) {
			for popped < sweepBatch {
				ent, ok := s.expiries.popDue(tx.Ms)
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
			popped += tx.up.ExpireFields(sweepBatch - popped)
		})
		total += deleted
		if popped < sweepBatch || (budget > 0 && time.Since(start) > budget) {
			return total
		}
	}
}
