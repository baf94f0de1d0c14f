// Package luasvc is lockredis's scripting: EVAL, EVALSHA, EVAL_RO,
// EVALSHA_RO and SCRIPT, and Redis 7 functions (FUNCTION, FCALL,
// FCALL_RO: functions.go), run by gopher-lua in a sandbox shaped like Redis
// 7.0's: the same globals and libraries (base, string, table, math,
// coroutine, cjson, bit, struct, cmsgpack, redis), read-only tables, the
// redis.* API, the reply conversions and the error texts.
//
// A script runs as one unit inside the caller's engine transaction: EVAL
// takes the exclusive one, so every redis.call sees the same frozen "now"
// and nothing interleaves. A script that runs past the time limit, grows
// the heap by more than 1 GB, or is stopped by SCRIPT KILL, is
// interrupted and its writes are rolled back (Redis can only kill scripts
// that have not written yet).
//
// Known differences from Redis 7.0, all in corner cases:
//   - Runtime type errors name the variable as Lua 5.1 does ("attempt to
//     index local 't' (a nil value)", varname.go) when they end the
//     script; caught by pcall they do not ("attempt to index a nil
//     value"). Some syntax errors are reported as "unexpected symbol"
//     where Lua 5.1 names what it expected ("'=' expected near 'x'"). Argument numbers
//     of method calls (s:rep()) count the receiver.
//   - tostring and the string library format numbers like Lua 5.1
//     ("%.14g"); the .. operator uses gopher-lua's formatting
//     (0.1 + 0.2 .. "" is "0.30000000000000004", Lua says "0.3").
//   - Calls nest 5000 deep, not 20000 ("stack overflow" earlier).
//   - string.dump gives Lua 5.1's header and the source name, not Lua
//     5.1 bytecode; like Redis's, no script can load it.
//   - next(t, k) with a key not in t returns nil instead of raising.
//   - cjson's settings (encode_max_depth...) are reset before every
//     script; in Redis they leak from one script to the next. Objects are
//     written in gopher-lua's table order.
//   - collectgarbage and gcinfo report a constant size and never collect.
//   - Results, string.rep, gsub, format, table.concat and the cjson,
//     struct and cmsgpack encoders stop at 512 MB ("resulting string too
//     large"); Redis runs out of memory instead.
//   - SCRIPT DEBUG only accepts NO.
package luasvc

import (
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lockredis/lockredis/engine"
	lua "github.com/yuin/gopher-lua"
)

// Options configures the scripting service.
type Options struct {
	// TimeLimit, when not zero, replaces the engine's lua-hard-time-limit:
	// a script that runs longer is stopped and its writes rolled back
	// (negative: never; SCRIPT KILL still works). Past the engine's
	// busy-reply-threshold (lua-time-limit) other clients get BUSY.
	TimeLimit time.Duration
	// Logf receives redis.log lines ("debug", "verbose", "notice",
	// "warning") and the service's own warnings.
	Logf func(level, format string, args ...any)
	// LuaOnly runs every script in Lua, the lock scripts native.go
	// knows included (for tests that compare the two).
	LuaOnly bool
}

// sha1hex is the SHA1 of a script's source as SCRIPT LOAD returns it.
func sha1hex(src string) string {
	sum := sha1.Sum([]byte(src))
	return hex.EncodeToString(sum[:])
}

// limits are the busy threshold and the hard limit of a run starting now.
func (s *Service) limits() (busy, hard time.Duration) {
	busy, hard = s.e.ScriptLimits()
	switch {
	case s.opts.TimeLimit > 0:
		hard = s.opts.TimeLimit
	case s.opts.TimeLimit < 0:
		hard = 0
	}
	return busy, hard
}

