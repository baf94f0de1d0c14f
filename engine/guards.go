package engine

import (
	"sync/atomic"
	"time"

	"github.com/lockredis/lockredis/keyspace"
)

// The server-state refusals of Redis 7.0's processCommand, in its order
// after authentication and the no-multi check (and ACLs):
//
//   - OOM: past maxmemory, commands flagged denyoom are refused (inside
//     MULTI every command but those ending it, FlagEndsMulti); nothing
//     is ever evicted: maxmemory-policy is noeviction only.
//   - MISCONF: while the append-only file cannot be written or fsynced,
//     write commands (and PING, FlagDiskCheck) are refused.
//   - NOREPLICAS: with min-replicas-to-write and min-replicas-max-lag
//     both above 0, write commands are refused: lockredis is a master
//     that never has a good replica (checkGoodReplicasStatus).
//   - BUSY: while a script runs past busy-reply-threshold (lua-time-limit),
//     every command without allow_busy is refused at once instead of
//     waiting for the engine lock the script holds.
//
// For EXEC the queued commands' flags count (Redis's mstate.cmd_flags), and
// for EVAL of a script with a shebang the flags it declares (luasvc sets
// ScriptFlags). A script's redis.call is refused OOM or MISCONF only for
// its first write (scriptVerifyOOM, scriptVerifyWriteCommandAllow): once it
// wrote, it cannot be failed halfway.

// Error replies of this file's commands (errors.go has the shared ones).
var (
	// errBusyFunction is Redis's shared.slowscripterr: the busy script is a
	// function.
	errBusyFunction = replyError("BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.")
	errBusyScript   = replyError("BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.")
	errOOM          = replyError("OOM command not allowed when used memory > 'maxmemory'.")
	errNoReplicas   = replyError("NOREPLICAS Not enough good replicas to write.")
)

// Defaults of the script limits.
const (
	DefaultBusyThreshold   = 5 * time.Second  // lua-time-limit, busy-reply-threshold
	DefaultScriptHardLimit = 60 * time.Second // lua-hard-time-limit
)

// Memory accounting. used_memory is not the Go heap (shared by every
// engine of a process, full of garbage until the next GC, so a DEL would
// not free anything until then): it is the keyspace's estimate of itself
// (keyspace/memory.go), kept exact at every commit, plus what an empty
// engine holds (135 KB measured with runtime.MemStats.HeapAlloc after a
// GC).
const engineBaseMemory = 128 << 10

// bindGuardParams binds the limits kept here: script run times in ms,
// maxmemory in bytes, the replicas writes need.
func (e *Engine) bindGuardParams() {
	g := &e.guards
	for name, v := range map[string]*atomic.Int64{
		"busy-reply-threshold":  &g.busyThreshold,
		"lua-hard-time-limit":   &g.hardLimit,
		"maxmemory":             &g.maxMemory,
		"min-replicas-to-write": &g.minReplicas,
		"min-replicas-max-lag":  &g.maxLag,
	} {
		e.bindParam(name, intParam(v))
	}
}

// ScriptLimits are the busy-reply threshold (lua-time-limit) and the hard
// limit that stops a script (lua-hard-time-limit, 0: never), read at the
// start of every script.
func (e *Engine) ScriptLimits() (busy, hard time.Duration) {
	return time.Duration(e.guards.busyThreshold.Load()) * time.Millisecond,
		time.Duration(e.guards.hardLimit.Load()) * time.Millisecond
}

// SetScriptBusy marks a running script as past the busy threshold (on)
// or no longer (off): every on is followed by one off.
func (e *Engine) SetScriptBusy(on bool) {
	if on {
		e.guards.busyScripts.Add(1)
		e.guards.wakeGate()
	} else {
		e.guards.busyScripts.Add(-1)
	}
}

// ScriptStarted and ScriptEnded bracket a script that holds the exclusive
// transaction (luasvc).
func (e *Engine) ScriptStarted() { e.guards.scriptsRunning.Add(1) }

// ScriptEnded is ScriptStarted's other half: the commands waitForScript
// held back while the script ran go on.
func (e *Engine) ScriptEnded() {
	e.guards.scriptsRunning.Add(-1)
	e.guards.wakeGate()
}

