package luasvc

import (
	"math"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// The table library of Lua 5.1 (ltablib.c), sort's algorithm included so
// that equal elements end up in the same order as in Redis. Functions that
// write refuse read-only tables.

func (v *vm) tableLib() *lua.LTable {
	L := v.L
	t := L.CreateTable(0, 9)
	setFuncs(L, t, map[string]lua.LGFunction{
		"concat":   tabConcat,
		"foreach":  v.tabForeach,
		"foreachi": v.tabForeachi,
		"getn":     tabGetn,
		"insert":   v.tabInsert,
		"maxn":     tabMaxn,
		"remove":   v.tabRemove,
		"setn":     tabSetn,
		"sort":     v.tabSort,
	})
	return t
}

func getn(L *lua.LState, fname string) (*lua.LTable, int) {
	t := checkTable(L, 1, fname)
	return t, t.Len()
}

func tabGetn(L *lua.LState) int {
	_, n := getn(L, "getn")
	L.Push(lua.LNumber(n))
	return 1
}

func tabSetn(L *lua.LState) int {
	checkTable(L, 1, "setn")
	raise(L, "'setn' is obsolete")
	return 0
}

func tabMaxn(L *lua.LState) int {
	t := checkTable(L, 1, "maxn")
	max := 0.0
	t.ForEach(func(k, _ lua.LValue) {
		if n, ok := k.(lua.LNumber); ok && float64(n) > max {
			max = float64(n)
		}
	})
	L.Push(lua.LNumber(max))
	return 1
}

func tabConcat(L *lua.LState) int {
	sep := optString(L, 2, "concat", "")
	t := checkTable(L, 1, "concat")
	i := optInt(L, 3, "concat", 1)
	var last int
	if L.Get(4) == lua.LNil {
		last = t.Len()
	} else {
		last = checkInt(L, 4, "concat")
	}
	var sb strings.Builder
	for ; i <= last; i++ {
		var s string
		switch x := t.RawGetInt(i).(type) {
		case lua.LString:
			s = string(x)
		case lua.LNumber:
			s = luaNumberString(float64(x))
		default:
			raise(L, "invalid value (%s) at index %d in table for 'concat'", x.Type().String(), i)
		}
		if sb.Len()+len(s)+len(sep) > maxStringBytes {
			raise(L, "resulting string too large")
		}
		sb.WriteString(s)
		if i != last {
			sb.WriteString(sep)
		}
	}
	L.Push(lua.LString(sb.String()))
	return 1
}

func (v *vm) tabForeachi(L *lua.LState) int {
	t, n := getn(L, "foreachi")
	f, ok := L.Get(2).(*lua.LFunction)
	if !ok {
		typeError(L, 2, "foreachi", "function")
	}
	for i := 1; i <= n; i++ {
		L.Push(f)
		L.Push(lua.LNumber(i))
		L.Push(t.RawGetInt(i))
		v.callLua(L, 2, 1)
		if r := L.Get(-1); r != lua.LNil {
			return 1
		}
		L.Pop(1)
	}
	return 0
}

func (v *vm) tabForeach(L *lua.LState) int {
	t := checkTable(L, 1, "foreach")
	f, ok := L.Get(2).(*lua.LFunction)
	if !ok {
		typeError(L, 2, "foreach", "function")
	}
	k, val := t.Next(lua.LNil)
	for k != lua.LNil {
		L.Push(f)
		L.Push(k)
		L.Push(val)
		v.callLua(L, 2, 1)
		if r := L.Get(-1); r != lua.LNil {
			return 1
		}
		L.Pop(1)
		k, val = t.Next(k)
	}
	return 0
}

func (v *vm) tabInsert(L *lua.LState) int {
	t, n := getn(L, "insert")
	e := n + 1
	var pos int
	switch L.GetTop() {
	case 2:
		pos = e
	case 3:
		pos = checkInt(L, 2, "insert")
		if pos > e {
			e = pos
		}
		if v.isReadOnly(t) {
			L.Error(lua.LString("Attempt to modify a readonly table"), 0)
		}
		for i := e; i > pos; i-- {
			t.RawSetInt(i, t.RawGetInt(i-1))
		}
	default:
		raise(L, "wrong number of arguments to 'insert'")
	}
	if v.isReadOnly(t) {
		L.Error(lua.LString("Attempt to modify a readonly table"), 0)
	}
	L.RawSet(t, lua.LNumber(pos), L.Get(L.GetTop()))
	return 0
}

func (v *vm) tabRemove(L *lua.LState) int {
	t, e := getn(L, "remove")
	pos := optInt(L, 2, "remove", e)
	if !(1 <= pos && pos <= e) {
		return 0
	}
	if v.isReadOnly(t) {
		L.Error(lua.LString("Attempt to modify a readonly table"), 0)
	}
	removed := t.RawGetInt(pos)
	for ; pos < e; pos++ {
		t.RawSetInt(pos, t.RawGetInt(pos+1))
	}
	t.RawSetInt(e, lua.LNil)
	L.Push(removed)
	return 1
}

func (v *vm) tabSort(L *lua.LState) int {
	t, n := getn(L, "sort")
	var less func(a, b lua.LValue) bool
	switch f := L.Get(2).(type) {
	case *lua.LNilType:
		less = func(a, b lua.LValue) bool { return lessThan(L, a, b) }
	case *lua.LFunction:
		less = func(a, b lua.LValue) bool {
			L.Push(f)
			L.Push(a)
			L.Push(b)
			v.callLua(L, 2, 1)
			r := lua.LVAsBool(L.Get(-1))
			L.Pop(1)
			return r
		}
	default:
		typeError(L, 2, "sort", "function")
	}
	if n > 1 && v.isReadOnly(t) {
		L.Error(lua.LString("Attempt to modify a readonly table"), 0)
	}
	s := sorter{L: L, t: t, less: less}
	s.sort(1, n)
	return 0
}

// lessThan is lua_lessthan: numbers and strings compare, others need
// __lt. Its error, raised from C in Lua, carries no position.
func lessThan(L *lua.LState, a, b lua.LValue) bool {
	switch x := a.(type) {
	case lua.LNumber:
		if y, ok := b.(lua.LNumber); ok {
			return x < y
		}
	case lua.LString:
		if y, ok := b.(lua.LString); ok {
			return x < y
		}
	}
	if a.Type() == b.Type() {
		if f := L.GetMetaField(a, "__lt"); f != lua.LNil && f == L.GetMetaField(b, "__lt") {
			return L.LessThan(a, b)
		}
	}
	ta, tb := a.Type().String(), b.Type().String()
	if ta == tb {
		L.Error(lua.LString("attempt to compare two "+ta+" values"), 0)
	}
	L.Error(lua.LString("attempt to compare "+ta+" with "+tb), 0)
	return false
}

type sorter struct {
	L    *lua.LState
	t    *lua.LTable
	less func(a, b lua.LValue) bool
}

func (s *sorter) get(i int) lua.LValue    { return s.t.RawGetInt(i) }
func (s *sorter) set(i int, v lua.LValue) { s.t.RawSetInt(i, v) }

func (s *sorter) invalid() { raise(s.L, "invalid order function for sorting") }

// sort is ltablib.c's auxsort: quicksort with a median of three.
func (s *sorter) sort(l, u int) {
	for l < u {
		al, au := s.get(l), s.get(u)
		if s.less(au, al) {
			s.set(l, au)
			s.set(u, al)
		}
		if u-l == 1 {
			break
		}
		i := (l + u) / 2
		ai, al := s.get(i), s.get(l)
		if s.less(ai, al) {
			s.set(i, al)
			s.set(l, ai)
		} else {
			au := s.get(u)
			if s.less(au, ai) {
				s.set(i, au)
				s.set(u, ai)
			}
		}
		if u-l == 2 {
			break
		}
		p := s.get(i)
		s.set(i, s.get(u-1))
		s.set(u-1, p)
		i, j := l, u-1
		for {
			var a, b lua.LValue
			for {
				i++
				a = s.get(i)
				if !s.less(a, p) {
					break
				}
				if i > u {
					s.invalid()
				}
			}
			for {
				j--
				b = s.get(j)
				if !s.less(p, b) {
					break
				}
				if j < l {
					s.invalid()
				}
			}
			if j < i {
				break
			}
			s.set(i, b)
			s.set(j, a)
		}
		x, y := s.get(u-1), s.get(i)
		s.set(u-1, y)
		s.set(i, x)
		if i-l < u-i {
			j = l
			i = i - 1
			l = i + 2
		} else {
			j = i + 1
			i = u
			u = j - 2
		}
		s.sort(j, i)
	}
}

// The math library of Lua 5.1, with Redis's random: its own rand48, one
// sequence per Lua state (not reset between scripts, as in Redis 7.0).

func (v *vm) mathLib() *lua.LTable {
	L := v.L
	t := L.CreateTable(0, 32)
	f1 := func(name string, fn func(float64) float64) {
		t.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			L.Push(lua.LNumber(fn(checkNumber(L, 1, name))))
			return 1
		}))
	}
	f1("abs", math.Abs)
	f1("acos", math.Acos)
	f1("asin", math.Asin)
	f1("atan", math.Atan)
	f1("ceil", math.Ceil)
	f1("cos", math.Cos)
	f1("cosh", math.Cosh)
	f1("deg", func(x float64) float64 { return x / (math.Pi / 180) })
	f1("exp", math.Exp)
	f1("floor", math.Floor)
	f1("log", math.Log)
	f1("log10", math.Log10)
	f1("rad", func(x float64) float64 { return x * (math.Pi / 180) })
	f1("sin", math.Sin)
	f1("sinh", math.Sinh)
	f1("sqrt", math.Sqrt)
	f1("tan", math.Tan)
	f1("tanh", math.Tanh)
	f2 := func(name string, fn func(float64, float64) float64) {
		t.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			L.Push(lua.LNumber(fn(checkNumber(L, 1, name), checkNumber(L, 2, name))))
			return 1
		}))
	}
	f2("atan2", math.Atan2)
	f2("fmod", math.Mod)
	f2("mod", math.Mod)
	f2("pow", math.Pow)
	setFuncs(L, t, map[string]lua.LGFunction{
		"frexp": func(L *lua.LState) int {
			m, e := math.Frexp(checkNumber(L, 1, "frexp"))
			L.Push(lua.LNumber(m))
			L.Push(lua.LNumber(e))
			return 2
		},
		"ldexp": func(L *lua.LState) int {
			L.Push(lua.LNumber(math.Ldexp(checkNumber(L, 1, "ldexp"), checkInt(L, 2, "ldexp"))))
			return 1
		},
		"modf": func(L *lua.LState) int {
			ip, fp := math.Modf(checkNumber(L, 1, "modf"))
			L.Push(lua.LNumber(ip))
			L.Push(lua.LNumber(fp))
			return 2
		},
		"max":    func(L *lua.LState) int { return minMax(L, "max", func(a, b float64) bool { return a > b }) },
		"min":    func(L *lua.LState) int { return minMax(L, "min", func(a, b float64) bool { return a < b }) },
		"random": v.mathRandom,
		"randomseed": func(L *lua.LState) int {
			v.rng.seed(int32(checkInt(L, 1, "randomseed")))
			return 0
		},
	})
	t.RawSetString("pi", lua.LNumber(math.Pi))
	t.RawSetString("huge", lua.LNumber(math.Inf(1)))
	return t
}

