package engine

import (
	"errors"
	"math"
	"math/big"
	"time"
)

// Blocking list commands. They pop at once when they can; otherwise they
// park the client (Call.Block) until a push serves them (block.go). In
// MULTI/EXEC they answer at once, as Redis does for clients that may not
// block. They are noscript, as in Redis 7.0.

var (
	errTimeoutNotFloat = errors.New("ERR timeout is not a float or out of range")
	errTimeoutRange    = errors.New("ERR timeout is out of range")
)

func blockingCommands() []*Command {
	const f = FlagWrite | FlagNoScript | FlagBlocking
	return []*Command{
		{Name: "blpop", Arity: -3, Flags: f, FirstKey: 1, LastKey: -2, Step: 1, Handler: func(c *Call) { blockingPop(c, true) }},
		{Name: "brpop", Arity: -3, Flags: f, FirstKey: 1, LastKey: -2, Step: 1, Handler: func(c *Call) { blockingPop(c, false) }},
		{Name: "blmove", Arity: 6, Flags: f | FlagDenyOOM, FirstKey: 1, LastKey: 2, Step: 1, Handler: cmdBlmove},
		{Name: "brpoplpush", Arity: 4, Flags: f | FlagDenyOOM, FirstKey: 1, LastKey: 2, Step: 1, Handler: func(c *Call) {
			blockingMove(c, false, true, c.Args[3])
		}},
	}
}

// parseBlockTimeout reads a timeout in seconds the way Redis 7.0 does:
// a long double, times 1000, converted to long long. Like the C cast on
// x86-64, a value too large for that (or inf) becomes negative.
func parseBlockTimeout(b []byte, nowMs int64) (time.Duration, error) {
	f, ok := parseLongDouble(b)
	if !ok {
		return 0, errTimeoutNotFloat
	}
	ms, _ := new(big.Float).Mul(f, big.NewFloat(1000)).Int(nil) // truncates toward zero
	if f.IsInf() || !ms.IsInt64() {
		return 0, ErrTimeoutNegative
	}
	n := ms.Int64()
	if n < 0 {
		return 0, ErrTimeoutNegative
	}
	if n > math.MaxInt64-nowMs {
		return 0, errTimeoutRange
	}
	if n > int64(math.MaxInt64/time.Millisecond) {
		n = int64(math.MaxInt64 / time.Millisecond) // ~292 years: forever enough
	}
	return time.Duration(n) * time.Millisecond, nil
}

func blockingPop(c *Call, left bool) {
	timeout, err := parseBlockTimeout(c.Args[len(c.Args)-1], c.Tx.Ms)
	if err != nil {
		c.Err(err)
		return
	}
	keys := c.Args[1 : len(c.Args)-1]
	for _, k := range keys {
		elems, err := ListPop(c.Tx, k, left, 1)
		if err != nil {
			c.Err(err)
			return
		}
		if len(elems) > 0 {
			c.W.Array(2)
			c.W.Bulk(k)
			c.W.BulkString(elems[0])
			return
		}
	}
	if !c.CanBlock() {
		c.W.NullArray()
		return
	}
	c.Block(keys, timeout, Reply{Kind: KindNullArray})
}

func cmdBlmove(c *Call) {
	from, ok1 := listEnd(c.Args[3])
	to, ok2 := listEnd(c.Args[4])
	if !ok1 || !ok2 {
		c.Err(ErrSyntax)
		return
	}
	blockingMove(c, from, to, c.Args[5])
}

func blockingMove(c *Call, fromLeft, toLeft bool, timeoutArg []byte) {
	timeout, err := parseBlockTimeout(timeoutArg, c.Tx.Ms)
	if err != nil {
		c.Err(err)
		return
	}
	elem, ok, err := ListMove(c.Tx, c.Args[1], c.Args[2], fromLeft, toLeft)
	switch {
	case err != nil:
		c.Err(err)
	case ok:
		c.W.BulkString(elem)
	case !c.CanBlock():
		c.W.Null()
	default:
		// Redis answers a timed-out BLMOVE with a null array, not a null
		// bulk (replyToBlockedClientTimedOut).
		c.Block(c.Args[1:2], timeout, Reply{Kind: KindNullArray})
	}
}
