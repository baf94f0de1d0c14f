package engine

import (
	"testing"
	"time"
)

func TestMultiPop(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("RPUSH", "l", "a", "b", "c"), `(integer) 3`},
		{cmd("LMPOP", "2", "nokey", "l", "RIGHT", "COUNT", "2"), `["l" ["c" "b"]]`},
		{cmd("LMPOP", "1", "l", "LEFT", "COUNT", "9"), `["l" ["a"]]`},
		{cmd("EXISTS", "l"), `(integer) 0`},
		{cmd("LMPOP", "1", "l", "LEFT"), `(nil)`},
		{cmd("LMPOP", "0", "l", "LEFT"), `(error) ERR numkeys should be greater than 0`},
		{cmd("LMPOP", "2", "l", "LEFT"), `(error) ERR syntax error`},
		{cmd("LMPOP", "1", "l", "LEFT", "COUNT", "0"), `(error) ERR count should be greater than 0`},
		{cmd("ZADD", "z", "1", "a", "2", "b", "3", "c"), `(integer) 3`},
		{cmd("ZMPOP", "1", "z", "MAX", "COUNT", "2"), `["z" [["c" 3] ["b" 2]]]`},
		{cmd("ZMPOP", "1", "z", "MIN"), `["z" [["a" 1]]]`},
		{cmd("ZMPOP", "1", "z", "MIN"), `(nil)`},
		{cmd("ZMPOP", "1", "z", "UP"), `(error) ERR syntax error`},
		{cmd("ZADD", "z", "1", "a"), `(integer) 1`},
		{cmd("BZPOPMAX", "nokey", "z", "0"), `["z" "a" 1]`},
		// Argument errors come before the timeout's.
		{cmd("BZMPOP", "x", "0", "z", "MIN"), `(error) ERR numkeys should be greater than 0`},
		{cmd("BZMPOP", "x", "1", "z", "MIN"), `(error) ERR timeout is not a float or out of range`},
		{cmd("BLMPOP", "-1", "1", "l", "LEFT"), `(error) ERR timeout is negative`},
		{cmd("BZPOPMIN", "z", "-1"), `(error) ERR timeout is negative`},
		// Inside MULTI nothing blocks.
		{cmd("MULTI"), `OK`},
		{cmd("BZPOPMIN", "z", "0"), `QUEUED`},
		{cmd("BLMPOP", "0", "1", "l", "LEFT"), `QUEUED`},
		{cmd("EXEC"), `[(nil) (nil)]`},
	})
}

// Waiters are served in arrival order, each from the key that got data.
func TestBlockingZpopServesInArrivalOrder(t *testing.T) {
	te := newTestEngine(t)
	a, b, c, d, w := te.newClient(), te.newClient(), te.newClient(), te.newClient(), te.newClient()
	wa := a.block("BZPOPMIN", "z", "0")
	wb := b.block("BZMPOP", "0", "2", "other", "z", "MAX", "COUNT", "2")
	wc := c.block("BZPOPMAX", "s", "z", "0")
	wd := d.block("BLMPOP", "0", "2", "s", "l", "LEFT")
	w.do("SET", "s", "v")
	if got := w.do("ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d"); got != "(integer) 4" {
		t.Fatal(got)
	}
	for _, tc := range []struct {
		b    *Blocked
		want string
	}{
		{wa, `["z" "a" 1]`},
		{wb, `["z" [["d" 4] ["c" 3]]]`},
		// s holds a string, but z got the data: no WRONGTYPE.
		{wc, `["z" "b" 2]`},
		{wd, "(still waiting)"},
	} {
		if got := served(t, tc.b); got != tc.want {
			t.Errorf("got %s, want %s", got, tc.want)
		}
	}
	if got := w.do("EXISTS", "z"); got != "(integer) 0" {
		t.Fatal(got)
	}
	w.do("RPUSH", "l", "x")
	if got := served(t, wd); got != `["l" ["x"]]` {
		t.Fatal(got)
	}
}

func TestBlockingZpopTimeout(t *testing.T) {
	te := newTestEngine(t)
	a := te.newClient()
	wa := a.block("BZPOPMIN", "z", "1.5")
	if want := te.Clock.Now().Add(1500 * time.Millisecond); !wa.Deadline.Equal(want) {
		t.Fatalf("deadline %v, want %v", wa.Deadline, want)
	}
	if got := wa.TimeoutReply.String(); got != "(nil)" {
		t.Fatalf("timeout reply %s", got)
	}
	if !wa.Cancel() {
		t.Fatal("Cancel of a waiting command returned false")
	}
	a.do("ZADD", "z", "1", "a")
	if got := a.do("ZCARD", "z"); got != "(integer) 1" {
		t.Fatalf("a cancelled waiter took data: %s", got)
	}
}
