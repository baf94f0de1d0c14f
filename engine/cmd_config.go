package engine

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
)

// CONFIG GET/SET/RESETSTAT/REWRITE/HELP. Values come from the engine's
// Config (databases, requirepass) and Config.Params, which whoever
// assembles the server fills (port, bind, dir, appendonly...); a parameter
// missing from both reads as redis-server 7.0's default (save excepted). Params keys with
// an underscore are not parameters but INFO fields (config_file,
// lockredis_version) and are never listed.

// Error replies of this file's commands (errors.go has the shared ones).
var (
	errNoConfigFile = errors.New("ERR The server is running without a config file")
)

func configCommands() []*Command {
	return []*Command{{
		Name: "config",
		Subcommands: []*Command{
			{Name: "get", Handler: cmdConfigGet},
			{Name: "set", Handler: cmdConfigSet},
			{Name: "resetstat", Handler: cmdConfigResetstat},
			{Name: "rewrite", Handler: cmdConfigRewrite},
			{Name: "help", Handler: cmdConfigHelp},
		},
	}}
}

var configHelp = []string{
	"CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"GET <pattern>",
	"    Return parameters matching the glob-like <pattern> and their values.",
	"SET <directive> <value>",
	"    Set the configuration <directive> to <value>.",
	"RESETSTAT",
	"    Reset statistics reported by the INFO command.",
	"REWRITE",
	"    Rewrite the configuration file.",
	"HELP",
	"    Prints this help.",
}

func cmdConfigHelp(c *Call) { WriteHelp(c.W, configHelp) }

// configKind says how CONFIG SET validates a value, with Redis's errors.
type configKind uint8

const (
	kindString       configKind = iota
	kindInt                     // min..max
	kindBool                    // yes|no
	kindEnum                    // one of enum
	kindMemory                  // bytes with an optional k/kb/m/mb/g/gb unit, >= min
	kindSave                    // "" or pairs of seconds and changes
	kindOutputLimits            // client-output-buffer-limit: <class> <hard> <soft> <seconds>...
	kindNotify                  // notify-keyspace-events: class letters (notify.go)
)

// configParam is one parameter CONFIG knows.
type configParam struct {
	name     string
	alias    string // another name for the same value (lua-time-limit)
	def      string // redis-server 7.0's default
	kind     configKind
	min, max int64
	enum     []string
	// immutable and protected parameters refuse CONFIG SET as Redis does.
	immutable, protected bool
	// ignorable parameters accept any valid CONFIG SET without effect:
	// tuning knobs whose change cannot hurt a client (hz, loglevel...).
	ignorable bool
	// settable parameters change at runtime (setConfigValue).
	settable bool
}

// Every parameter is settable, ignorable, immutable or protected, or
// refused at runtime unless the value is the current one ("lockredis
// cannot change this parameter at runtime"): TestConfigSetEveryParam
// checks each one.

const maxInt32 = math.MaxInt32

