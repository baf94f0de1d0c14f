package luasvc

import (
	"math"
	"strconv"
	"strings"

	"github.com/lockredis/lockredis/engine"
	lua "github.com/yuin/gopher-lua"
)

// luaWriter is the engine.Writer that receives a redis.call reply and
// builds the Lua value Redis 7.0 gives the script. With RESP2 (the
// default): integer -> number, bulk -> string, nil bulk or nil array ->
// false, status -> {ok=...}, error -> {err=...}, array -> table, and the
// RESP3 kinds as a RESP2 client would see them (map -> flat array, set ->
// array, double -> string, boolean -> 1/0). After redis.setresp(3): null
// -> nil, boolean -> boolean, map -> {map={k=v}}, set -> {set={m=true}},
// double -> {double=n}, verbatim -> {verbatim_string={format=, string=}},
// big number -> {big_number=s} (a string with RESP2).
type luaWriter struct {
	L      *lua.LState
	resp   int
	stack  []open
	result lua.LValue
	isErr  bool // the reply itself (not an element of it) is an error
	done   bool
}

// open is an aggregate still receiving elements.
type open struct {
	t     *lua.LTable // array, or {map=...}/{set=...} wrapper
	inner *lua.LTable // the map or set table (RESP3)
	kind  engine.ReplyKind
	left  int // elements still expected
	next  int // next array index
	key   lua.LValue
}

var _ engine.Writer = (*luaWriter)(nil)

// boxedBits are 0 and 1 as Lua values, boxed once: a float in an
// interface is an allocation, and 0 and 1 are what the lock scripts'
// DEL, EXISTS and PEXPIRE answer. Never written.
var boxedBits = [2]lua.LValue{lua.LNumber(0), lua.LNumber(1)}

func (w *luaWriter) Int(n int64) {
	if n == 0 || n == 1 {
		w.add(boxedBits[n])
		return
	}
	w.add(lua.LNumber(n))
}

func (w *luaWriter) reset(L *lua.LState, resp int) {
	w.L = L
	w.resp = resp
	w.stack = w.stack[:0]
	w.result = lua.LNil
	w.isErr = false
	w.done = false
}

// drop forgets the last result (it may be large).
func (w *luaWriter) drop() {
	for i := range w.stack {
		w.stack[i] = open{}
	}
	w.stack = w.stack[:0]
	w.result = lua.LNil
}

func (w *luaWriter) add(v lua.LValue) {
	for {
		if len(w.stack) == 0 {
			w.result = v
			w.done = true
			return
		}
		top := &w.stack[len(w.stack)-1]
		switch {
		case top.inner == nil:
			top.t.RawSetInt(top.next, v)
			top.next++
		case top.kind == engine.KindMap:
			if top.key == nil {
				top.key = v
				top.left--
				return // its value comes next
			}
			if top.key != lua.LNil {
				top.inner.RawSet(top.key, v)
			}
			top.key = nil
		default: // set
			if v != lua.LNil {
				top.inner.RawSet(v, lua.LTrue)
			}
		}
		top.left--
		if top.left > 0 {
			return
		}
		v = top.t
		*top = open{}
		w.stack = w.stack[:len(w.stack)-1]
	}
}

func (w *luaWriter) openArray(kind engine.ReplyKind, n int) {
	if w.resp == 3 && (kind == engine.KindMap || kind == engine.KindSet) {
		wrapper := w.L.CreateTable(0, 1)
		inner := w.L.CreateTable(0, n)
		if kind == engine.KindMap {
			wrapper.RawSetString("map", inner)
		} else {
			wrapper.RawSetString("set", inner)
		}
		if n == 0 {
			w.add(wrapper)
			return
		}
		if kind == engine.KindMap {
			n *= 2
		}
		w.stack = append(w.stack, open{t: wrapper, inner: inner, kind: kind, left: n})
		return
	}
	if kind == engine.KindMap {
		n *= 2
	}
	t := w.L.CreateTable(n, 0)
	if n <= 0 {
		w.add(t)
		return
	}
	w.stack = append(w.stack, open{t: t, kind: kind, left: n, next: 1})
}

func (w *luaWriter) Status(s string) {
	t := w.L.CreateTable(0, 1)
	t.RawSetString("ok", lua.LString(s))
	w.add(t)
}

func (w *luaWriter) Error(msg string) {
	if len(w.stack) == 0 {
		w.isErr = true
	}
	w.add(errorTable(w.L, replyErrorText(msg), true))
}

func (w *luaWriter) Bulk(b []byte)        { w.add(lua.LString(string(b))) }
func (w *luaWriter) BulkString(s string)  { w.add(lua.LString(s)) }
func (w *luaWriter) Array(n int)          { w.openArray(engine.KindArray, n) }
func (w *luaWriter) Map(n int)            { w.openArray(engine.KindMap, n) }
func (w *luaWriter) Set(n int)            { w.openArray(engine.KindSet, n) }
func (w *luaWriter) Push(n int)           { w.openArray(engine.KindArray, n) }
func (w *luaWriter) Verbatim(f, s string) { w.verbatim(f, s) }

