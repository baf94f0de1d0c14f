package engine

import (
	"errors"
	"math"
	"strconv"
)

// Hash commands, as t_hash.c in Redis 7.0: same argument checks in the same
// order, same replies and errors.

// Error replies of this file's commands (errors.go has the shared ones).
var (
	errHashNotFloat   = errors.New("ERR hash value is not a float")
	errHashNotInteger = errors.New("ERR hash value is not an integer")
	errIncrNaNOrInf   = errors.New("ERR value is NaN or Infinity")
	errRangeLong      = errors.New("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807")
)

func hashCommands() []*Command {
	return []*Command{
		{Name: "hset", Handler: func(c *Call) { hsetGeneric(c, false) }},
		{Name: "hmset", Handler: func(c *Call) { hsetGeneric(c, true) }},
		{Name: "hsetnx", Handler: cmdHsetnx},
		{Name: "hget", Handler: cmdHget},
		{Name: "hmget", Handler: cmdHmget},
		{Name: "hdel", Handler: cmdHdel},
		{Name: "hexists", Handler: cmdHexists},
		{Name: "hincrby", Handler: cmdHincrby},
		{Name: "hincrbyfloat", Handler: cmdHincrbyfloat},
		{Name: "hlen", Handler: cmdHlen},
		{Name: "hstrlen", Handler: cmdHstrlen},
		{Name: "hkeys", Handler: cmdHkeys},
		{Name: "hvals", Handler: cmdHvals},
		{Name: "hgetall", Handler: cmdHgetall},
		{Name: "hrandfield", Handler: cmdHrandfield},
		{Name: "hscan", Handler: cmdHscan},
	}
}

// hashForWrite loads the hash at key for a writing command, or makes an
// empty one (hashTypeLookupWriteOrCreate).
func hashForWrite(c *Call, key []byte) (*hashObj, int64, bool) {
	h, exp, err := loadHash(c.Tx, key, false)
	if err != nil {
		c.Err(err)
		return nil, 0, false
	}
	if h == nil {
		h = &hashObj{}
	}
	return h, exp, true
}

// hsetGeneric is HSET, which replies the number of fields it added, and
// HMSET, which replies OK.
func hsetGeneric(c *Call, replyOK bool) {
	if len(c.Args)%2 == 1 {
		c.Err(ErrArity(c.Cmd.FullName))
		return
	}
	key := c.Args[1]
	h, exp, ok := hashForWrite(c, key)
	if !ok {
		return
	}
	var created int64
	h.expect((len(c.Args) - 2) / 2)
	for i := 2; i < len(c.Args); i += 2 {
		if h.overwrite(c.Args[i], string(c.Args[i+1])) {
			created++
		}
	}
	storeHash(c.Tx, key, h, exp)
	// Redis replies before it raises the event.
	if replyOK {
		c.OK()
	} else {
		c.W.Int(created)
	}
	c.Tx.Notify(NotifyHash, "hset", key)
}

func cmdHsetnx(c *Call) {
	key := c.Args[1]
	h, exp, ok := hashForWrite(c, key)
	if !ok {
		return
	}
	if h.find(c.Args[2]) >= 0 {
		c.W.Int(0)
		return
	}
	h.set(c.Args[2], string(c.Args[3]))
	storeHash(c.Tx, key, h, exp)
	c.W.Int(1)
	c.Tx.Notify(NotifyHash, "hset", key)
}

func cmdHget(c *Call) {
	h, _, err := loadHash(c.Tx, c.Args[1], true)
	switch {
	case err != nil:
		c.Err(err)
	case h == nil:
		c.W.Null()
	default:
		if v, ok := h.get(c.Args[2]); ok {
			c.W.BulkString(v)
		} else {
			c.W.Null()
		}
	}
}

func cmdHmget(c *Call) {
	h, _, err := loadHash(c.Tx, c.Args[1], true)
	if err != nil {
		c.Err(err)
		return
	}
	c.W.Array(len(c.Args) - 2)
	if h != nil {
		h.expect(len(c.Args) - 2)
	}
	for _, f := range c.Args[2:] {
		if h != nil {
			if v, ok := h.get(f); ok {
				c.W.BulkString(v)
				continue
			}
		}
		c.W.Null()
	}
}

func cmdHdel(c *Call) {
	key := c.Args[1]
	h, exp, err := loadHash(c.Tx, key, false)
	if err != nil {
		c.Err(err)
		return
	}
	if h == nil {
		c.W.Int(0)
		return
	}
	var deleted int64
	h.expect(len(c.Args) - 2)
	for _, f := range c.Args[2:] {
		if h.del(f) {
			deleted++
			if h.live == 0 {
				break
			}
		}
	}
	if deleted > 0 {
		storeHash(c.Tx, key, h, exp)
		c.Tx.Notify(NotifyHash, "hdel", key)
		if h.live == 0 {
			c.Tx.Notify(NotifyGeneric, "del", key)
		}
	}
	c.W.Int(deleted)
}

