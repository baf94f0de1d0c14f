package engine

import "math"

// String commands.

func stringCommands() []*Command {
	return []*Command{
		{Name: "get", Arity: 2, Flags: FlagReadonly | FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdGet},
		{Name: "set", Arity: -3, Flags: FlagWrite | FlagDenyOOM, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdSet},
	}
}

// getString returns the string at key; missing is (nil, false, nil).
func getString(c *Call, key []byte) (Value, bool, error) {
	return c.Tx.GetType(key, TypeString)
}

func cmdGet(c *Call) {
	v, ok, err := getString(c, c.Args[1])
	switch {
	case err != nil:
		c.Err(err)
	case !ok:
		c.E.Stats.KeyspaceMisses.Add(1)
		c.W.Null()
	default:
		c.E.Stats.KeyspaceHits.Add(1)
		c.W.BulkString(v.Payload)
	}
}

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
)

const anyExpire = setEX | setPX | setEXAT | setPXAT

// parseSetOptions parses SET's (or GETEX's, when getex is set) options
// from args, with Redis's rules: any order and case, conflicting options
// are a syntax error.
func parseSetOptions(args [][]byte, getex bool) (flags setFlags, expire []byte, err error) {
	for j := 0; j < len(args); j++ {
		opt := args[j]
		var next []byte
		if j+1 < len(args) {
			next = args[j+1]
		}
		switch {
		case !getex && EqualFold(opt, "nx") && flags&setXX == 0:
			flags |= setNX
		case !getex && EqualFold(opt, "xx") && flags&setNX == 0:
			flags |= setXX
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
			return 0, nil, ErrSyntax
		}
	}
	return flags, expire, nil
}

// expireAtFromOption turns an EX/PX/EXAT/PXAT argument into absolute unix
// ms, with Redis's checks (getExpireMillisecondsOrReply).
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
	flags, expArg, err := parseSetOptions(c.Args[3:], false)
	if err != nil {
		c.Err(err)
		return
	}
	var expireAt int64
	if expArg != nil {
		if expireAt, err = expireAtFromOption(flags, expArg, c.Tx.Ms, "set"); err != nil {
			c.Err(err)
			return
		}
	}
	key := c.Args[1]
	old, found := c.Tx.Get(key)
	if flags&setGet != 0 && found && old.Type != TypeString {
		c.Err(ErrWrongType)
		return
	}
	if (flags&setNX != 0 && found) || (flags&setXX != 0 && !found) {
		if flags&setGet != 0 && found {
			c.W.BulkString(old.Payload)
			return
		}
		c.W.Null()
		return
	}
	nv := Value{Type: TypeString, Payload: string(c.Args[2]), ExpireAt: expireAt}
	if flags&setKeepTTL != 0 && found {
		nv.ExpireAt = old.ExpireAt
	}
	c.Tx.Put(key, nv)
	if flags&setGet != 0 {
		if found {
			c.W.BulkString(old.Payload)
		} else {
			c.W.Null()
		}
		return
	}
	c.OK()
}
