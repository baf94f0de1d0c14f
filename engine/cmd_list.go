package engine

import (
	"bytes"
	"errors"
	"math"
	"math/big"
	"time"
)

// List commands, as t_list.c in Redis 7.0. The blocking commands (BLPOP,
// BRPOP, BLMOVE...) are built elsewhere on ListPush, ListPop and ListMove.

// Error replies of this file's commands (errors.go has the shared ones).
var (
	errCountNegative   = errors.New("ERR COUNT can't be negative")
	errIndexOutOfRange = errors.New("ERR index out of range")
	errMaxlenNegative  = errors.New("ERR MAXLEN can't be negative")
	errMustBePositive  = errors.New("ERR value is out of range, must be positive")
	errRankZero        = errors.New("ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list")
	errTimeoutNotFloat = errors.New("ERR timeout is not a float or out of range")
	errTimeoutRange    = errors.New("ERR timeout is out of range")
)

func listCommands() []*Command {
	return []*Command{
		{Name: "lpush", Handler: cmdLpush},
		{Name: "rpush", Handler: cmdRpush},
		{Name: "lpushx", Handler: cmdLpushx},
		{Name: "rpushx", Handler: cmdRpushx},
		{Name: "lpop", Handler: cmdLpop},
		{Name: "rpop", Handler: cmdRpop},
		{Name: "lindex", Handler: cmdLindex},
		{Name: "llen", Handler: cmdLlen},
		{Name: "lrange", Handler: cmdLrange},
		{Name: "lrem", Handler: cmdLrem},
		{Name: "lset", Handler: cmdLset},
		{Name: "ltrim", Handler: cmdLtrim},
		{Name: "linsert", Handler: cmdLinsert},
		{Name: "lpos", Handler: cmdLpos},
		{Name: "lmove", Handler: cmdLmove},
		{Name: "rpoplpush", Handler: cmdRpoplpush},
	}
}

// ListPush pushes elems one by one onto the head (left) or the tail of the
// list at key, creating it unless onlyIfExists, and returns the new length
// (0 when onlyIfExists and the key is missing). It is LPUSH, RPUSH, LPUSHX
// and RPUSHX.
func ListPush(tx *Tx, key []byte, left, onlyIfExists bool, elems [][]byte) (int64, error) {
	l, exp, err := loadList(tx, key, false)
	if err != nil {
		return 0, err
	}
	if l == nil {
		if onlyIfExists {
			return 0, nil
		}
		l = &listObj{}
	}
	l.push(left, elems)
	storeList(tx, key, l, exp)
	return int64(len(l.elems)), nil
}

// ListPop removes up to count (>= 1) elements from the head (left) or the
// tail of the list at key and returns them in the order popped; nil when
// the key is missing. The key is deleted when the list becomes empty.
func ListPop(tx *Tx, key []byte, left bool, count int) ([]string, error) {
	l, exp, err := loadList(tx, key, false)
	if err != nil || l == nil {
		return nil, err
	}
	out := l.pop(left, count)
	storeList(tx, key, l, exp)
	return out, nil
}

// ListMove pops an element from one end of the list at src and pushes it
// onto one end of the list at dst (LMOVE, RPOPLPUSH). ok is false when src
// is missing. As in Redis, dst's type is checked only when src exists, and
// before anything changes. src and dst may be the same key (a rotation).
func ListMove(tx *Tx, src, dst []byte, fromLeft, toLeft bool) (elem string, ok bool, err error) {
	sl, sexp, err := loadList(tx, src, false)
	if err != nil || sl == nil {
		return "", false, err
	}
	same := bytes.Equal(src, dst)
	dl, dexp := sl, sexp
	if !same {
		if dl, dexp, err = loadList(tx, dst, false); err != nil {
			return "", false, err
		}
		if dl == nil {
			dl = &listObj{}
		}
	}
	elem = sl.pop(fromLeft, 1)[0]
	dl.pushString(toLeft, elem)
	if !same {
		storeList(tx, src, sl, sexp)
	}
	storeList(tx, dst, dl, dexp)
	return elem, true, nil
}

