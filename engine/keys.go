package engine

// Key commands.

func keyCommands() []*Command {
	return []*Command{
		{Name: "del", Arity: -2, Flags: FlagWrite, FirstKey: 1, LastKey: -1, Step: 1, Handler: cmdDel},
	}
}

func cmdDel(c *Call) {
	var n int64
	for _, k := range c.Args[1:] {
		if c.Tx.Delete(k) {
			n++
		}
	}
	c.W.Int(n)
}
