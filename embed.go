package lockredis

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"
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
