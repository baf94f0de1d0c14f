package luasvc

import (
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"

	lua "github.com/yuin/gopher-lua"
)

// cjson is lua-cjson 2.1.0 as bundled with Redis: encode, decode,
// cjson.null, the configuration functions and new. Its settings live in
// the Lua state and are reset before every script (in Redis they persist
// from one script to the next). Objects are written in the table's
// iteration order, which is not Lua 5.1's.

type jsonConfig struct {
	encodeSparseConvert bool
	encodeSparseRatio   int
	encodeSparseSafe    int
	encodeMaxDepth      int
	decodeMaxDepth      int
	encodeInvalid       int // 0 off, 1 on, 2 null
	decodeInvalid       bool
	encodePrecision     int
	encodeKeepBuffer    bool
}

func (c *jsonConfig) reset() {
	*c = jsonConfig{
		encodeSparseRatio: 2,
		encodeSparseSafe:  10,
		encodeMaxDepth:    1000,
		decodeMaxDepth:    1000,
		decodeInvalid:     true,
		encodePrecision:   14,
		encodeKeepBuffer:  true,
	}
}

func (v *vm) cjsonLib() *lua.LTable {
	v.json.reset()
	return v.newCJSON(&v.json)
}

// newCJSON makes a cjson module using cfg (cjson.new gets its own).
func (v *vm) newCJSON(cfg *jsonConfig) *lua.LTable {
	L := v.L
	t := L.CreateTable(0, 16)
	setFuncs(L, t, map[string]lua.LGFunction{
		"encode": func(L *lua.LState) int { return v.jsonEncode(L, cfg) },
		"decode": func(L *lua.LState) int { return v.jsonDecode(L, cfg) },
		"encode_sparse_array": func(L *lua.LState) int {
			jsonArgs(L, "encode_sparse_array", 3)
			boolOption(L, 1, "encode_sparse_array", &cfg.encodeSparseConvert)
			intOption(L, 2, "encode_sparse_array", &cfg.encodeSparseRatio, 0, math.MaxInt32)
			intOption(L, 3, "encode_sparse_array", &cfg.encodeSparseSafe, 0, math.MaxInt32)
			return 3
		},
		"encode_max_depth": func(L *lua.LState) int {
			jsonArgs(L, "encode_max_depth", 1)
			return intOption(L, 1, "encode_max_depth", &cfg.encodeMaxDepth, 1, math.MaxInt32)
		},
		"decode_max_depth": func(L *lua.LState) int {
			jsonArgs(L, "decode_max_depth", 1)
			return intOption(L, 1, "decode_max_depth", &cfg.decodeMaxDepth, 1, math.MaxInt32)
		},
		"encode_number_precision": func(L *lua.LState) int {
			jsonArgs(L, "encode_number_precision", 1)
			return intOption(L, 1, "encode_number_precision", &cfg.encodePrecision, 1, 14)
		},
		"encode_keep_buffer": func(L *lua.LState) int {
			jsonArgs(L, "encode_keep_buffer", 1)
			return boolOption(L, 1, "encode_keep_buffer", &cfg.encodeKeepBuffer)
		},
		"encode_invalid_numbers": func(L *lua.LState) int {
			jsonArgs(L, "encode_invalid_numbers", 1)
			opts := []string{"off", "on", "null"}
			switch x := L.Get(1).(type) {
			case *lua.LNilType:
			case lua.LBool:
				cfg.encodeInvalid = 0
				if x {
					cfg.encodeInvalid = 1
				}
			default:
				cfg.encodeInvalid = checkOption(L, 1, "encode_invalid_numbers", "", opts)
			}
			if cfg.encodeInvalid <= 1 {
				L.Push(lua.LBool(cfg.encodeInvalid == 1))
			} else {
				L.Push(lua.LString(opts[cfg.encodeInvalid]))
			}
			return 1
		},
		"decode_invalid_numbers": func(L *lua.LState) int {
			jsonArgs(L, "decode_invalid_numbers", 1)
			return boolOption(L, 1, "decode_invalid_numbers", &cfg.decodeInvalid)
		},
		"new": func(L *lua.LState) int {
			c := &jsonConfig{}
			c.reset()
			L.Push(v.newCJSON(c))
			return 1
		},
	})
	t.RawSetString("null", v.null)
	t.RawSetString("_NAME", lua.LString("cjson"))
	t.RawSetString("_VERSION", lua.LString("2.1.0"))
	return t
}

