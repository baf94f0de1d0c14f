package keyspace

// Memory accounting: an estimate of the keyspace kept exact at every
// commit (Store.Dataset), not the Go heap (shared by every store of a
// process, full of garbage until the next GC, so a DEL would not free
// anything until then). The constants were measured with
// runtime.MemStats.HeapAlloc after a GC, 100,000 keys of 8 to 1000 bytes:
// 96 bytes per buntdb item beyond its key and encoded value (item, btree
// slot, string headers), 28 more for a key with an expiry (the expiry
// queue's entry).
const (
	itemOverhead     = 96
	volatileOverhead = 32
)

// itemMemory is the estimated memory of one stored item.
func itemMemory(bkey, raw string) int64 {
	n := int64(len(bkey) + len(raw) + itemOverhead)
	if expireAtOf(raw) != 0 {
		n += volatileOverhead
	}
	return n
}
