// Command lockredis runs a standalone lock server that speaks the Redis
// protocol. Flags follow redis-server's names; a redis.conf-style file may
// be given as the first argument, and flags override it.
package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/lockredis/lockredis"
	"github.com/lockredis/lockredis/engine"
	"github.com/spf13/pflag"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, nil))
}

// config is everything the command line and the config file can set.
type config struct {
	port         int
	bind         []string
	requirepass  string
	aclfile      string
	maxclients   int
	databases    int
	dir          string
	appendonly   string
	appendfsync  string
	appendfile   string
	loglevel     string
	logfile      string
	save         string
	luaTimeLimit int
	luaHardLimit int    // ms
	maxmemory    string // bytes, or 1gb-style units
	maxmemPolicy string
	restartFence string        // auto|off|<duration> (engine/fence.go)
	maxLockTTL   time.Duration // caps an automatic restart fence
	tls          tlsSettings   // tls-port, tls-cert-file... (tls.go)
	lockDelay    int           // ms a dead SESSION lock's owner keeps it
	// Protection and connection limits (docs/operations.md, "Protection and limits").
	protectedMode string // yes|no
	timeout       int    // seconds a client may idle; 0 never
	tcpKeepAlive  int    // seconds; 0 off
	// Operations (engine/ops.go), checked by the engine.
	slowlogSlowerThan string // µs, -1 off
	slowlogMaxLen     string
	latencyThreshold  string // ms, 0 off
	enableDebug       string // no|yes|local
	enableModule      string // no|yes|local
	notifyEvents      string // notify-keyspace-events' letters
	// Process settings of redis.conf (conffile.go).
	daemonize    bool     // lockredis never forks: yes is logged
	supervised   string   // no|auto|systemd
	pidfile      string   // written while running
	outputLimits []string // client-output-buffer-limit lines, in order
	// clusterEnabled: cluster-enabled, the single-node cluster emulation
	// (engine/cmd_cluster.go).
	clusterEnabled bool
	metricsBind    string // host:port of /metrics, /healthz, /readyz (metrics.go); "" off
	// ignored are the accepted-and-ignored directives given, with their
	// values (CONFIG GET reports those it knows).
	ignored map[string]string
}

func defaults() config {
	return config{
		port: 6379, bind: []string{"127.0.0.1"}, maxclients: 10000, databases: 16,
		dir: ".", appendonly: "no", appendfsync: "everysec", appendfile: "appendonly.aof",
		loglevel: "notice", save: "", luaTimeLimit: 5000, luaHardLimit: 60000,
		maxmemory: "0", maxmemPolicy: "noeviction",
		restartFence: "auto", maxLockTTL: engine.DefaultMaxLockTTL,
		tls:           defaultTLS(),
		protectedMode: "yes", tcpKeepAlive: 300, supervised: "no",
		slowlogSlowerThan: strconv.Itoa(engine.DefaultSlowlogSlowerThan),
		slowlogMaxLen:     strconv.Itoa(engine.DefaultSlowlogMaxLen),
		latencyThreshold:  "0", enableDebug: "no", enableModule: "no",
	}
}

