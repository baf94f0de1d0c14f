package luasvc

import (
	"reflect"
	"strings"
	"unsafe"

	lua "github.com/yuin/gopher-lua"
)

// Lua 5.1 names the variable in a type error ("attempt to index local 't'
// (a nil value)", "attempt to call global 'foo' (a nil value)"): it finds
// which instruction last loaded the register (getobjname). gopher-lua
// raises these errors without the name, and without the type for calls,
// so errHandler, which runs before the stack unwinds, rebuilds the message
// from the instruction that failed. gopher-lua keeps the frame's program
// counter and registers unexported; they are read with reflect.

// namedError is the error value obj with Lua 5.1's words for a type
// error raised by the Lua function at the top of L's stack ("attempt to
// index local 'x' (a nil value)"). It runs in an error handler, called
// where the error was raised, before the stack unwinds: the top-level
// handler, and pcall's and xpcall's, so that a script that catches the
// error reads the same message as a caller that does not.
func namedError(L *lua.LState, obj lua.LValue) lua.LValue {
	msg, ok := obj.(lua.LString)
	if !ok {
		return obj
	}
	if dbg, ok := L.GetStack(1); ok {
		if f, ok := frameOf(L, dbg); ok {
			if text := f.typeErrorText(string(msg)); text != "" {
				pos, _ := splitPosition(string(msg))
				return lua.LString(pos + text)
			}
		}
	}
	return obj
}

// closeUpvalues closes the upvalues the unwinding frames left open, as
// gopher-lua does when an error is raised under a pcall without a
// handler (raiseError); with a handler it leaves them open for it. So
// that pcall and xpcall, which now pass a handler (for the names), unwind
// exactly as before, the handler raises one more error, caught at once,
// with the flag that suppresses the closing cleared. closer is a
// function that raises.
func closeUpvalues(L *lua.LState, closer *lua.LFunction) {
	flag := readable(reflect.ValueOf(L).Elem().FieldByName("hasErrorFunc"))
	saved := flag.Bool()
	flag.SetBool(false)
	L.Push(closer)
	_ = L.PCall(0, 0, nil)
	flag.SetBool(saved)
}

// calledAs is getfuncname for the running Go function: how the Lua code
// that called it names it (kind "global", "local", "method", "field",
// "upvalue"), or name "?" when its caller is not Lua code or the call
// names nothing. known is false when the frames cannot be read.
func calledAs(L *lua.LState) (kind, name string, known bool) {
	self, ok := L.GetStack(0)
	if !ok {
		return "", "", false
	}
	if _, err := L.GetInfo("S", self, lua.LNil); err != nil || self.What != "G" {
		return "", "", false
	}
	dbg, ok := L.GetStack(1)
	if !ok {
		return "", "?", true
	}
	f, ok := frameOf(L, dbg)
	if !ok {
		return "", "?", true // a Go caller (pcall, sort...)
	}
	switch i := f.proto.Code[f.pc]; opCode(i) {
	case lua.OP_CALL, lua.OP_TAILCALL, lua.OP_TFORLOOP:
		if kind, name := f.objName(argA(i), f.pc); kind != "" {
			return kind, name, true
		}
	}
	return "", "?", true
}

// Instruction fields, as gopher-lua encodes them (opcode.go).
func opCode(i uint32) int { return int(i >> 26) }
func argA(i uint32) int   { return int(i>>18) & 0xff }
func argB(i uint32) int   { return int(i & 0x1ff) }
func argC(i uint32) int   { return int(i>>9) & 0x1ff }
func argBx(i uint32) int  { return int(i & 0x3ffff) }

const rkBit = 1 << 8 // an RK operand above it is a constant

// readable makes an unexported field's value usable.
func readable(v reflect.Value) reflect.Value {
	return reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
}

// failedFrame is the Lua function running when the error was raised, the
// index of the failing instruction, and its registers.
type failedFrame struct {
	proto *lua.FunctionProto
	pc    int
	reg   func(int) lua.LValue
}

func frameOf(L *lua.LState, dbg *lua.Debug) (failedFrame, bool) {
	fv := reflect.ValueOf(dbg).Elem().FieldByName("frame")
	if !fv.IsValid() || fv.IsNil() {
		return failedFrame{}, false
	}
	frame := readable(fv).Elem()
	fn, _ := readable(frame.FieldByName("Fn")).Interface().(*lua.LFunction)
	if fn == nil || fn.IsG || fn.Proto == nil {
		return failedFrame{}, false
	}
	pc := int(frame.FieldByName("Pc").Int()) - 1
	base := int(frame.FieldByName("LocalBase").Int())
	if pc < 0 || pc >= len(fn.Proto.Code) {
		return failedFrame{}, false
	}
	regs := readable(reflect.ValueOf(L).Elem().FieldByName("reg")).Elem().FieldByName("array")
	regs = readable(regs)
	return failedFrame{proto: fn.Proto, pc: pc, reg: func(r int) lua.LValue {
		if base+r < 0 || base+r >= regs.Len() {
			return lua.LNil
		}
		v, _ := regs.Index(base + r).Interface().(lua.LValue)
		if v == nil {
			return lua.LNil
		}
		return v
	}}, true
}

