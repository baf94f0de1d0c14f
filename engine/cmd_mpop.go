package engine

import (
	"errors"
	"math"
	"time"
)

// Multi-key pops, as Redis 7.0's t_list.c (LMPOP, BLMPOP) and t_zset.c
// (ZMPOP, BZMPOP, BZPOPMIN, BZPOPMAX). Each pops from the first key of
// its list that holds data. The blocking forms park the client with
// Call.Block when every key is empty (blocking.go): a later write to one
// of the keys runs the command again for the first waiter, on that key
// only, so a served waiter gets the reply of an immediate pop from it. In
// MULTI/EXEC and scripts they answer a null array at once, as Redis does
// for clients that may not block.

// Error replies of this file's commands (errors.go has the shared ones).
var (
	errCountPositive = errors.New("ERR count should be greater than 0")
)

func mpopCommands() []*Command {
	return []*Command{
		{Name: "lmpop", Handler: func(c *Call) { lmpopGeneric(c, 1, false) }},
		{Name: "blmpop", Handler: func(c *Call) { lmpopGeneric(c, 2, true) }},
		{Name: "zmpop", Handler: func(c *Call) { zmpopGeneric(c, 1, false) }},
		{Name: "bzmpop", Handler: func(c *Call) { zmpopGeneric(c, 2, true) }},
		{Name: "bzpopmin", Handler: func(c *Call) { bzpopGeneric(c, false) }},
		{Name: "bzpopmax", Handler: func(c *Call) { bzpopGeneric(c, true) }},
	}
}

// mpopArgs parses "numkeys key [key ...] <where> [COUNT count]" with
// numkeys at c.Args[numIdx] (lmpopGenericCommand, zmpopGenericCommand):
// parseWhere reads <where>. count is 1 when not given.
func mpopArgs(c *Call, numIdx int, parseWhere func([]byte) (bool, bool)) (keys [][]byte, where bool, count int64, err error) {
	numkeys, ok := ParseInt(c.Args[numIdx])
	if !ok || numkeys < 1 {
		return nil, false, 0, errNumkeysPositive
	}
	if numkeys >= int64(len(c.Args)-numIdx-1) {
		return nil, false, 0, ErrSyntax
	}
	whereIdx := numIdx + int(numkeys) + 1
	if where, ok = parseWhere(c.Args[whereIdx]); !ok {
		return nil, false, 0, ErrSyntax
	}
	count = -1
	for j := whereIdx + 1; j < len(c.Args); j++ {
		if count == -1 && EqualFold(c.Args[j], "count") && j+1 < len(c.Args) {
			j++
			if count, ok = ParseInt(c.Args[j]); !ok || count < 1 {
				return nil, false, 0, errCountPositive
			}
			continue
		}
		return nil, false, 0, ErrSyntax
	}
	if count == -1 {
		count = 1
	}
	return c.Args[numIdx+1 : whereIdx], where, count, nil
}

// parseMinMax reads ZMPOP's MIN or MAX; max is true for MAX.
func parseMinMax(b []byte) (max bool, ok bool) {
	switch {
	case EqualFold(b, "min"):
		return false, true
	case EqualFold(b, "max"):
		return true, true
	}
	return false, false
}

// clampCount turns a count (>= 1) into an int no larger than n.
func clampCount(count int64, n int) int {
	return int(min(count, int64(n), math.MaxInt))
}

// ------------------------------------------------------------------ lists

