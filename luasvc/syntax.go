package luasvc

import (
	"math"
	"strconv"
	"strings"
)

// luaSyntaxCheck is a syntax-only pass over Lua source that follows the
// structure of Lua 5.1's lexer and parser (llex.c, lparser.c) without
// generating code, so that a script that does not compile gets the
// message Redis's Lua gives ("'=' expected near 'x'", "'end' expected (to
// close 'if' at line 1) near '<eof>'"), word for word, with the same line
// and the same "near" token. gopher-lua's yacc parser reports other words
// ("syntax error") and accepts things Lua 5.1 refuses (goto, labels,
// over-deep nesting, too many locals or registers), so this pass decides which scripts
// compile and what the error says; gopher-lua only compiles what it
// accepts.
//
// It mirrors the C code function by function because the message depends
// on the exact lexer state when the error is raised: which token was read
// last (the "near" text is the lexer's buffer), the line the lexer is on,
// and whether a lookahead token was read. Of the code generator (lcode.c)
// it keeps only the register allocation, to refuse, at the same token, a
// function that needs more than 250 registers. The build of Redis
// 7.0.15's Lua the oracle runs has LUA_COMPAT_VARARG (a vararg function
// gets a local "arg") and no LUA_COMPAT_LSTR (no nested [[ ]] in long
// strings).
//
// Work is linear in the input: every byte is lexed once, recursion is
// bounded by the parser's own level limit (200), and a name lookup costs
// at most the number of enclosing functions (bounded by the same limit).

// Tokens: single bytes are their own code; reserved words and the other
// multi-byte tokens follow, in the order of luaX_tokens.
const (
	tkAnd = 257 + iota
	tkBreak
	tkDo
	tkElse
	tkElseif
	tkEnd
	tkFalse
	tkFor
	tkFunction
	tkIf
	tkIn
	tkLocal
	tkNil
	tkNot
	tkOr
	tkRepeat
	tkReturn
	tkThen
	tkTrue
	tkUntil
	tkWhile
	tkConcat
	tkDots
	tkEq
	tkGe
	tkLe
	tkNe
	tkNumber
	tkName
	tkString
	tkEOS
)

var luaTokens = [...]string{
	"and", "break", "do", "else", "elseif",
	"end", "false", "for", "function", "if",
	"in", "local", "nil", "not", "or", "repeat",
	"return", "then", "true", "until", "while",
	"..", "...", "==", ">=", "<=", "~=",
	"<number>", "<name>", "<string>", "<eof>",
}

var reservedWords = func() map[string]int {
	m := make(map[string]int, tkWhile-tkAnd+1)
	for t := tkAnd; t <= tkWhile; t++ {
		m[luaTokens[t-tkAnd]] = t
	}
	return m
}()

// Limits of Lua 5.1 (luaconf.h, llimits.h).
const (
	luaMaxCCalls   = 200 // LUAI_MAXCCALLS: syntax levels
	luaMaxVars     = 200 // LUAI_MAXVARS: active locals per function
	luaMaxUpvalues = 60  // LUAI_MAXUPVALUES
)

const eoz = -1 // end of input

// syntaxFailure carries the message out of the recursive descent, as
// luaD_throw does; luaSyntaxCheck turns it back into a value.
type syntaxFailure struct{ msg string }

type luaToken struct {
	t    int
	name string  // for tkName
	num  float64 // for tkNumber
}

type lexState struct {
	src      string
	pos      int
	current  int
	line     int
	lastline int
	buf      []byte
	tok      luaToken
	ahead    luaToken // tkEOS when there is none
	chunk    string
	ccalls   int
	fs       *funcState
	work     int
	fixes    []tokenFix
}

// luaSyntaxCheck returns Lua 5.1's message for the first error in src
// ("user_script:1: unexpected symbol near '<eof>'"), or "" when src
// parses. chunk is the name shown in messages; ccalls is the C-call depth
// the parser starts at (0 for a script Redis loads, more for loadstring).
func luaSyntaxCheck(src, chunk string, ccalls int) string {
	msg, _, _ := syntaxCheck(src, chunk, ccalls)
	return msg
}

// luaForGopher is src as gopher-lua must read it to mean what Lua 5.1
// does (see numberToken), or Lua's error message.
func luaForGopher(src, chunk string, ccalls int) (string, string) {
	msg, _, fixes := syntaxCheck(src, chunk, ccalls)
	if msg != "" || len(fixes) == 0 {
		return src, msg
	}
	var b strings.Builder
	last := 0
	for _, f := range fixes {
		b.WriteString(src[last:f.start])
		b.WriteString(f.text)
		last = f.end
	}
	b.WriteString(src[last:])
	return b.String(), ""
}

// syntaxCheck is luaSyntaxCheck, also returning the work done (bytes read
// plus name-lookup steps), which tests hold to a linear bound, and the
// tokens gopher-lua must read otherwise.
func syntaxCheck(src, chunk string, ccalls int) (msg string, work int, fixes []tokenFix) {
	ls := &lexState{src: src, chunk: chunk, line: 1, lastline: 1, ccalls: ccalls}
	ls.ahead.t = tkEOS
	defer func() {
		work, fixes = ls.work, ls.fixes
		if r := recover(); r != nil {
			f, ok := r.(syntaxFailure)
			if !ok {
				panic(r)
			}
			msg = f.msg
		}
	}()
	ls.next()
	fs := &funcState{isVararg: true}
	ls.openFunc(fs)
	ls.advance()
	ls.chunk_()
	ls.check(tkEOS)
	return "", 0, nil
}

// ---- lexer (llex.c) ----

func (ls *lexState) next() {
	ls.work++
	if ls.pos < len(ls.src) {
		ls.current = int(ls.src[ls.pos])
		ls.pos++
	} else {
		ls.pos = len(ls.src) + 1
		ls.current = eoz
	}
}

func (ls *lexState) save(c int)   { ls.buf = append(ls.buf, byte(c)) }
func (ls *lexState) saveAndNext() { ls.save(ls.current); ls.next() }

func (ls *lexState) currIsNewline() bool { return ls.current == '\n' || ls.current == '\r' }

