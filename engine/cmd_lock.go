package engine

import (
	"math"
	"strconv"
)

// LOCK.* commands: the server knows it holds locks. A lock is its key, in
// the layout the client that would take it without these commands uses
// (lock_layout.go), so that GET, PTTL, DEL and the release scripts of
// every client keep working on it. The queue, the hand-over and the
// waiters live in lockqueue.go, sessions in lock_session.go.

// Error replies of this file's commands (errors.go has the shared ones).
// lockredis's own commands name the argument that is wrong, as Redis's
// newer commands do.
var (
	errLockNumkeys     = replyError("ERR numkeys should be greater than 0")
	errPermitsPositive = replyError("ERR PERMITS should be greater than 0")
)

func lockCommands() []*Command {
	return []*Command{
		{Name: "lock.acquire", Handler: cmdLockAcquire},
		{Name: "lock.acquireall", Handler: cmdLockAcquireAll},
		{Name: "lock.release", Handler: cmdLockRelease},
		{Name: "lock.releaseall", Handler: cmdLockReleaseAll},
		{Name: "lock.extend", Handler: cmdLockExtend},
		{Name: "lock.info", Handler: cmdLockInfo},
		{Name: "lock.list", Handler: cmdLockList},
		{Name: "lock.token", Handler: cmdLockToken},
		{Name: "lock.check", Handler: cmdLockCheck},
		lockSessionCommand(),
	}
}

// parseLockOptions reads [WAIT ms] [SESSION | SESSIONID id] [LOCKDELAY
// ms] [SHARED | PERMITS n] from args into req (permits: whether SHARED
// and PERMITS are allowed).
func parseLockOptions(c *Call, args [][]byte, req *lockRequest, modes bool) error {
	req.delayMs = c.E.locks.delayMs.Load()
	delaySet := false
	for i := 0; i < len(args); i++ {
		opt := args[i]
		more := i+1 < len(args)
		var err error
		switch {
		case EqualFold(opt, "session") && req.sessID == "":
			req.connSess = true
		case more && EqualFold(opt, "sessionid") && !req.connSess:
			req.sessID = string(args[i+1])
			i++
		case more && EqualFold(opt, "wait"):
			req.waitMs, err = parseLockMs(c, args[i+1], "timeout")
			req.wait = true
			i++
		case more && EqualFold(opt, "lockdelay"):
			req.delayMs, err = parseLockMs(c, args[i+1], "LOCKDELAY")
			delaySet = true
			i++
		case modes && EqualFold(opt, "shared") && req.mode == modeExclusive:
			req.mode = modeShared
		case modes && more && EqualFold(opt, "permits") && req.mode == modeExclusive:
			n, ok := ParseInt(args[i+1])
			switch {
			case !ok:
				err = errLockArgNotInteger("PERMITS")
			case n <= 0:
				err = errPermitsPositive
			}
			req.mode, req.permits = modePermits, n
			i++
		default:
			return ErrSyntax
		}
		if err != nil {
			return err
		}
	}
	if req.sessID != "" && !delaySet {
		req.delayMs = -1 // the session's own, looked up when granted
	}
	return nil
}

// sessionDelay fills in the lock-delay a SESSIONID request takes from its
// session.
func sessionDelay(tx *Tx, req *lockRequest) {
	if req.delayMs >= 0 {
		return
	}
	req.delayMs = 0
	if v, ok := tx.GetIn(0, sessionKey(req.sessID)); ok && v.Type == TypeHash {
		req.delayMs = decodeSession(req.sessID, v).delay
	}
}

// cmdLockAcquire is LOCK.ACQUIRE key owner ttl-ms [WAIT ms] [SESSION |
// SESSIONID id] [LOCKDELAY ms] [SHARED | PERMITS n]: the fencing token
// when granted, nil when not.
func cmdLockAcquire(c *Call) {
	req := lockRequest{keys: c.Args[1:2], owner: string(c.Args[2])}
	var err error
	if req.ttl, err = parseLockTTL(c, c.Args[3]); err == nil {
		err = parseLockOptions(c, c.Args[4:], &req, true)
	}
	if err != nil {
		c.Err(err)
		return
	}
	sessionDelay(c.Tx, &req)
	c.E.locks.acquire(c, &req)
}