// run is main without the process exit, so tests can drive it. stop, if
// not nil, replaces the signal channel.
func run(args []string, stdout, stderr io.Writer, stop <-chan os.Signal) int {
	cfg := defaults()
	fs, version, help := newFlagSet(&cfg, stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: lockredis [/path/to/redis.conf] [options]\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "lockredis: %v\nRun 'lockredis --help' for usage.\n", err)
		return 1
	}
	if *help {
		fs.SetOutput(stdout)
		fmt.Fprintf(stdout, "Usage: lockredis [/path/to/redis.conf] [options]\n\n")
		fs.PrintDefaults()
		return 0
	}
	if *version {
		fmt.Fprintf(stdout, "lockredis v=%s (Redis protocol %s)\n", lockredis.Version, engine.Version)
		return 0
	}
	configFile := ""
	if rest := fs.Args(); len(rest) > 0 {
		if len(rest) > 1 {
			fmt.Fprintf(stderr, "lockredis: unexpected arguments %q: only one config file may be given\n", rest[1:])
			return 1
		}
		configFile = rest[0]
		if abs, err := filepath.Abs(configFile); err == nil {
			configFile = abs
		}
		fileCfg, err := readConfigFile(rest[0], defaults())
		if err != nil {
			fmt.Fprintf(stderr, "lockredis: %v\n", err)
			return 1
		}
		// Flags given on the command line win over the file.
		cfg = overlay(fileCfg, cfg, fs)
	}
	if err := validate(&cfg); err != nil {
		fmt.Fprintf(stderr, "lockredis: %v\n", err)
		return 1
	}
	tlsCfg, err := validateTLS(&cfg.tls)
	if err != nil {
		fmt.Fprintf(stderr, "lockredis: %v\n", err)
		return 1
	}

	logOut := stdout
	if cfg.logfile != "" {
		f, err := os.OpenFile(cfg.logfile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			fmt.Fprintf(stderr, "lockredis: can't open the log file: %v\n", err)
			return 1
		}
		defer f.Close()
		logOut = f
	}
	logf, setLogLevel := newLogger(logOut, cfg.loglevel)
	if names := cfg.ignoredNames(); len(names) > 0 {
		logf("notice", "Accepted and ignored: %s (no effect in lockredis)", strings.Join(names, " "))
	}
	if cfg.daemonize {
		logf("notice", "daemonize yes: lockredis does not fork, it stays in the foreground (use a supervisor such as systemd)")
	}
	// Redis's adjustOpenFilesLimit: room for maxclients, or fewer clients.
	if mc, ok := adjustOpenFilesLimit(cfg.maxclients, logf); ok {
		cfg.maxclients = mc
	} else {
		return 1
	}

	// Every bind address, "-" (optional) kept in front of host:port.
	var addrs []string
	for _, b := range cfg.bind {
		host := strings.TrimPrefix(b, "-")
		addrs = append(addrs, b[:len(b)-len(host)]+net.JoinHostPort(host, strconv.Itoa(cfg.port)))
	}
	addr := strings.Join(addrs, " ")
	shutdownDone := make(chan error, 1)
	opts := lockredis.Options{
		Addrs:            addrs,
		Password:         cfg.requirepass,
		ACLFile:          cfg.aclfile,
		Databases:        cfg.databases,
		MaxClients:       cfg.maxclients,
		Logf:             logf,
		LuaTimeLimit:     luaTimeLimit(cfg.luaTimeLimit),
		LuaHardTimeLimit: luaTimeLimit(cfg.luaHardLimit),
		MaxMemoryPolicy:  cfg.maxmemPolicy,
		// Persistence and the restart fence (engine/persist.go, fence.go).
		Dir:            cfg.dir,
		AppendOnly:     cfg.appendonly == "yes",
		AppendFsync:    cfg.appendfsync,
		AppendFilename: cfg.appendfile,
		RestartFence:   cfg.restartFence,
		MaxLockTTL:     cfg.maxLockTTL,
		LockDelay:      time.Duration(cfg.lockDelay) * time.Millisecond,
		Params: map[string]string{
			"port":           strconv.Itoa(cfg.port),
			"bind":           strings.Join(cfg.bind, " "),
			"dir":            cfg.dir,
			"appendonly":     cfg.appendonly,
			"appendfsync":    cfg.appendfsync,
			"appendfilename": cfg.appendfile,
			"loglevel":       cfg.loglevel,
			"logfile":        cfg.logfile,
			"save":           cfg.save,
			"maxmemory":      cfg.maxmemory, // checked and applied by the engine
			"config_file":    configFile,
			"aclfile":        cfg.aclfile,
			"protected-mode": cfg.protectedMode,
			"timeout":        strconv.Itoa(cfg.timeout),
			"tcp-keepalive":  strconv.Itoa(cfg.tcpKeepAlive),
			// Checked and applied by the engine (engine/ops.go).
			"slowlog-log-slower-than":   cfg.slowlogSlowerThan,
			"slowlog-max-len":           cfg.slowlogMaxLen,
			"latency-monitor-threshold": cfg.latencyThreshold,
			"enable-debug-command":      cfg.enableDebug,
			"enable-module-command":     cfg.enableModule,
			"notify-keyspace-events":    cfg.notifyEvents,
			"maxclients":                strconv.Itoa(cfg.maxclients),
			"daemonize":                 yesNo(cfg.daemonize),
			"cluster-enabled":           yesNo(cfg.clusterEnabled),
			"supervised":                cfg.supervised,
			"pidfile":                   cfg.pidfile,
			"metrics-bind":              cfg.metricsBind,
		},
		// SHUTDOWN closes the server; then this process exits.
		OnShutdown: func(err error) { shutdownDone <- err },
		OnConfigSet: func(name, value string) {
			if name == "loglevel" {
				setLogLevel(value)
			}
		},
	}
	if len(cfg.outputLimits) > 0 {
		opts.Params["client-output-buffer-limit"] = strings.Join(cfg.outputLimits, " ")
	}
	// The ignored directives the parameter table knows (hz, io-threads...)
	// read back as given.
	for n, v := range cfg.ignored {
		if strings.IndexByte(n, '_') < 0 {
			if _, ok := opts.Params[n]; !ok && engine.IsConfigParam(n) {
				opts.Params[n] = v
			}
		}
	}
	tlsOptions(cfg, tlsCfg, &opts)
	if opts.TLSOnly {
		addr = strings.Join(opts.TLSAddrs, " ")
	} else if tlsCfg != nil {
		addr += " (tls " + strings.Join(opts.TLSAddrs, " ") + ")"
	}
	srv := lockredis.NewServer(opts)
	if cfg.metricsBind != "" {
		// Before Start: a long load shows in /metrics and /readyz.
		m, err := startMetrics(cfg.metricsBind, srv, logf)
		if err != nil {
			logf("warning", "Can't start: %v", err)
			if cfg.logfile != "" {
				fmt.Fprintf(stderr, "lockredis: %v\n", err)
			}
			return 1
		}
		defer m.Close()
	}
	// Signals before Start: the listener is open while the keyspace
	// loads, and a SIGTERM then must stop the server cleanly, not kill it.
	if stop == nil {
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
		defer signal.Stop(ch)
		stop = ch
		// SIGHUP (a closed terminal, a careless "kill -HUP") would end
		// the process, and a stop without the clean marker arms the
		// restart fence; redis-server ignores it, and so do we, with a
		// log line so that the operator sees it arrived.
		hup := make(chan os.Signal, 1)
		signal.Notify(hup, syscall.SIGHUP)
		defer signal.Stop(hup)
		go func() {
			for range hup {
				logf("notice", "Received SIGHUP, ignored (lockredis does not reload its configuration)")
			}
		}()
	}
	if err := srv.Start(); err != nil {
		// The engine's verdict on the settings, or a listen error; on
		// the terminal too when the log goes to a file.
		logf("warning", "Can't start on %s: %v", addr, err)
		if cfg.logfile != "" {
			fmt.Fprintf(stderr, "lockredis: %v\n", err)
		}
		return 1
	}
	if cfg.pidfile != "" {
		if err := os.WriteFile(cfg.pidfile, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
			logf("warning", "Failed to write PID file: %v", err)
		} else {
			defer os.Remove(cfg.pidfile)
		}
	}
	mode := "in memory"
	if cfg.appendonly == "yes" {
		mode = fmt.Sprintf("append-only file %s/%s, appendfsync %s", cfg.dir, cfg.appendfile, cfg.appendfsync)
	}
	logf("notice", "lockredis %s (Redis %s protocol) pid %d, mode standalone, %s", lockredis.Version, engine.Version, os.Getpid(), mode)
	if len(srv.Addrs()) > 0 {
		logf("notice", "Ready to accept connections tcp on %s", strings.Join(srv.Addrs(), " "))
	}
	if len(srv.TLSAddrs()) > 0 {
		logf("notice", "Ready to accept connections tls on %s", strings.Join(srv.TLSAddrs(), " "))
	}
	if cfg.supervised == "systemd" || cfg.supervised == "auto" {
		notifySystemd(cfg.supervised, logf)
	}

	select {
	case sig := <-stop:
		logf("warning", "Received %v, scheduling shutdown...", sig)
		logf("warning", "User requested shutdown...")
		if cfg.appendonly == "yes" {
			logf("notice", "Calling fsync() on the AOF file.")
		}
		err = srv.Close()
	case err = <-shutdownDone: // SHUTDOWN: the engine logged the request
	}
	if err != nil {
		logf("warning", "Error during shutdown: %v", err)
		return 1
	}
	logf("warning", "Redis is now ready to exit, bye bye...")
	return 0
}