func (w *luaWriter) BigNumber(s string) {
	if w.resp != 3 {
		w.add(lua.LString(s))
		return
	}
	t := w.L.CreateTable(0, 1)
	t.RawSetString("big_number", lua.LString(s))
	w.add(t)
}

func (w *luaWriter) Null() {
	if w.resp == 3 {
		w.add(lua.LNil)
		return
	}
	w.add(lua.LFalse)
}

func (w *luaWriter) NullArray() { w.Null() }

func (w *luaWriter) Double(f float64) {
	if w.resp == 3 {
		t := w.L.CreateTable(0, 1)
		t.RawSetString("double", lua.LNumber(f))
		w.add(t)
		return
	}
	w.add(lua.LString(engine.FormatFloat(f)))
}

func (w *luaWriter) Bool(b bool) {
	if w.resp == 3 {
		w.add(lua.LBool(b))
		return
	}
	if b {
		w.add(lua.LNumber(1))
	} else {
		w.add(lua.LNumber(0))
	}
}

func (w *luaWriter) verbatim(format, s string) {
	if w.resp != 3 {
		w.add(lua.LString(s))
		return
	}
	inner := w.L.CreateTable(0, 2)
	inner.RawSetString("string", lua.LString(s))
	inner.RawSetString("format", lua.LString(format))
	t := w.L.CreateTable(0, 1)
	t.RawSetString("verbatim_string", inner)
	w.add(t)
}

// replyErrorText is the text Redis keeps for an error reply in Lua: the
// reply's own "CODE message", or "ERR " before a message without a code.
func replyErrorText(msg string) string {
	if len(msg) > 0 && msg[0] == '-' {
		msg = msg[1:]
	}
	for i := 0; i < len(msg); i++ {
		if msg[i] == ' ' {
			return trimCRLF(msg)
		}
	}
	return "ERR " + trimCRLF(msg)
}

// crlfToSpaces replaces every CR and LF byte with a space (Redis's
// sdsmapchars(s, "\r\n", "  ")), leaving other bytes, valid UTF-8 or not,
// as they are.
func crlfToSpaces(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	b := []byte(s)
	for i, c := range b {
		if c == '\r' || c == '\n' {
			b[i] = ' '
		}
	}
	return string(b)
}

func trimCRLF(s string) string {
	for len(s) > 0 && (s[len(s)-1] == '\r' || s[len(s)-1] == '\n') {
		s = s[:len(s)-1]
	}
	for len(s) > 0 && (s[0] == '\r' || s[0] == '\n') {
		s = s[1:]
	}
	return s
}

// errorTable is the {err=...} table redis.pcall returns and redis.call
// raises. stats marks errors already counted by the command (Redis adds
// ignore_error_stats_update).
func errorTable(L *lua.LState, text string, stats bool) *lua.LTable {
	t := L.CreateTable(0, 2)
	t.RawSetString("err", lua.LString(text))
	if stats {
		t.RawSetString("ignore_error_stats_update", lua.LTrue)
	}
	return t
}

// errReplyTooLarge replaces the tables of a return value past
// maxReplyTables.
const errReplyTooLarge = "ERR script reply has too many tables (a table that holds itself more than once?)"

// errorCounted reports whether an error table carries Redis's
// ignore_error_stats_update: the error of a redis.call, already counted.
func errorCounted(t *lua.LTable) bool {
	return t.RawGetString("ignore_error_stats_update") == lua.LTrue
}

// writeError replies with a script's error; one already counted in the
// error statistics (errorCounted) is not counted again.
func writeError(w engine.Writer, msg string, counted bool) {
	if ec, ok := w.(engine.ErrorCounter); ok && counted {
		ec.ErrorCounted(msg)
		return
	}
	w.Error(msg)
}

// writeReply converts a script's return value to a reply (Redis's
// luaReplyToRedisReply): number -> integer (truncated), string -> bulk,
// true -> 1, false and nil -> null, {err=} -> error, {ok=} -> status,
// {double=}, {map=}, {set=}, {big_number=}, {verbatim_string=} -> those
// kinds, any other table -> array of t[1..] up to the first nil.
func (v *vm) writeReply(w engine.Writer, val lua.LValue, depth int) {
	if depth == 0 {
		v.replyTables = 0
	}
	switch x := val.(type) {
	case lua.LString:
		w.BulkString(string(x))
	case lua.LBool:
		if v.resp == 3 {
			w.Bool(bool(x))
		} else if x {
			w.Int(1)
		} else {
			w.Null()
		}
	case lua.LNumber:
		w.Int(luaInt(float64(x)))
	case *lua.LTable:
		if depth >= maxReplyDepth {
			w.Error("ERR reached lua stack limit")
			return
		}
		// A table that holds itself twice (t[1]=t t[2]=t) would be
		// written 2^depth times: past maxReplyTables every further table
		// is written as an error, which ends the recursion. Redis has no
		// such bound and hangs.
		if v.replyTables++; v.replyTables > v.svc.replyTableLimit {
			w.Error(errReplyTooLarge)
			return
		}
		v.writeTable(w, x, depth)
	default:
		w.Null()
	}
}

