// Package engine is lockredis's keyspace: typed values with millisecond
// expiry on top of buntdb, the engine-owned clock, the active expiry
// sweeper and the command table. It knows nothing of sockets, Lua or
// subscriptions; those packages register commands here and implement the
// small interfaces the engine calls through.
package engine

import (
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tidwall/buntdb"
)

// Version is the Redis version lockredis reports (INFO, HELLO).
const Version = "7.0.15"

// Config configures an Engine.
type Config struct {
	Databases   int    // default 16, at most 256
	RequirePass string // empty: no authentication
	// ACLFile is redis.conf's aclfile: the users, loaded by LoadACLFile
	// and ACL LOAD, written by ACL SAVE (acl_file.go).
	ACLFile string
	Clock   *Clock // default: a real clock
	Path    string // buntdb file; "" keeps the keyspace in memory
	Logf    func(level, format string, args ...any)

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
	// LockDelay is how long a SESSION lock whose connection died stays
	// with its dead owner before it passes on, unless LOCK.ACQUIRE said
	// LOCKDELAY (CONFIG SET lock-delay changes it).
	LockDelay time.Duration

	// Guards (guards.go). LuaTimeLimit is busy-reply-threshold: past it
	// other clients get BUSY (0: 5 s, negative: at once).
	// LuaHardTimeLimit stops a script and rolls it back (0: 60 s,
	// negative: never). MaxMemory refuses denyoom commands past it (0:
	// no limit); MaxMemoryPolicy must be "" or noeviction. Params'
	// lua-time-limit, busy-reply-threshold, lua-hard-time-limit,
	// maxmemory and maxmemory-policy apply when these are zero.
	LuaTimeLimit     time.Duration
	LuaHardTimeLimit time.Duration
	MaxMemory        int64
	MaxMemoryPolicy  string

	// Shutdown stops the server for SHUTDOWN (cmd_shutdown.go): whoever
	// assembles the server sets it (cmd/lockredis exits with status 0, an
	// embedded server closes itself). It must return at once and stop
	// the server in the background: the SHUTDOWN connection is still
	// being served. Nil: SHUTDOWN is refused.
	Shutdown func(ShutdownFlags)

	// Cluster emulates a single-node cluster (cmd_cluster.go), as does
	// Params["cluster-enabled"] "yes".
	Cluster bool

	// Params are extra CONFIG GET values supplied by whoever assembles
	// the server (port, bind, dir, appendonly...).
	Params map[string]string
	// OnConfigSet, when set, is told of every parameter CONFIG SET
	// changed (name, normalized value), after the engine applied it: the
	// assembler applies those it owns (loglevel).
	OnConfigSet func(name, value string)

	// Restore, for an in-memory keyspace, is the content it starts with:
	// an earlier engine's Snapshot (snapshot.go).
	Restore *Snapshot
}

// Publisher delivers PUBLISH messages. The engine counts receivers while
// the command runs and delivers after the transaction commits.
type Publisher interface {
	Receivers(channel []byte) int
	Deliver(channel, message []byte)
}

// Stats are the counters INFO reports.
type Stats struct {
	Connections     atomic.Int64 // total_connections_received
	Commands        atomic.Int64 // total_commands_processed
	Rejected        atomic.Int64 // rejected_connections
	ExpiredKeys     atomic.Int64
	KeyspaceHits    atomic.Int64
	KeyspaceMisses  atomic.Int64
	NetInputBytes   atomic.Int64
	NetOutputBytes  atomic.Int64
	ErrorReplies    atomic.Int64
	PubsubMessages  atomic.Int64
	ProtocolErrors  atomic.Int64
	ExpireCycleRuns atomic.Int64
}

