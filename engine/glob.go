package engine

// globMaxNesting is Redis's limit on nested '*' (CVE-2022-36021): a pattern
// that needs more than this many stars in play at once never matches.
const globMaxNesting = 1000

// Glob reports whether s matches pattern under Redis's glob rules. It is a
// faithful port of stringmatchlen from Redis 7.0's util.c, quirks included,
// so that KEYS, SCAN MATCH and pub/sub patterns select exactly what
// redis-server would:
//
//   - '*' matches any run of bytes, '?' one byte, '\x' a literal x (a
//     trailing '\' matches itself);
//   - '[abc]', '[^abc]', '[a-z]' are byte classes; a reversed range is
//     swapped; inside a class '\x' is a literal x, compared case-sensitively
//     even when nocase is set; range bounds and the byte tested compare as
//     C's signed char, so '[a-\xff]' means [-1, 'a'], as in Redis;
//   - an unclosed '[' class runs to the end of the pattern, and a class
//     with nothing after '^' ("[^") matches any byte;
//   - matching is byte-wise, and the empty string matches only the empty
//     pattern. KEYS and SCAN answer the pattern "*" without calling this
//     (so they list the empty key); pub/sub calls it for every pattern
//     (so "*" does not receive PUBLISH to the empty channel, as in Redis).
//
// Work is bounded as in Redis: when the rest of the pattern after a '*'
// fails at every position of the rest of s, no earlier '*' can succeed by
// taking more bytes either (skipLongerMatches), which keeps the cost near
// len(pattern)*len(s) even for hostile patterns like "*a*a*a*...b"; and
// more than globMaxNesting nested stars never match.
func Glob(pattern, s []byte, nocase bool) bool {
	g := globState{nocase: nocase}
	return g.match(pattern, s, 0)
}

// globState is one Glob call's shared state.
type globState struct {
	nocase     bool
	skipLonger bool // Redis's skipLongerMatches
	calls      int  // match calls made, for tests
}

// globString is Glob for a string subject, without copying it.
func globString(pattern []byte, s string, nocase bool) bool {
	return Glob(pattern, StringBytes(s), nocase)
}

// globAt is pattern[i], or 0 past the end: Redis reads the NUL that
// terminates every sds, and the port must see the same byte.
func globAt(pattern []byte, i int) byte {
	if i < len(pattern) {
		return pattern[i]
	}
	return 0
}

// globLower is C's tolower in the "C" locale, on a (signed) char value.
func globLower(c int) int {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// match is stringmatchlen_impl. p and s are the C pointers as indexes:
// patternLen is len(pat)-p and stringLen is len(str)-s.
func (g *globState) match(pat, str []byte, nesting int) bool {
	g.calls++
	nocase := g.nocase
	if nesting > globMaxNesting {
		return false
	}
	p, s := 0, 0
	for p < len(pat) && s < len(str) {
		switch pat[p] {
		case '*':
			for p+1 < len(pat) && pat[p+1] == '*' {
				p++
			}
			if p == len(pat)-1 {
				return true
			}
			for s < len(str) {
				if g.match(pat[p+1:], str[s:], nesting+1) {
					return true
				}
				if g.skipLonger {
					return false
				}
				s++
			}
			g.skipLonger = true
			return false
		case '?':
			s++
		case '[':
			p++
			not := globAt(pat, p) == '^'
			if not {
				p++
			}
			match := false
			for {
				if globAt(pat, p) == '\\' && len(pat)-p >= 2 {
					p++
					if pat[p] == str[s] {
						match = true
					}
				} else if globAt(pat, p) == ']' {
					break
				} else if p == len(pat) {
					// Unclosed class: step back so that the p++ below
					// lands on the end of the pattern.
					p--
					break
				} else if len(pat)-p >= 3 && pat[p+1] == '-' {
					start, end, c := int(int8(pat[p])), int(int8(pat[p+2])), int(int8(str[s]))
					if start > end {
						start, end = end, start
					}
					if nocase {
						start, end, c = globLower(start), globLower(end), globLower(c)
					}
					p += 2
					if c >= start && c <= end {
						match = true
					}
				} else if nocase {
					if globLower(int(pat[p])) == globLower(int(str[s])) {
						match = true
					}
				} else if pat[p] == str[s] {
					match = true
				}
				p++
			}
			if not {
				match = !match
			}
			if !match {
				return false
			}
			s++
		case '\\':
			if len(pat)-p >= 2 {
				p++
			}
			if !globEqual(pat[p], str[s], nocase) {
				return false
			}
			s++
		default:
			if !globEqual(pat[p], str[s], nocase) {
				return false
			}
			s++
		}
		p++
		if s == len(str) {
			for globAt(pat, p) == '*' {
				p++
			}
			break
		}
	}
	return p == len(pat) && s == len(str)
}

func globEqual(a, b byte, nocase bool) bool {
	if nocase {
		return globLower(int(a)) == globLower(int(b))
	}
	return a == b
}

// globPrefix is the literal start every key matching pattern must have:
// the bytes before the first special character. KEYS and SCAN use it to
// visit only that range of the ordered keyspace.
func globPrefix(pattern []byte) []byte {
	for i, c := range pattern {
		switch c {
		case '*', '?', '[', '\\':
			return pattern[:i]
		}
	}
	return pattern
}
