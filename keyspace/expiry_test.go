package keyspace

import (
	"testing"
	"time"
)

// openStore is a loaded in-memory store on a manual clock at 1700000000
// s, with the sweeper off: only lookups expire keys.
func openStore(t *testing.T) *Store {
	t.Helper()
	s := openLoaded(t)
	t.Cleanup(func() { s.Close() })
	return s
}

// openLoaded opens and loads an in-memory store on a manual clock at
// 1700000000 s and turns its sweeper off; the caller closes it.
func openLoaded(tb testing.TB) *Store {
	tb.Helper()
	s, err := Open(Config{Clock: NewManualClock(time.Unix(1700000000, 0))})
	if err != nil {
		tb.Fatal(err)
	}
	if err := s.Load(); err != nil {
		s.Close()
		tb.Fatal(err)
	}
	s.SetActiveExpire(false)
	return s
}

// A read deletes what it found expired in a write transaction after its
// own: only if the key is still stored with the expiry that was found.
// expireFound is driven directly here, as if another client had written
// the key between the two transactions.
func TestExpireFoundLeavesChangedKeys(t *testing.T) {
	const found = 1700000000100 // the expiry the read found passed
	k := []byte("k")
	for _, tc := range []struct {
		name   string
		write  func(tx *Tx) // what happened to k in between
		ahead  time.Duration
		exists bool
	}{
		{"unchanged", nil, time.Second, false},
		{"deleted", func(tx *Tx) { tx.Delete(k) }, time.Second, false},
		{"re-created without TTL", func(tx *Tx) { tx.Put(k, Value{Type: TypeString, Payload: "new"}) }, time.Second, true},
		{"re-created with another expiry, also passed", func(tx *Tx) {
			tx.Put(k, Value{Type: TypeString, Payload: "new", ExpireAt: 1700000000050})
		}, time.Second, true},
		{"given a new TTL", func(tx *Tx) { tx.Put(k, Value{Type: TypeString, Payload: "v", ExpireAt: 1700000100000}) }, time.Second, true},
		{"clock set back before the expiry", nil, -time.Second, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := openStore(t)
			s.Do(true, 0, func(tx *Tx) { tx.Put(k, Value{Type: TypeString, Payload: "v", ExpireAt: found}) })
			if tc.write != nil {
				s.Do(true, 0, tc.write)
			}
			s.Clock.FastForward(tc.ahead) // from 1700000000000
			before := s.Keys(0)
			s.Do(true, 0, func(tx *Tx) {
				tx.found = append(tx.found, expiryEntry{found, storeKey(0, k)})
				tx.expireFound()
			})
			stored := s.Keys(0) == 1
			if stored != tc.exists {
				t.Fatalf("k stored after expireFound: %v, want %v (keys before %d)", stored, tc.exists, before)
			}
			var wantExpired int64
			if before == 1 && !stored {
				wantExpired = 1
			}
			if got := s.expired.Load(); got != wantExpired {
				t.Errorf("expired keys = %d, want %d", got, wantExpired)
			}
		})
	}
}