// Engine is one server's keyspace and command table. Many engines can live
// in one process; they share nothing.
type Engine struct {
	cfg   Config
	db    *buntdb.DB
	Clock *Clock
	Table *Table
	Stats Stats

	keys     []atomic.Int64 // stored keys per database
	volatile []atomic.Int64 // stored keys with an expiry per database

	publisher     Publisher
	notifyClasses atomic.Uint32 // notify-keyspace-events (notify.go)
	// counters are each command's statistics, by ACL id (stats.go).
	counters [aclFutureBit + 1]atomic.Pointer[cmdCounters]

	scans *scanCache // where recent SCAN cursors stopped (scan.go)

	// Listeners of changed keys (WATCH, blocked clients); listening counts
	// the clients that need reports, so transactions skip the work at 0.
	listenersMu sync.Mutex
	listeners   []listenerEntry
	listening   atomic.Int32
	watches     watchRegistry
	blocks      blockRegistry
	expiries    expiryQueue  // volatile keys by expiry; under the exclusive lock
	tracker     tracker      // client-side caching (tracking.go)
	locks       lockRegistry // lock holders, session locks, deadline timers (lockqueue.go)
	net         netParams    // protected-mode, timeout, tcp-keepalive (protect.go)
	outLimits   outputLimits // client-output-buffer-limit (outbuf.go)
	cfgState    configState  // CONFIG SET's stored values, CONFIG REWRITE (config_runtime.go)
	cluster     clusterState // the single-node cluster emulation (cmd_cluster.go)

	// fieldExpiries: hashes with field expiries, by their earliest one
	// (hashttl_sweep.go); under the exclusive lock.
	fieldExpiries expiryQueue

	activeExpireOff atomic.Bool // the sweeper is off (SetActiveExpire)

	pause pauseState
	ops   opsState // slow log, latency monitor, MONITOR (ops.go)

	execCmd *Command   // EXEC, whose refusal discards the transaction (dispatch.go)
	errors  errorStats // INFO errorstats (stats.go)

	clientsMu sync.Mutex
	clients   map[int64]*Session
	nextID    atomic.Int64

	// Ordering of after-commit effects (see commit).
	afterSeq  atomic.Uint64
	afterMu   sync.Mutex
	afterCond *sync.Cond
	afterDone uint64

	persist   *persister     // nil when the keyspace is in memory (persist.go)
	fence     *fence         // the restart fence (fence.go)
	guards    guards         // OOM, MISCONF and BUSY refusals (guards.go)
	functions functionsState // persistence, INFO and BUSY of functions (functions_store.go)
	acl       aclState       // ACL users and log (acl.go)
	tokens    tokenCounter   // fencing tokens (token.go)
	changes   changeState    // change listener, Apply's states, follower (changes.go)

	txPool  sync.Pool
	started time.Time
	stop    chan struct{}
	wg      sync.WaitGroup
	closed  atomic.Bool

	// The Go API's test controls: the source of random picks (Seed,
	// random.go) and the error that answers every command (SetError,
	// forced.go).
	rand      randSource
	forcedErr atomic.Pointer[string]
}

