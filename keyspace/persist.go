package keyspace

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tidwall/buntdb"
)

// Append-only persistence. buntdb writes one RESP record per changed item
// at each commit (SyncPolicy Never: it never fsyncs by itself); this file
// owns the fsync, through a second descriptor on the same file (an fsync
// of any descriptor flushes the inode):
//
//   - everysec: a goroutine fsyncs once a second when the file grew.
//   - always: group commit. A write transaction that wrote something takes
//     a generation number after its commit, and Do returns only once an
//     fsync begun after that generation has finished (waitDurable).
//     Commits arriving during one fsync share the next one. The wait
//     happens after the keyspace lock is released, so other clients keep
//     going.
//   - no: never fsync explicitly.
//
// BGREWRITEAOF is buntdb's Shrink, which writes a new file and renames it
// over the old one; the descriptor is then reopened on the new file.

// Fsync policies (appendfsync).
const (
	FsyncAlways   = "always"
	FsyncEverySec = "everysec"
	FsyncNo       = "no"
)

const (
	// Auto-rewrite as buntdb would (it is disabled there so that every
	// rename goes through rewrite): past 32 MB and twice the base size.
	autoRewriteMinSize = 32 << 20
	fsyncRetryEvery    = 100 * time.Millisecond
)

// persistEnv is what the store lends its persister.
type persistEnv struct {
	db      *buntdb.DB
	stop    <-chan struct{} // closed when the store closes
	wg      *sync.WaitGroup // the store's goroutines, waited for by Close
	logf    func(level, format string, args ...any)
	onFsync func(policy string, d time.Duration) // Config.OnFsync; nil: none
}

// persister is the fsync and rewrite machinery of a file-backed store.
type persister struct {
	persistEnv
	path   string
	policy string

	fd        atomic.Pointer[os.File] // our own descriptor on the AOF
	fdMu      sync.Mutex              // serialises fsync, reopen and rewrite's final sync
	rewriting atomic.Bool
	rewriteWG sync.WaitGroup

	writeGen atomic.Uint64 // generations handed to committed writes (always)

	mu      sync.Mutex
	cond    *sync.Cond
	synced  uint64 // highest generation known to be on disk
	syncing bool   // a waiter is fsyncing for the others (waitDurable)
	stopped bool   // Close ran: waiters are released

	syncedSize  int64        // file size at the last fsync (everysec), under fdMu
	fsyncs      atomic.Int64 // successful fsyncs, for tests and INFO
	fsyncErrors atomic.Int64 // failed fsyncs (Stats)

	lastSave      atomic.Int64 // unix seconds of the last fsync or rewrite
	baseSize      atomic.Int64 // file size after load or the last rewrite
	rewrites      atomic.Int64
	rewriteFailed atomic.Bool

	errMu        sync.Mutex
	lastFsyncErr string // "" when the last fsync succeeded
	lastWriteErr string // "" when the last commit's write succeeded
	writeErr     error  // the last commit's write error, nil when fine
	fsyncErr     error  // the last fsync error, nil when fine
	lastErrno    int    // errno of the last write or fsync error (INFO)
	// misconf is the MISCONF reply write commands get while writeErr or
	// fsyncErr is set (the engine's guards), nil when the disk works.
	misconf atomic.Pointer[string]
}

// persistPrepare prepares the AOF at path (checking and repairing its tail)
// before buntdb opens it.
func persistPrepare(path string, logf func(level, format string, args ...any)) error {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	return checkAOF(path, logf)
}

// checkPersistConfig validates the persistence settings as redis-server
// does at start (appendfsync in any case, appendfilename a plain name) and
// returns the policy in lower case. The CLI relies on it: it passes these
// values through unchecked.
func checkPersistConfig(fsync, filename string) (policy string, err error) {
	if err := checkFsyncPolicy(fsync); err != nil {
		return "", err
	}
	if strings.ContainsAny(filename, "/\\") {
		return "", fmt.Errorf("appendfilename can't be a path, just a filename, got %q", filename)
	}
	return strings.ToLower(fsync), nil
}

