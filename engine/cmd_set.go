package engine

// Set commands, as t_set.c in Redis 7.0.

func setCommands() []*Command {
	return []*Command{
		{Name: "sadd", Handler: cmdSadd},
		{Name: "srem", Handler: cmdSrem},
		{Name: "sismember", Handler: cmdSismember},
		{Name: "smismember", Handler: cmdSmismember},
		{Name: "smembers", Handler: cmdSmembers},
		{Name: "scard", Handler: cmdScard},
		{Name: "spop", Handler: cmdSpop},
		{Name: "srandmember", Handler: cmdSrandmember},
		{Name: "smove", Handler: cmdSmove},
		{Name: "sscan", Handler: cmdSscan},
	}
}

func cmdSadd(c *Call) {
	key := c.Args[1]
	s, exp, err := loadSet(c.Tx, key, false)
	if err != nil {
		c.Err(err)
		return
	}
	if s == nil {
		s = newSetFor(c.Args[2])
	}
	added := s.addMany(c.Args[2:])
	if added > 0 {
		storeSet(c.Tx, key, s, exp)
		c.Tx.Notify(NotifySet, "sadd", key)
	}
	c.W.Int(int64(added))
}

func cmdSrem(c *Call) {
	key := c.Args[1]
	s, exp, err := loadSet(c.Tx, key, false)
	if err != nil {
		c.Err(err)
		return
	}
	if s == nil {
		c.W.Int(0)
		return
	}
	deleted := s.removeMany(c.Args[2:])
	if deleted > 0 {
		storeSet(c.Tx, key, s, exp)
		c.Tx.Notify(NotifySet, "srem", key)
		if s.size() == 0 {
			c.Tx.Notify(NotifyGeneric, "del", key)
		}
	}
	c.W.Int(int64(deleted))
}

func cmdSismember(c *Call) {
	s, _, err := loadSet(c.Tx, c.Args[1], true)
	switch {
	case err != nil:
		c.Err(err)
	case s != nil && s.has(c.Args[2]):
		c.W.Int(1)
	default:
		c.W.Int(0)
	}
}

func cmdSmismember(c *Call) {
	s, _, err := loadSet(c.Tx, c.Args[1], true)
	if err != nil {
		c.Err(err)
		return
	}
	c.W.Array(len(c.Args) - 2)
	for _, m := range c.Args[2:] {
		if s != nil && s.has(m) {
			c.W.Int(1)
		} else {
			c.W.Int(0)
		}
	}
}

// replySetMembers writes every member as a set reply.
func replySetMembers(c *Call, s *setObj) {
	if s == nil {
		c.W.Set(0)
		return
	}
	n := s.size()
	c.W.Set(n)
	for i := 0; i < n; i++ {
		c.W.BulkString(s.member(i))
	}
}

func cmdSmembers(c *Call) {
	s, _, err := loadSet(c.Tx, c.Args[1], true)
	if err != nil {
		c.Err(err)
		return
	}
	replySetMembers(c, s)
}

func cmdScard(c *Call) {
	s, _, err := loadSet(c.Tx, c.Args[1], true)
	switch {
	case err != nil:
		c.Err(err)
	case s == nil:
		c.W.Int(0)
	default:
		c.W.Int(int64(s.size()))
	}
}

