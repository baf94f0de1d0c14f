package engine

import (
	"path/filepath"
	"strings"
	"testing"
)

// openUnloaded opens an engine on an append-only file holding keys and
// leaves it before Load: the state a server is in while a large file loads.
func openUnloaded(t *testing.T, keys int) (*testEngine, string) {
	t.Helper()
	dir := t.TempDir()
	cfg := Config{Params: map[string]string{"dir": dir, "appendonly": "yes", "restart-fence": "off"}}
	if keys > 0 {
		e, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		args := []string{"MSET"}
		for i := range keys {
			args = append(args, "k"+string(rune('a'+i%26))+strings.Repeat("x", i), "v")
		}
		te := wrapTestEngine(t, e)
		te.do(args...)
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
	}
	e, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return wrapTestEngine(t, e), filepath.Join(dir, "appendonly.aof")
}

// TestLoadingRefusesCommands: before Load has finished, commands Redis
// refuses while loading get its LOADING error; the ones flagged loading
// that need no keyspace run (INFO shows the progress). Load lets
// everything through.
func TestLoadingRefusesCommands(t *testing.T) {
	te, _ := openUnloaded(t, 3)
	loading := "(error) LOADING Redis is loading the dataset in memory"
	te.run([]step{
		{cmd("PING"), loading},
		{cmd("GET", "ka"), loading},
		{cmd("SET", "x", "1"), loading},
		{cmd("LOCK.ACQUIRE", "l", "me", "1000"), loading},
		{cmd("DBSIZE"), loading},
		// Flagged loading, but they need the keyspace that is not there
		// (Redis runs them).
		{cmd("WATCH", "ka"), loading},
		{cmd("ECHO", "hi"), `"hi"`},
		{cmd("SELECT", "1"), "OK"},
		{cmd("CONFIG", "GET", "appendonly"), `["appendonly" "yes"]`},
		{cmd("CLIENT", "SETNAME", "loader"), "OK"},
		{cmd("MULTI"), "OK"},
		{cmd("GET", "ka"), loading},
		// Redis runs EXEC of a doomed transaction (previous errors).
		{cmd("EXEC"), "(error) EXECABORT Transaction discarded because of: LOADING Redis is loading the dataset in memory"},
	})
	info := te.do("INFO", "persistence").String()
	for _, want := range []string{"loading:1", "loading_start_time:", "loading_total_bytes:", "loading_loaded_bytes:0", "loading_loaded_perc:0.00", "loading_eta_seconds:"} {
		if !strings.Contains(info, want) {
			t.Errorf("INFO persistence while loading lacks %q:\n%s", want, info)
		}
	}
	if te.Loaded() {
		t.Fatal("Loaded before Load")
	}
	if err := te.Load(); err != nil {
		t.Fatal(err)
	}
	te.run([]step{
		{cmd("SELECT", "0"), "OK"},
		{cmd("PING"), "PONG"},
		{cmd("DBSIZE"), "(integer) 3"},
	})
	info = te.do("INFO", "persistence").String()
	if !strings.Contains(info, "loading:0") || strings.Contains(info, "loading_total_bytes") {
		t.Errorf("INFO persistence after the load:\n%s", info)
	}
	if stats := te.do("INFO", "errorstats").String(); !strings.Contains(stats, "errorstat_LOADING:count=7") {
		t.Errorf("INFO errorstats does not count the LOADING replies:\n%s", stats)
	}
	if err := te.Load(); err == nil {
		t.Fatal("a second Load succeeded")
	}
}

// TestAfterLoad: hooks run at the end of Load, before commands that need
// the keyspace run; registered after it, at once.
func TestAfterLoad(t *testing.T) {
	te, _ := openUnloaded(t, 1)
	var order []string
	te.AfterLoad(func() {
		// At the end of Load: the keys are counted, commands still wait.
		if !te.Keyspace().IsLoading() || te.Keyspace().Keys(0) != 1 {
			t.Error("hook ran outside the end of Load")
		}
		order = append(order, "hook")
	})
	order = append(order, "registered")
	if err := te.Load(); err != nil {
		t.Fatal(err)
	}
	te.AfterLoad(func() { order = append(order, "late") })
	if got := strings.Join(order, " "); got != "registered hook late" {
		t.Fatalf("order %q", got)
	}
}
