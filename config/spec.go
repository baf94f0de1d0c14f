// Package config is lockredis's configuration spec: every parameter the
// server knows is declared once, in Params (params.go), with its name,
// type, default, bounds, whether CONFIG SET may change it and who applies
// it. Everything else is generated from that table or checked against it:
// the binary's flags, its --help and its config-file directives
// (cmd/lockredis), the Go API's Options (checked by the root package's
// tests), and CONFIG GET/SET/REWRITE (engine/cmd_config.go).
//
// The package holds data and pure functions only (no engine, no flags
// library), so that the binary, the Go API and the command layer can all
// read it. How a value takes effect lives with the part of the server it
// configures: the engine's parts bind their parameters (engine/config_*.go
// and each part's file), the server binds port and bind (listen.go), the
// binary applies what only a process has (logfile, pidfile, supervised).
//
// Adding a parameter: one entry in Params, plus the code that applies it
// (docs/configuration.md says where). The tests of cmd/lockredis, of the
// root package and of the engine fail until flags, directives, Options
// and CONFIG agree with the table.
package config

import (
	"strings"
	"time"
)

// Kind is how a parameter's value is written and checked.
type Kind uint8

const (
	String        Kind = iota // any text
	Int                       // a decimal integer between Min and Max
	Bool                      // yes or no, any case
	Enum                      // one of Enum, any case
	Flags                     // one or more of Enum, space separated ("nosave now")
	Memory                    // bytes with an optional unit (1mb, 2gb...), between Min and Max
	MemoryPercent             // Memory, or a percentage such as 10% (up to -Min)
	Octal                     // an octal integer between Min and Max (unixsocketperm)
	Duration                  // a Go duration such as 30s or 5m (lockredis's own)
	Save                      // pairs of seconds and changes, or "" (save)
	Ints                      // Count integers between Min and Max (oom-score-adj-values)
	Percentiles               // percentages between 0 and 100 (latency-tracking-info-percentiles)
	Addresses                 // addresses, space or comma separated (bind)
	Custom                    // checked by the part of the server that applies it
)

// Mode says whether and how a parameter takes effect.
type Mode uint8

const (
	// Live parameters are applied at start and by CONFIG SET, at once,
	// by the part of the server they configure.
	Live Mode = iota
	// Start parameters are applied at start only: CONFIG SET accepts
	// their current value and refuses any other ("lockredis cannot
	// change this parameter at runtime").
	Start
	// Kept parameters tune what lockredis does not have (snapshots,
	// replication, encodings, threads): any valid value is accepted,
	// kept and reported by CONFIG GET, with no effect; the binary lists
	// the ones it was given in one log line at start.
	Kept
	// Fixed parameters would change what clients see in a way lockredis
	// does not implement: only Default is accepted, at start and by
	// CONFIG SET; any other value is refused with Why.
	Fixed
)

// Applier is the part of lockredis that applies a Live or Start
// parameter.
type Applier uint8

const (
	ByEngine Applier = iota // the engine's part it configures (engine/)
	ByServer                // the server that listens (the root package)
	ByBinary                // the process (cmd/lockredis)
)

// Param is one parameter.
type Param struct {
	Name string
	// Alias is Redis's other name for the same value (lua-time-limit
	// for busy-reply-threshold): a directive, a flag and a CONFIG name
	// of its own.
	Alias   string
	Kind    Kind
	Default string // the value when nothing sets it, as CONFIG GET writes it
	// Min and Max bound Int, Memory, Octal and Ints values; a
	// MemoryPercent value may be a percentage up to -Min.
	Min, Max int64
	// Clamp, when set, is the range Redis brings an Int or Memory value
	// into once it accepted it (hz 0 reads back as 1); Clamp[1] 0: no
	// upper end.
	Clamp [2]int64
	Enum  []string // Enum and Flags: the words, in Redis's order
	Count int      // Ints: how many
	// Unit is the unit of an Int that is a time (time.Second,
	// time.Millisecond): an Options field of type time.Duration is
	// converted with it.
	Unit time.Duration
	Mode Mode
	By   Applier
	Why  string // Fixed: why any other value is refused

	Immutable bool // CONFIG SET refuses it: "can't set immutable config"
	Protected bool // CONFIG SET refuses it: "can't set protected config"
	Hidden    bool // CONFIG GET answers it by its exact name only, never to a pattern
	Sensitive bool // its value is hidden from MONITOR and the slow log
	// Multi parameters take several words on a config-file line (bind
	// 127.0.0.1 ::1); Repeat ones also add up line after line (save,
	// client-output-buffer-limit).
	Multi, Repeat bool
	// Directive parameters are only config-file directives and flags,
	// refused unless Default: CONFIG does not know them (include).
	Directive bool
	Own       bool // lockredis's own: redis-server does not know it

	// The binary: Short is a one-letter flag, Usage the --help line
	// (empty: a hidden flag), Binary the value the binary starts from
	// where an embedded server's differs (it listens on 6379, loopback
	// only, and keeps its files in the working directory).
	Short, Usage, Binary string
}

// Names are the names a parameter answers to: its own and its alias.
func (p *Param) Names() []string {
	if p.Alias == "" {
		return []string{p.Name}
	}
	return []string{p.Name, p.Alias}
}

// Configurable tells whether CONFIG GET and SET know the parameter.
func (p *Param) Configurable() bool { return !p.Directive }

// BinaryDefault is the binary's default value.
func (p *Param) BinaryDefault() string {
	if p.Binary != "" {
		return p.Binary
	}
	return p.Default
}

var byName = func() map[string]*Param {
	m := make(map[string]*Param, 2*len(Params))
	for i := range Params {
		p := &Params[i]
		for _, n := range p.Names() {
			if m[n] != nil {
				panic("config: " + n + " declared twice")
			}
			m[n] = p
		}
	}
	return m
}()

// Lookup finds a parameter by its name or alias, in any case.
func Lookup(name string) (*Param, bool) {
	p, ok := byName[name]
	if !ok {
		p, ok = byName[strings.ToLower(name)]
	}
	return p, ok
}

// Canonical is the lower-case name name is spelled as in the spec (its
// own or its alias), or "" for an unknown name.
func Canonical(name string) string {
	p, ok := Lookup(name)
	if !ok {
		return ""
	}
	for _, n := range p.Names() {
		if strings.EqualFold(n, name) {
			return n
		}
	}
	return ""
}
