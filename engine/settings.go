package engine

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/lockredis/lockredis/config"
)

// An engine's configuration as given (Config) and as it runs (settings),
// and the bookkeeping CONFIG SET and REWRITE keep (configState); the
// Engine's side (binding, applying, rewriting) is config_runtime.go.

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

// settings is the Config an engine runs with: the parameters New builds
// it from, resolved, next to the other fields.
type settings struct {
	Config
	Databases      int
	RequirePass    string
	ACLFile        string
	Dir            string
	AppendOnly     bool
	AppendFsync    string
	AppendFilename string
	RestartFence   string
	MaxLockTTL     time.Duration
	Cluster        bool
}

// newSettings checks cfg's parameters against the spec and resolves
// those New builds the engine from.
func newSettings(cfg Config) (settings, *config.Settings, error) {
	given, err := config.FromMap(cfg.Params)
	if err != nil {
		return settings{}, nil, err
	}
	if cfg.Clock == nil {
		cfg.Clock = NewClock()
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, string, ...any) {}
	}
	ttl, _ := time.ParseDuration(given.Value("max-lock-ttl"))
	return settings{
		Config:         cfg,
		Databases:      int(given.Int("databases")),
		RequirePass:    given.Value("requirepass"),
		ACLFile:        given.Value("aclfile"),
		Dir:            given.Value("dir"),
		AppendOnly:     given.Bool("appendonly"),
		AppendFsync:    given.Value("appendfsync"),
		AppendFilename: given.Value("appendfilename"),
		RestartFence:   given.Value("restart-fence"),
		MaxLockTTL:     ttl,
		Cluster:        given.Bool("cluster-enabled"),
	}, given, nil
}

// ParamHook is how CONFIG SET reaches a parameter the assembler applies
// (the server's port): Get reads the value in force (nil: the value last
// set), Apply makes a checked, normalized value take effect or says why
// it cannot, in which case the whole CONFIG SET is undone. CONFIG SET
// applies every value it is given, the value in force too. Apply is not
// called at start: the assembler applied the value it passed in Params.
type ParamHook struct {
	Get   func() string
	Apply func(value string) error
}

// paramBinding is how the part that owns a parameter reads and applies it.
type paramBinding struct {
	// get is the value in force, as CONFIG GET writes it; nil: the value
	// last applied.
	get func() string
	// check checks a Custom value and normalizes it; for the other kinds
	// it refuses a valid value the part cannot take. why is "" if fine.
	check func(v string) (norm, why string)
	// apply makes a checked value take effect.
	apply func(v string) error
	// rewrite writes the config lines of the value in force (CONFIG
	// REWRITE); nil: "name value". force false: no line is added to a
	// file that has none.
	rewrite func() (lines []string, force bool)
	// runtimeOnly: apply is not called at start (ParamHook).
	runtimeOnly bool
}

// configState is the configuration at runtime: the bindings, the values
// of unbound parameters, and which parameters CONFIG SET changed.
type configState struct {
	set      sync.Mutex // one CONFIG SET at a time
	mu       sync.Mutex // vals, changed
	bindings map[string]*paramBinding
	vals     map[string]string // unbound parameters, and bound ones without get
	changed  map[string]bool
	rewrite  sync.Mutex // serializes CONFIG REWRITEs
}

func (s *configState) markChanged(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.changed == nil {
		s.changed = make(map[string]bool)
	}
	s.changed[name] = true
}

func (s *configState) isChanged(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changed[name]
}

// ShutdownFlags are SHUTDOWN's options, passed to Config.Shutdown.
type ShutdownFlags struct {
	NoSave, Save, Now, Force bool
}

// netParams are the settings that protect the server and bound its
// connections (protected-mode, timeout, tcp-keepalive,
// client-query-buffer-limit). The engine owns them because CONFIG GET and
// CONFIG SET must see and change the values the connection layer (resp/)
// applies; resp/ reads them at accept time, for every command and from
// its cron.
type netParams struct {
	protectedMode atomic.Bool
	idleTimeout   atomic.Int64 // timeout, seconds; 0 never
	keepAlive     atomic.Int64 // tcp-keepalive, seconds; 0 off
	queryLimit    atomic.Int64 // client-query-buffer-limit, bytes
	// lastAttackLog is the unix second of the last cross-protocol
	// warning: Redis logs it at most once a minute so that an attacker
	// cannot flood the log.
	lastAttackLog atomic.Int64
}

// Version is the Redis version lockredis reports (INFO, HELLO).
const Version = "7.0.15"
