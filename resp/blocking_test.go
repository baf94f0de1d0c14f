package resp

import (
	"testing"
	"time"

	"github.com/lockredis/lockredis/engine"
)

// Blocked clients are served over sockets in arrival order, and commands a
// client pipelines behind its BLPOP run once it is served.
func TestBlockedClientsOverSockets(t *testing.T) {
	ts := startServer(t, engine.Config{}, Options{})
	a, b, pusher := ts.dial(t), ts.dial(t), ts.dial(t)
	a.send("BLPOP q 0\r\nPING\r\n")
	waitFor(t, func() bool { return ts.eng.BlockedClients() == 1 })
	b.send("BRPOP q 0\r\n")
	waitFor(t, func() bool { return ts.eng.BlockedClients() == 2 })
	pusher.send("RPUSH q 1 2\r\n")
	if got := pusher.reply(); got != ":2\r\n" {
		t.Fatal(got)
	}
	if got := a.reply(); got != "*2\r\n$1\r\nq\r\n$1\r\n1\r\n" {
		t.Fatalf("first waiter: %q", got)
	}
	if got := a.reply(); got != "+PONG\r\n" {
		t.Fatalf("pipelined after BLPOP: %q", got)
	}
	if got := b.reply(); got != "*2\r\n$1\r\nq\r\n$1\r\n2\r\n" {
		t.Fatalf("second waiter: %q", got)
	}
}

// A client that disconnects while blocked is forgotten: a later push is not
// popped for nobody.
func TestBlockedClientDisconnects(t *testing.T) {
	ts := startServer(t, engine.Config{}, Options{})
	a, pusher := ts.dial(t), ts.dial(t)
	a.send("BLPOP q 0\r\n")
	waitFor(t, func() bool { return ts.eng.BlockedClients() == 1 })
	a.c.Close()
	waitFor(t, func() bool { return ts.eng.BlockedClients() == 0 })
	pusher.send("RPUSH q kept\r\nLRANGE q 0 -1\r\n")
	pusher.reply()
	if got := pusher.reply(); got != "*1\r\n$4\r\nkept\r\n" {
		t.Fatalf("element lost to a departed client: %q", got)
	}
}

// A blocking pop times out with Redis's null array.
func TestBlockedClientTimesOut(t *testing.T) {
	ts := startServer(t, engine.Config{}, Options{})
	a := ts.dial(t)
	start := time.Now()
	a.send("BLPOP q 0.05\r\n")
	if got := a.reply(); got != "*-1\r\n" {
		t.Fatalf("timeout reply %q", got)
	}
	if time.Since(start) < 50*time.Millisecond {
		t.Fatal("answered before its timeout")
	}
	a.ping()
}

// A waiter served as its deadline passes (the grant's wake of its read
// racing the read deadline, awaitBlocked) answers once and goes on
// serving its connection: the late wake must not cut the next read.
// Whichever wins, the client reads one reply, then its PING's.
func TestBlockedServedAtItsDeadline(t *testing.T) {
	ts := startServer(t, engine.Config{}, Options{})
	holder, waiter := ts.dial(t), ts.dial(t)
	for i := range 30 {
		holder.send("LOCK.ACQUIRE l holder 60000\r\n")
		if got := holder.reply(); got[0] != ':' {
			t.Fatalf("holder: %q", got)
		}
		waiter.send("LOCK.ACQUIRE l waiter 60000 WAIT 2\r\n")
		time.Sleep(time.Duration(i%4) * time.Millisecond)
		holder.send("LOCK.RELEASE l holder\r\n")
		holder.reply()
		got := waiter.reply()
		if got != "$-1\r\n" && got[0] != ':' {
			t.Fatalf("round %d: waiter got %q", i, got)
		}
		waiter.ping()
		waiter.send("LOCK.RELEASE l waiter\r\n")
		waiter.reply()
	}
}
