package lockredis

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lockredis/lockredis/config"
	"github.com/lockredis/lockredis/engine"
	"github.com/lockredis/lockredis/luasvc"
	"github.com/lockredis/lockredis/pubsub"
	"github.com/lockredis/lockredis/resp"
)

// Version is lockredis's own version.
const Version = "0.1.0"

// RedisVersion is the version of Redis whose protocol and commands
// lockredis implements, as INFO and HELLO report it.
const RedisVersion = engine.Version

// Options configures a Server. The zero value is a server on a random
// loopback port, in memory, on the real clock.
//
// A field tagged `config:"name"` sets the server parameter of that name
// (redis.conf's, as CONFIG GET reports it; docs/configuration.md lists
// them all): its zero value leaves the parameter at its default. Params
// sets any parameter by name; a parameter set both ways is an error.
type Options struct {
	// Addr is the listen address; default "127.0.0.1:0" (a free port),
	// or the bind and port parameters when Params gives them.
	Addr string
	// Addrs, when set, replaces Addr with several addresses to listen on,
	// as redis-server's "bind 127.0.0.1 -::1": one written with a leading
	// '-' is skipped with a log line if this machine lacks it. Port 0 picks
	// one free port for them all.
	Addrs []string
	// TLSConfig, when set, also serves TLS (redis-server's tls-port) on
	// TLSAddrs, by default on a free port of each host of Addr/Addrs: the
	// same engine, checks and commands as the plain port. Its ClientAuth
	// decides whether clients need a certificate (tls-auth-clients);
	// TLSFiles.Config builds one from redis-server's tls-* file settings,
	// which Params may also give (with a tls-port). TLSAddrs are written
	// as Addrs ("-" makes one optional; port 0 picks one free port for
	// them all).
	TLSConfig *tls.Config
	TLSAddrs  []string
	// TLSOnly opens no plaintext port, as redis-server's "port 0" with a
	// tls-port. It needs TLSConfig.
	TLSOnly bool
	// Password makes clients AUTH first (requirepass): the default
	// user's password.
	Password string `config:"requirepass"`
	// ACLFile is redis.conf's aclfile: ACL users loaded at start (a file
	// with errors, or missing, stops the start) and by ACL LOAD, written
	// by ACL SAVE. Empty: users live in memory only.
	ACLFile string `config:"aclfile"`
	// Databases is the number of databases; default 16.
	Databases int `config:"databases"`
	// MaxClients bounds connections; default 10000.
	MaxClients int `config:"maxclients"`
	// ProtectedMode is "yes" (the default, as in Redis) or "no": without
	// a Password, clients not from 127.0.0.1 or ::1 are refused with
	// Redis's DENIED message. See docs/operations.md, "Protection and limits".
	ProtectedMode string `config:"protected-mode"`
	// IdleTimeout closes clients idle that long (whole seconds, Redis's
	// timeout); 0 never.
	IdleTimeout time.Duration `config:"timeout"`
	// TCPKeepAlive is the keepalive period of accepted connections
	// (tcp-keepalive); 0 means Redis's 300 s, negative turns it off.
	TCPKeepAlive time.Duration `config:"tcp-keepalive"`
	// Dir is where persistent files live; empty keeps everything in memory.
	Dir string `config:"dir"`
	// AppendOnly keeps the keyspace in Dir/AppendFilename (default
	// appendonly.aof), fsynced per AppendFsync: "always" (a reply only
	// once its write is on disk, with group commit), "everysec" (default)
	// or "no".
	AppendOnly     bool   `config:"appendonly"`
	AppendFsync    string `config:"appendfsync"`
	AppendFilename string `config:"appendfilename"`
	// RestartFence is "auto" (default), "off" or a duration such as "30s".
	// After a crash the server refuses to create keys for the largest TTL
	// it had granted (auto) or the duration, capped by MaxLockTTL (default
	// 5m). It needs Dir to tell a crash from a clean stop; without Dir
	// only a duration applies, at every start.
	RestartFence string        `config:"restart-fence"`
	MaxLockTTL   time.Duration `config:"max-lock-ttl"`
	// ManualClock freezes the server's clock at StartTime (default now):
	// it then moves only by FastForward and SetTime, for deterministic
	// tests. By default the clock follows real time and FastForward adds
	// to it.
	ManualClock bool
	StartTime   time.Time
	// PubSubLimits is the output buffer limit of subscribers (Redis's
	// client-output-buffer-limit pubsub); zero means 32 MB hard, 8 MB for
	// 60 s soft.
	PubSubLimits pubsub.Limits `config:"client-output-buffer-limit"`
	// LuaTimeLimit is lua-time-limit (busy-reply-threshold): once a script
	// has run this long, other clients get BUSY at once instead of
	// waiting for it, and SCRIPT KILL stops it and rolls its writes back.
	// Zero means 5 s; negative means at once.
	LuaTimeLimit time.Duration `config:"busy-reply-threshold"`
	// LockDelay is how long a LOCK.ACQUIRE ... SESSION lock stays with its
	// dead owner after its connection closes, before it passes on, when
	// LOCK.ACQUIRE gives no LOCKDELAY (CONFIG SET lock-delay); default 0.
	LockDelay time.Duration `config:"lock-delay"`
	// LuaHardTimeLimit stops a script that runs longer and rolls its
	// writes back, in case nobody sends SCRIPT KILL (lua-hard-time-limit).
	// Zero means 60 s; negative means never (Redis's behaviour).
	LuaHardTimeLimit time.Duration `config:"lua-hard-time-limit"`
	// MaxMemory refuses commands that may grow the keyspace (denyoom)
	// with OOM once the used memory (INFO's used_memory) is past it; zero
	// means no limit. Nothing is ever evicted: MaxMemoryPolicy must be ""
	// or "noeviction".
	MaxMemory       int64  `config:"maxmemory"`
	MaxMemoryPolicy string `config:"maxmemory-policy"`
	// Cluster makes the server answer as a Redis cluster of one node that
	// owns all 16384 slots (redis-server's cluster-enabled yes), so that
	// cluster clients such as go-redis's ClusterClient work against it:
	// CLUSTER SLOTS, SHARDS, NODES... report the address the client
	// connected to, and a command whose keys hash to different slots gets
	// CROSSSLOT, as from a real cluster.
	Cluster bool `config:"cluster-enabled"`
	// Logf receives log lines; default discards them.
	Logf func(level, format string, args ...any)
	// Params sets server parameters by their redis.conf names, each value
	// as one CONFIG SET argument ("notify-keyspace-events": "KEA",
	// "client-output-buffer-limit": "normal 1mb 0 0 pubsub 32mb 8mb 60").
	// They are checked as CONFIG SET checks them: an unknown name or a bad
	// value fails Start. cmd/lockredis passes its flags and config file
	// here.
	Params map[string]string
	// ConfigFile is the config file the server was started from: CONFIG
	// REWRITE writes there, INFO reports it. Empty: none.
	ConfigFile string
	// OnShutdown, if set, is called once a SHUTDOWN command has closed
	// the server (in a goroutine of its own), with Close's result:
	// cmd/lockredis exits there. SHUTDOWN closes the server either way.
	OnShutdown func(error)
	// OnConfigSet, when set, is told of every parameter CONFIG SET
	// changed, with its normalized value (the CLI changes its log level).
	OnConfigSet func(name, value string)

	// Raft settings make the server one node of a replicated group
	// (docs/replication.md); they need Replication, which package
	// raftgroup provides (raftgroup.NewServer), so that a server without
	// them compiles none of the replication. RaftID names this node in
	// RaftPeers ("1=127.0.0.1:7001,2=...,3=...", the same list on every
	// node; a node with empty Raft state starts the group with exactly
	// these members, one with state ignores it); RaftBind is the address
	// its Raft traffic uses; RaftDir holds the Raft log and snapshots
	// (default Dir/raft); RaftGroupName is the master's name for Sentinel
	// clients (default mymaster).
	RaftID, RaftBind, RaftPeers, RaftDir, RaftGroupName string
	// RaftSeedAOF is a standalone node's append-only file the group
	// starts with: its first leader loads it when the group has no data
	// yet (docs/replication.md).
	RaftSeedAOF string
	// RaftSessionTimeout is how long a node may be out of the group
	// before the session locks of the clients it forwards end (default
	// 10 s; docs/replication.md).
	RaftSessionTimeout time.Duration
	// Replication is the replicated group's machinery this server joins.
	Replication Replication
}

