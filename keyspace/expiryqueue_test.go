package keyspace

import (
	"fmt"
	"testing"
)

// The expiry queue hands entries back in time order.
func TestExpiryQueueOrder(t *testing.T) {
	var q expiryQueue
	for i, at := range []int64{50, 10, 40, 10, 30, 20, 60, 5} {
		q.add(at, string(rune('a'+i)))
	}
	var got []int64
	for {
		e, ok := q.popDue(55)
		if !ok {
			break
		}
		got = append(got, e.at)
	}
	want := []int64{5, 10, 10, 20, 30, 40, 50}
	if fmt.Sprint(got) != fmt.Sprint(want) || len(q) != 1 || q[0].at != 60 {
		t.Fatalf("popped %v, left %v", got, q)
	}
}
