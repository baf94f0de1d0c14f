// Package engine is lockredis's command layer, on top of the keyspace core
// (package keyspace): the command table and the one dispatcher, sessions,
// the command families, the lock queue, blocking, ACL, client tracking,
// cluster emulation and the server's statistics and operations. It knows
// nothing of sockets, Lua or subscriptions; those packages register
// commands here and implement the small interfaces the engine calls
// through.
package engine

import (
	"time"

	"github.com/lockredis/lockredis/config"
	"github.com/lockredis/lockredis/keyspace"
)

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

// SetPublisher connects PUBLISH to a pub/sub implementation.
func (e *Engine) SetPublisher(p Publisher) { e.publisher = p }

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