// cmdLockAcquireAll is LOCK.ACQUIREALL numkeys key [key ...] owner ttl-ms
// [WAIT ms] [SESSION | SESSIONID id] [LOCKDELAY ms]: exclusive locks on
// every key or on none; the array of their tokens, or nil.
func cmdLockAcquireAll(c *Call) {
	keys, rest, err := lockKeys(c)
	if err == nil && len(rest) < 2 {
		err = ErrSyntax
	}
	if err != nil {
		c.Err(err)
		return
	}
	req := lockRequest{keys: keys, owner: string(rest[0]), all: true}
	if req.ttl, err = parseLockTTL(c, rest[1]); err == nil {
		err = parseLockOptions(c, rest[2:], &req, false)
	}
	if err != nil {
		c.Err(err)
		return
	}
	sessionDelay(c.Tx, &req)
	c.E.locks.acquire(c, &req)
}

// lockKeys reads numkeys key [key ...] at c.Args[1:] and returns the
// keys (each once) and the arguments after them.
func lockKeys(c *Call) (keys, rest [][]byte, err error) {
	n, ok := ParseInt(c.Args[1])
	if !ok || n <= 0 {
		return nil, nil, errLockNumkeys
	}
	if n > int64(len(c.Args)-2) {
		return nil, nil, ErrSyntax
	}
	seen := make(map[string]bool, n)
	for _, k := range c.Args[2 : 2+n] {
		if !seen[string(k)] {
			seen[string(k)] = true
			keys = append(keys, k)
		}
	}
	return keys, c.Args[2+n:], nil
}

// cmdLockRelease is LOCK.RELEASE key owner: 1 if owner held the lock
// (whatever its kind) and gave it up, else 0.
func cmdLockRelease(c *Call) {
	c.W.Int(int64(releaseLock(c, c.Args[1], string(c.Args[2]))))
}

// cmdLockReleaseAll is LOCK.RELEASEALL numkeys key [key ...] owner: how
// many of the keys owner held and gave up.
func cmdLockReleaseAll(c *Call) {
	keys, rest, err := lockKeys(c)
	if err == nil && len(rest) != 1 {
		err = ErrSyntax
	}
	if err != nil {
		c.Err(err)
		return
	}
	n := 0
	for _, k := range keys {
		n += releaseLock(c, k, string(rest[0]))
	}
	c.W.Int(int64(n))
}

// releaseLock releases owner's hold on key; 1 if it had one. A session
// that held it forgets it.
func releaseLock(c *Call, key []byte, owner string) int {
	if !releaseHolder(c.Tx, key, owner) {
		return 0
	}
	c.E.locks.forgetSessionLock(c.Tx, holderKey{c.Tx.DB, string(key), owner})
	return 1
}

// cmdLockExtend is LOCK.EXTEND key owner ttl-ms: 1 if owner holds the
// lock (whatever its kind) and its hold now expires ttl-ms from now.
func cmdLockExtend(c *Call) {
	ttl, err := parseLockTTL(c, c.Args[3])
	if err != nil {
		c.Err(err)
		return
	}
	owner := string(c.Args[2])
	lv := viewLock(c.Tx, c.Tx.DB, c.Args[1])
	if _, ok := lv.holder(owner); !ok && !(lv.kind == lockRWWrite && hasHolder(&lv, owner+":write")) {
		c.W.Int(0)
		return
	}
	c.W.Int(1) // as a PEXPIRE: the reply, then the event
	extendHolder(c.Tx, c.Args[1], owner, ttl)
}

func hasHolder(lv *lockView, owner string) bool {
	_, ok := lv.holder(owner)
	return ok
}

