package luasvc

import (
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/lockredis/lockredis/engine"
	lua "github.com/yuin/gopher-lua"
)

// Limits of a Lua state, close to Redis's Lua 5.1 (LUAI_MAXCSTACK 8000).
// Lua 5.1 lets calls nest 20000 deep; here it is 5000, because gopher-lua
// builds a traceback in quadratic time when an error is raised that deep
// (a second at 20000, tens of milliseconds at 5000).
const (
	maxCallDepth   = 5000
	maxUnpack      = 8000
	registryStart  = 4 << 10
	registryMax    = 2 << 20 // values on the Lua stack (16 bytes each)
	maxReplyDepth  = 1000    // nesting of a script's return value
	maxReplyTables = 1 << 18 // tables in a script's return value (reply.go)
	maxStringBytes = 512 << 20
)

// vm is one sandboxed Lua state with the Redis 7.0 environment. It is used
// by one script at a time.
type vm struct {
	svc  *Service
	L    *lua.LState
	intr *interrupt

	globals     *lua.LTable                 // the real globals; KEYS and ARGV are set here
	env         *lua.LTable                 // what scripts see as _G: a read-only view of globals
	ro          map[*lua.LTable]*lua.LTable // read-only view -> the table it shows
	views       []roView                    // every read-only view, for intact
	strMeta     *lua.LTable                 // the real metatable of strings
	strMetaView *lua.LTable                 // what getmetatable("") shows
	gMetaView   *lua.LTable                 // what getmetatable(_G) shows
	deny        *lua.LFunction              // __newindex of read-only views
	errFunc     *lua.LFunction              // the top-level error handler
	pcallFunc   *lua.LFunction              // pcall's error handler: names the variable
	upvalCloser *lua.LFunction              // raises, to close upvalues (closeUpvalues)
	null        *lua.LUserData              // cjson.null
	keys        argTable                    // KEYS
	argv        argTable                    // ARGV

	fns map[*script]*lua.LFunction // scripts already instantiated here
	gen uint64                     // Service.gen the cache belongs to

	// The state that runs functions (functions.go) has no KEYS and ARGV:
	// a function gets its keys and arguments as parameters. While a
	// library loads, the globals show loadAPI instead (see loadLibrary).
	forFunctions bool
	loadAPI      *lua.LTable
	loading      *loading // the library being loaded
	builds       uint64   // build calls: functions made by an older state are gone

	sess *engine.Session // the script's own client: SELECT changes only it
	w    luaWriter
	nrun nativeRun         // the run of a native body (native.go)
	cmdv [][]byte          // backing store of redis.call argument vectors
	src  map[string]string // chunk names of loadstring chunks -> their source
	rng  rand48
	json jsonConfig

	// The current run.
	call *engine.Call
	sc   *script
	resp int // 2 or 3: the protocol redis.call replies are converted from
	fail failure
	// replyTables counts the tables of the return value written so far.
	replyTables int
	hard        time.Duration // this run's hard time limit
	panicked    any
	ccalls      int // Go functions calling back into Lua, nested (Lua's nCcalls)
}

// maxCCalls is LUAI_MAXCCALLS: how deeply pcall, coroutines, sort
// comparators and the like may nest before "C stack overflow".
const maxCCalls = 200

// enter counts a call from Go back into Lua (luaD_call); every enter
// needs a leave, also when the call raises. The error is raised from a Go
// function, so it carries no position, as in Lua.
func (v *vm) enter(L *lua.LState) {
	v.ccalls++
	if v.ccalls >= maxCCalls {
		v.ccalls--
		L.Error(lua.LString("C stack overflow"), 0)
	}
}

func (v *vm) leave() { v.ccalls-- }

// callLua is L.Call for library functions that run Lua code.
func (v *vm) callLua(L *lua.LState, nargs, nret int) {
	v.enter(L)
	defer v.leave()
	L.Call(nargs, nret)
}

// failure is where the error that ended a script was raised.
type failure struct {
	set    bool
	source string // "@user_script"
	line   int
}

func (s *Service) newVM() *vm {
	v := &vm{svc: s, intr: newInterrupt(s.memLimit, s.e, s.opts.Logf)}
	v.build()
	return v
}

// newFunctionVM makes the Lua state functions run in.
func (s *Service) newFunctionVM() *vm {
	v := &vm{svc: s, intr: newInterrupt(s.memLimit, s.e, s.opts.Logf), forFunctions: true}
	v.intr.function = true
	v.build()
	return v
}