// Replication joins a Server to a replicated group. Package raftgroup
// provides one; this package only calls it.
type Replication interface {
	// Attach is called once the engine exists, before any client is
	// served: it returns the router every client's commands go through.
	// addr is this node's client address.
	Attach(eng *engine.Engine, hub *pubsub.Hub, addr string) (resp.Router, error)
	// Close leaves the group (handing leadership over first); the engine
	// is closed after it.
	Close() error
}

// Server is one lockredis instance. Many can run in one process.
type Server struct {
	opts Options
	eng  *engine.Engine
	srv  *resp.Server
	hub  *pubsub.Hub // PUBLISH and keyspace events (Subscribe)

	mu      sync.Mutex
	started bool
	closed  bool

	// The listeners (listen.go): CONFIG SET port and bind move the plain
	// ones while the server runs.
	lnMu     sync.Mutex
	lns      []*portListener // plain listeners; Addr() is the first
	tlns     []net.Listener  // TLS listeners (Options.TLSConfig)
	bind     []string        // the bind parameter's addresses, as given
	serving  sync.WaitGroup  // the accept loops
	serveErr error           // the first accept loop's error
	// live is the engine while it runs, loading included, for Stats,
	// which must not wait for mu: Start holds it while the keyspace loads.
	live atomic.Pointer[engine.Engine]

	// What Restart carries over to the next engine (restart.go): the
	// clock, the addresses bound (at the first start, or by CONFIG SET
	// port or bind since), an in-memory keyspace, and the settings made
	// through the Go API.
	clock     *engine.Clock
	bound     []string // plain addresses; nil before the first start
	boundTLS  []string
	snapshot  *engine.Snapshot
	forcedErr string
	seed      *int64
	clientTLS *tls.Config // RunTLS's generated certificate (selfsigned.go)

	// Do's client: it keeps its SELECT, MULTI and WATCH between calls.
	// doMu is held while a command runs, not while it waits (a blocking
	// command); doStop is closed when the server closes, which ends those
	// waits.
	doMu   sync.Mutex
	doSess *engine.Session
	doStop chan struct{}
	// The direct helpers' client (Get, Set, DB(n)...), never in MULTI.
	helperMu   sync.Mutex
	helperSess *engine.Session
}