// configParams lists the parameters CONFIG GET reports, in the order a
// pattern lists them. Values are never stored here.
var configParams = []configParam{
	// lockredis takes no snapshots: save defaults to "" (redis-server's
	// default is "3600 1 300 100 60 10000").
	{name: "save", kind: kindSave, ignorable: true},
	{name: "appendonly", def: "no", kind: kindBool},
	{name: "appendfsync", def: "everysec", kind: kindEnum, enum: []string{"everysec", "always", "no"}},
	{name: "appendfilename", def: "appendonly.aof", immutable: true},
	{name: "appenddirname", def: "appendonlydir", immutable: true},
	{name: "dbfilename", def: "dump.rdb", protected: true},
	{name: "dir", protected: true},
	{name: "maxmemory", def: "0", kind: kindMemory, settable: true},
	{name: "maxmemory-policy", def: "noeviction", kind: kindEnum, enum: []string{"volatile-lru", "volatile-lfu",
		"volatile-random", "volatile-ttl", "allkeys-lru", "allkeys-lfu", "allkeys-random", "noeviction"}, settable: true},
	{name: "maxmemory-samples", def: "5", kind: kindInt, min: 1, max: maxInt32, ignorable: true},
	{name: "databases", def: "16", kind: kindInt, immutable: true},
	{name: "timeout", def: "0", kind: kindInt, min: 0, max: maxInt32, settable: true},
	{name: "port", def: "6379", kind: kindInt, min: 0, max: 65535},
	{name: "bind", def: "* -::*"},
	{name: "requirepass"},
	{name: "maxclients", def: "10000", kind: kindInt, min: 1, max: maxInt32},
	{name: "busy-reply-threshold", alias: "lua-time-limit", def: "5000", kind: kindInt, min: 0, max: math.MaxInt64, settable: true},
	{name: "lua-time-limit", alias: "busy-reply-threshold", def: "5000", kind: kindInt, min: 0, max: math.MaxInt64, settable: true},
	// lockredis's own: the running time that stops a script and rolls it
	// back (guards.go); 0: never, as Redis.
	{name: "lua-hard-time-limit", def: "60000", kind: kindInt, min: 0, max: math.MaxInt64, settable: true},
	// loglevel is applied by the assembler (Config.OnConfigSet).
	{name: "loglevel", def: "notice", kind: kindEnum, enum: []string{"debug", "verbose", "notice", "warning"}, settable: true},
	{name: "logfile", immutable: true},
	{name: "protected-mode", def: "yes", kind: kindBool, settable: true},
	{name: "tcp-keepalive", def: "300", kind: kindInt, min: 0, max: maxInt32, settable: true},
	{name: "tcp-backlog", def: "511", kind: kindInt, immutable: true},
	{name: "hz", def: "10", kind: kindInt, min: 0, max: maxInt32, ignorable: true},
	{name: "dynamic-hz", def: "yes", kind: kindBool, ignorable: true},
	{name: "proto-max-bulk-len", def: "536870912", kind: kindMemory, min: 1 << 20},
	{name: "client-query-buffer-limit", def: "1073741824", kind: kindMemory, min: 1 << 20},
	{name: "notify-keyspace-events", kind: kindNotify, settable: true},
	{name: "cluster-enabled", def: "no", kind: kindBool, immutable: true},
	{name: "daemonize", def: "no", kind: kindBool, immutable: true},
	{name: "supervised", def: "no", kind: kindEnum, enum: []string{"upstart", "systemd", "auto", "no"}, immutable: true},
	{name: "pidfile", immutable: true},
	{name: "unixsocket", immutable: true},
	{name: "io-threads", def: "1", kind: kindInt, immutable: true},
	{name: "replicaof", alias: "slaveof", immutable: true},
	{name: "slaveof", alias: "replicaof", immutable: true},
	{name: "replica-read-only", alias: "slave-read-only", def: "yes", kind: kindBool},
	{name: "slave-read-only", alias: "replica-read-only", def: "yes", kind: kindBool},
	// Applied at once (ops.go, cmd_slowlog.go, cmd_latency.go).
	{name: "slowlog-log-slower-than", def: "10000", kind: kindInt, min: -1, max: math.MaxInt64, settable: true},
	{name: "slowlog-max-len", def: "128", kind: kindInt, min: 0, max: math.MaxInt64, settable: true},
	{name: "latency-monitor-threshold", def: "0", kind: kindInt, min: 0, max: math.MaxInt64, settable: true},
	{name: "enable-debug-command", def: "no", kind: kindEnum, enum: []string{"no", "yes", "local"}, immutable: true},
	{name: "enable-module-command", def: "no", kind: kindEnum, enum: []string{"no", "yes", "local"}, immutable: true},
	{name: "tracking-table-max-keys", def: "1000000", kind: kindInt, min: 0, max: math.MaxInt64, settable: true},
	// lockredis's own: milliseconds a SESSION lock stays with its dead
	// owner before it passes on (lockqueue.go).
	{name: "lock-delay", def: "0", kind: kindInt, min: 0, max: math.MaxInt64, settable: true},
	// normal clients: resp; pubsub: pubsub/; replica: kept only (outbuf.go).
	{name: "client-output-buffer-limit", kind: kindOutputLimits, settable: true},
}

// lookupConfigParam finds a parameter by name, any case; an extra Params
// key is a plain string parameter.
func (e *Engine) lookupConfigParam(name []byte) (configParam, bool) {
	for _, p := range configParams {
		if EqualFold(name, p.name) {
			return p, true
		}
	}
	for k := range e.cfg.Params {
		if isExtraParam(k) && EqualFold(name, k) {
			return configParam{name: k}, true
		}
	}
	return configParam{}, false
}