// build makes a fresh Lua state.
func (v *vm) build() {
	if v.L != nil {
		v.L.Close()
	}
	L := lua.NewState(lua.Options{
		SkipOpenLibs:    true,
		CallStackSize:   maxCallDepth,
		RegistrySize:    registryStart,
		RegistryMaxSize: registryMax,
	})
	L.SetContext(v.intr)
	v.L = L
	v.ro = make(map[*lua.LTable]*lua.LTable)
	v.views = v.views[:0]
	v.fns = make(map[*script]*lua.LFunction)
	v.src = make(map[string]string)
	v.sess = engine.NewSession("lua")
	v.sess.Authenticated = true
	v.deny = L.NewFunction(func(L *lua.LState) int {
		raise(L, "Attempt to modify a readonly table")
		return 0
	})
	v.errFunc = L.NewFunction(v.errHandler)
	v.pcallFunc = L.NewFunction(func(L *lua.LState) int {
		L.Push(namedError(L, L.Get(1)))
		closeUpvalues(L, v.upvalCloser)
		return 1
	})
	v.upvalCloser = L.NewFunction(func(L *lua.LState) int {
		L.RaiseError("")
		return 0
	})
	v.null = L.NewUserData()
	v.keys = argTable{name: "KEYS"}
	v.argv = argTable{name: "ARGV"}
	v.rng = newRand48()

	g := L.NewTable()
	v.globals = g
	v.env = v.roView(g)
	v.openBase(g)
	v.openLib(g, "string", v.stringLib())
	v.openLib(g, "table", v.tableLib())
	v.openLib(g, "math", v.mathLib())
	v.openLib(g, "coroutine", v.coroutineLib())
	v.openLib(g, "cjson", v.cjsonLib())
	v.openLib(g, "bit", v.bitLib())
	v.openLib(g, "struct", v.structLib())
	v.openLib(g, "cmsgpack", v.msgpackLib())
	v.openLib(g, "redis", v.redisLib())
	g.RawSetString("_G", v.env)
	if !v.forFunctions {
		v.keys.fresh(L, g)
		v.argv.fresh(L, g)
	}
	g.RawSetString("_VERSION", lua.LString("Lua 5.1"))

	// Reading a missing global is an error, as in Redis.
	missing := L.CreateTable(0, 1)
	missing.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		name := L.Get(2)
		if !lua.LVCanConvToString(name) {
			raise(L, "Second argument to luaProtectedTableError must be a string or number")
		}
		raise(L, "Script attempted to access nonexistent global variable '%s'", luaToString(name))
		return 0
	}))
	g.Metatable = missing
	v.gMetaView = v.roView(missing)
	if v.forFunctions {
		v.loadAPI = v.libraryAPI(missing) // functions.go
	}
	v.builds++

	// Strings index the real string table; scripts that ask see a
	// read-only metatable whose __index is the read-only string library.
	v.strMeta = L.CreateTable(0, 1)
	v.strMeta.RawSetString("__index", v.ro[g.RawGetString("string").(*lua.LTable)])
	L.SetMetatable(lua.LString(""), v.strMeta)
	shown := L.CreateTable(0, 1)
	shown.RawSetString("__index", g.RawGetString("string"))
	v.strMetaView = v.roView(shown)

	L.Env = v.env
	L.G.Global = v.env
}

// openLib installs a library table as a read-only global.
func (v *vm) openLib(g *lua.LTable, name string, lib *lua.LTable) {
	g.RawSetString(name, v.roView(lib))
}

// roView returns a read-only view of real: reads go through to it, writes
// raise "Attempt to modify a readonly table" (Redis 7.0 protects its
// globals and libraries this way). The view itself stays empty; rawset,
// setmetatable and the table library refuse to touch it.
func (v *vm) roView(real *lua.LTable) *lua.LTable {
	view := v.L.NewTable()
	mt := v.L.CreateTable(0, 2)
	mt.RawSetString("__index", real)
	mt.RawSetString("__newindex", v.deny)
	view.Metatable = mt
	v.ro[view] = real
	v.views = append(v.views, roView{view: view, mt: mt})
	return view
}

// realTable returns the table a read-only view shows, or t itself.
func (v *vm) realTable(t *lua.LTable) *lua.LTable {
	if t.Metatable == lua.LNil {
		return t
	}
	if real, ok := v.ro[t]; ok {
		return real
	}
	return t
}

func (v *vm) isReadOnly(t *lua.LTable) bool {
	if t.Metatable == lua.LNil {
		return false
	}
	_, ok := v.ro[t]
	return ok
}

// roView is a read-only view and the metatable it must keep.
type roView struct {
	view, mt *lua.LTable
}

// intact reports whether the environment is as built: every read-only
// view empty and with its own metatable, strings with theirs. A script
// cannot change these through the API it is given (the metatables
// themselves are out of its reach); this is the safety net that decides
// whether the state must be rebuilt before the next script.
func (v *vm) intact() bool {
	if v.L.GetMetatable(lua.LString("")) != v.strMeta {
		return false
	}
	for _, r := range v.views {
		if r.view.Metatable != r.mt {
			return false
		}
		if k, _ := r.view.Next(lua.LNil); k != lua.LNil {
			return false
		}
	}
	return true
}

