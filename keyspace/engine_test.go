package keyspace_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/lockredis/lockredis/engine"
	"github.com/lockredis/lockredis/keyspace"
)

// Persistence and the restart fence as clients see them: through the
// engine's commands (export_test.go lends these tests the store's insides).

func TestPersistenceSurvivesRestartWithExactExpiry(t *testing.T) {
	for _, policy := range []string{keyspace.FsyncAlways, keyspace.FsyncEverySec, keyspace.FsyncNo} {
		t.Run(policy, func(t *testing.T) {
			dir := t.TempDir()
			start := time.Unix(1700000000, 0)
			cfg := engine.Config{Params: map[string]string{"dir": dir, "appendonly": "yes", "appendfsync": policy}, Clock: keyspace.NewManualClock(start)}
			te := openEngine(t, cfg)
			te.run([]step{
				{cmd("SET", "lock", "tok", "NX", "PX", "2000"), "OK"},
				{cmd("SET", "gone", "x", "PX", "500"), "OK"},
				{cmd("HSET", "h", "owner", "1"), "(integer) 1"},
				{cmd("SELECT", "3"), "OK"},
				{cmd("SET", "db3", "y"), "OK"},
			})
			te.Close()
			// Down for one second.
			cfg.Clock = keyspace.NewManualClock(start.Add(time.Second))
			te = openEngine(t, cfg)
			te.run([]step{
				{cmd("PTTL", "lock"), "(integer) 1000"},
				{cmd("GET", "lock"), `"tok"`},
				{cmd("EXISTS", "gone"), "(integer) 0"},
				{cmd("HGET", "h", "owner"), `"1"`},
				{cmd("SELECT", "3"), "OK"},
				{cmd("GET", "db3"), `"y"`},
			})
			if !te.Persistence().Enabled {
				t.Fatal("INFO says no AOF")
			}
		})
	}
}

// Many clients writing at once with appendfsync always all get their
// replies, after writes that are on disk; they share fsyncs.
func TestAlwaysGroupCommit(t *testing.T) {
	dir := t.TempDir()
	cfg := engine.Config{Params: map[string]string{"dir": dir, "appendonly": "yes", "appendfsync": keyspace.FsyncAlways}}
	te := openEngine(t, cfg)
	const clients, each = 20, 25
	var wg sync.WaitGroup
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := engine.NewSession("normal")
			for i := 0; i < each; i++ {
				var rec engine.Recorder
				args := [][]byte{[]byte("set"), fmt.Appendf(nil, "k%d-%d", c, i), []byte("v"), []byte("PX"), []byte("60000")}
				te.Dispatch(s, nil, args, &rec)
				if rec.Last().String() != "OK" {
					t.Errorf("reply %s", rec.Last())
				}
			}
		}()
	}
	wg.Wait()
	ks := te.Keyspace()
	if synced, gen := ks.SyncedGen(), ks.WriteGen(); synced < gen || gen < clients*each {
		t.Fatalf("synced generation %d, written %d", synced, gen)
	}
	t.Logf("%d writes, %d fsyncs", clients*each, ks.Fsyncs())
	// A write that changes nothing does not wait for an fsync.
	before := ks.WriteGen()
	te.run([]step{{cmd("SET", "k0-0", "w", "NX"), "(nil)"}, {cmd("GET", "k0-0"), `"v"`}})
	if ks.WriteGen() != before {
		t.Fatal("a write transaction that wrote nothing waited for an fsync")
	}
	te.Close()
	te = openEngine(t, cfg)
	te.run([]step{{cmd("DBSIZE"), fmt.Sprintf("(integer) %d", clients*each)}})
}

// With appendfsync always a failed fsync holds the reply back (the write
// is not known to be on disk) and is retried until one succeeds.
func TestAlwaysFsyncFailureHoldsTheReply(t *testing.T) {
	te := openEngine(t, engine.Config{Params: map[string]string{"dir": t.TempDir(), "appendonly": "yes", "appendfsync": keyspace.FsyncAlways}})
	ks := te.Keyspace()
	good := ks.FailFsyncs(t)
	replied := make(chan engine.Reply, 1)
	go func() { replied <- te.do("SET", "k", "v") }()
	ks.WaitFsyncError()
	select {
	case r := <-replied:
		t.Fatalf("replied %s before the write was on disk", r)
	default:
	}
	ks.RestoreFsyncs(good)
	if r := <-replied; r.String() != "OK" {
		t.Fatalf("reply %s", r)
	}
	if fsyncErr := ks.Persistence().LastFsyncErr; fsyncErr != "" {
		t.Fatalf("fsync error still reported after a good fsync: %s", fsyncErr)
	}
}

