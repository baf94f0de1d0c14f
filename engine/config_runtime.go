package engine

import (
	"bufio"
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lockredis/lockredis/config"
)

// The engine's side of the configuration spec (package config): the
// parameters given at start, the parts that apply them, and what CONFIG
// SET changed. CONFIG GET/SET/REWRITE themselves are cmd_config.go.
//
// A part of the engine that a parameter configures binds it in its own
// file (bindParam): how to read the value in force and how to apply a new
// one. New applies every bound parameter once, with its given value or
// its default, so a part starts from the spec's default like any other
// value. Parameters nobody binds are kept here: the Start ones New reads
// (databases, dir, appendonly...), those the assembler applies (port,
// loglevel...) and the Kept ones.

// settings is the Config an engine runs with: the parameters New builds
// it from, resolved, next to the other fields.
type settings struct {
	Config
	Databases      int
	RequirePass    string
	ACLFile        string
	Dir            string
	AppendOnly     bool
	AppendFsync    string
	AppendFilename string
	RestartFence   string
	MaxLockTTL     time.Duration
	Cluster        bool
}

// newSettings checks cfg's parameters against the spec and resolves
// those New builds the engine from.
func newSettings(cfg Config) (settings, *config.Settings, error) {
	given, err := config.FromMap(cfg.Params)
	if err != nil {
		return settings{}, nil, err
	}
	if cfg.Clock == nil {
		cfg.Clock = NewClock()
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, string, ...any) {}
	}
	ttl, _ := time.ParseDuration(given.Value("max-lock-ttl"))
	return settings{
		Config:         cfg,
		Databases:      int(given.Int("databases")),
		RequirePass:    given.Value("requirepass"),
		ACLFile:        given.Value("aclfile"),
		Dir:            given.Value("dir"),
		AppendOnly:     given.Bool("appendonly"),
		AppendFsync:    given.Value("appendfsync"),
		AppendFilename: given.Value("appendfilename"),
		RestartFence:   given.Value("restart-fence"),
		MaxLockTTL:     ttl,
		Cluster:        given.Bool("cluster-enabled"),
	}, given, nil
}

// ParamHook is how CONFIG SET reaches a parameter the assembler applies
// (the server's port): Get reads the value in force (nil: the value last
// set), Apply makes a checked, normalized value take effect or says why
// it cannot, in which case the whole CONFIG SET is undone. CONFIG SET
// applies every value it is given, the value in force too. Apply is not
// called at start: the assembler applied the value it passed in Params.
type ParamHook struct {
	Get   func() string
	Apply func(value string) error
}

// paramBinding is how the part that owns a parameter reads and applies it.
type paramBinding struct {
	// get is the value in force, as CONFIG GET writes it; nil: the value
	// last applied.
	get func() string
	// check checks a Custom value and normalizes it; for the other kinds
	// it refuses a valid value the part cannot take. why is "" if fine.
	check func(v string) (norm, why string)
	// apply makes a checked value take effect.
	apply func(v string) error
	// rewrite writes the config lines of the value in force (CONFIG
	// REWRITE); nil: "name value". force false: no line is added to a
	// file that has none.
	rewrite func() (lines []string, force bool)
	// runtimeOnly: apply is not called at start (ParamHook).
	runtimeOnly bool
}

// configState is the configuration at runtime: the bindings, the values
// of unbound parameters, and which parameters CONFIG SET changed.
type configState struct {
	set      sync.Mutex // one CONFIG SET at a time
	mu       sync.Mutex // vals, changed
	bindings map[string]*paramBinding
	vals     map[string]string // unbound parameters, and bound ones without get
	changed  map[string]bool
	rewrite  sync.Mutex // serializes CONFIG REWRITEs
}

// bindParam registers how a part applies a parameter (by its spec name).
func (e *Engine) bindParam(name string, b paramBinding) {
	p, ok := config.Lookup(name)
	if !ok || p.Name != name {
		panic("engine: binding unknown parameter " + name)
	}
	if e.cfgState.bindings == nil {
		e.cfgState.bindings = map[string]*paramBinding{}
	}
	e.cfgState.bindings[name] = &b
}

// startConfig applies the parameters at start: the bound ones through
// their part, with their given value or their default; the others are
// kept as given. It runs once every part has bound its parameters.
func (e *Engine) startConfig(given *config.Settings, hooks map[string]ParamHook) error {
	for name, h := range hooks {
		e.bindParam(name, paramBinding{get: h.Get, apply: h.Apply, runtimeOnly: true})
	}
	s := &e.cfgState
	s.vals = map[string]string{}
	for i := range config.Params {
		p := &config.Params[i]
		if !p.Configurable() {
			continue
		}
		v := given.Value(p.Name)
		b := s.bindings[p.Name]
		if b != nil && b.check != nil {
			norm, why := b.check(v)
			if why != "" {
				return &config.ValueError{Name: p.Name, Value: v, Why: why}
			}
			v = norm
		}
		if b == nil || b.get == nil {
			s.vals[p.Name] = v
		}
		if b != nil && b.apply != nil && !b.runtimeOnly {
			if err := b.apply(v); err != nil {
				return &config.ValueError{Name: p.Name, Value: v, Why: err.Error()}
			}
		}
	}
	return nil
}

// paramValue is a parameter's value in force, as CONFIG GET writes it.
func (e *Engine) paramValue(p *config.Param) string {
	s := &e.cfgState
	if b := s.bindings[p.Name]; b != nil && b.get != nil {
		return b.get()
	}
	s.mu.Lock()
	v := s.vals[p.Name]
	s.mu.Unlock()
	if p.Name == "dir" {
		// Redis reports its working directory, absolute.
		if v == "" {
			v, _ = os.Getwd()
		} else if abs, err := filepath.Abs(v); err == nil {
			v = abs
		}
	}
	return v
}