func cmdSpop(c *Call) {
	if len(c.Args) > 3 {
		c.Err(ErrSyntax)
		return
	}
	hasCount := len(c.Args) == 3
	var count int64
	if hasCount {
		var err error
		if count, err = parsePositiveCount(c.Args[2], nil); err != nil {
			c.Err(err)
			return
		}
	}
	key := c.Args[1]
	s, exp, err := loadSet(c.Tx, key, false)
	switch {
	case err != nil:
		c.Err(err)
		return
	case s == nil && hasCount:
		c.W.Set(0)
		return
	case s == nil:
		c.W.Null()
		return
	}
	if !hasCount {
		i := c.E.randIntN(s.size())
		c.Tx.Notify(NotifySet, "spop", key) // before the reply, as Redis
		c.W.BulkString(s.member(i))
		s.removeAt(i)
		storeSet(c.Tx, key, s, exp)
		if s.size() == 0 {
			c.Tx.Notify(NotifyGeneric, "del", key)
		}
		return
	}
	if count == 0 {
		c.W.Set(0)
		return
	}
	c.Tx.Notify(NotifySet, "spop", key)
	size := s.size()
	if count >= int64(size) {
		replySetMembers(c, s)
		c.Tx.Delete(key)
		c.Tx.Notify(NotifyGeneric, "del", key)
		return
	}
	remaining := size - int(count)
	c.W.Set(int(count))
	if remaining*5 > int(count) {
		popped := make([]bool, size)
		for _, i := range randomDistinct(c.E, size, int(count)) {
			c.W.BulkString(s.member(i))
			popped[i] = true
		}
		s.removeMarked(popped)
		storeSet(c.Tx, key, s, exp)
		return
	}
	// Redis moves the few remaining members into a new set, whose
	// encoding is chosen afresh (a hashtable of integers becomes an
	// intset), and replies with what is left in the old one.
	keep := make([]bool, size)
	for _, i := range randomDistinct(c.E, size, remaining) {
		keep[i] = true
	}
	var rest *setObj
	var kept [][]byte
	for i := 0; i < size; i++ {
		m := s.member(i)
		if !keep[i] {
			c.W.BulkString(m)
			continue
		}
		if rest == nil {
			rest = newSetFor(StringBytes(m))
		}
		kept = append(kept, StringBytes(m))
	}
	rest.addMany(kept)
	storeSet(c.Tx, key, rest, exp)
}

func cmdSrandmember(c *Call) {
	if len(c.Args) > 3 {
		c.Err(ErrSyntax)
		return
	}
	var count int64
	if len(c.Args) == 3 {
		var err error
		if count, err = parseRandCount(c.Args[2]); err != nil {
			c.Err(err)
			return
		}
	}
	s, _, err := loadSet(c.Tx, c.Args[1], true)
	if err != nil {
		c.Err(err)
		return
	}
	if len(c.Args) == 2 {
		if s == nil {
			c.W.Null()
			return
		}
		c.W.BulkString(s.member(c.E.randIntN(s.size())))
		return
	}
	if s == nil || count == 0 {
		c.W.Array(0)
		return
	}
	c.W.Array(int(randomReplyLen(count, s.size())))
	eachRandom(c.E, count, s.size(), func(i int) { c.W.BulkString(s.member(i)) })
}

func cmdSmove(c *Call) {
	srcKey, dstKey, m := c.Args[1], c.Args[2], c.Args[3]
	src, sexp, serr := loadSet(c.Tx, srcKey, false)
	if src == nil && serr == nil {
		c.W.Int(0)
		return
	}
	dst, dexp, derr := loadSet(c.Tx, dstKey, false)
	if serr != nil {
		c.Err(serr)
		return
	}
	if derr != nil {
		c.Err(derr)
		return
	}
	if string(srcKey) == string(dstKey) {
		if src.has(m) {
			c.W.Int(1)
		} else {
			c.W.Int(0)
		}
		return
	}
	if !src.remove(m) {
		c.W.Int(0)
		return
	}
	storeSet(c.Tx, srcKey, src, sexp)
	c.Tx.Notify(NotifySet, "srem", srcKey)
	if src.size() == 0 {
		c.Tx.Notify(NotifyGeneric, "del", srcKey)
	}
	if dst == nil {
		dst = newSetFor(m)
	}
	if dst.add(m) {
		storeSet(c.Tx, dstKey, dst, dexp)
		c.Tx.Notify(NotifySet, "sadd", dstKey)
	}
	c.W.Int(1)
}

func cmdSscan(c *Call) {
	scanCollection(c, loadSet, func(s *setObj) ([]scanItem, bool, bool) {
		items := make([]scanItem, s.size())
		for i := range items {
			items[i].key = s.member(i)
		}
		return items, s.intset, false
	})
}
