package engine

import (
	"fmt"
	"testing"
	"time"
)

func TestDBSizeFlush(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("DBSIZE"), "(integer) 0"},
		{cmd("DBSIZE", "x"), "(error) ERR wrong number of arguments for 'dbsize' command"},
		{cmd("SET", "a", "1"), "OK"},
		{cmd("SET", "b", "2", "PX", "1000"), "OK"},
		{cmd("DBSIZE"), "(integer) 2"},
		{cmd("SELECT", "1"), "OK"},
		{cmd("SET", "c", "3"), "OK"},
		{cmd("DBSIZE"), "(integer) 1"},
		{cmd("FLUSHDB", "x"), "(error) ERR syntax error"},
		{cmd("FLUSHDB", "async", "sync"), "(error) ERR syntax error"},
		{cmd("FLUSHDB", "ASYNC"), "OK"},
		{cmd("DBSIZE"), "(integer) 0"},
		{cmd("SELECT", "0"), "OK"},
		{cmd("DBSIZE"), "(integer) 2"},
		{cmd("FLUSHDB", "sync"), "OK"},
		{cmd("DBSIZE"), "(integer) 0"},
		{cmd("SET", "a", "1"), "OK"},
		{cmd("SELECT", "5"), "OK"},
		{cmd("SET", "a", "1"), "OK"},
		{cmd("FLUSHALL", "x"), "(error) ERR syntax error"},
		{cmd("FLUSHALL", "sync", "sync"), "(error) ERR syntax error"},
		{cmd("FLUSHALL", "SYNC"), "OK"},
		{cmd("DBSIZE"), "(integer) 0"},
		{cmd("SELECT", "0"), "OK"},
		{cmd("DBSIZE"), "(integer) 0"},
		{cmd("SET", "a", "1"), "OK"},
		{cmd("FLUSHALL", "async"), "OK"},
		{cmd("FLUSHALL"), "OK"},
		{cmd("GET", "a"), "(nil)"},
	})
	// DBSIZE counts expired keys not yet removed, as Redis does.
	te.run([]step{{cmd("SET", "t", "1", "PX", "10"), "OK"}})
	te.Clock.FastForward(time.Second)
	te.run([]step{{cmd("DBSIZE"), "(integer) 1"}})
	te.Sweep(0)
	te.run([]step{{cmd("DBSIZE"), "(integer) 0"}})
}

func TestTime(t *testing.T) {
	te := newTestEngine(t)
	te.Clock.SetTime(time.Unix(1700000000, 123456789))
	te.run([]step{
		{cmd("TIME"), `["1700000000" "123456"]`},
		{cmd("TIME", "x"), "(error) ERR wrong number of arguments for 'time' command"},
	})
	te.Clock.FastForward(90 * time.Second)
	te.run([]step{{cmd("TIME"), `["1700000090" "123456"]`}})
	te.Clock.SetTime(time.Unix(1700000000, 5000))
	te.run([]step{{cmd("TIME"), `["1700000000" "5"]`}})
}

func TestWait(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("WAIT"), "(error) ERR wrong number of arguments for 'wait' command"},
		{cmd("WAIT", "0"), "(error) ERR wrong number of arguments for 'wait' command"},
		{cmd("WAIT", "0", "0"), "(integer) 0"},
		{cmd("WAIT", "1", "10"), "(integer) 0"},
		{cmd("WAIT", "-1", "0"), "(integer) 0"},
		{cmd("WAIT", "0", "9223372036854775807"), "(integer) 0"},
		{cmd("WAIT", "abc", "0"), "(error) ERR value is not an integer or out of range"},
		{cmd("WAIT", "abc", "abc"), "(error) ERR value is not an integer or out of range"},
		{cmd("WAIT", "9999999999999999999999", "0"), "(error) ERR value is not an integer or out of range"},
		{cmd("WAIT", "0", "abc"), "(error) ERR timeout is not an integer or out of range"},
		{cmd("WAIT", "0", "1.5"), "(error) ERR timeout is not an integer or out of range"},
		{cmd("WAIT", "0", "99999999999999999999"), "(error) ERR timeout is not an integer or out of range"},
		{cmd("WAIT", "0", "-1"), "(error) ERR timeout is negative"},
	})
}

