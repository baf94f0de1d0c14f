package luasvc

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/lockredis/lockredis/engine"
)

// testService is an engine on a manual clock with the scripting commands
// and one client session.
type testService struct {
	t   testing.TB
	e   *engine.Engine
	svc *Service
	s   *engine.Session
	log []string
}

func newTestService(t testing.TB, opts ...Options) *testService {
	t.Helper()
	e, err := engine.New(engine.Config{Clock: engine.NewManualClock(time.Unix(1700000000, 0))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	ts := &testService{t: t, e: e}
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	if o.Logf == nil {
		o.Logf = func(level, format string, args ...any) {
			ts.log = append(ts.log, level+" "+strings.TrimSpace(fmt.Sprintf(format, args...)))
		}
	}
	ts.svc = Register(e, o)
	ts.s = ts.newSession()
	return ts
}

func (ts *testService) newSession() *engine.Session {
	s := engine.NewSession("normal")
	s.Authenticated = true
	ts.e.AddSession(s)
	return s
}

// doOn runs a command for session s as a connection would.
func (ts *testService) doOn(s *engine.Session, args ...string) engine.Reply {
	bargs := make([][]byte, len(args))
	for i, a := range args {
		bargs[i] = []byte(a)
	}
	var rec engine.Recorder
	ts.e.Dispatch(s, nil, bargs, &rec)
	if len(rec.Replies) != 1 {
		ts.t.Fatalf("%q wrote %d replies, want 1", args, len(rec.Replies))
	}
	return rec.Replies[0]
}

func (ts *testService) do(args ...string) engine.Reply { return ts.doOn(ts.s, args...) }

// eval runs a script without keys or arguments.
func (ts *testService) eval(script string, keysAndArgs ...string) engine.Reply {
	return ts.do(append([]string{"EVAL", script}, keysAndArgs...)...)
}

// step is a command and its reply as Reply.String renders it.
type step struct {
	args []string
	want string
}

func (ts *testService) run(steps []step) {
	ts.t.Helper()
	for _, st := range steps {
		if got := ts.do(st.args...).String(); got != st.want {
			ts.t.Errorf("%q:\n\tgot  %s\n\twant %s", st.args, got, st.want)
		}
	}
}

func cmd(args ...string) []string { return args }

// ev is an EVAL step with no keys.
func ev(script string) []string { return []string{"EVAL", script, "0"} }

// scriptCase is a script and its expected reply.
type scriptCase struct {
	script string
	want   string
}

func (ts *testService) scripts(cases []scriptCase) {
	ts.t.Helper()
	for _, c := range cases {
		if got := ts.eval(c.script, "0").String(); got != c.want {
			ts.t.Errorf("%s\n\tgot  %s\n\twant %s", c.script, got, c.want)
		}
	}
}

func sha(script string) string {
	sum := sha1.Sum([]byte(script))
	return hex.EncodeToString(sum[:])
}

// primaryVM is the Lua state that runs scripts holding the exclusive
// transaction, made now if no script has run yet.
func (s *Service) primaryVM() *vm { return s.acquire(nil) }