// jsonArgs is json_arg_init: at most n arguments, padded with nils.
func jsonArgs(L *lua.LState, fname string, n int) {
	if L.GetTop() > n {
		argError(L, n+1, fname, "found too many arguments")
	}
	for L.GetTop() < n {
		L.Push(lua.LNil)
	}
}

func intOption(L *lua.LState, n int, fname string, setting *int, min, max int) int {
	if L.Get(n) != lua.LNil {
		val := checkInt(L, n, fname)
		if val < min || val > max {
			argError(L, 1, fname, fmt.Sprintf("expected integer between %d and %d", min, max))
		}
		*setting = val
	}
	L.Push(lua.LNumber(*setting))
	return 1
}

func boolOption(L *lua.LState, n int, fname string, setting *bool) int {
	switch x := L.Get(n).(type) {
	case *lua.LNilType:
	case lua.LBool:
		*setting = bool(x)
	default:
		*setting = checkOption(L, n, fname, "", []string{"off", "on"}) == 1
	}
	L.Push(lua.LBool(*setting))
	return 1
}

// Encoding.

type jsonEncoder struct {
	v   *vm
	L   *lua.LState
	cfg *jsonConfig
	b   []byte
}

func (v *vm) jsonEncode(L *lua.LState, cfg *jsonConfig) int {
	if L.GetTop() != 1 {
		argError(L, 1, "encode", "expected 1 argument")
	}
	e := jsonEncoder{v: v, L: L, cfg: cfg}
	e.value(L.Get(1), 0)
	L.Push(lua.LString(string(e.b)))
	return 1
}

func (e *jsonEncoder) fail(val lua.LValue, reason string) {
	raise(e.L, "Cannot serialise %s: %s", val.Type().String(), reason)
}

func (e *jsonEncoder) grow() {
	if len(e.b) > maxStringBytes {
		raise(e.L, "resulting string too large")
	}
}

func (e *jsonEncoder) value(val lua.LValue, depth int) {
	switch x := val.(type) {
	case lua.LString:
		e.str(string(x))
	case lua.LNumber:
		e.number(x)
	case lua.LBool:
		if x {
			e.b = append(e.b, "true"...)
		} else {
			e.b = append(e.b, "false"...)
		}
	case *lua.LNilType:
		e.b = append(e.b, "null"...)
	case *lua.LTable:
		depth++
		if depth > e.cfg.encodeMaxDepth {
			raise(e.L, "Cannot serialise, excessive nesting (%d)", depth)
		}
		if n := e.arrayLength(x); n > 0 {
			e.b = append(e.b, '[')
			for i := 1; i <= n; i++ {
				if i > 1 {
					e.b = append(e.b, ',')
				}
				e.value(x.RawGetInt(i), depth)
			}
			e.b = append(e.b, ']')
		} else {
			e.object(x, depth)
		}
	default:
		if val == e.v.null {
			e.b = append(e.b, "null"...)
			return
		}
		e.fail(val, "type not supported")
	}
	e.grow()
}

