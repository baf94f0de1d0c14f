package engine

import (
	"math"
	"strconv"
	"strings"
)

// String commands.
//
// TTL rules, as in Redis: commands that replace the value (SET without
// KEEPTTL, GETSET, SETEX, PSETEX, MSET, MSETNX, SETNX) clear the TTL;
// commands that modify it in place (APPEND, SETRANGE, INCR, INCRBY, DECR,
// DECRBY, INCRBYFLOAT) keep it.

// Error replies of this file's commands (errors.go has the shared ones).
var (
	errDecrOverflow = replyError("ERR decrement would overflow")
	errOffsetRange  = replyError("ERR offset is out of range")
)

func stringCommands() []*Command {
	return append([]*Command{
		{Name: "get", Handler: cmdGet},
		{Name: "set", Handler: cmdSet, keysProc: setKeys, keysFirst: true},
		{Name: "setnx", Handler: cmdSetNX},
		{Name: "setex", Handler: cmdSetEX},
		{Name: "psetex", Handler: cmdPSetEX},
		{Name: "getset", Handler: cmdGetSet},
		{Name: "getdel", Handler: cmdGetDel},
		{Name: "getex", Handler: cmdGetEx},
		{Name: "mget", Handler: cmdMGet},
		{Name: "mset", Handler: cmdMSet},
		{Name: "msetnx", Handler: cmdMSetNX},
		{Name: "append", Handler: cmdAppend},
		{Name: "strlen", Handler: cmdStrlen},
		{Name: "incr", Handler: cmdIncr},
		{Name: "decr", Handler: cmdDecr},
		{Name: "incrby", Handler: cmdIncrBy},
		{Name: "decrby", Handler: cmdDecrBy},
		{Name: "incrbyfloat", Handler: cmdIncrByFloat},
		{Name: "getrange", Handler: cmdGetRange},
		{Name: "substr", Handler: cmdGetRange},
		{Name: "setrange", Handler: cmdSetRange},
	}, delexCommands()...) // cmd_delex.go
}

// maxStringLen is Redis's proto-max-bulk-len default (512 MB), the largest
// string APPEND and SETRANGE may build.
const maxStringLen = 512 << 20

// zeros pads SETRANGE past the end of a string. Read-only.
var zeros [4096]byte

// getGeneric is Redis's getGenericCommand: it replies with the string at
// the first argument's key (nil when missing) and counts the read. It
// returns the value, whether it was found, and false after a WRONGTYPE
// error reply.
func getGeneric(c *Call) (Value, bool, bool) {
	v, ok := lookupRead(c, c.Args[1])
	switch {
	case !ok:
		c.W.Null()
	case v.Type != TypeString:
		c.Err(ErrWrongType)
		return v, true, false
	default:
		c.W.BulkString(v.Payload)
	}
	return v, ok, true
}

func cmdGet(c *Call) { getGeneric(c) }

// setFlags are SET's options.
type setFlags uint16

const (
	setNX setFlags = 1 << iota
	setXX
	setGet
	setKeepTTL
	setEX
	setPX
	setEXAT
	setPXAT
	setPersist // GETEX only
	// Redis 8.4's compare-and-set conditions (SET only); see setCondition.
	setIFEQ
	setIFNE
	setIFDEQ
	setIFDNE
)

const (
	anyExpire = setEX | setPX | setEXAT | setPXAT
	// anyIf are the 8.4 conditions on the current value.
	anyIf = setIFEQ | setIFNE | setIFDEQ | setIFDNE
	// anyCondition: NX, XX and the 8.4 conditions exclude one another.
	anyCondition = setNX | setXX | anyIf
)