// Close does not hang when the sweeper is a writer held back by a failing
// fsync: Close waits for the sweeper.
func TestCloseReleasesTheSweeperOnAFailingDisk(t *testing.T) {
	te := openEngine(t, engine.Config{Params: map[string]string{"dir": t.TempDir(), "appendonly": "yes", "appendfsync": keyspace.FsyncAlways}})
	te.run([]step{{cmd("SET", "k", "v", "PX", "1"), "OK"}})
	ks := te.Keyspace()
	good := ks.FailFsyncs(t)
	defer good.Close()
	// Only the sweeper writes now (it deletes k): wait until its fsync
	// has failed.
	ks.WaitFsyncError()
	te.Close()
}

func TestBgrewriteaofCompacts(t *testing.T) {
	dir := t.TempDir()
	cfg := engine.Config{Params: map[string]string{"dir": dir, "appendonly": "yes", "appendfsync": keyspace.FsyncAlways}}
	te := openEngine(t, cfg)
	for i := 0; i < 200; i++ {
		te.do("SET", "k", fmt.Sprint(i))
	}
	before := te.Persistence().CurrentSize
	te.run([]step{
		{cmd("BGREWRITEAOF"), "Background append only file rewriting started"},
		{cmd("BGREWRITEAOF"), "(error) ERR Background append only file rewriting already in progress"},
	})
	te.run([]step{{cmd("SET", "during", "1"), "OK"}}) // waits for the new file's fsync
	for te.Persistence().RewriteInProgress {
		time.Sleep(20 * time.Millisecond)
	}
	pi := te.Persistence()
	if pi.CurrentSize >= before || pi.Rewrites != 1 || pi.BaseSize == 0 {
		t.Fatalf("after rewrite: %+v (before %d bytes)", pi, before)
	}
	te.run([]step{{cmd("SET", "after", "2"), "OK"}, {cmd("SAVE"), "OK"}})
	if te.Keyspace().Fsyncs() == 0 {
		t.Fatal("no fsync")
	}
	te.Close()
	te = openEngine(t, cfg)
	te.run([]step{
		{cmd("GET", "k"), `"199"`},
		{cmd("GET", "during"), `"1"`},
		{cmd("GET", "after"), `"2"`},
	})
}

func TestPersistenceCommandsInMemory(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("SAVE"), "OK"},
		{cmd("BGSAVE"), "Background saving started"},
		{cmd("BGSAVE", "x"), "(error) ERR syntax error"},
		{cmd("BGREWRITEAOF"), "Background append only file rewriting started"},
		{cmd("LASTSAVE"), fmt.Sprintf("(integer) %d", te.Started().Unix())},
	})
}