// arrayLength is lua_array_length: the largest index when every key is
// a positive integer, -1 for objects; excessively sparse arrays fail.
func (e *jsonEncoder) arrayLength(t *lua.LTable) int {
	max, items := 0.0, 0
	isArray := true
	t.ForEach(func(k, _ lua.LValue) {
		if !isArray {
			return
		}
		if n, ok := k.(lua.LNumber); ok && float64(n) >= 1 && math.Floor(float64(n)) == float64(n) {
			if float64(n) > max {
				max = float64(n)
			}
			items++
			return
		}
		isArray = false
	})
	if !isArray {
		return -1
	}
	c := e.cfg
	if c.encodeSparseRatio > 0 && max > float64(items*c.encodeSparseRatio) && max > float64(c.encodeSparseSafe) {
		if !c.encodeSparseConvert {
			e.fail(t, "excessively sparse array")
		}
		return -1
	}
	return int(max)
}

func (e *jsonEncoder) object(t *lua.LTable, depth int) {
	e.b = append(e.b, '{')
	first := true
	k, val := t.Next(lua.LNil)
	for k != lua.LNil {
		if !first {
			e.b = append(e.b, ',')
		}
		first = false
		switch x := k.(type) {
		case lua.LNumber:
			e.b = append(e.b, '"')
			e.number(x)
			e.b = append(e.b, '"', ':')
		case lua.LString:
			e.str(string(x))
			e.b = append(e.b, ':')
		default:
			e.fail(k, "table key must be a number or string")
		}
		e.value(val, depth)
		k, val = t.Next(k)
	}
	e.b = append(e.b, '}')
}

func (e *jsonEncoder) number(n lua.LNumber) {
	f := float64(n)
	if math.IsInf(f, 0) || math.IsNaN(f) {
		switch e.cfg.encodeInvalid {
		case 0:
			e.fail(n, "must not be NaN or Inf")
		case 1:
			if math.IsNaN(f) {
				e.b = append(e.b, "nan"...)
				return
			}
		default:
			e.b = append(e.b, "null"...)
			return
		}
	}
	if e.cfg.encodePrecision == 14 {
		e.b = appendLuaNumber(e.b, f)
		return
	}
	if math.IsInf(f, 0) {
		e.b = appendLuaNumber(e.b, f)
		return
	}
	e.b = strconv.AppendFloat(e.b, f, 'g', e.cfg.encodePrecision, 64)
}

// str writes a JSON string with cjson's escapes (also "/" and DEL).
func (e *jsonEncoder) str(s string) {
	const hex = "0123456789abcdef"
	e.b = append(e.b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			e.b = append(e.b, '\\', '"')
		case '\\':
			e.b = append(e.b, '\\', '\\')
		case '/':
			e.b = append(e.b, '\\', '/')
		case '\b':
			e.b = append(e.b, '\\', 'b')
		case '\f':
			e.b = append(e.b, '\\', 'f')
		case '\n':
			e.b = append(e.b, '\\', 'n')
		case '\r':
			e.b = append(e.b, '\\', 'r')
		case '\t':
			e.b = append(e.b, '\\', 't')
		default:
			if c < 32 || c == 127 {
				e.b = append(e.b, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
			} else {
				e.b = append(e.b, c)
			}
		}
	}
	e.b = append(e.b, '"')
}

// Decoding.

type jsonToken int

const (
	tObjBegin jsonToken = iota
	tObjEnd
	tArrBegin
	tArrEnd
	tString
	tNumber
	tBoolean
	tNull
	tColon
	tComma
	tEnd
	tWhitespace
	tError
	tUnknown
)

var jsonTokenNames = [...]string{
	"T_OBJ_BEGIN", "T_OBJ_END", "T_ARR_BEGIN", "T_ARR_END", "T_STRING", "T_NUMBER",
	"T_BOOLEAN", "T_NULL", "T_COLON", "T_COMMA", "T_END", "T_WHITESPACE", "T_ERROR", "T_UNKNOWN",
}

type token struct {
	typ   jsonToken
	index int
	str   string
	num   float64
	b     bool
	err   string
}

type jsonDecoder struct {
	v     *vm
	L     *lua.LState
	cfg   *jsonConfig
	data  string
	pos   int
	depth int
}

