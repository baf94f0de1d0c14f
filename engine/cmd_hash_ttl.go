package engine

// Hash field expiry, Redis 7.4 (HEXPIRE, HPEXPIRE, HEXPIREAT, HPEXPIREAT,
// HTTL, HPTTL, HEXPIRETIME, HPEXPIRETIME, HPERSIST) and Redis 8.0
// (HGETDEL, HGETEX, HSETEX): argument checks in the order of Redis's
// t_hash.c, the same replies and errors and keyspace events. A field's
// expiry is stored in the hash (encoding_hash.go); loadHash hides fields
// whose time has passed and the sweeper removes them (hashttl_sweep.go).

// Error replies of this file's commands (errors.go has the shared ones).
var (
	errFieldExpireNeg    = replyError("ERR invalid expire time, must be >= 0")
	errFieldsMissing     = replyError("ERR Mandatory argument FIELDS is missing or not at the right position")
	errHsetexCondition   = replyError("ERR Only one of FXX or FNX arguments can be specified")
	errHsetexExpiration  = replyError("ERR Only one of EX, PX, EXAT, PXAT or KEEPTTL arguments can be specified")
	errHsetexMissingTime = replyError("ERR missing expire time")
	errNumFieldsHexpire  = replyError("ERR Parameter `numFields` should be greater than 0")
	errNumFieldsHsetex   = replyError("ERR invalid number of fields")
	errNumFieldsMismatch = replyError("ERR The `numfields` parameter must match the number of arguments")
	errNumFieldsPositive = replyError("ERR Number of fields must be a positive integer")
)

func hashTTLCommands() []*Command {
	return []*Command{
		{Name: "hexpire", Handler: func(c *Call) { hexpireGeneric(c, true, true) }},
		{Name: "hpexpire", Handler: func(c *Call) { hexpireGeneric(c, false, true) }},
		{Name: "hexpireat", Handler: func(c *Call) { hexpireGeneric(c, true, false) }},
		{Name: "hpexpireat", Handler: func(c *Call) { hexpireGeneric(c, false, false) }},
		{Name: "httl", Handler: func(c *Call) { httlGeneric(c, true, true) }},
		{Name: "hpttl", Handler: func(c *Call) { httlGeneric(c, false, true) }},
		{Name: "hexpiretime", Handler: func(c *Call) { httlGeneric(c, true, false) }},
		{Name: "hpexpiretime", Handler: func(c *Call) { httlGeneric(c, false, false) }},
		{Name: "hpersist", Handler: cmdHpersist},
		{Name: "hgetdel", Handler: cmdHgetdel},
		{Name: "hgetex", Handler: cmdHgetex},
		{Name: "hsetex", Handler: cmdHsetex},
	}
}

// hfeMaxAbsMs is the latest field expiry Redis accepts (HFE_MAX_ABS_TIME_MSEC:
// its expiry buckets' 48-bit limit, divided by 4).
const hfeMaxAbsMs = 0xFFFFFFFFFFFF >> 2

// Per-field replies of HEXPIRE, HPEXPIRE, HEXPIREAT and HPEXPIREAT.
const (
	fieldNoField = -2 // no such field
	fieldNoCond  = 0  // NX | XX | GT | LT not met
	fieldSet     = 1  // expiry set
	fieldDeleted = 2  // deleted: the time is in the past
)

// parseFieldExpire is Redis's parseExpireTime: an expiry argument in
// seconds or milliseconds, relative to base (unix ms; 0 for the *AT forms),
// as an absolute unix ms time.
func parseFieldExpire(c *Call, arg []byte, seconds bool, base int64) (int64, error) {
	v, ok := ParseInt(arg)
	if !ok {
		return 0, ErrNotInteger
	}
	if v < 0 {
		return 0, errFieldExpireNeg
	}
	if seconds {
		if v > hfeMaxAbsMs/1000 {
			return 0, ErrInvalidExpire(c.Cmd.FullName)
		}
		v *= 1000
	}
	if v > hfeMaxAbsMs-base {
		return 0, ErrInvalidExpire(c.Cmd.FullName)
	}
	return v + base, nil
}

// parseFields reads "FIELDS numfields field..." where numfields is at
// args[at]: Redis's checks of the FIELDS token, the count (numErr when it
// is not a positive integer) and that exactly that many fields follow.
func parseFields(args [][]byte, at int, numErr error) ([][]byte, error) {
	if at >= len(args) {
		return nil, numErr // only HGETEX k EX n FIELDS gets here
	}
	if !EqualFold(args[at-1], "fields") {
		return nil, errFieldsMissing
	}
	n, ok := ParseInt(args[at])
	if !ok || n < 1 {
		return nil, numErr
	}
	if n != int64(len(args)-at-1) {
		return nil, errNumFieldsMismatch
	}
	return args[at+1:], nil
}

