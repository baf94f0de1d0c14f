package keyspace

// expiryQueue orders the keys that have an expiry by expiry time, for the
// active sweeper. Only keys with a TTL are in it, so keys without one cost
// nothing, and pushing is an integer-keyed heap insert.
//
// Entries are never updated or removed when a key changes: a key that is
// deleted, persisted or given another TTL leaves a stale entry behind,
// which the sweeper recognises (the stored expiry no longer matches) and
// drops. A key that gets a new TTL gets a new entry. So the queue holds at
// most one live entry per volatile key plus stale ones that leave by
// their own (past) time.
//
// It is touched only under the keyspace's exclusive lock: pushes at the end
// of a write transaction, pops by the sweeper's write transaction.
type expiryQueue []expiryEntry

type expiryEntry struct {
	at   int64  // unix ms
	bkey string // buntdb key (db byte + key)
}

// add pushes an entry: a binary min-heap on at, written out rather than
// through container/heap, whose Push(any) would allocate per write.
func (q *expiryQueue) add(at int64, bkey string) {
	h := append(*q, expiryEntry{at, bkey})
	for i := len(h) - 1; i > 0; {
		parent := (i - 1) / 2
		if h[parent].at <= h[i].at {
			break
		}
		h[parent], h[i] = h[i], h[parent]
		i = parent
	}
	*q = h
}

// popDue removes and returns the earliest entry if it is due before now.
func (q *expiryQueue) popDue(now int64) (expiryEntry, bool) {
	h := *q
	if len(h) == 0 || h[0].at >= now {
		return expiryEntry{}, false
	}
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h[last] = expiryEntry{} // drop the key string for the GC
	h = h[:last]
	for i := 0; ; {
		l, r, min := 2*i+1, 2*i+2, i
		if l < len(h) && h[l].at < h[min].at {
			min = l
		}
		if r < len(h) && h[r].at < h[min].at {
			min = r
		}
		if min == i {
			break
		}
		h[i], h[min] = h[min], h[i]
		i = min
	}
	*q = h
	return top, true
}

func (q *expiryQueue) reset() {
	*q = nil
}
