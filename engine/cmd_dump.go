package engine

import "errors"

// DUMP and RESTORE (cluster.c dumpCommand, restoreCommand): a value in
// Redis's serialization (rdb.go), and back.

// Error replies of this file's commands (errors.go has the shared ones).
var (
	errDumpPayload = errors.New("ERR DUMP payload version or checksum are wrong")
)

var (
	errBusyKey         = errors.New("BUSYKEY Target key name already exists.")
	errRestoreTTL      = errors.New("ERR Invalid TTL value, must be >= 0")
	errRestoreIdletime = errors.New("ERR Invalid IDLETIME value, must be >= 0")
	errRestoreFreq     = errors.New("ERR Invalid FREQ value, must be >= 0 and <= 255")
)

func dumpCommands() []*Command {
	return []*Command{
		{Name: "dump", Handler: cmdDump},
		{Name: "restore", Handler: cmdRestore},
		{Name: "restore-asking", Handler: cmdRestore}, // what MIGRATE sends: RESTORE, as Redis aliases it
	}
}

// cmdDump serializes the value. A hash's field expiries (HEXPIRE, newer
// than Redis 7.0, whose RDB format has no place for them) are left out:
// fields already expired are not dumped, the others are dumped without
// their expiry, and a hash with no field left reads as missing.
func cmdDump(c *Call) {
	v, ok := lookupRead(c, c.Args[1])
	if ok {
		v, ok = dumpable(v, c.Tx.Ms)
	}
	if !ok {
		c.W.Null()
		return
	}
	if !canDump(v) {
		c.Err(errDumpStream)
		return
	}
	c.W.Bulk(dumpPayload(v))
}

// dumpable is v as DUMP (and MIGRATE) serialize it at time now: a hash
// without its field expiries, false when no field is left.
func dumpable(v Value, now int64) (Value, bool) {
	if v.Type != TypeHash || hashFieldExpiry(v.Payload) == 0 {
		return v, true
	}
	h := decodeHash(v.Payload)
	h.hideExpired(hashFieldExpiry(v.Payload), now)
	for i := range h.ents {
		h.ents[i].at = 0
	}
	v.Payload = encodeHash(h)
	return v, h.live > 0
}

// cmdRestore is RESTORE key ttl serialized-value [REPLACE] [ABSTTL]
// [IDLETIME seconds] [FREQ frequency]. IDLETIME and FREQ are checked and
// then ignored: lockredis keeps neither access times nor frequencies
// (OBJECT IDLETIME answers 0).
func cmdRestore(c *Call) {
	key := c.Args[1]
	replace, absttl, idle, freq := false, false, false, false
	for j := 4; j < len(c.Args); j++ {
		more := len(c.Args) - j - 1
		a := c.Args[j]
		switch {
		case EqualFold(a, "replace"):
			replace = true
		case EqualFold(a, "absttl"):
			absttl = true
		case EqualFold(a, "idletime") && more >= 1 && !freq:
			n, ok := ParseInt(c.Args[j+1])
			if !ok {
				c.Err(ErrNotInteger)
				return
			}
			if n < 0 {
				c.Err(errRestoreIdletime)
				return
			}
			idle = true
			j++
		case EqualFold(a, "freq") && more >= 1 && !idle:
			n, ok := ParseInt(c.Args[j+1])
			if !ok {
				c.Err(ErrNotInteger)
				return
			}
			if n < 0 || n > 255 {
				c.Err(errRestoreFreq)
				return
			}
			freq = true
			j++
		default:
			c.Err(ErrSyntax)
			return
		}
	}
	if !replace && c.Tx.Exists(key) {
		c.Err(errBusyKey)
		return
	}
	ttl, ok := ParseInt(c.Args[2])
	if !ok {
		c.Err(ErrNotInteger)
		return
	}
	if ttl < 0 {
		c.Err(errRestoreTTL)
		return
	}
	body, ok := RDBPayloadBody(c.Args[3])
	if !ok {
		c.Err(errDumpPayload)
		return
	}
	v, err := restorePayload(body)
	if err != nil {
		c.Err(err)
		return
	}
	deleted := replace && c.Tx.Delete(key)
	if ttl != 0 && !absttl {
		ttl = int64(uint64(ttl) + uint64(c.Tx.Ms)) // wraps like Redis's long long sum
	}
	if ttl != 0 && ttl <= c.Tx.Ms {
		// Already expired: nothing is created (the old key is gone).
		if deleted {
			c.Tx.Notify(NotifyGeneric, "del", key)
		}
		c.OK()
		return
	}
	if ttl > 0 {
		v.ExpireAt = ttl
	}
	c.Tx.Put(key, v)
	c.Tx.Notify(NotifyGeneric, "restore", key)
	c.OK()
}
