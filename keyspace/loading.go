package keyspace

import (
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"time"
)

// Loading: what Load reports while it reads the keyspace, as Redis does
// while it loads its files. INFO persistence shows Redis's loading fields
// (loading:1, loading_start_time, loading_total_bytes,
// loading_loaded_bytes, loading_loaded_perc, loading_eta_seconds), the
// log has a line every loadLogEvery with the percentage and the rate, and
// the dispatcher above answers LOADING to the commands Redis refuses while
// loading (IsLoading).
//
// An append-only file is read twice: checkAOF (persist.go) reads it to
// find a torn tail or a corrupt record, then buntdb.Open loads it, which
// takes most of the time (2.6 s of 3.3 s for a 190 MB file of 2 million
// keys here) and has no progress callback. So the progress of both passes
// is the offset of the descriptor reading the file, which Linux publishes
// in /proc/self/fdinfo (loading_linux.go); elsewhere the log only says
// how long it has been going. A snapshot (Config.Restore) is counted as
// it is read.

// loadLogEvery is how often a long load logs its progress.
const loadLogEvery = 2 * time.Second

// Load's steps, in order.
const (
	loadCheck int32 = iota // checkAOF reads the file (bytes)
	loadRead               // buntdb reads the file, or a snapshot is read (bytes)
	loadIndex              // countKeys walks the loaded keys
	loadDone
)

// loadState is Load's progress. active is set by Open and cleared when
// Load returns, whatever the outcome; ok once it succeeded.
type loadState struct {
	active atomic.Bool
	ok     atomic.Bool
	step   atomic.Int32
	start  atomic.Int64 // unix ms when Load began
	total  atomic.Int64 // bytes of the file or snapshot
	read   atomic.Int64 // bytes the current step has read

	file    atomic.Pointer[os.FileInfo] // the file read, to find its descriptor
	after   []func()                    // AfterLoad's
	stopRep chan struct{}               // stops the reporter
	repDone chan struct{}
}

// LoadingInfo is a load's progress, as INFO persistence's loading_* fields
// show it.
type LoadingInfo struct {
	Loading     bool      // Load has not finished: commands get LOADING
	Start       time.Time // when Load began
	TotalBytes  int64     // size of the file or snapshot being loaded
	LoadedBytes int64     // how much of it was loaded
	Percent     float64   // LoadedBytes of TotalBytes
	ETA         time.Duration
}

// begin starts the report of a load of path (":memory:": a snapshot of
// size bytes, whose reader counts itself). keys counts the keys indexed.
func (l *loadState) begin(path string, size int64, keys func() int64, logf func(level, format string, args ...any)) {
	l.start.Store(time.Now().UnixMilli())
	l.total.Store(size)
	if path != ":memory:" {
		l.statFile(path)
	}
	l.stopRep = make(chan struct{})
	l.repDone = make(chan struct{})
	go l.report(path, keys, logf)
}

// statFile records the file's identity and size (again after checkAOF,
// which may have cut a torn tail).
func (l *loadState) statFile(path string) {
	if fi, err := os.Stat(path); err == nil {
		l.file.Store(&fi)
		l.total.Store(fi.Size())
	}
}

// setStep moves to the next step; its bytes read start from 0.
func (l *loadState) setStep(step int32) {
	l.read.Store(0)
	l.step.Store(step)
}

// reader counts the bytes of a snapshot as they are read.
func (l *loadState) reader(r io.Reader) io.Reader { return countingReader{r, &l.read} }

// finish stops the reporter and ends the LOADING state.
func (l *loadState) finish(ok bool) {
	if l.stopRep != nil {
		close(l.stopRep)
		<-l.repDone
	}
	l.step.Store(loadDone)
	l.ok.Store(ok)
	l.active.Store(false)
}

// report samples the progress once a second and logs it every
// loadLogEvery until finish.
func (l *loadState) report(path string, keys func() int64, logf func(level, format string, args ...any)) {
	defer close(l.repDone)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	start := time.UnixMilli(l.start.Load())
	lastLog := start
	var fd descriptorFinder // loading_linux.go
	for {
		select {
		case <-l.stopRep:
			return
		case now := <-tick.C:
			step := l.step.Load()
			if fi := l.file.Load(); fi != nil && step <= loadRead {
				if off, ok := fd.offset(*fi); ok {
					l.read.Store(off)
				}
			}
			if now.Sub(lastLog) >= loadLogEvery {
				lastLog = now
				logf("notice", "%s", l.progressLine(path, step, now.Sub(start), keys))
			}
		}
	}
}

// progressLine is the log line of a load in progress.
func (l *loadState) progressLine(path string, step int32, elapsed time.Duration, keys func() int64) string {
	what := "the append only file " + path
	if path == ":memory:" {
		what = "the snapshot"
	}
	secs := max(elapsed.Seconds(), 0.001)
	switch step {
	case loadCheck, loadRead:
		verb := "Loading"
		if step == loadCheck {
			verb = "Checking"
		}
		read, total := min(l.read.Load(), l.total.Load()), l.total.Load()
		if total == 0 || (path != ":memory:" && !offsetsVisible) {
			return fmt.Sprintf("%s %s: %s so far", verb, what, elapsed.Truncate(time.Second))
		}
		return fmt.Sprintf("%s %s: %.2f%% (%s of %s, %s/s)", verb, what,
			float64(read)/float64(total)*100, BytesToHuman(uint64(read)), BytesToHuman(uint64(total)),
			BytesToHuman(uint64(float64(read)/secs)))
	default:
		return fmt.Sprintf("Loading %s: indexing the loaded keys, %d so far", what, keys())
	}
}

// loadedLine is the log line of a finished load: Redis's, with what was
// loaded.
func loadedLine(path string, took time.Duration, size, keys int64) string {
	what := "append only file"
	if path == ":memory:" {
		what = "snapshot"
	}
	return fmt.Sprintf("DB loaded from %s: %.3f seconds (%s, %d keys)", what, took.Seconds(), BytesToHuman(uint64(size)), keys)
}

// countingReader counts what a snapshot restore has read.
type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}
