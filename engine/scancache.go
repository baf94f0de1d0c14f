package engine

import (
	"strings"
	"sync"
)

// scanCache remembers where recent cursors stopped. It is shared by all the
// connections of an engine (a cursor may move between connections) and
// SCAN runs in shared read transactions, hence the mutex.
type scanCache struct {
	mu      sync.Mutex
	entries map[uint64]scanEntry
	ring    []uint64 // insertion order, for FIFO eviction; made at the first SCAN
	next    int
	tag     uint64
}

// newScanCache makes an empty cache; its map grows with use (an idle
// server keeps none of it).
func newScanCache() *scanCache {
	return &scanCache{entries: make(map[uint64]scanEntry)}
}

// lookup returns the key a cursor stopped at, if remembered for db.
func (sc *scanCache) lookup(cursor uint64, db int) (string, bool) {
	sc.mu.Lock()
	e, ok := sc.entries[cursor]
	sc.mu.Unlock()
	if !ok || e.db != db {
		return "", false
	}
	return e.last, true
}

// add makes a new cursor for position pos, remembering that it stopped at
// last in db.
func (sc *scanCache) add(pos uint64, db int, last string) uint64 {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	sc.tag = sc.tag%scanMaxTag + 1
	cursor := sc.tag*scanTagUnit + pos%scanTagUnit
	if len(last) > scanCacheMaxKey {
		return cursor
	}
	if sc.ring == nil {
		sc.ring = make([]uint64, scanCacheSize)
	}
	if old := sc.ring[sc.next]; old != 0 {
		delete(sc.entries, old)
	}
	// The key came from a buntdb item; copy it so the cache does not pin
	// the whole item.
	sc.entries[cursor] = scanEntry{db: db, last: strings.Clone(last)}
	sc.ring[sc.next] = cursor
	sc.next = (sc.next + 1) % scanCacheSize
	return cursor
}

type scanEntry struct {
	db   int
	last string // the last key examined
}

// SCAN cursors.
//
// Redis's cursor is a position in its hash table; ours must be a number too,
// but the keyspace is a B-tree ordered by key. A call examines up to COUNT
// live keys in key order and returns a cursor that encodes two things:
//
//	cursor = tag*scanTagUnit + position
//
// position is how many keys the iteration has examined so far; tag (1 to
// scanMaxTag, one per call that returns a cursor) makes each cursor handed
// out unique. The engine keeps a bounded cache, cursor -> (db, last key
// examined). A call whose cursor is cached resumes with tx.Scan right after
// that key: O(log n + COUNT), so a full iteration is linear, and it returns
// every key that exists for the whole iteration whatever is inserted or
// deleted meanwhile (keys are visited in order and the resume point is a
// key, not an index). A cursor that is not cached (evicted by newer
// cursors, made by another server, or typed by hand) falls back to skipping
// position keys from the start of the range: still a valid resume, exact
// when no key before that point was added or removed in between.
//
// When the pattern starts with literal bytes, only the range of keys with
// that prefix is visited, and positions count within that range.
const (
	scanTagUnit      = 1_000_000_000_000 // room for 10^12 positions
	scanMaxTag       = 9_000_000         // cursors stay below 2^63
	scanCacheSize    = 1024              // cursors remembered per engine
	scanCacheMaxKey  = 4096              // longer keys are not remembered
	scanDefaultCount = 10
)
