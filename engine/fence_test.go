package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseRestartFence(t *testing.T) {
	for _, tc := range []struct {
		in    string
		mode  string
		fixed time.Duration
		bad   bool
	}{
		{"", "auto", 0, false},
		{"auto", "auto", 0, false},
		{"AUTO", "auto", 0, false},
		{"off", "off", 0, false},
		{"0", "off", 0, false},
		{"0s", "off", 0, false},
		{"30s", "fixed", 30 * time.Second, false},
		{"1m30s", "fixed", 90 * time.Second, false},
		{"-1s", "", 0, true},
		{"soon", "", 0, true},
	} {
		mode, fixed, err := parseRestartFence(tc.in)
		if mode != tc.mode || fixed != tc.fixed || (err != nil) != tc.bad {
			t.Errorf("%q: got (%q, %s, %v)", tc.in, mode, fixed, err)
		}
	}
}

func writeState(t *testing.T, dir, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, StateFileName), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readStateFile(t *testing.T, dir string) fenceState {
	t.Helper()
	st, err := readState(filepath.Join(dir, StateFileName))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// What the previous run left decides the fence of the next.
func TestFenceAtStart(t *testing.T) {
	boot := bootID()
	for _, tc := range []struct {
		name  string
		state string // "" = no state file
		cfg   Config // Dir is filled in
		aof   bool   // the AOF path in the state is this run's
		want  time.Duration
	}{
		{name: "first start", want: 0},
		{name: "crash", state: "marker running\nmax-ttl-ms 10000\n", want: 10 * time.Second},
		{name: "crash, capped", state: "marker running\nmax-ttl-ms 900000\n", cfg: Config{MaxLockTTL: time.Minute}, want: time.Minute},
		{name: "crash, no TTL granted", state: "marker running\nmax-ttl-ms 0\n", want: 0},
		{name: "crash, off", state: "marker running\nmax-ttl-ms 10000\n", cfg: Config{RestartFence: "off"}, want: 0},
		{name: "crash, fixed", state: "marker running\nmax-ttl-ms 10000\n", cfg: Config{RestartFence: "3s"}, want: 3 * time.Second},
		{name: "unreadable", state: "what\n", cfg: Config{MaxLockTTL: 7 * time.Second}, want: 7 * time.Second},
		{name: "clean", state: "marker clean\nmax-ttl-ms 10000\n", want: 0},
		{name: "clean, fixed", state: "marker clean\nmax-ttl-ms 10000\n", cfg: Config{RestartFence: "3s"}, want: 0},
		{name: "clean, AOF", state: "marker clean\nmax-ttl-ms 30000\n", cfg: Config{AppendOnly: true}, aof: true, want: 0},
		{name: "clean during a fence", state: "marker clean\nmax-ttl-ms 10000\nfence-left-ms 4000\n", want: 4 * time.Second},
		{name: "clean during a fence, AOF", state: "marker clean\nmax-ttl-ms 10000\nfence-left-ms 4000\nappendfsync always\n",
			cfg: Config{AppendOnly: true}, aof: true, want: 4 * time.Second},
		{name: "clean during a fence, capped", state: "marker clean\nmax-ttl-ms 10000\nfence-left-ms 4000\n", cfg: Config{MaxLockTTL: 2 * time.Second}, want: 2 * time.Second},
		{name: "clean during a fence, off", state: "marker clean\nmax-ttl-ms 10000\nfence-left-ms 4000\n", cfg: Config{RestartFence: "off"}, want: 0},
		{name: "crash, AOF fsynced always", state: "marker running\nmax-ttl-ms 10000\nappendfsync always\n",
			cfg: Config{AppendOnly: true}, aof: true, want: 0},
		{name: "crash, AOF everysec, another boot", state: "marker running\nmax-ttl-ms 10000\nappendfsync everysec\nboot-id other\n",
			cfg: Config{AppendOnly: true}, aof: true, want: 10 * time.Second},
		{name: "crash, AOF of another run", state: "marker running\nmax-ttl-ms 10000\nappendfsync always\n",
			cfg: Config{AppendOnly: true}, want: 10 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := tc.cfg
			cfg.Dir = dir
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
			if st := readStateFile(t, dir); st.marker != markerRunning {
				t.Fatalf("marker %q while running", st.marker)
			}
		})
	}
	if boot != "" {
		t.Run("crash, AOF everysec, same boot", func(t *testing.T) {
			dir := t.TempDir()
			writeState(t, dir, "marker running\nmax-ttl-ms 10000\nappendfsync everysec\nboot-id "+boot+
				"\naof "+filepath.Join(dir, "appendonly.aof")+"\n")
			te := openEngine(t, Config{Dir: dir, AppendOnly: true})
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
	te := openEngine(t, Config{Dir: dir, AppendOnly: true})
	te.run([]step{
		{cmd("SET", "lock", "tok", "NX", "PX", "10000"), "OK"},
		{cmd("HSET", "rlock", "owner", "1"), "(integer) 1"},
	})
	te.Close()
	// The run died: a previous marker, and a state that does not vouch
	// for the AOF.
	writeState(t, dir, "marker running\nmax-ttl-ms 10000\n")
	te = openEngine(t, Config{Dir: dir, AppendOnly: true})
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
	te.fence.until = time.Now()
	te.run([]step{{cmd("SET", "other", "x", "NX"), "OK"}})
	if te.RestartFenceRemaining() != 0 {
		t.Fatal("fence still reported")
	}
}

func TestFenceRecordsLargestTTL(t *testing.T) {
	dir := t.TempDir()
	te := openEngine(t, Config{Dir: dir, MaxLockTTL: time.Minute})
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
		if got := readStateFile(t, dir).maxTTLms; got != st.want {
			t.Fatalf("after %q: max-ttl-ms %d, want %d", st.args, got, st.want)
		}
	}
	te.Close()
	if st := readStateFile(t, dir); st.marker != markerClean || st.maxTTLms != 60000 {
		t.Fatalf("after Close: %+v", st)
	}
}

// An embedded server without a directory has no fence unless given a
// duration, which then applies at every start.
func TestFenceWithoutDir(t *testing.T) {
	if d := newTestEngine(t).RestartFenceRemaining(); d != 0 {
		t.Fatalf("fence %s by default", d)
	}
	te := openEngine(t, Config{RestartFence: "5s"})
	if d := te.RestartFenceRemaining(); d <= 4*time.Second {
		t.Fatalf("fence %s", d)
	}
	te.run([]step{{cmd("SET", "k", "v"), "(error) TRYAGAIN restart fence: new keys refused for another 5 s"}})
}

// Two servers on one directory: the second gets no fence state (without
// AOF) or is refused (with one).
func TestFenceDirInUse(t *testing.T) {
	dir := t.TempDir()
	openEngine(t, Config{Dir: dir, AppendOnly: true})
	if _, err := New(Config{Dir: dir, AppendOnly: true}); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("second AOF server on one dir: %v", err)
	}
	te := openEngine(t, Config{Dir: dir})
	te.run([]step{{cmd("SET", "k", "v", "PX", "100000"), "OK"}})
	if st := readStateFile(t, dir); st.maxTTLms != 0 {
		t.Fatalf("the second server wrote the first one's state: %+v", st)
	}
}

// A clean stop during the fence (a restart right after a crash, for an
// upgrade) writes what is left of it, and the next start goes on with it:
// the locks it guards may still be held.
func TestFenceSurvivesCleanStop(t *testing.T) {
	dir := t.TempDir()
	writeState(t, dir, "marker running\nmax-ttl-ms 30000\n")
	e, err := New(Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if e.RestartFenceRemaining() <= 20*time.Second {
		t.Fatalf("fence %s after a crash", e.RestartFenceRemaining())
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if st := readStateFile(t, dir); st.marker != markerClean || st.fenceLeftMs <= 20000 || st.fenceLeftMs > 30001 {
		t.Fatalf("state after a clean stop during the fence: %+v", st)
	}
	e, err = New(Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if left := e.RestartFenceRemaining(); left <= 20*time.Second || left > 30*time.Second {
		t.Fatalf("fence %s after the clean restart", left)
	}
	// Once the fence is over, a clean stop leaves none.
	e.fence.until = time.Now()
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if st := readStateFile(t, dir); st.marker != markerClean || st.fenceLeftMs != 0 {
		t.Fatalf("state after a clean stop past the fence: %+v", st)
	}
}
