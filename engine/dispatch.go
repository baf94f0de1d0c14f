package engine

import (
	"errors"
	"strings"
	"time"
)

// Error replies of this file's commands (errors.go has the shared ones).
var (
	errMonitorKeyspace  = replyError("ERR Replica can't interact with the keyspace")
	errNotInMulti       = errors.New("ERR Command not allowed inside a transaction")
	errScriptNotAllowed = errors.New("ERR This Redis command is not allowed from script")
	// A script's redis.call is refused with texts of its own (scriptCall).
	errScriptUnknownCommand    = errors.New("ERR Unknown Redis command called from script")
	errScriptWriteFromReadOnly = errors.New("ERR Write commands are not allowed from read-only scripts.")
	errScriptWrongArity        = errors.New("ERR Wrong number of args calling Redis command from script")
)

// Dispatch is the one door every command passes, from a socket (resp/),
// from a script's redis.call (luasvc/) and from the Go API: Redis 7.0's
// processCommand (and, for scripts, scriptCall) in one function. The checks
// run in Redis's order:
//
//	HTTP-looking names (protect.go), lookup, arity, protected commands
//	(DEBUG), authentication, commands refused inside MULTI, ACL
//	permissions, keys in different slots (cluster mode, cmd_cluster.go),
//	OOM, MISCONF (guards.go), subscribed RESP2 context, a MONITOR
//	client's keyspace commands, LOADING (loading.go), BUSY (guards.go),
//	pause, MULTI queueing,
//	waiting for a running script;
//	for scripts: lookup and arity with their own texts, noscript
//	commands, ACL permissions, writes from read-only scripts, MISCONF
//	and OOM on the first write, keys in different slots (cluster mode),
//
// then call runs the handler, where the restart fence (which needs the
// transaction to see whether a key exists) is the last check, and records
// the statistics of INFO commandstats and errorstats.
//
// tx is nil for a command that opens its own transaction (a client's), the
// running transaction for a script's redis.call. EXEC runs its queue with
// call directly, as Redis's execCommand does: the commands were checked
// when they were queued (and their ACL permissions are checked again).
//
// Before the lookup, the Go API's SetError answers every command of a
// client or a script with its error (forced.go).
func (e *Engine) Dispatch(s *Session, tx *Tx, args [][]byte, w Writer) {
	if len(args) == 0 {
		return
	}
	if s.Kind == KindScript {
		e.dispatchScript(s, tx, args, w)
		return
	}
	cmd := e.dispatchClient(s, tx, args, w)
	if s.track != nil {
		e.tracker.commandDone(s, cmd)
	}
}

// dispatchClient is Dispatch for a client's command; it returns the
// command found, nil for an unknown one.
func (e *Engine) dispatchClient(s *Session, tx *Tx, args [][]byte, w Writer) *Command {
	cmd, now, ok := e.checkClient(s, args, w, nil)
	if ok {
		if s.BeforeRun != nil {
			s.BeforeRun(cmd)
		}
		e.run(s, tx, cmd, args, w, now)
	}
	return cmd
}