// New opens the keyspace and starts the expiry sweeper.
func New(cfg Config) (*Engine, error) {
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
	netInit, err := parseNetParams(cfg.Params) // protect.go
	if err != nil {
		return nil, err
	}
	// fence.go: lock Dir, read the last run's marker, mark this one running.
	fnc, err := newFence(cfg, path, cfg.Logf)
	if err != nil {
		return nil, err
	}
	started := false
	defer func() {
		if !started {
			fnc.release()
		}
	}()
	if path == "" {
		path = ":memory:"
	} else if err := persistPrepare(path, cfg.Logf); err != nil {
		// persist.go: a torn tail is cut here, a corrupt middle refused.
		return nil, err
	}
	db, err := buntdb.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	var bc buntdb.Config
	if err := db.ReadConfig(&bc); err != nil {
		db.Close()
		return nil, err
	}
	// buntdb must never expire anything itself: expiry lives in our values.
	bc.OnExpired = nil
	bc.OnExpiredSync = nil
	// persist.go owns fsync and rewrites (see there).
	bc.SyncPolicy = buntdb.Never
	bc.AutoShrinkDisabled = true
	if err := db.SetConfig(bc); err != nil {
		db.Close()
		return nil, err
	}
	e := &Engine{
		cfg:      cfg,
		db:       db,
		Clock:    cfg.Clock,
		Table:    newTable(),
		keys:     make([]atomic.Int64, cfg.Databases),
		volatile: make([]atomic.Int64, cfg.Databases),
		clients:  make(map[int64]*Session),
		started:  time.Now(),
		stop:     make(chan struct{}),
		scans:    newScanCache(),
		fence:    fnc,
		cluster:  newClusterState(cfg),
	}
	if err := e.initGuards(&cfg); err != nil { // guards.go
		db.Close()
		return nil, err
	}
	if err := e.initOutputLimits(cfg.Params); err != nil { // outbuf.go
		db.Close()
		return nil, err
	}
	e.afterCond = sync.NewCond(&e.afterMu)
	e.initACL()
	e.net.set(netInit)
	e.txPool.New = func() any {
		tx := &Tx{e: e, keyDelta: make([]int64, cfg.Databases), volDelta: make([]int64, cfg.Databases)}
		tx.runFn = tx.run
		return tx
	}
	var lastToken uint64
	if path == ":memory:" {
		if lastToken, err = restore(db, cfg.Restore); err != nil { // snapshot.go
			db.Close()
			return nil, err
		}
	}
	maxToken, err := e.countKeys()
	if err != nil {
		db.Close()
		return nil, err
	}
	if fnc.path != "" {
		e.tokens.reserve = fnc.reserveTokens
	}
	e.tokens.start(max(fnc.tokensReserved, lastToken), maxToken)
	e.blocks.e = e
	e.tracker.init(e)
	if v, ok := cfg.Params["tracking-table-max-keys"]; ok {
		n, ok := ParseInt([]byte(v))
		if !ok || n < 0 {
			db.Close()
			return nil, fmt.Errorf("tracking-table-max-keys must be an integer >= 0, got %q", v)
		}
		e.tracker.maxKeys.Store(n)
	}
	if err := e.initOps(); err != nil { // ops.go
		db.Close()
		return nil, err
	}
	e.addListener(&e.watches, false)
	e.addListener(&e.blocks, true)
	e.locks.init(e, cfg.LockDelay)
	e.addListener(&e.locks, true) // after blocks: sees keys already handed over
	e.registerBuiltins()
	e.execCmd = e.Table.Get([]byte("exec"))
	if path != ":memory:" {
		if e.persist, err = newPersister(e, path, cfg.AppendFsync); err != nil {
			db.Close()
			return nil, err
		}
		e.persist.start()
	}
	e.locks.loadSessions() // lock_session.go
	e.wg.Add(1)
	go e.sweeper()
	started = true
	return e, nil
}

// countKeys initialises the per-database counters and the expiry queue
// from what was loaded, and finds the largest fencing token it holds.
func (e *Engine) countKeys() (maxToken uint64, err error) {
	err = e.db.View(func(bt *buntdb.Tx) error {
		return bt.Ascend("", func(k, v string) bool {
			if len(k) == 0 || int(k[0]) >= len(e.keys) {
				return true
			}
			e.keys[k[0]].Add(1)
			e.guards.dataset.Add(itemMemory(k, v))
			if at := expireAtOf(v); at != 0 {
				e.volatile[k[0]].Add(1)
				e.expiries.add(at, k)
			}
			if at := storedFieldExpiry(v); at != 0 {
				e.fieldExpiries.add(at, k)
			}
			maxToken = max(maxToken, tokenOf(v))
			return true
		})
	})
	return maxToken, err
}

// Close stops the sweeper and closes the keyspace (flushing it to disk).
func (e *Engine) Close() error {
	if !e.closed.CompareAndSwap(false, true) {
		return nil
	}
	close(e.stop)
	e.locks.close()
	e.wg.Wait()
	if e.persist != nil {
		e.persist.close() // waits for a rewrite, fsyncs, releases waiters
	}
	// A clean stop records the last token handed out, so the next run
	// resumes right after it instead of after the whole reserved range.
	if e.tokens.reserve != nil {
		e.fence.tokensReserved = e.tokens.next - 1
	}
	ferr := e.fence.stop() // the clean-stop marker (fence.go)
	if err := e.db.Close(); err != nil {
		return err
	}
	return ferr
}

// Config returns the engine's configuration.
func (e *Engine) Config() Config { return e.cfg }

// Databases is the number of databases.
func (e *Engine) Databases() int { return e.cfg.Databases }

// SetPublisher connects PUBLISH to a pub/sub implementation.
func (e *Engine) SetPublisher(p Publisher) { e.publisher = p }