// parseSetOptions parses SET's (or GETEX's, when getex is set) options
// from args, with Redis's rules: any order and case, conflicting options
// are a syntax error, a repeated EX (PX...) takes the last value.
//
// SET also takes Redis 8.4's conditions IFEQ value, IFNE value, IFDEQ
// digest and IFDNE digest (cmp is their argument). As redis.io documents,
// NX, XX and the four conditions exclude one another and combine with GET
// and any expiry option. Decided without an 8.4 server to compare with:
// a condition given twice (IFEQ a IFEQ b) is a syntax error, unlike a
// repeated NX, so that a lock release never compares with the wrong
// token; a digest that is not 16 hexadecimal digits is refused here, in
// argument order, with the text of Redis's fix for it (redis/redis#14502).
func parseSetOptions(args [][]byte, getex bool) (flags setFlags, expire, cmp []byte, err error) {
	for j := 0; j < len(args); j++ {
		opt := args[j]
		var next []byte
		if j+1 < len(args) {
			next = args[j+1]
		}
		switch {
		case !getex && EqualFold(opt, "nx") && flags&(anyCondition&^setNX) == 0:
			flags |= setNX
		case !getex && EqualFold(opt, "xx") && flags&(anyCondition&^setXX) == 0:
			flags |= setXX
		case !getex && flags&anyCondition == 0 && next != nil && setCondition(opt) != 0:
			flags |= setCondition(opt)
			if flags&(setIFDEQ|setIFDNE) != 0 && !validDigest(next) {
				return 0, nil, nil, errDigestFormat
			}
			cmp = next
			j++
		case !getex && EqualFold(opt, "get"):
			flags |= setGet
		case !getex && EqualFold(opt, "keepttl") && flags&(setPersist|anyExpire) == 0:
			flags |= setKeepTTL
		case getex && EqualFold(opt, "persist") && flags&(anyExpire|setKeepTTL) == 0:
			flags |= setPersist
		case EqualFold(opt, "ex") && flags&(setKeepTTL|setPersist|setEXAT|setPX|setPXAT) == 0 && next != nil:
			flags |= setEX
			expire = next
			j++
		case EqualFold(opt, "px") && flags&(setKeepTTL|setPersist|setEX|setEXAT|setPXAT) == 0 && next != nil:
			flags |= setPX
			expire = next
			j++
		case EqualFold(opt, "exat") && flags&(setKeepTTL|setPersist|setEX|setPX|setPXAT) == 0 && next != nil:
			flags |= setEXAT
			expire = next
			j++
		case EqualFold(opt, "pxat") && flags&(setKeepTTL|setPersist|setEX|setEXAT|setPX) == 0 && next != nil:
			flags |= setPXAT
			expire = next
			j++
		default:
			return 0, nil, nil, ErrSyntax
		}
	}
	return flags, expire, cmp, nil
}

// setCondition maps IFEQ, IFNE, IFDEQ, IFDNE (any case) to their flag, and
// anything else to 0.
func setCondition(opt []byte) setFlags {
	switch {
	case EqualFold(opt, "ifeq"):
		return setIFEQ
	case EqualFold(opt, "ifne"):
		return setIFNE
	case EqualFold(opt, "ifdeq"):
		return setIFDEQ
	case EqualFold(opt, "ifdne"):
		return setIFDNE
	}
	return 0
}

// expireAtFromOption turns an EX/PX/EXAT/PXAT argument into absolute unix
// ms, with Redis's checks (getExpireMillisecondsOrReply): the value must be
// positive and must not overflow once converted. EXAT/PXAT may be in the
// past.
func expireAtFromOption(flags setFlags, arg []byte, nowMs int64, cmd string) (int64, error) {
	n, ok := ParseInt(arg)
	if !ok {
		return 0, ErrNotInteger
	}
	seconds := flags&(setEX|setEXAT) != 0
	if n <= 0 || (seconds && n > math.MaxInt64/1000) {
		return 0, ErrInvalidExpire(cmd)
	}
	if seconds {
		n *= 1000
	}
	if flags&(setEX|setPX) != 0 {
		if n > math.MaxInt64-nowMs {
			return 0, ErrInvalidExpire(cmd)
		}
		n += nowMs
	}
	return n, nil
}

func cmdSet(c *Call) {
	flags, expArg, cmp, err := parseSetOptions(c.Args[3:], false)
	if err != nil {
		c.Err(err)
		return
	}
	setGeneric(c, flags, c.Args[1], c.Args[2], expArg, cmp, false)
}

func cmdSetNX(c *Call)  { setGeneric(c, setNX, c.Args[1], c.Args[2], nil, nil, true) }
func cmdSetEX(c *Call)  { setGeneric(c, setEX, c.Args[1], c.Args[3], c.Args[2], nil, false) }
func cmdPSetEX(c *Call) { setGeneric(c, setPX, c.Args[1], c.Args[3], c.Args[2], nil, false) }

