package keyspace

// Memory accounting: an estimate of the keyspace kept exact at every
// commit (Store.Dataset), not the Go heap (shared by every store of a
// process, full of garbage until the next GC, so a DEL would not free
// anything until then). The constants were measured with
// runtime.MemStats.HeapAlloc after a GC, 100,000 keys of 8 to 1000 bytes
// (2026-12-02, compact values and 16-byte expiry queue entries): 90 bytes
// per buntdb item beyond its key and encoded value (the 48-byte item, its
// b-tree slot, the rounding of the key+value allocation), 16 more for a
// key with an expiry (its expiry queue entry); the estimate is within 10%
// of the heap for values of 8 bytes (the allocation's rounding), within 1%
// from 20 bytes on.
const (
	itemOverhead     = 90
	volatileOverhead = 16
)

// itemMemory is the estimated memory of one stored item.
func itemMemory(bkey, raw string) int64 {
	n := int64(len(bkey) + len(raw) + itemOverhead)
	if expireAtOf(raw) != 0 {
		n += volatileOverhead
	}
	return n
}