func TestBadFsyncPolicy(t *testing.T) {
	_, err := engine.New(engine.Config{Params: map[string]string{"dir": t.TempDir(), "appendonly": "yes", "appendfsync": "sometimes"}})
	if err == nil {
		t.Fatal("accepted appendfsync sometimes")
	}
}
func writeState(t *testing.T, dir, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, keyspace.StateFileName), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readStateFile(t *testing.T, dir string) keyspace.FenceState {
	t.Helper()
	st, err := keyspace.ReadState(filepath.Join(dir, keyspace.StateFileName))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// What the previous run left decides the fence of the next.
func TestFenceAtStart(t *testing.T) {
	boot := keyspace.BootID()
	for _, tc := range []struct {
		name  string
		state string        // "" = no state file
		cfg   engine.Config // Dir is filled in
		aof   bool          // the AOF path in the state is this run's
		want  time.Duration
	}{
		{name: "first start", want: 0},
		{name: "crash", state: "marker running\nmax-ttl-ms 10000\n", want: 10 * time.Second},
		{name: "crash, capped", state: "marker running\nmax-ttl-ms 900000\n", cfg: engine.Config{Params: map[string]string{"max-lock-ttl": (time.Minute).String()}}, want: time.Minute},
		{name: "crash, no TTL granted", state: "marker running\nmax-ttl-ms 0\n", want: 0},
		{name: "crash, off", state: "marker running\nmax-ttl-ms 10000\n", cfg: engine.Config{Params: map[string]string{"restart-fence": "off"}}, want: 0},
		{name: "crash, fixed", state: "marker running\nmax-ttl-ms 10000\n", cfg: engine.Config{Params: map[string]string{"restart-fence": "3s"}}, want: 3 * time.Second},
		{name: "unreadable", state: "what\n", cfg: engine.Config{Params: map[string]string{"max-lock-ttl": (7 * time.Second).String()}}, want: 7 * time.Second},
		{name: "clean", state: "marker clean\nmax-ttl-ms 10000\n", want: 0},
		{name: "clean, fixed", state: "marker clean\nmax-ttl-ms 10000\n", cfg: engine.Config{Params: map[string]string{"restart-fence": "3s"}}, want: 0},
		{name: "clean, AOF", state: "marker clean\nmax-ttl-ms 30000\n", cfg: engine.Config{Params: map[string]string{"appendonly": "yes"}}, aof: true, want: 0},
		{name: "clean during a fence", state: "marker clean\nmax-ttl-ms 10000\nfence-left-ms 4000\n", want: 4 * time.Second},
		{name: "clean during a fence, AOF", state: "marker clean\nmax-ttl-ms 10000\nfence-left-ms 4000\nappendfsync always\n",
			cfg: engine.Config{Params: map[string]string{"appendonly": "yes"}}, aof: true, want: 4 * time.Second},
		{name: "clean during a fence, capped", state: "marker clean\nmax-ttl-ms 10000\nfence-left-ms 4000\n", cfg: engine.Config{Params: map[string]string{"max-lock-ttl": (2 * time.Second).String()}}, want: 2 * time.Second},
		{name: "clean during a fence, off", state: "marker clean\nmax-ttl-ms 10000\nfence-left-ms 4000\n", cfg: engine.Config{Params: map[string]string{"restart-fence": "off"}}, want: 0},
		{name: "crash, AOF fsynced always", state: "marker running\nmax-ttl-ms 10000\nappendfsync always\n",
			cfg: engine.Config{Params: map[string]string{"appendonly": "yes"}}, aof: true, want: 0},
		{name: "crash, AOF everysec, another boot", state: "marker running\nmax-ttl-ms 10000\nappendfsync everysec\nboot-id other\n",
			cfg: engine.Config{Params: map[string]string{"appendonly": "yes"}}, aof: true, want: 10 * time.Second},
		{name: "crash, AOF of another run", state: "marker running\nmax-ttl-ms 10000\nappendfsync always\n",
			cfg: engine.Config{Params: map[string]string{"appendonly": "yes"}}, want: 10 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := tc.cfg
			params := map[string]string{"dir": dir}
			for k, v := range cfg.Params {
				params[k] = v
			}
			cfg.Params = params
			state := tc.state
			if tc.aof {
				state += "aof " + filepath.Join(dir, "appendonly.aof") + "\n"
			}
			if state != "" {
				writeState(t, dir, state)
			}
			te := openEngine(t, cfg)
			got := te.RestartFenceRemaining()
			if got > tc.want || got < tc.want-time.Second {
				t.Fatalf("fence %s, want %s", got, tc.want)
			}
			if st := readStateFile(t, dir); st.Marker != keyspace.MarkerRunning {
				t.Fatalf("marker %q while running", st.Marker)
			}
		})
	}
	if boot != "" {
		t.Run("crash, AOF everysec, same boot", func(t *testing.T) {
			dir := t.TempDir()
			writeState(t, dir, "marker running\nmax-ttl-ms 10000\nappendfsync everysec\nboot-id "+boot+
				"\naof "+filepath.Join(dir, "appendonly.aof")+"\n")
			te := openEngine(t, engine.Config{Params: map[string]string{"dir": dir, "appendonly": "yes"}})
			if got := te.RestartFenceRemaining(); got != 0 {
				t.Fatalf("fence %s", got)
			}
		})
	}
}

