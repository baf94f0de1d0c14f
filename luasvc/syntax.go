package luasvc

import (
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
// over-deep nesting, too many locals), so this pass decides which scripts
// compile and what the error says; gopher-lua only compiles what it
// accepts.
//
// It mirrors the C code function by function because the message depends
// on the exact lexer state when the error is raised: which token was read
// last (the "near" text is the lexer's buffer), the line the lexer is on,
// and whether a lookahead token was read. The build of Redis 7.0.15's Lua
// the oracle runs has LUA_COMPAT_VARARG (a vararg function gets a local
// "arg") and no LUA_COMPAT_LSTR (no nested [[ ]] in long strings).
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
	name string // for tkName
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
}

// luaSyntaxCheck returns Lua 5.1's message for the first error in src
// ("user_script:1: unexpected symbol near '<eof>'"), or "" when src
// parses. chunk is the name shown in messages; ccalls is the C-call depth
// the parser starts at (0 for a script Redis loads, more for loadstring).
func luaSyntaxCheck(src, chunk string, ccalls int) string {
	msg, _ := syntaxCheck(src, chunk, ccalls)
	return msg
}

// syntaxCheck is luaSyntaxCheck, also returning the work done (bytes read
// plus name-lookup steps), which tests hold to a linear bound.
func syntaxCheck(src, chunk string, ccalls int) (msg string, work int) {
	ls := &lexState{src: src, chunk: chunk, line: 1, lastline: 1, ccalls: ccalls}
	ls.ahead.t = tkEOS
	defer func() {
		work = ls.work
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
	return "", 0
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

func (ls *lexState) readNumeral() {
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
			ls.saveAndNext()
			if ls.checkNext(".") {
				if ls.checkNext(".") {
					return luaToken{t: tkDots}
				}
				return luaToken{t: tkConcat}
			}
			if !lxDigit(ls.current) {
				return luaToken{t: '.'}
			}
			ls.readNumeral()
			return luaToken{t: tkNumber}
		case eoz:
			return luaToken{t: tkEOS}
		default:
			switch {
			case lxSpace(c):
				ls.next()
				continue
			case lxDigit(c):
				ls.readNumeral()
				return luaToken{t: tkNumber}
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

// expKind is what the parser needs to know of an expression: whether it
// can be assigned to or is a call (a statement on its own).
type expKind int

const (
	expOther expKind = iota
	expVar           // VLOCAL, VUPVAL, VGLOBAL, VINDEXED
	expCall
)

// expDesc is what the checker knows of a parsed expression: its kind,
// and what decides the registers the code generator (lcode.c) uses for
// it: whether its value already sits in a temporary register at the top
// (a call's result, a table under construction), whether it may return
// several values (a call, '...'), and whether it is a concatenation
// (which a concatenation to its left extends in place).
type expDesc struct {
	k       expKind
	temp    bool
	multret bool
	concat  bool
	void    bool // no expression (an empty list)
}

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
	// freereg is the first free register as the code generator would
	// have it, counting only the registers it surely takes (locals, list
	// and argument values, call bases, tables), never more: Lua refuses a
	// function that needs 250 ("function or expression too complex"), and
	// the check must not refuse what Lua accepts.
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

func (ls *lexState) singleVar() {
	name := ls.strCheckName()
	ls.singleVarAux(ls.fs, name)
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

// closeNext is luaK_exp2nextreg for an expression that started at
// register start: its value goes to the next register, which is the one
// it already holds when it is a temporary.
func (ls *lexState) closeNext(e expDesc) {
	if !e.temp {
		ls.reserve(1)
	}
}

// adjustAssign is adjust_assign: nvars values from nexps expressions, the
// last being e; extra values are dropped by the caller, missing ones are
// nil or come from a multiple-value last expression.
func (ls *lexState) adjustAssign(nvars, nexps int, e expDesc) {
	extra := nvars - nexps
	if e.multret {
		// '...' also takes a register here (luaK_setreturns); not
		// counted, as the callers' counts are lower bounds.
		extra++
		if extra < 0 {
			extra = 0
		}
		if extra > 1 {
			ls.reserve(extra - 1)
		}
		return
	}
	if !e.void {
		ls.closeNext(e)
	}
	if extra > 0 {
		ls.reserve(extra)
	}
}

func (ls *lexState) field() {
	ls.advance() // '.' or ':'
	ls.strCheckName()
}

func (ls *lexState) yindex() {
	ls.advance() // '['
	ls.expr()
	ls.checkNextTok(']')
}

func (ls *lexState) recField() {
	reg := ls.fs.freereg
	if ls.tok.t == tkName {
		ls.strCheckName()
	} else {
		ls.yindex()
	}
	ls.checkNextTok('=')
	ls.expr()
	ls.fs.freereg = reg
}

// lfieldsPerFlush is LFIELDS_PER_FLUSH: list items stored at once.
const lfieldsPerFlush = 50

func (ls *lexState) constructor() expDesc {
	fs := ls.fs
	line := ls.line
	table := fs.freereg
	ls.reserve(1)
	ls.checkNextTok('{')
	var pending expDesc
	hasPending, tostore := false, 0
	for {
		if ls.tok.t == '}' {
			break
		}
		if hasPending { // closelistfield
			ls.closeNext(pending)
			hasPending = false
			if tostore == lfieldsPerFlush {
				fs.freereg = table + 1
				tostore = 0
			}
		}
		switch ls.tok.t {
		case tkName:
			ls.lookahead()
			if ls.ahead.t != '=' {
				pending, hasPending = ls.expr(), true
				tostore++
			} else {
				ls.recField()
			}
		case '[':
			ls.recField()
		default:
			pending, hasPending = ls.expr(), true
			tostore++
		}
		if !ls.testNext(',') && !ls.testNext(';') {
			break
		}
	}
	ls.checkMatch('}', '{', line)
	if hasPending && !pending.multret { // lastlistfield
		ls.closeNext(pending)
	}
	fs.freereg = table + 1
	return expDesc{temp: true}
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
		ls.closeNext(e)
		e = ls.expr()
		n++
	}
	return n, e
}

// funcArgs parses a call's arguments; the function is in register base.
func (ls *lexState) funcArgs(base int) expDesc {
	line := ls.line
	switch ls.tok.t {
	case '(':
		if line != ls.lastline {
			ls.syntaxError("ambiguous syntax (function call x new statement)")
		}
		ls.advance()
		args := expDesc{void: true}
		if ls.tok.t != ')' {
			_, args = ls.explist1()
		}
		ls.checkMatch(')', '(', line)
		if !args.void && !args.multret {
			ls.closeNext(args)
		}
	case '{':
		ls.constructor()
	case tkString:
		ls.advance()
		ls.reserve(1)
	default:
		ls.syntaxError("function arguments expected")
	}
	ls.fs.freereg = base + 1
	return expDesc{k: expCall, temp: true, multret: true}
}

func (ls *lexState) prefixExp() expDesc {
	switch ls.tok.t {
	case '(':
		line := ls.line
		ls.advance()
		e := ls.expr()
		ls.checkMatch(')', '(', line)
		// luaK_dischargevars: one value, no longer assignable.
		return expDesc{temp: e.temp, concat: e.concat}
	case tkName:
		ls.singleVar()
		return expDesc{k: expVar}
	}
	ls.syntaxError("unexpected symbol")
	return expDesc{}
}

func (ls *lexState) primaryExp() expDesc {
	fs := ls.fs
	start := fs.freereg
	e := ls.prefixExp()
	for {
		switch ls.tok.t {
		case '.':
			ls.field()
			fs.freereg = start
			e = expDesc{k: expVar}
		case '[':
			ls.yindex()
			fs.freereg = start
			e = expDesc{k: expVar}
		case ':':
			ls.advance()
			ls.strCheckName()
			fs.freereg = start // luaK_self: the function and self
			ls.reserve(2)
			e = ls.funcArgs(start)
		case '(', tkString, '{':
			if !e.temp {
				fs.freereg = start
			}
			ls.closeNext(e)
			e = ls.funcArgs(start)
		default:
			return e
		}
	}
}

func (ls *lexState) simpleExp() expDesc {
	switch ls.tok.t {
	case tkNumber, tkString, tkNil, tkTrue, tkFalse:
	case tkDots:
		if !ls.fs.isVararg {
			ls.syntaxError("cannot use '...' outside a vararg function")
		}
		ls.advance()
		return expDesc{multret: true}
	case '{':
		return ls.constructor()
	case tkFunction:
		ls.advance()
		ls.body(false, ls.line)
		return expDesc{}
	default:
		return ls.primaryExp()
	}
	ls.advance()
	return expDesc{}
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

// subExpr parses operators of priority above limit. On return the free
// register is the one at the start, plus one when the value is a
// temporary.
func (ls *lexState) subExpr(limit int) expDesc {
	ls.enterLevel()
	fs := ls.fs
	start := fs.freereg
	var e expDesc
	if t := ls.tok.t; t == tkNot || t == '-' || t == '#' {
		ls.advance()
		ls.subExpr(unaryPriority)
		fs.freereg = start
		e = expDesc{}
	} else {
		e = ls.simpleExp()
	}
	for {
		op := ls.tok.t
		left, right, ok := binaryPriority(op)
		if !ok || left <= limit {
			break
		}
		ls.advance()
		switch op { // luaK_infix
		case tkAnd, tkOr:
			fs.freereg = start
		case tkConcat:
			ls.closeNext(e)
		}
		e2 := ls.subExpr(right)
		switch op { // luaK_posfix
		case tkAnd, tkOr:
			e = expDesc{temp: e2.temp}
			fs.freereg = start
			if e.temp {
				fs.freereg++
			}
		case tkConcat:
			if !e2.concat {
				ls.closeNext(e2)
			}
			fs.freereg = start
			e = expDesc{concat: true}
		default:
			fs.freereg = start
			e = expDesc{}
		}
	}
	ls.leaveLevel()
	return e
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

func (ls *lexState) assignment(k expKind, nvars int) {
	if k != expVar {
		ls.syntaxError("syntax error")
	}
	if ls.testNext(',') {
		nk := ls.primaryExp().k
		if nvars > luaMaxCCalls-ls.ccalls {
			ls.errorLimit(ls.fs, luaMaxCCalls-ls.ccalls, "variables in assignment")
		}
		ls.assignment(nk, nvars+1)
		return
	}
	ls.checkNextTok('=')
	if nexps, e := ls.explist1(); nexps != nvars {
		ls.adjustAssign(nvars, nexps, e)
	}
}

// cond parses a condition, whose registers are free once it is tested.
func (ls *lexState) cond() {
	ls.expr()
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
func (ls *lexState) exp1() { ls.closeNext(ls.expr()) }

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
	ls.adjustAssign(3, nexps, e)
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
	nexps, e := 0, expDesc{void: true}
	if ls.testNext('=') {
		nexps, e = ls.explist1()
	}
	ls.adjustAssign(nvars, nexps, e)
	ls.adjustLocalVars(nvars)
}

func (ls *lexState) funcName() bool {
	ls.singleVar()
	for ls.tok.t == '.' {
		ls.field()
	}
	if ls.tok.t == ':' {
		ls.field()
		return true
	}
	return false
}

func (ls *lexState) funcStat(line int) {
	ls.advance()
	needSelf := ls.funcName()
	ls.body(needSelf, line)
}

func (ls *lexState) exprStat() {
	if e := ls.primaryExp(); e.k != expCall {
		ls.assignment(e.k, 1)
	}
}

func (ls *lexState) retStat() {
	ls.advance()
	if blockFollow(ls.tok.t) || ls.tok.t == ';' {
		return
	}
	// One value may stay where it is (luaK_exp2anyreg); several go to
	// consecutive registers.
	if n, e := ls.explist1(); n > 1 && !e.multret {
		ls.closeNext(e)
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
