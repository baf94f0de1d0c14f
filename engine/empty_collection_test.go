package engine

import (
	"testing"

	"github.com/lockredis/lockredis/keyspace"
)

// TestEmptyStoredCollection is the first crash FuzzCorruptStoredValue
// found (testdata/fuzz/FuzzCorruptStoredValue/70e9851741060701: the raw
// value "z00000000", a sorted set with an empty payload): ZRANDMEMBER
// called rand.IntN(0). A stored collection that decodes to no element now
// reads as missing.
func TestEmptyStoredCollection(t *testing.T) {
	te := newTestEngine(t)
	for _, tt := range []struct {
		raw  string
		args []string
		want string
	}{
		{"z00000000", cmd("ZRANDMEMBER", "k"), "(nil)"},
		{"S\xff\xff\xff\xff\xff\xff\xff\xff", cmd("SRANDMEMBER", "k"), "(nil)"},
		{"S\xff\xff\xff\xff\xff\xff\xff\xff\x01", cmd("SPOP", "k"), "(nil)"},
		{"h\xff\xff\xff\xff\xff\xff\xff\xff\x00\x07", cmd("HRANDFIELD", "k"), "(nil)"},
		{"h\xff\xff\xff\xff\xff\xff\xff\xff", cmd("HRANDFIELD", "k", "-3"), "[]"},
		{"l\xff\xff\xff\xff\xff\xff\xff\xff", cmd("LPOP", "k"), "(nil)"},
		{"z\xff\xff\xff\xff\xff\xff\xff\xff", cmd("ZADD", "k", "1", "m"), "(integer) 1"},
	} {
		plant(t, te.Engine, "k", tt.raw)
		if got := te.do(tt.args...).String(); got != tt.want {
			t.Errorf("%q on %q: got %s, want %s", tt.args, tt.raw, got, tt.want)
		}
	}
}

// plant stores raw as the stored bytes of key in database 0, as a damaged
// append-only file would load them, through the keyspace's Apply.
func plant(t *testing.T, e *Engine, key, raw string) {
	t.Helper()
	err := e.Keyspace().Apply(&keyspace.ChangeBatch{Changes: []keyspace.Change{
		{Kind: keyspace.ChangePut, Key: key, Raw: raw},
	}})
	if err != nil {
		t.Fatal(err)
	}
}
