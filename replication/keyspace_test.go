package replication

import (
	"testing"

	"github.com/lockredis/lockredis/keyspace"
)

// lastSeq reads the Seq of a kindChanges body's last batch without
// decoding the batches.
func TestLastSeq(t *testing.T) {
	batch := func(seq uint64, keys ...string) []byte {
		b := keyspace.ChangeBatch{Seq: seq, Time: 1700000000000, NextToken: 7}
		for _, k := range keys {
			b.Changes = append(b.Changes, keyspace.Change{Kind: keyspace.ChangeDelete, Key: k})
		}
		p, err := b.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		name string
		body []byte
		want uint64
	}{
		{"empty", nil, 0},
		{"one batch", encodeBatch([][]byte{batch(5, "a")}), 5},
		{"several", encodeBatch([][]byte{batch(5, "a"), batch(6), batch(300, "b", "c")}), 300},
		{"truncated last", encodeBatch([][]byte{batch(5, "a"), batch(9, "b")})[:20], 5},
	} {
		if got := lastSeq(tc.body); got != tc.want {
			t.Errorf("%s: lastSeq %d, want %d", tc.name, got, tc.want)
		}
	}
}