func minMax(L *lua.LState, name string, better func(a, b float64) bool) int {
	n := L.GetTop()
	m := checkNumber(L, 1, name)
	for i := 2; i <= n; i++ {
		if d := checkNumber(L, i, name); better(d, m) {
			m = d
		}
	}
	L.Push(lua.LNumber(m))
	return 1
}

const rand48Max = math.MaxInt32

func (v *vm) mathRandom(L *lua.LState) int {
	r := float64(v.rng.next()%rand48Max) / rand48Max
	switch L.GetTop() {
	case 0:
		L.Push(lua.LNumber(r))
	case 1:
		u := int32(checkInt(L, 1, "random"))
		if u < 1 {
			argError(L, 1, "random", "interval is empty")
		}
		L.Push(lua.LNumber(math.Floor(r*float64(u)) + 1))
	case 2:
		l := int32(checkInt(L, 1, "random"))
		u := int32(checkInt(L, 2, "random"))
		if l > u {
			argError(L, 2, "random", "interval is empty")
		}
		L.Push(lua.LNumber(math.Floor(r*float64(int64(u)-int64(l)+1)) + float64(l)))
	default:
		raise(L, "wrong number of arguments")
	}
	return 1
}

// rand48 is Redis's redisLrand48: the drand48 generator, 48-bit state.
type rand48 struct{ x uint64 }

