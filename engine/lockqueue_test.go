package engine

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lockredis/lockredis/keyspace"
)

// isToken reports whether a reply is a fencing token.
func isToken(r string) bool { return strings.HasPrefix(r, "(integer) ") }

func replyToken(t *testing.T, r string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(strings.TrimPrefix(r, "(integer) "), 10, 64)
	if err != nil {
		t.Fatalf("not a token: %s", r)
	}
	return n
}

// Readers share, a writer excludes; a queued writer stops later readers
// (writers never starve), and the readers queued together behind it are
// granted together when it leaves.
func TestLockSharedReadersWriter(t *testing.T) {
	te := newTestEngine(t)
	c := te.newClient()
	for _, owner := range []string{"r1", "r2"} {
		if got := c.do("LOCK.ACQUIRE", "rw", owner, "60000", "SHARED"); !isToken(got) {
			t.Fatalf("reader %s: %s", owner, got)
		}
	}
	if got := c.do("HGET", "rw", "mode"); got != `"read"` {
		t.Fatalf("layout: mode = %s (Redisson's RReadWriteLock hash)", got)
	}
	if got := c.do("LOCK.ACQUIRE", "rw", "w", "60000"); got != "(nil)" {
		t.Fatalf("writer beside readers: %s", got)
	}
	writer := te.newClient().block("LOCK.ACQUIRE", "rw", "w", "60000", "WAIT", "0")
	// A reader that comes after the queued writer waits behind it.
	if got := c.do("LOCK.ACQUIRE", "rw", "r3", "60000", "SHARED"); got != "(nil)" {
		t.Fatalf("reader jumped the queued writer: %s", got)
	}
	r3 := te.newClient().block("LOCK.ACQUIRE", "rw", "r3", "60000", "SHARED", "WAIT", "0")
	r4 := te.newClient().block("LOCK.ACQUIRE", "rw", "r4", "60000", "SHARED", "WAIT", "0")
	// An owner already holding refreshes and gets its token again.
	t1 := c.do("LOCK.ACQUIRE", "rw", "r1", "60000", "SHARED")
	if again := c.do("LOCK.ACQUIRE", "rw", "r1", "60000", "SHARED"); again != t1 || !isToken(t1) {
		t.Fatalf("retry by a holder: %s then %s", t1, again)
	}

	c.do("LOCK.RELEASE", "rw", "r1")
	if got := served(t, writer); got != "(still waiting)" {
		t.Fatalf("writer granted beside a reader: %s", got)
	}
	c.do("LOCK.RELEASE", "rw", "r2")
	wt := served(t, writer)
	if !isToken(wt) {
		t.Fatalf("writer after the last reader left: %s", wt)
	}
	if got := served(t, r3) + served(t, r4); got != "(still waiting)(still waiting)" {
		t.Fatalf("readers granted beside the writer: %s", got)
	}
	if got := c.do("GET", "rw"); got != `"w"` {
		t.Fatalf("writer's layout: GET rw = %s", got)
	}
	c.do("LOCK.RELEASE", "rw", "w")
	t3, t4 := served(t, r3), served(t, r4)
	if !isToken(t3) || !isToken(t4) {
		t.Fatalf("queued readers not granted together: %s, %s", t3, t4)
	}
	// Every grant has a token of its own, later than the one before.
	if !(replyToken(t, wt) < replyToken(t, t3) && replyToken(t, t3) < replyToken(t, t4)) {
		t.Fatalf("tokens not increasing: writer %s, readers %s %s", wt, t3, t4)
	}
	info := c.do("LOCK.INFO", "rw")
	if !strings.Contains(info, `"kind" "shared"`) || !strings.Contains(info, `"r3"`) || !strings.Contains(info, `"r4"`) {
		t.Fatalf("LOCK.INFO: %s", info)
	}
}