// Service holds the script cache and the Lua states of one engine.
type Service struct {
	e    *engine.Engine
	opts Options

	mu      sync.RWMutex
	scripts map[string]*script // lower-case hex SHA1 -> script
	bodies  map[string]*script // source -> script, so EVAL skips hashing
	gen     atomic.Uint64      // bumped by SCRIPT FLUSH
	// scriptMem is used_memory_scripts_eval: the cached scripts' bodies
	// and SHAs, kept as they are added so INFO need not walk the cache.
	scriptMem int64

	memLimit uint64 // heap growth that stops a script (tests lower it)
	// replyTableLimit bounds the tables of a script's return value
	// (maxReplyTables; tests lower it).
	replyTableLimit int

	// primary runs every script that holds the exclusive transaction
	// (made at the first script: a Lua state is most of an idle
	// server's memory, and many test servers never run a script);
	// spare states serve EVAL_RO under the shared one, where several can
	// run at once.
	primary *vm
	poolMu  sync.Mutex
	spare   []*vm
	all     []*vm // every state, for SCRIPT KILL

	bySHA map[*engine.Command]bool // EVALSHA, EVALSHA_RO: args[1] is a SHA
	byFn  map[*engine.Command]bool // FCALL, FCALL_RO: args[1] is a function

	funcs functions // FUNCTION and FCALL (functions.go)
}

// script is one cached script: its source and compiled code. Protos are
// read-only and shared by every Lua state.
type script struct {
	sha      string
	body     string
	proto    *lua.FunctionProto
	shebang  bool // "#!lua" header: flags below are declared
	noWrites bool // flags=no-writes
	allowOOM bool // flags=allow-oom
	// flags=no-cluster, flags=allow-cross-slot-keys (cluster mode:
	// engine/cmd_cluster.go)
	noCluster, crossSlot bool
	// native is the Go body of a lock script clients send verbatim
	// (native.go), nil for any other.
	native *nativeScript
}

// Register creates the service and adds the scripting commands to e's
// command table.
func Register(e *engine.Engine, opts Options) *Service {
	if opts.Logf == nil {
		opts.Logf = func(string, string, ...any) {}
	}
	s := &Service{
		e:        e,
		opts:     opts,
		scripts:  make(map[string]*script),
		bodies:   make(map[string]*script),
		memLimit: memoryLimit,

		replyTableLimit: maxReplyTables,
	}
	s.funcs.set = newLibSet()
	e.Table.RegisterWith(Specs(), s.commands()...)
	e.Table.RegisterWith(Specs(), s.functionCommands()...)
	s.bySHA = map[*engine.Command]bool{
		e.Table.Get([]byte("evalsha")): true, e.Table.Get([]byte("evalsha_ro")): true,
	}
	s.byFn = map[*engine.Command]bool{
		e.Table.Get([]byte("fcall")): true, e.Table.Get([]byte("fcall_ro")): true,
	}
	e.SetScriptFlags(s.commandFlags) // guards.go
	e.SetFunctionCount(s.counts)
	e.AfterLoad(s.loadStoredFunctions) // the libraries the keyspace holds
	return s
}

func (s *Service) commands() []*engine.Command {
	return []*engine.Command{
		{Name: "eval", Handler: s.cmdEval},
		{Name: "evalsha", Handler: s.cmdEvalSHA},
		{Name: "eval_ro", Handler: s.cmdEval},
		{Name: "evalsha_ro", Handler: s.cmdEvalSHA},
		{Name: "script", Subcommands: []*engine.Command{
			{Name: "debug", Handler: s.cmdScriptDebug},
			{Name: "exists", Handler: s.cmdScriptExists},
			{Name: "flush", Handler: s.cmdScriptFlush},
			{Name: "help", Handler: cmdScriptHelp},
			{Name: "kill", Handler: s.cmdScriptKill},
			{Name: "load", Handler: s.cmdScriptLoad},
		}},
	}
}

// Errors with Redis's wording.
var (
	errNoScript       = errors.New("NOSCRIPT No matching script. Please use EVAL.")
	errKeysTooMany    = errors.New("ERR Number of keys can't be greater than number of args")
	errKeysNegative   = errors.New("ERR Number of keys can't be negative")
	errNotBusy        = errors.New("NOTBUSY No scripts in execution right now.")
	errWriteFlagRO    = errors.New("ERR Can not execute a script with write flag using *_ro command.")
	errFlushOption    = errors.New("ERR SCRIPT FLUSH only support SYNC|ASYNC option")
	errDebugOption    = errors.New("ERR Use SCRIPT DEBUG YES/SYNC/NO")
	errDebugSupported = errors.New("ERR SCRIPT DEBUG is not supported by lockredis: only SCRIPT DEBUG NO")
)

