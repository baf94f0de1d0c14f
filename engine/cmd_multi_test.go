package engine

import (
	"testing"
	"time"
)

// client is a test session that queues inside MULTI the way resp does.
type client struct {
	te *testEngine
	s  *Session
}

func (te *testEngine) newClient() *client {
	s := NewSession("normal")
	s.Authenticated = true
	te.AddSession(s)
	return &client{te, s}
}

func (cl *client) do(args ...string) string {
	bargs := make([][]byte, len(args))
	for i, a := range args {
		bargs[i] = []byte(a)
	}
	var rec Recorder
	cl.te.Dispatch(cl.s, nil, bargs, &rec)
	return rec.Last().String()
}

type clientStep struct {
	cl   *client
	args []string
	want string
}

func playClients(t *testing.T, steps []clientStep) {
	t.Helper()
	for i, st := range steps {
		if got := st.cl.do(st.args...); got != st.want {
			t.Errorf("step %d %q: got %s, want %s", i, st.args, got, st.want)
		}
	}
}

func TestMultiExec(t *testing.T) {
	te := newTestEngine(t)
	a, b := te.newClient(), te.newClient()
	playClients(t, []clientStep{
		{a, cmd("EXEC"), "(error) ERR EXEC without MULTI"},
		{a, cmd("DISCARD"), "(error) ERR DISCARD without MULTI"},
		{a, cmd("MULTI"), "OK"},
		{a, cmd("MULTI"), "(error) ERR MULTI calls can not be nested"},
		{a, cmd("SET", "k", "1"), "QUEUED"},
		{a, cmd("WATCH", "k"), "(error) ERR WATCH inside MULTI is not allowed"},
		{a, cmd("GET", "k"), "QUEUED"},
		{a, cmd("EXEC"), `[OK "1"]`},
		// a queuing error aborts the whole transaction
		{a, cmd("MULTI"), "OK"},
		{a, cmd("SET", "k", "2"), "QUEUED"},
		{a, cmd("NOSUCH"), "(error) ERR unknown command 'NOSUCH', with args beginning with: "},
		{a, cmd("EXEC"), "(error) EXECABORT Transaction discarded because of previous errors."},
		{a, cmd("GET", "k"), `"1"`},
		// a runtime error does not
		{a, cmd("MULTI"), "OK"},
		{a, cmd("SET", "k", "3"), "QUEUED"},
		{a, cmd("SET", "k", "3", "PX", "0"), "QUEUED"},
		{a, cmd("EXEC"), "[OK (error) ERR invalid expire time in 'set' command]"},
		// WATCH: another client's write breaks the transaction
		{a, cmd("WATCH", "k"), "OK"},
		{b, cmd("SET", "k", "b"), "OK"},
		{a, cmd("MULTI"), "OK"},
		{a, cmd("SET", "k", "a"), "QUEUED"},
		{a, cmd("EXEC"), "(nil)"},
		{a, cmd("GET", "k"), `"b"`},
		// EXEC unwatches: the next transaction runs
		{a, cmd("MULTI"), "OK"},
		{a, cmd("SET", "k", "a"), "QUEUED"},
		{a, cmd("EXEC"), "[OK]"},
		// a failed SET NX does not touch the key
		{a, cmd("WATCH", "k"), "OK"},
		{b, cmd("SET", "k", "x", "NX"), "(nil)"},
		{a, cmd("MULTI"), "OK"},
		{a, cmd("GET", "k"), "QUEUED"},
		{a, cmd("EXEC"), `["a"]`},
		// UNWATCH forgets
		{a, cmd("WATCH", "k"), "OK"},
		{b, cmd("SET", "k", "y"), "OK"},
		{a, cmd("UNWATCH"), "OK"},
		{a, cmd("MULTI"), "OK"},
		{a, cmd("GET", "k"), "QUEUED"},
		{a, cmd("EXEC"), `["y"]`},
		// DISCARD unwatches too
		{a, cmd("WATCH", "k"), "OK"},
		{a, cmd("MULTI"), "OK"},
		{a, cmd("DISCARD"), "OK"},
		{b, cmd("SET", "k", "z"), "OK"},
		{a, cmd("MULTI"), "OK"},
		{a, cmd("EXEC"), "[]"},
		// FLUSHALL breaks a watch on an existing key
		{a, cmd("WATCH", "k"), "OK"},
		{b, cmd("FLUSHALL"), "OK"},
		{a, cmd("MULTI"), "OK"},
		{a, cmd("EXEC"), "(nil)"},
	})
}

func TestWatchExpiry(t *testing.T) {
	te := newTestEngine(t)
	a := te.newClient()
	playClients(t, []clientStep{
		{a, cmd("SET", "lock", "t", "PX", "1000"), "OK"},
		{a, cmd("WATCH", "lock"), "OK"},
	})
	te.Clock.FastForward(2 * time.Second)
	// expired after WATCH: EXEC fails even though nobody wrote it
	playClients(t, []clientStep{
		{a, cmd("MULTI"), "OK"},
		{a, cmd("EXEC"), "(nil)"},
	})
}

// FLUSHALL and writes in one transaction keep DBSIZE right.
func TestFlushAllInsideExecCounts(t *testing.T) {
	te := newTestEngine(t)
	a := te.newClient()
	playClients(t, []clientStep{
		{a, cmd("SET", "old", "1"), "OK"},
		{a, cmd("MULTI"), "OK"},
		{a, cmd("FLUSHALL"), "QUEUED"},
		{a, cmd("SET", "k", "1"), "QUEUED"},
		{a, cmd("SET", "k", "2", "PX", "100000"), "QUEUED"},
		{a, cmd("DEL", "k"), "QUEUED"},
		{a, cmd("SET", "k", "3"), "QUEUED"},
		{a, cmd("EXEC"), "[OK OK OK (integer) 1 OK]"},
		{a, cmd("DBSIZE"), "(integer) 1"},
		{a, cmd("INFO", "keyspace"), "\"# Keyspace\\r\\ndb0:keys=1,expires=0,avg_ttl=0\\r\\n\""},
	})
}