// Publisher returns the connected publisher, or nil.
func (e *Engine) Publisher() Publisher { return e.publisher }

// Started is when the engine started.
func (e *Engine) Started() time.Time { return e.started }

// Logf logs through the configured logger.
func (e *Engine) Logf(level, format string, args ...any) { e.cfg.Logf(level, format, args...) }

// Call is one command invocation handed to a Handler.
type Call struct {
	E    *Engine
	S    *Session
	W    Writer
	Args [][]byte
	Cmd  *Command
	Tx   *Tx // nil for FlagNoKeyspace commands run outside a transaction

	canBlock bool
	served   []byte         // the key whose change runs a blocked command (blocking.go)
	cw       countingWriter // W while the handler runs (dispatch.go)
	redacted [][]byte       // Args as MONITOR and SLOWLOG show them (Redact)
}

// Err replies with an error value.
func (c *Call) Err(err error) { c.W.Error(err.Error()) }

// OK replies +OK.
func (c *Call) OK() { c.W.Status("OK") }

// Errf replies with a formatted error; the format must start with a prefix.
func (c *Call) Errf(format string, args ...any) { c.W.Error(fmt.Sprintf(format, args...)) }

// Do runs fn in a transaction on database db: exclusive when write is set,
// shared otherwise. A panic in fn rolls the transaction back and is
// re-raised after the engine lock is released.
func (e *Engine) Do(write bool, db int, fn func(tx *Tx)) {
	e.do(e.txPool.Get().(*Tx), write, db, fn)
}

func (e *Engine) do(tx *Tx, write bool, db int, fn func(tx *Tx)) {
	tx.write = write
	tx.DB = db
	tx.body = fn
	tx.recording = write && !tx.applying && e.changes.listener.Load() != nil
	// Persistence bookkeeping (persist.go): an fsync must cover this commit.
	tx.alwaysSync = write && e.persist != nil && e.persist.policy == FsyncAlways
	var err error
	if write {
		err = e.db.Update(tx.runFn)
	} else {
		err = e.db.View(tx.runFn)
	}
	if err != nil && !errors.Is(err, errRollback) {
		e.Logf("warning", "transaction failed: %v", err)
	}
	if write && e.persist != nil && !errors.Is(err, errRollback) && (err != nil || tx.wroteAOF) {
		// Only a commit that wrote tells whether the disk takes writes.
		e.persist.setWriteErr(err)
		if err != nil && tx.retractable {
			// buntdb rolled back what the handler replied about.
			e.replaceWithDiskError(tx.callW, tx.replyMark, err)
		}
	}
	e.commit(tx, err == nil)
	if len(tx.found) > 0 {
		e.expireAfterRead(tx) // before the reply: see there
	}
	if tx.readBy != nil {
		// Keys a tracking client read, recorded after the deletions of
		// what the read found expired (tracking.go, rememberCall).
		e.tracker.remember(tx.readBy, tx.readKeys)
	}
	if err == nil {
		if tx.maxTTL > 0 {
			e.fence.grant(tx.maxTTL, e.cfg.Logf) // durable before the reply
		}
		if tx.alwaysSync && tx.wroteAOF {
			// Group commit: the reply waits for an fsync covering it.
			e.persist.waitDurable()
		}
	}
	panicked := tx.panicked
	tx.reset()
	e.txPool.Put(tx)
	if panicked != nil {
		panic(panicked)
	}
}