func (s *Service) cmdEval(c *engine.Call) {
	numkeys, ok := parseNumKeys(c)
	if !ok {
		return
	}
	sc, err := s.load(c.Args[1])
	if err != nil {
		c.Err(err)
		return
	}
	s.run(c, sc, numkeys)
}

func (s *Service) cmdEvalSHA(c *engine.Call) {
	// Redis answers NOSCRIPT before looking at numkeys when the SHA cannot
	// be one.
	if len(c.Args[1]) != 40 {
		c.Err(errNoScript)
		return
	}
	numkeys, ok := parseNumKeys(c)
	if !ok {
		return
	}
	sc := s.lookup(c.Args[1])
	if sc == nil {
		c.Err(errNoScript)
		return
	}
	s.run(c, sc, numkeys)
}

func parseNumKeys(c *engine.Call) (int, bool) {
	n, ok := engine.ParseInt(c.Args[2])
	switch {
	case !ok:
		c.Err(engine.ErrNotInteger)
		return 0, false
	case n > int64(len(c.Args)-3):
		c.Err(errKeysTooMany)
		return 0, false
	case n < 0:
		c.Err(errKeysNegative)
		return 0, false
	}
	return int(n), true
}

// run executes sc for c: keys are the numkeys arguments after numkeys.
func (s *Service) run(c *engine.Call, sc *script, numkeys int) {
	readOnly := c.Cmd.Flags.Has(engine.FlagReadonly)
	if sc.shebang && sc.noCluster && s.e.ClusterEnabled() {
		c.Err(engine.ErrScriptNoCluster)
		return
	}
	if readOnly && sc.shebang && !sc.noWrites {
		c.Err(errWriteFlagRO)
		return
	}
	if sc.shebang && !sc.noWrites {
		// scriptPrepareForRun: what declares writes cannot start on a
		// failing disk or, without allow-oom, past maxmemory.
		if disk := s.e.DiskError(); disk != "" {
			c.Errf("MISCONF Redis is configured to persist data to AOF, but it's currently unable to persist to disk. "+
				"Writable scripts are blocked. Use 'no-writes' flag for read only scripts. AOF error: %s",
				strings.TrimPrefix(disk, "MISCONF Errors writing to the AOF file: "))
			return
		}
		if s.e.NoGoodReplicas() {
			c.Errf("NOREPLICAS Not enough good replicas to write.")
			return
		}
		if !sc.allowOOM && s.e.PreCommandOOM(c.S) {
			c.Errf("OOM allow-oom flag is not set on the script, can not run it when used memory > 'maxmemory'")
			return
		}
	}
	v := s.acquire(c.Tx)
	if v == s.primary {
		// It holds the exclusive transaction: clients wait for it to end
		// or turn busy (engine/guards.go).
		s.e.ScriptStarted()
		defer s.e.ScriptEnded()
	}
	keys, args := c.Args[3:3+numkeys], c.Args[3+numkeys:]
	if ns := sc.native; ns != nil && len(keys) >= ns.keys && len(args) >= ns.args {
		v.execNative(c, sc, ns, keys, args, readOnly)
	} else {
		v.exec(c, sc, keys, args, readOnly || sc.noWrites)
	}
	s.release(v)
}

// commandFlags are the flags Redis's processCommand judges EVAL and
// EVALSHA by (evalGetCommandFlags): a script with a shebang declares its
// own (scriptFlagsToCmdFlags), one without keeps the command's.
func (s *Service) commandFlags(cmd *engine.Command, args [][]byte) engine.Flags {
	f := cmd.Flags
	if len(args) < 2 {
		return f
	}
	var sc *script
	if s.byFn[cmd] {
		if f := s.funcs.lookup(args[1]); f != nil {
			sc = f.sc
		}
	} else if s.bySHA[cmd] {
		sc = s.lookup(args[1])
	} else {
		s.mu.RLock()
		sc = s.bodies[string(args[1])]
		s.mu.RUnlock()
		if sc == nil {
			sc = &script{}
			if _, err := parseShebang(string(args[1]), sc); err != nil {
				return f
			}
		}
	}
	if sc == nil || !sc.shebang {
		return f
	}
	f &^= engine.FlagStale | engine.FlagDenyOOM | engine.FlagWrite | engine.FlagMayReplicate
	if !sc.allowOOM && !sc.noWrites {
		f |= engine.FlagDenyOOM
	}
	if !sc.noWrites {
		f |= engine.FlagWrite
	}
	return f
}

