package engine

import (
	"strings"
	"testing"
)

// globCases were checked against redis-server 7.0.15 with KEYS (and CONFIG
// GET for nocase), besides 20,000 random patterns over these bytes.
var globCases = []struct {
	pattern, s string
	nocase     bool
	want       bool
}{
	{"", "", false, true},
	{"", "a", false, false},
	{"*", "", false, false}, // KEYS answers "*" itself; the matcher says no
	{"**", "", false, false},
	{"*", "abc", false, true},
	{"**", "abc", false, true},
	{"a*", "a", false, true},
	{"a*", "abc", false, true},
	{"*c", "abc", false, true},
	{"*b*", "abc", false, true},
	{"*x*", "abc", false, false},
	{"a*b*c", "aXbYc", false, true},
	{"a*b*c", "aXbY", false, false},
	{"?", "a", false, true},
	{"?", "", false, false},
	{"?", "ab", false, false},
	{"??", "ab", false, true},
	{"h?llo", "hello", false, true},
	{"h*llo", "hllo", false, true},
	{"h[ae]llo", "hallo", false, true},
	{"h[ae]llo", "hillo", false, false},
	{"h[^e]llo", "hallo", false, true},
	{"h[^e]llo", "hello", false, false},
	{"h[a-b]llo", "hbllo", false, true},
	{"[b-a]", "a", false, true}, // reversed ranges are swapped
	{"[b-a]", "b", false, true},
	{"[b-a]", "c", false, false},
	{"[a-]", "]", false, true}, // "a-]" is the range ']'..'a'
	{"[a-]", "^", false, true},
	{"[a-]", "-", false, false},
	{"[-a]", "-", false, true},
	{"[-a]", "a", false, true},
	{"[", "[", false, false}, // an empty unclosed class never matches
	{"[^", "x", false, true}, // ...but "[^" matches any byte
	{"[^]", "x", false, true},
	{"[]", "]", false, false},
	{"[]a]", "]", false, false},
	{"[]a]", "a", false, false},
	{"[a", "a", false, true}, // unclosed class: runs to the end
	{"[ab", "b", false, true},
	{"[ab", "ab", false, false},
	{"a[", "a", false, false},
	{"[^a-b", "c", false, true},
	{"[\\]", "]", false, true}, // "\]" inside a class is a literal ']'
	{"[\\]", "\\", false, false},
	{"[\\", "\\", false, true}, // a trailing '\' in a class is itself
	{"[[]", "[", false, true},
	{"\\", "\\", false, true}, // a trailing '\' is itself
	{"a\\", "a\\", false, true},
	{"\\[", "[", false, true},
	{"\\*", "*", false, true},
	{"\\*", "a", false, false},
	{"a\\*b", "a*b", false, true},
	{"a\\*b", "aXb", false, false},
	{"a\\?b", "a?b", false, true},
	{"a\\\\b", "a\\b", false, true},
	{"\\a", "a", false, true},
	// Ranges compare as C's signed char: [a-\xff] is [-1, 'a'].
	{"[a-\xff]", "b", false, false},
	{"[a-\xff]", "a", false, true},
	{"[a-\xff]", "A", false, true},
	{"[a-\xff]", "\xff", false, true},
	{"[a-\xff]", "\x80", false, false},
	{"[\x80-\xff]", "\x90", false, true},
	{"?", "\xff", false, true},
	{"\x00", "\x00", false, true},
	{"a\x00*", "a\x00b", false, true},
	// nocase: ASCII letters only; a class '\x' stays exact.
	{"HELLO", "hello", false, false},
	{"HELLO", "hello", true, true},
	{"h[A-Z]llo", "hello", true, true},
	{"h[E]llo", "hello", true, true},
	{"h[\\E]llo", "hello", true, false},
	{"H?LLO", "hello", true, true},
	{"\xc9", "\xe9", true, false},
	// Nesting: more than 1000 stars in play never match.
	{strings.Repeat("*a", 1000), strings.Repeat("a", 1200), false, true},
	{strings.Repeat("*a", 1001), strings.Repeat("a", 1200), false, false},
	{strings.Repeat("a*", 1001), strings.Repeat("a", 1200), false, true},
	{strings.Repeat("a*", 1002), strings.Repeat("a", 1200), false, false},
	{strings.Repeat("*", 3000) + "a", strings.Repeat("a", 1200), false, true},
}

func TestGlob(t *testing.T) {
	for _, tc := range globCases {
		if got := Glob([]byte(tc.pattern), []byte(tc.s), tc.nocase); got != tc.want {
			t.Errorf("Glob(%q, %q, %v) = %v, want %v", trunc(tc.pattern), trunc(tc.s), tc.nocase, got, tc.want)
		}
	}
}

