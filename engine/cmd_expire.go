package engine

import (
	"bytes"
	"math"
)

// Expiry commands. A TTL is stored as an absolute unix time in milliseconds
// (int64) in the value header, never as a time.Duration, so every TTL that
// Redis accepts, up to year 292 million, is stored and reported exactly.

// Error replies of this file's commands (errors.go has the shared ones).
var (
	errExpireGTAndLT     = replyError("ERR GT and LT options at the same time are not compatible")
	errExpireNXAndOthers = replyError("ERR NX and XX, GT or LT options at the same time are not compatible")
)

func expireCommands() []*Command {
	return []*Command{
		{Name: "expire", Handler: cmdExpire},
		{Name: "pexpire", Handler: cmdPExpire},
		{Name: "expireat", Handler: cmdExpireAt},
		{Name: "pexpireat", Handler: cmdPExpireAt},
		{Name: "ttl", Handler: cmdTTL},
		{Name: "pttl", Handler: cmdPTTL},
		{Name: "expiretime", Handler: cmdExpireTime},
		{Name: "pexpiretime", Handler: cmdPExpireTime},
		{Name: "persist", Handler: cmdPersist},
	}
}

func cmdExpire(c *Call)    { expireGeneric(c, c.Tx.Ms, true) }
func cmdPExpire(c *Call)   { expireGeneric(c, c.Tx.Ms, false) }
func cmdExpireAt(c *Call)  { expireGeneric(c, 0, true) }
func cmdPExpireAt(c *Call) { expireGeneric(c, 0, false) }

// expire options
const (
	expireNX = 1 << iota
	expireXX
	expireGT
	expireLT
)

// parseExpireOptions parses EXPIRE's NX|XX|GT|LT (any case, repeats
// allowed), then rejects the combinations Redis rejects.
func parseExpireOptions(args [][]byte) (int, error) {
	flags := 0
	for _, opt := range args {
		switch {
		case EqualFold(opt, "nx"):
			flags |= expireNX
		case EqualFold(opt, "xx"):
			flags |= expireXX
		case EqualFold(opt, "gt"):
			flags |= expireGT
		case EqualFold(opt, "lt"):
			flags |= expireLT
		default:
			// Redis formats the option with %s: it stops at a NUL byte.
			if i := bytes.IndexByte(opt, 0); i >= 0 {
				opt = opt[:i]
			}
			return 0, replyError(sanitizeLine("ERR Unsupported option " + string(opt)))
		}
	}
	if flags&expireNX != 0 && flags&(expireXX|expireGT|expireLT) != 0 {
		return 0, errExpireNXAndOthers
	}
	if flags&expireGT != 0 && flags&expireLT != 0 {
		return 0, errExpireGTAndLT
	}
	return flags, nil
}

// expireGeneric is Redis's expireGenericCommand: basetime is now for
// EXPIRE/PEXPIRE and 0 for the AT forms. A time at or before now deletes
// the key (reply 1); a key without TTL counts as an infinite TTL for GT/LT.
func expireGeneric(c *Call, basetime int64, seconds bool) {
	flags, err := parseExpireOptions(c.Args[3:])
	if err != nil {
		c.Err(err)
		return
	}
	when, ok := ParseInt(c.Args[2])
	if !ok {
		c.Err(ErrNotInteger)
		return
	}
	// Negative times are allowed; only overflow is an error.
	if seconds {
		if when > math.MaxInt64/1000 || when < math.MinInt64/1000 {
			c.Err(ErrInvalidExpire(c.Cmd.FullName))
			return
		}
		when *= 1000
	}
	if when > math.MaxInt64-basetime {
		c.Err(ErrInvalidExpire(c.Cmd.FullName))
		return
	}
	when += basetime

	key := c.Args[1]
	v, found := c.Tx.Get(key)
	if !found {
		c.W.Int(0)
		return
	}
	cur := v.ExpireAt // 0: no TTL
	switch {
	case flags&expireNX != 0 && cur != 0,
		flags&expireXX != 0 && cur == 0,
		flags&expireGT != 0 && (cur == 0 || when <= cur),
		flags&expireLT != 0 && cur != 0 && when >= cur:
		c.W.Int(0)
		return
	}
	if when <= c.Tx.Ms {
		c.Tx.Delete(key)
		c.Tx.Notify(NotifyGeneric, "del", key)
		c.W.Int(1)
		return
	}
	v.ExpireAt = when
	c.Tx.Put(key, v)
	c.W.Int(1) // Redis replies before it raises the event
	c.Tx.Notify(NotifyGeneric, "expire", key)
}

func cmdTTL(c *Call)         { ttlGeneric(c, false, false) }
func cmdPTTL(c *Call)        { ttlGeneric(c, true, false) }
func cmdExpireTime(c *Call)  { ttlGeneric(c, false, true) }
func cmdPExpireTime(c *Call) { ttlGeneric(c, true, true) }

// ttlGeneric replies -2 for a missing key, -1 for a key without TTL, else
// the TTL (or with abs the unix expiry time) in ms, or in seconds rounded
// to nearest as Redis does: (ms+500)/1000.
func ttlGeneric(c *Call, ms, abs bool) {
	v, ok := lookupRead(c, c.Args[1])
	switch {
	case !ok:
		c.W.Int(-2)
		return
	case v.ExpireAt == 0:
		c.W.Int(-1)
		return
	}
	ttl := v.ExpireAt
	if !abs {
		ttl -= c.Tx.Ms
	}
	if ttl < 0 {
		ttl = 0
	}
	if !ms {
		// In unsigned arithmetic ttl+500 cannot overflow: redis-server
		// (compiled C) also gives the exact result near the int64 limit.
		ttl = int64((uint64(ttl) + 500) / 1000)
	}
	c.W.Int(ttl)
}

func cmdPersist(c *Call) {
	key := c.Args[1]
	v, ok := c.Tx.Get(key)
	if !ok || v.ExpireAt == 0 {
		c.W.Int(0)
		return
	}
	v.ExpireAt = 0
	c.Tx.Put(key, v)
	c.Tx.Notify(NotifyGeneric, "persist", key)
	c.W.Int(1)
}