func (v *vm) jsonDecode(L *lua.LState, cfg *jsonConfig) int {
	if L.GetTop() != 1 {
		argError(L, 1, "decode", "expected 1 argument")
	}
	data := checkString(L, 1, "decode")
	if len(data) >= 2 && (data[0] == 0 || data[1] == 0) {
		raise(L, "JSON parser does not support UTF-16 or UTF-32")
	}
	d := jsonDecoder{v: v, L: L, cfg: cfg, data: data}
	tok := d.next()
	val := d.value(tok)
	if tok = d.next(); tok.typ != tEnd {
		d.fail("the end", tok)
	}
	L.Push(val)
	return 1
}

func (d *jsonDecoder) fail(expected string, tok token) {
	found := jsonTokenNames[tok.typ]
	if tok.typ == tError {
		found = tok.err
	}
	raise(d.L, "Expected %s but found %s at character %d", expected, found, tok.index+1)
}

func (d *jsonDecoder) at(i int) byte {
	if i < len(d.data) {
		return d.data[i]
	}
	return 0
}

func (d *jsonDecoder) next() token {
	for {
		c := d.at(d.pos)
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			break
		}
		d.pos++
	}
	tok := token{index: d.pos}
	c := d.at(d.pos)
	single := tUnknown
	switch c {
	case '{':
		single = tObjBegin
	case '}':
		single = tObjEnd
	case '[':
		single = tArrBegin
	case ']':
		single = tArrEnd
	case ':':
		single = tColon
	case ',':
		single = tComma
	}
	if single != tUnknown {
		tok.typ = single
		d.pos++
		return tok
	}
	rest := d.data[d.pos:]
	switch {
	case c == 0:
		tok.typ = tEnd
	case c == '"':
		d.string(&tok)
	case c == '-' || isDigit(c):
		if !d.cfg.decodeInvalid && d.invalidNumber() {
			return d.errorToken(tok, "invalid number")
		}
		d.number(&tok)
	case c == '+' || c == 'i' || c == 'I' || c == 'n' || c == 'N' || c == 't' || c == 'f':
		switch {
		case hasPrefix(rest, "true"):
			tok.typ, tok.b = tBoolean, true
			d.pos += 4
		case hasPrefix(rest, "false"):
			tok.typ, tok.b = tBoolean, false
			d.pos += 5
		case hasPrefix(rest, "null"):
			tok.typ = tNull
			d.pos += 4
		case d.cfg.decodeInvalid && d.invalidNumber():
			d.number(&tok)
		default:
			return d.errorToken(tok, "invalid token")
		}
	default:
		return d.errorToken(tok, "invalid token")
	}
	return tok
}

func hasPrefix(s, p string) bool { return len(s) >= len(p) && s[:len(p)] == p }

func (d *jsonDecoder) errorToken(tok token, msg string) token {
	tok.typ = tError
	tok.index = d.pos
	tok.err = msg
	return tok
}

// invalidNumber is json_is_invalid_number: numbers JSON does not allow
// (leading '+' or zeros, hex, inf, nan).
func (d *jsonDecoder) invalidNumber() bool {
	p := d.pos
	switch d.at(p) {
	case '+':
		return true
	case '-':
		p++
	}
	c := d.at(p)
	if c == '0' {
		c2 := d.at(p + 1)
		return c2|0x20 == 'x' || isDigit(c2)
	}
	if c <= '9' {
		return false
	}
	rest := d.data[p:]
	return hasPrefixFold(rest, "inf") || hasPrefixFold(rest, "nan")
}

func (d *jsonDecoder) number(tok *token) {
	f, n := strtod(cString(d.data[d.pos:]))
	if n == 0 {
		*tok = d.errorToken(*tok, "invalid number")
		return
	}
	tok.typ = tNumber
	tok.num = f
	d.pos += n
}

