package config

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Settings are the values given to parameters at start (by a config file,
// flags or Options.Params), checked and normalized, by the parameters'
// names (an alias's value is its parameter's). A parameter not given
// reads as its default.
type Settings struct {
	vals map[string]string
}

// NewSettings is an empty Settings: every parameter at its default.
func NewSettings() *Settings { return &Settings{vals: map[string]string{}} }

// FromMap reads a name -> value map (Options.Params): each value is one
// CONFIG SET argument. A parameter given twice (by its name and its
// alias) is an error.
func FromMap(m map[string]string) (*Settings, error) {
	s := NewSettings()
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if p, ok := Lookup(n); ok && s.Given(p.Name) && !p.Repeat {
			return nil, fmt.Errorf("%s is given twice (%s is %s's other name)", p.Name, p.Alias, p.Name)
		}
		if err := s.SetValue(n, m[n]); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Set reads one config-file directive: name and its words. A parameter
// given again replaces its value, but a Repeat one adds the words up
// (save "" starts over).
func (s *Settings) Set(name string, args []string) error {
	p, ok := Lookup(name)
	if !ok {
		return fmt.Errorf("Bad directive or wrong number of arguments")
	}
	if len(args) == 0 || (!p.Multi && len(args) != 1) {
		return fmt.Errorf("wrong number of arguments for %q", strings.ToLower(name))
	}
	return s.set(p, strings.ToLower(name), strings.Join(args, " "))
}

// SetValue gives a parameter a value as one argument, as a flag or
// CONFIG SET gives it.
func (s *Settings) SetValue(name, value string) error {
	p, ok := Lookup(name)
	if !ok {
		return fmt.Errorf("unknown parameter %q", name)
	}
	return s.set(p, strings.ToLower(name), value)
}

func (s *Settings) set(p *Param, name, v string) error {
	norm, why := p.Normalize(v)
	if why != "" {
		return &ValueError{Name: name, Value: v, Why: why}
	}
	if why := p.Refuses(norm); why != "" {
		return fmt.Errorf("%s is not supported: %s, got %q", name, why, v)
	}
	if old, ok := s.vals[p.Name]; ok && p.Repeat && old != "" && norm != "" {
		norm = old + " " + norm
	}
	s.vals[p.Name] = norm
	return nil
}

// ValueError is a value a parameter does not take.
type ValueError struct {
	Name, Value string
	Why         string // Redis's words, as CONFIG SET says them
}

// Error names the parameter, Redis's reason and the value refused.
func (e *ValueError) Error() string { return fmt.Sprintf("%s: %s, got %q", e.Name, e.Why, e.Value) }

// Given tells whether a parameter was given a value.
func (s *Settings) Given(name string) bool {
	p, ok := Lookup(name)
	if !ok {
		return false
	}
	_, ok = s.vals[p.Name]
	return ok
}

// Value is a parameter's value: as given, normalized, or its default.
func (s *Settings) Value(name string) string {
	p, ok := Lookup(name)
	if !ok {
		panic("config: no parameter " + name)
	}
	if v, ok := s.vals[p.Name]; ok {
		return v
	}
	return p.Default
}

// Int is an Int or Memory parameter's value.
func (s *Settings) Int(name string) int64 {
	n, _ := strconv.ParseInt(s.Value(name), 10, 64)
	return n
}

// Bool is a Bool parameter's value.
func (s *Settings) Bool(name string) bool { return s.Value(name) == "yes" }

// Map is the parameters given, by name.
func (s *Settings) Map() map[string]string {
	m := make(map[string]string, len(s.vals))
	for k, v := range s.vals {
		m[k] = v
	}
	return m
}

// Names are the parameters given, sorted.
func (s *Settings) Names() []string {
	out := make([]string, 0, len(s.vals))
	for k := range s.vals {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
