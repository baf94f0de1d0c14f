package pubsub

import (
	"time"

	"github.com/lockredis/lockredis/engine"
)

// Settler is a subscriber's connection as PUBLISH sees it: whether the
// commands its client has sent so far have all run.
//
// Redis reads and runs every client's commands on one thread, so a
// PUNSUBSCRIBE that reached the server before another client's PUBLISH
// has run by the time the PUBLISH runs: the PUBLISH does not count that
// client (Redis's own pub/sub unit, "PUBLISH/PSUBSCRIBE after PUNSUBSCRIBE
// without arguments", sends PUNSUBSCRIBE and, without reading anything,
// PUBLISH on another connection). lockredis reads each connection on its
// own goroutine: without waiting, the PUBLISH could run first and count
// the client.
type Settler interface {
	// Settled reports whether every command received on the connection
	// so far has run (its reader waits for the socket and nothing is
	// left unread), or the connection is gone.
	Settled() bool
	// WaitSettled waits until the connection is settled or the deadline
	// passes.
	WaitSettled(deadline time.Time)
}

// settleLimit bounds how long a PUBLISH waits for the subscribers' input:
// a subscriber's pending command may take long (a RESP3 subscriber may
// run a slow script, as it would hold up Redis too); past the limit the
// PUBLISH runs, as if it had come first.
const settleLimit = time.Second

// settle waits until the subscribers that would receive a message on
// channel have run what their clients sent before, so that an
// unsubscription already on its way counts. self, the publisher's own
// subscriber (nil for most), is not waited for: it is running this
// PUBLISH. Nor is a subscriber that is itself waiting in a PUBLISH: two
// RESP3 subscribers publishing to each other would wait for each other.
func (h *Hub) settle(channel []byte, shard bool, self *Subscriber) {
	var wait []*Subscriber
	h.mu.RLock()
	visit := func(subs map[*Subscriber]struct{}) {
		for s := range subs {
			if s != self && s.settler != nil && !s.settling.Load() && !s.settler.Settled() {
				wait = append(wait, s)
			}
		}
	}
	if shard {
		visit(h.shards[string(channel)])
	} else {
		visit(h.channels[string(channel)])
		for _, p := range h.patternOrder {
			if engine.Glob(engine.StringBytes(p), channel, false) {
				visit(h.patterns[p])
			}
		}
	}
	h.mu.RUnlock()
	if len(wait) == 0 {
		return
	}
	if self != nil {
		self.settling.Store(true)
		defer self.settling.Store(false)
	}
	deadline := time.Now().Add(settleLimit)
	for _, s := range wait {
		s.settler.WaitSettled(deadline)
	}
}
