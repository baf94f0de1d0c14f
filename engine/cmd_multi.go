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
