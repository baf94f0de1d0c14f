package engine

// Expiry commands.

func expireCommands() []*Command {
	return []*Command{
		{Name: "pttl", Arity: 2, Flags: FlagReadonly | FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdPTTL},
	}
}

func cmdPTTL(c *Call) {
	v, ok := c.Tx.Get(c.Args[1])
	switch {
	case !ok:
		c.W.Int(-2)
	case v.ExpireAt == 0:
		c.W.Int(-1)
	default:
		c.W.Int(v.ExpireAt - c.Tx.Ms)
	}
}