// replyFields parses FIELDS (see parseFields) and starts the reply, an
// array of one entry per field. The FIELDS commands call it once they have
// the hash (hashForWrite: an empty one for a missing key, where every
// field is missing): WRONGTYPE comes before argument errors, as in Redis.
func replyFields(c *Call, h *hashObj, at int, numErr error) ([][]byte, bool) {
	fields, err := parseFields(c.Args, at, numErr)
	if err != nil {
		c.Err(err)
		return nil, false
	}
	c.W.Array(len(fields))
	h.expect(len(fields))
	return fields, true
}

// setFieldExpiry gives field i of h the expiry at. A field's lease is a
// lock's TTL for the restart fence (fence.go): one granted here is
// remembered like a key's.
func setFieldExpiry(tx *Tx, h *hashObj, i int, at int64) {
	h.ents[i].at = at
	tx.GrantTTL(at - tx.Ms)
}

// Conditions of HEXPIRE.
const (
	condNone = iota
	condNX
	condXX
	condGT
	condLT
)

// hexpireGeneric is HEXPIRE, HPEXPIRE, HEXPIREAT and HPEXPIREAT.
func hexpireGeneric(c *Call, seconds, relative bool) {
	key := c.Args[1]
	h, exp, ok := hashForWrite(c, key)
	if !ok {
		return
	}
	var base int64
	if relative {
		base = c.Tx.Ms
	}
	at, err := parseFieldExpire(c, c.Args[2], seconds, base)
	if err != nil {
		c.Err(err)
		return
	}
	cond, numAt := condNone, 4
	switch {
	case EqualFold(c.Args[3], "nx"):
		cond = condNX
	case EqualFold(c.Args[3], "xx"):
		cond = condXX
	case EqualFold(c.Args[3], "gt"):
		cond = condGT
	case EqualFold(c.Args[3], "lt"):
		cond = condLT
	}
	if cond != condNone {
		numAt++
	}
	fields, ok := replyFields(c, h, numAt, errNumFieldsHexpire)
	if !ok {
		return
	}
	deleted, updated := 0, 0
	for _, f := range fields {
		i := h.find(f)
		switch {
		case i < 0:
			c.W.Int(fieldNoField)
		case !expireCondMet(cond, h.ents[i].at, at):
			c.W.Int(fieldNoCond)
		case at <= c.Tx.Ms:
			h.del(f)
			deleted++
			c.W.Int(fieldDeleted)
		default:
			setFieldExpiry(c.Tx, h, i, at)
			updated++
			c.W.Int(fieldSet)
		}
	}
	if deleted+updated == 0 {
		return
	}
	storeHash(c.Tx, key, h, exp)
	switch {
	case deleted > 0 && h.live == 0:
		c.Tx.Notify(NotifyHash, "hdel", key)
		c.Tx.Notify(NotifyGeneric, "del", key)
	case deleted > 0:
		c.Tx.Notify(NotifyHash, "hdel", key)
	default:
		c.Tx.Notify(NotifyHash, "hexpire", key)
	}
}

// expireCondMet is HEXPIRE's NX | XX | GT | LT test for a field whose
// current expiry is cur (0: none) and a new one at. A field without an
// expiry counts as expiring never: LT holds, GT does not.
func expireCondMet(cond int, cur, at int64) bool {
	switch cond {
	case condNX:
		return cur == 0
	case condXX:
		return cur != 0
	case condGT:
		return cur != 0 && at > cur
	case condLT:
		return cur == 0 || at < cur
	}
	return true
}

// httlGeneric is HTTL, HPTTL (relative) and HEXPIRETIME, HPEXPIRETIME
// (absolute): per field -2 when missing, -1 without an expiry.
func httlGeneric(c *Call, seconds, relative bool) {
	h, _, err := loadHash(c.Tx, c.Args[1], true)
	if err != nil {
		c.Err(err)
		return
	}
	if h == nil {
		h = &hashObj{} // every field is missing
	}
	fields, ok := replyFields(c, h, 3, errNumFieldsPositive)
	if !ok {
		return
	}
	var base int64
	if relative {
		base = c.Tx.Ms
	}
	for _, f := range fields {
		switch i := h.find(f); {
		case i < 0:
			c.W.Int(-2)
		case h.ents[i].at == 0:
			c.W.Int(-1)
		case seconds:
			// Redis rounds up: a field with 1 ms left has 1 second.
			c.W.Int((h.ents[i].at + 999 - base) / 1000)
		default:
			c.W.Int(h.ents[i].at - base)
		}
	}
}

