package keyspace

import (
	"bytes"
	"io"

	"github.com/tidwall/buntdb"
)

// Snapshot is the keyspace of an in-memory store, kept by the Go API's
// Restart so that a restarted embedded server finds its data, as a
// redis-server restarted with persistence does. It also carries the
// fencing token counter: tokens only grow, also across restarts, and the
// largest token of the stored keys is not enough (a deleted key's token
// must not be handed out again).
type Snapshot struct {
	data      []byte
	nextToken uint64
}

// restore loads snap into a new in-memory keyspace, before Load counts
// the keys, and returns the last token it had handed out. wrap counts
// what is read (loading.go).
func restore(db *buntdb.DB, snap *Snapshot, wrap func(io.Reader) io.Reader) (lastToken uint64, err error) {
	if snap == nil {
		return 0, nil
	}
	if err := db.Load(wrap(bytes.NewReader(snap.data))); err != nil {
		return 0, err
	}
	return snap.nextToken - 1, nil
}
