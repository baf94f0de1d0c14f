package engine

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestLockAcquireReleaseExtend(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("LOCK.ACQUIRE", "l", "a", "10000"), "(integer) 1"},
		{cmd("GET", "l"), `"a"`},
		{cmd("PTTL", "l"), "(integer) 10000"},
		// The same owner again: a retry after a lost reply; same token,
		// TTL reset.
		{cmd("PEXPIRE", "l", "5"), "(integer) 1"},
		{cmd("LOCK.ACQUIRE", "l", "a", "20000"), "(integer) 1"},
		{cmd("PTTL", "l"), "(integer) 20000"},
		{cmd("LOCK.ACQUIRE", "l", "b", "10000"), "(nil)"},
		{cmd("LOCK.EXTEND", "l", "b", "30000"), "(integer) 0"},
		{cmd("LOCK.EXTEND", "l", "a", "30000"), "(integer) 1"},
		{cmd("PTTL", "l"), "(integer) 30000"},
		{cmd("LOCK.RELEASE", "l", "b"), "(integer) 0"},
		{cmd("LOCK.RELEASE", "l", "a"), "(integer) 1"},
		{cmd("LOCK.RELEASE", "l", "a"), "(integer) 0"},
		{cmd("EXISTS", "l"), "(integer) 0"},
		// A new incarnation of the key: a new token.
		{cmd("LOCK.ACQUIRE", "l", "b", "10000"), "(integer) 2"},
		// A key that is not a string is held, as SET NX sees it.
		{cmd("HSET", "h", "uuid:1", "1"), "(integer) 1"},
		{cmd("LOCK.ACQUIRE", "h", "a", "1000"), "(nil)"},
		// A Redisson lock: extended and released as its own scripts do.
		{cmd("LOCK.EXTEND", "h", "uuid:2", "1000"), "(integer) 0"},
		{cmd("LOCK.EXTEND", "h", "uuid:1", "1000"), "(integer) 1"},
		{cmd("PTTL", "h"), "(integer) 1000"},
		{cmd("LOCK.RELEASE", "h", "uuid:2"), "(integer) 0"},
		{cmd("LOCK.RELEASE", "h", "uuid:1"), "(integer) 1"},
		{cmd("EXISTS", "h"), "(integer) 0"},
	})
}