// setGeneric is Redis's setGenericCommand for SET, SETNX, SETEX and PSETEX.
// intReply answers 1/0 (SETNX) instead of OK/nil. cmp is the argument of
// an IFEQ/IFNE/IFDEQ/IFDNE condition.
//
// The conditions follow redis.io's SET page (Redis 8.4): IFEQ and IFDEQ
// never create a missing key, IFNE and IFDNE do; a key of another type is
// WRONGTYPE (with GET, GET's own check answers first); with GET the reply
// is the old value (nil when there was none) whether or not the condition
// held, without GET it is OK, or nil when nothing was set.
func setGeneric(c *Call, flags setFlags, key, val, expArg, cmp []byte, intReply bool) {
	var expireAt int64
	if expArg != nil {
		var err error
		if expireAt, err = expireAtFromOption(flags, expArg, c.Tx.Ms, c.Cmd.FullName); err != nil {
			c.Err(err)
			return
		}
	}
	var old Value
	var found bool
	if flags&setGet != 0 {
		var typeOK bool
		if old, found, typeOK = getGeneric(c); !typeOK {
			return
		}
	} else {
		old, found = c.Tx.Get(key)
	}
	if flags&anyIf != 0 && found && old.Type != TypeString {
		c.Err(ErrWrongType)
		return
	}
	if (flags&setNX != 0 && found) || (flags&setXX != 0 && !found) ||
		(flags&anyIf != 0 && !setConditionHolds(flags, old, found, cmp)) {
		switch {
		case flags&setGet != 0: // the old value is the reply
		case intReply:
			c.W.Int(0)
		default:
			c.W.Null()
		}
		return
	}
	nv := Value{Type: TypeString, Payload: string(val), ExpireAt: expireAt}
	if flags&setKeepTTL != 0 && found {
		nv.ExpireAt = old.ExpireAt
	}
	c.Tx.Put(key, nv)
	c.Tx.Notify(NotifyString, "set", key)
	if expArg != nil {
		c.Tx.Notify(NotifyGeneric, "expire", key)
	}
	switch {
	case flags&setGet != 0: // the old value is the reply
	case intReply:
		c.W.Int(1)
	default:
		c.OK()
	}
}

// setConditionHolds reports whether SET's IFEQ/IFNE/IFDEQ/IFDNE (in
// flags, with cmp its argument) lets the write happen: old is the string
// at the key when found.
func setConditionHolds(flags setFlags, old Value, found bool, cmp []byte) bool {
	switch {
	case flags&setIFEQ != 0:
		return found && old.Payload == string(cmp)
	case flags&setIFNE != 0:
		return !found || old.Payload != string(cmp)
	case flags&setIFDEQ != 0:
		return found && digestMatches(old.Payload, cmp)
	case flags&setIFDNE != 0:
		return !found || !digestMatches(old.Payload, cmp)
	}
	return true
}

// cmdGetSet replies like GET and stores the new value without TTL.
func cmdGetSet(c *Call) {
	if _, _, ok := getGeneric(c); !ok {
		return
	}
	c.Tx.Put(c.Args[1], Value{Type: TypeString, Payload: string(c.Args[2])})
	c.Tx.Notify(NotifyString, "set", c.Args[1])
}

func cmdGetDel(c *Call) {
	if _, found, ok := getGeneric(c); ok && found {
		c.Tx.Delete(c.Args[1])
		c.Tx.Notify(NotifyGeneric, "del", c.Args[1])
	}
}

// cmdGetEx is GETEX key [EX s|PX ms|EXAT ts|PXAT ms-ts|PERSIST]. As in
// Redis, a missing key or a wrong type is reported before the expire time
// is checked, and an EXAT/PXAT in the past deletes the key after replying.
func cmdGetEx(c *Call) {
	flags, expArg, _, err := parseSetOptions(c.Args[2:], true)
	if err != nil {
		c.Err(err)
		return
	}
	key := c.Args[1]
	v, ok := lookupRead(c, key)
	switch {
	case !ok:
		c.W.Null()
		return
	case v.Type != TypeString:
		c.Err(ErrWrongType)
		return
	}
	var expireAt int64
	if expArg != nil {
		if expireAt, err = expireAtFromOption(flags, expArg, c.Tx.Ms, c.Cmd.FullName); err != nil {
			c.Err(err)
			return
		}
	}
	c.W.BulkString(v.Payload)
	switch {
	case flags&(setEXAT|setPXAT) != 0 && expireAt <= c.Tx.Ms:
		c.Tx.Delete(key)
		c.Tx.Notify(NotifyGeneric, "del", key)
	case expArg != nil:
		v.ExpireAt = expireAt
		c.Tx.Put(key, v)
		c.Tx.Notify(NotifyGeneric, "expire", key)
	case flags&setPersist != 0 && v.ExpireAt != 0:
		v.ExpireAt = 0
		c.Tx.Put(key, v)
		c.Tx.Notify(NotifyGeneric, "persist", key)
	}
}