// checkFsyncPolicy accepts "" (the default, everysec) and the three
// policies in any case, as Redis's enum configs do.
func checkFsyncPolicy(policy string) error {
	switch strings.ToLower(policy) {
	case "", FsyncAlways, FsyncEverySec, FsyncNo:
		return nil
	}
	return fmt.Errorf("appendfsync must be always, everysec or no, got %q", policy)
}

// newPersister starts the fsync machinery for an open file-backed db.
func newPersister(env persistEnv, path, policy string) (*persister, error) {
	if err := checkFsyncPolicy(policy); err != nil {
		return nil, err
	}
	if policy == "" {
		policy = FsyncEverySec
	}
	f, err := os.OpenFile(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	p := &persister{persistEnv: env, path: path, policy: policy}
	p.cond = sync.NewCond(&p.mu)
	p.fd.Store(f)
	size, _ := f.Seek(0, io.SeekEnd)
	p.syncedSize = size
	p.baseSize.Store(size)
	p.lastSave.Store(time.Now().Unix())
	return p, nil
}

// start launches the background goroutines on the store's wg.
func (p *persister) start() {
	p.wg.Add(1)
	go p.background()
}

// size is the current length of the AOF as our descriptor sees it.
func (p *persister) size() (int64, error) {
	return p.fd.Load().Seek(0, io.SeekEnd)
}

// waitDurable returns once everything committed so far is on disk
// (appendfsync always), or the store is closing. Group commit without a
// helper goroutine: the first waiter that finds no fsync running becomes
// the leader and fsyncs for every generation handed out so far; waiters
// arriving meanwhile wait for the next leader, so one fsync serves all the
// commits made during the previous one. Doing the fsync on a waiting
// connection's goroutine saves a hand-off to another goroutine per batch.
// After a failed fsync the leader pauses fsyncRetryEvery before the next
// attempt; its waiters stay blocked (their writes are not known to be on
// disk) until an fsync succeeds or the store closes.
func (p *persister) waitDurable() {
	gen := p.writeGen.Add(1)
	p.mu.Lock()
	for p.synced < gen && !p.stopped {
		if p.syncing {
			p.cond.Wait()
			continue
		}
		p.syncing = true
		target := p.writeGen.Load()
		p.mu.Unlock()
		ok := p.fsync() == nil
		closing := false
		if !ok {
			select {
			case <-time.After(fsyncRetryEvery):
			case <-p.stop:
				// Close waits for the sweeper, which may be one of
				// these waiters: release them all (close makes the
				// last attempt).
				closing = true
			}
		}
		p.mu.Lock()
		p.syncing = false
		p.stopped = p.stopped || closing
		if ok && target > p.synced {
			p.synced = target
		}
		p.cond.Broadcast()
	}
	p.mu.Unlock()
}

// publish records that generation gen is on disk (when synced) and wakes
// the waiters; stop releases them all.
func (p *persister) publish(gen uint64, synced, stop bool) {
	p.mu.Lock()
	if synced && gen > p.synced {
		p.synced = gen
	}
	if stop {
		p.stopped = true
	}
	p.cond.Broadcast()
	p.mu.Unlock()
}

// background fsyncs once a second (everysec) and starts automatic
// rewrites.
func (p *persister) background() {
	defer p.wg.Done()
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
		}
		if p.policy == FsyncEverySec {
			p.fsyncIfGrown()
		}
		if p.misconf.Load() != nil && !p.rewriting.Load() {
			p.probe() // MISCONF until the disk works again (DiskError)
		}
		if size, err := p.size(); err == nil && size > autoRewriteMinSize && size > 2*p.baseSize.Load() {
			if p.rewrite() == nil {
				p.logf("notice", "Starting automatic rewriting of AOF on %d%% growth", 100)
			}
		}
	}
}

func (p *persister) fsyncIfGrown() {
	p.fdMu.Lock()
	size, err := p.size()
	grown := err != nil || size != p.syncedSize
	p.fdMu.Unlock()
	if grown {
		p.fsync()
	}
}

