package luasvc

import (
	lua "github.com/yuin/gopher-lua"
)

// Lua 5.1 patterns, ported from lstrlib.c so that find, match, gmatch and
// gsub behave (and fail) exactly as in Redis. Unlike gopher-lua's matcher
// it counts its steps and looks at the script's interrupt every
// patternCheck steps, so a pathological pattern stops at the time limit or
// on SCRIPT KILL instead of running for minutes.

const (
	maxCaptures   = 32
	capUnfinished = -1
	capPosition   = -2
	patternCheck  = 1 << 10
	lEsc          = '%'
	specials      = "^$*+?.([%-"
)

type capture struct {
	init int
	len  int
}

type matchState struct {
	L       *lua.LState
	intr    *interrupt
	src     string
	pat     string
	level   int
	capture [maxCaptures]capture
	steps   int
}

func (ms *matchState) error(msg string) {
	raise(ms.L, "%s", msg)
}

// tick counts a step and stops the script when it must end.
func (ms *matchState) tick() {
	ms.steps++
	if ms.steps%patternCheck == 0 && ms.intr != nil && ms.intr.check() {
		raise(ms.L, "%s", ms.intr.Err().Error())
	}
}

// pc is the pattern byte at i, 0 past the end (C strings).
func (ms *matchState) pc(i int) byte {
	if i < len(ms.pat) {
		return ms.pat[i]
	}
	return 0
}

// sc is the source byte at i, 0 at the end.
func (ms *matchState) sc(i int) byte {
	if i < len(ms.src) {
		return ms.src[i]
	}
	return 0
}

func (ms *matchState) checkCapture(l int) int {
	l -= '1'
	if l < 0 || l >= ms.level || ms.capture[l].len == capUnfinished {
		ms.error("invalid capture index")
	}
	return l
}

func (ms *matchState) captureToClose() int {
	for level := ms.level - 1; level >= 0; level-- {
		if ms.capture[level].len == capUnfinished {
			return level
		}
	}
	ms.error("invalid pattern capture")
	return 0
}

func (ms *matchState) classEnd(p int) int {
	c := ms.pc(p)
	p++
	switch c {
	case lEsc:
		if p >= len(ms.pat) {
			ms.error("malformed pattern (ends with '%')")
		}
		return p + 1
	case '[':
		if ms.pc(p) == '^' {
			p++
		}
		for {
			if p >= len(ms.pat) {
				ms.error("malformed pattern (missing ']')")
			}
			c := ms.pat[p]
			p++
			if c == lEsc && p < len(ms.pat) {
				p++
			}
			if ms.pc(p) == ']' {
				break
			}
		}
		return p + 1
	}
	return p
}

func isAlpha(c byte) bool { return ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') }
func isLower(c byte) bool { return 'a' <= c && c <= 'z' }
func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }
func isCntrl(c byte) bool { return c < 32 || c == 127 }
func isPunct(c byte) bool {
	return (33 <= c && c <= 47) || (58 <= c && c <= 64) || (91 <= c && c <= 96) || (123 <= c && c <= 126)
}

func toLower(c byte) byte {
	if isUpper(c) {
		return c + 'a' - 'A'
	}
	return c
}

func toUpper(c byte) byte {
	if isLower(c) {
		return c - ('a' - 'A')
	}
	return c
}

func matchClass(c, cl byte) bool {
	var res bool
	switch toLower(cl) {
	case 'a':
		res = isAlpha(c)
	case 'c':
		res = isCntrl(c)
	case 'd':
		res = isDigit(c)
	case 'l':
		res = isLower(c)
	case 'p':
		res = isPunct(c)
	case 's':
		res = isSpaceByte(c)
	case 'u':
		res = isUpper(c)
	case 'w':
		res = isAlpha(c) || isDigit(c)
	case 'x':
		res = isHexDigit(c)
	case 'z':
		res = c == 0
	default:
		return cl == c
	}
	if isLower(cl) {
		return res
	}
	return !res
}

// matchBracketClass: p is at '[', ec at the closing ']'.
func (ms *matchState) matchBracketClass(c byte, p, ec int) bool {
	sig := true
	if ms.pc(p+1) == '^' {
		sig = false
		p++
	}
	for p++; p < ec; p++ {
		switch {
		case ms.pc(p) == lEsc:
			p++
			if matchClass(c, ms.pc(p)) {
				return sig
			}
		case ms.pc(p+1) == '-' && p+2 < ec:
			p += 2
			if ms.pc(p-2) <= c && c <= ms.pc(p) {
				return sig
			}
		case ms.pc(p) == c:
			return sig
		}
	}
	return !sig
}

func (ms *matchState) singleMatch(c byte, p, ep int) bool {
	switch ms.pc(p) {
	case '.':
		return true
	case lEsc:
		return matchClass(c, ms.pc(p+1))
	case '[':
		return ms.matchBracketClass(c, p, ep-1)
	}
	return ms.pc(p) == c
}