func cmdHpersist(c *Call) {
	key := c.Args[1]
	h, exp, ok := hashForWrite(c, key)
	if !ok {
		return
	}
	fields, ok := replyFields(c, h, 3, errNumFieldsPositive)
	if !ok {
		return
	}
	changed := false
	for _, f := range fields {
		i := h.find(f)
		switch {
		case i < 0:
			c.W.Int(-2)
		case h.ents[i].at == 0:
			c.W.Int(-1)
		default:
			h.ents[i].at = 0
			changed = true
			c.W.Int(1)
		}
	}
	if changed {
		storeHash(c.Tx, key, h, exp)
		c.Tx.Notify(NotifyHash, "hpersist", key)
	}
}

// HGETDEL key FIELDS numfields field...: the values, then the fields are
// gone.
func cmdHgetdel(c *Call) {
	key := c.Args[1]
	h, exp, ok := hashForWrite(c, key)
	if !ok {
		return
	}
	fields, ok := replyFields(c, h, 3, errNumFieldsPositive)
	if !ok {
		return
	}
	deleted := 0
	for _, f := range fields {
		if v, ok := h.get(f); ok {
			c.W.BulkString(v)
			h.del(f)
			deleted++
			continue
		}
		c.W.Null()
	}
	if deleted == 0 && h.expired == 0 {
		return
	}
	// Like Redis 8, which expires the fields it meets, this removes the
	// fields whose time has passed ("hexpired", from storeHash).
	storeHash(c.Tx, key, h, exp)
	if deleted > 0 {
		c.Tx.Notify(NotifyHash, "hdel", key)
	}
	if h.live == 0 {
		c.Tx.Notify(NotifyGeneric, "del", key)
	}
}

// HGETEX key [EX s | PX ms | EXAT t | PXAT t | PERSIST] FIELDS numfields
// field...: the values, and the existing fields get the new expiry (or
// none: PERSIST); a time in the past deletes them.
func cmdHgetex(c *Call) {
	key := c.Args[1]
	h, exp, ok := hashForWrite(c, key)
	if !ok {
		return
	}
	opt := c.Args[2]
	numAt := 3
	var at int64
	setTTL, persist := false, false
	switch {
	case EqualFold(opt, "ex"), EqualFold(opt, "px"), EqualFold(opt, "exat"), EqualFold(opt, "pxat"):
		setTTL = true
		numAt += 2
		var base int64
		if len(opt) == 2 {
			base = c.Tx.Ms
		}
		seconds := opt[0] == 'e' || opt[0] == 'E'
		var err error
		if at, err = parseFieldExpire(c, c.Args[3], seconds, base); err != nil {
			c.Err(err)
			return
		}
	case EqualFold(opt, "persist"):
		persist = true
		numAt++
	}
	fields, ok := replyFields(c, h, numAt, errNumFieldsPositive)
	if !ok {
		return
	}
	deleted, updated := 0, 0
	for _, f := range fields {
		i := h.find(f)
		if i < 0 {
			c.W.Null()
			continue
		}
		c.W.BulkString(h.ents[i].value)
		switch {
		case setTTL && at <= c.Tx.Ms:
			h.del(f)
			deleted++
		case setTTL:
			setFieldExpiry(c.Tx, h, i, at)
			updated++
		case persist && h.ents[i].at != 0:
			h.ents[i].at = 0
			updated++
		}
	}
	if deleted+updated == 0 && h.expired == 0 {
		return
	}
	storeHash(c.Tx, key, h, exp) // "hexpired" for fields whose time had passed
	switch {
	case updated > 0 && persist:
		c.Tx.Notify(NotifyHash, "hpersist", key)
	case updated > 0:
		c.Tx.Notify(NotifyHash, "hexpire", key)
	case deleted > 0:
		c.Tx.Notify(NotifyHash, "hdel", key)
	}
	if h.live == 0 {
		c.Tx.Notify(NotifyGeneric, "del", key)
	}
}

// HSETEX options.
const (
	hsetexFNX = 1 << iota
	hsetexFXX
	hsetexTTL     // EX, PX, EXAT or PXAT
	hsetexKeepTTL // KEEPTTL
)

