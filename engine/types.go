package engine

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lockredis/lockredis/keyspace"
)

// The types the engine's files share (Engine, its Stats, Call, Tx,
// Session, Command) and their plain accessors, with the state of the parts
// that holds one of them (the lock registry, blocked clients, the tracker,
// the ACL state, the guards, the ops state, the command table). They are
// declared apart from what gives them behaviour (engine.go opens and
// closes an Engine, dispatch.go runs a Call, tx.go, session.go,
// lockqueue.go, blocking.go...), so that those files sit on this one
// instead of pointing at each other; the part state that holds none of
// them is in the files below (settings.go, lockstate.go, acl_user.go...).

// Engine is one server's command layer over its keyspace. Many engines can
// live in one process; they share nothing.
type Engine struct {
	cfg   settings // Config and the parameters it is built from (settings.go)
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

// Tx is a command's transaction: the keyspace's transaction (reads,
// writes, expiry, tokens: keyspace.Tx, whose methods it has) with what
// the command layer keeps while it runs: the command and its caller, the
// changed keys its listeners hear of, client tracking's bookkeeping. It is
// the keyspace's TxHooks for its transaction: the methods under "Hooks"
// are the keyspace calling up, never a handler's to call.
type Tx struct {
	*keyspace.Tx
	e *Engine

	// touched: changed keys, recorded only while someone listens
	// (watch.go). quiet: the write under way is one Redis makes without
	// signaling the key as modified (XACK, XREADGROUP...); its keys go
	// to quietTouched, seen by blocked clients only.
	touched      []dbKey
	quiet        bool
	quietTouched []dbKey
	// handingOver: HandOver is running the lock queue (lockqueue.go).
	handingOver bool

	// Client-side caching (tracking.go). client is the client whose
	// command runs (Redis's current_client; nil for the expiry sweeper).
	// bcastKeys are the changed keys under a BCAST prefix. readBy and
	// readKeys: keys a tracking client read in this read transaction,
	// recorded when it ends.
	client    *Session
	bcastKeys []string
	readBy    *Session
	readKeys  []string
	// clientCall is the client's command running now (EVAL for its
	// script's redis.call).
	clientCall *Call

	// How Engine.do runs it (engine.go, dispatch.go).
	body      func(*Tx)
	call      Call   // the command run opens this transaction for
	callW     Writer // its writer and start time
	callStart time.Time
	nested    []*Call // reused Calls of RunIn, by depth
	depth     int
	// replyMark: where the command's reply began in its writer, when it
	// can be retracted (retractable: guards.go).
	replyMark   uint64
	retractable bool
	// cmdBatch: the commands of one read run in this transaction
	// (batch.go).
	cmdBatch Batch
}

// Session is the state of one client that commands read and change:
// selected database, authentication, protocol, name, the MULTI queue and
// WATCHed keys. resp/ owns the socket; the engine keeps every connection's
// Session in a registry for CLIENT LIST and INFO.
type Session struct {
	ID      int64
	Created time.Time

	// Set by the owner goroutine only; read by the command that runs on it.
	DB            int
	Authenticated bool
	Proto         int // 2 or 3

	// user is the ACL user the session runs as (acl.go); nil for the Go
	// API's sessions, which may run anything. Other connections read it
	// (CLIENT LIST, ACL DELUSER).
	user atomic.Pointer[User]

	// CloseAfterReply asks the connection to close once the current reply
	// is written (QUIT).
	CloseAfterReply bool

	// OnReset lets the connection owner clear what it keeps (MULTI queue,
	// subscriptions) when RESET runs.
	OnReset func()

	// Blocked is set by a blocking command that found nothing: the
	// caller waits on it (Blocked.Await) instead of replying.
	Blocked *Blocked
	// blocked is the command this client waits in, for CLIENT UNBLOCK.
	blocked atomic.Pointer[Blocked]

	// Alive, when set, reports whether the client can still take a reply
	// (a connection: its peer has not closed; the Go API: its context is
	// not done). A transaction serving a blocked client asks it first,
	// under the engine lock: it must be quick and never block.
	Alive func() bool

	multi *multiState // non-nil between MULTI and EXEC/DISCARD
	watch *watchSet   // WATCHed keys, nil when none

	// Kind says where the session comes from (KindClient, KindScript,
	// KindEmbed).
	Kind string

	// ScriptReadOnly is set on a script's session while a read-only script
	// (EVAL_RO, no-writes) runs: Dispatch refuses its write commands.
	ScriptReadOnly bool

	// ScriptSlot is the hash slot of the running script's keys, -1 before
	// it touched one; ScriptCrossSlot lets it touch any (cmd_cluster.go).
	// Cluster mode only.
	ScriptSlot      int
	ScriptCrossSlot bool

	// ScriptCaller is set on a script's session while a script runs: the
	// EVAL (or EVALSHA...) call running it. A PUBLISH from the script to
	// the caller's own connection goes out there at once, between the
	// caller's replies, as Redis writes it.
	ScriptCaller *Call

	// Done is closed when the server stops: a command held by a pause
	// stops waiting. Nil: never.
	Done <-chan struct{}

	// BeforeRun, when set, is called by Dispatch just before a command
	// that passed every check runs: resp/ hands a connection that is
	// about to subscribe to the pub/sub hub there.
	BeforeRun func(*Command)

	// Direct marks the Go API's direct helpers (Server.Get, DB(n).Set...),
	// a test's back door to its data: the forced error (forced.go) does
	// not refuse them, and total_commands_processed does not count them.
	Direct bool

	// Fields that other connections read (CLIENT LIST, INFO) are behind mu.
	mu         sync.Mutex
	name       string
	libName    string
	libVer     string
	addr       string
	laddr      string
	lastCmd    string
	lastActive time.Time
	flags      string
	trackFlags string // CLIENT LIST letters of the tracking mode: t, R, B
	redir      int64  // CLIENT LIST redir=: -1 while tracking is off
	noEvict    bool   // CLIENT NO-EVICT ON
	readOnly   bool   // READONLY in cluster mode (cmd_cluster.go)
	db         int    // copies of DB and Proto for other readers
	proto      int

	Sub   atomic.Int32 // channel subscriptions
	PSub  atomic.Int32 // pattern subscriptions
	SSub  atomic.Int32 // shard channel subscriptions
	Multi atomic.Int32 // queued commands, -1 when not in MULTI
	// multiMem is the queued commands' size (CLIENT LIST multi-mem).
	multiMem atomic.Int64
	// connStats reads the connection's figures for CLIENT LIST (see
	// SetConnStats); nil for sessions without a connection.
	connStats atomic.Pointer[func() ConnStats]

	// ScriptDirty: the script whose session this is has run a write
	// command (Redis's SCRIPT_WRITE_DIRTY); luasvc clears it for each run.
	ScriptDirty bool
	// ScriptAllowOOM: the script declares allow-oom (set by luasvc).
	ScriptAllowOOM bool
	// preOOM: the server was past maxmemory when this client's current
	// command started (Redis's pre_command_oom_state, guards.go).
	preOOM bool

	// Close asks the owner to close the connection (CLIENT KILL, shutdown).
	Close func()

	// Client-side caching (tracking.go): the mode, nil while tracking is
	// off, guarded by the engine's tracker (only the owner sets it).
	track *trackState
	// pushFn writes out-of-band frames (invalidations) to the connection;
	// nil while it cannot receive them (see SetPush).
	pushFn atomic.Pointer[func(write func(Writer))]
	// afterReply are the invalidations for this client's own changes,
	// sent after its command's reply (RunAfterReply). Owner goroutine only.
	afterReply []func()

	// CLIENT REPLY state, owner goroutine only: replyOff until CLIENT
	// REPLY ON; replySkip drops the current command's reply, and
	// replySkipNext becomes replySkip for the next command.
	replyOff, replySkip, replySkipNext bool

	// monitoring is set while the session is a MONITOR (monitor.go).
	monitoring atomic.Bool
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
	// Batches and Batched: transactions that ran commands of one read
	// together, and the commands they ran (batch.go; in no INFO field,
	// for tests and benchmarks).
	Batches atomic.Int64
	Batched atomic.Int64

	aofFsync histogram // how long the AOF's fsyncs took (StatsSnapshot)
}

// Err replies with an error value.
func (c *Call) Err(err error) { c.W.Error(err.Error()) }

// OK replies +OK.
func (c *Call) OK() { c.W.Status("OK") }

// Errf replies with a formatted error; the format must start with a prefix.
func (c *Call) Errf(format string, args ...any) { c.W.Error(fmt.Sprintf(format, args...)) }

// Keyspace is the engine's keyspace core: change notification, Apply,
// snapshots and the follower switch for replication (keyspace/changes.go).
func (e *Engine) Keyspace() *keyspace.Store { return e.ks }

// Config returns the engine's configuration.
func (e *Engine) Config() Config { return e.cfg.Config }

// Databases is the number of databases.
func (e *Engine) Databases() int { return e.cfg.Databases }

// Publisher returns the connected publisher, or nil.
func (e *Engine) Publisher() Publisher { return e.publisher }

// Started is when the engine started.
func (e *Engine) Started() time.Time { return e.started }

// Logf logs through the configured logger.
func (e *Engine) Logf(level, format string, args ...any) { e.cfg.Logf(level, format, args...) }

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

// ClientCount is the number of connected clients.
func (e *Engine) ClientCount() int {
	e.clientsMu.Lock()
	defer e.clientsMu.Unlock()
	return len(e.clients)
}

// Handler runs one command. It writes exactly one reply to c.W.
type Handler func(c *Call)

// Command is one entry of the command table: written once, it runs the
// same from a socket, inside MULTI/EXEC and from redis.call. Its Spec
// (arity, flags, keys, documentation) comes from the spec files by name.
type Command struct {
	*Spec
	Name    string // lower case; for a subcommand the part after '|'
	Handler Handler

	// Subcommands makes this a container (CLIENT, CONFIG, ...). The
	// container's own Handler is unused.
	Subcommands []*Command

	parent *Command
	subs   map[string]*Command

	aclID   int    // the command's bit in ACL selectors (acl.go)
	aclCats uint32 // its ACL categories as bits

	// keysProc finds the command's keys where its key specs cannot
	// (Redis's getkeys_proc), registered by its family: SET, whose key
	// flags depend on GET, and SORT ask it before the specs (keysFirst),
	// MIGRATE, whose KEYS spec is incomplete, after them (commandKeys).
	keysProc  func(cmd *Command, args [][]byte) ([]keyRef, bool)
	keysFirst bool
}

// Seed makes the engine's random picks reproducible: after Seed(n), the
// same commands on the same data pick the same elements (random.go).
func (e *Engine) Seed(seed int64) { e.rand.seed(seed) }

// randIntN returns a random int in [0, n) (random.go).
func (e *Engine) randIntN(n int) int { return e.rand.intN(n) }

// SetFunctionCount registers how INFO counts the libraries and functions
// (luasvc; functions.go).
func (e *Engine) SetFunctionCount(fn func() FunctionCounts) { e.functions.count.Store(&fn) }

func (e *Engine) functionCount() FunctionCounts { return e.functions.counts() }

// keyRef is a key's position in the command line and its access flags.
type keyRef struct {
	pos   int
	flags []string
}

// ClusterEnabled reports whether the server emulates a cluster.
func (e *Engine) ClusterEnabled() bool { return e.cluster.enabled }

// aclState is the server's users, their rules and the ACL log: state of
// its own, which the dispatcher consults (acl_check.go) and ACL's
// commands change (cmd_acl.go). It knows the command table (rules name
// commands and categories) and, to disconnect a deleted user's clients,
// how to list the sessions and their subscriptions; nothing else of the
// engine.
type aclState struct {
	mu    sync.RWMutex // users; writers also serialize SETUSER/DELUSER/LOAD
	users map[string]*User
	def   *User

	logMu  sync.Mutex
	log    []*aclLogEntry // newest first
	logMax int

	table     func() *Table // the engine's: registerBuiltins replaces it
	sessions  func() []*Session
	publisher func() Publisher
	logf      func(level, format string, args ...any)
}

// Table is the command table.
type Table struct {
	// base is the builtin table an engine's table extends (builtinTable):
	// shared by every engine and never changed. cmds holds what was
	// registered here; shadow is set once one of those has a name base
	// has too, so that lookups look here first.
	base   *Table
	cmds   map[string]*Command
	shadow bool

	// ACL command ids, kept by full name so that a command registered
	// again keeps its bit, and every command and subcommand in the order
	// ACL rules walk them (acl.go).
	aclIDs map[string]int
	// aclList is built on first use after a Register (aclCommands): a
	// server registers its families one call at a time, and rebuilding
	// the sorted list after each made starting an embedded server slow.
	aclMu    sync.Mutex
	aclList  []*Command
	aclStale bool
}

// guards is the engine's state behind these checks.
type guards struct {
	busyScripts   atomic.Int32 // running scripts past the threshold
	busyThreshold atomic.Int64 // ms
	hardLimit     atomic.Int64 // ms, 0: never stopped
	maxMemory     atomic.Int64 // bytes, 0: no limit
	minReplicas   atomic.Int64 // min-replicas-to-write
	maxLag        atomic.Int64 // min-replicas-max-lag, s
	// gate: scripts holding the exclusive transaction, and the commands
	// waiting for one to end or turn busy (waitForScript).
	scriptsRunning atomic.Int32
	gateMu         sync.Mutex
	gateWake       chan struct{} // closed when a script ends or turns busy
	// scriptFlags gives EVAL's effective flags for a script that declares
	// them (Redis's evalGetCommandFlags); nil until luasvc registers.
	scriptFlags atomic.Pointer[func(cmd *Command, args [][]byte) Flags]
}

// countingWriter passes a command's reply through and counts its error
// replies in the engine's error statistics (INFO errorstats) and in the
// command's failed calls.
type countingWriter struct {
	Writer
	e      *Engine
	errors int
	failed bool // an error reply already counted elsewhere (ErrorCounted)
}

// tracker is an engine's tracking table.
type tracker struct {
	e *Engine

	clients atomic.Int32 // sessions with tracking on (INFO tracking_clients)
	maxKeys atomic.Int64 // tracking-table-max-keys, 0: no limit

	mu    sync.Mutex
	keys  map[string]map[int64]struct{} // key -> ids of the clients that read it
	items int64                         // ids over all keys (tracking_total_items)
	// prefixes maps each BCAST prefix to the clients registered for it.
	prefixes map[string]map[*Session]struct{}
	// evictRounds counts the calls of limit that ended still over the
	// limit: each one tries harder (Redis's timeout_counter).
	evictRounds int
}

// opsState is an engine's slow log, latency monitor and monitors.
type opsState struct {
	slowerThan atomic.Int64 // slowlog-log-slower-than, µs; < 0: off
	slowMax    atomic.Int64 // slowlog-max-len
	slowMu     sync.Mutex
	slowlog    []slowEntry // oldest first
	slowNextID int64

	latThreshold atomic.Int64 // latency-monitor-threshold, ms; 0: off
	latMu        sync.Mutex
	latEvents    map[string]*latencySeries

	monMu    sync.Mutex
	monitors []*Session
	monCount atomic.Int32

	shuttingDown atomic.Bool  // SHUTDOWN accepted (cmd_shutdown.go)
	startupAlloc int64        // heap allocated when the engine started (MEMORY STATS)
	peakAlloc    atomic.Int64 // the largest heap seen by MEMORY STATS
	debugMode    string       // enable-debug-command: no, yes, local
	moduleMode   string       // enable-module-command: no, yes, local
	clock        *Clock       // the engine's: MONITOR's timestamps
}

// lockRegistry is one engine's lock bookkeeping, behind mu (taken under
// the engine lock, never the other way round, and never held while
// calling into a transaction).
type lockRegistry struct {
	e       *Engine
	delayMs atomic.Int64 // lock-delay: LOCKDELAY's default

	mu      sync.Mutex
	queues  map[dbKey][]*lockWaiter // waiters per key, in arrival order
	waiters int
	// held are the locks LOCK.ACQUIRE granted, while they last, with
	// when: LOCK.INFO's acquired_at and INFO's locks_held. Bookkeeping
	// only: the locks themselves are their keys.
	held map[dbKey]map[string]grantInfo
	// spareHeld are emptied maps of held, reused by the next grant: a
	// lock acquired and released makes no garbage (at most maxSpareHeld).
	spareHeld []map[string]grantInfo
	timers    map[dbKey]*lockTimer
	// Sessions (lock_session.go): each is a key; these index them.
	sessions  map[string]*lockSession // by id
	connSess  map[*Session]string     // a connection's SESSION session
	sessionOf map[holderKey]string    // which session holds a lock
	listening bool                    // holds one count of e.listening

	// closeMu keeps a firing timer's transaction and Close apart.
	closeMu sync.RWMutex
	closed  bool

	stats lockStats
}

// lockWaiter is a parked request.
type lockWaiter struct {
	req   lockRequest
	db    int
	keys  []dbKey
	b     *Blocked
	sess  *Session
	since time.Time
	// grants are what serving it gave, to undo if its client left.
	grants []holderKey
	tokens []uint64
}

type blockState uint8

const (
	blockWaiting blockState = iota
	blockServed             // the command ran: rec holds its reply
	blockEnded              // given up: final is the reply, if deliver
)

// endReason says why a wait ended without the command being served.
type endReason uint8

const (
	endTimeout endReason = iota // its deadline passed
	endAbort                    // the client left, or the server stops
	endUnblock                  // CLIENT UNBLOCK
)

// Blocked is a command waiting for one of its keys.
type Blocked struct {
	e        *Engine
	sess     *Session
	db       int // the database it blocked in
	cmd      *Command
	args     [][]byte
	keys     []dbKey
	want     Type      // the type a key must hold to serve it
	Deadline time.Time // zero: wait forever
	// TimeoutReply is what the client gets if nothing arrives in time.
	TimeoutReply Reply

	// alive is the session's Alive probe when it blocked: false once the
	// client cannot take a reply any more.
	alive func() bool
	// onEnd runs when the wait is given up, with tx the transaction it
	// happens in (nil outside one); onAbandon when the command was served
	// but its client went away before the reply could reach it (a lock
	// granted to it passes on, lockqueue.go).
	onEnd     func(tx *Tx, why endReason)
	onAbandon func()
	// registered: the blocking registry holds it (not a lock waiter).
	registered bool

	// readyFn, when set, decides instead of want whether a changed key
	// serves the command now (a stream waiter needs entries newer than
	// the ID it waits after, not just a stream). signaled says whether a
	// command signaled the key since the last check (SignalReady).
	readyFn  func(tx *Tx, key []byte, signaled bool) bool
	signaled map[string]bool // under the registry's mu

	mu      sync.Mutex
	state   blockState
	final   Reply // blockEnded: the reply to send when deliver
	deliver bool
	rec     Recorder
	// ready is closed when the wait is settled by someone else than the
	// waiter: served, unblocked, or dropped for a client found gone.
	ready chan struct{}
}

// blockRegistry holds the waiters per key, in arrival order.
type blockRegistry struct {
	e     *Engine
	mu    sync.Mutex
	byKey map[dbKey][]*Blocked
	count int
}

// keyListener is told about changed keys, under the engine lock.
type keyListener interface {
	keyTouched(tx *Tx, k dbKey)
	// dbFlushed is told before the keys of db (or all dbs if db < 0) are
	// deleted wholesale.
	dbFlushed(tx *Tx, db int)
}

// listenerEntry is a registered keyListener (addListener).
type listenerEntry struct {
	keyListener
	acts bool
}

// ConnStats are the figures of a client's connection that CLIENT LIST
// shows, measured by the connection's owner (resp/) and read from any
// goroutine. Redis's names are in the comments; the sizes are of
// lockredis's own buffers, so they differ from redis-server's figures
// while meaning the same thing.
type ConnStats struct {
	FD           int   // fd: the socket's descriptor
	QueryBuf     int64 // qbuf: input read and not yet run, the running command included
	QueryBufFree int64 // qbuf-free: room left in the input buffer
	ArgvMem      int64 // argv-mem: the running (or blocked) command's argument bytes
	ArgvLen      int   // its number of arguments
	ReplyBufSize int64 // rbs: the reply buffer's size
	ReplyBufPeak int64 // rbp: the largest reply it held lately
	ReplyPending int64 // obl, oll, omem: replies not yet taken by the socket
	Writing      bool  // events: w while replies wait for the socket
	ConnMem      int64 // the connection's own structures (part of tot-mem)
}

type multiState struct {
	queue  []queuedCommand
	failed bool // a command was rejected while queuing: EXEC aborts
}

type queuedCommand struct {
	cmd  *Command
	args [][]byte
}