// C-locale character classes (Redis's Lua runs in the C locale).
func lxDigit(c int) bool { return c >= '0' && c <= '9' }
func lxAlpha(c int) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func lxAlnum(c int) bool { return lxAlpha(c) || lxDigit(c) }
func lxSpace(c int) bool { return c == ' ' || c >= '\t' && c <= '\r' }
func lxCntrl(c int) bool { return c >= 0 && c < 0x20 || c == 0x7f }

func token2str(t int) string {
	if t < 257 {
		if lxCntrl(t) {
			return "char(" + strconv.Itoa(t) + ")"
		}
		return string([]byte{byte(t)})
	}
	return luaTokens[t-257]
}

// txtToken is the "near" text: the lexer's buffer for names, strings and
// numbers (printed with %s, so it stops at a NUL byte).
func (ls *lexState) txtToken(t int) string {
	switch t {
	case tkName, tkString, tkNumber:
		s := string(ls.buf)
		if i := strings.IndexByte(s, 0); i >= 0 {
			s = s[:i]
		}
		return s
	}
	return token2str(t)
}

func (ls *lexState) lexError(msg string, t int) {
	msg = ls.chunk + ":" + strconv.Itoa(ls.line) + ": " + msg
	if t != 0 {
		msg += " near '" + ls.txtToken(t) + "'"
	}
	panic(syntaxFailure{msg})
}

func (ls *lexState) syntaxError(msg string) { ls.lexError(msg, ls.tok.t) }

func (ls *lexState) incLine() {
	old := ls.current
	ls.next()
	if ls.currIsNewline() && ls.current != old {
		ls.next()
	}
	ls.line++
}

// checkNext is check_next, whose strchr also finds a NUL byte (the
// string's terminator): "1\0" lexes as one number, "a.\0b" as a .. b.
func (ls *lexState) checkNext(set string) bool {
	if ls.current < 0 || ls.current != 0 && strings.IndexByte(set, byte(ls.current)) < 0 {
		return false
	}
	ls.saveAndNext()
	return true
}

func (ls *lexState) readNumeral() float64 {
	for {
		ls.saveAndNext()
		if !lxDigit(ls.current) && ls.current != '.' {
			break
		}
	}
	if ls.checkNext("Ee") {
		ls.checkNext("+-")
	}
	for lxAlnum(ls.current) || ls.current == '_' {
		ls.saveAndNext()
	}
	num := string(ls.buf)
	if i := strings.IndexByte(num, 0); i >= 0 {
		num = num[:i] // strtod reads a C string
	}
	if !isCNumber(num) {
		ls.lexError("malformed number", tkNumber)
	}
	return cNumber(num)
}

// cNumber is the value of a number isCNumber accepts.
func cNumber(s string) float64 {
	if len(s) > 2 && (s[1] == 'x' || s[1] == 'X') && !strings.ContainsAny(s, "pP") {
		s += "p0" // Go wants a binary exponent in a hexadecimal float
	}
	f, _ := strconv.ParseFloat(s, 64)
	return f
}

// isCNumber says whether strtod (glibc, C locale) reads all of s, which
// holds only alphanumerics, '_', '.', and a sign after an exponent
// letter: a decimal or a hexadecimal number, optionally with exponent.
func isCNumber(s string) bool {
	digits := func(i int, hex bool) int {
		for i < len(s) && (lxDigit(int(s[i])) || hex && strings.IndexByte("abcdefABCDEF", s[i]) >= 0) {
			i++
		}
		return i
	}
	hex := len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')
	i := 0
	if hex {
		i = 2
	}
	j := digits(i, hex)
	n := j - i
	if j < len(s) && s[j] == '.' {
		k := digits(j+1, hex)
		n += k - j - 1
		j = k
	}
	if n == 0 {
		return false
	}
	if j < len(s) && (!hex && (s[j] == 'e' || s[j] == 'E') || hex && (s[j] == 'p' || s[j] == 'P')) {
		k := j + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if e := digits(k, false); e > k {
			j = e
		}
	}
	return j == len(s)
}

func (ls *lexState) skipSep() int {
	count := 0
	s := ls.current
	ls.saveAndNext()
	for ls.current == '=' {
		ls.saveAndNext()
		count++
	}
	if ls.current == s {
		return count
	}
	return -count - 1
}

func (ls *lexState) readLongString(isString bool, sep int) {
	ls.saveAndNext() // the second '['
	if ls.currIsNewline() {
		ls.incLine()
	}
	for {
		switch ls.current {
		case eoz:
			if isString {
				ls.lexError("unfinished long string", tkEOS)
			}
			ls.lexError("unfinished long comment", tkEOS)
		case ']':
			if ls.skipSep() == sep {
				ls.saveAndNext()
				return
			}
		case '\n', '\r':
			ls.save('\n')
			ls.incLine()
			if !isString {
				ls.buf = ls.buf[:0]
			}
		default:
			if isString {
				ls.saveAndNext()
			} else {
				ls.next()
			}
		}
	}
}

func (ls *lexState) readString(del int) {
	ls.saveAndNext()
	for ls.current != del {
		switch ls.current {
		case eoz:
			ls.lexError("unfinished string", tkEOS)
		case '\n', '\r':
			ls.lexError("unfinished string", tkString)
		case '\\':
			ls.next()
			c := -1
			switch ls.current {
			case 'a':
				c = '\a'
			case 'b':
				c = '\b'
			case 'f':
				c = '\f'
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			case 't':
				c = '\t'
			case 'v':
				c = '\v'
			case '\n', '\r':
				ls.save('\n')
				ls.incLine()
				continue
			case eoz:
				continue // reported by the next round
			default:
				if !lxDigit(ls.current) {
					ls.saveAndNext() // \\, \", \' and any other
				} else {
					c = 0
					for i := 0; i < 3 && lxDigit(ls.current); i++ {
						c = 10*c + ls.current - '0'
						ls.next()
					}
					if c > 255 {
						ls.lexError("escape sequence too large", tkString)
					}
					ls.save(c)
				}
				continue
			}
			ls.save(c)
			ls.next()
		default:
			ls.saveAndNext()
		}
	}
	ls.saveAndNext()
}

