package keyspace

import "unsafe"

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
// An entry is 16 bytes, one per held lock: the key's bytes (shared with
// the buntdb item, so no copy) and one word packing the expiry, as
// milliseconds since queueBase (40 bits: until 2058), with the key's length
// (24 bits). An entry that does not pack (an expiry outside that range, as
// a manual clock's; a key of 16 MiB or more) goes to a second heap of
// plain 24-byte entries; popDue takes the earlier of the two tops.
//
// It is touched only under the keyspace's exclusive lock: pushes at the end
// of a write transaction, pops by the sweeper's write transaction.
type expiryQueue struct {
	packed []packedEntry
	wide   []expiryEntry
}

type expiryEntry struct {
	at   int64  // unix ms
	bkey string // buntdb key (db byte + key)
}

// packedEntry is an expiryEntry in 16 bytes (see expiryQueue).
type packedEntry struct {
	key  *byte
	pack uint64 // (at - queueBase) << packLenBits | len(bkey)
}

const (
	queueBase   = 1704067200000 // 2024-01-01T00:00:00Z in unix ms
	packLenBits = 24
	packAtBits  = 64 - packLenBits
)

func (e packedEntry) entry() expiryEntry {
	return expiryEntry{
		at:   int64(e.pack>>packLenBits) + queueBase,
		bkey: unsafe.String(e.key, int(e.pack&(1<<packLenBits-1))),
	}
}

func (e packedEntry) before(o packedEntry) bool { return e.pack < o.pack }
func (e expiryEntry) before(o expiryEntry) bool { return e.at < o.at }

// len is the number of entries, stale ones included.
func (q *expiryQueue) len() int { return len(q.packed) + len(q.wide) }

// add pushes an entry.
func (q *expiryQueue) add(at int64, bkey string) {
	if rel := at - queueBase; rel >= 0 && rel < 1<<packAtBits && len(bkey) > 0 && len(bkey) < 1<<packLenBits {
		q.packed = heapPush(q.packed, packedEntry{unsafe.StringData(bkey), uint64(rel)<<packLenBits | uint64(len(bkey))}, packedEntry.before)
		return
	}
	q.wide = heapPush(q.wide, expiryEntry{at, bkey}, expiryEntry.before)
}

// popDue removes and returns the earliest entry if it is due before now.
func (q *expiryQueue) popDue(now int64) (expiryEntry, bool) {
	var p, w expiryEntry
	hasP, hasW := len(q.packed) > 0, len(q.wide) > 0
	if hasP {
		p = q.packed[0].entry()
	}
	if hasW {
		w = q.wide[0]
	}
	switch {
	case hasP && (!hasW || p.at <= w.at):
		if p.at >= now {
			return expiryEntry{}, false
		}
		q.packed, _ = heapPop(q.packed, packedEntry.before)
		return p, true
	case hasW:
		if w.at >= now {
			return expiryEntry{}, false
		}
		q.wide, _ = heapPop(q.wide, expiryEntry.before)
		return w, true
	}
	return expiryEntry{}, false
}

func (q *expiryQueue) reset() {
	*q = expiryQueue{}
}

// heapPush pushes x on the binary min-heap h: written out rather than
// through container/heap, whose Push(any) would allocate per write.
func heapPush[T any](h []T, x T, before func(a, b T) bool) []T {
	h = append(h, x)
	for i := len(h) - 1; i > 0; {
		parent := (i - 1) / 2
		if !before(h[i], h[parent]) {
			break
		}
		h[parent], h[i] = h[i], h[parent]
		i = parent
	}
	return h
}

// heapPop removes the minimum of the non-empty heap h.
func heapPop[T any](h []T, before func(a, b T) bool) ([]T, T) {
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	var zero T
	h[last] = zero // drop the key for the GC
	h = h[:last]
	for i := 0; ; {
		l, r, min := 2*i+1, 2*i+2, i
		if l < len(h) && before(h[l], h[min]) {
			min = l
		}
		if r < len(h) && before(h[r], h[min]) {
			min = r
		}
		if min == i {
			break
		}
		h[i], h[min] = h[min], h[i]
		i = min
	}
	return h, top
}