// A semaphore holds at most n at once; a request naming another n is an
// error; a release hands the permit to the first waiter.
func TestLockPermits(t *testing.T) {
	te := newTestEngine(t)
	c := te.newClient()
	for i := range 3 {
		if got := c.do("LOCK.ACQUIRE", "sem", "o"+strconv.Itoa(i), "60000", "PERMITS", "3"); !isToken(got) {
			t.Fatalf("permit %d: %s", i, got)
		}
	}
	if got := c.do("LOCK.ACQUIRE", "sem", "o3", "60000", "PERMITS", "3"); got != "(nil)" {
		t.Fatalf("a fourth holder: %s", got)
	}
	if got := c.do("LOCK.ACQUIRE", "sem", "o3", "60000", "PERMITS", "4"); !strings.HasPrefix(got, "(error) ERR PERMITS differs") {
		t.Fatalf("another count: %s", got)
	}
	if got := c.do("ZCARD", "sem"); got != "(integer) 3" {
		t.Fatalf("layout: ZCARD sem = %s (redis-semaphore's sorted set)", got)
	}
	w := te.newClient().block("LOCK.ACQUIRE", "sem", "o3", "60000", "PERMITS", "3", "WAIT", "0")
	w2 := te.newClient().block("LOCK.ACQUIRE", "sem", "o4", "60000", "PERMITS", "3", "WAIT", "0")
	if got := c.do("LOCK.RELEASE", "sem", "o1"); got != "(integer) 1" {
		t.Fatal(got)
	}
	if got := served(t, w); !isToken(got) {
		t.Fatalf("first waiter: %s", got)
	}
	if got := served(t, w2); got != "(still waiting)" {
		t.Fatalf("second waiter beyond the bound: %s", got)
	}
	if got := c.do("ZCARD", "sem"); got != "(integer) 3" {
		t.Fatalf("ZCARD after the hand-over = %s", got)
	}
	// A holder's TTL passing frees its permit for the next waiter.
	c.do("LOCK.EXTEND", "sem", "o0", "10")
	te.Clock.FastForward(20 * time.Millisecond)
	te.Sweep(time.Second)
	if got := served(t, w2); !isToken(got) {
		t.Fatalf("waiter after a holder's TTL: %s", got)
	}
}

// A waiter whose count of permits differs from the holders' by the time
// its turn comes is answered the error, and the queue goes on.
func TestLockPermitsWaiterNamingAnotherCount(t *testing.T) {
	te := newTestEngine(t)
	c := te.newClient()
	c.do("LOCK.ACQUIRE", "sem", "x", "60000")
	w3 := te.newClient().block("LOCK.ACQUIRE", "sem", "a", "60000", "PERMITS", "3", "WAIT", "0")
	w5 := te.newClient().block("LOCK.ACQUIRE", "sem", "b", "60000", "PERMITS", "5", "WAIT", "0")
	w3b := te.newClient().block("LOCK.ACQUIRE", "sem", "c", "60000", "PERMITS", "3", "WAIT", "0")
	if got := c.do("LOCK.RELEASE", "sem", "x"); got != "(integer) 1" {
		t.Fatal(got)
	}
	if got := served(t, w3); !isToken(got) {
		t.Fatalf("first waiter: %s", got)
	}
	if got := served(t, w5); got != "(error) ERR PERMITS differs from the 3 the holders of this semaphore named" {
		t.Fatalf("waiter naming 5: %s", got)
	}
	if got := served(t, w3b); !isToken(got) {
		t.Fatalf("the waiter after it: %s", got)
	}
}