func (ls *lexState) llex() luaToken {
	ls.buf = ls.buf[:0]
	for {
		switch c := ls.current; c {
		case '\n', '\r':
			ls.incLine()
			continue
		case '-':
			start := ls.pos - 1
			ls.next()
			if ls.current != '-' {
				return luaToken{t: '-'}
			}
			ls.next()
			if ls.current == '[' {
				sep := ls.skipSep()
				ls.buf = ls.buf[:0]
				if sep >= 0 {
					ls.readLongString(false, sep)
					ls.buf = ls.buf[:0]
					continue
				}
			}
			for !ls.currIsNewline() && ls.current != eoz {
				ls.next()
			}
			if strings.HasPrefix(ls.src[start:], "--[") {
				ls.fixToken(start, "--") // "--[=x" is a short comment
			}
			continue
		case '[':
			sep := ls.skipSep()
			if sep >= 0 {
				ls.readLongString(true, sep)
				return luaToken{t: tkString}
			} else if sep == -1 {
				return luaToken{t: '['}
			}
			ls.lexError("invalid long string delimiter", tkString)
		case '=', '<', '>', '~':
			ls.next()
			if ls.current != '=' {
				return luaToken{t: c}
			}
			ls.next()
			switch c {
			case '=':
				return luaToken{t: tkEq}
			case '<':
				return luaToken{t: tkLe}
			case '>':
				return luaToken{t: tkGe}
			}
			return luaToken{t: tkNe}
		case '"', '\'':
			ls.readString(c)
			return luaToken{t: tkString}
		case '.':
			start := ls.pos - 1
			ls.saveAndNext()
			if ls.checkNext(".") {
				t := tkConcat
				if ls.checkNext(".") {
					t = tkDots
				}
				if strings.Contains(ls.src[start:ls.pos-1], "\x00") {
					ls.fixToken(start, " "+luaTokens[t-257]+" ")
				}
				return luaToken{t: t}
			}
			if !lxDigit(ls.current) {
				return luaToken{t: '.'}
			}
			return ls.numberToken(start)
		case eoz:
			return luaToken{t: tkEOS}
		default:
			switch {
			case lxSpace(c):
				ls.next()
				continue
			case lxDigit(c):
				return ls.numberToken(ls.pos - 1)
			case lxAlpha(c) || c == '_':
				for {
					ls.saveAndNext()
					if !lxAlnum(ls.current) && ls.current != '_' {
						break
					}
				}
				name := string(ls.buf)
				if r, ok := reservedWords[name]; ok {
					return luaToken{t: r}
				}
				return luaToken{t: tkName, name: name}
			}
			ls.next()
			return luaToken{t: c}
		}
	}
}

// numberToken reads a number that started at src[start].
func (ls *lexState) numberToken(start int) luaToken {
	v := ls.readNumeral()
	text := ls.src[start : ls.pos-1]
	// gopher-lua reads some numbers otherwise, or not at all: hex with
	// an exponent (0x1p4), two leading zeros (octal to Go: 0010 is 8),
	// overflow (1e309 is inf, not NaN), a NUL byte strtod stopped at.
	if strings.HasPrefix(text, "00") || strings.ContainsAny(text, "xX\x00") || math.IsInf(v, 0) {
		repl := "(1/0)"
		if !math.IsInf(v, 0) {
			repl = "(" + strconv.FormatFloat(v, 'g', -1, 64) + ")"
		}
		ls.fixToken(start, repl)
	}
	return luaToken{t: tkNumber, num: v}
}

// fixToken records that gopher-lua must read the text from src[start]
// to the current position as repl (same meaning, same line): a number
// it reads otherwise, a token whose text holds a NUL byte, a comment it
// takes for an unfinished long one.
func (ls *lexState) fixToken(start int, repl string) {
	ls.fixes = append(ls.fixes, tokenFix{start: start, end: ls.pos - 1, text: repl})
}

// tokenFix replaces src[start:end] by text.
type tokenFix struct {
	start, end int
	text       string
}

// advance is luaX_next.
func (ls *lexState) advance() {
	ls.lastline = ls.line
	if ls.ahead.t != tkEOS {
		ls.tok = ls.ahead
		ls.ahead.t = tkEOS
		return
	}
	ls.tok = ls.llex()
}

func (ls *lexState) lookahead() { ls.ahead = ls.llex() }

// ---- parser (lparser.c) ----

// Expression kinds, as lparser.h's expkind: what the code generator
// (lcode.c) knows of an expression, which decides the registers it takes.
const (
	vVoid     = iota // no expression (an empty list)
	vNil             //
	vTrue            //
	vFalse           //
	vK               // a constant
	vKNum            // a number constant
	vLocal           // a local variable
	vUpval           // an upvalue
	vGlobal          // a global
	vIndexed         // t[k]
	vJmp             // a comparison's jump
	vReloc           // an instruction whose target register is open
	vNonReloc        // a value in a register
	vCall            // a call
	vVararg          // '...'
)

// expDesc is the register-relevant part of Lua 5.1's expdesc: the checker
// follows lcode.c's register allocation (not its code) so that it refuses
// exactly the functions that need more than 250 registers, at the same
// token.
type expDesc struct {
	k      int
	temp   bool    // vNonReloc: its register is a temporary
	tTemp  bool    // vIndexed: the table's register is a temporary
	kTemp  bool    // vIndexed: the key's register is a temporary
	tJ, fJ bool    // it has pending true / false jumps (and, or)
	not    bool    // vReloc made by OP_NOT
	concat bool    // vReloc made by OP_CONCAT
	nval   float64 // vKNum: the number (constant folding)
}

func (e *expDesc) hasJumps() bool  { return e.tJ || e.fJ }
func (e *expDesc) isNumeral() bool { return e.k == vKNum && !e.hasJumps() }
func (e *expDesc) hasMultret() bool {
	return e.k == vCall || e.k == vVararg
}
func (e *expDesc) assignable() bool { return e.k >= vLocal && e.k <= vIndexed }

type upvalDesc struct {
	local bool // VLOCAL (else VUPVAL)
	info  int
}

