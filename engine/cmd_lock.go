package engine

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"time"
)

// LOCK.* commands: the server knows it holds locks. A lock is a plain
// string key holding its owner, with a TTL, so that GET, PTTL, DEL and the
// release scripts of every client keep working on it. The queue, the
// hand-over and session locks live in lockqueue.go.

// Error replies of this file's commands (errors.go has the shared ones).
var (
	errLockDelayNegative = errors.New("ERR LOCKDELAY is negative")
)

func lockCommands() []*Command {
	return []*Command{
		{Name: "lock.acquire", Handler: cmdLockAcquire},
		{Name: "lock.release", Handler: cmdLockRelease},
		{Name: "lock.extend", Handler: cmdLockExtend},
		{Name: "lock.info", Handler: cmdLockInfo},
		{Name: "lock.list", Handler: cmdLockList},
		{Name: "lock.token", Handler: cmdLockToken},
		{Name: "lock.check", Handler: cmdLockCheck},
	}
}

// parseLockTTL reads a TTL in milliseconds as SET PX does: positive, and
// its deadline must fit.
func parseLockTTL(c *Call, b []byte) (int64, error) {
	n, ok := ParseInt(b)
	switch {
	case !ok:
		return 0, ErrNotInteger
	case n <= 0 || n > math.MaxInt64-c.Tx.Ms:
		return 0, ErrInvalidExpire(c.Cmd.FullName)
	}
	return n, nil
}

// parseLockMs reads a duration in milliseconds that may be 0; a negative
// one is refused with neg.
func parseLockMs(b []byte, neg error) (int64, error) {
	n, ok := ParseInt(b)
	switch {
	case !ok:
		return 0, ErrNotInteger
	case n < 0:
		return 0, neg
	}
	return n, nil
}

// cmdLockAcquire is LOCK.ACQUIRE key owner ttl-ms [WAIT timeout-ms]
// [SESSION] [LOCKDELAY ms]: the fencing token when granted, nil when not.
func cmdLockAcquire(c *Call) {
	key, owner := c.Args[1], string(c.Args[2])
	ttl, err := parseLockTTL(c, c.Args[3])
	if err != nil {
		c.Err(err)
		return
	}
	wait, waitMs := false, int64(0)
	session, delayMs := false, c.E.locks.delayMs.Load()
	for i := 4; i < len(c.Args); i++ {
		opt := c.Args[i]
		more := i+1 < len(c.Args)
		switch {
		case EqualFold(opt, "session"):
			session = true
		case more && EqualFold(opt, "wait"):
			if waitMs, err = parseLockMs(c.Args[i+1], ErrTimeoutNegative); err != nil {
				c.Err(err)
				return
			}
			wait = true
			i++
		case more && EqualFold(opt, "lockdelay"):
			if delayMs, err = parseLockMs(c.Args[i+1], errLockDelayNegative); err != nil {
				c.Err(err)
				return
			}
			i++
		default:
			c.Err(ErrSyntax)
			return
		}
	}

	tx, r := c.Tx, &c.E.locks
	k := dbKey{tx.DB, string(key)}
	v, exists := tx.Get(key)
	switch {
	case exists && v.Type == TypeString && v.Payload == owner:
		// Held by this owner already: a retry after a lost reply. Reset
		// the TTL and answer the same token.
		v.ExpireAt = tx.Ms + ttl
		tx.Put(key, v)
		tx.Notify(NotifyGeneric, "expire", key) // as a PEXPIRE
	case exists || (c.E.blocks.lockWaiters(k) > 0 && !r.servedWaiter(c.S)):
		// Held (by another owner, or as another type, as SET NX sees it),
		// or freed inside this very transaction with clients queued for
		// it: they come first.
		if !wait || !c.CanBlock() {
			c.W.Null() // WAIT inside MULTI or a script is no wait
			return
		}
		b := c.block([][]byte{key}, typeMissing, time.Duration(waitMs)*time.Millisecond, Reply{Kind: KindNull})
		r.parked(c.S, tx.Now)
		b.onCancel = func() { r.waitEnded(b) }
		b.onAbandon = func() { r.abandoned(b, k, owner) }
		r.armExpiry(k, v, exists, c.E.blocks.lockWaiters(k))
		return
	default:
		// A grant, whether at once or to a queued waiter, is a
		// SET key owner PX ttl NX: "new", "set", "expire".
		tx.Put(key, Value{Type: TypeString, ExpireAt: tx.Ms + ttl, Payload: owner})
		tx.Notify(NotifyString, "set", key)
		tx.Notify(NotifyGeneric, "expire", key)
	}
	token, _ := tx.Token(key)
	r.granted(tx, c.S, k, owner, token, session, delayMs)
	c.W.Int(int64(token))
}