// cmdMGet replies nil for missing keys and for keys of another type.
func cmdMGet(c *Call) {
	c.W.Array(len(c.Args) - 1)
	for _, k := range c.Args[1:] {
		v, ok := lookupRead(c, k)
		if !ok || v.Type != TypeString {
			c.W.Null()
			continue
		}
		c.W.BulkString(v.Payload)
	}
}

func cmdMSet(c *Call)   { msetGeneric(c, false) }
func cmdMSetNX(c *Call) { msetGeneric(c, true) }

// msetGeneric sets every pair, or with nx none at all when any key exists.
func msetGeneric(c *Call, nx bool) {
	if len(c.Args)%2 == 0 {
		c.Err(ErrArity(c.Cmd.FullName))
		return
	}
	if nx {
		for j := 1; j < len(c.Args); j += 2 {
			if c.Tx.Exists(c.Args[j]) {
				c.W.Int(0)
				return
			}
		}
	}
	for j := 1; j < len(c.Args); j += 2 {
		c.Tx.Put(c.Args[j], Value{Type: TypeString, Payload: string(c.Args[j+1])})
		c.Tx.Notify(NotifyString, "set", c.Args[j])
	}
	if nx {
		c.W.Int(1)
		return
	}
	c.OK()
}

func cmdAppend(c *Call) {
	key, suffix := c.Args[1], c.Args[2]
	v, ok := c.Tx.Get(key)
	if !ok {
		c.Tx.Put(key, Value{Type: TypeString, Payload: string(suffix)})
		c.Tx.Notify(NotifyString, "append", key)
		c.W.Int(int64(len(suffix)))
		return
	}
	if v.Type != TypeString {
		c.Err(ErrWrongType)
		return
	}
	if int64(len(v.Payload))+int64(len(suffix)) > maxStringLen {
		c.Err(ErrStringTooLong)
		return
	}
	v.Payload += string(suffix)
	v.Enc = EncRaw
	c.Tx.Put(key, v)
	c.Tx.Notify(NotifyString, "append", key)
	c.W.Int(int64(len(v.Payload)))
}

func cmdStrlen(c *Call) {
	v, ok := lookupRead(c, c.Args[1])
	switch {
	case !ok:
		c.W.Int(0)
	case v.Type != TypeString:
		c.Err(ErrWrongType)
	default:
		c.W.Int(int64(len(v.Payload)))
	}
}

func cmdIncr(c *Call) { incrDecr(c, 1) }
func cmdDecr(c *Call) { incrDecr(c, -1) }

func cmdIncrBy(c *Call) {
	n, ok := ParseInt(c.Args[2])
	if !ok {
		c.Err(ErrNotInteger)
		return
	}
	incrDecr(c, n)
}

func cmdDecrBy(c *Call) {
	n, ok := ParseInt(c.Args[2])
	if !ok {
		c.Err(ErrNotInteger)
		return
	}
	if n == math.MinInt64 { // its negation does not exist
		c.Err(errDecrOverflow)
		return
	}
	incrDecr(c, -n)
}

// incrDecr adds incr to the integer at c.Args[1] (0 when missing), keeping
// the key's TTL.
func incrDecr(c *Call, incr int64) {
	key := c.Args[1]
	v, ok := c.Tx.Get(key)
	var cur int64
	if ok {
		if v.Type != TypeString {
			c.Err(ErrWrongType)
			return
		}
		n, isInt := ParseInt(StringBytes(v.Payload))
		if !isInt {
			c.Err(ErrNotInteger)
			return
		}
		cur = n
	}
	if (incr < 0 && cur < 0 && incr < math.MinInt64-cur) ||
		(incr > 0 && cur > 0 && incr > math.MaxInt64-cur) {
		c.Err(ErrOverflow)
		return
	}
	cur += incr
	v.Type = TypeString
	v.Payload = strconv.FormatInt(cur, 10)
	v.Enc = EncNatural
	c.Tx.Put(key, v)
	c.Tx.Notify(NotifyString, "incrby", key)
	c.W.Int(cur)
}