func cmdHexists(c *Call) {
	h, _, err := loadHash(c.Tx, c.Args[1], true)
	switch {
	case err != nil:
		c.Err(err)
	case h != nil && h.find(c.Args[2]) >= 0:
		c.W.Int(1)
	default:
		c.W.Int(0)
	}
}

func cmdHincrby(c *Call) {
	incr, ok := ParseInt(c.Args[3])
	if !ok {
		c.Err(ErrNotInteger)
		return
	}
	key := c.Args[1]
	h, exp, ok := hashForWrite(c, key)
	if !ok {
		return
	}
	var cur int64
	if v, found := h.get(c.Args[2]); found {
		if cur, ok = ParseInt(StringBytes(v)); !ok {
			c.Err(errHashNotInteger)
			return
		}
	}
	if (incr < 0 && cur < 0 && incr < math.MinInt64-cur) || (incr > 0 && cur > 0 && incr > math.MaxInt64-cur) {
		c.Err(ErrOverflow)
		return
	}
	cur += incr
	h.set(c.Args[2], strconv.FormatInt(cur, 10))
	storeHash(c.Tx, key, h, exp)
	c.W.Int(cur)
	c.Tx.Notify(NotifyHash, "hincrby", key)
}

func cmdHincrbyfloat(c *Call) {
	incr := c.Args[3]
	// Redis parses the increment as a long double first: a value that
	// overflows a double may still be finite there ("1e400").
	if _, err := AddLongDouble([]byte("0"), incr); err != nil {
		if err == ErrNaNOrInfinity {
			c.Err(errIncrNaNOrInf)
		} else {
			c.Err(ErrNotFloat)
		}
		return
	}
	key := c.Args[1]
	h, exp, ok := hashForWrite(c, key)
	if !ok {
		return
	}
	cur := "0"
	if v, found := h.get(c.Args[2]); found {
		if _, err := AddLongDouble(StringBytes(v), []byte("0")); err != nil {
			if err == ErrNaNOrInfinity {
				c.Err(ErrNaNOrInfinity) // the value is "inf": so is the sum
			} else {
				c.Err(errHashNotFloat)
			}
			return
		}
		cur = v
	}
	sum, err := AddLongDouble([]byte(cur), incr)
	if err != nil {
		// Both operands are finite: only the sum can overflow.
		c.Err(ErrNaNOrInfinity)
		return
	}
	h.set(c.Args[2], sum)
	storeHash(c.Tx, key, h, exp)
	c.W.BulkString(sum)
	c.Tx.Notify(NotifyHash, "hincrbyfloat", key)
}

func cmdHlen(c *Call) {
	h, _, err := loadHash(c.Tx, c.Args[1], true)
	switch {
	case err != nil:
		c.Err(err)
	case h == nil:
		c.W.Int(0)
	default:
		c.W.Int(int64(h.live))
	}
}

func cmdHstrlen(c *Call) {
	h, _, err := loadHash(c.Tx, c.Args[1], true)
	switch {
	case err != nil:
		c.Err(err)
	case h == nil:
		c.W.Int(0)
	default:
		v, _ := h.get(c.Args[2])
		c.W.Int(int64(len(v)))
	}
}

// Parts of a hash that HKEYS, HVALS and HGETALL return.
const (
	hashKeys = 1 << iota
	hashVals
)

func cmdHkeys(c *Call)   { hgetall(c, hashKeys) }
func cmdHvals(c *Call)   { hgetall(c, hashVals) }
func cmdHgetall(c *Call) { hgetall(c, hashKeys|hashVals) }
func hgetall(c *Call, what int) {
	h, _, err := loadHash(c.Tx, c.Args[1], true)
	if err != nil {
		c.Err(err)
		return
	}
	n := 0
	if h != nil {
		n = h.live
	}
	if what == hashKeys|hashVals {
		c.W.Map(n)
	} else {
		c.W.Array(n)
	}
	if h == nil {
		return
	}
	h.each(func(f, v string) {
		if what&hashKeys != 0 {
			c.W.BulkString(f)
		}
		if what&hashVals != 0 {
			c.W.BulkString(v)
		}
	})
}

// parseRandCount parses the count of HRANDFIELD/ZRANDMEMBER/SRANDMEMBER:
// getRangeLongFromObjectOrReply(-LONG_MAX, LONG_MAX).
func parseRandCount(b []byte) (int64, error) {
	n, ok := ParseInt(b)
	if !ok {
		return 0, ErrNotInteger
	}
	if n == math.MinInt64 {
		return 0, errRangeLong
	}
	return n, nil
}

