package engine

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// otherSpecs parses the spec files of the packages that register commands
// on top of the engine (luasvc, pubsub), which engine's tests cannot
// import: for the tests that register those commands by name or check
// every spec.
func otherSpecs(t *testing.T) Specs {
	t.Helper()
	out := Specs{}
	for _, path := range []string{"luasvc/commands.json", "pubsub/commands.json"} {
		b, err := os.ReadFile("../" + path)
		if err != nil {
			t.Fatal(err)
		}
		if err := ParseSpecs(out, path, b); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// allSpecs is the engine's specs and otherSpecs together.
func allSpecs(t *testing.T) Specs {
	out := otherSpecs(t)
	for n, s := range specs() {
		if out[n] != nil {
			t.Fatalf("%s is described by the engine and by another package", n)
		}
		out[n] = s
	}
	return out
}

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
	// The other direction: the engine's spec files describe only what it
	// registers (luasvc's and pubsub's are in their own packages).
	for _, name := range SpecNames() {
		if !names[name] {
			t.Errorf("the engine's specs describe %s, which the engine does not register", name)
		}
	}
}

// TestSpecsBesideTheirRegistration: each engine spec file describes only
// commands the Go file of the same name registers (cmd_string.json,
// cmd_string.go), so a family's spec is found beside its code. The names
// are read from the registration lists' Command literals: Name, and the
// Subcommands' Names under it.
func TestSpecsBesideTheirRegistration(t *testing.T) {
	files, err := fs.Glob(specFiles, "*.json")
	if err != nil || len(files) == 0 {
		t.Fatal(files, err)
	}
	for _, jf := range files {
		b, err := specFiles.ReadFile(jf)
		if err != nil {
			t.Fatal(err)
		}
		var described map[string]json.RawMessage
		if err := json.Unmarshal(b, &described); err != nil {
			t.Fatal(err)
		}
		gf := strings.TrimSuffix(jf, ".json") + ".go"
		registered, err := commandLiterals(gf)
		if err != nil {
			t.Errorf("%s has no %s beside it: %v", jf, gf, err)
			continue
		}
		for name := range described {
			if !registered[name] {
				t.Errorf("%s describes %s, which %s does not register", jf, name, gf)
			}
		}
	}
}

// commandLiterals lists the full names of the Command literals in a Go
// file: {Name: "client", Subcommands: {{Name: "id"}}} gives client and
// client|id, and so does a subcommand built by a helper, sub("id", ...).
func commandLiterals(path string) (map[string]bool, error) {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	field := func(lit *ast.CompositeLit, key string) ast.Expr {
		for _, e := range lit.Elts {
			if kv, ok := e.(*ast.KeyValueExpr); ok {
				if id, ok := kv.Key.(*ast.Ident); ok && id.Name == key {
					return kv.Value
				}
			}
		}
		return nil
	}
	subs := map[*ast.CompositeLit]bool{}
	var visit func(lit *ast.CompositeLit, prefix string)
	visit = func(lit *ast.CompositeLit, prefix string) {
		bl, ok := field(lit, "Name").(*ast.BasicLit)
		if !ok || bl.Kind != token.STRING {
			return
		}
		name, err := strconv.Unquote(bl.Value)
		if err != nil {
			return
		}
		out[prefix+strings.ToLower(name)] = true
		if sl, ok := field(lit, "Subcommands").(*ast.CompositeLit); ok {
			for _, e := range sl.Elts {
				if el, ok := e.(*ast.CompositeLit); ok {
					subs[el] = true
					visit(el, prefix+strings.ToLower(name)+"|")
				} else if u, ok := e.(*ast.UnaryExpr); ok {
					if el, ok := u.X.(*ast.CompositeLit); ok {
						subs[el] = true
						visit(el, prefix+strings.ToLower(name)+"|")
					}
				} else if call, ok := e.(*ast.CallExpr); ok && len(call.Args) > 0 {
					// A helper building the subcommand: sub("info", ...).
					if bl, ok := call.Args[0].(*ast.BasicLit); ok && bl.Kind == token.STRING {
						if sub, err := strconv.Unquote(bl.Value); err == nil {
							out[prefix+strings.ToLower(name)+"|"+strings.ToLower(sub)] = true
						}
					}
				}
			}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if lit, ok := n.(*ast.CompositeLit); ok && !subs[lit] {
			visit(lit, "")
		}
		return true
	})
	return out, nil
}

func TestRegisterWithoutSpecPanics(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "has no spec") {
			t.Errorf("recovered %v", r)
		}
	}()
	newTable().Register(&Command{Name: "nosuchcommand", Handler: func(*Call) {}})
}

// TestFlagsAgreeWithCategories checks the rules Redis's own data keeps,
// for every spec, subcommands included.
func TestFlagsAgreeWithCategories(t *testing.T) {
	all := allSpecs(t)
	for _, name := range all.Names() {
		s := all[name]
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
