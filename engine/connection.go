package engine

// Connection commands: they change or read the session, never the keyspace.

func connectionCommands() []*Command {
	return []*Command{
		{Name: "ping", Arity: -1, Flags: FlagFast | FlagPubSub | FlagNoKeyspace | FlagStale | FlagLoading, Handler: cmdPing},
		{Name: "echo", Arity: 2, Flags: FlagFast | FlagNoKeyspace | FlagStale | FlagLoading, Handler: cmdEcho},
		{Name: "select", Arity: 2, Flags: FlagFast | FlagNoKeyspace | FlagLoading | FlagStale, Handler: cmdSelect},
		{Name: "quit", Arity: -1, Flags: FlagFast | FlagNoKeyspace | FlagNoAuth | FlagNoScript | FlagLoading | FlagStale | FlagPubSub, Handler: cmdQuit},
	}
}

func cmdPing(c *Call) {
	if len(c.Args) > 2 {
		c.Err(ErrArity("ping"))
		return
	}
	if c.S.Sub.Load()+c.S.PSub.Load()+c.S.SSub.Load() > 0 && c.S.Proto == 2 {
		// RESP2 subscribers get ["pong", message].
		c.W.Array(2)
		c.W.BulkString("pong")
		if len(c.Args) == 2 {
			c.W.Bulk(c.Args[1])
		} else {
			c.W.BulkString("")
		}
		return
	}
	if len(c.Args) == 2 {
		c.W.Bulk(c.Args[1])
		return
	}
	c.W.Status("PONG")
}

func cmdEcho(c *Call) { c.W.Bulk(c.Args[1]) }

func cmdSelect(c *Call) {
	n, ok := ParseInt(c.Args[1])
	if !ok {
		c.Err(ErrInvalidDB)
		return
	}
	if n < 0 || n >= int64(c.E.Databases()) {
		c.Err(ErrDBIndex)
		return
	}
	c.S.SelectDB(int(n))
	c.OK()
}

func cmdQuit(c *Call) {
	c.S.CloseAfterReply = true
	c.OK()
}