func (g *guards) wakeGate() {
	g.gateMu.Lock()
	if g.gateWake != nil {
		close(g.gateWake)
		g.gateWake = nil
	}
	g.gateMu.Unlock()
}

// waitForScript holds a command that needs the keyspace while a script
// holds it and is not yet past the busy threshold, as Redis leaves it
// unread meanwhile; once the script ends the command runs, once it turns
// busy the command gets BUSY (unless allow_busy) instead of waiting for
// the engine lock until the script ends.
func (e *Engine) waitForScript(cmd *Command, done <-chan struct{}) error {
	g := &e.guards
	for g.scriptsRunning.Load() > 0 && g.busyScripts.Load() == 0 {
		g.gateMu.Lock()
		if g.scriptsRunning.Load() == 0 || g.busyScripts.Load() > 0 {
			g.gateMu.Unlock()
			break
		}
		if g.gateWake == nil {
			g.gateWake = make(chan struct{})
		}
		wake := g.gateWake
		g.gateMu.Unlock()
		select {
		case <-wake:
		case <-done:
			return nil
		}
	}
	return e.busyRefusal(cmd)
}

// ScriptBusy reports whether a script runs past the busy threshold.
func (e *Engine) ScriptBusy() bool { return e.guards.busyScripts.Load() > 0 }

// SetScriptFlags registers how EVAL's effective flags are found (luasvc).
func (e *Engine) SetScriptFlags(fn func(cmd *Command, args [][]byte) Flags) {
	e.guards.scriptFlags.Store(&fn)
}

// UsedMemory is what maxmemory is compared with (INFO's used_memory).
func (e *Engine) UsedMemory() int64 { return engineBaseMemory + e.ks.Dataset() }

// MaxMemory is maxmemory in bytes, 0 for no limit.
func (e *Engine) MaxMemory() int64 { return e.guards.maxMemory.Load() }

// outOfMemory is Redis's performEvictions() == EVICT_FAIL under
// noeviction: used memory is past maxmemory.
func (e *Engine) outOfMemory() bool {
	max := e.guards.maxMemory.Load()
	return max > 0 && e.UsedMemory() > max
}

// effectiveFlags are the flags processCommand judges a command by: EXEC's
// are its queue's, EVAL's those its script declares.
func (e *Engine) effectiveFlags(s *Session, cmd *Command, args [][]byte) Flags {
	if cmd == e.execCmd {
		var f Flags
		if s.multi != nil {
			for _, q := range s.multi.queue {
				f |= e.scriptOrOwnFlags(q.cmd, q.args)
			}
		}
		return cmd.Flags | f
	}
	return e.scriptOrOwnFlags(cmd, args)
}

func (e *Engine) scriptOrOwnFlags(cmd *Command, args [][]byte) Flags {
	if cmd.Flags.Has(FlagRunsScript) {
		if fn := e.guards.scriptFlags.Load(); fn != nil {
			return (*fn)(cmd, args)
		}
	}
	return cmd.Flags
}

// stateRefusal is the OOM, MISCONF and NOREPLICAS checks of processCommand for a
// client's command, nil when it may go on. It also records whether the
// server was out of memory when the command started, for the scripts it
// runs (Redis's pre_command_oom_state).
func (e *Engine) stateRefusal(s *Session, cmd *Command, args [][]byte) error {
	oom := e.outOfMemory()
	s.preOOM = oom
	disk := e.ks.DiskError()
	if !oom && disk == "" && !e.NoGoodReplicas() {
		return nil
	}
	flags := e.effectiveFlags(s, cmd, args)
	if oom {
		refuse := flags.Has(FlagDenyOOM)
		// Queuing may use any amount of memory: only what ends the
		// transaction passes.
		if s.InMulti() && !cmd.Flags.Has(FlagEndsMulti) {
			refuse = true
		}
		if refuse {
			return errOOM
		}
	}
	if disk != "" && flags&(FlagWrite|FlagDiskCheck) != 0 {
		return replyError(disk)
	}
	if flags.Has(FlagWrite) && e.NoGoodReplicas() {
		return errNoReplicas
	}
	return nil
}

// NoGoodReplicas tells whether writes are refused NOREPLICAS now: Redis's
// !checkGoodReplicasStatus() on a master whose good replicas are none.
func (e *Engine) NoGoodReplicas() bool {
	return e.guards.minReplicas.Load() > 0 && e.guards.maxLag.Load() > 0
}