// cmdIncrByFloat adds with Redis's long double arithmetic and formatting
// (AddLongDouble), keeping the key's TTL.
func cmdIncrByFloat(c *Call) {
	key := c.Args[1]
	v, ok := c.Tx.Get(key)
	cur := []byte("0")
	if ok {
		if v.Type != TypeString {
			c.Err(ErrWrongType)
			return
		}
		cur = StringBytes(v.Payload)
	}
	sum, err := AddLongDouble(cur, c.Args[2])
	if err != nil {
		c.Err(err)
		return
	}
	v.Type = TypeString
	v.Payload = sum
	v.Enc = EncFloat
	c.Tx.Put(key, v)
	c.Tx.Notify(NotifyString, "incrbyfloat", key)
	c.W.BulkString(sum)
}

// cmdGetRange is GETRANGE (and its old name SUBSTR): inclusive byte offsets,
// negative from the end, clamped; a missing key is an empty string.
func cmdGetRange(c *Call) {
	start, end, ok := parseRangeArgs(c.Args[2], c.Args[3])
	if !ok {
		c.Err(ErrNotInteger)
		return
	}
	v, found := lookupRead(c, c.Args[1])
	if !found {
		c.W.BulkString("")
		return
	}
	if v.Type != TypeString {
		c.Err(ErrWrongType)
		return
	}
	c.W.BulkString(substring(v.Payload, start, end))
}

// substring applies GETRANGE's index rules.
func substring(s string, start, end int64) string {
	if start < 0 && end < 0 && start > end {
		return ""
	}
	start, end, empty := clampGetRange(start, end, int64(len(s)))
	if empty {
		return ""
	}
	return s[start : end+1]
}

// clampGetRange is the index rule of GETRANGE, BITCOUNT and BITPOS for
// an inclusive range over n items: a negative index counts from the end,
// then both are clamped to the items (unlike the lists' clampRange, an end
// before the first item means the first). empty when no item is left.
func clampGetRange(start, end, n int64) (first, last int64, empty bool) {
	if start < 0 {
		start += n
	}
	if end < 0 {
		end += n
	}
	start = max(start, 0)
	end = max(end, 0)
	if end >= n {
		end = n - 1
	}
	return start, end, start > end
}

// cmdSetRange overwrites part of a string at a byte offset, padding with
// zero bytes, and keeps the key's TTL. An empty value changes nothing (and
// creates no key).
func cmdSetRange(c *Call) {
	key, val := c.Args[1], c.Args[3]
	offset, ok := ParseInt(c.Args[2])
	if !ok {
		c.Err(ErrNotInteger)
		return
	}
	if offset < 0 {
		c.Err(errOffsetRange)
		return
	}
	v, found := c.Tx.Get(key)
	if found && v.Type != TypeString {
		c.Err(ErrWrongType)
		return
	}
	if len(val) == 0 {
		c.W.Int(int64(len(v.Payload)))
		return
	}
	if offset > maxStringLen-int64(len(val)) {
		c.Err(ErrStringTooLong)
		return
	}
	old := v.Payload
	end := int(offset) + len(val)
	var sb strings.Builder
	sb.Grow(max(len(old), end))
	if int(offset) <= len(old) {
		sb.WriteString(old[:offset])
	} else {
		sb.WriteString(old)
		for pad := int(offset) - len(old); pad > 0; {
			n := min(pad, len(zeros))
			sb.Write(zeros[:n])
			pad -= n
		}
	}
	sb.Write(val)
	if end < len(old) {
		sb.WriteString(old[end:])
	}
	v.Type = TypeString
	v.Payload = sb.String()
	v.Enc = EncRaw
	c.Tx.Put(key, v)
	c.Tx.Notify(NotifyString, "setrange", key)
	c.W.Int(int64(len(v.Payload)))
}

// setKeys: SET's key spec has variable flags, so Redis asks SET itself: a
// GET option makes the key read and written, else it is overwritten.
func setKeys(cmd *Command, args [][]byte) ([]keyRef, bool) {
	if cmd.FullName != "set" {
		return nil, false
	}
	for _, a := range args[3:] {
		if EqualFold(a, "get") {
			return []keyRef{{1, []string{"RW", "access", "update"}}}, true
		}
	}
	return []keyRef{{1, []string{"OW", "update"}}}, true
}
