package keyspace_test

import (
	"testing"

	"github.com/lockredis/lockredis/engine"
)

// A small engine harness, as engine's own tests have: one session,
// commands through Dispatch, replies as Reply.String renders them.

type testEngine struct {
	t *testing.T
	*engine.Engine
	s *engine.Session
}

// openEngine opens an engine on cfg with one authenticated session; it is
// closed when the test ends.
func openEngine(t *testing.T, cfg engine.Config) *testEngine {
	t.Helper()
	e, err := engine.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	s := engine.NewSession(engine.KindClient)
	s.Authenticated = true
	e.AddSession(s)
	return &testEngine{t: t, Engine: e, s: s}
}

func newTestEngine(t *testing.T) *testEngine { return openEngine(t, engine.Config{}) }

func (te *testEngine) do(args ...string) engine.Reply {
	bargs := make([][]byte, len(args))
	for i, a := range args {
		bargs[i] = []byte(a)
	}
	var rec engine.Recorder
	te.Dispatch(te.s, nil, bargs, &rec)
	if len(rec.Replies) != 1 {
		te.t.Fatalf("%q wrote %d replies, want 1", args, len(rec.Replies))
	}
	return rec.Replies[0]
}

type step struct {
	args []string
	want string
}

func (te *testEngine) run(steps []step) {
	te.t.Helper()
	for _, st := range steps {
		if got := te.do(st.args...).String(); got != st.want {
			te.t.Errorf("%q: got %s, want %s", st.args, got, st.want)
		}
	}
}

func cmd(args ...string) []string { return args }