func TestLockArgumentErrors(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("LOCK.ACQUIRE", "l", "a"), "(error) ERR wrong number of arguments for 'lock.acquire' command"},
		{cmd("LOCK.ACQUIRE", "l", "a", "x"), "(error) ERR invalid expire time in 'lock.acquire' command"},
		{cmd("LOCK.ACQUIRE", "l", "a", "0"), "(error) ERR invalid expire time in 'lock.acquire' command"},
		{cmd("LOCK.ACQUIRE", "l", "a", "-5"), "(error) ERR invalid expire time in 'lock.acquire' command"},
		{cmd("LOCK.ACQUIRE", "l", "a", "9223372036854775807"), "(error) ERR invalid expire time in 'lock.acquire' command"},
		{cmd("LOCK.ACQUIRE", "l", "a", "100", "WAIT"), "(error) ERR syntax error"},
		{cmd("LOCK.ACQUIRE", "l", "a", "100", "WAIT", "-1"), "(error) ERR timeout is negative"},
		{cmd("LOCK.ACQUIRE", "l", "a", "100", "WAIT", "x"), "(error) ERR timeout is not an integer or out of range"},
		{cmd("LOCK.ACQUIRE", "l", "a", "100", "LOCKDELAY", "x"), "(error) ERR LOCKDELAY is not an integer or out of range"},
		{cmd("LOCK.ACQUIRE", "l", "a", "100", "PERMITS", "x"), "(error) ERR PERMITS is not an integer or out of range"},
		{cmd("LOCK.ACQUIRE", "l", "a", "100", "PERMITS", "0"), "(error) ERR PERMITS should be greater than 0"},
		{cmd("LOCK.ACQUIRE", "l", "a", "100", "PERMITS", "2", "SHARED"), "(error) ERR syntax error"},
		{cmd("LOCK.ACQUIRE", "l", "a", "100", "SHARED", "SHARED"), "(error) ERR syntax error"},
		{cmd("LOCK.ACQUIRE", "l", "a", "100", "SESSION", "SESSIONID", "x"), "(error) ERR syntax error"},
		{cmd("LOCK.ACQUIRE", "l", "a", "100", "SESSIONID"), "(error) ERR syntax error"},
		{cmd("LOCK.ACQUIRE", "l", "a", "100", "SESSIONID", "nope"), "(error) ERR no such session"},
		{cmd("LOCK.ACQUIREALL", "0", "l", "a", "100"), "(error) ERR numkeys should be greater than 0"},
		{cmd("LOCK.ACQUIREALL", "x", "l", "a", "100"), "(error) ERR numkeys should be greater than 0"},
		{cmd("LOCK.ACQUIREALL", "3", "l", "a", "100"), "(error) ERR syntax error"},
		{cmd("LOCK.ACQUIREALL", "2", "l", "m", "a"), "(error) ERR syntax error"},
		{cmd("LOCK.ACQUIREALL", "1", "l", "a", "x"), "(error) ERR invalid expire time in 'lock.acquireall' command"},
		{cmd("LOCK.ACQUIREALL", "1", "l", "a", "100", "SHARED"), "(error) ERR syntax error"},
		{cmd("LOCK.RELEASEALL", "2", "l", "a"), "(error) ERR syntax error"},
		{cmd("LOCK.RELEASEALL", "1", "l", "a", "b"), "(error) ERR syntax error"},
		{cmd("LOCK.SESSION", "CREATE", "0"), "(error) ERR invalid expire time in 'lock.session|create' command"},
		{cmd("LOCK.SESSION", "CREATE", "100", "LOCKDELAY", "-1"), "(error) ERR LOCKDELAY is negative"},
		{cmd("LOCK.SESSION", "CREATE", "100", "NX"), "(error) ERR syntax error"},
		{cmd("LOCK.SESSION", "RENEW", "nope"), "(nil)"},
		{cmd("LOCK.SESSION", "DESTROY", "nope"), "(integer) 0"},
		{cmd("LOCK.SESSION", "INFO", "nope"), "(nil)"},
		{cmd("LOCK.SESSION", "LIST"), "[]"},
		{cmd("LOCK.ACQUIRE", "l", "a", "100", "LOCKDELAY", "-1"), "(error) ERR LOCKDELAY is negative"},
		{cmd("LOCK.ACQUIRE", "l", "a", "100", "NX"), "(error) ERR syntax error"},
		{cmd("LOCK.EXTEND", "l", "a", "0"), "(error) ERR invalid expire time in 'lock.extend' command"},
		{cmd("LOCK.RELEASE", "l"), "(error) ERR wrong number of arguments for 'lock.release' command"},
		{cmd("LOCK.LIST", "x"), "(error) ERR invalid cursor"},
		{cmd("LOCK.LIST", "0", "COUNT", "0"), "(error) ERR syntax error"},
		{cmd("LOCK.LIST", "0", "MATCH"), "(error) ERR syntax error"},
		{cmd("EXISTS", "l"), "(integer) 0"},
	})
}

// lockWaiter parks LOCK.ACQUIRE key owner 60000 WAIT 0 for a new client.
func (te *testEngine) lockWaiter(key, owner string) (*client, *Blocked) {
	cl := te.newClient()
	return cl, cl.block("LOCK.ACQUIRE", key, owner, "60000", "WAIT", "0")
}

