package main

import (
	"bufio"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/lockredis/lockredis/engine"
	"github.com/spf13/pflag"
)

// ignoredDirectives are redis.conf directives that change nothing a
// client can see in lockredis (snapshots, replication, encodings, memory
// and thread tuning...) but appear in ordinary configs, Debian's stock
// redis.conf among them: they are accepted, with any value, and listed
// once in a log line at start ("Accepted and ignored: ..."). Each is also
// a (hidden) flag. Directives that would change behaviour lockredis does
// not implement are refused instead (refusedDirectives).
var ignoredDirectives = map[string]bool{
	// snapshots (lockredis persists with its append-only file only)
	"stop-writes-on-bgsave-error": true, "rdbcompression": true, "rdbchecksum": true,
	"dbfilename": true, "rdb-del-sync-files": true, "rdb-save-incremental-fsync": true,
	"rdb-key-save-delay": true,
	// append-only file tuning (lockredis's file is dir/appendfilename)
	"appenddirname": true, "aof-use-rdb-preamble": true, "no-appendfsync-on-rewrite": true,
	"auto-aof-rewrite-percentage": true, "auto-aof-rewrite-min-size": true,
	"aof-load-truncated": true, "aof-timestamp-enabled": true, "aof-rewrite-incremental-fsync": true,
	// replication (lockredis has none; replicaof is refused)
	"replica-serve-stale-data": true, "slave-serve-stale-data": true, "replica-read-only": true, "slave-read-only": true,
	"repl-diskless-sync": true, "repl-diskless-sync-delay": true, "repl-diskless-sync-max-replicas": true,
	"repl-diskless-load": true, "repl-disable-tcp-nodelay": true, "replica-priority": true, "slave-priority": true,
	"repl-ping-replica-period": true, "repl-timeout": true, "repl-backlog-size": true, "repl-backlog-ttl": true,
	"min-replicas-to-write": true, "min-replicas-max-lag": true, "replica-announce-ip": true,
	"replica-announce-port": true, "replica-announced": true, "replica-ignore-maxmemory": true,
	"replica-lazy-flush": true,
	// lazy freeing, encodings, memory and thread tuning
	"lazyfree-lazy-eviction": true, "lazyfree-lazy-expire": true, "lazyfree-lazy-server-del": true,
	"lazyfree-lazy-user-del": true, "lazyfree-lazy-user-flush": true,
	"hash-max-listpack-entries": true, "hash-max-listpack-value": true, "hash-max-ziplist-entries": true,
	"hash-max-ziplist-value": true, "list-max-listpack-size": true, "list-max-ziplist-size": true,
	"list-compress-depth": true, "set-max-intset-entries": true, "zset-max-listpack-entries": true,
	"zset-max-listpack-value": true, "zset-max-ziplist-entries": true, "zset-max-ziplist-value": true,
	"hll-sparse-max-bytes": true, "stream-node-max-bytes": true, "stream-node-max-entries": true,
	"activerehashing": true, "activedefrag": true, "jemalloc-bg-thread": true, "maxmemory-samples": true,
	"maxmemory-eviction-tenacity": true, "lfu-log-factor": true, "lfu-decay-time": true,
	"io-threads": true, "io-threads-do-reads": true, "hz": true, "dynamic-hz": true,
	"oom-score-adj": true, "oom-score-adj-values": true, "disable-thp": true,
	// process cosmetics and the listen queue (Go's listen uses the kernel's somaxconn)
	"always-show-logo": true, "set-proc-title": true, "proc-title-template": true, "tcp-backlog": true,
	"syslog-enabled": true, "syslog-ident": true, "syslog-facility": true, "crash-log-enabled": true,
	"crash-memcheck-enabled": true, "acllog-max-len": true,
	// cluster tuning: the emulated cluster (cluster-enabled yes) is one
	// node that owns every slot, with no file, peers or failures
	"cluster-config-file": true, "cluster-node-timeout": true, "cluster-require-full-coverage": true,
	"cluster-allow-reads-when-down": true, "cluster-allow-pubsubshard-when-down": true,
	"cluster-replica-validity-factor": true, "cluster-slave-validity-factor": true,
	"cluster-migration-barrier": true, "cluster-allow-replica-migration": true,
	"cluster-replica-no-failover": true, "cluster-slave-no-failover": true, "cluster-link-sendbuf-limit": true,
}