// busyRefusal is processCommand's check for a script running too long.
func (e *Engine) busyRefusal(cmd *Command) error {
	if e.guards.busyScripts.Load() > 0 && !cmd.Flags.Has(FlagAllowBusy) {
		if e.functions.busy.Load() > 0 {
			return errBusyFunction // functions_store.go
		}
		return errBusyScript
	}
	return nil
}

// scriptStateRefusal is scriptCall's OOM and MISCONF checks for a command
// a script calls: only its first write may be refused.
func (e *Engine) scriptStateRefusal(s *Session, cmd *Command) error {
	if s.ScriptDirty {
		return nil
	}
	if cmd.Flags.Has(FlagWrite) {
		if disk := e.ks.DiskError(); disk != "" {
			return replyError(disk)
		}
		if e.NoGoodReplicas() {
			return errNoReplicas
		}
	}
	if cmd.Flags.Has(FlagDenyOOM) && !s.ScriptAllowOOM && e.guards.maxMemory.Load() > 0 &&
		s.ScriptCaller != nil && s.ScriptCaller.S.preOOM {
		return errOOM
	}
	return nil
}

// DiskError is the MISCONF reply write commands get now, "" when none.
func (e *Engine) DiskError() string { return e.ks.DiskError() }

// Retractor is a Writer that can take back the reply of a command that
// has not been sent yet: a command whose write could not reach the disk
// (buntdb rolled it back after the handler replied) answers MISCONF
// instead of the success its handler wrote.
type Retractor interface {
	ReplyMark() uint64
	RetractReply(mark uint64) bool
}

func replyMark(w Writer) (uint64, bool) {
	if r, ok := w.(Retractor); ok {
		return r.ReplyMark(), true
	}
	return 0, false
}

// replaceWithDiskError replaces the replies of n commands with MISCONF
// after their commit failed to write the append-only file.
func (e *Engine) replaceWithDiskError(w Writer, mark uint64, err error, n int) {
	r, ok := w.(Retractor)
	if !ok || !r.RetractReply(mark) {
		return
	}
	msg := keyspace.MisconfMessage(err)
	for range n {
		e.CountError(msg)
		w.Error(msg)
	}
}

// ReplyMark and RetractReply make the Recorder (the Go API's and tests'
// writer) a Retractor.
func (r *Recorder) ReplyMark() uint64 {
	if len(r.stack) > 0 {
		return 1 << 63 // inside an aggregate: cannot be retracted
	}
	return uint64(len(r.Replies))
}

// RetractReply drops the replies recorded since mark; false when it
// cannot (mark is inside an aggregate, or from another point).
func (r *Recorder) RetractReply(mark uint64) bool {
	if mark>>63 != 0 || len(r.stack) > 0 || mark > uint64(len(r.Replies)) {
		return false
	}
	r.Replies = r.Replies[:mark]
	return true
}

// PreCommandOOM reports whether the server was past maxmemory when s's
// current command started (Redis's pre_command_oom_state), for a script
// that declares writes without allow-oom.
func (e *Engine) PreCommandOOM(s *Session) bool {
	return s.preOOM && e.guards.maxMemory.Load() > 0
}

// errLoading is Redis's shared.loadingerr.
var errLoading = replyError("LOADING Redis is loading the dataset in memory")

// loadingRefusal is Redis's LOADING refusal: while Load runs, a command
// without the loading flag is refused, and so is one that needs the
// keyspace (Redis also lets WATCH, EXEC and DEBUG through; here they would
// need the keyspace that is not there yet).
func (e *Engine) loadingRefusal(cmd *Command) error {
	if !e.ks.IsLoading() {
		return nil
	}
	if cmd.Flags.Has(FlagLoading) && cmd.Flags.Has(FlagNoKeyspace) {
		return nil
	}
	return errLoading
}

// SetFunctionBusy is SetScriptBusy for a function (FCALL): other clients
// are told to use FUNCTION KILL rather than SCRIPT KILL.
func (e *Engine) SetFunctionBusy(on bool) {
	e.functions.running(on)
	e.SetScriptBusy(on)
}
