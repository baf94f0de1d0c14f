package resp

import (
	"testing"

	"github.com/lockredis/lockredis/engine"
	"github.com/lockredis/lockredis/pubsub"
)

// TestSubscribedProtocolError was found by FuzzServer (input
// "SUBSCRIBE a\r\nPING\r\n*1\r\n$-5\r\n", its seed corpus): on a subscribed
// connection the guard wrote its protocol error straight to the socket,
// ahead of the replies still in the subscriber's queue. Redis writes it
// after them, then closes.
func TestSubscribedProtocolError(t *testing.T) {
	hub := pubsub.NewHub(pubsub.Limits{}, nil)
	defer hub.Close()
	ts := startServer(t, engine.Config{}, Options{Hub: hub})
	pubsub.Register(ts.eng, hub)
	c := ts.dial(t)
	c.send("SUBSCRIBE a\r\nPING\r\n*1\r\n$-5\r\n")
	want := "*3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n*2\r\n$4\r\npong\r\n$0\r\n\r\n-ERR Protocol error: invalid bulk length\r\n"
	if got := c.rest(); got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}