// eachRandom calls fn with the positions HRANDFIELD-like commands reply
// with for a collection of size elements: |count| random positions with
// repeats when count < 0, else min(count, size) distinct ones (all of
// them, in order, when count >= size). Like Redis it honours any count,
// streaming the positions rather than allocating them.
func eachRandom(e *Engine, count int64, size int, fn func(i int)) {
	switch {
	case count < 0:
		for n := -count; n > 0; n-- {
			fn(e.randIntN(size))
		}
	case count >= int64(size):
		for i := 0; i < size; i++ {
			fn(i)
		}
	default:
		for _, i := range randomDistinct(e, size, int(count)) {
			fn(i)
		}
	}
}

// randomDistinct returns k distinct random positions below n, in random
// order, in O(n).
func randomDistinct(e *Engine, n, k int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	for i := 0; i < k; i++ {
		j := i + e.randIntN(n-i)
		p[i], p[j] = p[j], p[i]
	}
	return p[:k]
}

// randomReplyLen is how many elements eachRandom produces.
func randomReplyLen(count int64, size int) int64 {
	if count < 0 {
		return -count
	}
	return min(count, int64(size))
}

// replyRandomPairs writes the reply of HRANDFIELD/ZRANDMEMBER with a count:
// RESP2 flat [k, v, k, v], RESP3 [[k, v], ...] when with values.
func replyRandomPairs(c *Call, count int64, size int, withVals bool, emit func(i int)) {
	n := randomReplyLen(count, size)
	if withVals && c.S.Proto == 2 {
		n *= 2
	}
	c.W.Array(int(n))
	eachRandom(c.E, count, size, func(i int) {
		if withVals && c.S.Proto > 2 {
			c.W.Array(2)
		}
		emit(i)
	})
}

func cmdHrandfield(c *Call) {
	var count int64
	withValues := false
	if len(c.Args) >= 3 {
		var err error
		if count, err = parseRandCount(c.Args[2]); err != nil {
			c.Err(err)
			return
		}
		if len(c.Args) > 4 || (len(c.Args) == 4 && !EqualFold(c.Args[3], "withvalues")) {
			c.Err(ErrSyntax)
			return
		}
		if len(c.Args) == 4 {
			withValues = true
			if count < -math.MaxInt64/2 || count > math.MaxInt64/2 {
				c.Err(errOutOfRange)
				return
			}
		}
	}
	h, _, err := loadHash(c.Tx, c.Args[1], true)
	if err != nil {
		c.Err(err)
		return
	}
	if len(c.Args) == 2 {
		if h == nil {
			c.W.Null()
			return
		}
		h.compact()
		c.W.BulkString(h.ents[c.E.randIntN(h.live)].field)
		return
	}
	if h == nil || count == 0 {
		c.W.Array(0)
		return
	}
	h.compact()
	replyRandomPairs(c, count, h.live, withValues, func(i int) {
		c.W.BulkString(h.ents[i].field)
		if withValues {
			c.W.BulkString(h.ents[i].value)
		}
	})
}

func cmdHscan(c *Call) {
	scanCollection(c, loadHash, func(h *hashObj) ([]scanItem, bool, bool) {
		items := make([]scanItem, 0, h.live)
		h.each(func(f, v string) { items = append(items, scanItem{key: f, val: v}) })
		return items, !h.large, true
	})
}

// scanCollection is HSCAN, SSCAN and ZSCAN: Redis's checks in Redis's
// order (cursor, key type, missing key, options), then list's items paged
// by replyCollectionScan. list also says whether the collection is small
// (returned whole) and whether items carry values.
func scanCollection[T any](c *Call, load func(*Tx, []byte, bool) (*T, int64, error), list func(*T) (items []scanItem, small, withValues bool)) {
	cursor, ok := parseScanCursor(c.Args[2])
	if !ok {
		c.Err(errScanCursor)
		return
	}
	obj, _, err := load(c.Tx, c.Args[1], true)
	if err != nil {
		c.Err(err)
		return
	}
	if obj == nil {
		replyEmptyScan(c)
		return
	}
	opts, err := parseScanOptions(c.Args[3:])
	if err != nil {
		c.Err(err)
		return
	}
	items, small, withValues := list(obj)
	replyCollectionScan(c, cursor, small, items, withValues, opts)
}

// replyEmptyScan is Redis's shared.emptyscan: ["0", []].
func replyEmptyScan(c *Call) {
	c.W.Array(2)
	c.W.BulkString("0")
	c.W.Array(0)
}