// typeErrorText is Lua 5.1's message for the error raised at the frame's
// instruction, or "" when the instruction is not one it can name.
func (f failedFrame) typeErrorText(gopherMsg string) string {
	i := f.proto.Code[f.pc]
	describe := func(op string, r int) string {
		t := f.reg(r).Type().String()
		if kind, name := f.objName(r, f.pc); kind != "" {
			return "attempt to " + op + " " + kind + " '" + name + "' (a " + t + " value)"
		}
		return "attempt to " + op + " a " + t + " value"
	}
	_, body := splitPosition(gopherMsg)
	switch op := opCode(i); {
	case (op == lua.OP_GETTABLE || op == lua.OP_GETTABLEKS || op == lua.OP_SELF) &&
		strings.HasPrefix(body, "attempt to index a non-table object("):
		return describe("index", argB(i))
	case (op == lua.OP_SETTABLE || op == lua.OP_SETTABLEKS) &&
		strings.HasPrefix(body, "attempt to index a non-table object("):
		return describe("index", argA(i))
	case (op == lua.OP_CALL || op == lua.OP_TAILCALL) && body == "attempt to call a non-function object":
		return describe("call", argA(i))
	case op == lua.OP_LEN && body == "__len undefined":
		return describe("get length of", argB(i))
	case op >= lua.OP_ADD && op <= lua.OP_POW && strings.HasPrefix(body, "cannot perform "):
		// luaG_aritherror: the first operand unless it is a number.
		b, c := argB(i), argC(i)
		rk := b
		if _, ok := toNumber(f.rk(b)); ok {
			rk = c
		}
		if rk&rkBit != 0 {
			return "attempt to perform arithmetic on a " + f.rk(rk).Type().String() + " value"
		}
		return describe("perform arithmetic on", rk)
	case op == lua.OP_UNM && body == "__unm undefined":
		return describe("perform arithmetic on", argB(i))
	case op == lua.OP_CONCAT && strings.HasPrefix(body, "cannot perform concat operation between "):
		// luaV_concat works from the right and reports the left operand
		// of the failing pair unless it is a string or a number.
		b, c := argB(i), argC(i)
		k := c
		for k >= b && isStringish(f.reg(k)) {
			k--
		}
		if k < b {
			return ""
		}
		if k == c && k > b && !isStringish(f.reg(k-1)) {
			k--
		}
		return describe("concatenate", k)
	}
	return ""
}

// rk is an RK operand's value: a constant or a register.
func (f failedFrame) rk(x int) lua.LValue {
	if x&rkBit != 0 {
		return f.constant(x &^ rkBit)
	}
	return f.reg(x)
}

func isStringish(v lua.LValue) bool {
	t := v.Type()
	return t == lua.LTString || t == lua.LTNumber
}

// objName is getobjname: how Lua 5.1 names register r at instruction pc.
func (f failedFrame) objName(r, pc int) (kind, name string) {
	if n := f.localName(r, pc); n != "" {
		return "local", n
	}
	setter := -1
	for p := 0; p < pc; p++ {
		if f.writes(f.proto.Code[p], r) {
			setter = p
		}
	}
	if setter < 0 {
		return "", ""
	}
	i := f.proto.Code[setter]
	switch opCode(i) {
	case lua.OP_GETGLOBAL:
		if s, ok := f.constant(argBx(i)).(lua.LString); ok {
			return "global", string(s)
		}
	case lua.OP_MOVE, lua.OP_MOVEN: // MOVEN is a MOVE followed by more
		if b := argB(i); b < argA(i) {
			return f.objName(b, setter)
		}
	case lua.OP_GETTABLE, lua.OP_GETTABLEKS:
		return "field", f.rkName(argC(i))
	case lua.OP_GETUPVAL:
		if b := argB(i); b < len(f.proto.DbgUpvalues) {
			return "upvalue", f.proto.DbgUpvalues[b]
		}
		return "upvalue", "?"
	case lua.OP_SELF:
		return "method", f.rkName(argC(i))
	}
	return "", ""
}

// localName is luaF_getlocalname: the name of the local in register r
// at pc, "" for a temporary. gopher-lua's EndPc is the scope's last
// instruction (Lua 5.1's endpc is the one after it).
func (f failedFrame) localName(r, pc int) string {
	n := r + 1
	for _, l := range f.proto.DbgLocals {
		if l.StartPc > pc {
			break
		}
		if pc <= l.EndPc {
			if n--; n == 0 {
				return l.Name
			}
		}
	}
	return ""
}

func (f failedFrame) constant(k int) lua.LValue {
	if k < 0 || k >= len(f.proto.Constants) {
		return lua.LNil
	}
	return f.proto.Constants[k]
}

// rkName is kname: a constant string key's text, else "?".
func (f failedFrame) rkName(rk int) string {
	if rk&rkBit != 0 {
		if s, ok := f.constant(rk &^ rkBit).(lua.LString); ok {
			return string(s)
		}
	}
	return "?"
}

// writes says whether instruction i stores into register r.
func (f failedFrame) writes(i uint32, r int) bool {
	a := argA(i)
	switch opCode(i) {
	case lua.OP_SETGLOBAL, lua.OP_SETUPVAL, lua.OP_SETTABLE, lua.OP_SETTABLEKS, lua.OP_SETLIST,
		lua.OP_JMP, lua.OP_EQ, lua.OP_LT, lua.OP_LE, lua.OP_TEST, lua.OP_RETURN, lua.OP_CLOSE,
		lua.OP_TAILCALL, lua.OP_NOP:
		return false
	case lua.OP_LOADNIL:
		return a <= r && r <= argB(i)
	case lua.OP_SELF:
		return r == a || r == a+1
	case lua.OP_CALL:
		if c := argC(i); c == 0 {
			return r >= a
		} else {
			return a <= r && r <= a+c-2
		}
	case lua.OP_VARARG:
		if b := argB(i); b == 0 {
			return r >= a
		} else {
			return a <= r && r <= a+b-2
		}
	case lua.OP_TFORLOOP:
		return r >= a+3
	case lua.OP_FORLOOP:
		return r == a || r == a+3
	}
	return r == a
}