// newFlagSet registers every flag on cfg.
func newFlagSet(cfg *config, stderr io.Writer) (fs *pflag.FlagSet, version, help *bool) {
	fs = pflag.NewFlagSet("lockredis", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.SortFlags = false
	fs.IntVarP(&cfg.port, "port", "p", cfg.port, "TCP port to listen on (0: a free port)")
	fs.Var(bindFlag{&cfg.bind}, "bind", "address(es) to listen on, space or comma separated; a leading - makes one optional (127.0.0.1 -::1)")
	fs.StringVar(&cfg.requirepass, "requirepass", "", "password clients must AUTH with")
	fs.StringVar(&cfg.aclfile, "aclfile", "", "ACL users file (ACL LOAD/SAVE); loaded at start")
	fs.IntVar(&cfg.maxclients, "maxclients", cfg.maxclients, "maximum number of connected clients")
	fs.IntVar(&cfg.databases, "databases", cfg.databases, "number of databases (1..256)")
	fs.StringVar(&cfg.dir, "dir", cfg.dir, "directory for the append-only file and the state file")
	fs.StringVar(&cfg.appendonly, "appendonly", cfg.appendonly, "yes|no: keep the keyspace on disk")
	fs.StringVar(&cfg.appendfsync, "appendfsync", cfg.appendfsync, "always|everysec|no")
	fs.StringVar(&cfg.appendfile, "appendfilename", cfg.appendfile, "name of the append-only file in --dir")
	fs.StringVar(&cfg.loglevel, "loglevel", cfg.loglevel, "debug|verbose|notice|warning")
	fs.StringVar(&cfg.logfile, "logfile", "", "log file; empty logs to standard output")
	fs.StringVar(&cfg.save, "save", "", "accepted for redis-server compatibility; snapshots are not used")
	fs.IntVar(&cfg.luaTimeLimit, "lua-time-limit", cfg.luaTimeLimit, "milliseconds a script may run before other clients get BUSY and SCRIPT KILL may stop it")
	fs.IntVar(&cfg.luaTimeLimit, "busy-reply-threshold", cfg.luaTimeLimit, "the same as --lua-time-limit (Redis 7.0's name)")
	fs.IntVar(&cfg.luaHardLimit, "lua-hard-time-limit", cfg.luaHardLimit, "milliseconds after which a script is stopped and rolled back (0: never)")
	fs.StringVar(&cfg.maxmemory, "maxmemory", cfg.maxmemory, "refuse commands that may grow memory (OOM) past this many bytes (100mb, 1gb...; 0: no limit)")
	fs.StringVar(&cfg.maxmemPolicy, "maxmemory-policy", cfg.maxmemPolicy, "noeviction (the only policy: evicting keys would release held locks)")
	fs.StringVar(&cfg.restartFence, "restart-fence", cfg.restartFence,
		"auto|off|<duration>: after a crash, refuse to create keys for the largest TTL granted (auto) or the duration")
	fs.DurationVar(&cfg.maxLockTTL, "max-lock-ttl", cfg.maxLockTTL, "longest restart fence auto may impose")
	registerTLSFlags(fs, &cfg.tls)
	fs.IntVar(&cfg.lockDelay, "lock-delay", cfg.lockDelay, "milliseconds a SESSION lock stays with its dead owner before it passes on (LOCK.ACQUIRE LOCKDELAY)")
	fs.StringVar(&cfg.protectedMode, "protected-mode", cfg.protectedMode,
		"yes|no: without requirepass, refuse clients not from 127.0.0.1 or ::1")
	fs.IntVar(&cfg.timeout, "timeout", cfg.timeout, "close a client idle for this many seconds (0: never)")
	fs.IntVar(&cfg.tcpKeepAlive, "tcp-keepalive", cfg.tcpKeepAlive, "seconds between TCP keepalive probes of idle clients (0: off)")
	fs.StringVar(&cfg.slowlogSlowerThan, "slowlog-log-slower-than", cfg.slowlogSlowerThan, "microseconds a command must take to enter the slow log (-1: none, 0: all)")
	fs.StringVar(&cfg.slowlogMaxLen, "slowlog-max-len", cfg.slowlogMaxLen, "entries the slow log keeps")
	fs.StringVar(&cfg.latencyThreshold, "latency-monitor-threshold", cfg.latencyThreshold, "milliseconds an event must take to be sampled by LATENCY (0: off)")
	fs.StringVar(&cfg.enableDebug, "enable-debug-command", cfg.enableDebug, "no|yes|local: who may run DEBUG (local: loopback and unix socket clients)")
	fs.StringVar(&cfg.enableModule, "enable-module-command", cfg.enableModule, "no|yes|local: who may run MODULE LOAD/LOADEX/UNLOAD (lockredis loads no modules: they fail as Redis's do)")
	fs.StringVar(&cfg.notifyEvents, "notify-keyspace-events", cfg.notifyEvents, "keyspace event classes to publish, as redis.conf's letters (KEA, Ex...; empty: none)")
	fs.StringVar(&cfg.metricsBind, "metrics-bind", cfg.metricsBind, "host:port serving Prometheus metrics (/metrics), /healthz and /readyz over HTTP (empty: off)")
	registerDirectiveFlags(fs, cfg) // conffile.go
	version = fs.BoolP("version", "v", false, "print the version and exit")
	help = fs.BoolP("help", "h", false, "print this help and exit")
	return fs, version, help
}

// luaTimeLimit turns --lua-time-limit or --lua-hard-time-limit (ms) into
// the library's option, where 0 means the default: 0 on the command line
// means at once (busy threshold, as Redis 7.0) or never (hard limit).
func luaTimeLimit(ms int) time.Duration {
	if ms == 0 {
		return -1
	}
	return time.Duration(ms) * time.Millisecond
}

func validate(cfg *config) error {
	if len(cfg.bind) == 0 {
		return errors.New("--bind needs an address")
	}
	if cfg.port < 0 || cfg.port > 65535 {
		return fmt.Errorf("--port must be between 0 and 65535, got %d", cfg.port)
	}
	if cfg.maxclients < 1 {
		return fmt.Errorf("--maxclients must be at least 1, got %d", cfg.maxclients)
	}
	// The engine validates databases, appendfsync, appendfilename and
	// restart-fence (engine.New) and the yes|no words of appendonly; the
	// checks left here are for what only the CLI reads, or where the
	// library's zero means "the default" but redis-server refuses it.
	if cfg.databases == 0 {
		return errors.New("--databases must be between 1 and 256, got 0")
	}
	appendOnly, err := engine.ParseYesNo("appendonly", cfg.appendonly)
	if err != nil {
		return err
	}
	cfg.appendonly = "no"
	if appendOnly {
		cfg.appendonly = "yes" // as CONFIG GET reports it
	}
	cfg.loglevel = strings.ToLower(cfg.loglevel)
	switch cfg.loglevel {
	case "debug", "verbose", "notice", "warning", "nothing":
	default:
		return fmt.Errorf("--loglevel must be debug, verbose, notice or warning, got %q", cfg.loglevel)
	}
	if cfg.luaTimeLimit < 0 {
		return fmt.Errorf("--lua-time-limit must not be negative, got %d", cfg.luaTimeLimit)
	}
	if cfg.lockDelay < 0 {
		return fmt.Errorf("--lock-delay must not be negative, got %d", cfg.lockDelay)
	}
	if cfg.luaHardLimit < 0 {
		return fmt.Errorf("--lua-hard-time-limit must not be negative, got %d", cfg.luaHardLimit)
	}
	protected, err := engine.ParseYesNo("protected-mode", cfg.protectedMode)
	if err != nil {
		return err
	}
	cfg.protectedMode = "no"
	if protected {
		cfg.protectedMode = "yes"
	}
	if cfg.timeout < 0 {
		return fmt.Errorf("--timeout must not be negative, got %d", cfg.timeout)
	}
	if cfg.tcpKeepAlive < 0 {
		return fmt.Errorf("--tcp-keepalive must not be negative, got %d", cfg.tcpKeepAlive)
	}
	if cfg.maxLockTTL <= 0 {
		return fmt.Errorf("--max-lock-ttl must be positive, got %s", cfg.maxLockTTL)
	}
	return checkMetricsBind(cfg.metricsBind) // metrics.go
}

// bindFlag reads --bind "127.0.0.1 -::1": the addresses of one value,
// space or comma separated. A later --bind replaces an earlier one, as a
// later bind line does in redis.conf.
type bindFlag struct{ addrs *[]string }

func (f bindFlag) Set(s string) error {
	*f.addrs = strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' })
	return nil
}

func (f bindFlag) String() string {
	if f.addrs == nil {
		return ""
	}
	return strings.Join(*f.addrs, " ")
}

func (f bindFlag) Type() string { return "addresses" }

var levelRank = map[string]int{"debug": 0, "verbose": 1, "notice": 2, "warning": 3, "nothing": 4}
var levelMark = map[string]byte{"debug": '.', "verbose": '-', "notice": '*', "warning": '#'}

// newLogger writes lines the way redis-server does:
// "pid:M 21 Nov 2026 13:38:34.123 * message". setLevel changes the level
// (CONFIG SET loglevel).
func newLogger(w io.Writer, level string) (logf func(level, format string, args ...any), setLevel func(string)) {
	var mu sync.Mutex
	var min atomic.Int32
	min.Store(int32(levelRank[level]))
	pid := os.Getpid()
	setLevel = func(l string) { min.Store(int32(levelRank[strings.ToLower(l)])) }
	return func(lvl, format string, args ...any) {
		r, ok := levelRank[lvl]
		if !ok {
			r = 2
		}
		if int32(r) < min.Load() {
			return
		}
		mark, ok := levelMark[lvl]
		if !ok {
			mark = '*'
		}
		line := fmt.Sprintf("%d:M %s %c %s\n", pid, time.Now().Format("02 Jan 2006 15:04:05.000"), mark, fmt.Sprintf(format, args...))
		mu.Lock()
		io.WriteString(w, line)
		mu.Unlock()
	}, setLevel
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// notifySystemd tells systemd the server is ready (supervised systemd or
// auto, as redis-server's redisCommunicateSystemd): READY=1 on the
// NOTIFY_SOCKET datagram socket. Without the variable, auto does nothing
// and systemd is logged.
func notifySystemd(mode string, logf func(level, format string, args ...any)) {
	sock := os.Getenv("NOTIFY_SOCKET")
	if sock == "" {
		if mode == "systemd" {
			logf("warning", "systemd supervision requested or auto-detected, but NOTIFY_SOCKET not found!")
		}
		return
	}
	if sock[0] == '@' {
		sock = "\x00" + sock[1:] // abstract socket
	}
	c, err := net.DialUnix("unixgram", nil, &net.UnixAddr{Name: sock, Net: "unixgram"})
	if err != nil {
		logf("warning", "Can't notify systemd: %v", err)
		return
	}
	defer c.Close()
	if _, err := c.Write([]byte("STATUS=Ready to accept connections\nREADY=1\n")); err != nil {
		logf("warning", "Can't notify systemd: %v", err)
		return
	}
	logf("notice", "Supervised by systemd. Please make sure you set appropriate values for TimeoutStartSec and TimeoutStopSec in your service unit.")
}
