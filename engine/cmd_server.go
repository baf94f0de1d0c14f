package engine

import (
	"errors"
	"strconv"

	"github.com/lockredis/lockredis/keyspace"
)

// Server commands: INFO (info.go), CONFIG (config.go), COMMAND
// (command.go), CLIENT (client.go), and here the small ones: DBSIZE,
// FLUSHDB, FLUSHALL, TIME, WAIT, WAITAOF, LASTSAVE, SAVE, BGSAVE.

// Error replies of this file's commands (errors.go has the shared ones).
var (
	errNotPositive       = errors.New("ERR value is out of range, must be positive")
	errWaitAOFLocalRange = errors.New("ERR value is out of range, value must between 0 and 1")
	errWaitAOFNoAOF      = errors.New("ERR WAITAOF cannot be used when numlocal is set but appendonly is disabled.")
)

func serverCommands() []*Command {
	cmds := []*Command{
		{Name: "dbsize", Handler: cmdDBSize},
		{Name: "flushdb", Handler: cmdFlushDB},
		{Name: "flushall", Handler: cmdFlushAll},
		{Name: "time", Handler: cmdTime},
		{Name: "wait", Handler: cmdWait},
		// WAITAOF is Redis 7.2's; Redisson probes it.
		{Name: "waitaof", Handler: cmdWaitAOF},
		{Name: "lastsave", Handler: cmdLastSave},
		{Name: "save", Handler: cmdSave},
		{Name: "bgsave", Handler: cmdBgsave},
		// Persistence (persist.go): BGREWRITEAOF compacts the AOF.
		{Name: "bgrewriteaof", Handler: cmdBgrewriteaof},
	}
	cmds = append(cmds, clientCommands()...)
	cmds = append(cmds, configCommands()...)
	cmds = append(cmds, commandCommands()...)
	cmds = append(cmds, infoCommands()...)
	return cmds
}

func cmdDBSize(c *Call) { c.W.Int(c.Tx.KeyCount(c.Tx.DB)) }

// flushArg checks FLUSHDB/FLUSHALL's optional ASYNC|SYNC. Both flush at
// once here: there is no background freeing to ask for.
func flushArg(c *Call) bool {
	if len(c.Args) > 2 || len(c.Args) == 2 && !EqualFold(c.Args[1], "async") && !EqualFold(c.Args[1], "sync") {
		c.Err(ErrSyntax)
		return false
	}
	return true
}

func cmdFlushDB(c *Call) {
	if !flushArg(c) {
		return
	}
	c.Tx.FlushDB(c.Tx.DB)
	c.OK()
}

func cmdFlushAll(c *Call) {
	if !flushArg(c) {
		return
	}
	c.Tx.FlushAll()
	c.OK()
}

// cmdTime answers the engine clock, so FastForward moves it too.
func cmdTime(c *Call) {
	now := c.E.Clock.Now()
	var sec, usec [20]byte
	c.W.Array(2)
	c.W.Bulk(strconv.AppendInt(sec[:0], now.Unix(), 10))
	c.W.Bulk(strconv.AppendInt(usec[:0], int64(now.Nanosecond()/1000), 10))
}

// cmdWait answers 0 replicas at once: there are none. Redis, asked for
// more than 0 replicas, would first block until the timeout.
func cmdWait(c *Call) {
	if _, ok := ParseInt(c.Args[1]); !ok {
		c.Err(ErrNotInteger)
		return
	}
	if _, ok := parseMsTimeout(c, c.Args[2]); !ok {
		return
	}
	c.W.Int(0)
}

// cmdWaitAOF validates as Redis 7.2 and answers [0, 0]: no fsync is
// acknowledged and there are no replicas. Redis would block until the
// timeout when it cannot satisfy the request; this answers at once.
// TODO: acknowledge the local fsync once persistence exists.
func cmdWaitAOF(c *Call) {
	numLocal, ok := ParseInt(c.Args[1])
	if !ok {
		c.Err(ErrNotInteger)
		return
	}
	if numLocal < 0 || numLocal > 1 {
		c.Err(errWaitAOFLocalRange)
		return
	}
	numReplicas, ok := ParseInt(c.Args[2])
	if !ok {
		c.Err(ErrNotInteger)
		return
	}
	if numReplicas < 0 {
		c.Err(errNotPositive)
		return
	}
	if _, ok := parseMsTimeout(c, c.Args[3]); !ok {
		return
	}
	if numLocal > 0 && !c.E.cfg.AppendOnly {
		c.Err(errWaitAOFNoAOF)
		return
	}
	c.W.Array(2)
	c.W.Int(0)
	c.W.Int(0)
}

// cmdLastSave answers when the append-only file was last fsynced or
// rewritten (the start time without one), in unix seconds.
func cmdLastSave(c *Call) { c.W.Int(c.E.Persistence().LastSave) }

// cmdSave fsyncs the append-only file: every commit is already written to
// it, so that is what is left to make it durable. In memory it does
// nothing.
func cmdSave(c *Call) {
	if err := c.E.SyncAOF(); err != nil {
		c.Errf("ERR fsync of the append only file failed: %v", err)
		return
	}
	c.OK()
}

// cmdBgsave fsyncs the append-only file in the background.
func cmdBgsave(c *Call) {
	if len(c.Args) > 2 || len(c.Args) == 2 && !EqualFold(c.Args[1], "schedule") {
		c.Err(ErrSyntax)
		return
	}
	go c.E.SyncAOF()
	c.W.Status("Background saving started")
}

// cmdBgrewriteaof compacts the append-only file in the background
// (buntdb Shrink). In memory there is nothing to rewrite; it answers as
// Redis does anyway.
func cmdBgrewriteaof(c *Call) {
	if err := c.E.RewriteAOF(); err != nil && err != keyspace.ErrNoAOF {
		c.Err(err)
		return
	}
	c.W.Status("Background append only file rewriting started")
}
