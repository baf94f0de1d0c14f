package engine

import "testing"

func TestForcedError(t *testing.T) {
	te := newTestEngine(t)
	direct := NewSession(KindEmbed)
	direct.Direct = true
	te.AddSession(direct)
	script := NewSession(KindScript)
	te.AddSession(script)
	te.run([]step{
		{cmd("SET", "k", "v"), "OK"},
		{cmd("MULTI"), "OK"},
		{cmd("SET", "a", "1"), "QUEUED"},
	})
	te.SetForcedError("LOADING loading\r\nnow")
	if got := te.ForcedError(); got != "LOADING loading  now" {
		t.Errorf("ForcedError = %q", got)
	}
	te.run([]step{
		{cmd("GET", "k"), "(error) LOADING loading  now"},
		{cmd("NOSUCH"), "(error) LOADING loading  now"},
		{cmd("GET"), "(error) LOADING loading  now"},
		{cmd("EXEC"), "(error) LOADING loading  now"}, // ends the transaction
	})
	for _, c := range []struct {
		s    *Session
		want string
	}{
		{direct, `"v"`},
		{script, "(error) LOADING loading  now"},
	} {
		var rec Recorder
		te.Dispatch(c.s, nil, [][]byte{[]byte("GET"), []byte("k")}, &rec)
		if got := rec.Last().String(); got != c.want {
			t.Errorf("%s session: GET = %s, want %s", c.s.Kind, got, c.want)
		}
	}
	te.SetForcedError("")
	te.run([]step{
		{cmd("EXEC"), "(error) ERR EXEC without MULTI"},
		{cmd("GET", "a"), "(nil)"},
		{cmd("MULTI"), "OK"},
	})
	// A command refused inside MULTI dooms it, as any refusal does.
	te.SetForcedError("ERR x")
	te.run([]step{{cmd("SET", "a", "1"), "(error) ERR x"}})
	te.SetForcedError("")
	te.run([]step{{cmd("EXEC"), "(error) EXECABORT Transaction discarded because of previous errors."}})
}

// Seed makes the picks of the random commands reproducible.
func TestSeedReproducible(t *testing.T) {
	picks := func(seed int64) string {
		te := newTestEngine(t)
		te.Seed(seed)
		te.do("SADD", "s", "a", "b", "c", "d", "e", "f", "g", "h")
		var out string
		for i := 0; i < 5; i++ {
			out += te.do("SRANDMEMBER", "s", "-3").String() + te.do("SPOP", "s").String()
		}
		return out
	}
	if a, b := picks(1), picks(1); a != b {
		t.Errorf("seed 1 twice: %s / %s", a, b)
	}
	if a, b := picks(1), picks(2); a == b {
		t.Errorf("seeds 1 and 2 pick the same: %s", a)
	}
}

// A restored snapshot has the keys, their expiry, and a token counter that
// never goes back.
func TestSnapshotRestore(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("SET", "k", "v", "PX", "5000"), "OK"},
		{cmd("HSET", "h", "f", "1"), "(integer) 1"},
		{cmd("SET", "gone", "x"), "OK"},
	})
	last := te.do("LOCK.TOKEN", "gone").Int
	te.do("DEL", "gone")
	snap, err := te.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	e2, err := New(Config{Clock: te.Clock, Restore: snap})
	if err != nil {
		t.Fatal(err)
	}
	te2 := wrapTestEngine(t, e2)
	te2.run([]step{
		{cmd("GET", "k"), `"v"`},
		{cmd("PTTL", "k"), "(integer) 5000"},
		{cmd("HGET", "h", "f"), `"1"`},
		{cmd("DBSIZE"), "(integer) 2"},
		{cmd("SET", "new", "x"), "OK"},
	})
	if tok := te2.do("LOCK.TOKEN", "new").Int; tok <= last {
		t.Errorf("token %d after restore, was %d before", tok, last)
	}
}