// ownedString returns the lock at key if it is a string holding owner.
func ownedString(tx *Tx, key []byte, owner []byte) (Value, bool) {
	v, ok := tx.Get(key)
	if !ok || v.Type != TypeString || v.Payload != string(owner) {
		return Value{}, false
	}
	return v, true
}

// cmdLockRelease is LOCK.RELEASE key owner: 1 if it deleted the key.
func cmdLockRelease(c *Call) {
	if _, ok := ownedString(c.Tx, c.Args[1], c.Args[2]); !ok {
		c.W.Int(0)
		return
	}
	c.Tx.Delete(c.Args[1])
	c.Tx.Notify(NotifyGeneric, "del", c.Args[1]) // as a DEL
	c.W.Int(1)
}

// cmdLockExtend is LOCK.EXTEND key owner ttl-ms: 1 if it set the TTL.
func cmdLockExtend(c *Call) {
	ttl, err := parseLockTTL(c, c.Args[3])
	if err != nil {
		c.Err(err)
		return
	}
	v, ok := ownedString(c.Tx, c.Args[1], c.Args[2])
	if !ok {
		c.W.Int(0)
		return
	}
	v.ExpireAt = c.Tx.Ms + ttl
	c.Tx.Put(c.Args[1], v)
	c.W.Int(1) // as a PEXPIRE: the reply, then the event
	c.Tx.Notify(NotifyGeneric, "expire", c.Args[1])
}

// Lock kinds LOCK.INFO and LOCK.LIST recognise, by the layouts unmodified
// clients leave behind.
const (
	lockString    = "string"    // redsync, redislock, redis-py, node-redlock: key = owner
	lockRedisson  = "redisson"  // Redisson RLock: hash {uuid:thread -> reentry count}
	lockSemaphore = "semaphore" // redis-semaphore: zset {holder id -> acquire time ms}
	lockOther     = "other"
)

// lockShape is what a key's value says about the lock it is.
type lockShape struct {
	kind       string
	owners     []string
	reentries  int64 // Redisson: the sum of the counts
	acquiredMs int64 // -1: unknown
}

// shapeOf recognises the layout of v. A string is a lock owned by its
// value. A hash is a Redisson lock when each field (but a read/write lock's
// "mode") maps to a positive count. A zset is a semaphore when its scores
// are whole milliseconds. Hash fields whose expiry has passed at now (unix
// ms) are not there.
func shapeOf(v Value, now int64) lockShape {
	sh := lockShape{kind: lockOther, acquiredMs: -1}
	switch v.Type {
	case TypeString:
		sh.kind, sh.owners = lockString, []string{v.Payload}
	case TypeHash:
		var owners []string
		var sum int64
		ok := true
		h := decodeHash(v.Payload)
		h.hideExpired(hashFieldExpiry(v.Payload), now)
		h.each(func(f, val string) {
			if f == "mode" {
				return
			}
			n, isInt := ParseInt(StringBytes(val))
			if !isInt || n <= 0 || !strings.Contains(f, ":") {
				ok = false
			}
			owners = append(owners, f)
			sum += n
		})
		if ok && len(owners) > 0 {
			sh.kind, sh.owners, sh.reentries = lockRedisson, owners, sum
		}
	case TypeZSet:
		z := decodeZset(v.Payload)
		owners := make([]string, 0, len(z.ents))
		first := int64(-1)
		for _, e := range z.ents {
			if e.score < 0 || e.score != math.Trunc(e.score) || e.score > 1<<53 {
				return sh
			}
			owners = append(owners, e.member)
			if first < 0 || int64(e.score) < first {
				first = int64(e.score)
			}
		}
		if len(owners) > 0 {
			sh.kind, sh.owners, sh.acquiredMs = lockSemaphore, owners, first
		}
	}
	return sh
}