// Every way a key stops existing hands the lock to the first waiter, in
// the transaction that freed it, and wakes nobody else.
func TestLockHandOverOnEveryRelease(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup []string // makes the held key "l" (before the waiters come)
		free  []string
	}{
		{"LOCK.RELEASE", cmd("LOCK.ACQUIRE", "l", "holder", "60000"), cmd("LOCK.RELEASE", "l", "holder")},
		{"DEL", cmd("SET", "l", "holder", "PX", "60000"), cmd("DEL", "l")},
		{"UNLINK", cmd("SET", "l", "holder", "PX", "60000"), cmd("UNLINK", "l", "other")},
		{"RENAME away", cmd("SET", "l", "holder"), cmd("RENAME", "l", "elsewhere")},
		{"MOVE away", cmd("SET", "l", "holder"), cmd("MOVE", "l", "3")},
		{"Redisson unlock", cmd("HSET", "l", "uuid-1:7", "1"), cmd("HDEL", "l", "uuid-1:7")},
		{"GETDEL", cmd("SET", "l", "holder"), cmd("GETDEL", "l")},
		{"FLUSHDB", cmd("SET", "l", "holder"), cmd("FLUSHDB")},
		{"FLUSHALL", cmd("SET", "l", "holder"), cmd("FLUSHALL")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			te := newTestEngine(t)
			te.do(tc.setup...)
			_, w1 := te.lockWaiter("l", "w1")
			_, w2 := te.lockWaiter("l", "w2")
			before := te.locks.stats.queueGrants.Load()
			te.do(tc.free...)
			if got := served(t, w1); !strings.HasPrefix(got, "(integer) ") {
				t.Fatalf("first waiter: %s", got)
			}
			if got := served(t, w2); got != "(still waiting)" {
				t.Fatalf("second waiter: %s", got)
			}
			if n := te.locks.stats.queueGrants.Load() - before; n != 1 {
				t.Errorf("%d grants for one release", n)
			}
			if got := te.do("GET", "l").String(); got != `"w1"` {
				t.Errorf("GET l = %s", got)
			}
			if got := te.do("PTTL", "l").String(); got != "(integer) 60000" {
				t.Errorf("PTTL l = %s", got)
			}
			te.do("LOCK.RELEASE", "l", "w1")
			if got := served(t, w2); !strings.HasPrefix(got, "(integer) ") {
				t.Fatalf("second waiter after the first released: %s", got)
			}
		})
	}
}

// An expired lock with waiters is never seen free: whoever notices the
// expiry first (a polling SET NX, the sweeper) finds the first waiter
// already holding it.
func TestLockHandOverOnExpiry(t *testing.T) {
	for _, tc := range []struct {
		name   string
		notice func(te *testEngine, other *client)
	}{
		{"SET NX", func(te *testEngine, other *client) {
			if got := other.do("SET", "l", "poller", "NX", "PX", "1000"); got != "(nil)" {
				t.Errorf("SET NX won against the queue: %s", got)
			}
		}},
		{"LOCK.ACQUIRE", func(te *testEngine, other *client) {
			if got := other.do("LOCK.ACQUIRE", "l", "poller", "1000"); got != "(nil)" {
				t.Errorf("LOCK.ACQUIRE jumped the queue: %s", got)
			}
		}},
		{"GET", func(te *testEngine, other *client) {
			// A read transaction sees the key gone; the write that
			// deletes it right after hands it over.
			other.do("GET", "l")
		}},
		{"sweeper", func(te *testEngine, _ *client) { te.Sweep(time.Second) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			te := newTestEngine(t)
			te.do("LOCK.ACQUIRE", "l", "holder", "100")
			_, w := te.lockWaiter("l", "w1")
			te.Clock.FastForward(101 * time.Millisecond)
			tc.notice(te, te.newClient())
			if got := served(t, w); !strings.HasPrefix(got, "(integer) ") {
				t.Fatalf("waiter: %s", got)
			}
			if got := te.do("GET", "l").String(); got != `"w1"` {
				t.Errorf("GET l = %s", got)
			}
			if n := te.Stats.ExpiredKeys.Load(); n != 1 {
				t.Errorf("expired_keys = %d, want 1", n)
			}
		})
	}
}