type blockCnt struct {
	prev        *blockCnt
	nactvar     int
	isBreakable bool
}

type funcState struct {
	prev *funcState
	// freereg is the first free register as lcode.c would have it:
	// Lua refuses a function that needs 250 ("function or expression
	// too complex").
	freereg    int
	linedef    int
	isVararg   bool
	actvar     []string // declared locals, the first nactvar active
	nactvar    int
	upvalues   []upvalDesc
	bl         *blockCnt
	activeIdxs map[string][]int // name -> indexes in actvar of its active locals
}

func (ls *lexState) openFunc(fs *funcState) {
	fs.prev = ls.fs
	fs.activeIdxs = map[string][]int{}
	ls.fs = fs
}

func (ls *lexState) closeFunc() { ls.fs = ls.fs.prev }

func (ls *lexState) errorLimit(fs *funcState, limit int, what string) {
	var msg string
	if fs.linedef == 0 {
		msg = "main function has more than " + strconv.Itoa(limit) + " " + what
	} else {
		msg = "function at line " + strconv.Itoa(fs.linedef) + " has more than " + strconv.Itoa(limit) + " " + what
	}
	ls.lexError(msg, 0)
}

func (ls *lexState) errorExpected(t int) {
	ls.syntaxError("'" + token2str(t) + "' expected")
}

func (ls *lexState) testNext(t int) bool {
	if ls.tok.t == t {
		ls.advance()
		return true
	}
	return false
}

func (ls *lexState) check(t int) {
	if ls.tok.t != t {
		ls.errorExpected(t)
	}
}

func (ls *lexState) checkNextTok(t int) {
	ls.check(t)
	ls.advance()
}

func (ls *lexState) checkMatch(what, who, where int) {
	if !ls.testNext(what) {
		if where == ls.line {
			ls.errorExpected(what)
		}
		ls.syntaxError("'" + token2str(what) + "' expected (to close '" + token2str(who) +
			"' at line " + strconv.Itoa(where) + ")")
	}
}

func (ls *lexState) strCheckName() string {
	ls.check(tkName)
	n := ls.tok.name
	ls.advance()
	return n
}

func (ls *lexState) newLocalVar(name string, n int) {
	fs := ls.fs
	if fs.nactvar+n+1 > luaMaxVars {
		ls.errorLimit(fs, luaMaxVars, "local variables")
	}
	fs.actvar = append(fs.actvar[:fs.nactvar+n], name)
}

func (ls *lexState) adjustLocalVars(nvars int) {
	fs := ls.fs
	for i := 0; i < nvars; i++ {
		name := fs.actvar[fs.nactvar]
		fs.activeIdxs[name] = append(fs.activeIdxs[name], fs.nactvar)
		fs.nactvar++
	}
}

func (fs *funcState) removeVars(level int) {
	for fs.nactvar > level {
		fs.nactvar--
		name := fs.actvar[fs.nactvar]
		idx := fs.activeIdxs[name]
		if len(idx) == 1 {
			delete(fs.activeIdxs, name)
		} else {
			fs.activeIdxs[name] = idx[:len(idx)-1]
		}
	}
}

// searchVar is the highest active local so named, or -1.
func (fs *funcState) searchVar(name string) int {
	if idx := fs.activeIdxs[name]; len(idx) > 0 {
		return idx[len(idx)-1]
	}
	return -1
}

func (ls *lexState) indexUpvalue(fs *funcState, d upvalDesc) int {
	ls.work += len(fs.upvalues)
	for i, u := range fs.upvalues {
		if u == d {
			return i
		}
	}
	if len(fs.upvalues)+1 > luaMaxUpvalues {
		ls.errorLimit(fs, luaMaxUpvalues, "upvalues")
	}
	fs.upvalues = append(fs.upvalues, d)
	return len(fs.upvalues) - 1
}

// singleVarAux resolves name in fs and its enclosing functions: it
// returns whether it is global, else the descriptor of the local or
// upvalue it is in fs.
func (ls *lexState) singleVarAux(fs *funcState, name string) (global bool, d upvalDesc) {
	ls.work++
	if fs == nil {
		return true, upvalDesc{}
	}
	if v := fs.searchVar(name); v >= 0 {
		return false, upvalDesc{local: true, info: v}
	}
	global, d = ls.singleVarAux(fs.prev, name)
	if global {
		return true, d
	}
	return false, upvalDesc{info: ls.indexUpvalue(fs, d)}
}

func (ls *lexState) singleVar() expDesc {
	name := ls.strCheckName()
	global, d := ls.singleVarAux(ls.fs, name)
	switch {
	case global:
		return expDesc{k: vGlobal}
	case d.local:
		return expDesc{k: vLocal}
	}
	return expDesc{k: vUpval}
}

func (ls *lexState) enterLevel() {
	ls.ccalls++
	if ls.ccalls > luaMaxCCalls {
		ls.lexError("chunk has too many syntax levels", 0)
	}
}

func (ls *lexState) leaveLevel() { ls.ccalls-- }

func (ls *lexState) enterBlock(bl *blockCnt, breakable bool) {
	fs := ls.fs
	bl.isBreakable = breakable
	bl.nactvar = fs.nactvar
	bl.prev = fs.bl
	fs.bl = bl
}

func (ls *lexState) leaveBlock() {
	fs := ls.fs
	bl := fs.bl
	fs.bl = bl.prev
	fs.removeVars(bl.nactvar)
	fs.freereg = fs.nactvar
}

// maxStack is MAXSTACK: the registers a function may use.
const maxStack = 250

// reserve is luaK_reserveregs: n more registers, refused at maxStack
// (luaK_checkstack) with the current token as the "near" one.
func (ls *lexState) reserve(n int) {
	fs := ls.fs
	if fs.freereg+n >= maxStack {
		ls.syntaxError("function or expression too complex")
	}
	fs.freereg += n
}

// The register side of lcode.c's expression functions, one for one.

func (ls *lexState) freeExp(e *expDesc) {
	if e.k == vNonReloc && e.temp {
		e.temp = false
		ls.fs.freereg--
	}
}

