package luasvc

import (
	"encoding/binary"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// The string library of Lua 5.1 (lstrlib.c), with two bounds Redis does
// not have: results are capped at maxStringBytes ("resulting string too
// large"), and pattern matching stops with the script (see pattern.go).
// gsub builds its result in one pass. string.dump gives a Lua 5.1 header
// that nothing can load (strDump).

func (v *vm) stringLib() *lua.LTable {
	L := v.L
	t := L.CreateTable(0, 16)
	gmatch := L.NewFunction(v.strGmatch)
	setFuncs(L, t, map[string]lua.LGFunction{
		"byte":    strByte,
		"char":    strChar,
		"dump":    strDump,
		"find":    func(L *lua.LState) int { return v.strFind(L, true) },
		"format":  strFormat,
		"gsub":    v.strGsub,
		"len":     strLen,
		"lower":   strLower,
		"match":   func(L *lua.LState) int { return v.strFind(L, false) },
		"rep":     strRep,
		"reverse": strReverse,
		"sub":     strSub,
		"upper":   strUpper,
	})
	t.RawSetString("gmatch", gmatch)
	t.RawSetString("gfind", gmatch)
	return t
}

// posRelat turns a negative string position into a positive one.
func posRelat(pos, n int) int {
	if pos < 0 {
		pos += n + 1
	}
	if pos < 0 {
		return 0
	}
	return pos
}

func strLen(L *lua.LState) int {
	L.Push(lua.LNumber(len(checkString(L, 1, "len"))))
	return 1
}

func strSub(L *lua.LState) int {
	s := checkString(L, 1, "sub")
	l := len(s)
	start := posRelat(checkInt(L, 2, "sub"), l)
	end := posRelat(optInt(L, 3, "sub", -1), l)
	if start < 1 {
		start = 1
	}
	if end > l {
		end = l
	}
	if start <= end {
		L.Push(lua.LString(s[start-1 : end]))
	} else {
		L.Push(lua.LString(""))
	}
	return 1
}

func strReverse(L *lua.LState) int {
	s := checkString(L, 1, "reverse")
	b := make([]byte, len(s))
	for i := range s {
		b[len(s)-1-i] = s[i]
	}
	L.Push(lua.LString(string(b)))
	return 1
}

func strLower(L *lua.LState) int {
	s := checkString(L, 1, "lower")
	b := []byte(s)
	for i, c := range b {
		b[i] = toLower(c)
	}
	L.Push(lua.LString(string(b)))
	return 1
}

func strUpper(L *lua.LState) int {
	s := checkString(L, 1, "upper")
	b := []byte(s)
	for i, c := range b {
		b[i] = toUpper(c)
	}
	L.Push(lua.LString(string(b)))
	return 1
}

func strRep(L *lua.LState) int {
	s := checkString(L, 1, "rep")
	n := checkInt(L, 2, "rep")
	if n <= 0 || len(s) == 0 {
		L.Push(lua.LString(""))
		return 1
	}
	if n > maxStringBytes/len(s) {
		raise(L, "resulting string too large")
	}
	L.Push(lua.LString(strings.Repeat(s, n)))
	return 1
}

func strByte(L *lua.LState) int {
	s := checkString(L, 1, "byte")
	l := len(s)
	posi := posRelat(optInt(L, 2, "byte", 1), l)
	pose := posRelat(optInt(L, 3, "byte", posi), l)
	if posi <= 0 {
		posi = 1
	}
	if pose > l {
		pose = l
	}
	if posi > pose {
		return 0
	}
	n := pose - posi + 1
	if n >= maxUnpack {
		raise(L, "stack overflow (string slice too long)")
	}
	for i := 0; i < n; i++ {
		L.Push(lua.LNumber(s[posi+i-1]))
	}
	return n
}

func strChar(L *lua.LState) int {
	n := L.GetTop()
	b := make([]byte, n)
	for i := 1; i <= n; i++ {
		c := checkInt(L, i, "char")
		if c < 0 || c > 255 {
			argError(L, i, "char", "invalid value")
		}
		b[i-1] = byte(c)
	}
	L.Push(lua.LString(string(b)))
	return 1
}

// lua51Header starts every Lua 5.1 binary chunk: the signature, version
// 5.1, the official format, little endian, and the sizes of int (4),
// size_t (8), Instruction (4) and lua_Number (8), numbers not integral.
const lua51Header = "\x1bLuaQ\x00\x01\x04\x08\x04\x08\x00"

// strDump is string.dump. Redis's Lua dumps a function as Lua 5.1
// bytecode, which no script can load again (loadstring refuses binary
// chunks: "unexpected symbol near 'char(27)'"); scripts use it to check
// that. gopher-lua's bytecode is not Lua 5.1's, so the dump is Lua 5.1's
// header and the function's source name, as a Lua 5.1 dump starts; the
// rest of Redis's bytes cannot be reproduced.
func strDump(L *lua.LState) int {
	fn, ok := L.Get(1).(*lua.LFunction)
	if !ok {
		typeError(L, 1, "dump", "function")
	}
	if fn.IsG {
		raise(L, "unable to dump given function")
	}
	src := fn.Proto.SourceName
	if !strings.HasPrefix(src, "=") && !strings.HasPrefix(src, "@") {
		src = "@" + src
	}
	b := []byte(lua51Header)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(src)+1))
	b = append(b, src...)
	b = append(b, 0)
	b = binary.LittleEndian.AppendUint32(b, uint32(fn.Proto.LineDefined))
	b = binary.LittleEndian.AppendUint32(b, uint32(fn.Proto.LastLineDefined))
	b = append(b, fn.Proto.NumUpvalues, fn.Proto.NumParameters, fn.Proto.IsVarArg&^lua.VarArgNeedsArg, fn.Proto.NumUsedRegisters)
	L.Push(lua.LString(b))
	return 1
}

