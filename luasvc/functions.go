package luasvc

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/lockredis/lockredis/engine"
	lua "github.com/yuin/gopher-lua"
)

// Redis 7 functions: FUNCTION LOAD / LIST / DELETE / FLUSH / DUMP /
// RESTORE / STATS / KILL / HELP and FCALL / FCALL_RO, as functions.c and
// function_lua.c of Redis 7.0 do them.
//
// Libraries run in one Lua state of their own (like Redis's Lua engine),
// built like the scripts' but without KEYS and ARGV. Loading a library
// runs its code once with only the library API visible (redis.
// register_function, redis.log, the LOG_ and version constants); the
// functions it registers are closures of that state, so their upvalues
// live from one call to the next, as in Redis. A function runs like a
// script (same sandbox, atomicity, busy and kill handling), named by its
// own name in messages ("script: myfunc, on @user_function:3.").
//
// Differences from Redis 7.0: FUNCTION LIST and FUNCTION DUMP give the
// libraries (and LIST the functions of a library) sorted by name; Redis
// gives them in its hash tables' order, which changes from run to run.
// FUNCTION KILL stops a function that wrote and rolls its writes back
// (Redis answers UNKILLABLE), as SCRIPT KILL does here. When the Lua state
// has to be rebuilt (a function damaged its environment, a command
// panicked), the libraries are loaded again and their upvalues start
// afresh.
//
// Every command that changes the libraries stores FUNCTION DUMP's payload
// in its transaction (engine.Tx.PutFunctions), so with appendonly the
// libraries come back after a restart, as from Redis's RDB/AOF.

// functionChunk is the chunk name of library code: messages show
// "user_function:3:", error replies end with "on @user_function:3.".
const functionChunk = "user_function"

// loadTimeout stops library code that runs too long while loading
// (Redis's LOAD_TIMEOUT_MS).
const loadTimeout = 500 * time.Millisecond

// Script flags in the order Redis lists them (scripts_flags_def).
const (
	flagNoWrites uint8 = 1 << iota
	flagAllowOOM
	flagAllowStale
	flagNoCluster
	flagAllowCrossSlot
)

var scriptFlagNames = []string{"no-writes", "allow-oom", "allow-stale", "no-cluster", "allow-cross-slot-keys"}

// Errors with Redis's wording.
var (
	errFunctionNotFound = errors.New("ERR Function not found")
	errBadNumKeys       = errors.New("ERR Bad number of keys provided")
	errLibraryNotFound  = errors.New("ERR Library not found")
	errBadPayload       = errors.New("ERR DUMP payload version or checksum are wrong")
	errRestorePolicy    = errors.New("ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.")
	errFunctionFlush    = errors.New("ERR FUNCTION FLUSH only supports SYNC|ASYNC option")
	errCodeMissing      = errors.New("ERR Function code is missing")
	errLibraryNameArg   = errors.New("ERR library name argument was not given")
	errBusyEval         = errors.New("BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.")
	errBusyFunction     = errors.New("BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.")
)

// errNameChars is said of bad library names and, in Redis 7.0's words too,
// of bad function names.
const errNameChars = "Library names can only contain letters, numbers, or underscores(_) and must be at least one character long"

// library is one loaded library: its code as given to FUNCTION LOAD
// (shebang included: what DUMP saves and LIST WITHCODE shows) and its
// functions, sorted by name.
type library struct {
	name string
	code string
	fns  []*function
}

// function is one registered function.
type function struct {
	name    string
	desc    string
	hasDesc bool
	flags   uint8
	lib     *library
	fn      *lua.LFunction // the closure, in the functions' Lua state
	sc      *script        // what vm.run needs: the name (as sha) and flags
}

// libSet is a set of libraries and an index of their functions. Library
// names are case-sensitive, function names are not (Redis's dict types).
type libSet struct {
	libs   map[string]*library
	byName map[string]*function // lower-case name
}

func newLibSet() *libSet {
	return &libSet{libs: map[string]*library{}, byName: map[string]*function{}}
}

func (ls *libSet) link(l *library) {
	ls.libs[l.name] = l
	for _, f := range l.fns {
		ls.byName[strings.ToLower(f.name)] = f
	}
}