func TestLockQueueIsFIFO(t *testing.T) {
	te := newTestEngine(t)
	te.do("LOCK.ACQUIRE", "l", "holder", "60000")
	var ws []*Blocked
	for i := 0; i < 20; i++ {
		_, w := te.lockWaiter("l", "w"+string(rune('a'+i)))
		ws = append(ws, w)
	}
	if got := te.do("LOCK.INFO", "l").String(); !strings.Contains(got, `"waiters" (integer) 20`) {
		t.Errorf("LOCK.INFO: %s", got)
	}
	owner := "holder"
	for i, w := range ws {
		te.do("LOCK.RELEASE", "l", owner)
		owner = "w" + string(rune('a'+i))
		if got := served(t, w); got != "(integer) "+itoa(i+2) {
			t.Fatalf("waiter %d: %s", i, got)
		}
		for _, later := range ws[i+1:] {
			if got := served(t, later); got != "(still waiting)" {
				t.Fatalf("a later waiter was woken: %s", got)
			}
		}
		if got := te.do("GET", "l").String(); got != `"`+owner+`"` {
			t.Fatalf("GET l = %s, want %s", got, owner)
		}
	}
}

// A waiter that gives up is skipped; one served as its client left hands
// the lock straight to the next (Abandon, called by the connection).
func TestLockWaitCancelAndAbandon(t *testing.T) {
	te := newTestEngine(t)
	te.do("LOCK.ACQUIRE", "l", "holder", "60000")
	_, gaveUp := te.lockWaiter("l", "gave-up")
	_, left := te.lockWaiter("l", "left")
	_, next := te.lockWaiter("l", "next")
	if !gaveUp.Cancel() {
		t.Fatal("Cancel of a waiting waiter returned false")
	}
	te.do("DEL", "l")
	if got := served(t, left); !strings.HasPrefix(got, "(integer) ") {
		t.Fatalf("second waiter: %s", got)
	}
	if left.Cancel() {
		t.Fatal("Cancel after the grant returned true")
	}
	left.Abandon()
	if got := served(t, next); !strings.HasPrefix(got, "(integer) ") {
		t.Fatalf("next waiter after the abandoned grant: %s", got)
	}
	if got := te.do("GET", "l").String(); got != `"next"` {
		t.Errorf("GET l = %s", got)
	}
	info := te.do("INFO", "locks").Str
	for _, want := range []string{"queue_grants:2\r\n", "abandoned_grants:1\r\n", "wait_aborts:1\r\n", "current_waiters:0\r\n"} {
		if !strings.Contains(info, want) {
			t.Errorf("INFO locks lacks %q:\n%s", want, info)
		}
	}
}

func TestLockWaitInsideMultiDoesNotWait(t *testing.T) {
	te := newTestEngine(t)
	te.do("LOCK.ACQUIRE", "l", "holder", "60000")
	cl := te.newClient()
	playClients(t, []clientStep{
		{cl, cmd("MULTI"), "OK"},
		{cl, cmd("LOCK.ACQUIRE", "l", "other", "1000", "WAIT", "0"), "QUEUED"},
		{cl, cmd("LOCK.ACQUIRE", "free", "other", "1000", "WAIT", "0"), "QUEUED"},
		{cl, cmd("EXEC"), "[(nil) (integer) 2]"},
	})
}

