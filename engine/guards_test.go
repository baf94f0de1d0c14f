package engine

import (
	"strings"
	"testing"
)

const (
	busyErr = "(error) BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE."
	oomErr  = "(error) OOM command not allowed when used memory > 'maxmemory'."
)

// TestBusyRefusal: while a script is past the busy threshold, commands
// without allow_busy are refused at once, inside MULTI too (the
// transaction is then doomed), and EXEC is aborted with the reason.
func TestBusyRefusal(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{{cmd("SET", "k", "v"), "OK"}, {cmd("MULTI"), "OK"}, {cmd("INCR", "n"), "QUEUED"}})
	te.SetScriptBusy(true)
	te.run([]step{
		{cmd("INCR", "n"), busyErr},
		{cmd("EXEC"), "(error) EXECABORT Transaction discarded because of: BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE."},
		{cmd("PING"), busyErr},
		{cmd("GET", "k"), busyErr},
		{cmd("CONFIG", "GET", "maxmemory"), busyErr},
		// allow_busy
		{cmd("MULTI"), "OK"},
		{cmd("GET", "k"), busyErr},
		{cmd("DISCARD"), "OK"},
		{cmd("UNWATCH"), "OK"},
		{cmd("AUTH", "x"), "(error) ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?"},
	})
	te.SetScriptBusy(false)
	te.run([]step{{cmd("GET", "k"), `"v"`}, {cmd("GET", "n"), "(nil)"}})
}

// TestWaitForScript: a command that needs the keyspace while a script
// runs waits for it to end (then runs) or to turn busy (then BUSY).
// Deterministic whichever comes first, the command or the change.
func TestWaitForScript(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(e *Engine)
		want   string
	}{
		{"script ends", func(e *Engine) { e.ScriptEnded() }, `"v"`},
		{"script turns busy", func(e *Engine) { e.SetScriptBusy(true) }, busyErr},
	} {
		t.Run(c.name, func(t *testing.T) {
			te := newTestEngine(t)
			te.run([]step{{cmd("SET", "k", "v"), "OK"}})
			te.ScriptStarted()
			other := NewSession("normal")
			other.Authenticated = true
			te.AddSession(other)
			got := make(chan string)
			go func() { got <- te.doAs(other, "GET", "k") }()
			// No-keyspace commands never wait.
			te.run([]step{{cmd("PING"), "PONG"}})
			c.change(te.Engine)
			if r := <-got; r != c.want {
				t.Errorf("GET: %s, want %s", r, c.want)
			}
		})
	}
}

// TestMemoryAccounting: used_memory follows the keyspace exactly, and a
// rolled-back or failed transaction changes nothing.
func TestMemoryAccounting(t *testing.T) {
	te := newTestEngine(t)
	base := te.UsedMemory()
	if base != engineBaseMemory {
		t.Fatalf("empty engine: %d", base)
	}
	steps := []struct {
		cmd  []string
		want func() int64 // expected dataset bytes after the command
	}{
		{cmd("SET", "a", "1"), nil},
		{cmd("SET", "a", strings.Repeat("x", 1000)), nil},
		{cmd("PEXPIRE", "a", "100000"), nil},
		{cmd("HSET", "h", "f", "v", "g", "w"), nil},
		{cmd("RENAME", "h", "h2"), nil},
		{cmd("DEL", "a"), nil},
		{cmd("FLUSHALL"), func() int64 { return 0 }},
	}
	for _, st := range steps {
		te.do(st.cmd...)
		var want int64
		if st.want != nil {
			want = st.want()
		} else {
			// A store opened on a snapshot counts its keys afresh.
			snap, err := te.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			fresh := openEngine(t, Config{Restore: snap})
			want = fresh.UsedMemory() - base
		}
		if got := te.UsedMemory() - base; got != want {
			t.Errorf("after %q: dataset %d, want %d", st.cmd, got, want)
		}
	}
	te.do("SET", "a", "1")
	before := te.UsedMemory()
	te.Do(true, 0, func(tx *Tx) {
		tx.Put([]byte("b"), Value{})
		tx.Rollback()
	})
	if got := te.UsedMemory(); got != before {
		t.Errorf("rolled back: %d, want %d", got, before)
	}
}

// TestMaxmemory: past maxmemory denyoom commands get OOM, everything but
// EXEC/DISCARD/QUIT/RESET inside MULTI too; reads and deletes run; a DEL
// frees room; CONFIG SET maxmemory applies at once.
func TestMaxmemory(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{{cmd("SET", "a", strings.Repeat("x", 500)), "OK"}})
	limit := te.UsedMemory() + 100
	te.guards.maxMemory.Store(limit)
	te.run([]step{
		{cmd("SET", "b", strings.Repeat("y", 200)), "OK"}, // under the limit when it starts
		{cmd("SET", "c", "1"), oomErr},
		{cmd("GET", "a"), `"` + strings.Repeat("x", 500) + `"`},
		{cmd("EXPIRE", "a", "100"), "(integer) 1"},
		{cmd("INCR", "n"), oomErr},
		{cmd("PING"), "PONG"},
		{cmd("MULTI"), "OK"},
		{cmd("GET", "a"), oomErr},
		{cmd("DISCARD"), "OK"},
		{cmd("DEL", "b"), "(integer) 1"},
		{cmd("SET", "c", "1"), "OK"},
		{cmd("CONFIG", "SET", "maxmemory", "1"), "OK"},
		{cmd("SET", "d", "1"), oomErr},
		{cmd("CONFIG", "SET", "maxmemory", "0"), "OK"},
		{cmd("SET", "d", "1"), "OK"},
	})
}
