package engine

import (
	"testing"
	"time"
)

// testEngine is an engine on a manual clock with one session, for
// table-driven command tests.
type testEngine struct {
	t *testing.T
	*Engine
	s *Session
}

func newTestEngine(t *testing.T) *testEngine {
	t.Helper()
	e, err := New(Config{Clock: NewManualClock(time.Unix(1700000000, 0))})
	if err != nil {
		t.Fatal(err)
	}
	return wrapTestEngine(t, e)
}

// wrapTestEngine gives e a client session and closes it when the test ends.
func wrapTestEngine(t *testing.T, e *Engine) *testEngine {
	t.Cleanup(func() { e.Close() })
	s := NewSession("normal")
	s.Authenticated = true
	e.AddSession(s)
	return &testEngine{t: t, Engine: e, s: s}
}

// openEngine opens an engine on cfg with one session; it is closed when the
// test ends.
func openEngine(t *testing.T, cfg Config) *testEngine {
	t.Helper()
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return wrapTestEngine(t, e)
}

// do runs a command the way a connection does (through Dispatch) and
// returns its reply.
func (te *testEngine) do(args ...string) Reply {
	bargs := make([][]byte, len(args))
	for i, a := range args {
		bargs[i] = []byte(a)
	}
	var rec Recorder
	te.Dispatch(te.s, nil, bargs, &rec)
	if len(rec.Replies) != 1 {
		te.t.Fatalf("%q wrote %d replies, want 1", args, len(rec.Replies))
	}
	return rec.Replies[0]
}

// step is one command and the reply it must give, rendered by Reply.String.
type step struct {
	args []string
	want string
}

// run plays steps in order; ff, when set on a step, fast-forwards first.
func (te *testEngine) run(steps []step) {
	te.t.Helper()
	for _, st := range steps {
		got := te.do(st.args...).String()
		if got != st.want {
			te.t.Errorf("%q: got %s, want %s", st.args, got, st.want)
		}
	}
}

func cmd(args ...string) []string { return args }

func TestSetGetBasics(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("SET", "k", "v"), "OK"},
		{cmd("GET", "k"), `"v"`},
		{cmd("set", "k", "w", "nx"), "(nil)"},
		{cmd("SET", "k", "w", "XX", "GET"), `"v"`},
		{cmd("SET", "lock", "tok", "NX", "PX", "30000"), "OK"},
		{cmd("PTTL", "lock"), "(integer) 30000"},
		{cmd("SET", "k", "v", "EX"), "(error) ERR syntax error"},
		{cmd("SET", "k", "v", "NX", "XX"), "(error) ERR syntax error"},
		{cmd("SET", "k", "v", "PX", "0"), "(error) ERR invalid expire time in 'set' command"},
		{cmd("SET", "k", "v", "PX", "+5"), "(error) ERR value is not an integer or out of range"},
		{cmd("SET", "k", "v", "EX", "9223372036854775807"), "(error) ERR invalid expire time in 'set' command"},
		{cmd("GET"), "(error) ERR wrong number of arguments for 'get' command"},
	})
	te.Clock.FastForward(30*time.Second + time.Millisecond)
	te.run([]step{
		{cmd("GET", "lock"), "(nil)"},
		{cmd("PTTL", "lock"), "(integer) -2"},
	})
}

// The sweeper removes expired keys for good, and leaves alone keys whose
// TTL changed after their first expiry was queued.
func TestSweepRemovesExpiredKeys(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("SET", "a", "1", "PX", "100"), "OK"},
		{cmd("SET", "b", "1", "PX", "100"), "OK"},
		{cmd("SET", "c", "1", "PX", "100"), "OK"},
		{cmd("SET", "keep", "1"), "OK"},
		{cmd("PEXPIRE", "b", "10000"), "(integer) 1"}, // renewed: its old entry is stale
		{cmd("PERSIST", "c"), "(integer) 1"},          // persisted: stale too
		{cmd("DBSIZE"), "(integer) 4"},
	})
	te.Clock.FastForward(200 * time.Millisecond)
	if n := te.Sweep(0); n != 1 {
		t.Fatalf("Sweep deleted %d keys, want 1", n)
	}
	te.run([]step{
		{cmd("DBSIZE"), "(integer) 3"},
		{cmd("EXISTS", "a", "b", "c", "keep"), "(integer) 3"},
	})
	te.Clock.FastForward(10 * time.Second)
	te.Sweep(0)
	te.run([]step{{cmd("DBSIZE"), "(integer) 2"}})
	if got := te.Stats.ExpiredKeys.Load(); got != 2 {
		t.Fatalf("expired_keys = %d", got)
	}
}
