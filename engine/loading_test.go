package engine

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// openUnloaded opens an engine on an append-only file holding keys and
// leaves it before Load: the state a server is in while a large file loads.
func openUnloaded(t *testing.T, keys int) (*testEngine, string) {
	t.Helper()
	dir := t.TempDir()
	cfg := Config{Dir: dir, AppendOnly: true, RestartFence: "off"}
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

// TestLoadingStats: Loading reports the load as INFO does, with Redis's
// formulas: percentage of the bytes, ETA scaled from the time so far.
func TestLoadingStats(t *testing.T) {
	var e Engine
	l := &e.loading
	if li := e.Loading(); li.Loading {
		t.Fatalf("an engine never opened reports a load: %+v", li)
	}
	l.active.Store(true)
	l.start.Store(time.Now().Add(-10 * time.Second).UnixMilli())
	l.total.Store(1000)
	l.setStep(loadCheck)
	l.read.Store(900)
	if li := e.Loading(); li.LoadedBytes != 0 || li.Percent != 0 {
		t.Errorf("the check pass counts as loaded: %+v", li)
	}
	l.setStep(loadRead)
	l.read.Store(250)
	li := e.Loading()
	if li.LoadedBytes != 250 || li.Percent != 25 || li.TotalBytes != 1000 {
		t.Errorf("read step: %+v", li)
	}
	// Redis: eta = elapsed * remaining / (loaded + 1) = 10 * 750 / 251.
	if li.ETA != 29*time.Second {
		t.Errorf("ETA %v, want 29s", li.ETA)
	}
	l.setStep(loadIndex)
	if li := e.Loading(); li.LoadedBytes != 1000 || li.Percent != 100 {
		t.Errorf("index step: %+v", li)
	}
	var keys atomic.Int64
	keys.Store(42)
	line := l.progressLine("/x/appendonly.aof", loadIndex, time.Second, keys.Load)
	if line != "Loading the append only file /x/appendonly.aof: indexing the loaded keys, 42 so far" {
		t.Errorf("index line: %q", line)
	}
	l.setStep(loadRead)
	l.read.Store(500)
	line = l.progressLine(":memory:", loadRead, 2*time.Second, keys.Load)
	if line != "Loading the snapshot: 50.00% (500B of 1000B, 250B/s)" {
		t.Errorf("read line: %q", line)
	}
}

// TestDescriptorOffset: the load's progress is the offset of the
// descriptor reading the file, found by the file's identity.
func TestDescriptorOffset(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("descriptor offsets are read from /proc (Linux)")
	}
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, make([]byte, 10000), 0o644); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	var d descriptorFinder
	if _, ok := d.offset(fi); ok {
		t.Fatal("found a descriptor before the file was opened")
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, n := range []int{1234, 4000} {
		if _, err := f.Read(make([]byte, n)); err != nil {
			t.Fatal(err)
		}
	}
	if off, ok := d.offset(fi); !ok || off != 5234 {
		t.Fatalf("offset = %d, %v; want 5234", off, ok)
	}
}

// TestAfterLoad: hooks run at the end of Load, before commands that need
// the keyspace run; registered after it, at once.
func TestAfterLoad(t *testing.T) {
	te, _ := openUnloaded(t, 1)
	var order []string
	te.AfterLoad(func() {
		if !te.loading.active.Load() || te.db == nil {
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

// TestCloseBeforeLoadKeepsRunningMarker: an engine closed before its load
// finished (a failed start) must not write the clean-stop marker: a fence
// the last run's crash called for is still owed at the next start.
func TestCloseBeforeLoadKeepsRunningMarker(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, StateFileName)
	crashed := "marker running\nmax-ttl-ms 30000\ntokens-reserved 0\n"
	if err := os.WriteFile(state, []byte(crashed), 0o600); err != nil {
		t.Fatal(err)
	}
	e, err := Open(Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if e.RestartFenceRemaining() <= 0 {
		t.Fatal("no fence after a crash")
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := readState(state)
	if err != nil || st.marker != markerRunning {
		t.Fatalf("state after a start that did not load: %+v, %v", st, err)
	}
	e, err = New(Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if e.RestartFenceRemaining() <= 0 {
		t.Fatal("the fence was lost by a start that did not load")
	}
}