// exec runs one script for c and writes its reply to c.W.
func (v *vm) exec(c *engine.Call, sc *script, keys, args [][]byte, readOnly bool) {
	if g := v.svc.gen.Load(); g != v.gen {
		clear(v.fns)
		v.gen = g
	}
	fn := v.fns[sc]
	if fn == nil {
		fn = v.L.NewFunctionFromProto(sc.proto)
		fn.Env = v.env
		v.fns[sc] = fn
	}
	v.keys.fill(keys)
	v.argv.fill(args)
	v.run(c, sc, fn, keys, readOnly)
}

// run calls fn with params for c and writes its reply to c.W: a script
// (no parameters) or a function (its keys and arguments). sc names it in
// messages and carries its flags; keys are the declared keys.
func (v *vm) run(c *engine.Call, sc *script, fn *lua.LFunction, keys [][]byte, readOnly bool, params ...lua.LValue) {
	callerDB := v.begin(c, sc, keys, readOnly)
	v.json.reset()

	L := v.L
	L.SetTop(0)
	L.Push(fn)
	for _, p := range params {
		L.Push(p)
	}
	busy, hard := v.svc.limits()
	v.hard = hard
	v.intr.begin(busy, hard, sc.sha)
	err := L.PCall(len(params), 1, v.errFunc)
	stopped := v.intr.end()

	switch {
	case v.panicked != nil:
		// A command panicked inside redis.call: let the engine roll the
		// transaction back and report it, as for any command.
		// The Lua state was abandoned mid-call: start afresh.
		p := v.panicked
		v.reset(c, callerDB)
		v.build()
		panic(p)
	case stopped == stopKilled || stopped == stopTimeout || stopped == stopMemory:
		if c.Tx != nil {
			c.Tx.Rollback()
		}
		c.W.Error(v.stoppedMessage(stopped))
	case err != nil:
		msg, counted := v.errorMessage(err)
		writeError(c.W, msg, counted)
	default:
		v.writeReply(c.W, L.Get(-1), 0)
	}
	v.reset(c, callerDB)
	v.rebuildIfNeeded()
}

// begin sets the script's session up for a run of sc for c, by Lua or
// by a native body, and returns the caller's database, which reset
// restores.
func (v *vm) begin(c *engine.Call, sc *script, keys [][]byte, readOnly bool) (callerDB int) {
	v.call, v.sc, v.resp = c, sc, 2
	v.sess.ScriptReadOnly = readOnly // Dispatch refuses its writes
	v.sess.ScriptCaller = c
	v.sess.ScriptDirty = false
	v.sess.ScriptAllowOOM = sc.shebang && sc.allowOOM
	// Cluster mode: the keys a script touches must hash to the slot of
	// its declared keys, unless it has no shebang (Redis's compatibility
	// mode) or declares allow-cross-slot-keys (engine/cmd_cluster.go).
	v.sess.ScriptCrossSlot = !sc.shebang || sc.crossSlot
	v.sess.ScriptSlot = engine.ScriptSlot(c, keys)
	v.fail = failure{}
	v.panicked = nil
	v.ccalls = 1
	v.cmdv = v.cmdv[:0]
	v.sess.DB = c.S.DB
	v.sess.Proto = 2
	if c.Tx != nil {
		callerDB = c.Tx.DB
	}
	return callerDB
}

// reset drops what the run left behind.
func (v *vm) reset(c *engine.Call, callerDB int) {
	v.L.SetTop(0)
	if !v.forFunctions {
		v.keys.clear(v.L, v.globals)
		v.argv.clear(v.L, v.globals)
	}
	clear(v.src)
	for i := range v.cmdv {
		v.cmdv[i] = nil
	}
	v.cmdv = v.cmdv[:0]
	v.w.drop()
	v.call, v.sc = nil, nil
	v.sess.ScriptCaller = nil
	if c.Tx != nil {
		c.Tx.DB = callerDB
	}
}

func (v *vm) rebuildIfNeeded() {
	if !v.intact() {
		v.svc.opts.Logf("warning", "lua: the scripting environment was modified; rebuilding it")
		v.build()
	}
}

// argTable is KEYS or ARGV: one table per Lua state, refilled for each
// script unless the last one changed more than its elements.
type argTable struct {
	name string
	t    *lua.LTable
	n    int // elements set (or found) in t
}

func (a *argTable) fresh(L *lua.LState, g *lua.LTable) {
	a.t = L.NewTable()
	a.n = 0
	g.RawSetString(a.name, a.t)
}

// fill sets the arguments. The strings share the command's bytes: they
// are dropped when the script ends, and a command line is not modified
// while its command runs.
func (a *argTable) fill(items [][]byte) {
	for i, it := range items {
		a.t.RawSetInt(i+1, lua.LString(unsafe.String(unsafe.SliceData(it), len(it))))
	}
	for i := len(items) + 1; i <= a.n; i++ {
		a.t.RawSetInt(i, lua.LNil)
	}
	a.n = len(items)
}