func (ls *lexState) dischargeVars(e *expDesc) {
	switch e.k {
	case vLocal:
		*e = expDesc{k: vNonReloc, tJ: e.tJ, fJ: e.fJ}
	case vUpval, vGlobal, vVararg:
		*e = expDesc{k: vReloc, tJ: e.tJ, fJ: e.fJ}
	case vIndexed:
		if e.kTemp {
			ls.fs.freereg--
		}
		if e.tTemp {
			ls.fs.freereg--
		}
		*e = expDesc{k: vReloc, tJ: e.tJ, fJ: e.fJ}
	case vCall:
		*e = expDesc{k: vNonReloc, temp: true, tJ: e.tJ, fJ: e.fJ}
	}
}

func (ls *lexState) discharge2AnyReg(e *expDesc) {
	if e.k != vNonReloc {
		ls.reserve(1)
		*e = expDesc{k: vNonReloc, temp: true, tJ: e.tJ, fJ: e.fJ}
	}
}

func (ls *lexState) exp2NextReg(e *expDesc) {
	ls.dischargeVars(e)
	ls.freeExp(e)
	ls.reserve(1)
	*e = expDesc{k: vNonReloc, temp: true}
}

func (ls *lexState) exp2AnyReg(e *expDesc) {
	ls.dischargeVars(e)
	if e.k == vNonReloc {
		if !e.hasJumps() {
			return
		}
		if e.temp {
			e.tJ, e.fJ = false, false
			return
		}
	}
	ls.exp2NextReg(e)
}

func (ls *lexState) exp2Val(e *expDesc) {
	if e.hasJumps() {
		ls.exp2AnyReg(e)
	} else {
		ls.dischargeVars(e)
	}
}

// exp2RK leaves constants as constants (Lua puts one in a register only
// past 256 constants in a function, which is not counted: a lower bound).
func (ls *lexState) exp2RK(e *expDesc) {
	ls.exp2Val(e)
	switch e.k {
	case vKNum, vTrue, vFalse, vNil, vK:
		e.k = vK
		return
	}
	ls.exp2AnyReg(e)
}

// setReturns is luaK_setreturns / luaK_setmultret: '...' opens a register.
func (ls *lexState) setReturns(e *expDesc) {
	if e.k == vVararg {
		ls.reserve(1)
	}
}

func (ls *lexState) setOneRet(e *expDesc) {
	switch e.k {
	case vCall:
		*e = expDesc{k: vNonReloc, temp: true, tJ: e.tJ, fJ: e.fJ}
	case vVararg:
		*e = expDesc{k: vReloc, tJ: e.tJ, fJ: e.fJ}
	}
}

func (ls *lexState) jumpOnCond(e *expDesc) {
	if e.k == vReloc && e.not {
		return // the OP_NOT becomes a test of its operand
	}
	ls.discharge2AnyReg(e)
	ls.freeExp(e)
}

func (ls *lexState) goIfTrue(e *expDesc) {
	ls.dischargeVars(e)
	switch e.k {
	case vK, vKNum, vTrue:
	case vJmp:
		e.fJ = true
	default:
		ls.jumpOnCond(e)
		e.fJ = true
	}
	e.tJ = false
}

func (ls *lexState) goIfFalse(e *expDesc) {
	ls.dischargeVars(e)
	switch e.k {
	case vNil, vFalse:
	case vJmp:
		e.tJ = true
	default:
		ls.jumpOnCond(e)
		e.tJ = true
	}
	e.fJ = false
}

func (ls *lexState) codeNot(e *expDesc) {
	ls.dischargeVars(e)
	switch e.k {
	case vNil, vFalse:
		e.k = vTrue
	case vK, vKNum, vTrue:
		e.k = vFalse
	case vJmp:
	case vReloc, vNonReloc:
		ls.discharge2AnyReg(e)
		ls.freeExp(e)
		*e = expDesc{k: vReloc, not: true, tJ: e.tJ, fJ: e.fJ}
	}
	e.tJ, e.fJ = e.fJ, e.tJ
}

// Arithmetic operators for constant folding.
const (
	opAdd = iota
	opSub
	opMul
	opDiv
	opMod
	opPow
	opUnm
	opLen
	opConcat
)

// constFolding folds two number constants as Lua 5.1 does (not dividing
// by zero, not producing NaN).
func constFolding(op int, e1, e2 *expDesc) bool {
	if !e1.isNumeral() || !e2.isNumeral() {
		return false
	}
	v1, v2 := e1.nval, e2.nval
	var r float64
	switch op {
	case opAdd:
		r = v1 + v2
	case opSub:
		r = v1 - v2
	case opMul:
		r = v1 * v2
	case opDiv:
		if v2 == 0 {
			return false
		}
		r = v1 / v2
	case opMod:
		if v2 == 0 {
			return false
		}
		r = v1 - math.Floor(v1/v2)*v2
	case opPow:
		r = math.Pow(v1, v2)
	case opUnm:
		r = -v1
	default:
		return false
	}
	if r != r {
		return false
	}
	e1.nval = r
	return true
}

func (ls *lexState) codeArith(op int, e1, e2 *expDesc) {
	if constFolding(op, e1, e2) {
		return
	}
	if op != opUnm && op != opLen {
		ls.exp2RK(e2)
	}
	ls.exp2RK(e1)
	ls.freeExp(e2)
	ls.freeExp(e1)
	*e1 = expDesc{k: vReloc, concat: op == opConcat}
}

func (ls *lexState) codeComp(e1, e2 *expDesc) {
	ls.exp2RK(e1)
	ls.exp2RK(e2)
	ls.freeExp(e2)
	ls.freeExp(e1)
	*e1 = expDesc{k: vJmp}
}

func (ls *lexState) prefix(op int, e *expDesc) {
	e2 := expDesc{k: vKNum}
	switch op {
	case '-':
		if !e.isNumeral() {
			ls.exp2AnyReg(e)
		}
		ls.codeArith(opUnm, e, &e2)
	case tkNot:
		ls.codeNot(e)
	case '#':
		ls.exp2AnyReg(e)
		ls.codeArith(opLen, e, &e2)
	}
}

