package engine

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
)

// commandsJSON describes every command lockredis registers: what Redis
// 7.0's COMMAND INFO and COMMAND DOCS say of it (refreshed from a
// redis-server by compat_test/gencommands), our own one-line summary, and
// lockredis's internal flags. It is the only place a command's arity,
// flags, keys and documentation are written down; the registration lists
// in cmd_*.go (and luasvc, pubsub) only bind names to handlers.
//
//go:embed commands.json
var commandsJSON []byte

// SpecData is one entry of commands.json, keyed there by full name ("get",
// "client|setname"). The field names follow Redis's replies.
type SpecData struct {
	Summary         string      `json:"summary"` // ours, one sentence
	Since           string      `json:"since,omitempty"`
	Group           string      `json:"group"`
	Complexity      string      `json:"complexity,omitempty"`
	DocFlags        []string    `json:"doc_flags,omitempty"`
	DeprecatedSince string      `json:"deprecated_since,omitempty"`
	ReplacedBy      string      `json:"replaced_by,omitempty"`
	History         [][2]string `json:"history,omitempty"`
	Arity           int         `json:"arity"`
	RedisFlags      []string    `json:"flags"` // as COMMAND INFO prints them
	FirstKey        int         `json:"first_key"`
	LastKey         int         `json:"last_key"`
	Step            int         `json:"step"`
	ACLCategories   []string    `json:"acl_categories"` // "@write", ...
	Tips            []string    `json:"tips,omitempty"`
	KeySpecs        []KeySpec   `json:"key_specs,omitempty"`
	Arguments       []Arg       `json:"arguments,omitempty"`
	// LockredisFlags are ours, unknown to Redis: see lockredisFlagNames.
	LockredisFlags []string `json:"lockredis_flags,omitempty"`
}

// KeySpec is one of Redis 7's key specifications: where the search for
// keys begins and how the keys are found from there.
type KeySpec struct {
	Notes       string      `json:"notes,omitempty"`
	Flags       []string    `json:"flags"` // RO, RW, OW, RM, access, update, ...
	BeginSearch BeginSearch `json:"begin_search"`
	FindKeys    FindKeys    `json:"find_keys"`
}

// BeginSearch is "index" (the argument at Index) or "keyword" (after the
// argument equal to Keyword, searched from StartFrom, backwards when
// negative).
type BeginSearch struct {
	Type      string `json:"type"`
	Index     int    `json:"index,omitempty"`
	Keyword   string `json:"keyword,omitempty"`
	StartFrom int    `json:"startfrom,omitempty"`
}

// FindKeys is "range" (LastKey relative to the first key, negative from
// the end; every KeyStep; Limit divides the rest) or "keynum" (the count
// at KeyNumIdx, the keys from FirstKey, both relative to where the search
// began).
type FindKeys struct {
	Type      string `json:"type"`
	LastKey   int    `json:"lastkey,omitempty"`
	KeyStep   int    `json:"keystep,omitempty"`
	Limit     int    `json:"limit,omitempty"`
	KeyNumIdx int    `json:"keynumidx,omitempty"`
	FirstKey  int    `json:"firstkey,omitempty"`
}

// Arg is one node of a command's argument tree as COMMAND DOCS shows it.
type Arg struct {
	Name            string   `json:"name"`
	Type            string   `json:"type"`
	KeySpecIndex    *int     `json:"key_spec_index,omitempty"`
	Token           string   `json:"token,omitempty"`
	EmptyToken      bool     `json:"empty_token,omitempty"` // the token is "" (MIGRATE's empty_string)
	Summary         string   `json:"summary,omitempty"`
	Since           string   `json:"since,omitempty"`
	DeprecatedSince string   `json:"deprecated_since,omitempty"`
	Flags           []string `json:"flags,omitempty"`
	Arguments       []Arg    `json:"arguments,omitempty"`
}

// Spec is a command's immutable description, shared by every engine of
// the process.
type Spec struct {
	Name     string // lower case; for a subcommand the part after '|'
	FullName string // "get", "client|setname"
	Flags    Flags  // Redis's flags and ours, as a bitset for the hot path
	SpecData
}

// MovableKeys reports whether some key is found by a key count (EVAL's
// numkeys) rather than at fixed positions.
func (s *Spec) MovableKeys() bool { return s.Flags.Has(FlagMovableKeys) }

// HasKeys reports whether the command takes key arguments: it has a key
// spec that is not marked not_key (COMMAND GETKEYS refuses others).
func (s *Spec) HasKeys() bool {
	for _, ks := range s.KeySpecs {
		if !ks.hasFlag("not_key") {
			return true
		}
	}
	return false
}

func (ks *KeySpec) hasFlag(name string) bool {
	for _, f := range ks.Flags {
		if f == name {
			return true
		}
	}
	return false
}

// specs parses commands.json once per process.
var specs = sync.OnceValue(func() map[string]*Spec {
	var data map[string]*SpecData
	if err := json.Unmarshal(commandsJSON, &data); err != nil {
		panic("engine: commands.json: " + err.Error())
	}
	out := make(map[string]*Spec, len(data))
	for full, d := range data {
		flags, err := parseFlags(d.RedisFlags, d.LockredisFlags)
		if err != nil {
			panic(fmt.Sprintf("engine: commands.json: %s: %v", full, err))
		}
		name := full
		if _, sub, ok := strings.Cut(full, "|"); ok {
			name = sub
		}
		out[full] = &Spec{Name: name, FullName: full, Flags: flags, SpecData: *d}
	}
	return out
})

// LookupSpec returns the spec of a command or subcommand by full name
// ("get", "client|setname"), or nil.
func LookupSpec(fullName string) *Spec { return specs()[fullName] }

// SpecNames lists the full names commands.json describes.
func SpecNames() []string {
	var out []string
	for n := range specs() {
		out = append(out, n)
	}
	return out
}

func parseFlags(redis, ours []string) (Flags, error) {
	var f Flags
	for _, n := range redis {
		bit, ok := flagByName(flagNames, n)
		if !ok {
			return 0, fmt.Errorf("unknown Redis flag %q", n)
		}
		f |= bit
	}
	for _, n := range ours {
		bit, ok := flagByName(lockredisFlagNames, n)
		if !ok {
			return 0, fmt.Errorf("unknown lockredis flag %q", n)
		}
		f |= bit
	}
	return f, nil
}

func flagByName(names []flagName, n string) (Flags, bool) {
	for _, fn := range names {
		if fn.name == n {
			return fn.f, true
		}
	}
	return 0, false
}

// NewSpec describes a command that commands.json does not have: a test's
// own. keys, when given, are the first key, last key and step.
func NewSpec(arity int, flags Flags, keys ...int) *Spec {
	s := &Spec{Flags: flags}
	s.Arity = arity
	s.RedisFlags = flags.Names()
	if len(keys) == 3 {
		s.FirstKey, s.LastKey, s.Step = keys[0], keys[1], keys[2]
	}
	return s
}
