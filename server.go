package lockredis

// The Go API's types: the Options a Server is made from, the Server and a
// Cluster of them. What they do is in the files over this one (embed.go:
// start, close, Do; listen.go, tlsconfig.go, restart.go, api.go...), and
// this file names none of them.

import (
	"crypto/tls"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lockredis/lockredis/engine"
	"github.com/lockredis/lockredis/pubsub"
	"github.com/lockredis/lockredis/resp"
)

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

func listenerAddrs[L net.Listener](lns []L) []string {
	out := make([]string, len(lns))
	for i, ln := range lns {
		out[i] = ln.Addr().String()
	}
	return out
}

// Cluster is a set of independent servers, for Redlock tests: each has its
// own keyspace, clock and port.
type Cluster []*Server
