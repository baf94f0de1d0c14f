package engine

import (
	"time"
)

// MULTI/EXEC/DISCARD/WATCH/UNWATCH. The queue lives in the Session; the
// dispatcher queues what is not FlagMultiControl and EXEC runs the queue
// in one exclusive transaction with one frozen "now".

func multiCommands() []*Command {
	return []*Command{
		{Name: "multi", Handler: cmdMulti},
		{Name: "exec", Handler: cmdExec},
		{Name: "discard", Handler: cmdDiscard},
		{Name: "watch", Handler: cmdWatch},
		{Name: "unwatch", Handler: cmdUnwatch},
	}
}

// InMulti reports whether the session is queuing commands.
func (s *Session) InMulti() bool { return s.multi != nil }

// Queue adds a command to the MULTI queue. args must stay valid until EXEC.
func (s *Session) Queue(cmd *Command, args [][]byte) {
	s.multi.queue = append(s.multi.queue, queuedCommand{cmd, args})
	s.Multi.Store(int32(len(s.multi.queue)))
	// CLIENT LIST's multi-mem, as Redis's mstate.argv_len_sums: the
	// arguments' bytes and a pointer for each.
	n := int64(8 * len(args))
	for _, a := range args {
		n += int64(len(a))
	}
	s.multiMem.Add(n)
}

// QueueHas reports whether a queued command satisfies match.
func (s *Session) QueueHas(match func(*Command) bool) bool {
	if s.multi == nil {
		return false
	}
	for _, q := range s.multi.queue {
		if match(q.cmd) {
			return true
		}
	}
	return false
}

// FailMulti marks the transaction as failed: a command was rejected while
// queuing, so EXEC will answer EXECABORT.
func (s *Session) FailMulti() {
	if s.multi != nil {
		s.multi.failed = true
	}
}

func (s *Session) endMulti() {
	s.multi = nil
	s.Multi.Store(-1)
	s.multiMem.Store(0)
}

// ResetTransaction drops the MULTI queue and every WATCH (RESET, disconnect).
func (e *Engine) ResetTransaction(s *Session) {
	s.endMulti()
	e.unwatchAll(s)
}

func cmdMulti(c *Call) {
	if c.S.InMulti() {
		c.Err(ErrMultiNested)
		return
	}
	c.S.multi = &multiState{}
	c.S.Multi.Store(0)
	c.OK()
}

func cmdDiscard(c *Call) {
	if !c.S.InMulti() {
		c.Err(ErrDiscardNoMult)
		return
	}
	c.E.ResetTransaction(c.S)
	c.OK()
}

func cmdExec(c *Call) {
	s := c.S
	if !s.InMulti() {
		c.Err(ErrExecNoMulti)
		return
	}
	m := s.multi
	defer c.E.ResetTransaction(s)
	if m.failed {
		c.Err(ErrExecAbort)
		return
	}
	if c.E.watchBroken(c.Tx, s) {
		c.W.NullArray()
		return
	}
	c.W.Array(len(m.queue))
	for _, q := range m.queue {
		// Checked when queued: run, as Redis's execCommand calls call(),
		// unless the ACL rules changed since.
		if c.E.aclExecRefuses(s, q.cmd, q.args, c.W) {
			continue
		}
		c.E.run(s, c.Tx, q.cmd, q.args, c.W, time.Now())
	}
}

func cmdWatch(c *Call) {
	if c.S.InMulti() {
		c.Err(ErrWatchInMulti)
		return
	}
	s := c.S
	if s.watch == nil {
		s.watch = &watchSet{keys: make(map[dbKey]bool)}
		c.E.listening.Add(1)
	}
	for _, k := range c.Args[1:] {
		dk := dbKey{s.DB, string(k)}
		c.E.watches.add(s.watch, dk, c.Tx.StoredButExpired(s.DB, k))
	}
	c.OK()
}

func cmdUnwatch(c *Call) {
	c.E.unwatchAll(c.S)
	c.OK()
}

func (e *Engine) unwatchAll(s *Session) {
	if s.watch == nil {
		return
	}
	e.watches.remove(s.watch)
	s.watch = nil
	e.listening.Add(-1)
}

// watchBroken reports whether EXEC must fail: a watched key was changed, or
// has expired since it was watched (Redis's isWatchedKeyExpired).
func (e *Engine) watchBroken(tx *Tx, s *Session) bool {
	ws := s.watch
	if ws == nil {
		return false
	}
	if ws.dirty.Load() {
		return true
	}
	e.watches.mu.Lock()
	defer e.watches.mu.Unlock()
	for k, expiredWhenWatched := range ws.keys {
		if !expiredWhenWatched && tx.StoredButExpired(k.db, []byte(k.key)) {
			return true
		}
	}
	return false
}