// ttlMs is PTTL's answer for v: -1 without expiry.
func ttlMs(tx *Tx, v Value) int64 {
	if v.ExpireAt == 0 {
		return -1
	}
	return max(v.ExpireAt-tx.Ms, 0)
}

// cmdLockInfo is LOCK.INFO key: what kind of lock the key is, who holds
// it, its token, TTL, waiters, whether it is a session lock, since when,
// and Redisson's reentry count; nil for a missing key.
func cmdLockInfo(c *Call) {
	key := c.Args[1]
	v, ok := c.Tx.Get(key)
	if !ok {
		c.W.Null()
		return
	}
	k := dbKey{c.Tx.DB, string(key)}
	sh := shapeOf(v, c.Tx.Ms)
	session := false
	if sh.kind == lockString {
		if h, ok := c.E.locks.holder(k, sh.owners[0]); ok {
			sh.acquiredMs, session = h.acquiredMs, h.session != nil
		}
	}
	w := c.W
	w.Map(8)
	w.BulkString("kind")
	w.BulkString(sh.kind)
	w.BulkString("owners")
	w.Array(len(sh.owners))
	for _, o := range sh.owners {
		w.BulkString(o)
	}
	w.BulkString("token")
	if tok, ok := c.Tx.Token(key); ok {
		w.Int(int64(tok))
	} else {
		w.Null()
	}
	w.BulkString("ttl")
	w.Int(ttlMs(c.Tx, v))
	w.BulkString("waiters")
	w.Int(int64(c.E.blocks.lockWaiters(k)))
	w.BulkString("session")
	w.Bool(session)
	w.BulkString("acquired_at")
	if sh.acquiredMs >= 0 {
		w.Int(sh.acquiredMs)
	} else {
		w.Null()
	}
	w.BulkString("reentries")
	if sh.kind == lockRedisson {
		w.Int(sh.reentries)
	} else {
		w.Null()
	}
}

// cmdLockList is LOCK.LIST [cursor] [MATCH pattern] [COUNT n]: SCAN over
// the lock-shaped keys of the database (SCAN's cursors, scan.go). Each
// entry is [key, kind, first owner, ttl, waiters].
func cmdLockList(c *Call) {
	cursor, i := uint64(0), 1
	if len(c.Args) > 1 && !EqualFold(c.Args[1], "match") && !EqualFold(c.Args[1], "count") {
		var ok bool
		if cursor, ok = parseScanCursor(c.Args[1]); !ok {
			c.Err(errScanCursor)
			return
		}
		i = 2
	}
	count := int64(scanDefaultCount)
	var pattern []byte
	for ; i < len(c.Args); i += 2 {
		if i+1 == len(c.Args) {
			c.Err(ErrSyntax)
			return
		}
		switch opt, val := c.Args[i], c.Args[i+1]; {
		case EqualFold(opt, "count"):
			n, ok := ParseInt(val)
			if !ok {
				c.Err(ErrNotInteger)
				return
			}
			if n < 1 {
				c.Err(ErrSyntax)
				return
			}
			count = n
		case EqualFold(opt, "match"):
			pattern = val
			if len(pattern) == 1 && pattern[0] == '*' {
				pattern = nil
			}
		default:
			c.Err(ErrSyntax)
			return
		}
	}
	type entry struct {
		sh  lockShape
		ttl int64
	}
	var entries []entry
	next, keys := scanKeys(c, cursor, pattern, count, false, func(_ string, v Value) bool {
		sh := shapeOf(v, c.Tx.Ms)
		if sh.kind == lockOther {
			return false
		}
		entries = append(entries, entry{sh, ttlMs(c.Tx, v)})
		return true
	})
	var buf [20]byte
	c.W.Array(2)
	c.W.Bulk(strconv.AppendUint(buf[:0], next, 10))
	c.W.Array(len(keys))
	for i, key := range keys {
		e := entries[i]
		c.W.Array(5)
		c.W.BulkString(key)
		c.W.BulkString(e.sh.kind)
		c.W.BulkString(e.sh.owners[0])
		c.W.Int(e.ttl)
		c.W.Int(int64(c.E.blocks.lockWaiters(dbKey{c.Tx.DB, key})))
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