// LOCK.ACQUIREALL takes every key or none; waiting requests hold nothing;
// {a,b} and {b,a} do not deadlock and are served in arrival order, and a
// single-key request that comes later does not overtake them.
func TestLockAcquireAllOrder(t *testing.T) {
	te := newTestEngine(t)
	c := te.newClient()
	c.do("LOCK.ACQUIRE", "a", "x", "60000")
	if got := c.do("LOCK.ACQUIRE", "b", "y", "60000"); !isToken(got) {
		t.Fatal(got)
	}
	c.do("LOCK.RELEASE", "b", "y")
	if got := c.do("LOCK.ACQUIREALL", "2", "a", "b", "p", "60000"); got != "(nil)" {
		t.Fatalf("all of a held set: %s", got)
	}
	if got := c.do("EXISTS", "b"); got != "(integer) 0" {
		t.Fatalf("a failed ACQUIREALL took b: %s", got)
	}
	ab := te.newClient().block("LOCK.ACQUIREALL", "2", "a", "b", "ab", "60000", "WAIT", "0")
	ba := te.newClient().block("LOCK.ACQUIREALL", "2", "b", "a", "ba", "60000", "WAIT", "0")
	single := te.newClient().block("LOCK.ACQUIRE", "b", "single", "60000", "WAIT", "0")
	if got := c.do("EXISTS", "b"); got != "(integer) 0" {
		t.Fatalf("a waiting request holds part of its keys: %s", got)
	}
	c.do("LOCK.RELEASE", "a", "x")
	got := served(t, ab)
	if !strings.HasPrefix(got, "[(integer) ") {
		t.Fatalf("first ACQUIREALL: %s", got)
	}
	if s := served(t, ba) + served(t, single); s != "(still waiting)(still waiting)" {
		t.Fatalf("later requests served beside the first: %s", s)
	}
	if got := c.do("LOCK.RELEASEALL", "2", "a", "b", "ab"); got != "(integer) 2" {
		t.Fatal(got)
	}
	if got := served(t, ba); !strings.HasPrefix(got, "[(integer) ") {
		t.Fatalf("second ACQUIREALL: %s", got)
	}
	if got := served(t, single); got != "(still waiting)" {
		t.Fatalf("single-key request overtook: %s", got)
	}
	c.do("LOCK.RELEASEALL", "2", "b", "a", "ba")
	if got := served(t, single); !isToken(got) {
		t.Fatalf("single-key request last: %s", got)
	}
	if got := c.do("MGET", "a", "b"); got != `[(nil) "single"]` {
		t.Fatalf("MGET a b = %s", got)
	}
}

// A named session's locks live as long as it: RENEW restores all their
// TTLs at once, and its end (DESTROY or its TTL) releases every lock it
// holds and hands each to its waiter in that transaction.
func TestLockSessionNamed(t *testing.T) {
	te := newTestEngine(t)
	c := te.newClient()
	for _, end := range []string{"destroy", "expiry"} {
		id := strings.Trim(c.do("LOCK.SESSION", "CREATE", "1000"), `"`)
		keys := []string{end + "1", end + "2", end + "3"}
		var waiters []*Blocked
		for _, k := range keys {
			if got := c.do("LOCK.ACQUIRE", k, "s", "500", "SESSIONID", id); !isToken(got) {
				t.Fatalf("%s: acquire %s: %s", end, k, got)
			}
			waiters = append(waiters, te.newClient().block("LOCK.ACQUIRE", k, "w", "60000", "WAIT", "0"))
		}
		te.Clock.FastForward(400 * time.Millisecond)
		if got := c.do("LOCK.SESSION", "RENEW", id); got != "(integer) 1000" {
			t.Fatalf("%s: RENEW = %s", end, got)
		}
		if got := c.do("PTTL", keys[2]); got != "(integer) 500" {
			t.Fatalf("%s: RENEW did not restore the lock's TTL: %s", end, got)
		}
		info := c.do("LOCK.SESSION", "INFO", id)
		for _, k := range keys {
			if !strings.Contains(info, `"`+k+`"`) {
				t.Fatalf("%s: LOCK.SESSION INFO lacks %s: %s", end, k, info)
			}
		}
		if end == "destroy" {
			if got := c.do("LOCK.SESSION", "DESTROY", id); got != "(integer) 1" {
				t.Fatal(got)
			}
		} else {
			// The locks' own TTLs (500 ms) pass first: each is handed
			// over by its expiry, then the session ends.
			te.Clock.FastForward(1001 * time.Millisecond)
			te.Sweep(time.Second)
		}
		for i, w := range waiters {
			if got := served(t, w); !isToken(got) {
				t.Fatalf("%s: waiter %d: %s", end, i, got)
			}
		}
		if got := c.do("LOCK.SESSION", "RENEW", id); got != "(nil)" {
			t.Fatalf("%s: RENEW of an ended session: %s", end, got)
		}
		for _, k := range keys {
			if got := c.do("GET", k); got != `"w"` {
				t.Fatalf("%s: GET %s = %s", end, k, got)
			}
		}
	}
	if got := c.do("LOCK.SESSION", "LIST"); got != "[]" {
		t.Fatalf("sessions left: %s", got)
	}
}