func (ls *lexState) infix(op int, v *expDesc) {
	switch op {
	case tkAnd:
		ls.goIfTrue(v)
	case tkOr:
		ls.goIfFalse(v)
	case tkConcat:
		ls.exp2NextReg(v)
	case '+', '-', '*', '/', '%', '^':
		if !v.isNumeral() {
			ls.exp2RK(v)
		}
	default:
		ls.exp2RK(v)
	}
}

func (ls *lexState) posfix(op int, e1, e2 *expDesc) {
	switch op {
	case tkAnd:
		ls.dischargeVars(e2)
		e2.fJ = e2.fJ || e1.fJ
		*e1 = *e2
	case tkOr:
		ls.dischargeVars(e2)
		e2.tJ = e2.tJ || e1.tJ
		*e1 = *e2
	case tkConcat:
		ls.exp2Val(e2)
		if e2.k == vReloc && e2.concat {
			ls.freeExp(e1)
			*e1 = expDesc{k: vReloc, concat: true}
		} else {
			ls.exp2NextReg(e2)
			ls.codeArith(opConcat, e1, e2)
		}
	case '+':
		ls.codeArith(opAdd, e1, e2)
	case '-':
		ls.codeArith(opSub, e1, e2)
	case '*':
		ls.codeArith(opMul, e1, e2)
	case '/':
		ls.codeArith(opDiv, e1, e2)
	case '%':
		ls.codeArith(opMod, e1, e2)
	case '^':
		ls.codeArith(opPow, e1, e2)
	default:
		ls.codeComp(e1, e2)
	}
}

func (ls *lexState) storeVar(v, ex *expDesc) {
	switch v.k {
	case vLocal:
		ls.freeExp(ex)
		return
	case vUpval, vGlobal:
		ls.exp2AnyReg(ex)
	case vIndexed:
		ls.exp2RK(ex)
	}
	ls.freeExp(ex)
}

// adjustAssign is adjust_assign: nvars values from nexps expressions, the
// last being e.
func (ls *lexState) adjustAssign(nvars, nexps int, e *expDesc) {
	extra := nvars - nexps
	if e.hasMultret() {
		extra++
		if extra < 0 {
			extra = 0
		}
		ls.setReturns(e)
		if extra > 1 {
			ls.reserve(extra - 1)
		}
		return
	}
	if e.k != vVoid {
		ls.exp2NextReg(e)
	}
	if extra > 0 {
		ls.reserve(extra)
	}
}

func (ls *lexState) field(v *expDesc) {
	ls.exp2AnyReg(v)
	ls.advance() // '.' or ':'
	ls.strCheckName()
	*v = expDesc{k: vIndexed, tTemp: v.temp}
}

func (ls *lexState) yindex(v *expDesc) {
	ls.advance() // '['
	*v = ls.expr()
	ls.exp2Val(v)
	ls.checkNextTok(']')
}

// indexed is luaK_indexed: t[k].
func (ls *lexState) indexed(t, k *expDesc) {
	ls.exp2RK(k)
	*t = expDesc{k: vIndexed, tTemp: t.temp, kTemp: k.k == vNonReloc && k.temp}
}

func (ls *lexState) recField() {
	reg := ls.fs.freereg
	var key expDesc
	if ls.tok.t == tkName {
		ls.strCheckName()
		key.k = vK
	} else {
		ls.yindex(&key)
	}
	ls.checkNextTok('=')
	ls.exp2RK(&key)
	val := ls.expr()
	ls.exp2RK(&val)
	ls.fs.freereg = reg
}

// lfieldsPerFlush is LFIELDS_PER_FLUSH: list items stored at once.
const lfieldsPerFlush = 50

func (ls *lexState) constructor() expDesc {
	fs := ls.fs
	line := ls.line
	t := expDesc{k: vReloc}
	ls.exp2NextReg(&t)
	table := fs.freereg - 1
	ls.checkNextTok('{')
	v := expDesc{k: vVoid}
	tostore := 0
	for {
		if ls.tok.t == '}' {
			break
		}
		if v.k != vVoid { // closelistfield
			ls.exp2NextReg(&v)
			v.k = vVoid
			if tostore == lfieldsPerFlush {
				fs.freereg = table + 1
				tostore = 0
			}
		}
		switch ls.tok.t {
		case tkName:
			ls.lookahead()
			if ls.ahead.t != '=' {
				v = ls.expr()
				tostore++
			} else {
				ls.recField()
			}
		case '[':
			ls.recField()
		default:
			v = ls.expr()
			tostore++
		}
		if !ls.testNext(',') && !ls.testNext(';') {
			break
		}
	}
	ls.checkMatch('}', '{', line)
	if tostore > 0 { // lastlistfield
		if v.hasMultret() {
			ls.setReturns(&v)
		} else if v.k != vVoid {
			ls.exp2NextReg(&v)
		}
		fs.freereg = table + 1
	}
	return t
}

func (ls *lexState) parList() {
	fs := ls.fs
	nparams := 0
	fs.isVararg = false
	if ls.tok.t != ')' {
		for {
			switch ls.tok.t {
			case tkName:
				ls.newLocalVar(ls.strCheckName(), nparams)
				nparams++
			case tkDots:
				ls.advance()
				// LUA_COMPAT_VARARG: the varargs are also the local "arg".
				ls.newLocalVar("arg", nparams)
				nparams++
				fs.isVararg = true
			default:
				ls.syntaxError("<name> or '...' expected")
			}
			if fs.isVararg || !ls.testNext(',') {
				break
			}
		}
	}
	ls.adjustLocalVars(nparams)
	fs.freereg = fs.nactvar
}

func (ls *lexState) body(needSelf bool, line int) {
	fs := &funcState{linedef: line}
	ls.openFunc(fs)
	ls.checkNextTok('(')
	if needSelf {
		ls.newLocalVar("self", 0)
		ls.adjustLocalVars(1)
	}
	ls.parList()
	ls.checkNextTok(')')
	ls.chunk_()
	ls.checkMatch(tkEnd, tkFunction, line)
	ls.closeFunc()
}

