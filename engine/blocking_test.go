package engine

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// A timeout in seconds becomes whole milliseconds rounded up, as Redis's
// ceill(timeout * 1000): a timeout below a millisecond is 1 ms, never 0
// (which would mean forever).
func TestParseBlockTimeoutRoundsUp(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
		err  error
	}{
		{"0", 0, nil},
		{"0.0", 0, nil},
		{"0.001", time.Millisecond, nil},
		{"0.0001", time.Millisecond, nil},
		{"0.0015", 2 * time.Millisecond, nil},
		{"0.002", 2 * time.Millisecond, nil},
		{"1", time.Second, nil},
		{"1.5", 1500 * time.Millisecond, nil},
		{".05", 50 * time.Millisecond, nil},
		// ceill of a product above -1 is -0: not negative, so forever,
		// as redis-server 7.0.15 answers (-0.001 * 1000 is just above -1
		// in long double).
		{"-0.0001", 0, nil},
		{"-0.001", 0, nil},
		{"-0.0011", 0, ErrTimeoutNegative},
		{"-1", 0, ErrTimeoutNegative},
		{"abc", 0, errTimeoutNotFloat},
		// As the C cast on x86-64: inf and what does not fit are negative.
		{"inf", 0, ErrTimeoutNegative},
		{"-inf", 0, ErrTimeoutNegative},
		{"1e400", 0, ErrTimeoutNegative},
	} {
		got, err := parseBlockTimeout([]byte(tc.in), 1700000000000)
		if got != tc.want || err != tc.err {
			t.Errorf("%q: %v, %v; want %v, %v", tc.in, got, err, tc.want, tc.err)
		}
	}
}

// Every blocking command with a 1 ms timeout gets a deadline, so it answers
// its timeout reply instead of waiting forever.
func TestBlockingOneMillisecondHasDeadline(t *testing.T) {
	te := newTestEngine(t)
	for _, args := range [][]string{
		{"BLPOP", "l", "0.001"},
		{"BRPOP", "l", "0.001"},
		{"BLMPOP", "0.001", "1", "l", "LEFT"},
		{"BLMOVE", "l", "d", "LEFT", "RIGHT", "0.001"},
		{"BRPOPLPUSH", "l", "d", "0.001"},
		{"BZPOPMIN", "z", "0.001"},
		{"BZPOPMAX", "z", "0.001"},
		{"BZMPOP", "0.001", "1", "z", "MIN"},
	} {
		cl := te.newClient()
		b := cl.block(args...)
		if d := b.Deadline.Sub(te.Clock.Now()); d != time.Millisecond {
			t.Errorf("%q: deadline in %v, want 1ms", args, d)
		}
		b.Cancel()
	}
}