// fsync flushes the AOF to disk, following a rename done by a rewrite.
func (p *persister) fsync() error {
	p.fdMu.Lock()
	defer p.fdMu.Unlock()
	if p.rewriting.Load() {
		if err := p.followRename(); err != nil {
			p.setFsyncErr(err)
			return err
		}
	}
	f := p.fd.Load()
	size, _ := f.Seek(0, io.SeekEnd)
	start := time.Now()
	err := f.Sync()
	if p.onFsync != nil {
		// LATENCY and Stats' fsync histogram, above; failed ones too.
		p.onFsync(p.policy, time.Since(start))
	}
	if err != nil {
		p.fsyncErrors.Add(1)
		p.setFsyncErr(err)
		p.logf("warning", "Error syncing the append only file %s: %v", p.path, err)
		return err
	}
	p.syncedSize = size
	p.fsyncs.Add(1)
	p.setFsyncErr(nil)
	p.lastSave.Store(time.Now().Unix())
	return nil
}

// followRename reopens our descriptor if the file at path is no longer
// the one it points to (buntdb's Shrink renamed a new file over it), and
// makes the rename durable. Called under fdMu.
func (p *persister) followRename() error {
	old := p.fd.Load()
	oi, err := old.Stat()
	if err != nil {
		return err
	}
	ni, err := os.Stat(p.path)
	if err != nil {
		return err
	}
	if os.SameFile(oi, ni) {
		return nil
	}
	f, err := os.OpenFile(p.path, os.O_RDONLY, 0)
	if err != nil {
		return err
	}
	p.fd.Store(f)
	old.Close()
	return syncDir(filepath.Dir(p.path))
}

// rewrite starts a background rewrite (buntdb Shrink).
func (p *persister) rewrite() error {
	if !p.rewriting.CompareAndSwap(false, true) {
		return ErrRewriteInProgress
	}
	p.rewriteWG.Add(1)
	go func() {
		defer p.rewriteWG.Done()
		err := p.db.Shrink()
		p.fdMu.Lock()
		if err == nil {
			err = p.followRename()
		}
		if err == nil {
			// The new file was written without fsync: flush it before a
			// write made to it is acknowledged (always) or counted.
			err = p.fd.Load().Sync()
		}
		size, _ := p.fd.Load().Seek(0, io.SeekEnd)
		p.rewriting.Store(false)
		p.fdMu.Unlock()
		if err != nil && !errors.Is(err, buntdb.ErrDatabaseClosed) {
			p.rewriteFailed.Store(true)
			p.logf("warning", "Background AOF rewrite of %s failed: %v", p.path, err)
		} else if err == nil {
			p.rewriteFailed.Store(false)
			p.rewrites.Add(1)
			p.baseSize.Store(size)
			p.lastSave.Store(time.Now().Unix())
			p.logf("notice", "Background AOF rewrite finished successfully (%s, %d bytes)", p.path, size)
		}
	}()
	return nil
}

// close is called once the store's goroutines have stopped: it waits for
// a running rewrite, flushes, and releases every waiter.
func (p *persister) close() {
	p.rewriteWG.Wait()
	gen := p.writeGen.Load()
	p.publish(gen, p.fsync() == nil, true)
	p.fd.Load().Close()
}

func (p *persister) setFsyncErr(err error) {
	if err == nil && p.misconf.Load() == nil {
		return // the usual case: nothing to clear
	}
	p.errMu.Lock()
	p.fsyncErr = err
	if err == nil {
		p.lastFsyncErr = ""
	} else {
		p.lastFsyncErr = err.Error()
	}
	p.updateMisconf()
	p.errMu.Unlock()
}

func (p *persister) setWriteErr(err error) {
	if err == nil && p.misconf.Load() == nil {
		return
	}
	p.errMu.Lock()
	p.writeErr = err
	if err == nil {
		p.lastWriteErr = ""
	} else {
		p.lastWriteErr = err.Error()
		p.logf("warning", "Error writing to the AOF file %s: %v", p.path, err)
	}
	p.updateMisconf()
	p.errMu.Unlock()
}

// updateMisconf recomputes the MISCONF reply; under errMu.
func (p *persister) updateMisconf() {
	err := p.writeErr
	if err == nil {
		err = p.fsyncErr
	}
	if err == nil {
		if p.misconf.Swap(nil) != nil {
			p.logf("notice", "AOF write error looks solved, Redis can write again.")
		}
		return
	}
	p.lastErrno = errnoOf(err)
	msg := MisconfMessage(err)
	p.misconf.Store(&msg)
}

