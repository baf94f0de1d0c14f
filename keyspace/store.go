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

// Config configures a Store.
type Config struct {
	Databases int    // default 16, at most 256
	Clock     *Clock // default: a real clock
	Path      string // buntdb file; "" keeps the keyspace in memory
	Logf      func(level, format string, args ...any)

	// Persistence (persist.go): with AppendOnly the keyspace lives in
	// Dir/AppendFilename (default appendonly.aof), fsynced as AppendFsync
	// says ("always", "everysec" (default), "no"). Path, when set, names
	// the file directly instead.
	Dir            string
	AppendOnly     bool
	AppendFsync    string
	AppendFilename string
	// Restart fence (fence.go): "auto" (default), "off" or a duration. Its
	// state file lives in Dir; without Dir only a duration applies, at
	// every start. MaxLockTTL caps an automatic fence (default 5m).
	RestartFence string
	MaxLockTTL   time.Duration

	// Restore, for an in-memory keyspace, is the content it starts with:
	// an earlier store's Snapshot (snapshot.go).
	Restore *Snapshot

	// What the layer above lends the core (all optional):
	//
	// NewTxHooks makes the per-transaction context of the layer above
	// for a new pooled Tx (TxHooks); nil: NopHooks.
	NewTxHooks func(tx *Tx) TxHooks
	// FieldExpiry is the earliest field expiry (unix ms, 0: none) of a
	// hash's payload, so that the sweeper finds hashes with fields to
	// expire (the hash family owns the payload's encoding).
	FieldExpiry func(payload string) int64
	// RandIntN returns a random int in [0, n) (RANDOMKEY); nil:
	// math/rand/v2.
	RandIntN func(n int) int
	// ExpiredKeys, when set, counts the keys deleted because their time
	// had passed (INFO's expired_keys).
	ExpiredKeys *atomic.Int64
	// OnSweep is told how long each active-expiry cycle took.
	OnSweep func(d time.Duration)
	// OnFsync is told how long each fsync of the AOF took.
	OnFsync func(policy string, d time.Duration)
}

// TxHooks is how the layer above takes part in a transaction: the core
// calls up through it, never by name. Every method runs inside the
// transaction, under its lock, unless said otherwise.
type TxHooks interface {
	// Body runs the work the transaction was started for, when it was
	// started by Store.Run with a nil body.
	Body()
	// KeyTouched: a write changed key in db (set, deleted, expired); not
	// called for each key a flush removes (Flushing says it once).
	KeyTouched(db int, key string)
	// Flushing: db (every database when db < 0) is about to be emptied.
	Flushing(db int)
	// Swapping and Swapped: SWAPDB is about to exchange, and has
	// exchanged, the keys of databases a and b.
	Swapping(a, b int)
	Swapped(a, b int)
	// KeyExpired: a key whose time had passed is being deleted (or, in a
	// read transaction, was found so: it is deleted after it).
	KeyExpired(db int, key []byte)
	// KeyCreated: a write creates key (it did not exist, or had expired).
	KeyCreated(db int, key []byte)
	// HandOver: a lookup in a write transaction has just deleted the
	// expired key; true when the layer above wrote it again (a lock
	// queue handing it to its next holder): the lookup then reads again.
	HandOver(db int, key []byte) bool
	// ExpireFields: the sweeper's turn for hash fields: expire at most
	// limit of the hashes PopDueFields returns; it returns how many it
	// popped.
	ExpireFields(limit int) int
	// Committing: the write transaction's body is done and it will
	// commit; the last moment to change keys in it.
	Committing()
	// CommitFailed: buntdb could not commit what the body did (an AOF
	// write failed); called after the lock is released.
	CommitFailed(err error)
	// Inherit: this transaction deletes the expired keys read (another
	// transaction's hooks) found, on its behalf.
	Inherit(read TxHooks)
	// Finished: the transaction is over, committed or not, and its
	// after-commit effects ran; called after the lock is released.
	Finished()
	// Reset: the Tx goes back to the pool.
	Reset()
}

// NopHooks is a TxHooks that does nothing: a store used on its own, and a
// base to embed.
type NopHooks struct{}

// Body does nothing.
func (NopHooks) Body() {}

// KeyTouched does nothing.
func (NopHooks) KeyTouched(int, string) {}

// Flushing does nothing.
func (NopHooks) Flushing(int) {}

// Swapping does nothing.
func (NopHooks) Swapping(int, int) {}

// Swapped does nothing.
func (NopHooks) Swapped(int, int) {}

// KeyExpired does nothing.
func (NopHooks) KeyExpired(int, []byte) {}

// KeyCreated does nothing.
func (NopHooks) KeyCreated(int, []byte) {}

// HandOver hands nothing over: false.
func (NopHooks) HandOver(int, []byte) bool { return false }

// ExpireFields expires no field: 0.
func (NopHooks) ExpireFields(int) int { return 0 }