// clear empties the table after a script, or replaces it if the script
// gave it a metatable or non-array keys.
func (a *argTable) clear(L *lua.LState, g *lua.LTable) {
	n := max(a.t.Len(), a.n)
	var k lua.LValue
	if n == 0 {
		k, _ = a.t.Next(lua.LNil)
	} else {
		k, _ = a.t.Next(lua.LNumber(n))
	}
	if a.t.Metatable != lua.LNil || k != lua.LNil || n > 1024 {
		a.fresh(L, g)
		return
	}
	for i := 1; i <= n; i++ {
		a.t.RawSetInt(i, lua.LNil)
	}
	a.n = 0
}

// errHandler runs where an uncaught error was raised, before the Lua stack
// unwinds, and records the position Redis reports: the function that
// raised it, or its caller when that is a Go function (redis.call, error).
func (v *vm) errHandler(L *lua.LState) int {
	obj := namedError(L, L.Get(1))
	for level := 1; level <= 2; level++ {
		dbg, ok := L.GetStack(level)
		if !ok {
			break
		}
		if _, err := L.GetInfo("Sl", dbg, lua.LNil); err != nil {
			break
		}
		if dbg.CurrentLine > 0 && dbg.Source != "" {
			v.fail = failure{set: true, source: v.sourceOf(dbg.Source), line: dbg.CurrentLine}
			break
		}
	}
	L.Push(obj)
	return 1
}

// sourceOf turns a chunk's name as shown in messages back into the source
// Redis prints after "on": "@user_script" for scripts, the code itself for
// loadstring chunks.
func (v *vm) sourceOf(chunk string) string {
	if chunk == scriptChunk || chunk == functionChunk {
		return "@" + chunk
	}
	if src, ok := v.src[chunk]; ok {
		return src
	}
	return chunk
}

// errorMessage builds the reply for a script that raised an error, as
// Redis 7.0 does: "ERR user_script:1: boom script: <sha>, on
// @user_script:1.", or the error's own text for error tables (redis.call
// errors keep their prefix: "WRONGTYPE ...").
func (v *vm) errorMessage(err error) (msg string, counted bool) {
	var obj lua.LValue = lua.LString(err.Error())
	if ae, ok := err.(*lua.ApiError); ok {
		obj = ae.Object
	}
	switch o := obj.(type) {
	case *lua.LTable:
		if e, ok := o.RawGetString("err").(lua.LString); ok {
			msg = string(e)
			counted = errorCounted(o)
		} else {
			msg = "ERR " + luaToString(o)
		}
	default:
		msg = "ERR " + luaMessage(luaToString(o))
	}
	f := v.fail
	if !f.set {
		// The handler could not run (stack overflow): take the position
		// from the message when it starts with one.
		f = positionIn(msg)
	}
	if f.set {
		msg += " script: " + v.sc.sha + ", on " + f.source + ":" + strconv.Itoa(f.line) + "."
	}
	return msg, counted
}

// positionIn finds "ERR user_script:12: ..." (or user_function) in a
// message.
func positionIn(msg string) failure {
	chunk := scriptChunk
	rest, ok := strings.CutPrefix(msg, "ERR "+chunk+":")
	if !ok {
		chunk = functionChunk
		if rest, ok = strings.CutPrefix(msg, "ERR "+chunk+":"); !ok {
			return failure{}
		}
	}
	end := strings.IndexByte(rest, ':')
	if end <= 0 {
		return failure{}
	}
	line, err := strconv.Atoi(rest[:end])
	if err != nil {
		return failure{}
	}
	return failure{set: true, source: "@" + chunk, line: line}
}

func (v *vm) stoppedMessage(reason uint64) string {
	var msg string
	switch reason {
	case stopKilled:
		// Redis's text; Redis cannot kill a script that wrote (UNKILLABLE),
		// lockredis rolls its writes back and says so.
		msg = "ERR Script killed by user with SCRIPT KILL..."
		if v.sess.ScriptDirty {
			msg += " Its writes were rolled back."
		}
	case stopMemory:
		msg = "ERR Script killed: it used more than " + strconv.FormatUint(v.intr.memLimit>>20, 10) + " MB of memory. Its writes were rolled back."
	default:
		msg = "ERR Script killed: it ran longer than lua-hard-time-limit (" +
			strconv.FormatInt(v.hard.Milliseconds(), 10) + " ms). Its writes were rolled back."
	}
	msg += " script: " + v.sc.sha
	if v.fail.set {
		msg += ", on " + v.fail.source + ":" + strconv.Itoa(v.fail.line)
	}
	return msg + "."
}