// probeBytes is how much a probe writes: a write error is over when a
// record of this size fits again (a larger one may fail again, and turn
// MISCONF back on).
const probeBytes = 64 << 10

// probe checks whether the disk works again after a write or fsync error
// (from the background goroutine; the refused writes cannot tell): it
// retries the fsync, and after a write error appends probeBytes NUL bytes
// to the file, fsyncs them and cuts them off again, holding buntdb's
// write lock so that no record lands in between (buntdb and checkAOF
// would skip NULs between records anyway).
func (p *persister) probe() {
	p.errMu.Lock()
	werr, ferr := p.writeErr, p.fsyncErr
	p.errMu.Unlock()
	if werr == nil && ferr == nil {
		return
	}
	if ferr != nil && p.fsync() != nil {
		return
	}
	if werr == nil {
		return
	}
	var err error
	// An empty write transaction: buntdb writes nothing at its commit.
	p.db.Update(func(*buntdb.Tx) error {
		p.fdMu.Lock()
		err = probeWrite(p.path)
		p.fdMu.Unlock()
		return nil
	})
	p.setWriteErr(err)
}

func probeWrite(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	size, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return err
	}
	_, err = f.Write(make([]byte, probeBytes))
	if err == nil {
		err = f.Sync()
	}
	if terr := f.Truncate(size); err == nil {
		err = terr
	}
	return err
}

// status returns the last write and fsync errors ("" when fine).
func (p *persister) status() (writeErr, fsyncErr string) {
	p.errMu.Lock()
	defer p.errMu.Unlock()
	return p.lastWriteErr, p.lastFsyncErr
}

// lastErrnoOf is the errno of the last write or fsync error, 0 if none had one.
func (p *persister) lastErrnoOf() int {
	p.errMu.Lock()
	defer p.errMu.Unlock()
	return p.lastErrno
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// PersistInfo is what INFO persistence reports about the AOF.
type PersistInfo struct {
	Enabled           bool
	Path              string
	Fsync             string
	RewriteInProgress bool
	Rewrites          int64
	RewriteFailed     bool
	CurrentSize       int64
	BaseSize          int64
	LastWriteErr      string
	LastFsyncErr      string
	LastErrno         int    // errno of the last write or fsync error
	Misconf           string // the MISCONF reply writes get now, "" when none
	LastSave          int64  // unix seconds
	FsyncErrors       int64  // failed fsyncs since the start
}

// checkAOF scans the RESP records of the AOF at path before buntdb loads
// it. A torn last record (a crash in the middle of a write) is cut off and
// logged; a malformed record anywhere else is an error naming the file and
// the byte offset, so that nothing is silently dropped.
func checkAOF(path string, logf func(level, format string, args ...any)) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	good, why, err := scanAOF(bufio.NewReaderSize(f, 64<<10))
	switch {
	case err == nil:
		return nil
	case errors.Is(err, io.ErrUnexpectedEOF):
		dropped := fi.Size() - good
		if at := recordStartIn(f, good, dropped); at >= 0 {
			// A torn write is a prefix of one record. Whole records after
			// the cut mean a length in the middle is wrong instead.
			return fmt.Errorf("bad record in the append only file %s at byte offset %d: "+
				"its length runs past the end of the file although a record starts at offset %d; "+
				"refusing to start rather than lose the records after it", path, good, at)
		}
		logf("warning", "The append only file %s ends with an incomplete record (a crash during a write): "+
			"dropping its %d bytes at offset %d and loading everything before them", path, dropped, good)
		if err := f.Truncate(good); err != nil {
			return fmt.Errorf("truncate %s to %d bytes: %w", path, good, err)
		}
		return f.Sync()
	case errors.Is(err, errCorruptAOF):
		return fmt.Errorf("bad record in the append only file %s at byte offset %d: %s; "+
			"refusing to start rather than lose the records after it (%d bytes follow)",
			path, good, why, fi.Size()-good)
	default:
		return fmt.Errorf("read %s: %w", path, err)
	}
}