func jsonEscape(c byte) byte {
	switch c {
	case '"', '\\', '/', 'u':
		return c
	case 'b':
		return '\b'
	case 't':
		return '\t'
	case 'n':
		return '\n'
	case 'f':
		return '\f'
	case 'r':
		return '\r'
	}
	return 0
}

func (d *jsonDecoder) string(tok *token) {
	d.pos++ // the opening quote
	var b []byte
	for {
		c := d.at(d.pos)
		if c == '"' {
			break
		}
		if c == 0 {
			*tok = d.errorToken(*tok, "unexpected end of string")
			return
		}
		if c == '\\' {
			e := jsonEscape(d.at(d.pos + 1))
			if e == 'u' {
				var ok bool
				if b, ok = d.unicode(b); !ok {
					*tok = d.errorToken(*tok, "invalid unicode escape code")
					return
				}
				continue
			}
			if e == 0 {
				*tok = d.errorToken(*tok, "invalid escape code")
				return
			}
			c = e
			d.pos++
		}
		b = append(b, c)
		d.pos++
	}
	d.pos++
	tok.typ = tString
	tok.str = string(b)
}

func (d *jsonDecoder) hex4(i int) int {
	if i+4 > len(d.data) {
		return -1
	}
	n, err := strconv.ParseUint(d.data[i:i+4], 16, 32)
	if err != nil {
		return -1
	}
	return int(n)
}

// unicode decodes \uXXXX (and a surrogate pair) at d.pos into UTF-8.
func (d *jsonDecoder) unicode(b []byte) ([]byte, bool) {
	cp := d.hex4(d.pos + 2)
	if cp < 0 {
		return b, false
	}
	n := 6
	if cp&0xF800 == 0xD800 {
		if cp&0x400 != 0 || d.at(d.pos+6) != '\\' || d.at(d.pos+7) != 'u' {
			return b, false
		}
		low := d.hex4(d.pos + 8)
		if low < 0 || low&0xFC00 != 0xDC00 {
			return b, false
		}
		cp = ((cp&0x3FF)<<10 | low&0x3FF) + 0x10000
		n = 12
	}
	b = utf8.AppendRune(b, rune(cp))
	d.pos += n
	return b, true
}

func (d *jsonDecoder) descend() {
	d.depth++
	if d.depth > d.cfg.decodeMaxDepth {
		raise(d.L, "Found too many nested data structures (%d) at character %d", d.depth, d.pos)
	}
}

func (d *jsonDecoder) value(tok token) lua.LValue {
	switch tok.typ {
	case tString:
		return lua.LString(tok.str)
	case tNumber:
		return lua.LNumber(tok.num)
	case tBoolean:
		return lua.LBool(tok.b)
	case tNull:
		return d.v.null
	case tObjBegin:
		d.descend()
		t := d.L.NewTable()
		tok = d.next()
		if tok.typ == tObjEnd {
			d.depth--
			return t
		}
		for {
			if tok.typ != tString {
				d.fail("object key string", tok)
			}
			key := lua.LString(tok.str)
			if tok = d.next(); tok.typ != tColon {
				d.fail("colon", tok)
			}
			t.RawSetString(string(key), d.value(d.next()))
			tok = d.next()
			if tok.typ == tObjEnd {
				d.depth--
				return t
			}
			if tok.typ != tComma {
				d.fail("comma or object end", tok)
			}
			tok = d.next()
		}
	case tArrBegin:
		d.descend()
		t := d.L.NewTable()
		tok = d.next()
		if tok.typ == tArrEnd {
			d.depth--
			return t
		}
		for i := 1; ; i++ {
			t.RawSetInt(i, d.value(tok))
			tok = d.next()
			if tok.typ == tArrEnd {
				d.depth--
				return t
			}
			if tok.typ != tComma {
				d.fail("comma or array end", tok)
			}
			tok = d.next()
		}
	}
	d.fail("value", tok)
	return lua.LNil
}
