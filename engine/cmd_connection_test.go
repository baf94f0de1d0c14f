package engine

import (
	"fmt"
	"testing"
	"time"
)

// newTestEngineConfig is newTestEngine with a configuration of its own
// (password, params, databases); the clock is always manual.
func newTestEngineConfig(t *testing.T, cfg Config) *testEngine {
	t.Helper()
	cfg.Clock = NewManualClock(time.Unix(1700000000, 0))
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	s := NewSession("normal")
	s.Authenticated = true
	e.AddSession(s)
	return &testEngine{t: t, Engine: e, s: s}
}

// testConn is a fresh connection that applies what resp checks before a
// command runs: lookup and arity, then authentication.
type testConn struct {
	te *testEngine
	s  *Session
}

func (te *testEngine) connect() *testConn {
	s := NewSession("normal")
	te.AddSession(s)
	return &testConn{te, s}
}

func (tc *testConn) do(args ...string) string {
	bargs := make([][]byte, len(args))
	for i, a := range args {
		bargs[i] = []byte(a)
	}
	var rec Recorder
	tc.te.Dispatch(tc.s, nil, bargs, &rec)
	if len(rec.Replies) != 1 {
		tc.te.t.Fatalf("%q wrote %d replies, want 1", args, len(rec.Replies))
	}
	return rec.Replies[0].String()
}

// run plays steps on the connection.
func (tc *testConn) run(steps []step) {
	tc.te.t.Helper()
	for _, st := range steps {
		if got := tc.do(st.args...); got != st.want {
			tc.te.t.Errorf("%q: got %s, want %s", st.args, got, st.want)
		}
	}
}

// helloReply is HELLO's answer for a session.
func helloReply(id int64, proto int) string {
	return fmt.Sprintf(`["server" "redis" "version" %q "proto" (integer) %d "id" (integer) %d "mode" "standalone" "role" "master" "modules" []]`,
		Version, proto, id)
}

func TestPingEchoSelect(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("PING"), "PONG"},
		{cmd("ping", "hello"), `"hello"`},
		{cmd("PING", ""), `""`},
		{cmd("PING", "a", "b"), "(error) ERR wrong number of arguments for 'ping' command"},
		{cmd("ECHO"), "(error) ERR wrong number of arguments for 'echo' command"},
		{cmd("ECHO", "a", "b"), "(error) ERR wrong number of arguments for 'echo' command"},
		{cmd("ECHO", "x\r\ny"), `"x\r\ny"`},
		{cmd("SELECT"), "(error) ERR wrong number of arguments for 'select' command"},
		{cmd("SELECT", "16"), "(error) ERR DB index is out of range"},
		{cmd("SELECT", "-1"), "(error) ERR DB index is out of range"},
		{cmd("SELECT", "2147483647"), "(error) ERR DB index is out of range"},
		{cmd("SELECT", "-2147483648"), "(error) ERR DB index is out of range"},
		{cmd("SELECT", "abc"), "(error) ERR value is not an integer or out of range"},
		{cmd("SELECT", "1.5"), "(error) ERR value is not an integer or out of range"},
		{cmd("SELECT", "+1"), "(error) ERR value is not an integer or out of range"},
		{cmd("SELECT", "01"), "(error) ERR value is not an integer or out of range"},
		{cmd("SELECT", "9999999999999999999999"), "(error) ERR value is not an integer or out of range"},
		{cmd("SELECT", "2147483648"), "(error) ERR value is out of range, value must between -2147483648 and 2147483647"},
		{cmd("SELECT", "-2147483649"), "(error) ERR value is out of range, value must between -2147483648 and 2147483647"},
		{cmd("SELECT", "15"), "OK"},
		{cmd("SET", "k", "v"), "OK"},
		{cmd("SELECT", "0"), "OK"},
		{cmd("GET", "k"), "(nil)"},
	})
}

func TestPingSubscribed(t *testing.T) {
	te := newTestEngine(t)
	te.s.Sub.Store(1)
	te.run([]step{
		{cmd("PING"), `["pong" ""]`},
		{cmd("PING", "hi"), `["pong" "hi"]`},
	})
	te.s.Sub.Store(0)
	te.s.PSub.Store(2)
	te.run([]step{{cmd("PING"), `["pong" ""]`}})
	// RESP3 subscribers get the plain reply.
	te.s.SetProto(3)
	te.run([]step{{cmd("PING"), "PONG"}})
	if !te.Table.Get([]byte("ping")).Flags.Has(FlagSubscribedOK) {
		t.Error("PING must be allowed while subscribed")
	}
}

func TestQuit(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{{cmd("QUIT"), "OK"}})
	if !te.s.CloseAfterReply {
		t.Error("QUIT must close the connection after its reply")
	}
}