// explist1 returns the number of expressions and the last one; every
// other one is in its register.
func (ls *lexState) explist1() (int, expDesc) {
	n := 1
	e := ls.expr()
	for ls.testNext(',') {
		ls.exp2NextReg(&e)
		e = ls.expr()
		n++
	}
	return n, e
}

// funcArgs parses the arguments of a call to the function in register
// base.
func (ls *lexState) funcArgs(f *expDesc, base int) {
	line := ls.line
	var args expDesc
	switch ls.tok.t {
	case '(':
		if line != ls.lastline {
			ls.syntaxError("ambiguous syntax (function call x new statement)")
		}
		ls.advance()
		if ls.tok.t != ')' {
			_, args = ls.explist1()
			ls.setReturns(&args)
		}
		ls.checkMatch(')', '(', line)
	case '{':
		args = ls.constructor()
	case tkString:
		args.k = vK
		ls.advance()
	default:
		ls.syntaxError("function arguments expected")
	}
	if !args.hasMultret() && args.k != vVoid {
		ls.exp2NextReg(&args)
	}
	*f = expDesc{k: vCall}
	ls.fs.freereg = base + 1
}

func (ls *lexState) prefixExp() expDesc {
	switch ls.tok.t {
	case '(':
		line := ls.line
		ls.advance()
		e := ls.expr()
		ls.checkMatch(')', '(', line)
		ls.dischargeVars(&e)
		return e
	case tkName:
		return ls.singleVar()
	}
	ls.syntaxError("unexpected symbol")
	return expDesc{}
}

func (ls *lexState) primaryExp() expDesc {
	v := ls.prefixExp()
	for {
		switch ls.tok.t {
		case '.':
			ls.field(&v)
		case '[':
			ls.exp2AnyReg(&v)
			var key expDesc
			ls.yindex(&key)
			ls.indexed(&v, &key)
		case ':':
			ls.advance()
			ls.strCheckName()
			// luaK_self: the function and self.
			ls.exp2AnyReg(&v)
			ls.freeExp(&v)
			ls.reserve(2)
			ls.funcArgs(&v, ls.fs.freereg-2)
		case '(', tkString, '{':
			ls.exp2NextReg(&v)
			ls.funcArgs(&v, ls.fs.freereg-1)
		default:
			return v
		}
	}
}

func (ls *lexState) simpleExp() expDesc {
	var e expDesc
	switch ls.tok.t {
	case tkNumber:
		e = expDesc{k: vKNum, nval: ls.tok.num}
	case tkString:
		e.k = vK
	case tkNil:
		e.k = vNil
	case tkTrue:
		e.k = vTrue
	case tkFalse:
		e.k = vFalse
	case tkDots:
		if !ls.fs.isVararg {
			ls.syntaxError("cannot use '...' outside a vararg function")
		}
		e.k = vVararg
	case '{':
		return ls.constructor()
	case tkFunction:
		ls.advance()
		ls.body(false, ls.line)
		return expDesc{k: vReloc}
	default:
		return ls.primaryExp()
	}
	ls.advance()
	return e
}

// binaryPriority is the left and right priority of a binary operator
// token, or ok false when the token is not one.
func binaryPriority(t int) (left, right int, ok bool) {
	switch t {
	case '+', '-':
		return 6, 6, true
	case '*', '/', '%':
		return 7, 7, true
	case '^':
		return 10, 9, true
	case tkConcat:
		return 5, 4, true
	case tkNe, tkEq, '<', tkLe, '>', tkGe:
		return 3, 3, true
	case tkAnd:
		return 2, 2, true
	case tkOr:
		return 1, 1, true
	}
	return 0, 0, false
}

const unaryPriority = 8

// subExpr parses an expression with binary operators of priority above
// limit.
func (ls *lexState) subExpr(limit int) expDesc {
	ls.enterLevel()
	var v expDesc
	if op := ls.tok.t; op == tkNot || op == '-' || op == '#' {
		ls.advance()
		v = ls.subExpr(unaryPriority)
		ls.prefix(op, &v)
	} else {
		v = ls.simpleExp()
	}
	for {
		op := ls.tok.t
		left, right, ok := binaryPriority(op)
		if !ok || left <= limit {
			break
		}
		ls.advance()
		ls.infix(op, &v)
		v2 := ls.subExpr(right)
		ls.posfix(op, &v, &v2)
	}
	ls.leaveLevel()
	return v
}

func (ls *lexState) expr() expDesc { return ls.subExpr(0) }

func blockFollow(t int) bool {
	switch t {
	case tkElse, tkElseif, tkEnd, tkUntil, tkEOS:
		return true
	}
	return false
}

func (ls *lexState) block() {
	var bl blockCnt
	ls.enterBlock(&bl, false)
	ls.chunk_()
	ls.leaveBlock()
}

func (ls *lexState) assignment(lh *expDesc, nvars int) {
	if !lh.assignable() {
		ls.syntaxError("syntax error")
	}
	fs := ls.fs
	if ls.testNext(',') {
		// check_conflict may copy a local to one more register when an
		// earlier target indexes with it: not counted (a lower bound).
		nv := ls.primaryExp()
		if nvars > luaMaxCCalls-ls.ccalls {
			ls.errorLimit(fs, luaMaxCCalls-ls.ccalls, "variables in assignment")
		}
		ls.assignment(&nv, nvars+1)
	} else {
		ls.checkNextTok('=')
		nexps, e := ls.explist1()
		if nexps == nvars {
			ls.setOneRet(&e)
			ls.storeVar(lh, &e)
			return
		}
		ls.adjustAssign(nvars, nexps, &e)
		if nexps > nvars {
			fs.freereg -= nexps - nvars
		}
	}
	e := expDesc{k: vNonReloc, temp: fs.freereg-1 >= fs.nactvar}
	ls.storeVar(lh, &e)
}

// cond parses a condition; its registers are free once it is tested.
func (ls *lexState) cond() {
	e := ls.expr()
	if e.k == vNil {
		e.k = vFalse
	}
	ls.goIfTrue(&e)
	ls.fs.freereg = ls.fs.nactvar
}

func (ls *lexState) breakStat() {
	bl := ls.fs.bl
	for bl != nil && !bl.isBreakable {
		bl = bl.prev
	}
	if bl == nil {
		ls.syntaxError("no loop to break")
	}
}

