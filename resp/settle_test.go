package resp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/lockredis/lockredis/engine"
	"github.com/lockredis/lockredis/pubsub"
)

// TestPublishSeesSubscriptionChanges: once a client has sent a command
// that changes its subscriptions, a PUBLISH sent afterwards on another
// connection sees the change, as in Redis, which runs both on one thread.
// Redis's own pub/sub unit relies on it ("PUBLISH/PSUBSCRIBE after
// PUNSUBSCRIBE without arguments" reads no reply before publishing); the
// cases that read the reply first must hold all the more. Each case runs
// many times: a wrong order shows up as a race, not every time.
func TestPublishSeesSubscriptionChanges(t *testing.T) {
	hub := pubsub.NewHub(pubsub.Limits{}, nil)
	defer hub.Close()
	ts := startServer(t, engine.Config{}, Options{Hub: hub})
	pubsub.Register(ts.eng, hub)
	pub := ts.dial(t)

	publish := func(t *testing.T, cmd string, want int) {
		t.Helper()
		pub.send(cmd + "\r\n")
		if got, w := pub.reply(), fmt.Sprintf(":%d\r\n", want); got != w {
			t.Fatalf("%s: %q, want %q", cmd, got, w)
		}
	}
	// subscribed opens a connection subscribed as cmd says, replies read.
	// It is closed when the round ends: the next round's PUBLISH must not
	// count it either.
	var open []*rawClient
	subscribed := func(t *testing.T, proto int, cmd string, n int) *rawClient {
		t.Helper()
		c := ts.dial(t)
		open = append(open, c)
		if proto == 3 {
			c.send("HELLO 3\r\n")
			c.reply()
		}
		c.send(cmd + "\r\n")
		for range n {
			c.reply()
		}
		return c
	}
	confirm := func(t *testing.T, c *rawClient, verb string) {
		t.Helper()
		if got := c.reply(); !strings.Contains(got, verb) {
			t.Fatalf("%q, want a %s confirmation", got, verb)
		}
	}

	cases := []struct {
		name string
		// run subscribes c, changes its subscriptions, and publishes.
		run func(t *testing.T, proto int)
	}{
		{"punsubscribe-without-arguments-unread", func(t *testing.T, proto int) {
			c := subscribed(t, proto, "PSUBSCRIBE chan1.* chan2.* chan3.*", 3)
			c.send("PUNSUBSCRIBE\r\n") // nothing read, as in Redis's test
			publish(t, "PUBLISH chan1.hi hello", 0)
			publish(t, "PUBLISH chan2.hi hello", 0)
			publish(t, "PUBLISH chan3.hi hello", 0)
		}},
		{"unsubscribe-unread", func(t *testing.T, proto int) {
			c := subscribed(t, proto, "SUBSCRIBE a b", 2)
			c.send("UNSUBSCRIBE a\r\n")
			publish(t, "PUBLISH a x", 0)
			publish(t, "PUBLISH b x", 1)
		}},
		{"unsubscribe-read", func(t *testing.T, proto int) {
			c := subscribed(t, proto, "SUBSCRIBE a", 1)
			c.send("UNSUBSCRIBE\r\n")
			confirm(t, c, "unsubscribe")
			publish(t, "PUBLISH a x", 0)
		}},
		{"sunsubscribe-unread", func(t *testing.T, proto int) {
			c := subscribed(t, proto, "SSUBSCRIBE s", 1)
			c.send("SUNSUBSCRIBE s\r\n")
			publish(t, "SPUBLISH s x", 0)
		}},
		{"reset-unread", func(t *testing.T, proto int) {
			c := subscribed(t, proto, "SUBSCRIBE a", 1)
			c.send("RESET\r\n")
			publish(t, "PUBLISH a x", 0)
		}},
		{"quit-read", func(t *testing.T, proto int) {
			c := subscribed(t, proto, "PSUBSCRIBE a*", 1)
			c.send("QUIT\r\n")
			if got := c.reply(); got != "+OK\r\n" {
				t.Fatalf("QUIT: %q", got)
			}
			publish(t, "PUBLISH ab x", 0)
		}},
		{"subscribe-read", func(t *testing.T, proto int) {
			c := subscribed(t, proto, "SUBSCRIBE a", 1)
			c.send("SUBSCRIBE b\r\n")
			confirm(t, c, "subscribe")
			publish(t, "PUBLISH b x", 1)
		}},
		{"subscribe-more-unread", func(t *testing.T, proto int) {
			// A connection already subscribed (read by its own reader)
			// adds a pattern without reading the confirmation.
			c := subscribed(t, proto, "SUBSCRIBE a", 1)
			c.send("PSUBSCRIBE a*\r\n")
			publish(t, "PUBLISH a x", 2)
		}},
	}
	rounds := 200
	if testing.Short() {
		rounds = 20
	}
	for _, tc := range cases {
		for _, proto := range []int{2, 3} {
			t.Run(fmt.Sprintf("%s/resp%d", tc.name, proto), func(t *testing.T) {
				for range rounds {
					tc.run(t, proto)
					for _, c := range open {
						c.c.Close()
					}
					open = open[:0]
				}
			})
		}
	}
}