// While fenced, only commands that would create a key are refused; the
// holder of an existing lock can still read, renew and release it.
func TestFenceRefusesNewKeysOnly(t *testing.T) {
	dir := t.TempDir()
	te := openEngine(t, engine.Config{Params: map[string]string{"dir": dir, "appendonly": "yes"}})
	te.run([]step{
		{cmd("SET", "lock", "tok", "NX", "PX", "10000"), "OK"},
		{cmd("HSET", "rlock", "owner", "1"), "(integer) 1"},
	})
	te.Close()
	// The run died: a previous marker, and a state that does not vouch
	// for the AOF.
	writeState(t, dir, "marker running\nmax-ttl-ms 10000\n")
	te = openEngine(t, engine.Config{Params: map[string]string{"dir": dir, "appendonly": "yes"}})
	refused := "(error) TRYAGAIN restart fence: new keys refused for another 10 s"
	te.run([]step{
		{cmd("SET", "other", "x", "NX", "PX", "10000"), refused},
		{cmd("SETNX", "other", "x"), refused},
		{cmd("INCR", "counter"), refused},
		{cmd("HINCRBY", "other", "f", "1"), refused},
		{cmd("MSET", "lock", "a", "other", "b"), refused},
		{cmd("GET", "lock"), `"tok"`},
		{cmd("SET", "lock", "tok", "NX", "PX", "10000"), "(nil)"},
		{cmd("SET", "lock", "tok", "XX", "PX", "10000"), "OK"},
		{cmd("PEXPIRE", "lock", "20000"), "(integer) 1"},
		{cmd("HINCRBY", "rlock", "owner", "1"), "(integer) 2"},
		{cmd("EXISTS", "other"), "(integer) 0"},
		{cmd("DEL", "lock"), "(integer) 1"},
		{cmd("SET", "lock", "tok2", "NX", "PX", "10000"), refused},
	})
	info := te.do("INFO", "persistence").Str
	if !strings.Contains(info, "restart_fence_remaining_sec:10\r\n") {
		t.Fatalf("INFO persistence:\n%s", info)
	}
	// The fence is over when its time is: simulate it.
	te.Keyspace().EndRestartFence()
	te.run([]step{{cmd("SET", "other", "x", "NX"), "OK"}})
	if te.RestartFenceRemaining() != 0 {
		t.Fatal("fence still reported")
	}
}

func TestFenceRecordsLargestTTL(t *testing.T) {
	dir := t.TempDir()
	te := openEngine(t, engine.Config{Params: map[string]string{"dir": dir, "max-lock-ttl": (time.Minute).String()}})
	steps := []struct {
		args []string
		want int64
	}{
		{cmd("SET", "a", "1"), 0},
		{cmd("SET", "a", "1", "PX", "1500"), 2000},
		{cmd("SET", "b", "1", "PX", "1000"), 2000},
		{cmd("PEXPIRE", "b", "30000"), 30000},
		{cmd("SET", "c", "1", "EX", "86400"), 60000},
	}
	for _, st := range steps {
		te.do(st.args...)
		if got := readStateFile(t, dir).MaxTTLms; got != st.want {
			t.Fatalf("after %q: max-ttl-ms %d, want %d", st.args, got, st.want)
		}
	}
	te.Close()
	if st := readStateFile(t, dir); st.Marker != keyspace.MarkerClean || st.MaxTTLms != 60000 {
		t.Fatalf("after Close: %+v", st)
	}
}

// An embedded server without a directory has no fence unless given a
// duration, which then applies at every start.
func TestFenceWithoutDir(t *testing.T) {
	if d := newTestEngine(t).RestartFenceRemaining(); d != 0 {
		t.Fatalf("fence %s by default", d)
	}
	te := openEngine(t, engine.Config{Params: map[string]string{"restart-fence": "5s"}})
	if d := te.RestartFenceRemaining(); d <= 4*time.Second {
		t.Fatalf("fence %s", d)
	}
	te.run([]step{{cmd("SET", "k", "v"), "(error) TRYAGAIN restart fence: new keys refused for another 5 s"}})
}

// Two servers on one directory: the second gets no fence state (without
// AOF) or is refused (with one).
func TestFenceDirInUse(t *testing.T) {
	dir := t.TempDir()
	openEngine(t, engine.Config{Params: map[string]string{"dir": dir, "appendonly": "yes"}})
	if _, err := engine.New(engine.Config{Params: map[string]string{"dir": dir, "appendonly": "yes"}}); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("second AOF server on one dir: %v", err)
	}
	te := openEngine(t, engine.Config{Params: map[string]string{"dir": dir}})
	te.run([]step{{cmd("SET", "k", "v", "PX", "100000"), "OK"}})
	if st := readStateFile(t, dir); st.MaxTTLms != 0 {
		t.Fatalf("the second server wrote the first one's state: %+v", st)
	}
}