// Committing does nothing.
func (NopHooks) Committing() {}

// CommitFailed does nothing.
func (NopHooks) CommitFailed(error) {}

// Inherit does nothing.
func (NopHooks) Inherit(TxHooks) {}

// Finished does nothing.
func (NopHooks) Finished() {}

// Reset does nothing.
func (NopHooks) Reset() {}

// Store is one server's keyspace: buntdb, the counters kept beside it, the
// expiry queues and sweeper, fencing tokens, persistence, the restart
// fence and change notification.
type Store struct {
	cfg   Config
	db    *buntdb.DB // nil until Load
	path  string     // the buntdb file, ":memory:" for none
	Clock *Clock

	keys     []atomic.Int64 // stored keys per database
	volatile []atomic.Int64 // stored keys with an expiry per database
	dataset  atomic.Int64   // estimated bytes of the keyspace (memory.go)

	expiries      expiryQueue // volatile keys by expiry; under the exclusive lock
	fieldExpiries expiryQueue // hashes with field expiries, by their earliest one
	fieldExpiry   func(payload string) int64

	activeExpireOff atomic.Bool // the sweeper is off (SetActiveExpire)
	expired         *atomic.Int64

	// Ordering of after-commit effects (see commit).
	afterSeq  atomic.Uint64
	afterMu   sync.Mutex
	afterCond *sync.Cond
	afterDone uint64

	persist  *persister   // nil when the keyspace is in memory (persist.go)
	loading  loadState    // Load's progress (loading.go)
	fence    *fence       // the restart fence (fence.go)
	tokens   tokenCounter // fencing tokens (token.go)
	changes  changeState  // change listener, Apply's states, follower (changes.go)
	funcLoad atomic.Pointer[func(payload []byte)]

	txPool  sync.Pool
	started time.Time
	stop    chan struct{}
	wg      sync.WaitGroup
	closed  atomic.Bool
}

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
	if err := checkPersistConfig(&cfg); err != nil { // persist.go
		return nil, err
	}
	// fence.go: lock Dir, read the last run's marker, mark this one running.
	fnc, err := newFence(cfg, path, cfg.Logf)
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
		if s.persist, err = newPersister(s, path, s.cfg.AppendFsync); err != nil {
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

// storedKeys counts the keys of every database.
func (s *Store) storedKeys() int64 {
	var n int64
	for i := range s.keys {
		n += s.keys[i].Load()
	}
	return n
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

// Config returns the store's configuration, defaults filled in.
func (s *Store) Config() Config { return s.cfg }

// Stopping is closed when Close begins: goroutines of the layer above
// that run transactions end on it.
func (s *Store) Stopping() <-chan struct{} { return s.stop }

// Databases is the number of databases.
func (s *Store) Databases() int { return s.cfg.Databases }

// Started is when the store opened.
func (s *Store) Started() time.Time { return s.started }

// Logf logs through the configured logger.
func (s *Store) Logf(level, format string, args ...any) { s.cfg.Logf(level, format, args...) }

// Keys is the number of stored keys in db, as of the last commit (expired
// keys no lookup has met yet included, as Redis's DBSIZE).
func (s *Store) Keys(db int) int64 { return s.keys[db].Load() }

// Volatile is the number of stored keys with an expiry in db.
func (s *Store) Volatile(db int) int64 { return s.volatile[db].Load() }

// Dataset is the estimated memory of the keyspace, in bytes.
func (s *Store) Dataset() int64 { return s.dataset.Load() }

// Do runs fn in a transaction on database db: exclusive when write is set,
// shared otherwise. A panic in fn rolls the transaction back and is
// re-raised after the lock is released.
func (s *Store) Do(write bool, db int, fn func(tx *Tx)) {
	s.Run(s.Get(), write, db, fn)
}

// Get takes a Tx from the pool for Run; its hooks (Hooks) can be prepared
// before it runs.
func (s *Store) Get() *Tx { return s.txPool.Get().(*Tx) }

// Run runs tx (from Get), then returns it to the pool. fn is its body; a
// nil fn runs the hooks' Body. In order: the body, then (write) the
// Committing hook, buntdb's commit, the change listener and the
// after-commit effects in commit order, the deletion of expired keys a
// read transaction found, the Finished hook, the restart fence's record
// and (appendfsync always) the fsync covering the commit.
func (s *Store) Run(tx *Tx, write bool, db int, fn func(tx *Tx)) {
	tx.write = write
	tx.DB = db
	tx.body = fn
	tx.recording = write && !tx.applying && s.changes.listener.Load() != nil
	// Persistence bookkeeping (persist.go): an fsync must cover this commit.
	tx.alwaysSync = write && s.persist != nil && s.persist.policy == FsyncAlways
	var err error
	if write {
		err = s.db.Update(tx.runFn)
	} else {
		err = s.db.View(tx.runFn)
	}
	if err != nil && !errors.Is(err, errRollback) {
		s.Logf("warning", "transaction failed: %v", err)
	}
	if write && s.persist != nil && !errors.Is(err, errRollback) && (err != nil || tx.wroteAOF) {
		// Only a commit that wrote tells whether the disk takes writes.
		s.persist.setWriteErr(err)
		if err != nil {
			tx.up.CommitFailed(err) // buntdb rolled back what the body did
		}
	}
	s.commit(tx, err == nil)
	if len(tx.found) > 0 {
		s.expireAfterRead(tx) // before the reply: see there
	}
	tx.up.Finished()
	if err == nil {
		if tx.maxTTL > 0 {
			s.fence.grant(tx.maxTTL, s.cfg.Logf) // durable before the reply
		}
		if tx.alwaysSync && tx.wroteAOF {
			// Group commit: the reply waits for an fsync covering it.
			s.persist.waitDurable()
		}
	}
	panicked := tx.panicked
	tx.reset()
	tx.up.Reset()
	s.txPool.Put(tx)
	if panicked != nil {
		panic(panicked)
	}
}

// run is the buntdb transaction function of every Run; the Tx keeps it as
// a method value (runFn) so that passing it allocates nothing.
func (tx *Tx) run(bt *buntdb.Tx) (err error) {
	s := tx.s
	defer func() {
		if r := recover(); r != nil {
			tx.panicked = r
			err = errRollback
		}
	}()
	tx.bt = bt
	if tx.at.IsZero() {
		tx.Now = s.Clock.Now()
	} else {
		tx.Now = tx.at // Apply runs at its batch's time
	}
	tx.Ms = tx.Now.UnixMilli()
	if tx.body != nil {
		tx.body(tx)
	} else {
		tx.up.Body()
	}
	if tx.rollback {
		return errRollback
	}
	if tx.write {
		tx.up.Committing()
		for _, ent := range tx.expiring {
			s.expiries.add(ent.at, ent.bkey)
			tx.maxTTL = max(tx.maxTTL, ent.at-tx.Ms) // for the restart fence
		}
		for _, ent := range tx.fieldExpiring {
			s.fieldExpiries.add(ent.at, ent.bkey)
		}
	}
	if tx.recording {
		tx.closeBatch() // changes.go
	}
	if len(tx.after) > 0 || tx.batch != nil {
		// Number the transaction while it still holds the lock, so
		// that effects run after commit in commit order.
		tx.seq = s.afterSeq.Add(1)
	}
	return nil
}

// commit applies a finished transaction's effects: counters, and the
// functions queued with After (PUBLISH deliveries), which run only if it
// committed, and in the order transactions committed.
//
// A ChangeListener (changes.go) is told of the transaction's batch first,
// in the same order; the wait it returns runs between the two, so that
// waiting for one batch holds back neither the next batch's Committed nor
// anything but this transaction's own effects (and, to keep their order,
// those of later transactions).
func (s *Store) commit(tx *Tx, ok bool) {
	if tx.seq != 0 {
		s.afterMu.Lock()
		for s.changes.listenDone != tx.seq-1 {
			s.afterCond.Wait()
		}
		var wait func()
		if ok && tx.batch != nil {
			if l := s.changes.listener.Load(); l != nil {
				wait = (*l).Committed(tx.batch)
			}
		}
		s.changes.listenDone = tx.seq
		if wait != nil {
			s.afterCond.Broadcast()
			s.afterMu.Unlock()
			wait()
			s.afterMu.Lock()
		}
		for s.afterDone != tx.seq-1 {
			s.afterCond.Wait()
		}
		if ok {
			for _, fn := range tx.after {
				fn()
			}
		}
		s.afterDone = tx.seq
		s.afterCond.Broadcast()
		s.afterMu.Unlock()
	}
	if !ok {
		return
	}
	for i, d := range tx.keyDelta {
		if d != 0 {
			s.keys[i].Add(d)
		}
		if v := tx.volDelta[i]; v != 0 {
			s.volatile[i].Add(v)
		}
	}
	if tx.expired > 0 {
		s.expired.Add(tx.expired)
	}
	if tx.memDelta != 0 {
		s.dataset.Add(tx.memDelta)
	}
}

// randIntN is RANDOMKEY's source of random picks.
func (s *Store) randIntN(n int) int {
	if s.cfg.RandIntN != nil {
		return s.cfg.RandIntN(n)
	}
	return randv2IntN(n)
}

// storedFieldExpiry is the earliest field expiry of an encoded item, 0 when
// it is not a hash or no field has one.
func (s *Store) storedFieldExpiry(raw string) int64 {
	if len(raw) < headerLen || Type(raw[0]&^hasToken) != TypeHash {
		return 0
	}
	return s.fieldExpiry(DecodeValue(raw).Payload)
}
