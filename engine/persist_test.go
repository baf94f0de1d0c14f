package engine

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

const (
	recSet = "*3\r\n$3\r\nset\r\n$1\r\nk\r\n$1\r\nv\r\n"
	recDel = "*2\r\n$3\r\ndel\r\n$1\r\nk\r\n"
)

func TestScanAOF(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		good int
		err  error
	}{
		{"empty", "", 0, nil},
		{"records", recSet + recDel + "*1\r\n$7\r\nflushdb\r\n", len(recSet+recDel) + 17, nil},
		{"nul bytes between records", recSet + "\x00\x00" + recDel, len(recSet+recDel) + 2, nil},
		{"torn header", recSet + "*3\r", len(recSet), io.ErrUnexpectedEOF},
		{"torn argument", recSet + recSet[:20], len(recSet), io.ErrUnexpectedEOF},
		{"torn before CRLF", recSet + recSet[:len(recSet)-1], len(recSet), io.ErrUnexpectedEOF},
		{"bad header", recSet + "+OK\r\n" + recSet, len(recSet), errCorruptAOF},
		{"bad argument header", recSet + "*2\r\n:3\r\ndel\r\n", len(recSet), errCorruptAOF},
		{"no CRLF after argument", "*2\r\n$3\r\ndelXX$1\r\nk\r\n", 0, errCorruptAOF},
		{"unknown command", "*2\r\n$3\r\nget\r\n$1\r\nk\r\n" + recSet, 0, errCorruptAOF},
		{"set with 4 arguments", "*4\r\n$3\r\nset\r\n$1\r\nk\r\n$1\r\nv\r\n$1\r\nx\r\n", 0, errCorruptAOF},
	} {
		t.Run(tc.name, func(t *testing.T) {
			good, _, err := scanAOF(bufio.NewReader(strings.NewReader(tc.in)))
			if good != int64(tc.good) || !errors.Is(err, tc.err) && err != tc.err {
				t.Fatalf("got (%d, %v), want (%d, %v)", good, err, tc.good, tc.err)
			}
		})
	}
}

func writeAOF(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "appendonly.aof")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCheckAOFTornTailIsCutAndLogged(t *testing.T) {
	path := writeAOF(t, recSet+recDel[:10])
	var logged []string
	logf := func(_, format string, args ...any) { logged = append(logged, fmt.Sprintf(format, args...)) }
	if err := checkAOF(path, logf); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if string(b) != recSet {
		t.Fatalf("file after the check: %q", b)
	}
	if len(logged) != 1 || !strings.Contains(logged[0], fmt.Sprintf("dropping its 10 bytes at offset %d", len(recSet))) {
		t.Fatalf("log: %q", logged)
	}
}

func TestCheckAOFCorruptMiddleRefuses(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"garbage", recSet + "garbage\r\n" + recSet, "at byte offset 27"},
		// A length that runs past the end looks like a torn tail, but
		// whole records follow: it is corruption.
		{"inflated length", "*3\r\n$3\r\nset\r\n$1\r\nk\r\n$999\r\nv\r\n" + recSet + recDel, "at byte offset 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeAOF(t, tc.body)
			err := checkAOF(path, func(string, string, ...any) {})
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v", err)
			}
			if b, _ := os.ReadFile(path); string(b) != tc.body {
				t.Fatal("the file was changed")
			}
			if _, err := New(Config{Path: path}); err == nil {
				t.Fatal("New opened a corrupt file")
			}
		})
	}
}