const (
	rand48Mask = 1<<48 - 1
	rand48A    = 0x5DEECE66D
	rand48C    = 0xB
)

// newRand48 starts where Redis's generator starts before any seeding.
func newRand48() rand48 { return rand48{x: 0x1234ABCD330E} }

func (r *rand48) seed(s int32) { r.x = uint64(uint32(s))<<16 | 0x330E }

func (r *rand48) next() int32 {
	r.x = (rand48A*r.x + rand48C) & rand48Mask
	return int32(r.x >> 17)
}

// The coroutine library: gopher-lua's, except that new coroutines run
// under the script's interrupt (time limit, SCRIPT KILL) and messages use
// Lua 5.1's words.

func (v *vm) coroutineLib() *lua.LTable {
	L := v.L
	L.Push(L.NewFunction(lua.OpenCoroutine))
	L.Push(lua.LString("coroutine"))
	L.Call(1, 1)
	orig := L.Get(-1).(*lua.LTable)
	L.Pop(1)
	L.G.Global.RawSetString("coroutine", lua.LNil)
	gfn := func(name string) lua.LGFunction { return orig.RawGetString(name).(*lua.LFunction).GFunction }
	create, resume := gfn("create"), gfn("resume")

	t := L.CreateTable(0, 6)
	yield := gfn("yield")
	t.RawSetString("yield", L.NewFunction(func(L *lua.LState) int {
		if L.Parent == nil {
			L.Error(lua.LString("attempt to yield across metamethod/C-call boundary"), 0)
		}
		return yield(L)
	}))
	t.RawSetString("running", orig.RawGetString("running"))
	t.RawSetString("status", orig.RawGetString("status"))
	newThread := func(L *lua.LState) *lua.LState {
		if _, ok := L.Get(1).(*lua.LFunction); !ok {
			argError(L, 1, "create", "Lua function expected")
		}
		// Coroutines get a call stack that grows on demand: the main
		// state's is allocated in full.
		opts := L.Options
		L.Options.MinimizeStackMemory = true
		L.Options.RegistrySize = 256
		create(L)
		L.Options = opts
		th := L.Get(-1).(*lua.LState)
		th.SetContext(v.intr)
		return th
	}
	setFuncs(L, t, map[string]lua.LGFunction{
		"create": func(L *lua.LState) int {
			newThread(L)
			return 1
		},
		"resume": func(L *lua.LState) int {
			if _, ok := L.Get(1).(*lua.LState); !ok {
				argError(L, 1, "resume", "coroutine expected")
			}
			// lua_resume checks the depth before counting itself, and
			// reports the overflow as a failed resume.
			if v.ccalls >= maxCCalls {
				L.SetTop(0)
				L.Push(lua.LFalse)
				L.Push(lua.LString("C stack overflow"))
				return 2
			}
			v.ccalls++
			n := resume(L)
			v.leave()
			if n == 2 && L.Get(-2) == lua.LFalse {
				if msg, ok := L.Get(-1).(lua.LString); ok {
					L.Replace(-1, lua.LString(coroutineMessage(string(msg))))
				}
			}
			return n
		},
		"wrap": func(L *lua.LState) int {
			th := newThread(L)
			L.Push(L.NewFunction(func(L *lua.LState) int {
				if v.ccalls >= maxCCalls {
					raise(L, "C stack overflow")
				}
				L.Insert(th, 1)
				v.ccalls++
				n := resume(L)
				v.leave()
				top := L.GetTop()
				if n >= 1 && L.Get(top-n+1) == lua.LFalse {
					msg := L.Get(top)
					if s, ok := msg.(lua.LString); ok {
						msg = lua.LString(where(L, 1) + coroutineMessage(string(s)))
					}
					L.Error(msg, 0)
				}
				// Drop the leading true.
				L.Remove(top - n + 1)
				return n - 1
			}))
			return 1
		},
	})
	return t
}

func coroutineMessage(msg string) string {
	switch msg {
	case "can not resume a dead thread":
		return "cannot resume dead coroutine"
	case "can not resume a running thread":
		return "cannot resume non-suspended coroutine"
	case "lua callstack overflow":
		return "stack overflow"
	}
	return luaMessage(msg)
}