func (v *vm) writeTable(w engine.Writer, t *lua.LTable, depth int) {
	if e, ok := t.RawGetString("err").(lua.LString); ok {
		// Redis sends "-" + the text: {err="-ERR x"} is "--ERR x" on the
		// wire. The writer drops one leading '-', so one is added here.
		msg := string(e)
		if strings.HasPrefix(msg, "-") {
			msg = "-" + msg
		}
		writeError(w, msg, errorCounted(t))
		return
	}
	if s, ok := t.RawGetString("ok").(lua.LString); ok {
		w.Status(string(s))
		return
	}
	if d, ok := t.RawGetString("double").(lua.LNumber); ok {
		w.Double(float64(d))
		return
	}
	if b, ok := t.RawGetString("big_number").(lua.LString); ok {
		// Redis maps CR and LF to spaces: a RESP3 big number is one line,
		// and RESP2 callers get the same text as a bulk string.
		w.BigNumber(crlfToSpaces(string(b)))
		return
	}
	if vs, ok := t.RawGetString("verbatim_string").(*lua.LTable); ok {
		f, okF := vs.RawGetString("format").(lua.LString)
		s, okS := vs.RawGetString("string").(lua.LString)
		if okF && okS {
			w.Verbatim(string(f), string(s))
			return
		}
	}
	if m, ok := t.RawGetString("map").(*lua.LTable); ok {
		n := 0
		m.ForEach(func(lua.LValue, lua.LValue) { n++ })
		w.Map(n)
		m.ForEach(func(k, val lua.LValue) {
			v.writeReply(w, k, depth+1)
			v.writeReply(w, val, depth+1)
		})
		return
	}
	if s, ok := t.RawGetString("set").(*lua.LTable); ok {
		n := 0
		s.ForEach(func(lua.LValue, lua.LValue) { n++ })
		w.Set(n)
		s.ForEach(func(k, _ lua.LValue) { v.writeReply(w, k, depth+1) })
		return
	}
	n := 0
	for t.RawGetInt(n+1) != lua.LNil {
		n++
	}
	w.Array(n)
	for i := 1; i <= n; i++ {
		v.writeReply(w, t.RawGetInt(i), depth+1)
	}
}

// luaInt converts a Lua number to an integer reply like C's (long long)
// cast on x86-64: truncation toward zero, and the "integer indefinite"
// value for NaN and out-of-range numbers.
func luaInt(f float64) int64 {
	if math.IsNaN(f) || f >= 9223372036854775807 || f < -9223372036854775808 {
		return math.MinInt64
	}
	return int64(f)
}

// appendArgNumber formats a Lua number passed to redis.call as Redis 7.0
// does ("%.17g"): 1724000000000, -300000, 0.10000000000000001, 1e+20.
func appendArgNumber(b []byte, f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return append(b, "inf"...)
	case math.IsInf(f, -1):
		return append(b, "-inf"...)
	case math.IsNaN(f):
		if math.Signbit(f) {
			return append(b, "-nan"...)
		}
		return append(b, "nan"...)
	case f == math.Trunc(f) && math.Abs(f) < 1e15:
		if f == 0 && math.Signbit(f) {
			return append(b, "-0"...)
		}
		return strconv.AppendInt(b, int64(f), 10)
	}
	return engine.AppendG17(b, f)
}

// appendLuaNumber formats a number as Lua 5.1 does (tostring, string
// functions): "%.14g" (0.3, 1e+15, 9.007199254741e+15, inf, -nan).
func appendLuaNumber(b []byte, f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return append(b, "inf"...)
	case math.IsInf(f, -1):
		return append(b, "-inf"...)
	case math.IsNaN(f):
		if math.Signbit(f) {
			return append(b, "-nan"...)
		}
		return append(b, "nan"...)
	case f == math.Trunc(f) && math.Abs(f) < 1e14:
		if f == 0 && math.Signbit(f) {
			return append(b, "-0"...)
		}
		return strconv.AppendInt(b, int64(f), 10)
	}
	return strconv.AppendFloat(b, f, 'g', 14, 64)
}

func luaNumberString(f float64) string {
	var buf [32]byte
	return string(appendLuaNumber(buf[:0], f))
}

// luaToString is Lua 5.1's tostring without metamethods.
func luaToString(v lua.LValue) string {
	switch x := v.(type) {
	case lua.LString:
		return string(x)
	case lua.LNumber:
		return luaNumberString(float64(x))
	case lua.LBool:
		if x {
			return "true"
		}
		return "false"
	case *lua.LNilType:
		return "nil"
	case *lua.LUserData:
		return "userdata: " + ptrString(x)
	}
	return v.String()
}

func ptrString(v lua.LValue) string {
	s := v.String()
	for i := 0; i < len(s); i++ {
		if s[i] == ' ' {
			return s[i+1:]
		}
	}
	return s
}
