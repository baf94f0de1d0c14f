package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// ignoredDirectives are redis.conf directives that mean nothing to
// lockredis but appear in ordinary configs; they are accepted and skipped.
var ignoredDirectives = map[string]bool{
	"daemonize": true, "supervised": true, "pidfile": true,
	"tcp-backlog": true, "stop-writes-on-bgsave-error": true,
	"rdbcompression": true, "rdbchecksum": true, "dbfilename": true, "always-show-logo": true,
	"set-proc-title": true, "hz": true, "dynamic-hz": true, "aof-use-rdb-preamble": true,
	"no-appendfsync-on-rewrite": true, "auto-aof-rewrite-percentage": true,
	"auto-aof-rewrite-min-size": true, "aof-load-truncated": true,
	"lazyfree-lazy-eviction": true, "io-threads": true,
	"syslog-enabled":         true,
	"notify-keyspace-events": true, "unixsocket": true, "unixsocketperm": true,
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
	default:
		if handled, err := applyTLSDirective(&cfg.tls, name, args); handled {
			return err
		}
		if !ignoredDirectives[name] {
			return fmt.Errorf("Bad directive or wrong number of arguments")
		}
	}
	return err
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