// run is the buntdb transaction function of every Do; the Tx keeps it as a
// method value (runFn) so that passing it allocates nothing.
func (tx *Tx) run(bt *buntdb.Tx) (err error) {
	e := tx.e
	defer func() {
		if r := recover(); r != nil {
			tx.panicked = r
			err = errRollback
		}
	}()
	tx.bt = bt
	if tx.at.IsZero() {
		tx.Now = e.Clock.Now()
	} else {
		tx.Now = tx.at // Apply runs at its batch's time
	}
	tx.Ms = tx.Now.UnixMilli()
	tx.body(tx)
	if tx.rollback {
		return errRollback
	}
	if tx.write {
		// Blocked clients are served after the command, as by Redis's
		// handleClientsBlockedOnKeys: what they raise reaches a RESP3
		// client subscribed to its own events after its whole reply.
		if tx.call.S != nil {
			tx.clientCall = &tx.call
		}
		tx.notifyTouched()
		tx.clientCall = nil
		for _, ent := range tx.expiring {
			e.expiries.add(ent.at, ent.bkey)
			tx.maxTTL = max(tx.maxTTL, ent.at-tx.Ms) // for the restart fence
		}
		for _, ent := range tx.fieldExpiring {
			e.fieldExpiries.add(ent.at, ent.bkey)
		}
	}
	if tx.recording {
		tx.closeBatch() // changes.go
	}
	if len(tx.after) > 0 || tx.batch != nil {
		// Number the transaction while it still holds the lock, so
		// that effects run after commit in commit order.
		tx.seq = e.afterSeq.Add(1)
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
func (e *Engine) commit(tx *Tx, ok bool) {
	if tx.seq != 0 {
		e.afterMu.Lock()
		for e.changes.listenDone != tx.seq-1 {
			e.afterCond.Wait()
		}
		var wait func()
		if ok && tx.batch != nil {
			if l := e.changes.listener.Load(); l != nil {
				wait = (*l).Committed(tx.batch)
			}
		}
		e.changes.listenDone = tx.seq
		if wait != nil {
			e.afterCond.Broadcast()
			e.afterMu.Unlock()
			wait()
			e.afterMu.Lock()
		}
		for e.afterDone != tx.seq-1 {
			e.afterCond.Wait()
		}
		if ok {
			for _, fn := range tx.after {
				fn()
			}
		}
		e.afterDone = tx.seq
		e.afterCond.Broadcast()
		e.afterMu.Unlock()
	}
	if !ok {
		return
	}
	for i, d := range tx.keyDelta {
		if d != 0 {
			e.keys[i].Add(d)
		}
		if v := tx.volDelta[i]; v != 0 {
			e.volatile[i].Add(v)
		}
	}
	if tx.expired > 0 {
		e.Stats.ExpiredKeys.Add(tx.expired)
	}
	if tx.memDelta != 0 {
		e.guards.dataset.Add(tx.memDelta)
	}
}

// Register adds commands to the table.
func (e *Engine) Register(cmds ...*Command) { e.Table.Register(cmds...) }

// AddSession registers a session and gives it an id.
func (e *Engine) AddSession(s *Session) {
	s.ID = e.nextID.Add(1)
	if s.Kind == KindClient {
		e.addSessionAuth(s)
		e.clientsMu.Lock()
		e.clients[s.ID] = s
		e.clientsMu.Unlock()
	}
}

// RemoveSession forgets a session and its transaction state.
func (e *Engine) RemoveSession(s *Session) {
	e.ResetTransaction(s)
	e.tracker.disable(s)
	e.locks.sessionClosed(s) // SESSION locks die with their connection
	e.stopMonitor(s)
	e.clientsMu.Lock()
	delete(e.clients, s.ID)
	e.clientsMu.Unlock()
}

// Sessions returns the live sessions ordered by id.
func (e *Engine) Sessions() []*Session {
	e.clientsMu.Lock()
	out := make([]*Session, 0, len(e.clients))
	for _, s := range e.clients {
		out = append(out, s)
	}
	e.clientsMu.Unlock()
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].ID < out[j-1].ID; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// BlockedClients is the number of clients waiting in a blocking command.
func (e *Engine) BlockedClients() int { return e.blocks.Waiting() + e.locks.waiting() }

// ClientCount is the number of connected clients.
func (e *Engine) ClientCount() int {
	e.clientsMu.Lock()
	defer e.clientsMu.Unlock()
	return len(e.clients)
}

// NeedsAuth reports whether s must authenticate before running commands.
// As Redis's authRequired: a session must log in while the default user
// has a password or is off, and a session whose user was deleted must log
// in again (it is being closed).
func (e *Engine) NeedsAuth(s *Session) bool {
	if u := s.user.Load(); u != nil && u.deleted.Load() {
		return true
	}
	if s.Authenticated {
		return false
	}
	r := e.acl.def.load()
	return r.flags&userNopass == 0 || r.flags&userOff != 0
}