// refusedDirectives are redis.conf directives that would change
// behaviour lockredis does not implement: any value but the harmless one
// stops the start with why.
var refusedDirectives = map[string]struct{ why, harmless string }{
	"replicaof":      {"lockredis has no replication", ""},
	"slaveof":        {"lockredis has no replication", ""},
	"unixsocket":     {"lockredis listens on TCP only", ""},
	"unixsocketperm": {"lockredis listens on TCP only", "0"},
	"rename-command": {"use ACL rules (aclfile) to deny commands", ""},
	"include":        {"lockredis reads one config file", ""},
	"loadmodule":     {"lockredis has no modules", ""},
	"masterauth":     {"lockredis has no replication", ""},
	"masteruser":     {"lockredis has no replication", ""},
}

// readConfigFile reads a redis.conf-style file: one "directive args..."
// per line, '#' comments, quoted arguments. Errors name the line, as
// redis-server's do.
func readConfigFile(path string, cfg config) (config, error) {
	f, err := os.Open(path)
	if err != nil {
		return cfg, fmt.Errorf("can't open config file %q: %v", path, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	lineNo := 0
	for sc.Scan() {
		lineNo++
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		words, err := splitConfigLine(line)
		if err != nil {
			return cfg, fmt.Errorf("%s:%d: %v", path, lineNo, err)
		}
		if len(words) == 0 {
			continue
		}
		if err := applyDirective(&cfg, strings.ToLower(words[0]), words[1:]); err != nil {
			return cfg, fmt.Errorf("%s:%d: >>> '%s'\n%v", path, lineNo, line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return cfg, fmt.Errorf("reading %s: %v", path, err)
	}
	return cfg, nil
}

func applyDirective(cfg *config, name string, args []string) error {
	one := func() (string, error) {
		if len(args) != 1 {
			return "", fmt.Errorf("wrong number of arguments for %q", name)
		}
		return args[0], nil
	}
	num := func() (int, error) {
		s, err := one()
		if err != nil {
			return 0, err
		}
		n, err := strconv.Atoi(s)
		if err != nil {
			return 0, fmt.Errorf("argument of %q must be an integer, got %q", name, s)
		}
		return n, nil
	}
	var err error
	switch name {
	case "port":
		cfg.port, err = num()
	case "bind":
		if len(args) == 0 {
			return fmt.Errorf("wrong number of arguments for %q", name)
		}
		cfg.bind = strings.Fields(strings.Join(args, " "))
	case "requirepass":
		cfg.requirepass, err = one()
	case "aclfile":
		cfg.aclfile, err = one()
	case "maxclients":
		cfg.maxclients, err = num()
	case "databases":
		cfg.databases, err = num()
	case "dir":
		cfg.dir, err = one()
	case "appendonly":
		cfg.appendonly, err = one()
	case "appendfsync":
		cfg.appendfsync, err = one()
	case "appendfilename":
		cfg.appendfile, err = one()
	case "loglevel":
		cfg.loglevel, err = one()
	case "logfile":
		cfg.logfile, err = one()
	case "lua-time-limit", "busy-reply-threshold":
		cfg.luaTimeLimit, err = num()
	case "lua-hard-time-limit":
		cfg.luaHardLimit, err = num()
	case "maxmemory":
		cfg.maxmemory, err = one()
	case "maxmemory-policy":
		cfg.maxmemPolicy, err = one()
	case "save":
		cfg.save = strings.Join(args, " ")
	case "protected-mode":
		cfg.protectedMode, err = one()
	case "timeout":
		cfg.timeout, err = num()
	case "tcp-keepalive":
		cfg.tcpKeepAlive, err = num()
	case "restart-fence":
		cfg.restartFence, err = one()
	case "lock-delay":
		cfg.lockDelay, err = num()
	case "max-lock-ttl":
		var v string
		if v, err = one(); err == nil {
			if cfg.maxLockTTL, err = time.ParseDuration(v); err != nil {
				err = fmt.Errorf("argument of %q must be a duration such as 5m, got %q", name, v)
			}
		}
	case "slowlog-log-slower-than":
		cfg.slowlogSlowerThan, err = one()
	case "slowlog-max-len":
		cfg.slowlogMaxLen, err = one()
	case "latency-monitor-threshold":
		cfg.latencyThreshold, err = one()
	case "enable-debug-command":
		cfg.enableDebug, err = one()
	case "enable-module-command":
		cfg.enableModule, err = one()
	case "notify-keyspace-events":
		cfg.notifyEvents, err = one()
	case "daemonize":
		var v string
		if v, err = one(); err == nil {
			var yes bool
			if yes, err = engine.ParseYesNo(name, v); err == nil {
				cfg.daemonize = yes
			}
		}
	case "cluster-enabled":
		var v string
		if v, err = one(); err == nil {
			var yes bool
			if yes, err = engine.ParseYesNo(name, v); err == nil {
				cfg.clusterEnabled = yes
			}
		}
	case "supervised":
		var v string
		if v, err = one(); err == nil {
			switch v = strings.ToLower(v); v {
			case "no", "auto", "systemd":
				cfg.supervised = v
			case "upstart":
				err = fmt.Errorf("supervised upstart is not supported by lockredis (it does not stop itself to signal readiness): use systemd or no")
			default:
				err = fmt.Errorf("argument of %q must be upstart, systemd, auto or no, got %q", name, v)
			}
		}
	case "pidfile":
		cfg.pidfile, err = one()
	case "metrics-bind":
		cfg.metricsBind, err = one()
	case "client-output-buffer-limit":
		if len(args) == 0 || len(args)%4 != 0 {
			return fmt.Errorf("wrong number of arguments for %q", name)
		}
		cfg.outputLimits = append(cfg.outputLimits, strings.Join(args, " "))
	default:
		if handled, err := applyTLSDirective(&cfg.tls, name, args); handled {
			return err
		}
		if r, ok := refusedDirectives[name]; ok {
			if v := strings.Join(args, " "); v != r.harmless {
				return fmt.Errorf("%s %q is not supported: %s", name, v, r.why)
			}
			return nil
		}
		if !ignoredDirectives[name] {
			return fmt.Errorf("Bad directive or wrong number of arguments")
		}
		cfg.ignore(name, strings.Join(args, " "))
	}
	return err
}

// ignore records an accepted-and-ignored directive and its value (the
// last one given wins, as for every directive).
func (cfg *config) ignore(name, value string) {
	if cfg.ignored == nil {
		cfg.ignored = map[string]string{}
	}
	cfg.ignored[name] = value
}

// ignoredNames lists the ignored directives given, sorted.
func (cfg *config) ignoredNames() []string {
	names := make([]string, 0, len(cfg.ignored))
	for n := range cfg.ignored {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// directiveFlag is the flag of a directive held outside the typed flags:
// --name "args..." applies "name args..." as the config file would.
type directiveFlag struct {
	name string
	cfg  *config
	set  *string // the last value, for String
}

func (f directiveFlag) Set(s string) error {
	args, err := splitConfigLine(s)
	if err != nil {
		return err
	}
	*f.set = s
	return applyDirective(f.cfg, f.name, args)
}

func (f directiveFlag) String() string {
	if f.set == nil {
		return ""
	}
	return *f.set
}

func (f directiveFlag) Type() string { return "string" }

// registerDirectiveFlags adds a flag for each directive the typed flags
// do not cover: every redis.conf directive lockredis takes is also a
// flag, as redis-server takes --any-directive value. Ignored and refused
// directives are hidden flags (docs/configuration.md lists them).
func registerDirectiveFlags(fs *pflag.FlagSet, cfg *config) {
	for _, d := range []struct{ name, usage string }{
		{"daemonize", "yes|no: lockredis never forks; yes logs that it stays in the foreground"},
		{"supervised", "no|auto|systemd: tell systemd (NOTIFY_SOCKET) when ready"},
		{"cluster-enabled", "yes|no: answer as a Redis cluster of one node that owns every slot (CLUSTER SLOTS, CROSSSLOT...)"},
		{"pidfile", "write the process id to this file while running"},
		{"client-output-buffer-limit", `"<class> <hard> <soft> <seconds>" (normal, pubsub, replica); repeatable`},
	} {
		fs.Var(directiveFlag{d.name, cfg, new(string)}, d.name, d.usage)
	}
	var hidden []string
	for n := range ignoredDirectives {
		hidden = append(hidden, n)
	}
	for n := range refusedDirectives {
		hidden = append(hidden, n)
	}
	sort.Strings(hidden)
	for _, n := range hidden {
		if fs.Lookup(n) != nil {
			continue
		}
		fs.Var(directiveFlag{n, cfg, new(string)}, n, "redis.conf's "+n)
		fs.MarkHidden(n)
	}
}

// overlay returns file, with every flag the command line set taken from cli.
func overlay(file, cli config, fs *pflag.FlagSet) config {
	out := file
	set := func(name string, apply func()) {
		if fs.Changed(name) {
			apply()
		}
	}
	set("port", func() { out.port = cli.port })
	set("bind", func() { out.bind = cli.bind })
	set("requirepass", func() { out.requirepass = cli.requirepass })
	set("aclfile", func() { out.aclfile = cli.aclfile })
	set("maxclients", func() { out.maxclients = cli.maxclients })
	set("databases", func() { out.databases = cli.databases })
	set("dir", func() { out.dir = cli.dir })
	set("appendonly", func() { out.appendonly = cli.appendonly })
	set("appendfsync", func() { out.appendfsync = cli.appendfsync })
	set("appendfilename", func() { out.appendfile = cli.appendfile })
	set("loglevel", func() { out.loglevel = cli.loglevel })
	set("logfile", func() { out.logfile = cli.logfile })
	set("save", func() { out.save = cli.save })
	set("lua-time-limit", func() { out.luaTimeLimit = cli.luaTimeLimit })
	set("busy-reply-threshold", func() { out.luaTimeLimit = cli.luaTimeLimit })
	set("lua-hard-time-limit", func() { out.luaHardLimit = cli.luaHardLimit })
	set("maxmemory", func() { out.maxmemory = cli.maxmemory })
	set("maxmemory-policy", func() { out.maxmemPolicy = cli.maxmemPolicy })
	set("restart-fence", func() { out.restartFence = cli.restartFence })
	set("lock-delay", func() { out.lockDelay = cli.lockDelay })
	set("max-lock-ttl", func() { out.maxLockTTL = cli.maxLockTTL })
	overlayTLS(&out.tls, cli.tls, fs)
	set("protected-mode", func() { out.protectedMode = cli.protectedMode })
	set("timeout", func() { out.timeout = cli.timeout })
	set("tcp-keepalive", func() { out.tcpKeepAlive = cli.tcpKeepAlive })
	set("slowlog-log-slower-than", func() { out.slowlogSlowerThan = cli.slowlogSlowerThan })
	set("slowlog-max-len", func() { out.slowlogMaxLen = cli.slowlogMaxLen })
	set("latency-monitor-threshold", func() { out.latencyThreshold = cli.latencyThreshold })
	set("enable-debug-command", func() { out.enableDebug = cli.enableDebug })
	set("enable-module-command", func() { out.enableModule = cli.enableModule })
	set("notify-keyspace-events", func() { out.notifyEvents = cli.notifyEvents })
	set("daemonize", func() { out.daemonize = cli.daemonize })
	set("cluster-enabled", func() { out.clusterEnabled = cli.clusterEnabled })
	set("supervised", func() { out.supervised = cli.supervised })
	set("pidfile", func() { out.pidfile = cli.pidfile })
	set("metrics-bind", func() { out.metricsBind = cli.metricsBind })
	// Limits add up class by class: the command line's come after the file's.
	out.outputLimits = append(append([]string(nil), file.outputLimits...), cli.outputLimits...)
	for _, n := range cli.ignoredNames() {
		out.ignore(n, cli.ignored[n])
	}
	return out
}

// splitConfigLine splits a config line into words; "..." and '...' quote.
func splitConfigLine(line string) ([]string, error) {
	var words []string
	i := 0
	for i < len(line) {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		if i >= len(line) {
			break
		}
		var w strings.Builder
		if q := line[i]; q == '"' || q == '\'' {
			i++
			closed := false
			for i < len(line) {
				c := line[i]
				if c == '\\' && q == '"' && i+1 < len(line) {
					i++
					switch line[i] {
					case 'n':
						w.WriteByte('\n')
					case 't':
						w.WriteByte('\t')
					case 'r':
						w.WriteByte('\r')
					default:
						w.WriteByte(line[i])
					}
					i++
					continue
				}
				if c == q {
					closed = true
					i++
					break
				}
				w.WriteByte(c)
				i++
			}
			if !closed {
				return nil, fmt.Errorf("unbalanced quotes in configuration line")
			}
			words = append(words, w.String())
			continue
		}
		for i < len(line) && line[i] != ' ' && line[i] != '\t' {
			w.WriteByte(line[i])
			i++
		}
		words = append(words, w.String())
	}
	return words, nil
}
