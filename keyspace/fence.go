package keyspace

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The restart fence. A server that dies may have granted locks its next
// incarnation does not know about (persistence off, or an fsync policy
// other than always and a machine crash). Redlock's majority then re-forms
// around the restarted node and a second client can take a lock the first
// still holds. So a small state file in Dir remembers whether the last
// incarnation stopped cleanly and the largest TTL it granted; after an
// unclean stop, for that long, commands that would create a key are
// refused with TRYAGAIN while reads, renewals and releases of existing
// keys work. A Redlock client counts the node as a "no" vote.

// StateFileName is the fence's state file in Dir.
const StateFileName = "lockredis.state"

// Markers in the state file.
const (
	markerRunning = "running" // set at start: still there at the next start = a crash
	markerClean   = "clean"   // a clean stop
)

// DefaultMaxLockTTL caps the fence: a lock TTL above it is unusual, and a
// node refusing new locks for longer than this after a crash is worse than
// the risk it covers.
const DefaultMaxLockTTL = 5 * time.Minute

// fence is the store's restart fence and its state file.
type fence struct {
	path   string        // state file; "" = none (no Dir)
	aof    string        // this run's AOF (absolute), "" in memory
	fsync  string        // this run's appendfsync
	bootID string        // this machine boot, "" if unknown
	dirLk  *os.File      // flock on Dir: one server per directory
	mode   string        // "auto", "off" or "fixed"
	fixed  time.Duration // mode fixed
	maxTTL time.Duration // cap of an automatic fence

	until  time.Time   // end of the fence (monotonic), fixed after New
	active atomic.Bool // until has not passed yet

	mu       sync.Mutex
	recorded atomic.Int64 // largest TTL (ms) on disk

	// tokensReserved: fencing tokens up to this one are reserved on disk
	// (token.go); read at start, then moved by reserveTokens.
	tokensReserved uint64
}

// parseRestartFence reads Config.RestartFence: "" or "auto", "off", or a
// duration ("30s"; "0" is off).
func parseRestartFence(s string) (mode string, fixed time.Duration, err error) {
	switch strings.ToLower(s) {
	case "", "auto":
		return "auto", 0, nil
	case "off", "no", "0":
		return "off", 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return "", 0, fmt.Errorf("restart fence must be auto, off or a duration such as 30s, got %q", s)
	}
	if d == 0 {
		return "off", 0, nil
	}
	return "fixed", d, nil
}

// fenceConfig is what the fence reads of the store's Config: the fence
// sits below the Store and knows only its own settings.
type fenceConfig struct {
	restartFence string        // Config.RestartFence
	dir          string        // Config.Dir: where the state file lives
	appendOnly   bool          // Config.AppendOnly
	appendFsync  string        // Config.AppendFsync
	maxLockTTL   time.Duration // Config.MaxLockTTL
}

// newFence reads the previous incarnation's state, decides the fence and
// marks this incarnation running. dir "" means no state file: a fixed
// fence then always applies (the embedder asked for it), auto none.
func newFence(cfg fenceConfig, aofPath string, logf func(level, format string, args ...any)) (*fence, error) {
	mode, fixed, err := parseRestartFence(cfg.restartFence)
	if err != nil {
		return nil, err
	}
	f := &fence{mode: mode, fixed: fixed, maxTTL: cfg.maxLockTTL, bootID: bootID()}
	if aofPath != "" {
		if f.aof, err = filepath.Abs(aofPath); err != nil {
			return nil, err
		}
		f.fsync = cfg.appendFsync
		if f.fsync == "" {
			f.fsync = FsyncEverySec
		}
	}
	if f.maxTTL <= 0 {
		f.maxTTL = DefaultMaxLockTTL
	}
	var d time.Duration
	if cfg.dir == "" {
		if mode == "fixed" {
			d = fixed
		}
	} else {
		if err := os.MkdirAll(cfg.dir, 0o755); err != nil {
			return nil, err
		}
		lk, held, err := lockDir(cfg.dir)
		switch {
		case err != nil:
			return nil, fmt.Errorf("lock %s: %w", cfg.dir, err)
		case held && cfg.appendOnly:
			return nil, fmt.Errorf("directory %s is in use by another lockredis process", cfg.dir)
		case held:
			// Two servers sharing a directory cannot share one marker:
			// the one that has it keeps the fence.
			logf("warning", "Restart fence: directory %s is in use by another lockredis process; no fence state for this one", cfg.dir)
			if mode == "fixed" {
				d = fixed
			}
			return f.begin(d, logf)
		}
		f.dirLk = lk
		f.path = filepath.Join(cfg.dir, StateFileName)
		st, err := readState(f.path)
		f.tokensReserved = st.tokens // fencing tokens resume after these
		switch {
		case errors.Is(err, os.ErrNotExist):
			// First start in this directory.
		case err != nil:
			logf("warning", "Restart fence: unreadable state file %s (%v): assuming the last run crashed", f.path, err)
			d = f.fenceFor(st, true, logf)
		default:
			d = f.fenceFor(st, false, logf)
		}
	}
	return f.begin(d, logf)
}