// checkClient runs dispatchClient's checks, in Redis's order; ok says the
// command is to run now (else it was refused or queued, and its reply
// written). batchCmd, when set, is the command as BatchCommand found it:
// it runs in a batch's transaction (batch.go), which already holds the
// engine lock, so it does not wait for a pause that began during the
// batch (Redis reads no other client's command in between either), and
// BatchOpen saw no script running and no MULTI.
func (e *Engine) checkClient(s *Session, args [][]byte, w Writer, batchCmd *Command) (cmd *Command, now time.Time, ok bool) {
	inBatch := batchCmd != nil
	// An HTTP request sent to the port (cross-protocol scripting): Redis
	// checks the name before anything else, so the connection closes
	// before a header or the body can run, even inside MULTI. Only for
	// connections: the Go API has no socket an attacker can reach.
	if s.Kind == KindClient && isCrossProtocolCommand(args[0]) {
		e.crossProtocolAttack(s) // protect.go
		return nil, now, false
	}
	if e.forcedRefusal(s, args, w) { // the Go API's SetError (forced.go)
		return nil, now, false
	}
	if cmd = batchCmd; cmd == nil {
		cmd = e.Table.Lookup(args)
	}
	if cmd == nil {
		e.reject(s, nil, args, w, unknownCommandOrSubcommand(e.Table, args))
		return cmd, now, false
	}
	now = time.Now()
	s.Touch(cmd.FullName, now)
	if !arityOK(cmd.Arity, len(args)) {
		e.reject(s, cmd, args, w, ErrArity(cmd.FullName))
		return cmd, now, false
	}
	if cmd.Flags.Has(FlagProtected) && !e.protectedAllowed(s, cmd) { // cmd_debug.go
		e.reject(s, cmd, args, w, errProtected(cmd))
		return cmd, now, false
	}
	if e.NeedsAuth(s) && !cmd.Flags.Has(FlagNoAuth) {
		e.reject(s, cmd, args, w, ErrNoAuth)
		return cmd, now, false
	}
	if s.InMulti() && cmd.Flags.Has(FlagNoMulti) {
		e.reject(s, cmd, args, w, errNotInMulti)
		return cmd, now, false
	}
	if e.aclRefuses(s, cmd, args, w) { // ACL permissions (acl_check.go)
		return cmd, now, false
	}
	// Cluster mode: keys in different slots (cmd_cluster.go).
	if e.cluster.enabled {
		if err := e.clusterRefusal(s, cmd, args); err != nil {
			if cmd == e.execCmd {
				e.rejectExecCrossSlot(s, cmd, w, err)
			} else {
				e.reject(s, cmd, args, w, err)
			}
			return cmd, now, false
		}
	}
	// maxmemory (OOM) and a failing disk (MISCONF): guards.go.
	if err := e.stateRefusal(s, cmd, args); err != nil {
		e.reject(s, cmd, args, w, err)
		return cmd, now, false
	}
	if s.Proto == 2 && !cmd.Flags.Has(FlagSubscribedOK) && s.Subscriptions() > 0 {
		e.reject(s, cmd, args, w, errSubscribedContext(cmd.FullName))
		return cmd, now, false
	}
	if s.Monitoring() && cmd.Flags&(FlagMayReplicate|FlagWrite|FlagReadonly) != 0 {
		e.reject(s, cmd, args, w, errMonitorKeyspace) // monitor.go
		return cmd, now, false
	}
	// The keyspace is still loading (loading.go).
	if err := e.loadingRefusal(cmd); err != nil {
		e.reject(s, cmd, args, w, err)
		return cmd, now, false
	}
	// A script past busy-reply-threshold holds the engine lock: refuse at
	// once rather than wait for it (guards.go).
	if err := e.busyRefusal(cmd); err != nil {
		e.reject(s, cmd, args, w, err)
		return cmd, now, false
	}
	if inBatch {
		return cmd, now, true
	}
	// CLIENT PAUSE (and Server.Pause) hold commands here, connections open.
	e.WaitPause(cmd, s.Done)
	// Keep the tracking table within tracking-table-max-keys.
	e.tracker.limit(s)
	if s.InMulti() && !cmd.Flags.Has(FlagMultiControl) {
		s.Queue(cmd, args)
		w.Status("QUEUED")
		return cmd, now, false
	}
	// A running script holds the keyspace: wait for it to end or to pass
	// busy-reply-threshold, then BUSY (guards.go).
	if !cmd.Flags.Has(FlagNoKeyspace) && e.guards.scriptsRunning.Load() > 0 {
		if err := e.waitForScript(cmd, s.Done); err != nil {
			e.reject(s, cmd, args, w, err)
			return cmd, now, false
		}
	}
	return cmd, now, true
}