// CLIENT UNBLOCK ends another client's wait: with its timeout reply by
// default or TIMEOUT, with the UNBLOCKED error with ERROR; 0 for a client
// that is not blocked or does not exist. The list stays usable.
func TestClientUnblock(t *testing.T) {
	te := newTestEngine(t)
	waiter, admin := te.newClient(), te.newClient()
	id := strconv.FormatInt(waiter.s.ID, 10)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{cmd("CLIENT", "UNBLOCK", id), "(nil)"},
		{cmd("CLIENT", "UNBLOCK", id, "TIMEOUT"), "(nil)"},
		{cmd("CLIENT", "UNBLOCK", id, "ERROR"), "(error) UNBLOCKED client unblocked via CLIENT UNBLOCK"},
	} {
		b := waiter.block("BLPOP", "l", "0")
		if got := admin.do(tc.args...); got != "(integer) 1" {
			t.Fatalf("%q: %s", tc.args, got)
		}
		select {
		case <-b.Ready():
		default:
			t.Fatalf("%q: the waiter was not woken", tc.args)
		}
		rep, ok := b.Await(nil, nil)
		if !ok || rep.String() != tc.want {
			t.Fatalf("%q: waiter got %s (%v), want %s", tc.args, rep, ok, tc.want)
		}
		if n := te.BlockedClients(); n != 0 {
			t.Fatalf("%d blocked clients left", n)
		}
	}
	if got := admin.do("CLIENT", "UNBLOCK", id); got != "(integer) 0" {
		t.Fatalf("unblocking a client that is not blocked: %s", got)
	}
	if got := admin.do("CLIENT", "UNBLOCK", "99999"); got != "(integer) 0" {
		t.Fatalf("unblocking a missing client: %s", got)
	}
	if got := admin.do("CLIENT", "UNBLOCK", "asd"); got != "(error) ERR value is not an integer or out of range" {
		t.Fatal(got)
	}
	b := waiter.block("BLPOP", "l", "0")
	admin.do("LPUSH", "l", "foo")
	if got := served(t, b); got != `["l" "foo"]` {
		t.Fatalf("after the unblocks: %s", got)
	}

	// A lock waiter too: it leaves the queue, and the next one is served.
	admin.do("LOCK.ACQUIRE", "k", "holder", "60000")
	lw := waiter.block("LOCK.ACQUIRE", "k", "w1", "60000", "WAIT", "0")
	_, next := te.lockWaiter("k", "w2")
	if got := admin.do("CLIENT", "UNBLOCK", id); got != "(integer) 1" {
		t.Fatal(got)
	}
	if rep, _ := lw.Await(nil, nil); rep.String() != "(nil)" {
		t.Fatalf("unblocked lock waiter: %s", rep)
	}
	admin.do("LOCK.RELEASE", "k", "holder")
	if got := served(t, next); !strings.HasPrefix(got, "(integer) ") {
		t.Fatalf("next lock waiter: %s", got)
	}
	if got := admin.do("GET", "k"); got != `"w2"` {
		t.Fatalf("GET k = %s", got)
	}
}

// A waiter whose client is gone (its Alive probe says so) is skipped when
// its turn comes: the element or the lock goes to the next waiter, never
// to nobody.
func TestBlockedDeadClientSkipped(t *testing.T) {
	te := newTestEngine(t)
	dead, live, other := te.newClient(), te.newClient(), te.newClient()
	dead.s.Alive = func() bool { return false }

	bd := dead.block("BLPOP", "l", "0")
	bl := live.block("BLPOP", "l", "0")
	other.do("RPUSH", "l", "x")
	if got := served(t, bl); got != `["l" "x"]` {
		t.Fatalf("live waiter: %s", got)
	}
	if rep, ok := bd.Await(nil, nil); ok {
		t.Fatalf("dead waiter got a reply: %s", rep)
	}

	other.do("LOCK.ACQUIRE", "k", "holder", "60000")
	ld := dead.block("LOCK.ACQUIRE", "k", "dead", "60000", "WAIT", "0")
	ll := live.block("LOCK.ACQUIRE", "k", "live", "60000", "WAIT", "0")
	other.do("LOCK.RELEASE", "k", "holder")
	if got := served(t, ll); !strings.HasPrefix(got, "(integer) ") {
		t.Fatalf("live lock waiter: %s", got)
	}
	if got := other.do("GET", "k"); got != `"live"` {
		t.Fatalf("GET k = %s", got)
	}
	if rep, ok := ld.Await(nil, nil); ok {
		t.Fatalf("dead lock waiter got a reply: %s", rep)
	}
	if n := te.BlockedClients(); n != 0 {
		t.Fatalf("%d blocked clients left", n)
	}
}

// Await returns the timeout reply when stop closes, and nothing when gone
// closes (the client left).
func TestAwaitStopAndGone(t *testing.T) {
	te := newTestEngine(t)
	cl, pusher := te.newClient(), te.newClient()
	stop := make(chan struct{})
	close(stop)
	b := cl.block("BLPOP", "l", "0")
	if rep, ok := b.Await(stop, nil); !ok || rep.String() != "(nil)" {
		t.Fatalf("stopped: %s %v", rep, ok)
	}
	b = cl.block("BLPOP", "l", "0")
	if rep, ok := b.Await(nil, stop); ok {
		t.Fatalf("gone: %s %v", rep, ok)
	}
	pusher.do("RPUSH", "l", "kept")
	if got := pusher.do("LRANGE", "l", "0", "-1"); got != `["kept"]` {
		t.Fatalf("an element went to a client that left: %s", got)
	}
}