// SESSION locks are released when their connection goes; LOCKDELAY keeps
// the key with its dead owner that long first.
func TestLockSessionRelease(t *testing.T) {
	te := newTestEngine(t)
	holder := te.newClient()
	if got := holder.do("LOCK.ACQUIRE", "l", "h", "60000", "SESSION"); got != "(integer) 1" {
		t.Fatal(got)
	}
	if got := holder.do("LOCK.INFO", "l"); !strings.Contains(got, `"session" (integer) 1`) {
		t.Errorf("LOCK.INFO: %s", got)
	}
	_, w := te.lockWaiter("l", "w")
	te.RemoveSession(holder.s)
	if got := served(t, w); !strings.HasPrefix(got, "(integer) ") {
		t.Fatalf("waiter: %s", got)
	}

	// With a lock-delay: still the dead owner's for the delay, then the
	// waiter's.
	delayed := te.newClient()
	if got := delayed.do("LOCK.ACQUIRE", "d", "h", "60000", "SESSION", "LOCKDELAY", "500"); !strings.HasPrefix(got, "(integer) ") {
		t.Fatal(got)
	}
	_, wd := te.lockWaiter("d", "w")
	te.RemoveSession(delayed.s)
	if got := served(t, wd); got != "(still waiting)" {
		t.Fatalf("granted before the lock-delay: %s", got)
	}
	te.run([]step{
		{cmd("GET", "d"), `"h"`},
		{cmd("PTTL", "d"), "(integer) 500"},
	})
	te.Clock.FastForward(501 * time.Millisecond)
	te.Sweep(time.Second)
	if got := served(t, wd); !strings.HasPrefix(got, "(integer) ") {
		t.Fatalf("waiter after the lock-delay: %s", got)
	}

	// A session lock released or re-taken by its owner is not released
	// again when the connection closes.
	again := te.newClient()
	again.do("LOCK.ACQUIRE", "r", "x", "60000", "SESSION")
	again.do("LOCK.RELEASE", "r", "x")
	te.do("LOCK.ACQUIRE", "r", "x", "60000")
	te.RemoveSession(again.s)
	te.run([]step{{cmd("GET", "r"), `"x"`}})
	if got := te.do("INFO", "locks").Str; !strings.Contains(got, "session_releases:2\r\n") {
		t.Errorf("INFO locks:\n%s", got)
	}
}

func TestLockDelayConfig(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("CONFIG", "GET", "lock-delay"), `["lock-delay" "0"]`},
		{cmd("CONFIG", "SET", "lock-delay", "-1"), "(error) ERR CONFIG SET failed (possibly related to argument 'lock-delay') - argument must be between 0 and 9223372036854775807 inclusive"},
		{cmd("CONFIG", "SET", "lock-delay", "250"), "OK"},
		{cmd("CONFIG", "GET", "lock-delay"), `["lock-delay" "250"]`},
	})
	cl := te.newClient()
	cl.do("LOCK.ACQUIRE", "l", "h", "60000", "SESSION")
	te.RemoveSession(cl.s)
	te.run([]step{{cmd("PTTL", "l"), "(integer) 250"}})
}