func TestWaitAOF(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("WAITAOF", "0", "0"), "(error) ERR wrong number of arguments for 'waitaof' command"},
		{cmd("WAITAOF", "0", "0", "0"), "[(integer) 0 (integer) 0]"},
		{cmd("WAITAOF", "0", "3", "100"), "[(integer) 0 (integer) 0]"},
		{cmd("WAITAOF", "x", "0", "0"), "(error) ERR value is not an integer or out of range"},
		{cmd("WAITAOF", "2", "0", "0"), "(error) ERR value is out of range, value must between 0 and 1"},
		{cmd("WAITAOF", "-1", "0", "0"), "(error) ERR value is out of range, value must between 0 and 1"},
		{cmd("WAITAOF", "0", "x", "0"), "(error) ERR value is not an integer or out of range"},
		{cmd("WAITAOF", "0", "-1", "0"), "(error) ERR value is out of range, must be positive"},
		{cmd("WAITAOF", "0", "0", "x"), "(error) ERR timeout is not an integer or out of range"},
		{cmd("WAITAOF", "0", "0", "-1"), "(error) ERR timeout is negative"},
		{cmd("WAITAOF", "1", "0", "-5"), "(error) ERR timeout is negative"},
		{cmd("WAITAOF", "1", "0", "0"), "(error) ERR WAITAOF cannot be used when numlocal is set but appendonly is disabled."},
	})
	aof := newTestEngineConfig(t, Config{Params: map[string]string{"appendonly": "yes", "dir": t.TempDir()}})
	aof.run([]step{{cmd("WAITAOF", "1", "0", "0"), "[(integer) 0 (integer) 0]"}})
}

func TestSaveCommands(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("LASTSAVE"), fmt.Sprintf("(integer) %d", te.Started().Unix())},
		{cmd("LASTSAVE", "x"), "(error) ERR wrong number of arguments for 'lastsave' command"},
		{cmd("SAVE"), "OK"},
		{cmd("SAVE", "x"), "(error) ERR wrong number of arguments for 'save' command"},
		{cmd("BGSAVE"), "Background saving started"},
		{cmd("BGSAVE", "SCHEDULE"), "Background saving started"},
		{cmd("BGSAVE", "x"), "(error) ERR syntax error"},
		{cmd("BGSAVE", "schedule", "x"), "(error) ERR syntax error"},
	})
}

// TestCommandFlags checks the flags that decide where a command may run.
func TestCommandFlags(t *testing.T) {
	te := newTestEngine(t)
	for _, tc := range []struct {
		name      string
		has, lack Flags
	}{
		{"ping", FlagNoKeyspace | FlagSubscribedOK | FlagFast, FlagNoAuth | FlagNoScript},
		{"echo", FlagNoKeyspace | FlagFast, FlagNoAuth},
		{"select", FlagNoKeyspace | FlagFast, FlagNoAuth},
		{"quit", FlagNoKeyspace | FlagNoAuth | FlagNoScript | FlagSubscribedOK, 0},
		{"auth", FlagNoKeyspace | FlagNoAuth | FlagNoScript, FlagPubSub},
		{"hello", FlagNoKeyspace | FlagNoAuth | FlagNoScript, 0},
		{"reset", FlagNoKeyspace | FlagNoAuth | FlagNoScript | FlagSubscribedOK, 0},
		{"dbsize", FlagReadonly | FlagFast, FlagNoKeyspace | FlagWrite},
		{"flushdb", FlagWrite, FlagNoKeyspace},
		{"flushall", FlagWrite, FlagNoKeyspace},
		{"time", FlagNoKeyspace | FlagFast, 0},
		{"wait", FlagNoKeyspace | FlagNoScript, 0},
		{"waitaof", FlagNoKeyspace | FlagNoScript, 0},
		{"lastsave", FlagNoKeyspace, 0},
		{"save", FlagNoKeyspace | FlagAdmin | FlagNoScript | FlagNoMulti, 0},
		{"bgsave", FlagNoKeyspace | FlagAdmin | FlagNoScript, 0},
		{"info", FlagNoKeyspace, FlagNoScript},
		{"client", FlagNoKeyspace, 0},
		{"config", FlagNoKeyspace, 0},
		{"command", FlagNoKeyspace, 0},
	} {
		c := te.Table.Get([]byte(tc.name))
		if c == nil {
			t.Errorf("%s is not registered", tc.name)
			continue
		}
		if !c.Flags.Has(tc.has) || c.Flags&tc.lack != 0 {
			t.Errorf("%s flags %v", tc.name, c.Flags.Names())
		}
		for _, sc := range c.Subcommands {
			if !sc.Flags.Has(FlagNoKeyspace) {
				t.Errorf("%s touches the keyspace", sc.FullName)
			}
			// CLIENT and CONFIG subcommands other than HELP are noscript.
			noScript := tc.name != "command" && sc.Name != "help"
			if sc.Flags.Has(FlagNoScript) != noScript {
				t.Errorf("%s flags %v", sc.FullName, sc.Flags.Names())
			}
		}
	}
}