// A clean stop during the fence (a restart right after a crash, for an
// upgrade) writes what is left of it, and the next start goes on with it:
// the locks it guards may still be held.
func TestFenceSurvivesCleanStop(t *testing.T) {
	dir := t.TempDir()
	writeState(t, dir, "marker running\nmax-ttl-ms 30000\n")
	e, err := engine.New(engine.Config{Params: map[string]string{"dir": dir}})
	if err != nil {
		t.Fatal(err)
	}
	if e.RestartFenceRemaining() <= 20*time.Second {
		t.Fatalf("fence %s after a crash", e.RestartFenceRemaining())
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if st := readStateFile(t, dir); st.Marker != keyspace.MarkerClean || st.FenceLeftMs <= 20000 || st.FenceLeftMs > 30001 {
		t.Fatalf("state after a clean stop during the fence: %+v", st)
	}
	e, err = engine.New(engine.Config{Params: map[string]string{"dir": dir}})
	if err != nil {
		t.Fatal(err)
	}
	if left := e.RestartFenceRemaining(); left <= 20*time.Second || left > 30*time.Second {
		t.Fatalf("fence %s after the clean restart", left)
	}
	// Once the fence is over, a clean stop leaves none.
	e.Keyspace().EndRestartFence()
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if st := readStateFile(t, dir); st.Marker != keyspace.MarkerClean || st.FenceLeftMs != 0 {
		t.Fatalf("state after a clean stop past the fence: %+v", st)
	}
}

// TestCloseBeforeLoadKeepsRunningMarker: an engine closed before its load
// finished (a failed start) must not write the clean-stop marker: a fence
// the last run's crash called for is still owed at the next start.
func TestCloseBeforeLoadKeepsRunningMarker(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, keyspace.StateFileName)
	crashed := "marker running\nmax-ttl-ms 30000\ntokens-reserved 0\n"
	if err := os.WriteFile(state, []byte(crashed), 0o600); err != nil {
		t.Fatal(err)
	}
	e, err := engine.Open(engine.Config{Params: map[string]string{"dir": dir}})
	if err != nil {
		t.Fatal(err)
	}
	if e.RestartFenceRemaining() <= 0 {
		t.Fatal("no fence after a crash")
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := keyspace.ReadState(state)
	if err != nil || st.Marker != keyspace.MarkerRunning {
		t.Fatalf("state after a start that did not load: %+v, %v", st, err)
	}
	e, err = engine.New(engine.Config{Params: map[string]string{"dir": dir}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if e.RestartFenceRemaining() <= 0 {
		t.Fatal("the fence was lost by a start that did not load")
	}
}

// TestMisconf: a failing fsync refuses writes and PING with Redis's
// MISCONF text, reads keep working, INFO says why, and the probe lifts
// it once the disk works again.
func TestMisconf(t *testing.T) {
	te := openEngine(t, engine.Config{Params: map[string]string{"dir": t.TempDir(), "appendonly": "yes", "appendfsync": keyspace.FsyncEverySec}})
	te.run([]step{{cmd("SET", "k", "v"), "OK"}})
	ks := te.Keyspace()
	good := ks.FailFsyncs(t)
	misconf := "(error) MISCONF Errors writing to the AOF file: sync " + good.Name() + ": file already closed"
	if got := te.do("SAVE").String(); !strings.HasPrefix(got, "(error)") {
		t.Fatalf("SAVE with a failing fsync: %s", got)
	}
	te.run([]step{
		{cmd("SET", "k", "w"), misconf},
		{cmd("DEL", "k"), misconf},
		{cmd("PING"), misconf},
		{cmd("GET", "k"), `"v"`},
		{cmd("EXISTS", "k"), "(integer) 1"},
	})
	info := te.do("INFO", "persistence").Str
	for _, want := range []string{"aof_last_write_status:err", "aof_misconf:" + strings.TrimPrefix(misconf, "(error) ")} {
		if !strings.Contains(info, want+"\r\n") {
			t.Errorf("INFO persistence lacks %q:\n%s", want, info)
		}
	}
	ks.RestoreFsyncs(good)
	ks.Probe()
	te.run([]step{{cmd("SET", "k", "w"), "OK"}, {cmd("PING"), "PONG"}})
}

// TestStrerror: Go's errno texts in C's spelling.
func TestStrerror(t *testing.T) {
	for _, c := range []struct {
		errno int
		want  string
	}{{28, "No space left on device"}, {27, "File too large"}, {5, "Input/output error"}, {30, "Read-only file system"}} {
		if got := keyspace.Strerror(errnoError(c.errno)); got != c.want {
			t.Errorf("errno %d: %q, want %q", c.errno, got, c.want)
		}
	}
}

func errnoError(n int) error { return &os.PathError{Op: "write", Path: "f", Err: syscall.Errno(n)} }
