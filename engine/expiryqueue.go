package engine

import "container/heap"

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
// It is touched only under the engine's exclusive lock: pushes at the end
// of a write transaction, pops by the sweeper's write transaction.
type expiryQueue []expiryEntry

type expiryEntry struct {
	at   int64  // unix ms
	bkey string // buntdb key (db byte + key)
}

func (q expiryQueue) Len() int           { return len(q) }
func (q expiryQueue) Less(i, j int) bool { return q[i].at < q[j].at }
func (q expiryQueue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *expiryQueue) Push(x any)        { *q = append(*q, x.(expiryEntry)) }
func (q *expiryQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}

func (q *expiryQueue) add(at int64, bkey string) { heap.Push(q, expiryEntry{at, bkey}) }

// popDue removes and returns the earliest entry if it is due before now.
func (q *expiryQueue) popDue(now int64) (expiryEntry, bool) {
	if len(*q) == 0 || (*q)[0].at >= now {
		return expiryEntry{}, false
	}
	return heap.Pop(q).(expiryEntry), true
}

func (q *expiryQueue) reset() {
	*q = nil
}