func (ls *libSet) unlink(l *library) {
	delete(ls.libs, l.name)
	for _, f := range l.fns {
		delete(ls.byName, strings.ToLower(f.name))
	}
}

// sorted lists the libraries by name.
func (ls *libSet) sorted() []*library {
	out := make([]*library, 0, len(ls.libs))
	for _, l := range ls.libs {
		out = append(out, l)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// functions is the service's share: the libraries and the state that
// runs them.
type functions struct {
	// run serialises the Lua state: loading, and calls (FCALL_RO runs
	// under the shared transaction, where several could start at once).
	// It is taken after the engine transaction, never the other way.
	run   sync.Mutex
	v     *vm    // made at first use
	built uint64 // v.builds the closures of set were made in

	// mu guards set, which FUNCTION LIST, DUMP and STATS read without the
	// Lua state (they answer while a function runs).
	mu  sync.RWMutex
	set *libSet

	// The function running now, for FUNCTION STATS.
	curMu sync.Mutex
	cur   *runningFunction
}

type runningFunction struct {
	name  string
	argv  [][]byte
	start time.Time
}

func (fs *functions) lookup(name []byte) *function {
	fs.mu.RLock()
	defer fs.mu.RUnlock()
	return fs.set.byName[strings.ToLower(string(name))]
}

// Estimated bytes a library and a function hold beyond their strings
// (structures, map entries, the Lua closure).
const (
	libraryOverhead  = 256
	functionOverhead = 192
)

// counts are INFO's number_of_libraries and number_of_functions (the
// functions by name: names differing only in case count once) and
// used_memory_functions, an estimate.
func (fs *functions) counts() engine.FunctionCounts {
	fs.mu.RLock()
	defer fs.mu.RUnlock()
	fc := engine.FunctionCounts{Libraries: len(fs.set.libs), Functions: len(fs.set.byName)}
	for _, l := range fs.set.libs {
		fc.Memory += int64(libraryOverhead + len(l.name) + len(l.code))
		for _, f := range l.fns {
			fc.Memory += int64(functionOverhead + len(f.name) + len(f.desc))
		}
	}
	return fc
}

// stats are FUNCTION STATS' counts: every function of every library.
func (fs *functions) stats() (libraries, fns int) {
	fs.mu.RLock()
	defer fs.mu.RUnlock()
	for _, l := range fs.set.libs {
		fns += len(l.fns)
	}
	return len(fs.set.libs), fns
}

// functionState returns the functions' Lua state, remaking the closures
// when it was rebuilt (a function damaged it or a command panicked): their
// upvalues start afresh then. Under fs.run.
func (s *Service) functionState() *vm {
	fs := &s.funcs
	if fs.v == nil {
		fs.v = s.newFunctionVM()
		fs.built = fs.v.builds
	}
	if fs.built != fs.v.builds {
		fs.built = fs.v.builds
		fs.mu.Lock()
		fresh := newLibSet()
		for _, l := range fs.set.sorted() {
			if _, err := fs.v.createLibrary(l.code, false, fresh); err != nil {
				s.opts.Logf("warning", "Failed reloading library %s: %s", l.name, err)
			}
		}
		fs.set = fresh
		fs.mu.Unlock()
	}
	return fs.v
}

// libraryAPI builds what library code sees while it loads: a redis table
// with register_function, log and the constants; anything else is a
// missing global (the metatable of the globals, missing, says so).
func (v *vm) libraryAPI(missing *lua.LTable) *lua.LTable {
	L := v.L
	r := L.CreateTable(0, 8)
	r.RawSetString("register_function", L.NewFunction(v.registerFunction))
	r.RawSetString("log", L.NewFunction(v.redisLog))
	for i, name := range []string{"LOG_DEBUG", "LOG_VERBOSE", "LOG_NOTICE", "LOG_WARNING"} {
		r.RawSetString(name, lua.LNumber(i))
	}
	r.RawSetString("REDIS_VERSION", lua.LString(engine.Version))
	r.RawSetString("REDIS_VERSION_NUM", lua.LNumber(versionNum(engine.Version)))
	r.Metatable = missing
	api := L.CreateTable(0, 1)
	api.RawSetString("redis", v.roView(r))
	api.Metatable = missing
	return api
}

// loading is the library being loaded, while its code runs.
type loading struct {
	lib *library
}

// registerFunction is redis.register_function, in both forms:
// (name, callback) and ({function_name=, callback=, flags=, description=}).
func (v *vm) registerFunction(L *lua.LState) int {
	ld := v.loading
	if ld == nil {
		L.Error(errorTable(L, "ERR redis.register_function can only be called on FUNCTION LOAD command", false), 0)
	}
	f, msg := readRegisterArgs(L)
	if msg == "" {
		switch {
		case !validName(f.name):
			msg = errNameChars
		case ld.has(f.name):
			msg = "Function already exists in the library"
		}
	}
	if msg != "" {
		L.Error(errorTable(L, "ERR "+msg, false), 0)
	}
	f.lib = ld.lib
	ld.lib.fns = append(ld.lib.fns, f)
	return 0
}

// has reports whether the library registered name already (the names of
// one library are case-sensitive).
func (ld *loading) has(name string) bool {
	for _, f := range ld.lib.fns {
		if f.name == name {
			return true
		}
	}
	return false
}

// stringArg is luaGetStringSds: strings and numbers, as strings.
func stringArg(v lua.LValue) (string, bool) {
	switch x := v.(type) {
	case lua.LString:
		return string(x), true
	case lua.LNumber:
		return luaToString(x), true
	}
	return "", false
}

func readRegisterArgs(L *lua.LState) (*function, string) {
	switch L.GetTop() {
	case 1:
		return readNamedArgs(L)
	case 2:
		name, ok := stringArg(L.Get(1))
		if !ok {
			return nil, "first argument to redis.register_function must be a string"
		}
		fn, ok := L.Get(2).(*lua.LFunction)
		if !ok {
			return nil, "second argument to redis.register_function must be a function"
		}
		return &function{name: name, fn: fn}, ""
	}
	return nil, "wrong number of arguments to redis.register_function"
}

func readNamedArgs(L *lua.LState) (*function, string) {
	t, ok := L.Get(1).(*lua.LTable)
	if !ok {
		return nil, "calling redis.register_function with a single argument is only applicable to Lua table (representing named arguments)."
	}
	f := &function{}
	hasName := false
	msg := ""
	t.ForEach(func(k, val lua.LValue) {
		if msg != "" {
			return
		}
		key, ok := stringArg(k)
		if !ok {
			msg = "named argument key given to redis.register_function is not a string"
			return
		}
		switch strings.ToLower(key) {
		case "function_name":
			if f.name, hasName = stringArg(val); !hasName {
				msg = "function_name argument given to redis.register_function must be a string"
			}
		case "description":
			if f.desc, f.hasDesc = stringArg(val); !f.hasDesc {
				msg = "description argument given to redis.register_function must be a string"
			}
		case "callback":
			fn, ok := val.(*lua.LFunction)
			if !ok {
				msg = "callback argument given to redis.register_function must be a function"
				return
			}
			f.fn = fn
		case "flags":
			ft, ok := val.(*lua.LTable)
			if !ok {
				msg = "flags argument to redis.register_function must be a table representing function flags"
				return
			}
			if f.flags, ok = readFlags(ft); !ok {
				msg = "unknown flag given"
			}
		default:
			msg = "unknown argument given to redis.register_function"
		}
	})
	switch {
	case msg != "":
		return nil, msg
	case !hasName:
		return nil, "redis.register_function must get a function name argument"
	case f.fn == nil:
		return nil, "redis.register_function must get a callback argument"
	}
	return f, ""
}

// readFlags reads the array of flag names, in any case.
func readFlags(t *lua.LTable) (uint8, bool) {
	var flags uint8
	for i := 1; ; i++ {
		v := t.RawGetInt(i)
		if v == lua.LNil {
			return flags, true
		}
		s, ok := stringArg(v)
		if !ok {
			return 0, false
		}
		found := false
		for bit, name := range scriptFlagNames {
			if strings.EqualFold(name, s) {
				flags |= 1 << bit
				found = true
				break
			}
		}
		if !found {
			return 0, false
		}
	}
}

// validName is functionsVerifyName: [a-zA-Z0-9_]+.
func validName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// libraryMeta is functionExtractLibMetaData: the "#!<engine> name=<name>"
// first line. body is the code after it, from its newline on (so line
// numbers do not move).
func libraryMeta(code string) (engineName, name, body string, err error) {
	if !strings.HasPrefix(code, "#!") {
		return "", "", "", errors.New("Missing library metadata")
	}
	// Redis looks for the newline in a C string: a NUL before it hides it.
	end := strings.IndexByte(code, '\n')
	if end < 0 || strings.IndexByte(code[:end], 0) >= 0 {
		return "", "", "", errors.New("Invalid library metadata")
	}
	parts, ok := engine.SplitArgs(code[:end])
	if !ok || len(parts) == 0 {
		return "", "", "", errors.New("Invalid library metadata")
	}
	engineName = parts[0][2:]
	hasName := false
	for _, p := range parts[1:] {
		if len(p) >= 5 && strings.EqualFold(p[:5], "name=") {
			if hasName {
				return "", "", "", errors.New("Invalid metadata value, name argument was given multiple times")
			}
			name, hasName = p[5:], true
			continue
		}
		return "", "", "", errors.New("Invalid metadata value given: " + p)
	}
	if !hasName {
		return "", "", "", errors.New("Library name was not given")
	}
	return engineName, name, code[end:], nil
}

// createLibrary is functionsCreateWithLibraryCtx: it compiles and runs
// code, and links the library into set. Under fs.run.
func (v *vm) createLibrary(code string, replace bool, set *libSet) (*library, error) {
	engineName, name, body, err := libraryMeta(code)
	if err != nil {
		return nil, err
	}
	if !validName(name) {
		return nil, errors.New(errNameChars)
	}
	if !strings.EqualFold(engineName, "lua") {
		return nil, fmt.Errorf("Engine '%s' not found", engineName)
	}
	old := set.libs[name]
	if old != nil && !replace {
		return nil, fmt.Errorf("Library '%s' already exists", name)
	}
	lib := &library{name: name, code: code}
	if err := v.runLibrary(lib, body); err != nil {
		return nil, err
	}
	if len(lib.fns) == 0 {
		return nil, errors.New("No functions registered")
	}
	sort.Slice(lib.fns, func(i, j int) bool { return lib.fns[i].name < lib.fns[j].name })
	for _, f := range lib.fns {
		if other := set.byName[strings.ToLower(f.name)]; other != nil && other.lib != old {
			return nil, fmt.Errorf("Function %s already exists", f.name)
		}
		f.sc = &script{sha: f.name, shebang: true, noWrites: f.flags&flagNoWrites != 0, allowOOM: f.flags&flagAllowOOM != 0,
			noCluster: f.flags&flagNoCluster != 0, crossSlot: f.flags&flagAllowCrossSlot != 0}
	}
	if old != nil {
		set.unlink(old)
	}
	set.link(lib)
	return lib, nil
}

// runLibrary compiles body and runs it with the library API as its
// globals, collecting what it registers into lib.
func (v *vm) runLibrary(lib *library, body string) error {
	proto, err := compile(body, "@"+functionChunk, 0)
	if err != nil {
		return errors.New("Error compiling function: " + err.Error())
	}
	L := v.L
	mt := v.env.Metatable.(*lua.LTable)
	mt.RawSetString("__index", v.loadAPI)
	v.loading = &loading{lib: lib}
	v.ccalls = 1
	fn := L.NewFunctionFromProto(proto)
	fn.Env = v.env
	L.SetTop(0)
	L.Push(fn)
	v.intr.begin(time.Duration(1<<62), loadTimeout, lib.name)
	err = L.PCall(0, 0, nil)
	stopped := v.intr.end()
	mt.RawSetString("__index", v.globals)
	v.loading = nil
	L.SetTop(0)
	switch {
	case stopped == stopTimeout:
		lib.fns = nil
		v.rebuildIfNeeded()
		return errors.New("Error registering functions: ERR FUNCTION LOAD timeout")
	case stopped != stopNone:
		// Past the memory limit (Redis has none); nothing else stops a
		// load (FUNCTION KILL only stops FCALL).
		lib.fns = nil
		v.rebuildIfNeeded()
		return errors.New("Error registering functions: ERR " + errStopMemory.Error())
	case err != nil:
		lib.fns = nil
		v.rebuildIfNeeded()
		return errors.New("Error registering functions: " + loadErrorText(err))
	}
	v.rebuildIfNeeded()
	return nil
}

// loadErrorText is luaExtractErrorInformation's message: an error table's
// err field, or "ERR " and the raised value.
func loadErrorText(err error) string {
	var obj lua.LValue = lua.LString(err.Error())
	if ae, ok := err.(*lua.ApiError); ok {
		obj = ae.Object
	}
	if t, ok := obj.(*lua.LTable); ok {
		if e, ok := t.RawGetString("err").(lua.LString); ok {
			return string(e)
		}
	}
	return "ERR " + luaMessage(luaToString(obj))
}

// ---- Commands ----

func (s *Service) functionCommands() []*engine.Command {
	return []*engine.Command{
		{Name: "fcall", Handler: s.cmdFcall},
		{Name: "fcall_ro", Handler: s.cmdFcall},
		{Name: "function", Subcommands: []*engine.Command{
			{Name: "delete", Handler: s.cmdFunctionDelete},
			{Name: "dump", Handler: s.cmdFunctionDump},
			{Name: "flush", Handler: s.cmdFunctionFlush},
			{Name: "help", Handler: cmdFunctionHelp},
			{Name: "kill", Handler: s.cmdFunctionKill},
			{Name: "list", Handler: s.cmdFunctionList},
			{Name: "load", Handler: s.cmdFunctionLoad},
			{Name: "restore", Handler: s.cmdFunctionRestore},
			{Name: "stats", Handler: s.cmdFunctionStats},
		}},
	}
}

func (s *Service) cmdFcall(c *engine.Call) {
	fs := &s.funcs
	f := fs.lookup(c.Args[1])
	if f == nil {
		c.Err(errFunctionNotFound)
		return
	}
	n, ok := engine.ParseInt(c.Args[2])
	switch {
	case !ok:
		c.Err(errBadNumKeys)
		return
	case n > int64(len(c.Args)-3):
		c.Err(errKeysTooMany)
		return
	case n < 0:
		c.Err(errKeysNegative)
		return
	}
	numkeys := int(n)
	readOnly := c.Cmd.Flags.Has(engine.FlagReadonly)
	if f.flags&flagNoCluster != 0 && s.e.ClusterEnabled() {
		c.Err(engine.ErrScriptNoCluster)
		return
	}
	if f.flags&flagNoWrites == 0 {
		// scriptPrepareForRun, in Redis's order.
		if disk := s.e.DiskError(); disk != "" {
			c.Errf("MISCONF Redis is configured to persist data to AOF, but it's currently unable to persist to disk. "+
				"Writable scripts are blocked. Use 'no-writes' flag for read only scripts. AOF error: %s",
				strings.TrimPrefix(disk, "MISCONF Errors writing to the AOF file: "))
			return
		}
		if readOnly {
			c.Err(errWriteFlagRO)
			return
		}
		if s.e.NoGoodReplicas() {
			c.Errf("NOREPLICAS Not enough good replicas to write.")
			return
		}
		if f.flags&flagAllowOOM == 0 && s.e.PreCommandOOM(c.S) {
			c.Errf("OOM allow-oom flag is not set on the script, can not run it when used memory > 'maxmemory'")
			return
		}
	}

	fs.run.Lock()
	defer fs.run.Unlock()
	v := s.functionState()
	if f = fs.lookup(c.Args[1]); f == nil { // lost when the state was rebuilt
		c.Err(errFunctionNotFound)
		return
	}
	if c.Tx == nil || c.Tx.Writable() {
		// It holds the exclusive transaction: clients wait for it to end
		// or turn busy (engine/guards.go).
		s.e.ScriptStarted()
		defer s.e.ScriptEnded()
	}
	fs.curMu.Lock()
	fs.cur = &runningFunction{name: f.name, argv: c.Args, start: time.Now()}
	fs.curMu.Unlock()
	defer func() {
		fs.curMu.Lock()
		fs.cur = nil
		fs.curMu.Unlock()
	}()
	// The tables are new at every call and hold copies: a function may
	// keep them in an upvalue past the command.
	L := v.L
	keys := L.CreateTable(numkeys, 0)
	for i, k := range c.Args[3 : 3+numkeys] {
		keys.RawSetInt(i+1, lua.LString(string(k)))
	}
	rest := c.Args[3+numkeys:]
	args := L.CreateTable(len(rest), 0)
	for i, a := range rest {
		args.RawSetInt(i+1, lua.LString(string(a)))
	}
	v.run(c, f.sc, f.fn, c.Args[3:3+numkeys], readOnly || f.flags&flagNoWrites != 0, keys, args)
}

// persistFunctions stores the libraries in the command's transaction, so
// they survive a restart with the AOF (engine/functions_store.go). Under
// fs.mu.
func (s *Service) persistFunctions(c *engine.Call) {
	if c.Tx == nil || !c.Tx.Writable() {
		return
	}
	if len(s.funcs.set.libs) == 0 {
		c.Tx.PutFunctions(nil)
		return
	}
	c.Tx.PutFunctions(dumpLibraries(s.funcs.set))
}

// loadStoredFunctions restores what the AOF held at startup.
func (s *Service) loadStoredFunctions() {
	payload, ok := s.e.StoredFunctions()
	if !ok {
		return
	}
	fs := &s.funcs
	fs.run.Lock()
	defer fs.run.Unlock()
	v := s.functionState()
	set, err := v.restoreLibraries(payload)
	if err != nil {
		s.opts.Logf("warning", "Failed loading the stored functions: %s", err)
		return
	}
	fs.mu.Lock()
	fs.set = set
	fs.mu.Unlock()
}

func (s *Service) cmdFunctionLoad(c *engine.Call) {
	replace := false
	i := 2
	for ; i < len(c.Args)-1; i++ {
		if !engine.EqualFold(c.Args[i], "replace") {
			c.Errf("ERR Unknown option given: %s", c.Args[i])
			return
		}
		replace = true
	}
	if i >= len(c.Args) {
		c.Err(errCodeMissing)
		return
	}
	fs := &s.funcs
	fs.run.Lock()
	defer fs.run.Unlock()
	v := s.functionState()
	fs.mu.Lock()
	defer fs.mu.Unlock()
	lib, err := v.createLibrary(string(c.Args[i]), replace, fs.set)
	if err != nil {
		c.Errf("ERR %s", err)
		return
	}
	s.persistFunctions(c)
	c.W.BulkString(lib.name)
}

func (s *Service) cmdFunctionDelete(c *engine.Call) {
	fs := &s.funcs
	fs.mu.Lock()
	defer fs.mu.Unlock()
	lib := fs.set.libs[string(c.Args[2])]
	if lib == nil {
		c.Err(errLibraryNotFound)
		return
	}
	fs.set.unlink(lib)
	s.persistFunctions(c)
	c.OK()
}

func (s *Service) cmdFunctionFlush(c *engine.Call) {
	switch {
	case len(c.Args) > 3:
		subcommandSyntax(c)
		return
	case len(c.Args) == 3 && !engine.EqualFold(c.Args[2], "sync") && !engine.EqualFold(c.Args[2], "async"):
		c.Err(errFunctionFlush)
		return
	}
	fs := &s.funcs
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.set = newLibSet()
	s.persistFunctions(c)
	c.OK()
}

// subcommandSyntax is addReplySubcommandSyntaxError.
func subcommandSyntax(c *engine.Call) {
	c.Errf("ERR unknown subcommand or wrong number of arguments for '%s'. Try FUNCTION HELP.", c.Args[1])
}

func (s *Service) cmdFunctionList(c *engine.Call) {
	withCode := false
	var pattern []byte
	hasPattern := false
	for i := 2; i < len(c.Args); i++ {
		a := c.Args[i]
		if !withCode && engine.EqualFold(a, "withcode") {
			withCode = true
			continue
		}
		if !hasPattern && engine.EqualFold(a, "libraryname") {
			if i >= len(c.Args)-1 {
				c.Err(errLibraryNameArg)
				return
			}
			i++
			pattern, hasPattern = c.Args[i], true
			continue
		}
		c.Errf("ERR Unknown argument %s", a)
		return
	}
	fs := &s.funcs
	fs.mu.RLock()
	libs := fs.set.sorted()
	fs.mu.RUnlock()
	if hasPattern {
		kept := libs[:0]
		for _, l := range libs {
			if engine.Glob(pattern, unsafe.Slice(unsafe.StringData(l.name), len(l.name)), true) {
				kept = append(kept, l)
			}
		}
		libs = kept
	}
	w := c.W
	w.Array(len(libs))
	for _, l := range libs {
		if withCode {
			w.Map(4)
		} else {
			w.Map(3)
		}
		w.BulkString("library_name")
		w.BulkString(l.name)
		w.BulkString("engine")
		w.BulkString("LUA")
		w.BulkString("functions")
		w.Array(len(l.fns))
		for _, f := range l.fns {
			w.Map(3)
			w.BulkString("name")
			w.BulkString(f.name)
			w.BulkString("description")
			if f.hasDesc {
				w.BulkString(f.desc)
			} else {
				w.Null()
			}
			w.BulkString("flags")
			n := 0
			for bit := range scriptFlagNames {
				if f.flags&(1<<bit) != 0 {
					n++
				}
			}
			w.Set(n)
			for bit, name := range scriptFlagNames {
				if f.flags&(1<<bit) != 0 {
					w.Status(name)
				}
			}
		}
		if withCode {
			w.BulkString("library_code")
			w.BulkString(l.code)
		}
	}
}

// evalRunning reports whether a script (not a function) runs now.
func (s *Service) evalRunning() bool {
	s.poolMu.Lock()
	defer s.poolMu.Unlock()
	for _, v := range s.all {
		if v.intr.state.Load() != 0 {
			return true
		}
	}
	return false
}

func (s *Service) cmdFunctionStats(c *engine.Call) {
	fs := &s.funcs
	// Held while the reply is written: the running command's arguments
	// are only valid until it ends.
	fs.curMu.Lock()
	defer fs.curMu.Unlock()
	cur := fs.cur
	if cur == nil && s.e.ScriptBusy() && s.evalRunning() {
		c.Err(errBusyEval)
		return
	}
	libs, fns := fs.stats()
	w := c.W
	w.Map(2)
	w.BulkString("running_script")
	if cur == nil {
		w.Null()
	} else {
		w.Map(3)
		w.BulkString("name")
		w.BulkString(cur.name)
		w.BulkString("command")
		w.Array(len(cur.argv))
		for _, a := range cur.argv {
			w.Bulk(a)
		}
		w.BulkString("duration_ms")
		w.Int(time.Since(cur.start).Milliseconds())
	}
	w.BulkString("engines")
	w.Map(1)
	w.BulkString("LUA")
	w.Map(2)
	w.BulkString("libraries_count")
	w.Int(int64(libs))
	w.BulkString("functions_count")
	w.Int(int64(fns))
}

func (s *Service) cmdFunctionKill(c *engine.Call) {
	fs := &s.funcs
	fs.curMu.Lock()
	running := fs.cur != nil
	fs.curMu.Unlock()
	switch {
	case running && fs.v != nil && fs.v.intr.kill():
		c.OK()
	case s.evalRunning():
		c.Err(errBusyEval)
	default:
		c.Err(errNotBusy)
	}
}

// functionRunning reports whether a function runs now (SCRIPT KILL
// refuses to stop it).
func (s *Service) functionRunning() bool {
	fs := &s.funcs
	fs.curMu.Lock()
	defer fs.curMu.Unlock()
	return fs.cur != nil
}

func (s *Service) cmdFunctionDump(c *engine.Call) {
	fs := &s.funcs
	fs.mu.RLock()
	payload := dumpLibraries(fs.set)
	fs.mu.RUnlock()
	c.W.Bulk(payload)
}

func (s *Service) cmdFunctionRestore(c *engine.Call) {
	if len(c.Args) > 4 {
		subcommandSyntax(c)
		return
	}
	policy := "append"
	if len(c.Args) == 4 {
		switch {
		case engine.EqualFold(c.Args[3], "append"):
		case engine.EqualFold(c.Args[3], "replace"):
			policy = "replace"
		case engine.EqualFold(c.Args[3], "flush"):
			policy = "flush"
		default:
			c.Err(errRestorePolicy)
			return
		}
	}
	fs := &s.funcs
	fs.run.Lock()
	defer fs.run.Unlock()
	v := s.functionState()
	set, err := v.restoreLibraries(c.Args[2])
	if err != nil {
		if err == errBadPayload {
			c.Err(err)
		} else {
			c.Errf("ERR %s", err)
		}
		return
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if policy == "flush" {
		fs.set = set
	} else if err := joinLibraries(fs.set, set, policy == "replace"); err != nil {
		c.Errf("ERR %s", err)
		return
	}
	s.persistFunctions(c)
	c.OK()
}

// joinLibraries is libraryJoin: it adds src's libraries to dst, replacing
// the ones of the same name when replace is set, and changes nothing on a
// collision.
func joinLibraries(dst, src *libSet, replace bool) error {
	var replaced []*library
	undo := func() {
		for _, l := range replaced {
			dst.link(l)
		}
	}
	for _, l := range src.sorted() {
		old := dst.libs[l.name]
		if old == nil {
			continue
		}
		if !replace {
			undo()
			return fmt.Errorf("Library %s already exists", l.name)
		}
		dst.unlink(old)
		replaced = append(replaced, old)
	}
	for _, l := range src.sorted() {
		for _, f := range l.fns {
			if dst.byName[strings.ToLower(f.name)] != nil {
				undo()
				return fmt.Errorf("Function %s already exists", f.name)
			}
		}
	}
	for _, l := range src.sorted() {
		dst.link(l)
	}
	return nil
}

var functionHelp = []string{
	"FUNCTION <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"LOAD [REPLACE] <FUNCTION CODE>",
	"    Create a new library with the given library name and code.",
	"DELETE <LIBRARY NAME>",
	"    Delete the given library.",
	"LIST [LIBRARYNAME PATTERN] [WITHCODE]",
	"    Return general information on all the libraries:",
	"    * Library name",
	"    * The engine used to run the Library",
	"    * Library description",
	"    * Functions list",
	"    * Library code (if WITHCODE is given)",
	"    It also possible to get only function that matches a pattern using LIBRARYNAME argument.",
	"STATS",
	"    Return information about the current function running:",
	"    * Function name",
	"    * Command used to run the function",
	"    * Duration in MS that the function is running",
	"    If no function is running, return nil",
	"    In addition, returns a list of available engines.",
	"KILL",
	"    Kill the current running function.",
	"FLUSH [ASYNC|SYNC]",
	"    Delete all the libraries.",
	"    When called without the optional mode argument, the behavior is determined by the",
	"    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
	"    * ASYNC: Asynchronously flush the libraries.",
	"    * SYNC: Synchronously flush the libraries.",
	"DUMP",
	"    Return a serialized payload representing the current libraries, can be restored using FUNCTION RESTORE command",
	"RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
	"    Restore the libraries represented by the given payload, it is possible to give a restore policy to",
	"    control how to handle existing libraries (default APPEND):",
	"    * FLUSH: delete all existing libraries.",
	"    * APPEND: appends the restored libraries to the existing libraries. On collision, abort.",
	"    * REPLACE: appends the restored libraries to the existing libraries, On collision, replace the old",
	"      libraries with the new libraries (notice that even on this option there is a chance of failure",
	"      in case of functions name collision with another library).",
	"HELP",
	"    Prints this help.",
}

func cmdFunctionHelp(c *engine.Call) { engine.WriteHelp(c.W, functionHelp) }
