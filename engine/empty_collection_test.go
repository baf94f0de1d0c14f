package engine

import "testing"

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
		te.Do(true, 0, func(tx *Tx) {
			if _, _, err := tx.bt.Set(storeKey(0, []byte("k")), tt.raw, nil); err != nil {
				t.Fatal(err)
			}
		})
		if got := te.do(tt.args...).String(); got != tt.want {
			t.Errorf("%q on %q: got %s, want %s", tt.args, tt.raw, got, tt.want)
		}
	}
}
