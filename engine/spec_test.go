package engine

import (
	"slices"
	"strings"
	"testing"
)

// registeredNames lists the full names of a table's commands and
// subcommands.
func registeredNames(tb *Table) map[string]bool {
	names := map[string]bool{}
	for _, c := range tb.All() {
		names[c.FullName] = true
		for _, sc := range c.Subcommands {
			names[sc.FullName] = true
		}
	}
	return names
}

func TestEveryEngineCommandHasASpec(t *testing.T) {
	te := newTestEngine(t)
	names := registeredNames(te.Table)
	for name := range names {
		if LookupSpec(name) == nil {
			t.Errorf("%s is registered without a spec", name)
		}
	}
	// The other direction, for the families the engine owns: a spec whose
	// group the engine covers but no command is a leftover.
	others := []string{"eval", "eval_ro", "evalsha", "evalsha_ro", "script", "fcall", "fcall_ro", "function", "subscribe", "psubscribe",
		"ssubscribe", "unsubscribe", "punsubscribe", "sunsubscribe", "publish", "spublish", "pubsub"}
	for _, name := range SpecNames() {
		top, _, _ := strings.Cut(name, "|")
		if !names[name] && !slices.Contains(others, top) {
			t.Errorf("commands.json describes %s, which the engine does not register", name)
		}
	}
}

func TestRegisterWithoutSpecPanics(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "no entry in engine/commands.json") {
			t.Errorf("recovered %v", r)
		}
	}()
	newTable().Register(&Command{Name: "nosuchcommand", Handler: func(*Call) {}})
}

// TestFlagsAgreeWithCategories checks the rules Redis's own data keeps,
// for every spec, subcommands included.
func TestFlagsAgreeWithCategories(t *testing.T) {
	for _, name := range SpecNames() {
		s := LookupSpec(name)
		has := func(cat string) bool { return slices.Contains(s.ACLCategories, cat) }
		rules := []struct {
			ok   bool
			rule string
		}{
			{s.Flags.Has(FlagFast) == has("@fast"), "fast flag iff @fast"},
			{!(has("@fast") && has("@slow")), "not both @fast and @slow"},
			{has("@fast") || has("@slow"), "@fast or @slow"},
			{!s.Flags.Has(FlagWrite) || has("@write"), "write => @write"},
			// EVAL_RO and EVALSHA_RO are readonly but @scripting, not @read.
			{!s.Flags.Has(FlagReadonly) || has("@read") || has("@scripting"), "readonly => @read, scripts aside"},
			{!s.Flags.Has(FlagBlocking) || has("@blocking"), "blocking => @blocking"},
			{!s.Flags.Has(FlagAdmin) || (has("@admin") && has("@dangerous")), "admin => @admin @dangerous"},
			{!s.Flags.Has(FlagPubSub) || has("@pubsub"), "pubsub => @pubsub"},
			// As populateCommandLegacyRangeSpec: keys found by a count, after
			// a keyword (GEORADIUS's STORE, XREAD's STREAMS) or by an "unknown" spec (SORT's BY
			// and GET) move.
			{s.MovableKeys() == slices.ContainsFunc(s.KeySpecs, func(k KeySpec) bool {
				return k.FindKeys.Type == "keynum" || k.BeginSearch.Type == "keyword" || k.BeginSearch.Type == "unknown"
			}), "movablekeys iff a keynum, keyword or unknown key spec"},
			{s.Summary != "" && !strings.Contains(s.Summary, "\n"), "a one-line summary"},
			{s.Group != "", "a group"},
		}
		for _, r := range rules {
			if !r.ok {
				t.Errorf("%s breaks %q: flags %v, categories %v", name, r.rule, s.Flags.Names(), s.ACLCategories)
			}
		}
	}
}

func TestMultiControlFlag(t *testing.T) {
	var got []string
	for _, name := range SpecNames() {
		if LookupSpec(name).Flags.Has(FlagMultiControl) {
			got = append(got, name)
		}
	}
	slices.Sort(got)
	if want := "discard exec multi quit reset watch"; strings.Join(got, " ") != want {
		t.Errorf("multi_control on %v, want %s", got, want)
	}
}

// TestLookupDoesNotAllocate: the spec is attached at registration; the
// hot path only looks the command up.
func TestLookupDoesNotAllocate(t *testing.T) {
	te := newTestEngine(t)
	args := [][]byte{[]byte("GET"), []byte("k")}
	if n := testing.AllocsPerRun(100, func() { te.Table.Lookup(args) }); n != 0 {
		t.Errorf("Lookup allocates %v times", n)
	}
}