// dispatchScript is Dispatch for redis.call: Redis's scriptCall, whose
// refusals have their own texts and never concern MULTI, subscriptions or
// pauses (the script already runs).
func (e *Engine) dispatchScript(s *Session, tx *Tx, args [][]byte, w Writer) {
	if e.forcedRefusal(s, args, w) { // the Go API's SetError (forced.go)
		return
	}
	cmd := e.Table.Lookup(args)
	switch {
	case cmd == nil:
		e.reject(s, nil, args, w, errScriptUnknownCommand)
	case !arityOK(cmd.Arity, len(args)):
		e.reject(s, cmd, args, w, errScriptWrongArity)
	case cmd.Flags.Has(FlagNoScript):
		e.reject(s, cmd, args, w, errScriptNotAllowed)
	case e.aclRefuses(s, cmd, args, w): // ACL permissions (acl_check.go)
	case s.ScriptReadOnly && cmd.Flags&(FlagWrite|FlagMayReplicate) != 0:
		e.reject(s, cmd, args, w, errScriptWriteFromReadOnly)
	default:
		// A script's first write: MISCONF, OOM (guards.go).
		if err := e.scriptStateRefusal(s, cmd); err != nil {
			e.reject(s, cmd, args, w, err)
			return
		}
		if cmd.Flags.Has(FlagWrite) {
			s.ScriptDirty = true
		}
		if e.cluster.enabled {
			if err := scriptClusterRefusal(s, cmd, args); err != nil { // cmd_cluster.go
				e.reject(s, cmd, args, w, err)
				return
			}
		}
		e.run(s, tx, cmd, args, w, time.Now())
	}
}

// run executes a checked command in its own transaction (tx nil) or in the
// running one, unless the command touches no key.
func (e *Engine) run(s *Session, tx *Tx, cmd *Command, args [][]byte, w Writer, start time.Time) {
	switch {
	case tx != nil:
		tx.DB = s.DB
		c := tx.pushCall()
		*c = Call{E: e, S: s, Args: args, Cmd: cmd, Tx: tx}
		e.call(c, w, start)
		tx.popCall()
	case cmd.Flags.Has(FlagNoKeyspace):
		c := &Call{E: e, S: s, Args: args, Cmd: cmd, canBlock: s.mayBlock()}
		e.call(c, w, start)
	default:
		// The Call lives in the pooled Tx and the body is a plain
		// function, so running a command allocates nothing here.
		tx := e.getTx()
		tx.client = s
		tx.call = Call{E: e, S: s, Args: args, Cmd: cmd, canBlock: s.mayBlock(), Tx: tx}
		tx.callW, tx.callStart = w, start
		tx.replyMark, tx.retractable = replyMark(w)
		e.do(tx, cmd.Flags&(FlagWrite|FlagWriteTx) != 0, s.DB, runCall)
	}
}

// mayBlock reports whether the session's own commands may wait: a
// connection's and the Go API's (Server.Do), not a script's nor the Go
// API's direct helpers.
func (s *Session) mayBlock() bool {
	return s.Kind == KindClient || (s.Kind == KindEmbed && !s.Direct)
}

// runCall is the body of the transaction run opens.
func runCall(tx *Tx) { tx.e.call(&tx.call, tx.callW, tx.callStart) }