// parseHsetex is Redis's hsetexParseArgs: the options, then FIELDS and
// its field-value pairs; every argument error comes before the key is
// looked at.
func parseHsetex(c *Call) (flags int, at int64, pairs [][]byte, err error) {
	args := c.Args
	for i := 2; i < len(args); i++ {
		a := args[i]
		switch {
		case EqualFold(a, "fields"):
			if i >= len(args)-3 {
				return 0, 0, nil, ErrArity(c.Cmd.FullName)
			}
			n, ok := ParseInt(args[i+1])
			if !ok || n < 1 || n > 1<<31-1 {
				return 0, 0, nil, errNumFieldsHsetex
			}
			rest := len(args) - i - 2
			if rest%2 != 0 || n != int64(rest/2) {
				return 0, 0, nil, ErrArity(c.Cmd.FullName)
			}
			return flags, at, args[i+2:], nil
		case EqualFold(a, "ex"), EqualFold(a, "px"), EqualFold(a, "exat"), EqualFold(a, "pxat"):
			if flags&(hsetexTTL|hsetexKeepTTL) != 0 {
				return 0, 0, nil, errHsetexExpiration
			}
			if i >= len(args)-1 {
				return 0, 0, nil, errHsetexMissingTime
			}
			flags |= hsetexTTL
			var base int64
			if len(a) == 2 {
				base = c.Tx.Ms
			}
			i++
			if at, err = parseFieldExpire(c, args[i], a[0] == 'e' || a[0] == 'E', base); err != nil {
				return 0, 0, nil, err
			}
		case EqualFold(a, "keepttl"):
			if flags&(hsetexTTL|hsetexKeepTTL) != 0 {
				return 0, 0, nil, errHsetexExpiration
			}
			flags |= hsetexKeepTTL
		case EqualFold(a, "fxx"), EqualFold(a, "fnx"):
			if flags&(hsetexFNX|hsetexFXX) != 0 {
				return 0, 0, nil, errHsetexCondition
			}
			if EqualFold(a, "fxx") {
				flags |= hsetexFXX
			} else {
				flags |= hsetexFNX
			}
		default:
			return 0, 0, nil, replyError(sanitizeLine("ERR unknown argument: " + string(a)))
		}
	}
	// The arity (-6) leaves no room for options alone: one of them is
	// repeated or unknown before the arguments run out.
	return 0, 0, nil, ErrArity(c.Cmd.FullName)
}

// HSETEX key [FNX | FXX] [EX s | PX ms | EXAT t | PXAT t | KEEPTTL] FIELDS
// numfields field value...: 1 when the fields were set, 0 when FNX or FXX
// failed. Without an expiry option the fields lose theirs, as with HSET.
func cmdHsetex(c *Call) {
	flags, at, pairs, err := parseHsetex(c)
	if err != nil {
		c.Err(err)
		return
	}
	key := c.Args[1]
	h, exp, err := loadHash(c.Tx, key, false)
	if err != nil {
		c.Err(err)
		return
	}
	if h == nil {
		if flags&hsetexFXX != 0 {
			c.W.Int(0)
			return
		}
		h = &hashObj{}
	}
	h.expect(len(pairs) / 2)
	if flags&(hsetexFNX|hsetexFXX) != 0 {
		for i := 0; i < len(pairs); i += 2 {
			exists := h.find(pairs[i]) >= 0
			if exists == (flags&hsetexFNX != 0) {
				if h.expired > 0 {
					storeHash(c.Tx, key, h, exp) // "hexpired", as Redis 8's check
				}
				c.W.Int(0)
				return
			}
		}
	}
	deleted, updated := 0, 0
	for i := 0; i < len(pairs); i += 2 {
		f := pairs[i]
		j, _ := h.put(f, string(pairs[i+1]))
		switch {
		case flags&hsetexKeepTTL != 0:
		case flags&hsetexTTL == 0:
			h.ents[j].at = 0
		case at <= c.Tx.Ms:
			h.del(f)
			deleted++
		default:
			setFieldExpiry(c.Tx, h, j, at)
			updated++
		}
	}
	storeHash(c.Tx, key, h, exp)
	c.W.Int(1)
	c.Tx.Notify(NotifyHash, "hset", key)
	if deleted > 0 {
		c.Tx.Notify(NotifyHash, "hdel", key)
	} else if updated > 0 {
		c.Tx.Notify(NotifyHash, "hexpire", key)
	}
	if h.live == 0 {
		c.Tx.Notify(NotifyGeneric, "del", key)
	}
}
