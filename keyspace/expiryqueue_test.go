package keyspace

import (
	"fmt"
	"strings"
	"testing"
)

// The expiry queue hands entries back in time order, whether they pack
// in 16 bytes or not (times before queueBase or past its 40 bits, keys of
// 16 MiB or more), with their keys intact.
func TestExpiryQueueOrder(t *testing.T) {
	long := strings.Repeat("k", 1<<packLenBits)
	const b = queueBase
	for _, tc := range []struct {
		name string
		ats  []int64
		keys []string // default: one letter each
		now  int64
		want []int64
		left int
	}{
		{name: "packed", ats: []int64{b + 50, b + 10, b + 40, b + 10, b + 30, b + 20, b + 60, b + 5}, now: b + 55,
			want: []int64{b + 5, b + 10, b + 10, b + 20, b + 30, b + 40, b + 50}, left: 1},
		{name: "before the base", ats: []int64{50, 10, 40, 10, 30, 20, 60, 5}, now: 55,
			want: []int64{5, 10, 10, 20, 30, 40, 50}, left: 1},
		{name: "mixed", ats: []int64{b + 3, 7, b + 1<<packAtBits, b, b + 1<<packAtBits - 1, 2, b + 9}, now: b + 1<<packAtBits + 1,
			want: []int64{2, 7, b, b + 3, b + 9, b + 1<<packAtBits - 1, b + 1<<packAtBits}},
		{name: "long key", ats: []int64{b + 5, b + 3, b + 4}, keys: []string{"a", long, "c"}, now: b + 10,
			want: []int64{b + 3, b + 4, b + 5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var q expiryQueue
			keysAt := map[int64]map[string]bool{} // two entries may share a time
			for i, at := range tc.ats {
				k := string(rune('a' + i))
				if tc.keys != nil {
					k = tc.keys[i]
				}
				if keysAt[at] == nil {
					keysAt[at] = map[string]bool{}
				}
				keysAt[at][k] = true
				q.add(at, k)
			}
			var got []int64
			for {
				e, ok := q.popDue(tc.now)
				if !ok {
					break
				}
				if !keysAt[e.at][e.bkey] {
					t.Fatalf("entry at %d: key of %d bytes, not one pushed with that time", e.at, len(e.bkey))
				}
				got = append(got, e.at)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) || q.len() != tc.left {
				t.Fatalf("popped %v, %d left; want %v, %d left", got, q.len(), tc.want, tc.left)
			}
		})
	}
}