// push adds elems one by one at the head or the tail, so LPUSH a b c
// leaves c b a at the head.
func (l *listObj) push(left bool, elems [][]byte) {
	if !left {
		for _, e := range elems {
			l.elems = append(l.elems, string(e))
		}
		return
	}
	out := make([]string, len(elems), len(elems)+len(l.elems))
	for i, e := range elems {
		out[len(elems)-1-i] = string(e)
	}
	l.elems = append(out, l.elems...)
}

func (l *listObj) pushString(left bool, e string) {
	if !left {
		l.elems = append(l.elems, e)
		return
	}
	l.elems = append(l.elems, "")
	copy(l.elems[1:], l.elems)
	l.elems[0] = e
}

// pop removes up to count elements from one end, returned in pop order.
func (l *listObj) pop(left bool, count int) []string {
	n := min(count, len(l.elems))
	out := make([]string, n)
	if left {
		copy(out, l.elems[:n])
		l.elems = l.elems[n:]
		return out
	}
	last := len(l.elems) - 1
	for i := range out {
		out[i] = l.elems[last-i]
	}
	l.elems = l.elems[:len(l.elems)-n]
	return out
}

// clampRange applies Redis's range rules (negative indexes count from the
// end, out-of-range ends are clipped) to [start, end] over n elements; ok
// is false for an empty range.
func clampRange(start, end int64, n int) (int, int, bool) {
	llen := int64(n)
	if start < 0 {
		start += llen
	}
	if end < 0 {
		end += llen
	}
	if start < 0 {
		start = 0
	}
	if start > end || start >= llen {
		return 0, 0, false
	}
	if end >= llen {
		end = llen - 1
	}
	return int(start), int(end), true
}

func pushCommand(c *Call, left, onlyIfExists bool) {
	n, err := ListPush(c.Tx, c.Args[1], left, onlyIfExists, c.Args[2:])
	if err != nil {
		c.Err(err)
		return
	}
	c.W.Int(n) // Redis replies before it raises the event
	if n > 0 {
		c.Tx.Notify(NotifyList, pushEvent(left), c.Args[1])
	}
}

// pushEvent and popEvent are the keyspace events of a push or pop at the
// head (left) or the tail.
func pushEvent(left bool) string {
	if left {
		return "lpush"
	}
	return "rpush"
}

func popEvent(left bool) string {
	if left {
		return "lpop"
	}
	return "rpop"
}

// notifyPopped raises a pop's events: the pop, then "del" when it emptied
// the list (Redis's listElementsRemoved).
func notifyPopped(c *Call, key []byte, left, emptied bool) {
	c.Tx.Notify(NotifyList, popEvent(left), key)
	if emptied {
		c.Tx.Notify(NotifyGeneric, "del", key)
	}
}

func cmdLpush(c *Call)  { pushCommand(c, true, false) }
func cmdRpush(c *Call)  { pushCommand(c, false, false) }
func cmdLpushx(c *Call) { pushCommand(c, true, true) }
func cmdRpushx(c *Call) { pushCommand(c, false, true) }

// parsePositiveCount parses a count that must be >= 0; any failure,
// non-integers included, is errMustBePositive unless msg says otherwise
// (getPositiveLongFromObjectOrReply).
func parsePositiveCount(b []byte, msg error) (int64, error) {
	if msg == nil {
		msg = errMustBePositive
	}
	n, ok := ParseInt(b)
	if !ok || n < 0 {
		return 0, msg
	}
	return n, nil
}

