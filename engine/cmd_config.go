package engine

import (
	"errors"
	"strings"
	"sync/atomic"

	"github.com/lockredis/lockredis/config"
)

// CONFIG GET/SET/RESETSTAT/REWRITE/HELP over the configuration spec
// (package config): every parameter is a spec entry; its value in force
// comes from the part that applies it or from what was given
// (config_runtime.go).

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

// lookupConfigParam finds a parameter CONFIG knows by a name as a client
// spelled it; name is the spec's spelling (its own or its alias's).
func lookupConfigParam(arg []byte) (p *config.Param, name string, ok bool) {
	p, ok = config.Lookup(string(arg))
	if !ok || !p.Configurable() {
		return nil, "", false
	}
	return p, config.Canonical(string(arg)), true
}

// configMatch is one CONFIG GET answer: the name as the reply spells it.
type configMatch struct {
	name  string // as the reply spells it
	canon string // the spec's spelling, to answer each name once
	p     *config.Param
}

// cmdConfigGet handles CONFIG GET pattern [pattern ...], as Redis 7.0: a
// name without glob characters answers under the spelling it was asked
// with, hidden parameters included; a pattern matches the names (and
// aliases) of the others, in any case. Each name is answered once.
// Redis orders the reply by its hash table; this answers in argument
// order, then the spec's.
func cmdConfigGet(c *Call) {
	var out []configMatch
	seen := func(canon string) bool {
		for _, m := range out {
			if m.canon == canon {
				return true
			}
		}
		return false
	}
	for _, pat := range c.Args[2:] {
		if !strings.ContainsAny(string(pat), "[*?") {
			if p, canon, ok := lookupConfigParam(pat); ok && !seen(canon) {
				out = append(out, configMatch{string(pat), canon, p})
			}
			continue
		}
		for i := range config.Params {
			p := &config.Params[i]
			if !p.Configurable() || p.Hidden {
				continue
			}
			for _, n := range p.Names() {
				if !seen(n) && globString(pat, n, true) {
					out = append(out, configMatch{n, n, p})
				}
			}
		}
	}
	c.W.Map(len(out))
	for _, m := range out {
		c.W.BulkString(m.name)
		c.W.BulkString(c.E.paramValue(m.p))
	}
}

// configSetError is Redis's error for a parameter CONFIG SET refuses.
func configSetError(name, why string) error {
	return replyError("ERR CONFIG SET failed (possibly related to argument '" + sanitizeLine(name) + "') - " + why)
}

// configChange is one parameter of a CONFIG SET.
type configChange struct {
	p          *config.Param
	name       string // the spec's spelling of the name given
	val        []byte
	old, value string // in force before, and to set (normalized)
}

// cmdConfigSet handles CONFIG SET name value [name value ...], as Redis
// 7.0's configSetCommand: all or nothing. First every name is checked
// (unknown, immutable, protected, given twice: the first such name is the
// error), then every value (nothing changes if one is invalid), then the
// values are applied in order; if one cannot be applied (a port already
// in use), those applied before it are put back and the error names it.
func cmdConfigSet(c *Call) {
	args := c.Args[2:]
	if len(args)%2 != 0 {
		c.Err(ErrSyntax)
		return
	}
	var refused error
	changes := make([]configChange, 0, len(args)/2)
	for i := 0; i < len(args); i += 2 {
		p, name, ok := lookupConfigParam(args[i])
		if !ok {
			if refused == nil {
				refused = replyError("ERR Unknown option or number of arguments for CONFIG SET - '" + sanitizeLine(string(args[i])) + "'")
			}
			continue
		}
		// Redis hides every sensitive value, even past an error.
		if p.Sensitive {
			c.Redact(2 + i + 1)
		}
		if refused != nil {
			continue
		}
		switch {
		case p.Immutable:
			refused = configSetError(string(args[i]), "can't set immutable config")
		case p.Protected:
			refused = configSetError(string(args[i]), "can't set protected config")
		}
		for _, ch := range changes {
			if ch.name == name {
				refused = configSetError(string(args[i]), "duplicate parameter")
			}
		}
		changes = append(changes, configChange{p: p, name: name, val: args[i+1]})
	}
	if refused != nil {
		c.Err(refused)
		return
	}
	e := c.E
	e.cfgState.set.Lock()
	defer e.cfgState.set.Unlock()
	for i := range changes {
		ch := &changes[i]
		ch.old = e.paramValue(ch.p)
		var why string
		if ch.value, why = e.checkParam(ch.p, string(ch.val), ch.old); why != "" {
			c.Err(configSetError(ch.name, why))
			return
		}
	}
	// Every value is applied, even one CONFIG GET shows as unchanged:
	// what CONFIG GET shows can be less than what is set
	// (notify-keyspace-events hides 'n' after 'A').
	for i, ch := range changes {
		if err := e.applyParam(ch.p, ch.value); err != nil {
			e.cfg.Logf("warning", "Failed applying new configuration. Possibly related to new %s setting. Restoring previous settings.", ch.name)
			for j := i - 1; j >= 0; j-- {
				if err := e.applyParam(changes[j].p, changes[j].old); err != nil {
					e.cfg.Logf("warning", "Failed restoring %s: %v", changes[j].name, err)
				}
			}
			c.Err(configSetError(ch.name, err.Error()))
			return
		}
	}
	for _, ch := range changes {
		e.cfgState.markChanged(ch.p.Name)
		if e.cfg.OnConfigSet != nil {
			e.cfg.OnConfigSet(ch.p.Name, ch.value)
		}
	}
	c.OK()
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
	c.E.tally.reset()       // every command's counters, the error counts (stats.go)
	c.E.locks.stats.reset() // the lock statistics (lockqueue.go)
	c.OK()
}

// cmdConfigRewrite writes what CONFIG SET changed into the config file
// (config_runtime.go).
func cmdConfigRewrite(c *Call) {
	path := c.E.cfg.ConfigFile
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
