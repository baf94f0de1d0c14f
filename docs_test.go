package lockredis

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// The documentation is README.md and docs/*.md. These tests keep it from
// rotting: every relative link and #anchor resolves (TestDocLinks), and
// every code block that names the file it comes from is that file's text
// (TestDocSnippets; the files are tests, run by the test command).

// docPages lists the pages the tests check, relative to the repository root.
func docPages(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) == 0 {
		t.Fatal("no docs/*.md found: run the test from the repository root")
	}
	return append([]string{"README.md"}, pages...)
}

// mdDoc is a Markdown page split into the lines outside fenced code blocks
// (prose, where links and headings are) and its fenced blocks.
type mdDoc struct {
	prose  []mdLine
	blocks []mdBlock
}

type mdLine struct {
	n    int // 1-based line number
	text string
}

type mdBlock struct {
	n      int    // line of the opening fence
	end    int    // line of the closing fence
	lang   string // the info string's first word
	text   string // the lines between the fences, each ending in \n
	marker string // the snippet marker right above the fence, if any
}

var fenceRE = regexp.MustCompile("^ {0,3}(```+|~~~+)\\s*([^\\s`]*)")

// snippetRE is the comment that says which file a code block is taken from:
// <!-- snippet: path/to/file#region -->, on the line above the fence.
var snippetRE = regexp.MustCompile(`^<!-- snippet: (\S+) -->$`)

func parseMarkdown(t *testing.T, page string) mdDoc {
	t.Helper()
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	var d mdDoc
	marker := "" // a snippet marker waiting for its code block
	lines := strings.Split(string(data), "\n")
	for i := 0; i < len(lines); i++ {
		m := fenceRE.FindStringSubmatch(lines[i])
		if m == nil {
			d.prose = append(d.prose, mdLine{i + 1, lines[i]})
			if s := strings.TrimSpace(lines[i]); s != "" {
				if marker != "" {
					t.Errorf("%s:%d: a snippet marker not followed by a code block", page, i)
				}
				marker = ""
				if sm := snippetRE.FindStringSubmatch(s); sm != nil {
					marker = sm[1]
				}
			}
			continue
		}
		// The marker is the last non-blank line above the fence.
		b := mdBlock{n: i + 1, lang: m[2], marker: marker}
		marker = ""
		indent := len(lines[i]) - len(strings.TrimLeft(lines[i], " "))
		var body strings.Builder
		closed := false
		for i++; i < len(lines); i++ {
			s := strings.TrimLeft(lines[i], " ")
			if strings.HasPrefix(s, m[1][:3]) && strings.Trim(s, m[1][:1]+" ") == "" && len(strings.TrimRight(s, " ")) >= len(m[1]) {
				closed = true
				break
			}
			line := lines[i]
			for k := 0; k < indent && strings.HasPrefix(line, " "); k++ {
				line = line[1:]
			}
			body.WriteString(line + "\n")
		}
		if !closed {
			t.Errorf("%s:%d: code block never closed", page, b.n)
		}
		b.end = i + 1
		b.text = body.String()
		d.blocks = append(d.blocks, b)
	}
	return d
}

var (
	headingRE    = regexp.MustCompile(`^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$`)
	htmlAnchorRE = regexp.MustCompile(`<a\s+(?:id|name)="([^"]+)"`)
	codeSpanRE   = regexp.MustCompile("`+[^`]*`+")
	linkRE       = regexp.MustCompile(`\]\(([^()\s]*(?:\([^()\s]*\)[^()\s]*)*)(?:\s+"[^"]*")?\)`)
	refDefRE     = regexp.MustCompile(`^ {0,3}\[[^\]]+\]:\s+(\S+)`)
	inlineLinkRE = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	htmlTagRE    = regexp.MustCompile(`<[^>]+>`)
)

