package keyspace

import (
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

// storedKeys counts the keys of every database.
func (s *Store) storedKeys() int64 {
	var n int64
	for i := range s.keys {
		n += s.keys[i].Load()
	}
	return n
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
	if typeOf(raw) != TypeHash {
		return 0
	}
	return s.fieldExpiry(DecodeValue(raw).Payload)
}

// Tx is one atomic unit of work on the keyspace: a command, a script or an
// EXEC. It sees one frozen "now". Writes become visible to others, and their
// effects (counters, deferred publishes) happen, only when it commits.
//
// It holds only what the keyspace needs; the layer above keeps the
// command being run (client, call stack, reply writer...) in its own
// per-transaction context, reached through Hooks.
type Tx struct {
	s        *Store
	up       TxHooks // the layer above's context (Config.NewTxHooks)
	bt       *buntdb.Tx
	write    bool
	rollback bool

	// Now is the frozen time of this unit of work, Ms the same in unix ms.
	Now time.Time
	Ms  int64
	// DB is the database the current command works on.
	DB int

	keyBuf []byte
	// memo is the stored item GetIn last looked up (memoKey's bytes, as
	// buntdb keeps them, or memoFound false when there was none), so the
	// next look at the same key skips buntdb's b-tree: a script's
	// redis.calls, or a command's read before its write, keep going back
	// to one key. Every write through this transaction updates it or
	// drops it (memoWrote, memoDrop).
	memoKey   []byte
	memoRaw   string
	memoFound bool
	memoOK    bool
	// readKey and readToken: the last key this write transaction read and
	// its fencing token (token.go).
	readKey   []byte
	readToken uint64
	keyDelta  []int64 // per-db change in key count, applied at commit
	volDelta  []int64 // per-db change in keys with an expiry
	expired   int64   // keys removed because they had expired
	after     []func()
	expiring  []expiryEntry // keys given an expiry, queued for the sweeper at commit
	seq       uint64        // order of this transaction's after-commit effects
	// flushedAll: FlushAll ran in this transaction (see PutIn).
	flushedAll bool
	// found: expired keys a lookup met but could not delete, because the
	// transaction is read-only or an iteration is under way (iterating).
	// expireFound deletes them (see foundExpired).
	found     []expiryEntry
	iterating bool
	// expiredAnnounced: the keys in found were announced "expired" by
	// the read transaction that found them (expireAfterRead).
	expiredAnnounced bool

	// fieldExpiring: hashes whose earliest field expiry changed, queued
	// for the sweeper at commit (hashttl_sweep.go).
	fieldExpiring []expiryEntry

	// flushing: FlushDB is removing keys one by one, which the flush
	// already announced (Hooks.Flushing).
	flushing bool

	// How Store.Run runs it (run.go).
	body       func(*Tx)
	runFn      func(*buntdb.Tx) error // tx.run, bound once
	panicked   any
	alwaysSync bool
	// wroteAOF: the transaction changed an item, so buntdb's commit
	// appends to the AOF when there is one (and, with appendfsync always,
	// the reply waits for an fsync covering it).
	wroteAOF bool
	maxTTL   int64
	// memDelta: change in the keyspace's estimated memory (memory.go),
	// applied at commit.
	memDelta int64

	// Change notification (record.go). recording: a ChangeListener
	// listens, so the physical changes go to changes, which closeBatch
	// turns into batch at commit. applying: Apply runs, at the time at.
	recording bool
	changes   []Change
	batch     *ChangeBatch
	applying  bool
	at        time.Time
}

// StateHandler owns a kind of state that lives outside the keyspace but
// must be replicated and snapshotted with it (RegisterState).
type StateHandler interface {
	// ApplyState applies a payload recorded with Tx.RecordState, inside
	// Apply's write transaction (tx), on the store that applies it.
	ApplyState(tx *Tx, payload []byte) error
	// SaveState returns the whole state, for a snapshot.
	SaveState() ([]byte, error)
	// RestoreState replaces the whole state with what SaveState returned
	// (nil: empty), inside the restoring write transaction.
	RestoreState(tx *Tx, payload []byte) error
}

// changeState is the store's share of change notification.
type changeState struct {
	listener atomic.Pointer[ChangeListener]
	seq      atomic.Uint64 // the last batch's Seq (under the write lock)

	// Ordering of the listener's calls (commit): listenDone is the last
	// transaction sequence (Tx.seq) that passed the listener stage.
	listenDone uint64 // under Store.afterMu

	statesMu sync.Mutex
	states   map[string]StateHandler

	// follower: the store applies another's changes and expires or
	// hands over nothing by itself (SetFollower).
	follower atomic.Bool
}