// acquire returns a Lua state for a script running in tx. A script that
// holds the exclusive transaction is alone: it gets the primary state.
// Read-only scripts share the keyspace and each need their own.
func (s *Service) acquire(tx *engine.Tx) *vm {
	s.poolMu.Lock()
	defer s.poolMu.Unlock()
	if tx == nil || tx.Writable() {
		if s.primary == nil {
			s.primary = s.newVM()
			s.all = append(s.all, s.primary)
		}
		return s.primary
	}
	if n := len(s.spare); n > 0 {
		v := s.spare[n-1]
		s.spare = s.spare[:n-1]
		return v
	}
	v := s.newVM()
	s.all = append(s.all, v)
	return v
}

func (s *Service) release(v *vm) {
	if v == s.primary {
		return
	}
	s.poolMu.Lock()
	s.spare = append(s.spare, v)
	s.poolMu.Unlock()
}

// lookup finds a cached script by SHA1, in any case.
func (s *Service) lookup(sha []byte) *script {
	var buf [40]byte
	if len(sha) != len(buf) {
		return nil
	}
	for i, ch := range sha {
		if 'A' <= ch && ch <= 'Z' {
			ch += 'a' - 'A'
		}
		buf[i] = ch
	}
	s.mu.RLock()
	sc := s.scripts[string(buf[:])]
	s.mu.RUnlock()
	return sc
}

// load returns the cached script with this source, compiling and caching
// it the first time.
func (s *Service) load(body []byte) (*script, error) {
	s.mu.RLock()
	sc := s.bodies[string(body)]
	s.mu.RUnlock()
	if sc != nil {
		return sc, nil
	}
	sha := sha1hex(string(body))
	s.mu.RLock()
	sc = s.scripts[sha]
	s.mu.RUnlock()
	if sc != nil {
		return sc, nil
	}
	sc, err := compileScript(sha, string(body))
	if err != nil {
		return nil, err
	}
	if !s.opts.LuaOnly {
		sc.native = nativeBySHA[sha]
	}
	s.mu.Lock()
	if old := s.scripts[sha]; old != nil {
		sc = old
	} else {
		s.scripts[sha] = sc
		s.bodies[sc.body] = sc
		s.scriptMem += int64(len(sha) + len(sc.body))
	}
	s.mu.Unlock()
	return sc, nil
}

// counts are INFO memory's figures: the functions' and the script
// cache's. A cached script is counted as its body and SHA, as Redis counts
// its two strings.
func (s *Service) counts() engine.FunctionCounts {
	fc := s.funcs.counts()
	s.mu.RLock()
	fc.Scripts = len(s.scripts)
	fc.ScriptMemory = s.scriptMem
	s.mu.RUnlock()
	return fc
}

// Flush empties the script cache (SCRIPT FLUSH).
func (s *Service) Flush() {
	s.mu.Lock()
	s.scripts = make(map[string]*script)
	s.bodies = make(map[string]*script)
	s.scriptMem = 0
	s.gen.Add(1)
	s.mu.Unlock()
}

// Kill stops every running script (SCRIPT KILL) and reports whether there
// was one. Their writes are rolled back.
func (s *Service) Kill() bool {
	s.poolMu.Lock()
	defer s.poolMu.Unlock()
	killed := false
	for _, v := range s.all {
		if v.intr.kill() {
			killed = true
		}
	}
	return killed
}

func (s *Service) cmdScriptLoad(c *engine.Call) {
	sc, err := s.load(c.Args[2])
	if err != nil {
		c.Err(err)
		return
	}
	c.W.BulkString(sc.sha)
}

func (s *Service) cmdScriptExists(c *engine.Call) {
	shas := c.Args[2:]
	c.W.Array(len(shas))
	for _, sha := range shas {
		if s.lookup(sha) != nil {
			c.W.Int(1)
		} else {
			c.W.Int(0)
		}
	}
}

