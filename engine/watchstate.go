package engine

import (
	"sync"
	"sync/atomic"
)

// dbKey names a key in a database.
type dbKey struct {
	db  int
	key string
}

// watchSet is one client's WATCHed keys.
type watchSet struct {
	dirty atomic.Bool
	keys  map[dbKey]bool // value: the key was already expired when watched
}

// watchRegistry maps keys to the clients watching them.
type watchRegistry struct {
	mu   sync.Mutex
	byKy map[dbKey]map[*watchSet]struct{}
}

func (w *watchRegistry) add(ws *watchSet, k dbKey, expired bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ok := ws.keys[k]; !ok {
		ws.keys[k] = expired
	}
	if w.byKy == nil {
		w.byKy = make(map[dbKey]map[*watchSet]struct{})
	}
	m := w.byKy[k]
	if m == nil {
		m = make(map[*watchSet]struct{})
		w.byKy[k] = m
	}
	m[ws] = struct{}{}
}

func (w *watchRegistry) remove(ws *watchSet) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for k := range ws.keys {
		if m := w.byKy[k]; m != nil {
			delete(m, ws)
			if len(m) == 0 {
				delete(w.byKy, k)
			}
		}
	}
}