// reopen closes e and opens a new engine on the same configuration.
func openEngine(t *testing.T, cfg Config) *testEngine {
	t.Helper()
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

func TestPersistenceSurvivesRestartWithExactExpiry(t *testing.T) {
	for _, policy := range []string{FsyncAlways, FsyncEverySec, FsyncNo} {
		t.Run(policy, func(t *testing.T) {
			dir := t.TempDir()
			start := time.Unix(1700000000, 0)
			cfg := Config{Params: map[string]string{"dir": dir, "appendonly": "yes", "appendfsync": policy}, Clock: NewManualClock(start)}
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
			cfg.Clock = NewManualClock(start.Add(time.Second))
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
	cfg := Config{Params: map[string]string{"dir": dir, "appendonly": "yes", "appendfsync": FsyncAlways}}
	te := openEngine(t, cfg)
	const clients, each = 20, 25
	var wg sync.WaitGroup
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := NewSession("normal")
			for i := 0; i < each; i++ {
				var rec Recorder
				args := [][]byte{[]byte("set"), fmt.Appendf(nil, "k%d-%d", c, i), []byte("v"), []byte("PX"), []byte("60000")}
				te.Dispatch(s, nil, args, &rec)
				if rec.Last().String() != "OK" {
					t.Errorf("reply %s", rec.Last())
				}
			}
		}()
	}
	wg.Wait()
	p := te.persist
	p.mu.Lock()
	synced := p.synced
	p.mu.Unlock()
	if gen := p.writeGen.Load(); synced < gen || gen < clients*each {
		t.Fatalf("synced generation %d, written %d", synced, gen)
	}
	t.Logf("%d writes, %d fsyncs", clients*each, p.fsyncs.Load())
	// A write that changes nothing does not wait for an fsync.
	before := p.writeGen.Load()
	te.run([]step{{cmd("SET", "k0-0", "w", "NX"), "(nil)"}, {cmd("GET", "k0-0"), `"v"`}})
	if p.writeGen.Load() != before {
		t.Fatal("a write transaction that wrote nothing waited for an fsync")
	}
	te.Close()
	te = openEngine(t, cfg)
	te.run([]step{{cmd("DBSIZE"), fmt.Sprintf("(integer) %d", clients*each)}})
}

// With appendfsync always a failed fsync holds the reply back (the write
// is not known to be on disk) and is retried until one succeeds.
func TestAlwaysFsyncFailureHoldsTheReply(t *testing.T) {
	te := openEngine(t, Config{Params: map[string]string{"dir": t.TempDir(), "appendonly": "yes", "appendfsync": FsyncAlways}})
	p := te.persist
	good := failFsyncs(t, p)
	replied := make(chan Reply, 1)
	go func() { replied <- te.do("SET", "k", "v") }()
	waitFsyncError(p)
	select {
	case r := <-replied:
		t.Fatalf("replied %s before the write was on disk", r)
	default:
	}
	p.fd.Store(good)
	if r := <-replied; r.String() != "OK" {
		t.Fatalf("reply %s", r)
	}
	if _, fsyncErr := p.status(); fsyncErr != "" {
		t.Fatalf("fsync error still reported after a good fsync: %s", fsyncErr)
	}
}

// Close does not hang when the sweeper is a writer held back by a failing
// fsync: Close waits for the sweeper.
func TestCloseReleasesTheSweeperOnAFailingDisk(t *testing.T) {
	te := openEngine(t, Config{Params: map[string]string{"dir": t.TempDir(), "appendonly": "yes", "appendfsync": FsyncAlways}})
	te.run([]step{{cmd("SET", "k", "v", "PX", "1"), "OK"}})
	p := te.persist
	good := failFsyncs(t, p)
	defer good.Close()
	// Only the sweeper writes now (it deletes k): wait until its fsync
	// has failed.
	waitFsyncError(p)
	te.Close()
}

// failFsyncs makes every fsync of p fail, by giving it a closed
// descriptor, and returns the good one.
func failFsyncs(t *testing.T, p *persister) (good *os.File) {
	good = p.fd.Load()
	bad, err := os.Open(good.Name())
	if err != nil {
		t.Fatal(err)
	}
	bad.Close()
	p.fd.Store(bad)
	return good
}

func waitFsyncError(p *persister) {
	for {
		if _, fsyncErr := p.status(); fsyncErr != "" {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestBgrewriteaofCompacts(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{Params: map[string]string{"dir": dir, "appendonly": "yes", "appendfsync": FsyncAlways}}
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
	if te.persist.fsyncs.Load() == 0 {
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
	_, err := New(Config{Params: map[string]string{"dir": t.TempDir(), "appendonly": "yes", "appendfsync": "sometimes"}})
	if err == nil {
		t.Fatal("accepted appendfsync sometimes")
	}
}