func TestAuthWithoutPassword(t *testing.T) {
	te := newTestEngine(t)
	c := te.connect()
	c.run([]step{
		{cmd("PING"), "PONG"}, // no password: no authentication needed
		{cmd("AUTH"), "(error) ERR wrong number of arguments for 'auth' command"},
		{cmd("AUTH", "x"), "(error) ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?"},
		{cmd("AUTH", "default", "anything"), "OK"},
		{cmd("AUTH", "DEFAULT", "x"), "(error) WRONGPASS invalid username-password pair or user is disabled."},
		{cmd("AUTH", "bob", "x"), "(error) WRONGPASS invalid username-password pair or user is disabled."},
		{cmd("AUTH", "a", "b", "c"), "(error) ERR syntax error"},
	})
}

func TestAuthWithPassword(t *testing.T) {
	te := newTestEngineConfig(t, Config{Params: map[string]string{"requirepass": "sekret"}})
	c := te.connect()
	c.run([]step{
		{cmd("PING"), "(error) NOAUTH Authentication required."},
		{cmd("CLIENT", "GETNAME"), "(error) NOAUTH Authentication required."},
		{cmd("AUTH", "wrong"), "(error) WRONGPASS invalid username-password pair or user is disabled."},
		{cmd("AUTH", "default", "wrong"), "(error) WRONGPASS invalid username-password pair or user is disabled."},
		{cmd("AUTH", "bob", "sekret"), "(error) WRONGPASS invalid username-password pair or user is disabled."},
		{cmd("AUTH", "sekre"), "(error) WRONGPASS invalid username-password pair or user is disabled."},
		{cmd("AUTH", "sekret2"), "(error) WRONGPASS invalid username-password pair or user is disabled."},
		{cmd("AUTH", "a", "b", "c"), "(error) ERR syntax error"},
		{cmd("PING"), "(error) NOAUTH Authentication required."},
		{cmd("AUTH", "sekret"), "OK"},
		{cmd("PING"), "PONG"},
		// A failed AUTH does not log an authenticated client out.
		{cmd("AUTH", "wrong"), "(error) WRONGPASS invalid username-password pair or user is disabled."},
		{cmd("PING"), "PONG"},
		{cmd("AUTH", "default", "sekret"), "OK"},
	})
	c2 := te.connect()
	c2.run([]step{
		{cmd("AUTH", "default", "sekret"), "OK"},
		{cmd("PING"), "PONG"},
	})
	if !te.Table.Get([]byte("auth")).Flags.Has(FlagNoAuth) {
		t.Error("AUTH must run before authentication")
	}
}

func TestHello(t *testing.T) {
	te := newTestEngine(t)
	c := te.connect()
	id := c.s.ID
	c.run([]step{
		{cmd("HELLO"), helloReply(id, 2)},
		{cmd("HELLO", "2"), helloReply(id, 2)},
		{cmd("hello", "2", "auth", "default", "x"), helloReply(id, 2)},
		// HELLO 3 switches to RESP3 and says so; HELLO without a version
		// reports the current one.
		{cmd("HELLO", "3"), helloReply(id, 3)},
		{cmd("HELLO"), helloReply(id, 3)},
		{cmd("HELLO", "2"), helloReply(id, 2)},
		{cmd("HELLO", "1"), "(error) NOPROTO unsupported protocol version"},
		{cmd("HELLO", "4"), "(error) NOPROTO unsupported protocol version"},
		{cmd("HELLO", "-1"), "(error) NOPROTO unsupported protocol version"},
		{cmd("HELLO", "abc"), "(error) ERR Protocol version is not an integer or out of range"},
		{cmd("HELLO", "02"), "(error) ERR Protocol version is not an integer or out of range"},
		{cmd("HELLO", "AUTH", "default", "x"), "(error) ERR Protocol version is not an integer or out of range"},
		{cmd("HELLO", "2", "AUTH"), "(error) ERR Syntax error in HELLO option 'AUTH'"},
		{cmd("HELLO", "2", "AUTH", "default"), "(error) ERR Syntax error in HELLO option 'AUTH'"},
		{cmd("HELLO", "2", "SETNAME"), "(error) ERR Syntax error in HELLO option 'SETNAME'"},
		{cmd("HELLO", "2", "FOO"), "(error) ERR Syntax error in HELLO option 'FOO'"},
		{cmd("HELLO", "2", "SETNAME", "a b"), "(error) ERR Client names cannot contain spaces, newlines or special characters."},
		{cmd("HELLO", "2", "AUTH", "bob", "x"), "(error) WRONGPASS invalid username-password pair or user is disabled."},
		{cmd("HELLO", "2", "SETNAME", "foo"), helloReply(id, 2)},
		{cmd("CLIENT", "GETNAME"), `"foo"`},
	})
	if c.s.Proto != 2 {
		t.Errorf("after HELLO 2: proto %d", c.s.Proto)
	}
	c.run([]step{{cmd("HELLO", "3", "SETNAME", "bar"), helloReply(id, 3)}})
	if c.s.Proto != 3 {
		t.Errorf("after HELLO 3: proto %d", c.s.Proto)
	}
	// A failing HELLO 2 leaves the protocol as it was.
	c.run([]step{{cmd("HELLO", "2", "AUTH", "bob", "x"), "(error) WRONGPASS invalid username-password pair or user is disabled."}})
	if c.s.Proto != 3 {
		t.Errorf("after a failed HELLO 2: proto %d", c.s.Proto)
	}
}