// cmdLockInfo is LOCK.INFO key: what kind of lock the key is, who holds
// it, its token, TTL, waiters, whether it is a session lock, since when,
// Redisson's reentry count, a semaphore's permits, each holder, and the
// queue; nil for a missing key.
func cmdLockInfo(c *Call) {
	key := c.Args[1]
	tx := c.Tx
	lv := viewLock(tx, tx.DB, key)
	if !lv.held() {
		c.W.Null()
		return
	}
	r := &c.E.locks
	k := dbKey{tx.DB, string(key)}
	owners := make([]string, len(lv.holders))
	var reentries int64
	sessions := make([]string, len(lv.holders))
	inSession := false
	for i, h := range lv.holders {
		owners[i] = h.owner
		reentries += h.count
		if id, ok := r.sessionOfLock(holderKey{tx.DB, string(key), h.owner}); ok {
			sessions[i], inSession = id, true
		}
	}
	acquiredMs := int64(-1)
	switch {
	case lv.kind == lockSemaphore && len(lv.holders) > 0:
		for _, h := range lv.holders {
			if !h.ours && (acquiredMs < 0 || h.score < acquiredMs) {
				acquiredMs = h.score
			}
		}
		fallthrough
	case len(lv.holders) > 0:
		if at, ok := r.grantedAt(k, lv.holders[0].owner, lv.holders[0].token); ok && (acquiredMs < 0 || at < acquiredMs) {
			acquiredMs = at
		}
	}
	r.mu.Lock()
	queue := append([]*lockWaiter(nil), r.queues[k]...)
	r.mu.Unlock()

	w := c.W
	w.Map(11)
	w.BulkString("kind")
	w.BulkString(lv.kind)
	w.BulkString("owners")
	w.Array(len(owners))
	for _, o := range owners {
		w.BulkString(o)
	}
	w.BulkString("token")
	if tok, ok := tx.Token(key); ok {
		w.Int(int64(tok))
	} else {
		w.Null()
	}
	w.BulkString("ttl")
	w.Int(ttlAt(tx, lv.v.ExpireAt))
	w.BulkString("waiters")
	w.Int(int64(len(queue)))
	w.BulkString("session")
	w.Bool(inSession)
	w.BulkString("acquired_at")
	if acquiredMs >= 0 {
		w.Int(acquiredMs)
	} else {
		w.Null()
	}
	w.BulkString("reentries")
	if lv.kind == lockRedisson || lv.kind == lockRWWrite {
		w.Int(reentries)
	} else {
		w.Null()
	}
	w.BulkString("permits")
	if lv.kind == lockSemaphore && lv.permits > 0 {
		w.Int(lv.permits)
	} else {
		w.Null()
	}
	// holders: [owner, token, ttl, session] each; nil where unknown.
	w.BulkString("holders")
	w.Array(len(lv.holders))
	for i, h := range lv.holders {
		w.Array(4)
		w.BulkString(h.owner)
		if h.token != 0 {
			w.Int(int64(h.token))
		} else {
			w.Null()
		}
		w.Int(h.ttl)
		if sessions[i] != "" {
			w.BulkString(sessions[i])
		} else {
			w.Null()
		}
	}
	// queue: [owner, mode, keys] each, first come first.
	w.BulkString("queue")
	w.Array(len(queue))
	for _, qw := range queue {
		w.Array(3)
		w.BulkString(qw.req.owner)
		mode := qw.req.mode.String()
		if qw.req.mode == modePermits {
			mode += " " + strconv.FormatInt(qw.req.permits, 10)
		}
		w.BulkString(mode)
		w.Int(int64(len(qw.keys)))
	}
}

// lockKindOf classifies a stored value by its layout alone, without the
// companion keys (LOCK.LIST walks many keys): its kind and first owner,
// or "" when it is no lock.
func lockKindOf(v Value, now int64) (kind, first string) {
	switch v.Type {
	case TypeString:
		return lockString, v.Payload
	case TypeHash:
		h := decodeHash(v.Payload)
		h.hideExpired(hashFieldExpiry(v.Payload), now)
		mode, hasMode := h.get([]byte("mode"))
		ok, n := true, 0
		h.each(func(f, val string) {
			if f == "mode" {
				return
			}
			c, isInt := ParseInt(StringBytes(val))
			if !isInt || c <= 0 || (!hasMode && !containsByte(f, ':')) {
				ok = false
			}
			if n == 0 {
				first = f
			}
			n++
		})
		switch {
		case !ok || n == 0:
		case !hasMode:
			return lockRedisson, first
		case mode == "read":
			return lockShared, first
		case mode == "write":
			return lockRWWrite, first
		}
	case TypeZSet:
		z := decodeZset(v.Payload)
		for _, e := range z.ents {
			if e.score < 0 || e.score != math.Trunc(e.score) || e.score > 1<<53 {
				return "", ""
			}
		}
		if len(z.ents) > 0 {
			return lockSemaphore, z.ents[0].member
		}
	}
	return "", ""
}

func containsByte(s string, b byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == b {
			return true
		}
	}
	return false
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
		kind, first string
		ttl         int64
	}
	var entries []entry
	next, keys := scanKeys(c, cursor, pattern, count, false, func(_ string, v Value) bool {
		kind, first := lockKindOf(v, c.Tx.Ms)
		if kind == "" {
			return false
		}
		entries = append(entries, entry{kind, first, ttlAt(c.Tx, v.ExpireAt)})
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
		c.W.BulkString(e.kind)
		c.W.BulkString(e.first)
		c.W.Int(e.ttl)
		c.W.Int(int64(c.E.locks.queued(dbKey{c.Tx.DB, key})))
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
// token (or the token of one of its shared or semaphore holders) is
// token, else 0 (Chubby's CheckSequencer, for resources that cannot keep
// the largest token they have seen).
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
	// A shared lock's or a semaphore's holders have tokens of their own.
	for _, h := range viewLock(c.Tx, c.Tx.DB, c.Args[1]).holders {
		if h.token != 0 && int64(h.token) == want {
			c.W.Int(1)
			return
		}
	}
	c.W.Int(0)
}