// isExtraParam tells a Params key that is a parameter of its own from the
// INFO fields that travel in Params too.
func isExtraParam(k string) bool {
	if strings.IndexByte(k, '_') >= 0 {
		return false
	}
	for _, p := range configParams {
		if p.name == k {
			return false
		}
	}
	return true
}

// extraParams lists the Params keys that are parameters of their own,
// sorted.
func (e *Engine) extraParams() []string {
	var out []string
	for k := range e.cfg.Params {
		if isExtraParam(k) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// configValue is the current value of a parameter.
func (e *Engine) configValue(p configParam) string {
	if v, ok := e.guardValue(p.name); ok { // guards.go
		return v
	}
	if v, ok := e.cfgState.value(p.name); ok { // set by CONFIG SET (config_runtime.go)
		return v
	}
	switch p.name {
	case "client-output-buffer-limit":
		return e.outputLimitsValue() // outbuf.go
	case "databases":
		return strconv.Itoa(e.cfg.Databases)
	case "tracking-table-max-keys":
		return strconv.FormatInt(e.tracker.maxKeys.Load(), 10)
	case "notify-keyspace-events":
		return e.NotifyClasses().String()
	case "slowlog-log-slower-than":
		return strconv.FormatInt(e.ops.slowerThan.Load(), 10)
	case "slowlog-max-len":
		return strconv.FormatInt(e.ops.slowMax.Load(), 10)
	case "latency-monitor-threshold":
		return strconv.FormatInt(e.ops.latThreshold.Load(), 10)
	case "enable-debug-command":
		return e.ops.debugMode
	case "enable-module-command":
		return e.ops.moduleMode
	case "requirepass":
		return e.cfg.RequirePass
	case "cluster-enabled":
		if e.cluster.enabled {
			return "yes"
		}
		return "no"
	case "lock-delay":
		return strconv.FormatInt(e.locks.delayMs.Load(), 10)
	// The connection settings live in the engine (protect.go).
	case "protected-mode":
		if e.net.protectedMode.Load() {
			return "yes"
		}
		return "no"
	case "timeout":
		return strconv.FormatInt(e.net.idleTimeout.Load(), 10)
	case "tcp-keepalive":
		return strconv.FormatInt(e.net.keepAlive.Load(), 10)
	// Persistence settings the engine runs with (persist.go) win over Params.
	case "appendonly":
		if e.cfg.AppendOnly {
			return "yes"
		}
	case "appendfsync":
		if e.cfg.AppendFsync != "" {
			return e.cfg.AppendFsync
		}
	case "appendfilename":
		if e.cfg.AppendFilename != "" {
			return e.cfg.AppendFilename
		}
	case "dir":
		if e.cfg.Dir != "" {
			if abs, err := filepath.Abs(e.cfg.Dir); err == nil {
				return abs // Redis reports its working directory, absolute
			}
			return e.cfg.Dir
		}
	}
	if v, ok := e.cfg.Params[p.name]; ok {
		return v
	}
	if v, ok := e.cfg.Params[p.alias]; ok && p.alias != "" {
		return v
	}
	if p.name == "dir" {
		wd, _ := os.Getwd()
		return wd
	}
	return p.def
}

// configMatch is one CONFIG GET answer: the name as the reply spells it.
type configMatch struct {
	name string
	p    configParam
}

// cmdConfigGet handles CONFIG GET pattern [pattern ...]. A name without
// glob characters answers under the spelling it was asked with; patterns
// match case-insensitively. Each parameter is reported once. Redis 7.0
// orders the reply by its hash table; this answers in argument order.
func cmdConfigGet(c *Call) {
	var out []configMatch
	seen := func(name string) bool {
		for _, m := range out {
			if strings.EqualFold(m.name, name) {
				return true
			}
		}
		return false
	}
	for _, pat := range c.Args[2:] {
		if !strings.ContainsAny(string(pat), "[*?") {
			if p, ok := c.E.lookupConfigParam(pat); ok && !seen(p.name) {
				out = append(out, configMatch{string(pat), p})
			}
			continue
		}
		for _, p := range configParams {
			if !seen(p.name) && globString(pat, p.name, true) {
				out = append(out, configMatch{p.name, p})
			}
		}
		for _, k := range c.E.extraParams() {
			if !seen(k) && globString(pat, k, true) {
				out = append(out, configMatch{k, configParam{name: k}})
			}
		}
	}
	c.W.Map(len(out))
	for _, m := range out {
		c.W.BulkString(m.name)
		c.W.BulkString(c.E.configValue(m.p))
	}
}

// configSetError is Redis's error for a parameter CONFIG SET refuses.
func configSetError(name []byte, why string) error {
	return replyError("ERR CONFIG SET failed (possibly related to argument '" + sanitizeLine(string(name)) + "') - " + why)
}

// cmdConfigSet handles CONFIG SET name value [name value ...]. lockredis
// cannot change its parameters at runtime: a value equal to the current
// one, or any valid value of an ignorable parameter, answers OK; anything
// else is refused with Redis's wording where Redis would refuse it too.
func cmdConfigSet(c *Call) {
	args := c.Args[2:]
	if len(args)%2 != 0 {
		c.Err(ErrSyntax)
		return
	}
	// First pass, as Redis: unknown, immutable and repeated names; the
	// first problem found is the one reported.
	params := make([]configParam, 0, len(args)/2)
	for i := 0; i < len(args); i += 2 {
		p, ok := c.E.lookupConfigParam(args[i])
		if !ok {
			c.Errf("ERR Unknown option or number of arguments for CONFIG SET - '%s'", sanitizeLine(string(args[i])))
			return
		}
		switch {
		case p.immutable:
			c.Err(configSetError(args[i], "can't set immutable config"))
			return
		case p.protected:
			c.Err(configSetError(args[i], "can't set protected config"))
			return
		}
		for _, q := range params {
			if q.name == p.name {
				c.Err(configSetError(args[i], "duplicate parameter"))
				return
			}
		}
		params = append(params, p)
	}
	for i, p := range params {
		name, val := args[2*i], args[2*i+1]
		norm, why := p.normalize(val)
		if why != "" {
			c.Err(configSetError(name, why))
			return
		}
		if !p.ignorable && !p.settable && norm != c.E.configValue(p) {
			c.Err(configSetError(name, "lockredis cannot change this parameter at runtime"))
			return
		}
		if why := checkGuardValue(p.name, norm); why != "" {
			c.Err(configSetError(name, why))
			return
		}
	}
	for i, p := range params {
		if p.settable || p.ignorable {
			norm, _ := p.normalize(args[2*i+1])
			c.E.setConfigValue(p, norm)
		}
	}
	c.OK()
}

// setConfigValue applies a CONFIG SET of a settable parameter; val is
// valid and normalized.
func (e *Engine) setConfigValue(p configParam, val string) {
	n, _ := strconv.ParseInt(val, 10, 64)
	switch p.name {
	case "tracking-table-max-keys":
		e.SetTrackingTableMaxKeys(n)
	case "slowlog-log-slower-than":
		e.ops.slowerThan.Store(n)
	case "notify-keyspace-events":
		f, _ := ParseNotifyClasses(val)
		e.SetNotifyClasses(f)
	case "slowlog-max-len":
		e.ops.setSlowlogMaxLen(n)
	case "latency-monitor-threshold":
		e.ops.latThreshold.Store(n)
	case "enable-debug-command": // immutable: only at start (initOps)
		e.ops.debugMode = val
	case "enable-module-command": // immutable: only at start (initOps)
		e.ops.moduleMode = val
	case "protected-mode":
		e.net.protectedMode.Store(val == "yes")
	case "timeout":
		n, _ := strconv.ParseInt(val, 10, 64)
		e.net.idleTimeout.Store(n)
	case "tcp-keepalive":
		n, _ := strconv.ParseInt(val, 10, 64)
		e.net.keepAlive.Store(n)
	case "lock-delay":
		n, _ := strconv.ParseInt(val, 10, 64)
		e.locks.delayMs.Store(n)
	case "client-output-buffer-limit":
		set, _ := parseOutputLimits(val)
		e.applyOutputLimits(set)
	case "busy-reply-threshold", "lua-time-limit", "lua-hard-time-limit", "maxmemory", "maxmemory-policy":
		e.setGuardValue(p.name, val)
	default:
		// Kept for CONFIG GET and REWRITE: the ignorable knobs, and what
		// the assembler applies (loglevel) through OnConfigSet.
		e.cfgState.store(p.name, val)
	}
	e.cfgState.markChanged(p.name)
	if e.cfg.OnConfigSet != nil {
		e.cfg.OnConfigSet(p.name, val)
	}
}

// normalize validates a CONFIG SET value and returns it as CONFIG GET
// would print it, or why it is invalid in Redis's words.
func (p configParam) normalize(val []byte) (string, string) {
	switch p.kind {
	case kindInt:
		n, ok := ParseInt(val)
		if !ok {
			return "", "argument couldn't be parsed into an integer"
		}
		if n < p.min || n > p.max {
			return "", "argument must be between " + strconv.FormatInt(p.min, 10) + " and " +
				strconv.FormatInt(p.max, 10) + " inclusive"
		}
		return strconv.FormatInt(n, 10), ""
	case kindBool:
		switch {
		case EqualFold(val, "yes"):
			return "yes", ""
		case EqualFold(val, "no"):
			return "no", ""
		}
		return "", "argument must be 'yes' or 'no'"
	case kindEnum:
		for _, v := range p.enum {
			if EqualFold(val, v) {
				return v, ""
			}
		}
		return "", "argument(s) must be one of the following: " + strings.Join(p.enum, ", ")
	case kindMemory:
		n, ok := parseMemory(val)
		if !ok {
			return "", "argument must be a memory value"
		}
		if n < p.min {
			return "", "argument must be between " + strconv.FormatInt(p.min, 10) + " and " +
				strconv.FormatInt(math.MaxInt64, 10) + " inclusive"
		}
		return strconv.FormatInt(n, 10), ""
	case kindNotify:
		f, ok := ParseNotifyClasses(string(val))
		if !ok {
			return "", errNotifyClasses
		}
		if f&NotifyAll == NotifyAll && f&NotifyNew != 0 {
			// String hides 'n' after 'A' (as Redis 7.0's CONFIG GET);
			// the value applied must keep it.
			return f.String() + "n", ""
		}
		return f.String(), ""
	case kindOutputLimits:
		if _, why := parseOutputLimits(string(val)); why != "" {
			return "", why
		}
		return string(val), ""
	case kindSave:
		f := strings.Fields(string(val))
		if len(f)%2 != 0 {
			return "", "Invalid save parameters"
		}
		for _, x := range f {
			if _, err := strconv.ParseInt(x, 10, 64); err != nil {
				return "", "Invalid save parameters"
			}
		}
		return strings.Join(f, " "), ""
	}
	return string(val), ""
}

// parseMemory parses Redis's memory values (memtoull): digits and an
// optional unit b, k, kb, m, mb, g, gb in any case; k is 1000, kb 1024.
func parseMemory(b []byte) (int64, bool) {
	i := 0
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, false
	}
	n, err := strconv.ParseInt(string(b[:i]), 10, 64)
	if err != nil {
		return 0, false
	}
	var mul int64
	switch unit := strings.ToLower(string(b[i:])); unit {
	case "", "b":
		mul = 1
	case "k":
		mul = 1000
	case "kb":
		mul = 1 << 10
	case "m":
		mul = 1000 * 1000
	case "mb":
		mul = 1 << 20
	case "g":
		mul = 1000 * 1000 * 1000
	case "gb":
		mul = 1 << 30
	default:
		return 0, false
	}
	if n > math.MaxInt64/mul {
		return 0, false
	}
	return n * mul, true
}

// cmdConfigResetstat zeroes the counters INFO reports.
func cmdConfigResetstat(c *Call) {
	st := &c.E.Stats
	for _, v := range []*atomic.Int64{
		&st.Connections, &st.Commands, &st.Rejected, &st.ExpiredKeys,
		&st.KeyspaceHits, &st.KeyspaceMisses, &st.NetInputBytes, &st.NetOutputBytes,
		&st.ErrorReplies, &st.PubsubMessages, &st.ProtocolErrors, &st.ExpireCycleRuns,
	} {
		v.Store(0)
	}
	c.E.resetStats()
	c.OK()
}

// cmdConfigRewrite writes what CONFIG SET changed into the config file
// (config_runtime.go).
func cmdConfigRewrite(c *Call) {
	path := c.E.cfg.Params["config_file"]
	if path == "" {
		c.Err(errNoConfigFile)
		return
	}
	if err := c.E.rewriteConfig(path); err != nil {
		c.E.cfg.Logf("warning", "CONFIG REWRITE failed: %v", err)
		c.Errf("ERR Rewriting config file: %s", sanitizeLine(err.Error()))
		return
	}
	c.E.cfg.Logf("notice", "CONFIG REWRITE executed with success.")
	c.OK()
}