// checkParam checks a value for a parameter as CONFIG SET does: the
// spec's check, the part's, and what lockredis refuses (a Fixed value
// other than the default, a changed Start one). why is "" if fine.
func (e *Engine) checkParam(p *config.Param, v, old string) (norm, why string) {
	norm, why = p.Normalize(v)
	if why == "" {
		if b := e.cfgState.bindings[p.Name]; b != nil && b.check != nil {
			norm, why = b.check(norm)
		}
	}
	if why == "" {
		why = p.Refuses(norm)
	}
	if why == "" && p.Mode == config.Start && norm != old {
		why = "lockredis cannot change this parameter at runtime"
	}
	return norm, why
}

// applyParam makes a checked value take effect (CONFIG SET).
func (e *Engine) applyParam(p *config.Param, v string) error {
	s := &e.cfgState
	b := s.bindings[p.Name]
	if b != nil && b.apply != nil {
		if err := b.apply(v); err != nil {
			return err
		}
	}
	if b == nil || b.get == nil {
		s.mu.Lock()
		s.vals[p.Name] = v
		s.mu.Unlock()
	}
	return nil
}

func (s *configState) markChanged(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.changed == nil {
		s.changed = make(map[string]bool)
	}
	s.changed[name] = true
}

func (s *configState) isChanged(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changed[name]
}

// rewriteSignature marks where CONFIG REWRITE appends, as Redis's does.
const rewriteSignature = "# Generated by CONFIG REWRITE"

// rewriteConfig writes the parameters CONFIG SET changed back into the
// config file at path, as Redis's rewriteConfig: the first line of each
// changed directive is replaced in place (later lines of it, and lines
// under its other name, are dropped), directives the file lacks are
// appended, and every other line, comments included, stays as it was.
// The new file replaces the old one by rename.
func (e *Engine) rewriteConfig(path string) error {
	e.cfgState.rewrite.Lock()
	defer e.cfgState.rewrite.Unlock()
	old, err := os.ReadFile(path)
	mode := fs.FileMode(0o644)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		old = nil
	case err != nil:
		return err
	default:
		if st, err := os.Stat(path); err == nil {
			mode = st.Mode().Perm()
		}
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(old))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		return err
	}
	var appended []string
	for i := range config.Params {
		p := &config.Params[i]
		if !p.Configurable() || !e.cfgState.isChanged(p.Name) {
			continue
		}
		repl, force := e.rewriteLines(p)
		first := -1
		kept := lines[:0:0]
		for _, l := range lines {
			if d := config.DirectiveOf(l); d != "" && (d == p.Name || d == p.Alias) {
				if first < 0 {
					first = len(kept)
					kept = append(kept, repl...)
				}
				continue
			}
			kept = append(kept, l)
		}
		lines = kept
		if first < 0 && force {
			appended = append(appended, repl...)
		}
	}
	if len(appended) > 0 {
		hasSig := false
		for _, l := range lines {
			if strings.TrimSpace(l) == rewriteSignature {
				hasSig = true
			}
		}
		if !hasSig {
			lines = append(lines, rewriteSignature)
		}
		lines = append(lines, appended...)
	}
	var buf bytes.Buffer
	for _, l := range lines {
		buf.WriteString(l)
		buf.WriteByte('\n')
	}
	return writeFileAtomic(path, buf.Bytes(), mode)
}

// rewriteLines are the config lines of a parameter's value in force, as
// Redis's rewrite functions write them, and whether a file without the
// directive gets them.
func (e *Engine) rewriteLines(p *config.Param) ([]string, bool) {
	if b := e.cfgState.bindings[p.Name]; b != nil && b.rewrite != nil {
		return b.rewrite()
	}
	v := e.paramValue(p)
	switch p.Kind {
	case config.Save:
		f := strings.Fields(v)
		if len(f) == 0 {
			return []string{`save ""`}, true
		}
		var out []string
		for i := 0; i+1 < len(f); i += 2 {
			out = append(out, "save "+f[i]+" "+f[i+1])
		}
		return out, true
	case config.Memory, config.MemoryPercent:
		if n, ok := config.ParseMemory(v); ok {
			return []string{p.Name + " " + config.FormatMemory(n)}, true
		}
		return []string{p.Name + " " + v}, true
	case config.String, config.Custom:
		return []string{p.Name + " " + config.Quote(v)}, true
	}
	if v == "" {
		return []string{p.Name + ` ""`}, true
	}
	return []string{p.Name + " " + v}, true
}

// writeFileAtomic writes data to a temporary file next to path, syncs it
// and renames it over path.
func writeFileAtomic(path string, data []byte, mode fs.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".lockredis-rewrite-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(mode)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(name, path)
	}
	if err != nil {
		os.Remove(name)
	}
	return err
}

// configValue is CONFIG GET's value of a parameter, by its spec name.
func (e *Engine) configValue(name string) string {
	p, ok := config.Lookup(name)
	if !ok {
		panic("engine: no parameter " + name)
	}
	return e.paramValue(p)
}

// intParam binds an Int or Memory parameter held in v.
func intParam(v *atomic.Int64) paramBinding {
	return paramBinding{
		get: func() string { return strconv.FormatInt(v.Load(), 10) },
		apply: func(s string) error {
			n, err := strconv.ParseInt(s, 10, 64)
			v.Store(n)
			return err
		},
	}
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
