package engine

// SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE] [ABORT] and ROLE.
//
// SHUTDOWN stops the server cleanly, as SIGTERM does: the engine's Close
// fsyncs the AOF and writes the restart fence's clean-stop marker. The
// engine cannot stop the process itself: it logs Redis's "User requested
// shutdown...", closes the caller's connection without a reply (as
// redis-server does when it exits) and calls Config.Shutdown, which stops
// the server in the background. lockredis has no snapshots and no
// replicas: SAVE and NOSAVE change nothing (the AOF is fsynced either way,
// as Redis fsyncs it whatever the flags), NOW and FORCE have nothing to
// skip, and a shutdown never waits, so ABORT always finds none in
// progress.

// Error replies of this file's commands (errors.go has the shared ones).
var (
	errNoShutdown     = replyError("ERR No shutdown in progress.")
	errShutdownFailed = replyError("ERR Errors trying to SHUTDOWN. Check logs.")
)

func shutdownCommands() []*Command {
	return []*Command{
		{Name: "shutdown", Handler: cmdShutdown},
		{Name: "role", Handler: cmdRole},
		{Name: "swapdb", Handler: cmdSwapDB},
	}
}

func cmdShutdown(c *Call) {
	var f ShutdownFlags
	abort := false
	for _, a := range c.Args[1:] {
		switch {
		case EqualFold(a, "nosave"):
			f.NoSave = true
		case EqualFold(a, "save"):
			f.Save = true
		case EqualFold(a, "now"):
			f.Now = true
		case EqualFold(a, "force"):
			f.Force = true
		case EqualFold(a, "abort"):
			abort = true
		default:
			c.Err(ErrSyntax)
			return
		}
	}
	if abort && f != (ShutdownFlags{}) || f.NoSave && f.Save {
		c.Err(ErrSyntax)
		return
	}
	if abort {
		c.Err(errNoShutdown)
		return
	}
	if c.E.cfg.Shutdown == nil {
		c.E.Logf("warning", "SHUTDOWN refused: this server was assembled without a way to stop it")
		c.Err(errShutdownFailed)
		return
	}
	if !c.E.ops.shuttingDown.CompareAndSwap(false, true) {
		// Already stopping: this client waits for the end like the first.
		c.S.CloseAfterReply = true
		return
	}
	c.E.Logf("warning", "User requested shutdown...")
	if c.E.Persistence().Enabled {
		c.E.Logf("notice", "Calling fsync() on the AOF file.") // Close does it
	}
	c.S.CloseAfterReply = true // no reply: the connection just closes
	c.E.cfg.Shutdown(f)
}

// ShuttingDown reports whether SHUTDOWN was accepted.
func (e *Engine) ShuttingDown() bool { return e.ops.shuttingDown.Load() }

// cmdRole answers as a master without replicas: ["master", 0, []].
func cmdRole(c *Call) {
	c.W.Array(3)
	c.W.BulkString("master")
	c.W.Int(0)
	c.W.Array(0)
}