// lmpopGeneric is LMPOP numkeys key [key ...] LEFT|RIGHT [COUNT count]
// and BLMPOP timeout numkeys ... (numkeys at c.Args[numIdx]). BLMPOP's
// timeout is checked after the other arguments, as in Redis.
func lmpopGeneric(c *Call, numIdx int, block bool) {
	keys, left, count, err := mpopArgs(c, numIdx, listEnd)
	if err != nil {
		c.Err(err)
		return
	}
	var timeout time.Duration
	if block {
		if timeout, err = parseBlockTimeout(c.Args[1], c.Tx.Ms); err != nil {
			c.Err(err)
			return
		}
	}
	for _, k := range c.servedKeys(keys) {
		l, exp, err := loadList(c.Tx, k, false)
		if err != nil {
			c.Err(err)
			return
		}
		if l == nil {
			continue
		}
		out := l.pop(left, clampCount(count, len(l.elems)))
		storeList(c.Tx, k, l, exp)
		notifyPopped(c, k, left, len(l.elems) == 0)
		c.W.Array(2)
		c.W.Bulk(k)
		c.W.Array(len(out))
		for _, e := range out {
			c.W.BulkString(e)
		}
		return
	}
	if !block || !c.CanBlock() {
		c.W.NullArray()
		return
	}
	c.Block(keys, TypeList, timeout, Reply{Kind: KindNullArray})
}

// ------------------------------------------------------------ sorted sets

// zmpopGeneric is ZMPOP numkeys key [key ...] MIN|MAX [COUNT count] and
// BZMPOP timeout numkeys ... (numkeys at c.Args[numIdx]). The reply nests
// [key, [[member, score] ...]] in RESP2 as in RESP3.
func zmpopGeneric(c *Call, numIdx int, block bool) {
	keys, max, count, err := mpopArgs(c, numIdx, parseMinMax)
	if err != nil {
		c.Err(err)
		return
	}
	if block {
		zpopBlocking(c, keys, c.Args[1], max, count, true)
		return
	}
	if !zpopFirst(c, keys, max, count, true) {
		c.W.NullArray()
	}
}

// bzpopGeneric is BZPOPMIN and BZPOPMAX key [key ...] timeout: the reply
// is the flat [key, member, score].
func bzpopGeneric(c *Call, max bool) {
	zpopBlocking(c, c.Args[1:len(c.Args)-1], c.Args[len(c.Args)-1], max, 1, false)
}

// zpopBlocking is blockingGenericZpopCommand: the timeout is parsed first,
// then the keys are tried in order; with all of them empty the client
// blocks, or gets a null array when it may not.
func zpopBlocking(c *Call, keys [][]byte, timeoutArg []byte, max bool, count int64, nested bool) {
	timeout, err := parseBlockTimeout(timeoutArg, c.Tx.Ms)
	if err != nil {
		c.Err(err)
		return
	}
	if zpopFirst(c, c.servedKeys(keys), max, count, nested) {
		return
	}
	if !c.CanBlock() {
		c.W.NullArray()
		return
	}
	c.Block(keys, TypeZSet, timeout, Reply{Kind: KindNullArray})
}

// zpopFirst pops from the first key holding a sorted set and replies; it
// reports whether it replied (a pop or WRONGTYPE), false when every key is
// missing.
func zpopFirst(c *Call, keys [][]byte, max bool, count int64, nested bool) bool {
	for _, k := range keys {
		z, exp, err := loadZset(c.Tx, k, false)
		if err != nil {
			c.Err(err)
			return true
		}
		if z == nil {
			continue
		}
		out := z.pop(c.Tx, k, exp, max, clampCount(count, len(z.ents)))
		// Redis's events (genericZpopCommand): the pop once, then "del"
		// when the sorted set is gone.
		c.Tx.Notify(NotifyZset, zpopEvent(max), k)
		if len(z.ents) == 0 {
			c.Tx.Notify(NotifyGeneric, "del", k)
		}
		if nested {
			c.W.Array(2)
			c.W.Bulk(k)
			c.W.Array(len(out))
		} else {
			c.W.Array(1 + 2*len(out))
			c.W.Bulk(k)
		}
		for _, e := range out {
			if nested {
				c.W.Array(2)
			}
			c.W.BulkString(e.Member)
			c.W.Double(e.Score)
		}
		return true
	}
	return false
}
