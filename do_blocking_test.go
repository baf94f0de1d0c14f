package lockredis

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// doAsync runs Do in a goroutine; the reply arrives on the channel.
func doAsync(srv *Server, args ...string) <-chan string {
	ch := make(chan string, 1)
	go func() { ch <- srv.Do(args...).String() }()
	return ch
}

// recvReply waits for an asynchronous reply; a wait that never ends fails
// the test after a minute instead of hanging it.
func recvReply(t *testing.T, what string, ch <-chan string) string {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(time.Minute):
		t.Fatalf("%s: no reply", what)
		return ""
	}
}

// Do waits in a blocking command as a connection does, while other Do
// calls run: BLPOP is served by a later push, LOCK.ACQUIRE ... WAIT by the
// release, and a timeout answers the timeout reply.
func TestDoBlocks(t *testing.T) {
	srv := RunT(t)
	blpop := doAsync(srv, "BLPOP", "q", "0")
	waitFor(t, "the BLPOP", func() bool { return srv.Engine().BlockedClients() == 1 })
	if got := srv.Do("RPUSH", "q", "x").String(); got != "(integer) 1" {
		t.Fatal(got)
	}
	if got := recvReply(t, "BLPOP", blpop); got != `["q" "x"]` {
		t.Fatalf("BLPOP = %s", got)
	}

	if got := srv.Do("BLPOP", "q", "0.01").String(); got != "(nil)" {
		t.Fatalf("timed out BLPOP = %s", got)
	}
	if got := srv.Do("BLPOP", "q", "0.001").String(); got != "(nil)" {
		t.Fatalf("BLPOP 0.001 = %s", got)
	}

	srv.Do("LOCK.ACQUIRE", "k", "holder", "60000")
	acq := doAsync(srv, "LOCK.ACQUIRE", "k", "waiter", "60000", "WAIT", "0")
	waitFor(t, "the lock waiter", func() bool { return srv.Engine().BlockedClients() == 1 })
	srv.Do("LOCK.RELEASE", "k", "holder")
	if got := recvReply(t, "LOCK.ACQUIRE", acq); !strings.HasPrefix(got, "(integer) ") {
		t.Fatalf("LOCK.ACQUIRE ... WAIT = %s", got)
	}
	if got := srv.Do("GET", "k").String(); got != `"waiter"` {
		t.Fatalf("GET k = %s", got)
	}
	if got := srv.Do("LOCK.ACQUIRE", "k", "late", "60000", "WAIT", "10").String(); got != "(nil)" {
		t.Fatalf("timed out LOCK.ACQUIRE = %s", got)
	}
}

// DoContext gives up when its context is done: it returns the timeout
// reply and the context's error, and a lock it would have been granted
// goes to the next in line.
func TestDoContextCancel(t *testing.T) {
	srv := RunT(t)
	srv.Do("LOCK.ACQUIRE", "k", "holder", "60000")
	ctx, cancel := context.WithCancel(context.Background())
	type result struct {
		rep string
		err error
	}
	first := make(chan result, 1)
	go func() {
		rep, err := srv.DoContext(ctx, "LOCK.ACQUIRE", "k", "first", "60000", "WAIT", "0")
		first <- result{rep.String(), err}
	}()
	waitFor(t, "the first waiter", func() bool { return srv.Engine().BlockedClients() == 1 })
	second := doAsync(srv, "LOCK.ACQUIRE", "k", "second", "60000", "WAIT", "0")
	waitFor(t, "the second waiter", func() bool { return srv.Engine().BlockedClients() == 2 })
	cancel()
	select {
	case r := <-first:
		if r.rep != "(nil)" || !errors.Is(r.err, context.Canceled) {
			t.Fatalf("cancelled DoContext = %s, %v", r.rep, r.err)
		}
	case <-time.After(time.Minute):
		t.Fatal("cancelled DoContext did not return")
	}
	srv.Do("LOCK.RELEASE", "k", "holder")
	if got := recvReply(t, "second waiter", second); !strings.HasPrefix(got, "(integer) ") {
		t.Fatalf("second waiter = %s", got)
	}
	if got := srv.Do("GET", "k").String(); got != `"second"` {
		t.Fatalf("GET k = %s", got)
	}

	// A context already done: the command does not wait at all.
	done, cancel2 := context.WithCancel(context.Background())
	cancel2()
	if rep, err := srv.DoContext(done, "BLPOP", "q", "0"); rep.String() != "(nil)" || !errors.Is(err, context.Canceled) {
		t.Fatalf("DoContext with a done context = %s, %v", rep, err)
	}
	if n := srv.Engine().BlockedClients(); n != 0 {
		t.Fatalf("%d blocked clients left", n)
	}
}

// Several goroutines wait in Do at once; each push serves one of them.
func TestDoBlocksConcurrently(t *testing.T) {
	srv := RunT(t)
	const n = 8
	var wg sync.WaitGroup
	got := make(chan string, n)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got <- srv.Do("BLPOP", "q", "0").String()
		}()
	}
	waitFor(t, "the waiters", func() bool { return srv.Engine().BlockedClients() == n })
	for i := range n {
		srv.Do("RPUSH", "q", strconv.Itoa(i))
	}
	wg.Wait()
	close(got)
	seen := map[string]bool{}
	for r := range got {
		seen[r] = true
	}
	if len(seen) != n {
		t.Fatalf("replies: %v", seen)
	}
}

// Close ends the waits of Do: they answer their timeout reply.
func TestDoWaitEndsOnClose(t *testing.T) {
	srv, err := Run()
	if err != nil {
		t.Fatal(err)
	}
	ch := doAsync(srv, "BLPOP", "q", "0")
	waitFor(t, "the waiter", func() bool { return srv.Engine().BlockedClients() == 1 })
	srv.Close()
	if got := recvReply(t, "BLPOP across Close", ch); got != "(nil)" {
		t.Fatalf("BLPOP = %s", got)
	}
}

// Issue 24's defect, repeated: waiter A closes its connection and the
// holder releases at once. The lock must reach B, never sit with A.
func TestLockWaiterDisconnectRace(t *testing.T) {
	srv := RunT(t)
	const runs = 50
	for i := range runs {
		key := "race" + strconv.Itoa(i)
		holder := dialLock(t, srv.Addr())
		holder.do("LOCK.ACQUIRE", key, "holder", "60000")
		a := dialLock(t, srv.Addr())
		a.send("LOCK.ACQUIRE", key, "A", "60000", "WAIT", "0")
		waitFor(t, "A waiting", func() bool { return srv.Engine().BlockedClients() == 1 })
		b := dialLock(t, srv.Addr())
		b.send("LOCK.ACQUIRE", key, "B", "60000", "WAIT", "0")
		waitFor(t, "B waiting", func() bool { return srv.Engine().BlockedClients() == 2 })
		a.c.Close()
		holder.do("LOCK.RELEASE", key, "holder")
		if got, err := b.read(30 * time.Second); err != nil || !strings.HasPrefix(got, ":") {
			t.Fatalf("run %d: B got %q %v; GET = %s", i, got, err, holder.do("GET", key))
		}
		if got := holder.do("GET", key); got != "$1 B" {
			t.Fatalf("run %d: GET = %q", i, got)
		}
		b.c.Close()
		holder.c.Close()
	}
	waitFor(t, "no waiters", func() bool { return srv.Engine().BlockedClients() == 0 })
	t.Logf("%d runs; abandoned grants %d, wait aborts %d", runs, infoLocks(t, srv, "abandoned_grants"), infoLocks(t, srv, "wait_aborts"))
}
