package keyspace

import (
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tidwall/buntdb"
)

// Open checks the configuration, decides the restart fence and makes a
// store whose keyspace is not loaded yet: the layer above can accept
// clients (and answer LOADING) while Load reads a large file. Close
// releases it, loaded or not.
func Open(cfg Config) (*Store, error) {
	if cfg.Databases == 0 {
		cfg.Databases = 16
	}
	if cfg.Databases < 1 || cfg.Databases > 256 {
		return nil, fmt.Errorf("databases must be between 1 and 256, got %d", cfg.Databases)
	}
	if cfg.Clock == nil {
		cfg.Clock = NewClock()
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, string, ...any) {}
	}
	if cfg.NewTxHooks == nil {
		cfg.NewTxHooks = func(*Tx) TxHooks { return NopHooks{} }
	}
	if cfg.FieldExpiry == nil {
		cfg.FieldExpiry = func(string) int64 { return 0 }
	}
	if cfg.ExpiredKeys == nil {
		cfg.ExpiredKeys = new(atomic.Int64)
	}
	path := cfg.Path
	if cfg.AppendOnly {
		if cfg.AppendFilename == "" {
			cfg.AppendFilename = "appendonly.aof"
		}
		path = filepath.Join(cfg.Dir, cfg.AppendFilename)
	}
	policy, err := checkPersistConfig(cfg.AppendFsync, cfg.AppendFilename) // persist.go
	if err != nil {
		return nil, err
	}
	cfg.AppendFsync = policy
	// fence.go: lock Dir, read the last run's marker, mark this one running.
	fnc, err := newFence(fenceConfig{
		restartFence: cfg.RestartFence,
		dir:          cfg.Dir,
		appendOnly:   cfg.AppendOnly,
		appendFsync:  cfg.AppendFsync,
		maxLockTTL:   cfg.MaxLockTTL,
	}, path, cfg.Logf)
	if err != nil {
		return nil, err
	}
	if path == "" {
		path = ":memory:"
	}
	s := &Store{
		cfg:         cfg,
		path:        path,
		Clock:       cfg.Clock,
		keys:        make([]atomic.Int64, cfg.Databases),
		volatile:    make([]atomic.Int64, cfg.Databases),
		fieldExpiry: cfg.FieldExpiry,
		expired:     cfg.ExpiredKeys,
		started:     time.Now(),
		stop:        make(chan struct{}),
		fence:       fnc,
	}
	s.loading.active.Store(true)
	s.afterCond = sync.NewCond(&s.afterMu)
	s.txPool.New = func() any {
		tx := &Tx{s: s, keyDelta: make([]int64, cfg.Databases), volDelta: make([]int64, cfg.Databases)}
		tx.runFn = tx.run
		tx.up = cfg.NewTxHooks(tx)
		return tx
	}
	return s, nil
}

// Load reads the keyspace (the append-only file, or Config.Restore),
// logging its progress and showing it in Loading (loading.go), then
// starts the persistence machinery and the expiry sweeper, whose hooks
// call the layer above: it must be ready for them. It runs once, after
// Open; after an error the store must be closed.
func (s *Store) Load() (err error) {
	if s.db != nil || s.closed.Load() || s.loading.start.Load() != 0 {
		return errors.New("keyspace: Load runs once, before Close")
	}
	path, logf := s.path, s.cfg.Logf
	size := int64(0)
	if path == ":memory:" && s.cfg.Restore != nil {
		size = int64(len(s.cfg.Restore.data))
	}
	began := time.Now()
	s.loading.begin(path, size, s.storedKeys, logf)
	defer func() { s.loading.finish(err == nil) }()
	if path != ":memory:" {
		s.loading.setStep(loadCheck)
		// persist.go: a torn tail is cut here, a corrupt middle refused.
		if err := persistPrepare(path, logf); err != nil {
			return err
		}
		s.loading.statFile(path)
	}
	s.loading.setStep(loadRead)
	db, err := buntdb.Open(path)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	var bc buntdb.Config
	if err := db.ReadConfig(&bc); err != nil {
		db.Close()
		return err
	}
	// buntdb must never expire anything itself: expiry lives in our values.
	bc.OnExpired = nil
	bc.OnExpiredSync = nil
	// persist.go owns fsync and rewrites (see there).
	bc.SyncPolicy = buntdb.Never
	bc.AutoShrinkDisabled = true
	if err := db.SetConfig(bc); err != nil {
		db.Close()
		return err
	}
	var lastToken uint64
	if path == ":memory:" {
		if lastToken, err = restore(db, s.cfg.Restore, s.loading.reader); err != nil { // snapshot.go
			db.Close()
			return err
		}
	}
	s.db = db
	s.loading.setStep(loadIndex)
	maxToken, err := s.countKeys()
	if err != nil {
		return err
	}
	if s.fence.path != "" {
		s.tokens.reserve = s.fence.reserveTokens
	}
	s.tokens.start(max(s.fence.tokensReserved, lastToken), maxToken)
	if path != ":memory:" {
		if s.persist, err = newPersister(persistEnv{
			db:      s.db,
			stop:    s.stop,
			wg:      &s.wg,
			logf:    s.cfg.Logf,
			onFsync: s.cfg.OnFsync,
		}, path, s.cfg.AppendFsync); err != nil {
			return err
		}
		s.persist.start()
	}
	s.wg.Add(1)
	go s.sweeper()
	for _, fn := range s.loading.after {
		fn()
	}
	s.loading.after = nil
	if loaded := s.loading.total.Load(); loaded > 0 {
		logf("notice", "%s", loadedLine(path, time.Since(began), loaded, s.storedKeys()))
	}
	return nil
}

// countKeys initialises the per-database counters and the expiry queues
// from what was loaded, and finds the largest fencing token it holds.
func (s *Store) countKeys() (maxToken uint64, err error) {
	err = s.db.View(func(bt *buntdb.Tx) error {
		return bt.Ascend("", func(k, v string) bool {
			if len(k) == 0 || int(k[0]) >= len(s.keys) {
				return true
			}
			s.keys[k[0]].Add(1)
			s.dataset.Add(itemMemory(k, v))
			if at := expireAtOf(v); at != 0 {
				s.volatile[k[0]].Add(1)
				s.expiries.add(at, k)
			}
			if at := s.storedFieldExpiry(v); at != 0 {
				s.fieldExpiries.add(at, k)
			}
			maxToken = max(maxToken, tokenOf(v))
			return true
		})
	})
	return maxToken, err
}

// Close stops the sweeper and closes the keyspace (flushing it to disk).
// The layer above stops what may still run transactions first. A store
// whose Load did not finish writes no clean-stop marker: nothing ran, so
// the state file keeps what Open wrote (running: a fence the last run's
// stop called for is owed again next time).
func (s *Store) Close() error {
	if !s.closed.CompareAndSwap(false, true) {
		return nil
	}
	close(s.stop)
	s.wg.Wait()
	if !s.Loaded() {
		if s.persist != nil {
			s.persist.close()
		}
		if s.db != nil {
			s.db.Close()
		}
		s.fence.release()
		return nil
	}
	if s.persist != nil {
		s.persist.close() // waits for a rewrite, fsyncs, releases waiters
	}
	// A clean stop records the last token handed out, so the next run
	// resumes right after it instead of after the whole reserved range.
	if s.tokens.reserve != nil {
		s.fence.tokensReserved = s.tokens.next - 1
	}
	ferr := s.fence.stop() // the clean-stop marker (fence.go)
	if err := s.db.Close(); err != nil {
		return err
	}
	return ferr
}
