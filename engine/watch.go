package engine

// Every write transaction reports the keys it changed (set, deleted,
// expired) before it releases the engine lock. WATCH and the blocking list
// commands listen to those reports. While nobody listens, transactions do
// not even record them.

func (w *watchRegistry) keyTouched(tx *Tx, k dbKey) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for ws := range w.byKy[k] {
		if ws.keys[k] {
			// Watched while already expired: its deletion is no change
			// (Redis's touchWatchedKey rule); from now on it is a normal
			// watched key.
			if _, live := tx.GetIn(k.db, []byte(k.key)); !live {
				ws.keys[k] = false
				continue
			}
		}
		ws.dirty.Store(true)
	}
}

func (w *watchRegistry) dbFlushed(tx *Tx, db int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for k, set := range w.byKy {
		if db >= 0 && k.db != db {
			continue
		}
		// Only keys that existed are changed by a flush.
		if _, live := tx.GetIn(k.db, []byte(k.key)); !live {
			continue
		}
		for ws := range set {
			ws.dirty.Store(true)
		}
	}
}

// addListener starts reporting changed keys to l. acts says that l may
// change keys or start timers in answer (serve a blocked client, hand a
// lock over): Apply, which changes nothing beyond its batch, skips it.
func (e *Engine) addListener(l keyListener, acts bool) {
	e.listenersMu.Lock()
	e.listeners = append(e.listeners, listenerEntry{l, acts})
	e.listenersMu.Unlock()
}

// touch records that a key changed, if anyone listens. Tracking clients
// are told at once (the change must invalidate what was read before it
// in the same transaction, not what is read after it).
func (tx *Tx) touch(db int, key string) {
	if tx.quiet {
		// WATCH and tracking do not see it, as in Redis; a blocked
		// stream reader may be waiting for it (XGROUP DESTROY).
		if tx.e.listening.Load() != 0 {
			tx.quietTouched = append(tx.quietTouched, dbKey{db, key})
		}
		return
	}
	if tx.e.tracker.active() {
		tx.e.tracker.keyChanged(tx, key)
	}
	if tx.e.listening.Load() == 0 {
		return
	}
	tx.touched = append(tx.touched, dbKey{db, key})
}

// ResetTransaction drops the MULTI queue and every WATCH (RESET, disconnect).
func (e *Engine) ResetTransaction(s *Session) {
	s.endMulti()
	e.unwatchAll(s)
}

func (e *Engine) unwatchAll(s *Session) {
	if s.watch == nil {
		return
	}
	e.watches.remove(s.watch)
	s.watch = nil
	e.listening.Add(-1)
}

// watchBroken reports whether EXEC must fail: a watched key was changed, or
// has expired since it was watched (Redis's isWatchedKeyExpired).
func (e *Engine) watchBroken(tx *Tx, s *Session) bool {
	ws := s.watch
	if ws == nil {
		return false
	}
	if ws.dirty.Load() {
		return true
	}
	e.watches.mu.Lock()
	defer e.watches.mu.Unlock()
	for k, expiredWhenWatched := range ws.keys {
		if !expiredWhenWatched && tx.StoredButExpired(k.db, []byte(k.key)) {
			return true
		}
	}
	return false
}