// NewServer makes a server; Start opens its port.
func NewServer(opts Options) *Server {
	if opts.Logf == nil {
		opts.Logf = func(string, string, ...any) {}
	}
	return &Server{opts: opts}
}

// Run starts a server with default options.
func Run() (*Server, error) {
	s := NewServer(Options{})
	if err := s.Start(); err != nil {
		return nil, err
	}
	return s, nil
}

// TB is the part of testing.TB that RunT, RunCluster and the Check
// helpers use; *testing.T, *testing.B and *testing.F have it. (An
// interface of our own keeps the testing package out of programs that
// embed lockredis.)
type TB interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
	Cleanup(func())
}

// RunT starts a server for a test and closes it when the test ends. It
// fails the test if the server cannot start.
func RunT(t TB) *Server {
	t.Helper()
	s := NewServer(Options{})
	if err := s.Start(); err != nil {
		t.Fatalf("lockredis: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// Start opens the keyspace and begins serving.
func (s *Server) Start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started {
		return errors.New("lockredis: server already started")
	}
	return s.start()
}

// start starts the server, or starts it again for Restart: then on the
// addresses it had, on the same clock, with the same keyspace.
func (s *Server) start() error {
	params, err := s.opts.params() // options.go
	if err != nil {
		return err
	}
	given, err := config.FromMap(params)
	if err != nil {
		return err
	}
	tlsCfg, err := s.tlsConfig(given) // tlsconfig.go
	if err != nil {
		return err
	}
	if s.clock == nil {
		if s.opts.ManualClock {
			s.clock = engine.NewManualClock(s.opts.StartTime)
		} else {
			s.clock = engine.NewClock()
			if !s.opts.StartTime.IsZero() {
				s.clock.SetTime(s.opts.StartTime)
			}
		}
	}
	addrs, tlsAddrs, tlsOnly, err := s.listenAddrs(given, tlsCfg) // listen.go
	if err != nil {
		return err
	}
	lns, tlns, err := s.listen(addrs, tlsAddrs, tlsCfg, tlsOnly)
	if err != nil {
		return err
	}
	closeAll := func() {
		for _, ln := range lns {
			ln.Close()
		}
		for _, ln := range tlns {
			ln.Close()
		}
	}
	// What CONFIG GET reports is what the server does: the ports it
	// listens on, its bind addresses, TLSConfig's client authentication.
	params["port"] = "0"
	if len(lns) > 0 {
		params["port"] = strconv.Itoa(lns[0].Addr().(*net.TCPAddr).Port)
	}
	params["tls-port"] = "0"
	if len(tlns) > 0 {
		params["tls-port"] = strconv.Itoa(tlns[0].Addr().(*net.TCPAddr).Port)
	}
	s.bind = bindAddresses(given, append(addrs, tlsAddrs...))
	params["bind"] = strings.Join(s.bind, " ")
	if s.opts.TLSConfig != nil && !given.Given("tls-auth-clients") {
		params["tls-auth-clients"] = tlsAuthClientsWord(s.opts.TLSConfig.ClientAuth)
	}
	if err := s.checkReplication(); err != nil {
		closeAll()
		return err
	}
	// Open, then Load once the ports serve: while a large file loads,
	// clients get LOADING as from redis-server, INFO shows the progress,
	// and Stats reads the engine.
	eng, err := engine.Open(engine.Config{
		Params:     params,
		Hooks:      s.paramHooks(), // listen.go: port, bind
		ConfigFile: s.opts.ConfigFile,
		Version:    Version,
		Clock:      s.clock,
		Logf:       s.opts.Logf,
		// SHUTDOWN (engine/cmd_shutdown.go): close in the background, as
		// the connection that asked is still being served.
		Shutdown:    func(engine.ShutdownFlags) { go s.shutdown() },
		OnConfigSet: s.opts.OnConfigSet,
		// Restart of an in-memory server: the keyspace Close kept.
		Restore: s.snapshot,
	})
	if err != nil {
		closeAll()
		return err
	}
	s.snapshot = nil
	eng.SetForcedError(s.forcedErr)
	if s.seed != nil {
		eng.Seed(*s.seed)
	}
	s.eng = eng
	// The engine keeps every class's client-output-buffer-limit (CONFIG
	// SET changes it); the hub reads the pubsub class's.
	hub := pubsub.NewHub(s.opts.PubSubLimits, s.opts.Logf)
	hub.SetLimitsFunc(func() pubsub.Limits {
		l := eng.OutputLimit(engine.OutputPubsub)
		return pubsub.Limits{Hard: l.Hard, Soft: l.Soft, SoftFor: time.Duration(l.SoftSeconds) * time.Second}
	})
	pubsub.Register(eng, hub)
	s.hub = hub
	luasvc.Register(eng, luasvc.Options{Logf: s.opts.Logf})
	// Every command is registered: the ACL file's rules can name them.
	if err := eng.LoadACLFile(); err != nil {
		eng.Close()
		closeAll()
		return err
	}
	var router resp.Router
	if s.opts.Replication != nil {
		// A node's keyspace lives in memory and comes from the Raft
		// snapshot and log, which Attach replays into it: the (empty)
		// keyspace is loaded first, before clients, as nothing is read.
		if err := eng.Load(); err != nil {
			eng.Close()
			closeAll()
			return err
		}
		if len(lns) == 0 {
			eng.Close()
			closeAll()
			return errors.New("lockredis: a replicated node needs a client address without TLS (its peers forward to it)")
		}
		if router, err = s.opts.Replication.Attach(eng, hub, lns[0].Addr().String()); err != nil {
			eng.Close()
			closeAll()
			return err
		}
	}
	maxClients := int(given.Int("maxclients"))
	s.srv = resp.New(eng, resp.Options{MaxClients: maxClients, Logf: s.opts.Logf, Hub: hub, Router: router})
	s.doSess = engine.NewSession(engine.KindEmbed)
	s.doStop = make(chan struct{})
	s.helperSess = engine.NewSession(engine.KindEmbed)
	s.helperSess.Direct = true // SetError spares it, CommandCount skips it
	for _, sess := range []*engine.Session{s.doSess, s.helperSess} {
		sess.Authenticated = true
		eng.AddSession(sess)
	}
	s.lnMu.Lock()
	s.lns, s.tlns, s.serveErr = lns, tlns, nil
	s.bound, s.boundTLS = listenerAddrs(lns), listenerAddrs(tlns)
	for _, ln := range lns {
		s.serve(ln, nil)
	}
	for _, ln := range tlns {
		s.serve(ln, tlsCfg)
	}
	s.lnMu.Unlock()
	s.live.Store(eng)
	if s.opts.Replication != nil {
		// Loaded above.
	} else if err := eng.Load(); err != nil {
		s.live.Store(nil)
		s.srv.Close()
		s.serving.Wait()
		eng.Close()
		return err
	}
	s.started = true
	s.closed = false
	return nil
}

// Close stops the server: the port is released, clients are disconnected,
// and every goroutine it started has ended when Close returns. An
// in-memory server keeps a copy of its keyspace for Restart.
func (s *Server) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.started || s.closed {
		return nil
	}
	return s.close()
}

func (s *Server) close() error {
	s.closed = true
	close(s.doStop) // Do's waiting commands answer as if timed out
	s.live.Store(nil)
	err := s.srv.Close()
	s.serving.Wait()
	s.lnMu.Lock()
	if err == nil {
		err = s.serveErr
	}
	s.lnMu.Unlock()
	// The Go API's clients go too: their SESSION locks are released as a
	// connection's are.
	s.eng.RemoveSession(s.doSess)
	s.eng.RemoveSession(s.helperSess)
	if s.opts.Replication != nil {
		if rerr := s.opts.Replication.Close(); err == nil {
			err = rerr
		}
	}
	if !s.eng.Persistence().Enabled && s.opts.Replication == nil {
		// No client is left; the copy is what a clean stop would save.
		snap, serr := s.eng.Snapshot()
		if err == nil {
			err = serr
		}
		s.snapshot = snap
	}
	if eerr := s.eng.Close(); err == nil {
		err = eerr
	}
	return err
}

// checkReplication refuses Raft settings without the machinery that
// applies them, and settings a replicated node cannot honour.
func (s *Server) checkReplication() error {
	o := &s.opts
	raft := o.RaftID != "" || o.RaftBind != "" || o.RaftPeers != "" || o.RaftDir != "" || o.RaftSeedAOF != ""
	if raft && o.Replication == nil {
		return errors.New("lockredis: the Raft settings need package raftgroup (raftgroup.NewServer), which joins the server to its group")
	}
	return nil
}

// shutdown closes the server for SHUTDOWN and tells OnShutdown.
func (s *Server) shutdown() {
	err := s.Close()
	if s.opts.OnShutdown != nil {
		s.opts.OnShutdown(err)
	}
}

// Addr is the "host:port" clients connect to (the first, when the server
// listens on several); with TLSOnly, the first TLS address.
func (s *Server) Addr() string { return s.firstListener().Addr().String() }

// Addrs are every "host:port" the server listens on without TLS.
func (s *Server) Addrs() []string {
	s.lnMu.Lock()
	defer s.lnMu.Unlock()
	return listenerAddrs(s.lns)
}

// TLSAddr is the first "host:port" of the TLS port; "" without TLSConfig.
func (s *Server) TLSAddr() string {
	s.lnMu.Lock()
	defer s.lnMu.Unlock()
	if len(s.tlns) == 0 {
		return ""
	}
	return s.tlns[0].Addr().String()
}

// TLSAddrs are every "host:port" the server listens on with TLS.
func (s *Server) TLSAddrs() []string {
	s.lnMu.Lock()
	defer s.lnMu.Unlock()
	return listenerAddrs(s.tlns)
}

func (s *Server) firstListener() net.Listener {
	s.lnMu.Lock()
	defer s.lnMu.Unlock()
	if len(s.lns) == 0 {
		return s.tlns[0]
	}
	return s.lns[0]
}

func listenerAddrs[L net.Listener](lns []L) []string {
	out := make([]string, len(lns))
	for i, ln := range lns {
		out[i] = ln.Addr().String()
	}
	return out
}

// Host is the listening host.
func (s *Server) Host() string {
	h, _, _ := net.SplitHostPort(s.Addr())
	return h
}

// Port is the listening port (Addr's).
func (s *Server) Port() int { return s.firstListener().Addr().(*net.TCPAddr).Port }

// Engine gives access to the engine (command table, clock, stats). Restart
// replaces it with a new one.
func (s *Server) Engine() *engine.Engine { return s.eng }

// FastForward moves the server's clock forward by d. Keys whose time has
// come expire at once, as if d had really passed.
func (s *Server) FastForward(d time.Duration) {
	s.eng.Clock.FastForward(d)
	s.eng.Sweep(0)
}

// SetTime sets the server's clock to t (and sweeps what expired).
func (s *Server) SetTime(t time.Time) {
	s.eng.Clock.SetTime(t)
	s.eng.Sweep(0)
}

// Now is the server's current time.
func (s *Server) Now() time.Time { return s.eng.Clock.Now() }

// Do runs a command as a client of its own would, through the same checks
// as a connection's commands, and returns its reply. That client starts on
// database 0 and keeps its state between calls, like a connection: SELECT,
// MULTI (later commands answer QUEUED until EXEC), WATCH. It is already
// authenticated. A blocking command (BLPOP, LOCK.ACQUIRE ... WAIT) waits
// as a connection's would: until it is served or its timeout passes (its
// timeout reply), or the server closes. Other goroutines' Do calls run
// meanwhile; DoContext also stops waiting when its context is done.
func (s *Server) Do(args ...string) engine.Reply {
	rep, _ := s.DoContext(context.Background(), args...)
	return rep
}

// DoContext is Do with a context for a blocking command: when ctx is done
// before the command is served, the command gives up (a lock it would
// have been granted goes to the next in line) and DoContext returns its
// timeout reply and ctx's error.
func (s *Server) DoContext(ctx context.Context, args ...string) (engine.Reply, error) {
	if len(args) == 0 {
		return s.dispatch(s.doSess, args), nil
	}
	bargs := make([][]byte, len(args))
	for i, a := range args {
		bargs[i] = []byte(a)
	}
	var rec engine.Recorder
	s.doMu.Lock()
	sess := s.doSess
	sess.Alive = func() bool { return ctx.Err() == nil }
	s.eng.Dispatch(sess, nil, bargs, &rec)
	b := sess.Blocked
	sess.Blocked = nil
	stop := s.doStop
	s.doMu.Unlock()
	if b == nil {
		return rec.Last(), nil
	}
	rep, _ := b.Await(stop, ctx.Done())
	if err := ctx.Err(); err != nil {
		return b.TimeoutReply, err
	}
	return rep, nil
}

// dispatch runs args on sess and returns the reply.
func (s *Server) dispatch(sess *engine.Session, args []string) engine.Reply {
	if len(args) == 0 {
		return engine.Reply{Kind: engine.KindError, Str: "ERR empty command"}
	}
	bargs := make([][]byte, len(args))
	for i, a := range args {
		bargs[i] = []byte(a)
	}
	var rec engine.Recorder
	s.eng.Dispatch(sess, nil, bargs, &rec)
	return rec.Last()
}

// DB is one database of a server, for the direct helpers: srv.DB(3).Get(k).
// The Server's own helpers work on database 0.
type DB struct {
	s  *Server
	db int
}

// DB returns database n's helpers.
func (s *Server) DB(n int) *DB { return &DB{s: s, db: n} }

// do runs a helper's command on database db.
func (d *DB) do(args ...string) engine.Reply {
	s := d.s
	s.helperMu.Lock()
	defer s.helperMu.Unlock()
	if d.db < 0 || d.db >= s.eng.Databases() {
		return engine.Reply{Kind: engine.KindError, Str: engine.ErrDBIndex.Error()}
	}
	s.helperSess.SelectDB(d.db)
	return s.dispatch(s.helperSess, args)
}

func replyErr(r engine.Reply) error {
	switch {
	case r.Kind != engine.KindError:
		return nil
	case r.Str == ErrWrongType.Error():
		return ErrWrongType
	}
	return errors.New(r.Str)
}

// ErrWrongType is the helpers' error for a key of another type, Redis's
// WRONGTYPE reply.
var ErrWrongType = engine.ErrWrongType

// ErrKeyNotFound is the helpers' error for a missing key, field or member
// (Get, HGet, List, ZScore...).
var ErrKeyNotFound = errors.New("lockredis: key not found")

// Get returns the string value of key.
func (d *DB) Get(key string) (string, error) {
	r := d.do("GET", key)
	if err := replyErr(r); err != nil {
		return "", err
	}
	if r.Kind == engine.KindNull {
		return "", ErrKeyNotFound
	}
	return r.Str, nil
}

// Set stores a string value without expiry.
func (d *DB) Set(key, value string) error { return replyErr(d.do("SET", key, value)) }

// SetTTL stores a string value that expires after ttl.
func (d *DB) SetTTL(key, value string, ttl time.Duration) error {
	return replyErr(d.do("SET", key, value, "PX", strconv.FormatInt(ttl.Milliseconds(), 10)))
}

// TTL is the time left before key expires: 0 when it has no expiry or
// does not exist (see Exists).
func (d *DB) TTL(key string) time.Duration {
	r := d.do("PTTL", key)
	if r.Kind != engine.KindInt || r.Int < 0 {
		return 0
	}
	return time.Duration(r.Int) * time.Millisecond
}

// Exists reports whether key exists.
func (d *DB) Exists(key string) bool { return d.do("EXISTS", key).Int == 1 }

// Del deletes key and reports whether it existed.
func (d *DB) Del(key string) bool { return d.do("DEL", key).Int == 1 }

// Keys lists the keys of the database, sorted.
func (d *DB) Keys() []string {
	r := d.do("KEYS", "*")
	out := make([]string, 0, len(r.Elems))
	for _, e := range r.Elems {
		out = append(out, e.Str)
	}
	sort.Strings(out)
	return out
}

// FlushAll deletes every key of every database.
func (d *DB) FlushAll() { d.do("FLUSHALL") }

// FlushDB deletes every key of the database.
func (d *DB) FlushDB() { d.do("FLUSHDB") }

// Dump is a readable listing of the database: one line per key with its type,
// value and time to live. Handy in test failure messages.
func (d *DB) Dump() string {
	var sb strings.Builder
	for _, k := range d.Keys() {
		typ := d.do("TYPE", k).Str
		var val string
		switch typ {
		case "string":
			val = fmt.Sprintf("%q", d.do("GET", k).Str)
		case "hash":
			val = d.do("HGETALL", k).String()
		case "list":
			val = d.do("LRANGE", k, "0", "-1").String()
		case "set":
			val = d.do("SMEMBERS", k).String()
		case "zset":
			val = d.do("ZRANGE", k, "0", "-1", "WITHSCORES").String()
		}
		fmt.Fprintf(&sb, "%s (%s) %s", k, typ, val)
		if ttl := d.do("PTTL", k).Int; ttl >= 0 {
			fmt.Fprintf(&sb, " ttl=%s", time.Duration(ttl)*time.Millisecond)
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}

// The Server's direct helpers work on database 0 (see DB for others).

// Get returns the string value of key in database 0.
func (s *Server) Get(key string) (string, error) { return s.DB(0).Get(key) }

// Set stores a string value without expiry in database 0.
func (s *Server) Set(key, value string) error { return s.DB(0).Set(key, value) }

// SetTTL stores a string value that expires after ttl in database 0.
func (s *Server) SetTTL(key, value string, ttl time.Duration) error {
	return s.DB(0).SetTTL(key, value, ttl)
}

// TTL is the time left before key expires in database 0 (see DB.TTL).
func (s *Server) TTL(key string) time.Duration { return s.DB(0).TTL(key) }

// Exists reports whether key exists in database 0.
func (s *Server) Exists(key string) bool { return s.DB(0).Exists(key) }

// Del deletes key from database 0 and reports whether it existed.
func (s *Server) Del(key string) bool { return s.DB(0).Del(key) }

// Keys lists the keys of database 0, sorted.
func (s *Server) Keys() []string { return s.DB(0).Keys() }

// FlushAll deletes every key of every database.
func (s *Server) FlushAll() { s.DB(0).FlushAll() }

// FlushDB deletes every key of database 0.
func (s *Server) FlushDB() { s.DB(0).FlushDB() }

// Dump is DB.Dump of database 0.
func (s *Server) Dump() string { return s.DB(0).Dump() }

// Pause makes the server stop answering, like a hung or partitioned node:
// connections stay open and commands wait until Resume (CLIENT PAUSE ALL).
func (s *Server) Pause() { s.eng.Pause(0, false) }

// Resume lets a paused server answer again; waiting commands run.
func (s *Server) Resume() { s.eng.Unpause() }

// Cluster is a set of independent servers, for Redlock tests: each has its
// own keyspace, clock and port.
type Cluster []*Server

// StartCluster starts n independent servers with default options.
func StartCluster(n int) (Cluster, error) {
	c := make(Cluster, 0, n)
	for i := 0; i < n; i++ {
		s, err := Run()
		if err != nil {
			c.Close()
			return nil, err
		}
		c = append(c, s)
	}
	return c, nil
}

// RunCluster starts n independent servers and closes them when the test
// ends. Close, Pause or FastForward any one of them to simulate a node that
// is down, hung, or whose clock jumped.
func RunCluster(t TB, n int) Cluster {
	t.Helper()
	c, err := StartCluster(n)
	if err != nil {
		t.Fatalf("lockredis: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// Close closes every server.
func (c Cluster) Close() {
	for _, s := range c {
		s.Close()
	}
}

// Addrs are the servers' addresses, in order.
func (c Cluster) Addrs() []string {
	out := make([]string, len(c))
	for i, s := range c {
		out[i] = s.Addr()
	}
	return out
}