// call runs the handler of a checked command and records its statistics,
// as Redis's call(). The handler writes through the Call's countingWriter,
// so that the error replies it writes are counted once, against it: a
// nested call (EXEC's queue, redis.call) counts its own errors, not its
// caller's.
func (e *Engine) call(c *Call, w Writer, start time.Time) {
	if cw, ok := w.(*countingWriter); ok {
		w = cw.Writer
	}
	c.cw = countingWriter{Writer: w, e: e}
	c.W = &c.cw
	if !c.S.Direct { // the Go API's back door is no client's command
		e.Stats.Commands.Add(1)
	}
	var outer *Call
	if c.Tx != nil && c.S.Kind != KindScript {
		// The client's command a script's redis.call runs for.
		outer, c.Tx.clientCall = c.Tx.clientCall, c
	}
	if c.Cmd.Flags.Has(FlagRunsScript) {
		e.ops.feedMonitorsNow(c.S, c.Args) // before the script's own commands
	}
	switch {
	case c.Tx == nil:
		c.Cmd.Handler(c)
	case e.fenceRefuses(c.Tx, c.Cmd, c.Args, c.W): // restart fence (fence.go)
	case c.Tx.Writable() && c.Cmd.Flags.Has(FlagDenyOOM) && !e.tokensReserved(c.W):
	default:
		c.Cmd.Handler(c)
	}
	if e.tracker.active() && c.Cmd.Flags.Has(FlagReadonly) && !c.Cmd.Flags.Has(FlagRunsScript) {
		e.rememberRead(c)
	}
	if c.Tx != nil && c.S.Kind != KindScript {
		c.Tx.clientCall = outer
	}
	d := time.Since(start)
	e.afterCall(c, d) // slow log, latency, MONITOR (ops.go)
	st := &e.tally.of(c.Cmd).stats
	st.calls.Add(1)
	st.usec.Add(d.Microseconds())
	if c.cw.errors > 0 || c.cw.failed {
		st.failed.Add(1)
	}
}

// rememberRead records the keys a read-only command read for a tracking
// client, as Redis's call(): a script's reads record the keys its caller
// declared (EVAL's keys), EVAL_RO and FCALL_RO themselves none.
func (e *Engine) rememberRead(c *Call) {
	s, cmd, args := c.S, c.Cmd, c.Args
	if s.Kind == KindScript {
		if c.Tx == nil || c.Tx.clientCall == nil {
			return
		}
		s, cmd, args = c.Tx.clientCall.S, c.Tx.clientCall.Cmd, c.Tx.clientCall.Args
	}
	if s.track == nil {
		return
	}
	e.tracker.rememberCall(c.Tx, s, cmd, args)
}

func (w *countingWriter) Error(msg string) {
	w.errors++
	w.e.CountError(msg)
	w.Writer.Error(msg)
}

// FlushPending and SetProto reach the connection's writer through the
// wrapper (pubsub's confirmations, HELLO's protocol switch).
func (w *countingWriter) FlushPending() {
	if f, ok := w.Writer.(Flusher); ok {
		f.FlushPending()
	}
}

// DoubleText reaches a writer that can send a double with Redis's text
// (GEOPOS's coordinates); others get the plain double.
func (w *countingWriter) DoubleText(f float64, text string) {
	if dw, ok := w.Writer.(DoubleTexter); ok {
		dw.DoubleText(f, text)
		return
	}
	w.Writer.Double(f)
}

func (w *countingWriter) SetProto(p int) {
	if pw, ok := w.Writer.(interface{ SetProto(int) }); ok {
		pw.SetProto(p)
	}
}

// ErrorCounted replies with an error that was already counted in the error
// statistics when it was first written: a script passing on the error of a
// redis.call. Like Redis (ignore_error_stats_update), the command still
// counts as failed. Writers that count nothing (a script's redis.call
// writer) need not have it.
func (w *countingWriter) ErrorCounted(msg string) {
	w.failed = true
	w.Writer.Error(msg)
}

// ErrorCounter is implemented by the writer a handler is given.
type ErrorCounter interface{ ErrorCounted(msg string) }

// unknownCommandOrSubcommand is Redis's commandCheckExistence: "unknown
// subcommand" when the container exists, else "unknown command".
func unknownCommandOrSubcommand(t *Table, args [][]byte) error {
	if cmd := t.Get(args[0]); cmd != nil && cmd.subs != nil {
		return ErrUnknownSubcommand(string(args[1]), strings.ToUpper(cmd.Name))
	}
	return unknownCommand(args)
}
