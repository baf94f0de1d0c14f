package engine

// Lock commands: what a server that knows it holds locks answers. Fencing
// tokens (token.go) are kept with every key, whichever client made it.

func lockCommands() []*Command {
	return []*Command{
		{Name: "lock.token", Handler: cmdLockToken},
		{Name: "lock.check", Handler: cmdLockCheck},
	}
}

// cmdLockToken answers LOCK.TOKEN key: the key's fencing token, nil when
// the key does not exist.
func cmdLockToken(c *Call) {
	token, ok := c.Tx.Token(c.Args[1])
	if !ok {
		c.W.Null()
		return
	}
	c.W.Int(int64(token))
}

// cmdLockCheck answers LOCK.CHECK key token: 1 when the key exists and its
// token is token, else 0 (Chubby's CheckSequencer, for resources that
// cannot keep the largest token they have seen).
func cmdLockCheck(c *Call) {
	want, ok := ParseInt(c.Args[2])
	if !ok {
		c.Err(ErrNotInteger)
		return
	}
	token, exists := c.Tx.Token(c.Args[1])
	if exists && int64(token) == want {
		c.W.Int(1)
		return
	}
	c.W.Int(0)
}
