package engine

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"sync"
)

// The command specs describe every command lockredis registers: what Redis
// 7.0's COMMAND INFO and COMMAND DOCS say of it (refreshed from a
// redis-server by compat_test/gencommands), our own one-line summary, and
// lockredis's internal flags. They are the only place a command's arity,
// flags, keys and documentation are written down; the registration lists
// only bind names to handlers. Each family's specs sit beside its code and
// tests: engine/cmd_string.json for cmd_string.go's commands (one JSON
// file per file that registers commands, named after it); the other
// packages' in their own commands.json, which they parse with ParseSpecs
// and register with Table.RegisterWith.
//
//go:embed *.json
var specFiles embed.FS

// SpecData is one entry of a spec file, keyed there by full name ("get",
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

// Specs are the parsed specs of one or more spec files, keyed by full
// name ("get", "client|setname").
type Specs map[string]*Spec

// Names lists the full names s describes, sorted.
func (s Specs) Names() []string {
	out := make([]string, 0, len(s))
	for n := range s {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// ParseSpecs reads one spec file into into, path naming it in errors.
// Another package keeps the specs of the commands it registers in its own
// file (luasvc, pubsub: their commands.json), parses it with ParseSpecs
// and hands the result to RegisterWith, so nothing global collects them.
// A name described twice, in one file or across files parsed into the
// same Specs, is an error.
func ParseSpecs(into Specs, path string, data []byte) error {
	var parsed map[string]*SpecData
	if err := json.Unmarshal(data, &parsed); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	for full, d := range parsed {
		if into[full] != nil {
			return fmt.Errorf("%s: %s is described twice", path, full)
		}
		flags, err := parseFlags(d.RedisFlags, d.LockredisFlags)
		if err != nil {
			return fmt.Errorf("%s: %s: %w", path, full, err)
		}
		name := full
		if _, sub, ok := strings.Cut(full, "|"); ok {
			name = sub
		}
		into[full] = &Spec{Name: name, FullName: full, Flags: flags, SpecData: *d}
	}
	return nil
}

// specs parses the engine's spec files once per process: they are
// embedded, so this is a constant computed late, not state.
var specs = sync.OnceValue(func() Specs {
	names, err := fs.Glob(specFiles, "*.json")
	if err != nil {
		panic(err)
	}
	out := Specs{}
	for _, n := range names {
		b, err := specFiles.ReadFile(n)
		if err != nil {
			panic(err)
		}
		if err := ParseSpecs(out, "engine/"+n, b); err != nil {
			panic("engine: " + err.Error())
		}
	}
	return out
})

// LookupSpec returns the spec of a command or subcommand by full name
// ("get", "client|setname"), or nil.
func LookupSpec(fullName string) *Spec { return specs()[fullName] }

// SpecNames lists the full names the engine's spec files describe (not
// those of luasvc and pubsub, which have their own).
func SpecNames() []string { return specs().Names() }

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

// NewSpec describes a command that no spec file has: a test's
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
