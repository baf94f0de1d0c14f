package engine

import (
	"testing"
	"time"
)

// block runs a blocking command for cl and returns the parked request.
func (cl *client) block(args ...string) *Blocked {
	cl.te.t.Helper()
	cl.do(args...) // writes no reply when it blocks
	b := cl.s.Blocked
	if b == nil {
		cl.te.t.Fatalf("%q did not block", args)
	}
	cl.s.Blocked = nil
	return b
}

func served(t *testing.T, b *Blocked) string {
	t.Helper()
	select {
	case <-b.Ready():
		return b.Reply().String()
	default:
		return "(still waiting)"
	}
}

func TestBlockingPopServesInArrivalOrder(t *testing.T) {
	te := newTestEngine(t)
	a, b, c, pusher := te.newClient(), te.newClient(), te.newClient(), te.newClient()
	wa := a.block("BLPOP", "q", "0")
	wb := b.block("BRPOP", "other", "q", "0")
	wc := c.block("BLMOVE", "q", "dst", "LEFT", "RIGHT", "0")
	if got := pusher.do("RPUSH", "q", "1", "2"); got != "(integer) 2" {
		t.Fatal(got)
	}
	// One push of two elements serves the first two waiters, in order.
	if got := served(t, wa); got != `["q" "1"]` {
		t.Fatalf("first waiter: %s", got)
	}
	if got := served(t, wb); got != `["q" "2"]` {
		t.Fatalf("second waiter: %s", got)
	}
	if got := served(t, wc); got != "(still waiting)" {
		t.Fatalf("third waiter: %s", got)
	}
	if got := pusher.do("EXISTS", "q"); got != "(integer) 0" {
		t.Fatalf("q should be drained: %s", got)
	}
	pusher.do("LPUSH", "q", "3")
	if got := served(t, wc); got != `"3"` {
		t.Fatalf("BLMOVE waiter: %s", got)
	}
	// BLMOVE's push to dst is itself a push that can serve others.
	if got := pusher.do("LRANGE", "dst", "0", "-1"); got != `["3"]` {
		t.Fatal(got)
	}
}

func TestBlockingPopChainsThroughBLMOVE(t *testing.T) {
	te := newTestEngine(t)
	mover, popper, pusher := te.newClient(), te.newClient(), te.newClient()
	wm := mover.block("BLMOVE", "in", "out", "LEFT", "RIGHT", "0")
	wp := popper.block("BLPOP", "out", "0")
	pusher.do("RPUSH", "in", "x")
	if got := served(t, wm); got != `"x"` {
		t.Fatal(got)
	}
	if got := served(t, wp); got != `["out" "x"]` {
		t.Fatal(got)
	}
}

// A waiter that gives up is never served afterwards, so no element is
// popped for nobody.
func TestBlockingCancel(t *testing.T) {
	te := newTestEngine(t)
	a, pusher := te.newClient(), te.newClient()
	w := a.block("BLPOP", "q", "0.5")
	if w.Deadline.IsZero() || w.Deadline.Sub(te.Clock.Now()) != 500*time.Millisecond {
		t.Fatalf("deadline %v", w.Deadline)
	}
	if !w.Cancel() {
		t.Fatal("Cancel of a waiting request failed")
	}
	pusher.do("RPUSH", "q", "kept")
	if got := pusher.do("LRANGE", "q", "0", "-1"); got != `["kept"]` {
		t.Fatalf("element lost to a cancelled waiter: %s", got)
	}
	// Served first, cancelled later: Cancel says so and the reply stands.
	w2 := a.block("BLPOP", "r", "0")
	pusher.do("RPUSH", "r", "v")
	if w2.Cancel() {
		t.Fatal("Cancel succeeded after the request was served")
	}
	if got := w2.Reply().String(); got != `["r" "v"]` {
		t.Fatal(got)
	}
	if n := te.BlockedClients(); n != 0 {
		t.Fatalf("%d blocked clients left", n)
	}
}