// strFind is string.find (find set) and string.match.
func (v *vm) strFind(L *lua.LState, find bool) int {
	fname := "match"
	if find {
		fname = "find"
	}
	s := checkString(L, 1, fname)
	p := checkString(L, 2, fname)
	init := posRelat(optInt(L, 3, fname, 1), len(s)) - 1
	if init < 0 {
		init = 0
	} else if init > len(s) {
		init = len(s)
	}
	cp := cString(p)
	if find && (lua.LVAsBool(L.Get(4)) || !strings.ContainsAny(cp, specials)) {
		// A plain search.
		if i := strings.Index(s[init:], p); i >= 0 {
			L.Push(lua.LNumber(init + i + 1))
			L.Push(lua.LNumber(init + i + len(p)))
			return 2
		}
		L.Push(lua.LNil)
		return 1
	}
	ms := matchState{L: L, intr: v.intr, src: s, pat: cp}
	anchor := strings.HasPrefix(cp, "^")
	if anchor {
		ms.pat = cp[1:]
	}
	for s1 := init; ; s1++ {
		ms.level = 0
		if e := ms.match(s1, 0); e >= 0 {
			if find {
				L.Push(lua.LNumber(s1 + 1))
				L.Push(lua.LNumber(e))
				return ms.pushCaptures(0, 0, false) + 2
			}
			return ms.pushCaptures(s1, e, true)
		}
		if s1 >= len(s) || anchor {
			break
		}
	}
	L.Push(lua.LNil)
	return 1
}

func (v *vm) strGmatch(L *lua.LState) int {
	s := checkString(L, 1, "gmatch")
	p := cString(checkString(L, 2, "gmatch"))
	pos := 0
	L.Push(L.NewFunction(func(L *lua.LState) int {
		ms := matchState{L: L, intr: v.intr, src: s, pat: p}
		for src := pos; src <= len(s); src++ {
			ms.level = 0
			if e := ms.match(src, 0); e >= 0 {
				pos = e
				if e == src {
					pos++ // an empty match: move on at least one byte
				}
				return ms.pushCaptures(src, e, true)
			}
		}
		pos = len(s) + 1
		return 0
	}))
	return 1
}

func (v *vm) strGsub(L *lua.LState) int {
	src := checkString(L, 1, "gsub")
	p := cString(checkString(L, 2, "gsub"))
	repl := L.Get(3)
	maxN := optInt(L, 4, "gsub", len(src)+1)
	switch repl.(type) {
	case lua.LNumber, lua.LString, *lua.LFunction, *lua.LTable:
	default:
		argError(L, 3, "gsub", "string/function/table expected")
	}
	var replStr string
	if _, ok := repl.(*lua.LTable); !ok {
		if _, ok := repl.(*lua.LFunction); !ok {
			replStr = luaToString(repl)
		}
	}
	anchor := strings.HasPrefix(p, "^")
	if anchor {
		p = p[1:]
	}
	ms := matchState{L: L, intr: v.intr, src: src, pat: p}
	var b []byte
	grow := func(extra int) {
		if len(b)+extra > maxStringBytes {
			raise(L, "resulting string too large")
		}
	}
	s, n := 0, 0
loop:
	for n < maxN {
		ms.level = 0
		e := ms.match(s, 0)
		if e >= 0 {
			n++
			b = v.gsubValue(&ms, b, repl, replStr, s, e, grow)
		}
		switch {
		case e >= 0 && e > s:
			s = e
		case s < len(src):
			grow(1)
			b = append(b, src[s])
			s++
		default:
			break loop
		}
		if anchor {
			break
		}
	}
	grow(len(src) - s)
	b = append(b, src[s:]...)
	L.Push(lua.LString(string(b)))
	L.Push(lua.LNumber(n))
	return 2
}

// gsubValue appends the replacement of the match src[s:e].
func (v *vm) gsubValue(ms *matchState, b []byte, repl lua.LValue, replStr string, s, e int, grow func(int)) []byte {
	L := ms.L
	var val lua.LValue
	switch r := repl.(type) {
	case *lua.LFunction:
		L.Push(r)
		n := ms.pushCaptures(s, e, true)
		v.callLua(L, n, 1)
		val = L.Get(-1)
		L.Pop(1)
	case *lua.LTable:
		val = L.GetTable(r, ms.captureValue(0, s, e))
	default:
		for i := 0; i < len(replStr); i++ {
			c := replStr[i]
			if c != lEsc {
				grow(1)
				b = append(b, c)
				continue
			}
			i++
			var d byte // a lone '%' at the end adds the C string's NUL
			if i < len(replStr) {
				d = replStr[i]
			}
			switch {
			case !isDigit(d):
				grow(1)
				b = append(b, d)
			case d == '0':
				grow(e - s)
				b = append(b, ms.src[s:e]...)
			default:
				capv := luaToString(ms.captureValue(int(d-'1'), s, e))
				grow(len(capv))
				b = append(b, capv...)
			}
		}
		return b
	}
	if !lua.LVAsBool(val) {
		grow(e - s)
		return append(b, ms.src[s:e]...)
	}
	switch val.(type) {
	case lua.LString, lua.LNumber:
	default:
		raise(L, "invalid replacement value (a %s)", val.Type().String())
	}
	str := luaToString(val)
	grow(len(str))
	return append(b, str...)
}