func TestLockInfoShapes(t *testing.T) {
	te := newTestEngine(t)
	now := te.Clock.NowMs()
	te.do("LOCK.ACQUIRE", "str", "me", "5000")
	te.do("SET", "redsync", "b64value", "PX", "8000")
	te.do("HSET", "rlock", "8743c9c0-0795-4907-87fd-6c719a6b4586:1", "2")
	te.do("PEXPIRE", "rlock", "30000")
	te.do("ZADD", "sem", strconv.FormatInt(now-10, 10), "id-1", strconv.FormatInt(now-5, 10), "id-2")
	te.do("RPUSH", "list", "x")
	te.do("HSET", "plainhash", "f", "v")
	te.run([]step{
		{cmd("LOCK.INFO", "missing"), "(nil)"},
		{cmd("LOCK.INFO", "str"), `["kind" "string" "owners" ["me"] "token" (integer) 1 "ttl" (integer) 5000 "waiters" (integer) 0 "session" (integer) 0 "acquired_at" (integer) ` + strconv.FormatInt(now, 10) + ` "reentries" (nil) "permits" (nil) "holders" [["me" (integer) 1 (integer) 5000 (nil)]] "queue" []]`},
		{cmd("LOCK.INFO", "redsync"), `["kind" "string" "owners" ["b64value"] "token" (integer) 2 "ttl" (integer) 8000 "waiters" (integer) 0 "session" (integer) 0 "acquired_at" (nil) "reentries" (nil) "permits" (nil) "holders" [["b64value" (integer) 2 (integer) 8000 (nil)]] "queue" []]`},
		{cmd("LOCK.INFO", "rlock"), `["kind" "redisson" "owners" ["8743c9c0-0795-4907-87fd-6c719a6b4586:1"] "token" (integer) 3 "ttl" (integer) 30000 "waiters" (integer) 0 "session" (integer) 0 "acquired_at" (nil) "reentries" (integer) 2 "permits" (nil) "holders" [["8743c9c0-0795-4907-87fd-6c719a6b4586:1" (integer) 3 (integer) 30000 (nil)]] "queue" []]`},
		{cmd("LOCK.INFO", "sem"), `["kind" "semaphore" "owners" ["id-1" "id-2"] "token" (integer) 4 "ttl" (integer) -1 "waiters" (integer) 0 "session" (integer) 0 "acquired_at" (integer) ` + strconv.FormatInt(now-10, 10) + ` "reentries" (nil) "permits" (nil) "holders" [["id-1" (nil) (integer) -1 (nil)] ["id-2" (nil) (integer) -1 (nil)]] "queue" []]`},
		{cmd("LOCK.INFO", "list"), `["kind" "other" "owners" [] "token" (integer) 5 "ttl" (integer) -1 "waiters" (integer) 0 "session" (integer) 0 "acquired_at" (nil) "reentries" (nil) "permits" (nil) "holders" [] "queue" []]`},
		{cmd("LOCK.INFO", "plainhash"), `["kind" "other" "owners" [] "token" (integer) 6 "ttl" (integer) -1 "waiters" (integer) 0 "session" (integer) 0 "acquired_at" (nil) "reentries" (nil) "permits" (nil) "holders" [] "queue" []]`},
		{cmd("LOCK.LIST"), `["0" [["redsync" "string" "b64value" (integer) 8000 (integer) 0] ["rlock" "redisson" "8743c9c0-0795-4907-87fd-6c719a6b4586:1" (integer) 30000 (integer) 0] ["sem" "semaphore" "id-1" (integer) -1 (integer) 0] ["str" "string" "me" (integer) 5000 (integer) 0]]]`},
		{cmd("LOCK.LIST", "0", "MATCH", "s*"), `["0" [["sem" "semaphore" "id-1" (integer) -1 (integer) 0] ["str" "string" "me" (integer) 5000 (integer) 0]]]`},
		{cmd("LOCK.LIST", "MATCH", "r*", "COUNT", "100"), `["0" [["redsync" "string" "b64value" (integer) 8000 (integer) 0] ["rlock" "redisson" "8743c9c0-0795-4907-87fd-6c719a6b4586:1" (integer) 30000 (integer) 0]]]`},
	})
}

// LOCK.LIST walks with SCAN's cursors: COUNT keys examined per call.
func TestLockListCursor(t *testing.T) {
	te := newTestEngine(t)
	for _, k := range []string{"a", "b", "c", "d", "e"} {
		te.do("LOCK.ACQUIRE", k, "o-"+k, "60000")
	}
	te.do("RPUSH", "bb", "not a lock")
	var keys []string
	cursor := "0"
	for i := 0; i < 10; i++ {
		rep := te.do("LOCK.LIST", cursor, "COUNT", "2")
		for _, e := range rep.Elems[1].Elems {
			keys = append(keys, e.Elems[0].Str)
		}
		cursor = rep.Elems[0].Str
		if cursor == "0" {
			break
		}
	}
	if got := strings.Join(keys, ","); got != "a,b,c,d,e" {
		t.Errorf("keys %s", got)
	}
}

func TestHistogramQuantiles(t *testing.T) {
	var h histogram
	if q := h.quantile(0.5); q != 0 {
		t.Errorf("empty: %v", q)
	}
	for i := 1; i <= 100; i++ {
		h.add(time.Duration(i) * time.Millisecond)
	}
	for _, tc := range []struct{ q, lo, hi float64 }{{0.5, 50, 50 * 1.25}, {0.99, 99, 99 * 1.25}, {1, 100, 125}} {
		if got := h.quantile(tc.q); got < tc.lo || got > tc.hi {
			t.Errorf("quantile(%v) = %v, want in [%v, %v]", tc.q, got, tc.lo, tc.hi)
		}
	}
	for us := uint64(0); us < 1<<20; us = us*3/2 + 1 {
		if i := histBucket(us); float64(us) > histUpper(i) || (i > 0 && float64(us) <= histUpper(i-1) && i != 8) {
			t.Fatalf("%d µs in bucket %d (upper %v, previous %v)", us, i, histUpper(i), histUpper(i-1))
		}
	}
}