func popCommand(c *Call, left bool) {
	if len(c.Args) > 3 {
		c.Err(ErrArity(c.Cmd.FullName))
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
	l, exp, err := loadList(c.Tx, key, false)
	switch {
	case err != nil:
		c.Err(err)
		return
	case l == nil && hasCount:
		c.W.NullArray()
		return
	case l == nil:
		c.W.Null()
		return
	case hasCount && count == 0:
		c.W.Array(0)
		return
	}
	if !hasCount {
		c.W.BulkString(l.pop(left, 1)[0])
		storeList(c.Tx, key, l, exp)
		notifyPopped(c, key, left, len(l.elems) == 0)
		return
	}
	out := l.pop(left, int(min(count, int64(len(l.elems)))))
	storeList(c.Tx, key, l, exp)
	c.W.Array(len(out))
	for _, e := range out {
		c.W.BulkString(e)
	}
	notifyPopped(c, key, left, len(l.elems) == 0)
}

func cmdLpop(c *Call) { popCommand(c, true) }
func cmdRpop(c *Call) { popCommand(c, false) }

func cmdLindex(c *Call) {
	l, _, err := loadList(c.Tx, c.Args[1], true)
	switch {
	case err != nil:
		c.Err(err)
		return
	case l == nil:
		c.W.Null()
		return
	}
	index, ok := ParseInt(c.Args[2])
	if !ok {
		c.Err(ErrNotInteger)
		return
	}
	if index < 0 {
		index += int64(len(l.elems))
	}
	if index < 0 || index >= int64(len(l.elems)) {
		c.W.Null()
		return
	}
	c.W.BulkString(l.elems[index])
}

func cmdLlen(c *Call) {
	l, _, err := loadList(c.Tx, c.Args[1], true)
	switch {
	case err != nil:
		c.Err(err)
	case l == nil:
		c.W.Int(0)
	default:
		c.W.Int(int64(len(l.elems)))
	}
}

// parseRangeArgs parses two integer arguments (start/stop, min/max ranks).
func parseRangeArgs(a, b []byte) (int64, int64, bool) {
	start, ok1 := ParseInt(a)
	end, ok2 := ParseInt(b)
	return start, end, ok1 && ok2
}

func cmdLrange(c *Call) {
	start, end, ok := parseRangeArgs(c.Args[2], c.Args[3])
	if !ok {
		c.Err(ErrNotInteger)
		return
	}
	l, _, err := loadList(c.Tx, c.Args[1], true)
	if err != nil {
		c.Err(err)
		return
	}
	if l == nil {
		c.W.Array(0)
		return
	}
	from, to, ok := clampRange(start, end, len(l.elems))
	if !ok {
		c.W.Array(0)
		return
	}
	c.W.Array(to - from + 1)
	for _, e := range l.elems[from : to+1] {
		c.W.BulkString(e)
	}
}

func cmdLrem(c *Call) {
	toRemove, ok := ParseInt(c.Args[2])
	if !ok {
		c.Err(ErrNotInteger)
		return
	}
	key, elem := c.Args[1], c.Args[3]
	l, exp, err := loadList(c.Tx, key, false)
	if err != nil {
		c.Err(err)
		return
	}
	if l == nil {
		c.W.Int(0)
		return
	}
	fromTail := toRemove < 0
	if fromTail {
		toRemove = -toRemove // -MinInt64 stays negative: then all go, as in Redis
	}
	n := len(l.elems)
	drop := make([]bool, n)
	var removed int64
	for k := 0; k < n; k++ {
		i := k
		if fromTail {
			i = n - 1 - k
		}
		if l.elems[i] == string(elem) {
			drop[i] = true
			removed++
			if toRemove != 0 && removed == toRemove {
				break
			}
		}
	}
	if removed > 0 {
		out := l.elems[:0]
		for i, e := range l.elems {
			if !drop[i] {
				out = append(out, e)
			}
		}
		l.elems = out
		storeList(c.Tx, key, l, exp)
		c.Tx.Notify(NotifyList, "lrem", key)
		if len(l.elems) == 0 {
			c.Tx.Notify(NotifyGeneric, "del", key)
		}
	}
	c.W.Int(removed)
}

func cmdLset(c *Call) {
	key := c.Args[1]
	l, exp, err := loadList(c.Tx, key, false)
	switch {
	case err != nil:
		c.Err(err)
		return
	case l == nil:
		c.Err(ErrNoSuchKey)
		return
	}
	index, ok := ParseInt(c.Args[2])
	if !ok {
		c.Err(ErrNotInteger)
		return
	}
	if index < 0 {
		index += int64(len(l.elems))
	}
	if index < 0 || index >= int64(len(l.elems)) {
		c.Err(errIndexOutOfRange)
		return
	}
	l.elems[index] = string(c.Args[3])
	storeList(c.Tx, key, l, exp)
	c.OK()
	c.Tx.Notify(NotifyList, "lset", key)
}

func cmdLtrim(c *Call) {
	start, end, ok := parseRangeArgs(c.Args[2], c.Args[3])
	if !ok {
		c.Err(ErrNotInteger)
		return
	}
	key := c.Args[1]
	l, exp, err := loadList(c.Tx, key, false)
	if err != nil {
		c.Err(err)
		return
	}
	if l == nil {
		c.OK()
		return
	}
	if from, to, ok := clampRange(start, end, len(l.elems)); ok {
		l.elems = l.elems[from : to+1]
	} else {
		l.elems = nil
	}
	// Stored even when nothing was trimmed: Redis signals the key (WATCH)
	// unconditionally.
	storeList(c.Tx, key, l, exp)
	c.Tx.Notify(NotifyList, "ltrim", key)
	if len(l.elems) == 0 {
		c.Tx.Notify(NotifyGeneric, "del", key)
	}
	c.OK()
}

func cmdLinsert(c *Call) {
	var after bool
	switch {
	case EqualFold(c.Args[2], "after"):
		after = true
	case EqualFold(c.Args[2], "before"):
	default:
		c.Err(ErrSyntax)
		return
	}
	key := c.Args[1]
	l, exp, err := loadList(c.Tx, key, false)
	if err != nil {
		c.Err(err)
		return
	}
	if l == nil {
		c.W.Int(0)
		return
	}
	for i, e := range l.elems {
		if e != string(c.Args[3]) {
			continue
		}
		if after {
			i++
		}
		l.elems = append(l.elems, "")
		copy(l.elems[i+1:], l.elems[i:])
		l.elems[i] = string(c.Args[4])
		storeList(c.Tx, key, l, exp)
		c.Tx.Notify(NotifyList, "linsert", key)
		c.W.Int(int64(len(l.elems)))
		return
	}
	c.W.Int(-1)
}

// cmdLpos is LPOS key element [RANK rank] [COUNT num-matches] [MAXLEN len].
func cmdLpos(c *Call) {
	rank, count, maxlen := int64(1), int64(-1), int64(0) // count -1: not given
	for j := 3; j < len(c.Args); j++ {
		opt := c.Args[j]
		more := j+1 < len(c.Args)
		var err error
		switch {
		case more && EqualFold(opt, "rank"):
			j++
			var ok bool
			if rank, ok = ParseInt(c.Args[j]); !ok {
				err = ErrNotInteger
			} else if rank == 0 {
				err = errRankZero
			}
		case more && EqualFold(opt, "count"):
			j++
			count, err = parsePositiveCount(c.Args[j], errCountNegative)
		case more && EqualFold(opt, "maxlen"):
			j++
			maxlen, err = parsePositiveCount(c.Args[j], errMaxlenNegative)
		default:
			err = ErrSyntax
		}
		if err != nil {
			c.Err(err)
			return
		}
	}
	fromTail := rank < 0
	if fromTail {
		rank = -rank // -MinInt64 stays negative: every match qualifies, as in Redis
	}
	l, _, err := loadList(c.Tx, c.Args[1], true)
	if err != nil {
		c.Err(err)
		return
	}
	if l == nil {
		if count != -1 {
			c.W.Array(0)
		} else {
			c.W.Null()
		}
		return
	}
	elem := c.Args[2]
	n := len(l.elems)
	var found []int64
	var matches int64
	for k := 0; k < n && (maxlen == 0 || int64(k) < maxlen); k++ {
		i := k
		if fromTail {
			i = n - 1 - k
		}
		if l.elems[i] != string(elem) {
			continue
		}
		matches++
		if matches < rank {
			continue
		}
		found = append(found, int64(i))
		if count == -1 || (count != 0 && matches-rank+1 >= count) {
			break
		}
	}
	if count == -1 {
		if len(found) == 0 {
			c.W.Null()
		} else {
			c.W.Int(found[0])
		}
		return
	}
	c.W.Array(len(found))
	for _, i := range found {
		c.W.Int(i)
	}
}

// listEnd parses LEFT or RIGHT.
func listEnd(b []byte) (left bool, ok bool) {
	switch {
	case EqualFold(b, "left"):
		return true, true
	case EqualFold(b, "right"):
		return false, true
	}
	return false, false
}

func moveCommand(c *Call, fromLeft, toLeft bool) {
	elem, ok, err := ListMove(c.Tx, c.Args[1], c.Args[2], fromLeft, toLeft)
	switch {
	case err != nil:
		c.Err(err)
	case !ok:
		c.W.Null()
	default:
		movedReply(c, elem, fromLeft, toLeft)
	}
}

// movedReply replies with the element LMOVE (BLMOVE...) moved, amid its
// events in Redis's order: the push, the reply, the pop, and "del" when
// the source is gone.
func movedReply(c *Call, elem string, fromLeft, toLeft bool) {
	src, dst := c.Args[1], c.Args[2]
	c.Tx.Notify(NotifyList, pushEvent(toLeft), dst)
	c.W.BulkString(elem)
	notifyPopped(c, src, fromLeft, !bytes.Equal(src, dst) && !c.Tx.Exists(src))
}

func cmdLmove(c *Call) {
	from, ok1 := listEnd(c.Args[3])
	if !ok1 {
		c.Err(ErrSyntax)
		return
	}
	to, ok2 := listEnd(c.Args[4])
	if !ok2 {
		c.Err(ErrSyntax)
		return
	}
	moveCommand(c, from, to)
}

func cmdRpoplpush(c *Call) { moveCommand(c, false, true) }

// ------------------------------------------------ blocking list commands

// Blocking list commands. They pop at once when they can; otherwise they
// park the client (Call.Block) until a push serves them (block.go). In
// MULTI/EXEC they answer at once, as Redis does for clients that may not
// block. They are noscript, as in Redis 7.0.

func blockingCommands() []*Command {
	return []*Command{
		{Name: "blpop", Handler: func(c *Call) { blockingPop(c, true) }},
		{Name: "brpop", Handler: func(c *Call) { blockingPop(c, false) }},
		{Name: "blmove", Handler: cmdBlmove},
		{Name: "brpoplpush", Handler: func(c *Call) {
			blockingMove(c, false, true, c.Args[3])
		}},
	}
}

// parseBlockTimeout reads a timeout in seconds the way Redis 7.0 does:
// a long double, times 1000, rounded up to a whole millisecond (ceill),
// converted to long long: 0.001 is 1 ms, not 0 (forever). Like the C cast
// on x86-64, a value too large for that (or inf) becomes negative.
func parseBlockTimeout(b []byte, nowMs int64) (time.Duration, error) {
	f, ok := parseLongDouble(b)
	if !ok {
		return 0, errTimeoutNotFloat
	}
	if f.IsInf() {
		return 0, ErrTimeoutNegative
	}
	prod := new(big.Float).SetPrec(64).Mul(f, big.NewFloat(1000))
	ms, acc := prod.Int(nil) // truncates toward zero
	if acc == big.Below {
		ms.Add(ms, big.NewInt(1)) // a positive fraction: ceill rounds up
	}
	if !ms.IsInt64() {
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
	for _, k := range c.servedKeys(keys) {
		elems, err := ListPop(c.Tx, k, left, 1)
		if err != nil {
			c.Err(err)
			return
		}
		if len(elems) > 0 {
			c.W.Array(2)
			c.W.Bulk(k)
			c.W.BulkString(elems[0])
			notifyPopped(c, k, left, !c.Tx.Exists(k))
			return
		}
	}
	if !c.CanBlock() {
		c.W.NullArray()
		return
	}
	c.Block(keys, TypeList, timeout, Reply{Kind: KindNullArray})
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
		movedReply(c, elem, fromLeft, toLeft)
	case !c.CanBlock():
		c.W.Null()
	default:
		// Redis answers a timed-out BLMOVE with a null array, not a null
		// bulk (replyToBlockedClientTimedOut).
		c.Block(c.Args[1:2], TypeList, timeout, Reply{Kind: KindNullArray})
	}
}