func (ms *matchState) matchBalance(s, p int) int {
	if p >= len(ms.pat) || p+1 >= len(ms.pat) {
		ms.error("unbalanced pattern")
	}
	if ms.sc(s) != ms.pat[p] {
		return -1
	}
	b, e := ms.pat[p], ms.pat[p+1]
	cont := 1
	for s++; s < len(ms.src); s++ {
		ms.tick()
		switch ms.src[s] {
		case e:
			cont--
			if cont == 0 {
				return s + 1
			}
		case b:
			cont++
		}
	}
	return -1
}

func (ms *matchState) maxExpand(s, p, ep int) int {
	i := 0
	for s+i < len(ms.src) && ms.singleMatch(ms.src[s+i], p, ep) {
		ms.tick()
		i++
	}
	for ; i >= 0; i-- {
		if res := ms.match(s+i, ep+1); res >= 0 {
			return res
		}
	}
	return -1
}

func (ms *matchState) minExpand(s, p, ep int) int {
	for {
		if res := ms.match(s, ep+1); res >= 0 {
			return res
		}
		if s < len(ms.src) && ms.singleMatch(ms.src[s], p, ep) {
			s++
		} else {
			return -1
		}
	}
}

func (ms *matchState) startCapture(s, p, what int) int {
	level := ms.level
	if level >= maxCaptures {
		ms.error("too many captures")
	}
	ms.capture[level] = capture{init: s, len: what}
	ms.level = level + 1
	res := ms.match(s, p)
	if res < 0 {
		ms.level--
	}
	return res
}

func (ms *matchState) endCapture(s, p int) int {
	l := ms.captureToClose()
	ms.capture[l].len = s - ms.capture[l].init
	res := ms.match(s, p)
	if res < 0 {
		ms.capture[l].len = capUnfinished
	}
	return res
}

func (ms *matchState) matchCapture(s int, l byte) int {
	i := ms.checkCapture(int(l))
	c := ms.capture[i]
	if len(ms.src)-s >= c.len && ms.src[c.init:c.init+c.len] == ms.src[s:s+c.len] {
		return s + c.len
	}
	return -1
}

// match returns the end of the match of pattern[p:] at src[s:], or -1.
func (ms *matchState) match(s, p int) int {
	for {
		ms.tick()
		switch ms.pc(p) {
		case '(':
			if ms.pc(p+1) == ')' {
				return ms.startCapture(s, p+2, capPosition)
			}
			return ms.startCapture(s, p+1, capUnfinished)
		case ')':
			return ms.endCapture(s, p+1)
		case 0:
			if p >= len(ms.pat) {
				return s
			}
		case lEsc:
			switch next := ms.pc(p + 1); {
			case next == 'b':
				s = ms.matchBalance(s, p+2)
				if s < 0 {
					return -1
				}
				p += 4
				continue
			case next == 'f':
				p += 2
				if ms.pc(p) != '[' {
					ms.error("missing '[' after '%f' in pattern")
				}
				ep := ms.classEnd(p)
				var prev byte
				if s > 0 {
					prev = ms.src[s-1]
				}
				if ms.matchBracketClass(prev, p, ep-1) || !ms.matchBracketClass(ms.sc(s), p, ep-1) {
					return -1
				}
				p = ep
				continue
			case isDigit(next):
				s = ms.matchCapture(s, next)
				if s < 0 {
					return -1
				}
				p += 2
				continue
			}
		case '$':
			if p+1 >= len(ms.pat) {
				if s == len(ms.src) {
					return s
				}
				return -1
			}
		}
		// A single-char class, possibly repeated.
		ep := ms.classEnd(p)
		m := s < len(ms.src) && ms.singleMatch(ms.src[s], p, ep)
		switch ms.pc(ep) {
		case '?':
			if m {
				if res := ms.match(s+1, ep+1); res >= 0 {
					return res
				}
			}
			p = ep + 1
			continue
		case '*':
			return ms.maxExpand(s, p, ep)
		case '+':
			if !m {
				return -1
			}
			return ms.maxExpand(s+1, p, ep)
		case '-':
			return ms.minExpand(s, p, ep)
		}
		if !m {
			return -1
		}
		s++
		p = ep
	}
}

// captureValue is capture i of a match of src[s:e].
func (ms *matchState) captureValue(i, s, e int) lua.LValue {
	if i >= ms.level {
		if i == 0 {
			return lua.LString(ms.src[s:e])
		}
		ms.error("invalid capture index")
	}
	c := ms.capture[i]
	switch c.len {
	case capUnfinished:
		ms.error("unfinished capture")
	case capPosition:
		return lua.LNumber(c.init + 1)
	}
	return lua.LString(ms.src[c.init : c.init+c.len])
}

// pushCaptures pushes the captures of a match (the whole match when there
// are none and wholeIfNone) and returns how many.
func (ms *matchState) pushCaptures(s, e int, wholeIfNone bool) int {
	n := ms.level
	if n == 0 && wholeIfNone {
		n = 1
	}
	for i := 0; i < n; i++ {
		ms.L.Push(ms.captureValue(i, s, e))
	}
	return n
}
