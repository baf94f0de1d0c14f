package engine

// One transaction per read (issue #21). A connection's pipeline arrives in
// reads of many commands; run one by one, each command pays a keyspace
// transaction of its own: buntdb's Begin and commit, the engine lock, the
// ordered after-commit step and (appendfsync always) a group-commit wait.
// A Batch runs consecutive commands of one read in one transaction, with
// the replies of one-by-one execution:
//
//   - only what cannot tell the difference joins: a normal client's
//     keyspace commands that neither block, run scripts, control MULTI,
//     subscribe nor administer (BatchCommand), while nothing watches what
//     a command does between its run and its commit (BatchOpen: client
//     tracking, maxmemory, a replication listener, a pause, a running
//     script, MONITOR, MULTI, CLIENT REPLY OFF/SKIP);
//   - each command passes dispatchClient's checks (checkClient) at its
//     position, so a refused command answers its error and the batch
//     goes on;
//   - a command that changed a key a blocked client or the lock registry
//     follows ends the batch (handsOver): Committing serves them once per
//     transaction, and Redis serves blocked clients after each command,
//     so the next command must see what they took;
//   - the transaction writes if any member writes (the caller decides up
//     front), so a read that finds a key expired deletes it at once, as
//     the write that may follow would.
//
// The replies stay in the caller's writer until Run returns: after the
// commit, the deletion of expired keys found by reads and the fsync of
// appendfsync always.

// Batch is the running batch, handed to RunBatch's body.
type Batch struct {
	e     *Engine
	s     *Session
	tx    *Tx
	body  func(*Batch)
	ended bool
	// replies counts the commands answered since the first write
	// (CommitFailed answers each of them with the disk error).
	replies int
}

// BatchCommand returns the command args names if it may join a batch
// (RunBatch), nil if it runs alone, as before; write says whether it
// writes. Its own checks (ACL, arity...) are not made here: they run at
// its turn in the batch. Whether the session and the server let batches
// run at all is BatchOpen's.
func (e *Engine) BatchCommand(args [][]byte) (cmd *Command, write bool) {
	if len(args) == 0 {
		return nil, false
	}
	cmd = e.Table.Lookup(args)
	if cmd == nil || cmd == e.execCmd || cmd.Flags&batchRefusedFlags != 0 ||
		cmd.Flags&(FlagWrite|FlagReadonly) == 0 { // neither: nothing known to be safe
		return nil, false
	}
	switch cmd.Name {
	case "flushall", "flushdb", "swapdb":
		// Whole databases: SWAPDB serves blocked clients and the lock
		// queue itself (swapdb.go), not through the keys it touched.
		return nil, false
	}
	return cmd, cmd.Flags&(FlagWrite|FlagWriteTx) != 0
}

// batchRefusedFlags keep a command out of batches: it runs no
// transaction of its own, may block or roll back (scripts), changes the
// connection's mode, or is an administrator's.
const batchRefusedFlags = FlagNoKeyspace | FlagBlocking | FlagRunsScript | FlagMultiControl |
	FlagReceivesPushes | FlagPubSub | FlagProtected | FlagAdmin | FlagEndsMulti | FlagNoMulti |
	FlagMayReplicate | FlagModule

// BatchOpen reports whether the session and the server let commands run
// in batches now (see the file comment).
func (e *Engine) BatchOpen(s *Session) bool {
	if s.Kind != KindClient || s.Direct || s.InMulti() || s.Subscriptions() > 0 || s.Monitoring() ||
		s.track != nil || s.ReplyMuted() || s.CloseAfterReply || s.Blocked != nil {
		return false
	}
	g := &e.guards
	if e.tracker.active() || g.maxMemory.Load() > 0 || g.scriptsRunning.Load() > 0 ||
		g.busyScripts.Load() > 0 || e.forcedErr.Load() != nil || e.ks.IsLoading() || e.ks.Recording() {
		return false
	}
	return !e.pauseActive()
}

// pauseActive reports whether a pause holds commands back now.
func (e *Engine) pauseActive() bool {
	p := &e.pause
	p.mu.Lock()
	defer p.mu.Unlock()
	return !p.until.IsZero()
}

// RunBatch runs body in one keyspace transaction on the session's
// database, exclusive when write is set; body runs each command with
// Batch.Dispatch. When RunBatch returns the transaction has committed
// (and, appendfsync always, is on disk): the replies may go out.
func (e *Engine) RunBatch(s *Session, write bool, body func(*Batch)) {
	tx := e.getTx()
	tx.client = s
	tx.cmdBatch = Batch{e: e, s: s, tx: tx, body: body}
	e.Stats.Batches.Add(1)
	e.do(tx, write, s.DB, runBatch)
}

// runBatch is the body of the transaction RunBatch opens.
func runBatch(tx *Tx) {
	b := &tx.cmdBatch
	b.body(b)
}

// Dispatch runs one command of the batch, as Engine.Dispatch would run it
// alone, writing its reply to w; cmd is what BatchCommand returned for
// args. ran is false when the command was not run (the batch ended before
// it, or the server's state no longer lets it join): the caller runs it
// alone after RunBatch returned. more is false when the batch must end
// after this command.
func (b *Batch) Dispatch(cmd *Command, args [][]byte, w Writer) (ran, more bool) {
	e, s, tx := b.e, b.s, b.tx
	if b.ended || !e.BatchOpen(s) {
		b.ended = true
		return false, false
	}
	cmd, now, ok := e.checkClient(s, args, w, cmd)
	if ok {
		write := cmd.Flags&(FlagWrite|FlagWriteTx) != 0
		if write && !tx.retractable && b.replies == 0 {
			// A failed commit retracts the replies from the first write
			// on (CommitFailed).
			tx.replyMark, tx.retractable = replyMark(w)
		}
		if tx.retractable {
			b.replies++
		}
		touched, quiet := len(tx.touched), len(tx.quietTouched)
		tx.call = Call{E: e, S: s, Args: args, Cmd: cmd, Tx: tx}
		tx.callW, tx.callStart = w, now
		e.call(&tx.call, w, now)
		if len(tx.quietTouched) != quiet || e.handsOver(tx.touched[touched:]) {
			b.ended = true
		}
	} else if tx.retractable {
		b.replies++
	}
	e.Stats.Batched.Add(1)
	return true, !b.ended
}

// handsOver reports whether a change to one of keys may hand something to
// another client when the transaction commits (Committing): a client
// blocked on it, the lock queue's waiters, grants and deadlines, a lock
// session. The batch then ends, so that the next command sees what they
// took, as Redis serves blocked clients after each command. A WATCH is
// no reason: it only marks the watcher's transaction as failed, which
// nobody can see before the commit, and the watcher is another client
// (the batch's own session is not in MULTI).
func (e *Engine) handsOver(keys []dbKey) bool {
	for _, k := range keys {
		if e.blocks.waitsOn(k) || e.locks.follows(k) {
			return true
		}
	}
	return false
}