// begin starts a fence of d (none when d <= 0) and marks this run running.
func (f *fence) begin(d time.Duration, logf func(level, format string, args ...any)) (*fence, error) {
	if d > 0 {
		f.until = time.Now().Add(d)
		f.active.Store(true)
		logf("warning", "Restart fence: refusing new keys for %s so that no lock the previous run granted is handed out twice", d)
		// Should this run die during the fence, the next one fences
		// again for at least as long.
		f.recorded.Store(d.Milliseconds())
	}
	if err := f.write(markerRunning); err != nil {
		f.release()
		return nil, err
	}
	return f, nil
}

// release gives the directory back (after the stop marker is written).
func (f *fence) release() {
	if f.dirLk != nil {
		f.dirLk.Close()
		f.dirLk = nil
	}
}

// fenceFor is the fence a previous state calls for. In auto mode:
//   - a crash (marker running) fences for the largest TTL granted, unless
//     this run loads the same AOF and it has every acknowledged write:
//     it was fsynced always, or the machine did not restart (same boot, so
//     what was written is in the file whatever the fsync policy);
//
// A clean stop fences only for what was left of its own fence (a planned
// restart; without persistence it forgets its locks, which
// docs/operations.md tells operators to wait out). A fixed fence applies
// after any crash; off never fences.
func (f *fence) fenceFor(st fenceState, unknown bool, logf func(level, format string, args ...any)) time.Duration {
	if f.mode == "off" {
		return 0
	}
	if !unknown && st.marker == markerClean {
		if st.fenceLeftMs > 0 {
			// A clean stop during a fence (an upgrade right after a
			// crash) does not end it: the locks it guards may still be
			// held.
			left := min(time.Duration(st.fenceLeftMs)*time.Millisecond, f.maxTTL)
			logf("warning", "Restart fence: the previous run stopped cleanly with %s of its fence left", left)
			return left
		}
		return 0
	}
	sameAOF := !unknown && st.aof != "" && st.aof == f.aof
	if f.mode == "fixed" {
		return f.fixed
	}
	if unknown {
		return f.maxTTL
	}
	if sameAOF && st.fsync == FsyncAlways {
		logf("notice", "Restart fence: the previous run stopped uncleanly, but every write it acknowledged was fsynced: no fence")
		return 0
	}
	if sameAOF && st.boot != "" && st.boot == f.bootID {
		logf("notice", "Restart fence: the previous run stopped uncleanly, but the machine did not restart: its writes are in the file, no fence")
		return 0
	}
	logf("warning", "Restart fence: the previous run did not stop cleanly (largest TTL granted %d ms)", st.maxTTLms)
	return min(time.Duration(st.maxTTLms)*time.Millisecond, f.maxTTL)
}

// bootID identifies the running kernel boot (Linux), "" elsewhere. Read
// once per process: it cannot change while the process runs.
var bootID = sync.OnceValue(func() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
})