func TestHelloWithPassword(t *testing.T) {
	te := newTestEngineConfig(t, Config{Params: map[string]string{"requirepass": "sekret"}})
	const noAuth = "(error) NOAUTH HELLO must be called with the client already authenticated, otherwise the " +
		"HELLO AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol " +
		"version at the same time"
	c := te.connect()
	c.run([]step{
		{cmd("HELLO"), noAuth},
		{cmd("HELLO", "2"), noAuth},
		{cmd("HELLO", "abc"), "(error) ERR Protocol version is not an integer or out of range"},
		{cmd("HELLO", "3"), noAuth},
		{cmd("HELLO", "4"), "(error) NOPROTO unsupported protocol version"},
		{cmd("HELLO", "2", "FOO"), "(error) ERR Syntax error in HELLO option 'FOO'"},
		{cmd("HELLO", "2", "AUTH", "default", "wrong"), "(error) WRONGPASS invalid username-password pair or user is disabled."},
		{cmd("HELLO", "2", "AUTH", "bob", "sekret"), "(error) WRONGPASS invalid username-password pair or user is disabled."},
		// Options apply in order: the name is set before NOAUTH.
		{cmd("HELLO", "2", "SETNAME", "early"), noAuth},
		{cmd("PING"), "(error) NOAUTH Authentication required."},
		{cmd("HELLO", "2", "AUTH", "default", "sekret", "SETNAME", "nm"), helloReply(c.s.ID, 2)},
		{cmd("CLIENT", "GETNAME"), `"nm"`},
		{cmd("PING"), "PONG"},
	})
	c2 := te.connect()
	c2.run([]step{
		{cmd("HELLO", "2", "SETNAME", "early"), noAuth},
		{cmd("AUTH", "sekret"), "OK"},
		{cmd("CLIENT", "GETNAME"), `"early"`},
	})
	c3 := te.connect()
	c3.run([]step{
		// An invalid name after a good AUTH: authenticated, no name.
		{cmd("HELLO", "2", "AUTH", "default", "sekret", "SETNAME", "a b"), "(error) ERR Client names cannot contain spaces, newlines or special characters."},
		{cmd("PING"), "PONG"},
		{cmd("CLIENT", "GETNAME"), "(nil)"},
		{cmd("HELLO", "2", "SETNAME", "ok", "AUTH", "default", "bad"), "(error) WRONGPASS invalid username-password pair or user is disabled."},
		{cmd("CLIENT", "GETNAME"), `"ok"`},
	})
	for _, name := range []string{"hello", "auth", "quit", "reset"} {
		if !te.Table.Get([]byte(name)).Flags.Has(FlagNoAuth) {
			t.Errorf("%s must run before authentication", name)
		}
	}
}

func TestReset(t *testing.T) {
	te := newTestEngineConfig(t, Config{Params: map[string]string{"requirepass": "sekret"}})
	c := te.connect()
	resets := 0
	c.s.OnReset = func() { resets++ }
	c.run([]step{
		{cmd("RESET", "x"), "(error) ERR wrong number of arguments for 'reset' command"},
		{cmd("AUTH", "sekret"), "OK"},
		{cmd("SELECT", "3"), "OK"},
		{cmd("CLIENT", "SETNAME", "nm"), "OK"},
		{cmd("MULTI"), "OK"},
		{cmd("RESET"), "RESET"},
		{cmd("PING"), "(error) NOAUTH Authentication required."},
		{cmd("AUTH", "sekret"), "OK"},
		{cmd("CLIENT", "GETNAME"), "(nil)"},
		{cmd("EXEC"), "(error) ERR EXEC without MULTI"},
	})
	if resets != 1 {
		t.Errorf("OnReset ran %d times, want 1", resets)
	}
	if c.s.DB != 0 || c.s.Proto != 2 {
		t.Errorf("after RESET: db %d proto %d, want 0 and 2", c.s.DB, c.s.Proto)
	}

	// Without a password a reset client stays authenticated.
	te2 := newTestEngine(t)
	c2 := te2.connect()
	c2.s.SetProto(3)
	c2.run([]step{
		{cmd("RESET"), "RESET"},
		{cmd("PING"), "PONG"},
	})
	if c2.s.Proto != 2 {
		t.Errorf("RESET left proto %d", c2.s.Proto)
	}
}

func TestCheckPassword(t *testing.T) {
	te := newTestEngineConfig(t, Config{Params: map[string]string{"requirepass": "pw"}})
	for _, tc := range []struct {
		user, pass string
		ok         bool
	}{
		{"default", "pw", true},
		{"default", "pW", false},
		{"default", "", false},
		{"default", "pw ", false},
		{"Default", "pw", false},
		{"", "pw", false},
	} {
		if got := te.acl.checkUserCredentials([]byte(tc.user), []byte(tc.pass)) != nil; got != tc.ok {
			t.Errorf("checkUserCredentials(%q, %q) = %v, want %v", tc.user, tc.pass, got, tc.ok)
		}
	}
}