// githubSlug is the anchor GitHub gives a heading: the rendered text in
// lower case, without characters other than letters, digits, marks,
// spaces, hyphens and underscores, each space a hyphen (github-slugger).
func githubSlug(heading string) string {
	text := inlineLinkRE.ReplaceAllString(heading, "$1")
	text = htmlTagRE.ReplaceAllString(text, "")
	text = strings.NewReplacer("`", "", "**", "", "*", "").Replace(text)
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors lists the anchors of a page: its headings' slugs, a repeated one
// numbered as GitHub numbers it (slug-1, slug-2...), and HTML id/name
// anchors.
func anchors(d mdDoc) map[string]bool {
	set := map[string]bool{}
	seen := map[string]int{}
	for _, l := range d.prose {
		for _, m := range htmlAnchorRE.FindAllStringSubmatch(l.text, -1) {
			set[m[1]] = true
		}
		m := headingRE.FindStringSubmatch(l.text)
		if m == nil {
			continue
		}
		slug := githubSlug(m[2])
		if n := seen[slug]; n > 0 {
			set[fmt.Sprintf("%s-%d", slug, n)] = true
		} else {
			set[slug] = true
		}
		seen[slug]++
	}
	return set
}

func TestGithubSlug(t *testing.T) {
	for _, c := range []struct{ heading, slug string }{
		{"Guards: BUSY, OOM, MISCONF", "guards-busy-oom-misconf"},
		{"Commands newer than Redis 7.0", "commands-newer-than-redis-70"},
		{"Fencing tokens, for every key and every client", "fencing-tokens-for-every-key-and-every-client"},
		{"`LOCK.ACQUIRE` and WAIT", "lockacquire-and-wait"},
		{"Go: go-redis + redsync", "go-go-redis--redsync"},
		{"Python (redis-py's Lock)", "python-redis-pys-lock"},
		{"A [link](x.md) in a heading", "a-link-in-a-heading"},
		{"snake_case **bold**", "snake_case-bold"},
	} {
		if got := githubSlug(c.heading); got != c.slug {
			t.Errorf("githubSlug(%q) = %q, want %q", c.heading, got, c.slug)
		}
	}
}

func TestDocLinks(t *testing.T) {
	docs := map[string]mdDoc{}
	load := func(page string) (mdDoc, bool) {
		page = filepath.Clean(page)
		if d, ok := docs[page]; ok {
			return d, true
		}
		if _, err := os.Stat(page); err != nil {
			return mdDoc{}, false
		}
		docs[page] = parseMarkdown(t, page)
		return docs[page], true
	}
	for _, page := range docPages(t) {
		d, _ := load(page)
		for _, l := range d.prose {
			text := codeSpanRE.ReplaceAllString(l.text, "")
			var targets []string
			for _, m := range linkRE.FindAllStringSubmatch(text, -1) {
				targets = append(targets, m[1])
			}
			if m := refDefRE.FindStringSubmatch(text); m != nil {
				targets = append(targets, m[1])
			}
			for _, target := range targets {
				if err := checkLink(page, target, load); err != nil {
					t.Errorf("%s:%d: link %q: %v", page, l.n, target, err)
				}
			}
		}
	}
}

func checkLink(page, target string, load func(string) (mdDoc, bool)) error {
	if target == "" {
		return fmt.Errorf("empty link")
	}
	if regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`).MatchString(target) {
		return nil // http(s), mailto...: not checked offline
	}
	path, anchor, _ := strings.Cut(target, "#")
	file := page
	if path != "" {
		if strings.HasPrefix(path, "/") {
			return fmt.Errorf("absolute path: GitHub resolves it against the host, not the repository")
		}
		file = filepath.Join(filepath.Dir(page), path)
		if strings.HasPrefix(filepath.Clean(file), "..") {
			return fmt.Errorf("points outside the repository")
		}
		if _, err := os.Stat(file); err != nil {
			return fmt.Errorf("no such file %s", file)
		}
	}
	if anchor == "" {
		return nil
	}
	if !strings.HasSuffix(file, ".md") {
		return fmt.Errorf("an anchor into %s, which is not a Markdown page", file)
	}
	d, ok := load(file)
	if !ok {
		return fmt.Errorf("no such page %s", file)
	}
	if !anchors(d)[anchor] {
		return fmt.Errorf("%s has no heading or anchor #%s", file, anchor)
	}
	return nil
}

// TestDocSnippets checks that every Go, Node, Python and Ruby code block
// is marked, and that a code block marked
//
//	<!-- snippet: path/to/file#region -->
//
// is exactly the region of that file between the lines containing
// "snippet: region" and "end snippet" (markers excluded, common
// indentation and blank lines at either end removed); path is relative to the repository root. The files
// are tests in their own right, so a page's examples run with the tests.
// runLangs are the languages whose examples must be snippets of files the
// test command runs (docs/locks.md's cookbook, the Go API pages). Shell
// sessions, config files and Java (no JVM here) are not run.
var runLangs = map[string]bool{"go": true, "js": true, "javascript": true, "python": true, "ruby": true}

var fixSnippets = flag.Bool("fix-snippets", false, "TestDocSnippets: rewrite each marked code block from its file")

func TestDocSnippets(t *testing.T) {
	used := 0
	for _, page := range docPages(t) {
		var fixed []string // the page's lines, when a block was rewritten
		blocks := parseMarkdown(t, page).blocks
		for i := len(blocks) - 1; i >= 0; i-- { // from the end: line numbers stay valid
			b := blocks[i]
			if b.marker == "" {
				if runLangs[b.lang] {
					t.Errorf("%s:%d: a %s code block without a snippet marker: every Go, Node, Python and Ruby example must come from a file the tests run", page, b.n, b.lang)
				}
				continue
			}
			used++
			want, err := snippetRegion(b.marker)
			if err != nil {
				t.Errorf("%s:%d: snippet %s: %v", page, b.n, b.marker, err)
				continue
			}
			if b.text == want {
				continue
			}
			if !*fixSnippets {
				t.Errorf("%s:%d: the code block differs from %s (go test -run TestDocSnippets . -fix-snippets rewrites it); it should read:\n%s", page, b.n, b.marker, want)
				continue
			}
			if fixed == nil {
				data, err := os.ReadFile(page)
				if err != nil {
					t.Fatal(err)
				}
				fixed = strings.Split(string(data), "\n")
			}
			body := strings.Split(strings.TrimSuffix(want, "\n"), "\n")
			fixed = append(fixed[:b.n], append(body, fixed[b.end-1:]...)...)
		}
		if fixed != nil {
			if err := os.WriteFile(page, []byte(strings.Join(fixed, "\n")), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: rewrote its snippets", page)
		}
	}
	if used == 0 {
		t.Error("no code block has a snippet marker: the parser is broken")
	}
}

// snippetRegion returns the text of "file#region" as a page shows it.
func snippetRegion(ref string) (string, error) {
	path, region, ok := strings.Cut(ref, "#")
	if !ok || region == "" {
		return "", fmt.Errorf("want path#region")
	}
	data, err := os.ReadFile(filepath.FromSlash(path))
	if err != nil {
		return "", err
	}
	var out []string
	in, found := false, false
	for _, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case !in && strings.HasSuffix(trimmed, "snippet: "+region):
			if found {
				return "", fmt.Errorf("region %q marked twice", region)
			}
			in, found = true, true
		case in && strings.HasSuffix(trimmed, "end snippet"):
			in = false
		case in:
			out = append(out, line)
		}
	}
	if !found {
		return "", fmt.Errorf("no line ending in %q", "snippet: "+region)
	}
	if in {
		return "", fmt.Errorf("region %q has no end snippet line", region)
	}
	for len(out) > 0 && strings.TrimSpace(out[0]) == "" {
		out = out[1:]
	}
	for len(out) > 0 && strings.TrimSpace(out[len(out)-1]) == "" {
		out = out[:len(out)-1]
	}
	return dedent(out), nil
}

// dedent removes the leading whitespace all non-blank lines share and
// returns the lines, each ending in \n.
func dedent(lines []string) string {
	prefix := ""
	first := true
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		lead := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
		if first {
			prefix, first = lead, false
			continue
		}
		for !strings.HasPrefix(lead, prefix) {
			prefix = prefix[:len(prefix)-1]
		}
	}
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(strings.TrimPrefix(l, prefix) + "\n")
	}
	return b.String()
}

// parsePackages parses the non-test Go files of dir, by package name
// (parser.ParseDir, which does this, is deprecated since Go 1.25).
func parsePackages(fset *token.FileSet, dir string) (map[string][]*ast.File, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	pkgs := map[string][]*ast.File{}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		pkgs[f.Name.Name] = append(pkgs[f.Name.Name], f)
	}
	return pkgs, nil
}

// TestExportedIdentifiersDocumented: every package of this module has a
// package comment, and every exported function, method of an exported
// type, type, constant and variable has a doc comment (a constant or
// variable may share its group's comment or have one at the end of its
// line), so the API reads well on pkg.go.dev. compat_test, a module of
// tests, and testdata are left out.
func TestExportedIdentifiersDocumented(t *testing.T) {
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(dir string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if name := d.Name(); dir != "." && (name == "testdata" || name == "compat_test" || strings.HasPrefix(name, ".") || name == "docs") {
			return filepath.SkipDir
		}
		pkgs, err := parsePackages(fset, dir)
		if err != nil {
			return err
		}
		for name, files := range pkgs {
			documented := false
			for _, f := range files {
				documented = documented || f.Doc != nil
				for _, decl := range f.Decls {
					for _, name := range undocumented(decl) {
						t.Errorf("%s: %s has no doc comment", fset.Position(name.Pos()), name.Name)
					}
				}
			}
			if !documented {
				t.Errorf("%s: package %s has no package comment (a doc.go)", dir, name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// undocumented lists the exported names decl declares without a doc
// comment.
func undocumented(decl ast.Decl) []*ast.Ident {
	var out []*ast.Ident
	switch d := decl.(type) {
	case *ast.FuncDecl:
		if !d.Name.IsExported() || d.Doc != nil {
			return nil
		}
		if d.Recv != nil {
			recv := d.Recv.List[0].Type
			if star, ok := recv.(*ast.StarExpr); ok {
				recv = star.X
			}
			if ix, ok := recv.(*ast.IndexExpr); ok {
				recv = ix.X
			}
			if id, ok := recv.(*ast.Ident); ok && !id.IsExported() {
				return nil // a method of an unexported type is not in the docs
			}
		}
		out = append(out, d.Name)
	case *ast.GenDecl:
		for _, spec := range d.Specs {
			switch s := spec.(type) {
			case *ast.TypeSpec:
				if s.Name.IsExported() && s.Doc == nil && d.Doc == nil {
					out = append(out, s.Name)
				}
			case *ast.ValueSpec:
				for _, n := range s.Names {
					if n.IsExported() && s.Doc == nil && s.Comment == nil && d.Doc == nil {
						out = append(out, n)
					}
				}
			}
		}
	}
	return out
}