// A session whose TTL passes before its locks' releases them all at once.
func TestLockSessionExpiryReleasesAll(t *testing.T) {
	te := newTestEngine(t)
	c := te.newClient()
	id := strings.Trim(c.do("LOCK.SESSION", "CREATE", "100"), `"`)
	const n = 10
	var waiters []*Blocked
	for i := range n {
		k := "k" + strconv.Itoa(i)
		c.do("LOCK.ACQUIRE", k, "s", "60000", "SESSIONID", id)
		waiters = append(waiters, te.newClient().block("LOCK.ACQUIRE", k, "w", "60000", "WAIT", "0"))
	}
	te.Clock.FastForward(101 * time.Millisecond)
	te.Sweep(time.Second)
	for i, w := range waiters {
		if got := served(t, w); !isToken(got) {
			t.Fatalf("waiter %d after the session expired: %s", i, got)
		}
	}
	if got := c.do("LOCK.SESSION", "LIST"); got != "[]" {
		t.Fatalf("sessions left: %s", got)
	}
}

// A new leader of a replicated group (replication's takeOver) ends the
// connections' sessions it inherits, since no connection survives a
// leader change: OrphanedSessions takes them without writing, EndSessions
// ends them as closed connections' (waiters served), a named session
// keeps its lock, and a second EndSessions finds nothing left to end.
func TestOrphanedSessionsEnd(t *testing.T) {
	te := newTestEngine(t)
	// Batches are numbered only while a listener takes them, as in a
	// replicated server.
	te.ks.SetChangeListener(discardChanges{})
	holder := te.newClient()
	if got := holder.do("LOCK.ACQUIRE", "conn", "a", "60000", "SESSION", "LOCKDELAY", "0"); !isToken(got) {
		t.Fatalf("session lock: %s", got)
	}
	id := strings.Trim(holder.do("LOCK.SESSION", "CREATE", "60000"), `"`)
	if got := holder.do("LOCK.ACQUIRE", "named", "b", "60000", "SESSIONID", id); !isToken(got) {
		t.Fatalf("named-session lock: %s", got)
	}
	waiter := te.newClient().block("LOCK.ACQUIRE", "conn", "w", "60000", "WAIT", "0")
	before := te.LastChangeSeq()
	orphans := te.OrphanedSessions()
	if orphans.Len() != 1 {
		t.Fatalf("OrphanedSessions: %d sessions, want the connection's 1", orphans.Len())
	}
	if te.LastChangeSeq() != before || before == 0 {
		t.Fatalf("OrphanedSessions wrote (change seq %d, then %d)", before, te.LastChangeSeq())
	}
	if n := te.EndSessions(orphans); n != 1 {
		t.Fatalf("EndSessions ended %d, want 1", n)
	}
	if got := served(t, waiter); !isToken(got) {
		t.Fatalf("waiter of the ended session's lock: %s", got)
	}
	if got := holder.do("GET", "named"); got != `"b"` {
		t.Fatalf("named session's lock: %s", got)
	}
	if n := te.EndSessions(orphans); n != 0 {
		t.Fatalf("EndSessions again ended %d", n)
	}
}

// discardChanges is a ChangeListener that keeps nothing.
type discardChanges struct{}

func (discardChanges) Committed(*keyspace.ChangeBatch) func() { return nil }