// recordStarts are how buntdb's records begin.
var recordStarts = [][]byte{
	[]byte("*3\r\n$3\r\nset\r\n"), []byte("*5\r\n$3\r\nset\r\n"), []byte("*2\r\n$3\r\ndel\r\n"),
}

// recordStartIn returns the offset of the first record start found in the
// n bytes at off (after their first byte), or -1.
func recordStartIn(f *os.File, off, n int64) int64 {
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, off); err != nil && !errors.Is(err, io.EOF) {
		return -1
	}
	first := int64(-1)
	for _, rs := range recordStarts {
		if i := bytes.Index(buf[1:], rs); i >= 0 && (first < 0 || int64(i+1)+off < first) {
			first = int64(i+1) + off
		}
	}
	return first
}

// scanAOF reads whole records and returns the offset just after the last
// good one. It fails with io.ErrUnexpectedEOF when the input ends inside a
// record, or errCorruptAOF (and why) when a record is malformed. NUL bytes
// between records are skipped, as buntdb does (some file systems leave
// zeros after a crash).
func scanAOF(r *bufio.Reader) (good int64, why string, err error) {
	var off int64
	readLine := func() ([]byte, error) {
		line, err := r.ReadSlice('\n')
		off += int64(len(line))
		switch err {
		case nil:
			return line, nil
		case io.EOF:
			return nil, io.ErrUnexpectedEOF
		case bufio.ErrBufferFull: // no header line is that long
			return nil, errCorruptAOF
		}
		return nil, err
	}
	number := func(line []byte, prefix byte) (int, bool) {
		if len(line) < 4 || line[0] != prefix || line[len(line)-2] != '\r' {
			return 0, false
		}
		n := 0
		for _, c := range line[1 : len(line)-2] {
			if c < '0' || c > '9' || n > 1<<40 {
				return 0, false
			}
			n = n*10 + int(c-'0')
		}
		return n, true
	}
	var name [8]byte
	for {
		c, err := r.ReadByte()
		if err == io.EOF {
			return good, "", nil
		}
		if err != nil {
			return good, "", err
		}
		if c == 0 {
			off++
			good = off
			continue
		}
		r.UnreadByte()
		line, err := readLine()
		if err != nil {
			return good, "unterminated record header", err
		}
		nargs, ok := number(line, '*')
		if !ok {
			return good, fmt.Sprintf("expected a record header (*<count>), found %q", clip(line)), errCorruptAOF
		}
		var cmd []byte
		for i := 0; i < nargs; i++ {
			line, err := readLine()
			if err != nil {
				return good, "unterminated argument header", err
			}
			n, ok := number(line, '$')
			if !ok {
				return good, fmt.Sprintf("expected an argument header ($<length>), found %q", clip(line)), errCorruptAOF
			}
			if i == 0 && n <= len(name) {
				buf, err := r.Peek(n)
				if err != nil {
					return good, "", io.ErrUnexpectedEOF
				}
				cmd = append(name[:0], buf...)
			}
			if _, err := r.Discard(n); err != nil {
				return good, "", io.ErrUnexpectedEOF
			}
			crlf, err := r.Peek(2)
			if err != nil {
				return good, "", io.ErrUnexpectedEOF
			}
			if crlf[0] != '\r' || crlf[1] != '\n' {
				return good, "argument not followed by CRLF", errCorruptAOF
			}
			r.Discard(2)
			off += int64(n + 2)
		}
		if !validRecord(cmd, nargs) {
			return good, fmt.Sprintf("unknown record %q with %d arguments", cmd, nargs), errCorruptAOF
		}
		good = off
	}
}

// validRecord accepts what buntdb writes: set k v [ae|ex t], del k, flushdb.
func validRecord(cmd []byte, nargs int) bool {
	switch {
	case strings.EqualFold(string(cmd), "set"):
		return nargs == 3 || nargs == 5
	case strings.EqualFold(string(cmd), "del"):
		return nargs == 2
	case strings.EqualFold(string(cmd), "flushdb"):
		return nargs == 1
	}
	return false
}

func clip(b []byte) []byte {
	if len(b) > 32 {
		return b[:32]
	}
	return b
}
