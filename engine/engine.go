// Package engine is lockredis's command layer, on top of the keyspace core
// (package keyspace): the command table and the one dispatcher, sessions,
// the command families, the lock queue, blocking, ACL, client tracking,
// cluster emulation and the server's statistics and operations. It knows
// nothing of sockets, Lua or subscriptions; those packages register
// commands here and implement the small interfaces the engine calls
// through.
package engine

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lockredis/lockredis/config"
	"github.com/lockredis/lockredis/keyspace"
)

// Version is the Redis version lockredis reports (INFO, HELLO).
const Version = "7.0.15"

// Config configures an Engine. Its parameters (databases, dir,
// appendonly, timeout...) are Params, by their redis.conf names: the
// config package's spec says what each takes and the engine checks them
// as CONFIG SET does (config_runtime.go).
type Config struct {
	// Params are the parameters given at start, by name (a parameter not
	// given takes the spec's default). An unknown name or a value the
	// spec refuses fails New. Those the assembler applies (port, bind,
	// tls-*, maxclients, loglevel...) are kept for CONFIG GET.
	Params map[string]string
	// Hooks are how CONFIG SET reaches the parameters the assembler
	// applies at runtime (the server's port and bind).
	Hooks map[string]ParamHook
	// ConfigFile is the file CONFIG REWRITE writes (INFO's config_file);
	// "" when the server started without one.
	ConfigFile string
	// Version is the assembler's own version, for INFO (lockredis_version).
	Version string

	Clock *Clock // default: a real clock
	Path  string // buntdb file; "" keeps the keyspace in memory (unless appendonly)
	Logf  func(level, format string, args ...any)

	// Shutdown stops the server for SHUTDOWN (cmd_shutdown.go): whoever
	// assembles the server sets it (cmd/lockredis exits with status 0, an
	// embedded server closes itself). It must return at once and stop
	// the server in the background: the SHUTDOWN connection is still
	// being served. Nil: SHUTDOWN is refused.
	Shutdown func(ShutdownFlags)

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

	aofFsync histogram // how long the AOF's fsyncs took (StatsSnapshot)
}

// Engine is one server's command layer over its keyspace. Many engines can
// live in one process; they share nothing.
type Engine struct {
	cfg   settings // Config and the parameters it is built from (config_runtime.go)
	ks    *keyspace.Store
	Clock *Clock
	Table *Table
	Stats Stats

	publisher     Publisher
	notifyClasses atomic.Uint32 // notify-keyspace-events (notify.go)
	tally         commandTally  // commandstats, errorstats (stats.go)

	scans *scanCache // where recent SCAN cursors stopped (scan.go)

	// Listeners of changed keys (WATCH, blocked clients); listening counts
	// the clients that need reports, so transactions skip the work at 0.
	listenersMu sync.Mutex
	listeners   []listenerEntry
	listening   atomic.Int32
	watches     watchRegistry
	blocks      blockRegistry
	tracker     tracker      // client-side caching (tracking.go)
	locks       lockRegistry // lock holders, session locks, deadline timers (lockqueue.go)
	net         netParams    // protected-mode, timeout, tcp-keepalive (protect.go)
	outLimits   outputLimits // client-output-buffer-limit (outbuf.go)
	cfgState    configState  // CONFIG SET's stored values, CONFIG REWRITE (config_runtime.go)
	cluster     clusterState // the single-node cluster emulation (cmd_cluster.go)

	pause pauseState
	ops   opsState // slow log, latency monitor, MONITOR (ops.go)

	execCmd *Command // EXEC, whose refusal discards the transaction (dispatch.go)

	clientsMu sync.Mutex
	clients   map[int64]*Session
	nextID    atomic.Int64

	guards    guards         // OOM, MISCONF and BUSY refusals (guards.go)
	functions functionsState // INFO and BUSY of functions (functions.go)
	acl       aclState       // ACL users and log (acl.go)

	started time.Time
	closed  atomic.Bool

	// The Go API's test controls: the source of random picks (Seed,
	// random.go) and the error that answers every command (SetError,
	// forced.go).
	rand      randSource
	forcedErr atomic.Pointer[string]

	// replInfo answers INFO replication on a replicated node
	// (replication_hooks.go).
	replInfo atomic.Pointer[func(b []byte) []byte]
}

