package pubsub_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/lockredis/lockredis"
)

// A subscriber that does not read while a backlog builds up, with the
// pubsub limit off, gets every message whole and in order once it reads:
// the queue's chunk boundaries fall inside frames of every size.
func TestBacklogInOrder(t *testing.T) {
	srv := lockredis.RunT(t)
	sub := dial(t, srv.Addr())
	pub := dial(t, srv.Addr())
	if got := pub.do("CONFIG", "SET", "client-output-buffer-limit", "pubsub 0 0 0"); got != "+OK\r\n" {
		t.Fatalf("CONFIG SET: %q", got)
	}
	sub.do("SUBSCRIBE", "news")
	sub.do("PSUBSCRIBE", "n*")
	// Sizes around the chunk size and its fractions, 8 MB in all: far
	// more than the socket buffers hold, so most of it waits in the queue.
	sizes := []int{1, 100, 8<<10 - 1, 8 << 10, 32<<10 - 40, 32 << 10, 32<<10 + 1, 70 << 10, 5}
	var want []string
	total := 0
	for i := 0; total < 8<<20; i++ {
		msg := fmt.Sprintf("%06d", i) + strings.Repeat(string(rune('a'+i%26)), sizes[i%len(sizes)])
		pub.send("PUBLISH", "news", msg)
		if got := pub.read(); got != num(2) {
			t.Fatalf("PUBLISH %d: %q", i, got)
		}
		want = append(want, msg)
		total += 2 * len(msg)
	}
	for i, msg := range want {
		if got, w := sub.read(), arr(bulk("message"), bulk("news"), bulk(msg)); got != w {
			t.Fatalf("message %d: got %d bytes %.40q, want %d bytes %.40q", i, len(got), got, len(w), w)
		}
		if got, w := sub.read(), arr(bulk("pmessage"), bulk("n*"), bulk("news"), bulk(msg)); got != w {
			t.Fatalf("pmessage %d: got %d bytes %.40q, want %d bytes %.40q", i, len(got), got, len(w), w)
		}
	}
	if got := sub.do("PING"); got != arr(bulk("pong"), bulk("")) {
		t.Fatalf("PING after the backlog: %q", got)
	}
}