func trunc(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// TestGlobHostilePatternsAreBounded counts the matcher's calls: patterns
// that make a plain backtracking matcher exponential stay within
// len(pattern)*len(s) calls.
func TestGlobHostilePatternsAreBounded(t *testing.T) {
	cases := []struct{ pattern, s string }{
		{strings.Repeat("*a", 30) + "*b", strings.Repeat("a", 200)},
		{strings.Repeat("a*", 30) + "b", strings.Repeat("a", 200)},
		{strings.Repeat("*?", 30) + "*b", strings.Repeat("a", 200)},
		{strings.Repeat("*[a-z]", 30) + "*0", strings.Repeat("x", 200)},
		{strings.Repeat("*a", 900) + "*b", strings.Repeat("a", 5000)},
	}
	for _, tc := range cases {
		g := globState{}
		if g.match([]byte(tc.pattern), []byte(tc.s), 0) {
			t.Errorf("%q matched", trunc(tc.pattern))
		}
		if limit := len(tc.pattern) * len(tc.s); g.calls > limit {
			t.Errorf("%q: %d calls, want at most %d", trunc(tc.pattern), g.calls, limit)
		}
	}
}

// globReference is an independent, plainly exponential matcher with the
// same rules as Redis (without the nesting limit), for the fuzz target: it
// parses one pattern element at a time instead of walking pointers.
func globReference(pat, s []byte, nocase bool) bool {
	if len(pat) == 0 {
		return len(s) == 0
	}
	if len(s) == 0 {
		// Redis's loop never runs on an empty subject.
		return false
	}
	switch pat[0] {
	case '*':
		rest := pat[1:]
		for len(rest) > 0 && rest[0] == '*' {
			rest = rest[1:]
		}
		if len(rest) == 0 {
			return true
		}
		for i := 0; i < len(s); i++ {
			if globReference(rest, s[i:], nocase) {
				return true
			}
		}
		return false
	case '?':
		return globRefRest(pat[1:], s[1:], nocase)
	case '[':
		match, n := globRefClass(pat, s[0], nocase)
		return match && globRefRest(pat[n:], s[1:], nocase)
	case '\\':
		if len(pat) >= 2 {
			return globEqual(pat[1], s[0], nocase) && globRefRest(pat[2:], s[1:], nocase)
		}
	}
	return globEqual(pat[0], s[0], nocase) && globRefRest(pat[1:], s[1:], nocase)
}

// globRefRest continues after one consumed byte: once the subject is
// used up, Redis skips trailing stars and stops.
func globRefRest(pat, s []byte, nocase bool) bool {
	if len(s) == 0 {
		return len(strings.TrimLeft(string(pat), "*")) == 0
	}
	return globReference(pat, s, nocase)
}

// globRefClass matches c against the class at the start of pat and
// returns how many pattern bytes the class used.
func globRefClass(pat []byte, c byte, nocase bool) (bool, int) {
	i := 1
	not := i < len(pat) && pat[i] == '^'
	if not {
		i++
	}
	match := false
	for {
		switch {
		case i+1 < len(pat) && pat[i] == '\\':
			match = match || pat[i+1] == c
			i += 2
			continue
		case i < len(pat) && pat[i] == ']':
			i++
		case i >= len(pat):
			// Unclosed: the class ends with the pattern (and "[" alone
			// consumes itself).
			i = max(len(pat), 1)
		case i+2 < len(pat) && pat[i+1] == '-':
			lo, hi, x := int(int8(pat[i])), int(int8(pat[i+2])), int(int8(c))
			if lo > hi {
				lo, hi = hi, lo
			}
			if nocase {
				lo, hi, x = globLower(lo), globLower(hi), globLower(x)
			}
			match = match || (lo <= x && x <= hi)
			i += 3
			continue
		default:
			match = match || globEqual(pat[i], c, nocase)
			i++
			continue
		}
		break
	}
	if not {
		match = !match
	}
	return match, i
}

func TestGlobReferenceAgrees(t *testing.T) {
	for _, tc := range globCases {
		if len(tc.pattern) > 100 {
			continue // the reference has no nesting limit
		}
		if got := globReference([]byte(tc.pattern), []byte(tc.s), tc.nocase); got != tc.want {
			t.Errorf("globReference(%q, %q, %v) = %v, want %v", tc.pattern, tc.s, tc.nocase, got, tc.want)
		}
	}
}

// FuzzGlob compares Glob with the reference matcher on short inputs.
func FuzzGlob(f *testing.F) {
	for _, tc := range globCases {
		if len(tc.pattern) <= 100 {
			f.Add(tc.pattern, tc.s, tc.nocase)
		}
	}
	f.Fuzz(func(t *testing.T, pattern, s string, nocase bool) {
		defer fuzzWatch(pattern, s, nocase)()
		if len(pattern) > 12 || len(s) > 16 {
			return // keep the exponential reference fast
		}
		got := Glob([]byte(pattern), []byte(s), nocase)
		want := globReference([]byte(pattern), []byte(s), nocase)
		if got != want {
			t.Errorf("Glob(%q, %q, %v) = %v, reference says %v", pattern, s, nocase, got, want)
		}
	})
}

func TestGlobPrefix(t *testing.T) {
	for _, tc := range []struct{ pattern, want string }{
		{"", ""},
		{"*", ""},
		{"lock:*", "lock:"},
		{"lock:?x", "lock:"},
		{"a[bc]", "a"},
		{"a\\*", "a"},
		{"exact", "exact"},
	} {
		if got := string(globPrefix([]byte(tc.pattern))); got != tc.want {
			t.Errorf("globPrefix(%q) = %q, want %q", tc.pattern, got, tc.want)
		}
	}
}