// New opens the keyspace, loads it and starts the expiry sweeper: Open
// and Load in one call.
func New(cfg Config) (*Engine, error) {
	e, err := Open(cfg)
	if err != nil {
		return nil, err
	}
	if err := e.Load(); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

// Open makes an engine whose keyspace is not loaded yet: the settings are
// checked, the restart fence decided and the commands registered, so a
// server can accept clients while Load reads a large file; until Load
// returns they get LOADING for every command Redis refuses while loading
// (dispatch.go, guards.go). Close releases the engine, loaded or not.
func Open(c Config) (*Engine, error) {
	cfg, given, err := newSettings(c) // config_runtime.go
	if err != nil {
		return nil, err
	}
	e := &Engine{
		Clock:   cfg.Clock,
		Table:   newTable(),
		clients: make(map[int64]*Session),
		started: time.Now(),
		scans:   newScanCache(),
		cluster: newClusterState(cfg),
	}
	ks, err := keyspace.Open(keyspace.Config{
		Databases: cfg.Databases, Clock: cfg.Clock, Path: cfg.Path, Logf: cfg.Logf,
		Dir: cfg.Dir, AppendOnly: cfg.AppendOnly, AppendFsync: cfg.AppendFsync,
		AppendFilename: cfg.AppendFilename, RestartFence: cfg.RestartFence,
		MaxLockTTL: cfg.MaxLockTTL, Restore: cfg.Restore,
		NewTxHooks:  e.newTx,
		FieldExpiry: hashFieldExpiry, // encoding_hash.go
		RandIntN:    e.randIntN,      // random.go
		ExpiredKeys: &e.Stats.ExpiredKeys,
		OnSweep: func(d time.Duration) {
			e.Stats.ExpireCycleRuns.Add(1)
			e.LatencySample("expire-cycle", d.Milliseconds())
		},
		OnFsync: func(policy string, d time.Duration) {
			e.latencyFsync(policy, d) // cmd_latency.go
			e.Stats.aofFsync.add(d)   // statsnapshot.go
		},
	})
	if err != nil {
		return nil, err
	}
	// What the keyspace settled (defaults, the fsync policy's case).
	kc := ks.Config()
	cfg.Databases, cfg.AppendFsync, cfg.AppendFilename = kc.Databases, kc.AppendFsync, kc.AppendFilename
	e.cfg, e.ks = cfg, ks
	if err := e.init(cfg, given); err != nil {
		ks.Close() // not loaded: writes no clean-stop marker
		return nil, err
	}
	return e, nil
}

// Load reads the keyspace (the append-only file, or Config.Restore),
// logging its progress and showing it in INFO persistence, then starts
// persistence and the expiry sweeper (keyspace.Store.Load), and indexes the
// lock sessions it holds. It runs once, after Open; after an error the
// engine must be closed.
func (e *Engine) Load() error {
	if err := e.ks.Load(); err != nil {
		return err
	}
	e.locks.loadSessions() // lock_session.go: the sessions the keyspace holds
	return nil
}

// init sets up the command layer's parts once the keyspace is open: each
// part binds the parameters it applies (in its own file), then every
// parameter takes its given value or its default.
func (e *Engine) init(cfg settings, given *config.Settings) error {
	e.initACL()
	e.blocks.e = e
	e.tracker.init(e)
	e.initOps() // ops.go
	e.addListener(&e.watches, false)
	e.addListener(&e.blocks, true)
	e.locks.init(e)
	e.addListener(&e.locks, true) // after blocks: sees keys already handed over
	e.registerBuiltins()
	e.execCmd = e.Table.Get([]byte("exec"))
	e.bindNetParams()                      // protect.go
	e.bindGuardParams()                    // guards.go
	e.bindOpsParams()                      // ops.go
	e.bindNotifyParams()                   // notify.go
	e.bindTrackingParams()                 // tracking.go
	e.bindLockParams()                     // lockqueue.go
	e.bindOutputLimits()                   // outbuf.go
	e.bindACLParams()                      // acl.go
	return e.startConfig(given, cfg.Hooks) // config_runtime.go
}

// Close stops the lock timers and the sweeper, and closes the keyspace
// (flushing it to disk).
func (e *Engine) Close() error {
	if !e.closed.CompareAndSwap(false, true) {
		return nil
	}
	e.locks.close()
	return e.ks.Close()
}

// Keyspace is the engine's keyspace core: change notification, Apply,
// snapshots and the follower switch for replication (keyspace/changes.go).
func (e *Engine) Keyspace() *keyspace.Store { return e.ks }

// Config returns the engine's configuration.
func (e *Engine) Config() Config { return e.cfg.Config }

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
	e.do(e.getTx(), write, db, fn)
}

// getTx takes a transaction from the keyspace's pool, with its command
// context (tx.go).
func (e *Engine) getTx() *Tx { return e.ks.Get().Hooks().(*Tx) }

// do runs tx (from getTx) with the body fn (keyspace.Store.Run says in
// what order the hooks of tx.go run around it).
func (e *Engine) do(tx *Tx, write bool, db int, fn func(tx *Tx)) {
	tx.body = fn
	e.ks.Run(tx.Tx, write, db, nil)
}

// Register adds commands to the table.
func (e *Engine) Register(cmds ...*Command) { e.Table.Register(cmds...) }

// AddSession registers a session and gives it an id.
func (e *Engine) AddSession(s *Session) {
	s.ID = e.nextID.Add(1)
	if s.Kind == KindClient {
		e.acl.addSessionAuth(s)
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
	e.ops.stopMonitor(s)
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