func (s *Service) cmdScriptFlush(c *engine.Call) {
	switch {
	case len(c.Args) == 2:
	case len(c.Args) == 3 && (engine.EqualFold(c.Args[2], "sync") || engine.EqualFold(c.Args[2], "async")):
	default:
		c.Err(errFlushOption)
		return
	}
	s.Flush()
	c.OK()
}

func (s *Service) cmdScriptKill(c *engine.Call) {
	if !s.Kill() {
		if s.functionRunning() {
			c.Err(errBusyFunction) // a function: FUNCTION KILL stops it
			return
		}
		c.Err(errNotBusy)
		return
	}
	c.OK()
}

func (s *Service) cmdScriptDebug(c *engine.Call) {
	switch {
	case engine.EqualFold(c.Args[2], "no"):
		c.OK()
	case engine.EqualFold(c.Args[2], "yes"), engine.EqualFold(c.Args[2], "sync"):
		c.Err(errDebugSupported)
	default:
		c.Err(errDebugOption)
	}
}

var scriptHelp = []string{
	"SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"DEBUG (YES|SYNC|NO)",
	"    Set the debug mode for subsequent scripts executed.",
	"EXISTS <sha1> [<sha1> ...]",
	"    Return information about the existence of the scripts in the script cache.",
	"FLUSH [ASYNC|SYNC]",
	"    Flush the Lua scripts cache. Very dangerous on replicas.",
	"    When called without the optional mode argument, the behavior is determined by the",
	"    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
	"    * ASYNC: Asynchronously flush the scripts cache.",
	"    * SYNC: Synchronously flush the scripts cache.",
	"KILL",
	"    Kill the currently executing Lua script.",
	"LOAD <script>",
	"    Load a script into the scripts cache without executing it.",
	"HELP",
	"    Prints this help.",
}

func cmdScriptHelp(c *engine.Call) { engine.WriteHelp(c.W, scriptHelp) }

// Shebang flags Redis 7.0 accepts ("#!lua flags=no-writes,allow-oom").
var shebangFlags = map[string]bool{
	"no-writes": true, "allow-oom": true, "allow-stale": true,
	"no-cluster": true, "allow-cross-slot-keys": true,
}

// parseShebang reads an optional "#!lua [flags=a,b]" first line. It
// returns the length of that line (the newline stays in the code, so line
// numbers do not move).
func parseShebang(body string, sc *script) (int, error) {
	if !strings.HasPrefix(body, "#!") {
		return 0, nil
	}
	end := strings.IndexByte(body, '\n')
	if end < 0 {
		return 0, errors.New("ERR Invalid script shebang")
	}
	parts := strings.Fields(body[:end])
	if len(parts) == 0 {
		return 0, errors.New("ERR Invalid engine in script shebang")
	}
	if parts[0] != "#!lua" {
		return 0, errors.New("ERR Unexpected engine in script shebang: " + parts[0])
	}
	sc.shebang = true
	for _, p := range parts[1:] {
		list, ok := strings.CutPrefix(p, "flags=")
		if !ok {
			return 0, errors.New("ERR Unknown lua shebang option: " + p)
		}
		if list == "" {
			continue
		}
		for _, f := range strings.Split(list, ",") {
			if !shebangFlags[f] {
				return 0, errors.New("ERR Unexpected flag in script shebang: " + f)
			}
			switch f {
			case "no-writes":
				sc.noWrites = true
			case "allow-oom":
				sc.allowOOM = true
			case "no-cluster":
				sc.noCluster = true
			case "allow-cross-slot-keys":
				sc.crossSlot = true
			}
		}
	}
	return end, nil
}

// compileScript parses the shebang and compiles the code, with Redis's
// error texts.
func compileScript(sha, body string) (*script, error) {
	sc := &script{sha: sha, body: body}
	skip, err := parseShebang(body, sc)
	if err != nil {
		return nil, err
	}
	proto, err := compile(body[skip:], "@"+scriptChunk, 0)
	if err != nil {
		return nil, errors.New("ERR Error compiling script (new function): " + err.Error())
	}
	sc.proto = proto
	return sc, nil
}