func (ls *lexState) whileStat(line int) {
	ls.advance()
	ls.cond()
	var bl blockCnt
	ls.enterBlock(&bl, true)
	ls.checkNextTok(tkDo)
	ls.block()
	ls.checkMatch(tkEnd, tkWhile, line)
	ls.leaveBlock()
}

func (ls *lexState) repeatStat(line int) {
	var bl1, bl2 blockCnt
	ls.enterBlock(&bl1, true)
	ls.enterBlock(&bl2, false)
	ls.advance()
	ls.chunk_()
	ls.checkMatch(tkUntil, tkRepeat, line)
	ls.cond()
	ls.leaveBlock()
	ls.leaveBlock()
}

func (ls *lexState) forBody(nvars int) {
	ls.adjustLocalVars(3)
	ls.checkNextTok(tkDo)
	var bl blockCnt
	ls.enterBlock(&bl, false)
	ls.adjustLocalVars(nvars)
	ls.reserve(nvars)
	ls.block()
	ls.leaveBlock()
}

// exp1 is an expression whose value goes to the next register.
func (ls *lexState) exp1() {
	e := ls.expr()
	ls.exp2NextReg(&e)
}

func (ls *lexState) forNum(name string) {
	ls.newLocalVar("(for index)", 0)
	ls.newLocalVar("(for limit)", 1)
	ls.newLocalVar("(for step)", 2)
	ls.newLocalVar(name, 3)
	ls.checkNextTok('=')
	ls.exp1()
	ls.checkNextTok(',')
	ls.exp1()
	if ls.testNext(',') {
		ls.exp1()
	} else {
		ls.reserve(1) // the default step
	}
	ls.forBody(1)
}

func (ls *lexState) forList(name string) {
	nvars := 0
	for _, n := range []string{"(for generator)", "(for state)", "(for control)", name} {
		ls.newLocalVar(n, nvars)
		nvars++
	}
	for ls.testNext(',') {
		ls.newLocalVar(ls.strCheckName(), nvars)
		nvars++
	}
	ls.checkNextTok(tkIn)
	nexps, e := ls.explist1()
	ls.adjustAssign(3, nexps, &e)
	if ls.fs.freereg+3 >= maxStack { // luaK_checkstack: room to call the generator
		ls.syntaxError("function or expression too complex")
	}
	ls.forBody(nvars - 3)
}

func (ls *lexState) forStat(line int) {
	var bl blockCnt
	ls.enterBlock(&bl, true)
	ls.advance()
	name := ls.strCheckName()
	switch ls.tok.t {
	case '=':
		ls.forNum(name)
	case ',', tkIn:
		ls.forList(name)
	default:
		ls.syntaxError("'=' or 'in' expected")
	}
	ls.checkMatch(tkEnd, tkFor, line)
	ls.leaveBlock()
}

func (ls *lexState) testThenBlock() {
	ls.advance()
	ls.cond()
	ls.checkNextTok(tkThen)
	ls.block()
}

func (ls *lexState) ifStat(line int) {
	ls.testThenBlock()
	for ls.tok.t == tkElseif {
		ls.testThenBlock()
	}
	if ls.tok.t == tkElse {
		ls.advance()
		ls.block()
	}
	ls.checkMatch(tkEnd, tkIf, line)
}

func (ls *lexState) localFunc() {
	ls.newLocalVar(ls.strCheckName(), 0)
	ls.reserve(1)
	ls.adjustLocalVars(1)
	ls.body(false, ls.line)
}

func (ls *lexState) localStat() {
	nvars := 0
	for {
		ls.newLocalVar(ls.strCheckName(), nvars)
		nvars++
		if !ls.testNext(',') {
			break
		}
	}
	nexps, e := 0, expDesc{k: vVoid}
	if ls.testNext('=') {
		nexps, e = ls.explist1()
	}
	ls.adjustAssign(nvars, nexps, &e)
	ls.adjustLocalVars(nvars)
}

func (ls *lexState) funcName() (expDesc, bool) {
	v := ls.singleVar()
	for ls.tok.t == '.' {
		ls.field(&v)
	}
	if ls.tok.t == ':' {
		ls.field(&v)
		return v, true
	}
	return v, false
}

func (ls *lexState) funcStat(line int) {
	ls.advance()
	v, needSelf := ls.funcName()
	ls.body(needSelf, line)
	b := expDesc{k: vReloc}
	ls.storeVar(&v, &b)
}

func (ls *lexState) exprStat() {
	if v := ls.primaryExp(); v.k != vCall {
		ls.assignment(&v, 1)
	}
}

func (ls *lexState) retStat() {
	ls.advance()
	if blockFollow(ls.tok.t) || ls.tok.t == ';' {
		return
	}
	switch n, e := ls.explist1(); {
	case e.hasMultret():
		ls.setReturns(&e)
	case n == 1:
		ls.exp2AnyReg(&e)
	default:
		ls.exp2NextReg(&e)
	}
}

// statement reports whether it must be the last of its block.
func (ls *lexState) statement() bool {
	line := ls.line
	switch ls.tok.t {
	case tkIf:
		ls.ifStat(line)
	case tkWhile:
		ls.whileStat(line)
	case tkDo:
		ls.advance()
		ls.block()
		ls.checkMatch(tkEnd, tkDo, line)
	case tkFor:
		ls.forStat(line)
	case tkRepeat:
		ls.repeatStat(line)
	case tkFunction:
		ls.funcStat(line)
	case tkLocal:
		ls.advance()
		if ls.testNext(tkFunction) {
			ls.localFunc()
		} else {
			ls.localStat()
		}
	case tkReturn:
		ls.retStat()
		return true
	case tkBreak:
		ls.advance()
		ls.breakStat()
		return true
	default:
		ls.exprStat()
	}
	return false
}

func (ls *lexState) chunk_() {
	ls.enterLevel()
	last := false
	for !last && !blockFollow(ls.tok.t) {
		last = ls.statement()
		ls.testNext(';')
		ls.fs.freereg = ls.fs.nactvar
	}
	ls.leaveLevel()
}