type fenceState struct {
	marker      string
	maxTTLms    int64
	fenceLeftMs int64  // a clean stop's fence not yet over
	tokens      uint64 // fencing tokens reserved
	aof         string // the run's AOF, "" without persistence
	fsync       string
	boot        string
}

func readState(path string) (fenceState, error) {
	var st fenceState
	b, err := os.ReadFile(path)
	if err != nil {
		return st, err
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, _ := strings.Cut(strings.TrimSpace(sc.Text()), " ")
		switch k {
		case "marker":
			st.marker = v
		case "max-ttl-ms":
			st.maxTTLms, err = strconv.ParseInt(v, 10, 64)
		case "fence-left-ms":
			st.fenceLeftMs, err = strconv.ParseInt(v, 10, 64)
		case "tokens-reserved":
			st.tokens, err = strconv.ParseUint(v, 10, 64)
		case "aof":
			st.aof = v
		case "appendfsync":
			st.fsync = v
		case "boot-id":
			st.boot = v
		}
		if err != nil {
			return st, fmt.Errorf("bad line %q", sc.Text())
		}
	}
	switch st.marker {
	case markerRunning, markerClean:
		return st, nil
	}
	return st, fmt.Errorf("no valid marker")
}

// write replaces the state file atomically: temporary file, fsync,
// rename, fsync of the directory. Called rarely (start, stop, a larger
// TTL), never per command.
func (f *fence) write(marker string) error {
	if f.path == "" {
		return nil
	}
	body := fmt.Sprintf("# lockredis restart fence state (see README); do not edit\nmarker %s\nmax-ttl-ms %d\ntokens-reserved %d\n",
		marker, f.recorded.Load(), f.tokensReserved)
	if f.aof != "" {
		body += fmt.Sprintf("aof %s\nappendfsync %s\n", f.aof, f.fsync)
	}
	if left := time.Until(f.until); marker == markerClean && f.active.Load() && left > 0 {
		// The next start goes on with the rest of the fence (fenceFor).
		body += fmt.Sprintf("fence-left-ms %d\n", left.Milliseconds()+1)
	}
	if f.bootID != "" {
		body += fmt.Sprintf("boot-id %s\n", f.bootID)
	}
	fh, err := os.CreateTemp(filepath.Dir(f.path), StateFileName+".tmp*")
	if err != nil {
		return err
	}
	tmp := fh.Name()
	defer os.Remove(tmp) // left only if the rename failed
	_, err = fh.WriteString(body)
	if err == nil {
		err = fh.Sync()
	}
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, f.path)
	}
	if err == nil {
		err = syncDir(filepath.Dir(f.path))
	}
	if err != nil {
		return fmt.Errorf("restart fence state %s: %w", f.path, err)
	}
	return nil
}

// grant records that a TTL of ms was granted. Only a larger TTL than any
// recorded (and below the cap) writes the file, and it does so before the
// reply is sent: a crash right after must fence for this lock too.
func (f *fence) grant(ms int64, logf func(level, format string, args ...any)) {
	if f.path == "" || ms <= f.recorded.Load() || f.recorded.Load() >= f.maxTTL.Milliseconds() {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if ms <= f.recorded.Load() {
		return
	}
	// Round up to whole seconds so that slowly growing TTLs rarely write.
	// Beyond the cap the fence would not be longer anyway.
	rounded := min((ms+999)/1000*1000, f.maxTTL.Milliseconds())
	prev := f.recorded.Swap(rounded)
	if err := f.write(markerRunning); err != nil {
		f.recorded.Store(prev)
		logf("warning", "Restart fence: %v", err)
	}
}

// reserveTokens records durably that fencing tokens up to limit may be
// handed out, before any of them is.
func (f *fence) reserveTokens(limit uint64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	prev := f.tokensReserved
	f.tokensReserved = limit
	if err := f.write(markerRunning); err != nil {
		f.tokensReserved = prev
		return err
	}
	return nil
}

// stop writes the marker of a clean stop.
func (f *fence) stop() error {
	if f.path == "" {
		return nil
	}
	defer f.release()
	return f.write(markerClean)
}
