// Command lockredis runs a standalone lock server that speaks the Redis
// protocol. Flags follow redis-server's names; a redis.conf-style file may
// be given as the first argument, and flags override it. Both are the
// configuration spec's (package config): the binary reads the parameters
// it applies itself (logfile, pidfile, supervised...) and hands all of
// them to the server.
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
	"github.com/lockredis/lockredis/config"
	"github.com/lockredis/lockredis/raftgroup"
	"github.com/lockredis/lockredis/replication"
	"github.com/spf13/pflag"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, nil))
}

const usageLine = "Usage: lockredis [/path/to/redis.conf] [options]\n\n"

// run is main without the process exit, so tests can drive it. stop, if
// not nil, replaces the signal channel.
func run(args []string, stdout, stderr io.Writer, stop <-chan os.Signal) int {
	c := newCLI(stderr)
	c.fs.Usage = func() {
		fmt.Fprint(stderr, usageLine)
		c.fs.PrintDefaults()
	}
	if err := c.fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "lockredis: %v\nRun 'lockredis --help' for usage.\n", err)
		return 1
	}
	if *c.help {
		c.fs.SetOutput(stdout)
		fmt.Fprint(stdout, usageLine)
		c.fs.PrintDefaults()
		return 0
	}
	if *c.version {
		fmt.Fprintf(stdout, "lockredis v=%s (Redis protocol %s)\n", lockredis.Version, lockredis.RedisVersion)
		return 0
	}
	configFile := ""
	if rest := c.fs.Args(); len(rest) > 0 {
		if len(rest) > 1 {
			fmt.Fprintf(stderr, "lockredis: unexpected arguments %q: only one config file may be given\n", rest[1:])
			return 1
		}
		configFile = rest[0]
	}
	set, err := c.settings(configFile)
	if err != nil {
		fmt.Fprintf(stderr, "lockredis: %v\n", err)
		return 1
	}
	if configFile != "" {
		if abs, err := filepath.Abs(configFile); err == nil {
			configFile = abs
		}
	}
	if err := checkMetricsBind(set.Value("metrics-bind")); err != nil { // metrics.go
		fmt.Fprintf(stderr, "lockredis: %v\n", err)
		return 1
	}
	if err := checkRaft(set); err != nil {
		fmt.Fprintf(stderr, "lockredis: %v\n", err)
		return 1
	}
	if set.Value("supervised") == "upstart" {
		fmt.Fprintln(stderr, "lockredis: supervised upstart is not supported by lockredis (it does not stop itself to signal readiness): use systemd or no")
		return 1
	}

	logOut := stdout
	if path := set.Value("logfile"); path != "" {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			fmt.Fprintf(stderr, "lockredis: can't open the log file: %v\n", err)
			return 1
		}
		defer f.Close()
		logOut = f
	}
	logf, setLogLevel := newLogger(logOut, set.Value("loglevel"))
	if names := keptNames(set); len(names) > 0 {
		logf("notice", "Accepted and ignored: %s (no effect in lockredis)", strings.Join(names, " "))
	}
	if set.Bool("daemonize") {
		logf("notice", "daemonize yes: lockredis does not fork, it stays in the foreground (use a supervisor such as systemd)")
	}
	// Redis's adjustOpenFilesLimit: room for maxclients, or fewer clients.
	mc, ok := adjustOpenFilesLimit(int(set.Int("maxclients")), logf)
	if !ok {
		return 1
	}
	set.SetValue("maxclients", strconv.Itoa(mc))

	// Signals are caught before the port opens: a SIGTERM as soon as
	// clients can connect stops the server cleanly.
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
	// The pid file is there before the port opens, so that whoever sees
	// the port finds it.
	if pidfile := set.Value("pidfile"); pidfile != "" {
		if err := os.WriteFile(pidfile, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
			logf("warning", "Failed to write PID file: %v", err)
		} else {
			defer os.Remove(pidfile)
		}
	}
	// The Go memory limit follows maxmemory (memlimit.go).
	memLimit := newMemLimit(os.Getenv("GOMEMLIMIT"), logf)
	memLimit.apply(set.Int("maxmemory"))
	shutdownDone := make(chan error, 1)
	opts := lockredis.Options{
		Params:     set.Map(),
		ConfigFile: configFile,
		Logf:       logf,
		// SHUTDOWN closes the server; then this process exits.
		OnShutdown: func(err error) { shutdownDone <- err },
		OnConfigSet: func(name, value string) {
			if name == "loglevel" {
				setLogLevel(value)
			}
			memLimit.onConfigSet(name, value)
		},
	}
	var srv *lockredis.Server
	var node *replication.Node // nil: a single server
	if id := set.Value("raft-id"); id != "" {
		// One node of a replicated group (package raftgroup); its Raft
		// log lives in raft-dir, default <dir>/raft.
		opts.RaftID, opts.RaftBind, opts.RaftPeers = id, set.Value("raft-bind"), set.Value("raft-peers")
		opts.RaftDir, opts.RaftGroupName, opts.RaftSeedAOF = set.Value("raft-dir"), set.Value("raft-group-name"), set.Value("raft-seed-aof")
		if opts.RaftDir == "" {
			opts.RaftDir = filepath.Join(set.Value("dir"), "raft")
		}
		// Checked by the settings: a positive duration.
		opts.RaftSessionTimeout, _ = time.ParseDuration(set.Value("raft-session-timeout"))
		if srv, node, err = raftgroup.NewServer(opts); err != nil {
			logf("warning", "Can't start: %v", err)
			fmt.Fprintf(stderr, "lockredis: %v\n", err)
			return 1
		}
	} else {
		srv = lockredis.NewServer(opts)
	}
	if bind := set.Value("metrics-bind"); bind != "" {
		// Before Start: a long load shows in /metrics and /readyz.
		var g group
		if node != nil {
			g = node
		}
		m, err := startMetrics(bind, srv, g, logf)
		if err != nil {
			logf("warning", "Can't start: %v", err)
			if set.Value("logfile") != "" {
				fmt.Fprintf(stderr, "lockredis: %v\n", err)
			}
			return 1
		}
		defer m.Close()
	}
	if err := srv.Start(); err != nil {
		// The server's verdict on the settings, or a listen error; on
		// the terminal too when the log goes to a file.
		logf("warning", "Can't start on %s: %v", listenAddrs(set), err)
		if set.Value("logfile") != "" {
			fmt.Fprintf(stderr, "lockredis: %v\n", err)
		}
		return 1
	}
	mode, storage := "standalone", "in memory"
	switch {
	case node != nil:
		mode = "raft node " + opts.RaftID + " (raft " + opts.RaftBind + ")"
		storage = "Raft log in " + opts.RaftDir
	case set.Bool("appendonly"):
		storage = fmt.Sprintf("append-only file %s/%s, appendfsync %s", set.Value("dir"), set.Value("appendfilename"), set.Value("appendfsync"))
	}
	logf("notice", "lockredis %s (Redis %s protocol) pid %d, mode %s, %s", lockredis.Version, lockredis.RedisVersion, os.Getpid(), mode, storage)
	if len(srv.Addrs()) > 0 {
		logf("notice", "Ready to accept connections tcp on %s", strings.Join(srv.Addrs(), " "))
	}
	if len(srv.TLSAddrs()) > 0 {
		logf("notice", "Ready to accept connections tls on %s", strings.Join(srv.TLSAddrs(), " "))
	}
	if sup := set.Value("supervised"); sup == "systemd" || sup == "auto" {
		notifySystemd(sup, logf)
	}

	select {
	case sig := <-stop:
		logf("warning", "Received %v, scheduling shutdown...", sig)
		logf("warning", "User requested shutdown...")
		if set.Bool("appendonly") {
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

// checkRaft refuses Raft settings that cannot make a node
// (docs/replication.md).
func checkRaft(s *config.Settings) error {
	id := s.Value("raft-id")
	if id == "" && (s.Value("raft-bind") != "" || s.Value("raft-peers") != "" || s.Value("raft-dir") != "" || s.Value("raft-seed-aof") != "") {
		return errors.New("raft-bind, raft-peers, raft-dir and raft-seed-aof need raft-id")
	}
	if id != "" && s.Value("raft-bind") == "" {
		return errors.New("raft-id needs raft-bind HOST:PORT (the address of this node's Raft traffic)")
	}
	if id != "" && s.Value("raft-peers") != "" {
		if _, err := replication.ParsePeers(s.Value("raft-peers")); err != nil {
			return err
		}
	}
	return nil
}

// readConfigFile reads a redis.conf-style file into s. Errors name the
// file and the line, as redis-server's do.
func readConfigFile(s *config.Settings, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("can't open config file %q: %v", path, err)
	}
	defer f.Close()
	err = s.ReadFile(f)
	if le := (*config.LineError)(nil); errors.As(err, &le) {
		return fmt.Errorf("%s:%d: >>> '%s'\n%v", path, le.Line, le.Text, le.Err)
	}
	return err
}

// keptNames are the parameters given that have no effect in lockredis
// (config.Kept), sorted.
func keptNames(s *config.Settings) []string {
	var out []string
	for _, n := range s.Names() {
		if p, _ := config.Lookup(n); p.Mode == config.Kept && p.Binary == "" {
			out = append(out, n)
		}
	}
	return out
}

// listenAddrs is where the server was asked to listen, for the log.
func listenAddrs(s *config.Settings) string {
	var out []string
	for _, b := range config.SplitAddresses(s.Value("bind")) {
		host := strings.TrimPrefix(b, "-")
		out = append(out, b[:len(b)-len(host)]+net.JoinHostPort(host, s.Value("port")))
	}
	return strings.Join(out, " ")
}

var levelRank = map[string]int{"debug": 0, "verbose": 1, "notice": 2, "warning": 3}
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
