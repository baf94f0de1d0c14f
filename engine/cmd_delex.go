package engine

import (
	"strconv"

	"github.com/zeebo/xxh3"
)

// Compare-and-delete commands of servers newer than Redis 7.0, which lock
// clients are starting to use to release a lock in one command instead of
// a Lua script:
//
//   - DELEX key [IFEQ value | IFNE value | IFDEQ digest | IFDNE digest]
//     (Redis 8.4),
//   - DIGEST key (Redis 8.4): the XXH3-64 hash of a string as 16 lowercase
//     hexadecimal digits, what IFDEQ/IFDNE (here and on SET) compare with,
//   - DELIFEQ key value (Valkey 9.0).
//
// redis-server 7.0, our oracle, has none of them, so they follow their
// documentation (redis.io, valkey.io) and what Redis's pull requests say
// of the replies. Decisions taken without a server to compare with are
// marked "Decided" below.

func delexCommands() []*Command {
	return []*Command{
		{Name: "delex", Handler: cmdDelEx},
		{Name: "digest", Handler: cmdDigest},
		{Name: "delifeq", Handler: cmdDelIfEq},
	}
}

// digestLen is the length of a digest in hexadecimal digits.
const digestLen = 16

// digestHex is DIGEST's reply for a string: XXH3-64 with the default
// secret and no seed, as 16 lowercase hexadecimal digits with leading
// zeros (Redis 8.4.0 dropped them; redis/redis#14502 made it always 16).
func digestHex(s string) string {
	h := strconv.FormatUint(xxh3.HashString(s), 16)
	if len(h) < digestLen {
		h = "0000000000000000"[:digestLen-len(h)] + h
	}
	return h
}

// validDigest reports whether arg can be a digest: exactly 16 hexadecimal
// digits, either case. Decided: a 16-character argument with a non-hex
// character is refused too (Redis's check is named validateHexDigest; the
// pull request's description only mentions the length).
func validDigest(arg []byte) bool {
	if len(arg) != digestLen {
		return false
	}
	for _, c := range arg {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// digestMatches reports whether the digest of s is arg, compared without
// regard to case as Redis does (strcasecmp) since redis/redis#14502.
func digestMatches(s string, arg []byte) bool {
	return EqualFold(arg, digestHex(s))
}

// cmdDigest is DIGEST key: the digest as a bulk string, nil for a missing
// key, WRONGTYPE for another type (the same in RESP2 and RESP3, where the
// nil is RESP3's null).
func cmdDigest(c *Call) {
	v, ok := lookupRead(c, c.Args[1])
	switch {
	case !ok:
		c.W.Null()
	case v.Type != TypeString:
		c.Err(ErrWrongType)
	default:
		c.W.BulkString(digestHex(v.Payload))
	}
}

// delexCondition is DELEX's condition.
type delexCondition uint8

const (
	delexIFEQ delexCondition = iota + 1
	delexIFNE
	delexIFDEQ
	delexIFDNE
)

// cmdDelEx is DELEX key [IFEQ v | IFNE v | IFDEQ d | IFDNE d]: 1 when the
// key was deleted, 0 when it was missing or the condition was false.
// Without a condition it deletes a key of any type, as DEL does; with one,
// a key of another type than string is WRONGTYPE and stays.
//
// Decided without a server: any argument count other than 2 (no
// condition) or 4 (one condition and its argument), or an unknown
// condition, is "ERR syntax error", checked before the key is looked at.
// The digest's format is checked after the key is found to be a string,
// where Redis's delexCommand checks it (redis/redis#14502's diff): a
// missing key answers 0 whatever the digest.
func cmdDelEx(c *Call) {
	key := c.Args[1]
	if len(c.Args) == 2 {
		if c.Tx.Delete(key) {
			c.Tx.Notify(NotifyGeneric, "del", key)
			c.W.Int(1)
		} else {
			c.W.Int(0)
		}
		return
	}
	if len(c.Args) != 4 {
		c.Err(ErrSyntax)
		return
	}
	var cond delexCondition
	switch opt := c.Args[2]; {
	case EqualFold(opt, "ifeq"):
		cond = delexIFEQ
	case EqualFold(opt, "ifne"):
		cond = delexIFNE
	case EqualFold(opt, "ifdeq"):
		cond = delexIFDEQ
	case EqualFold(opt, "ifdne"):
		cond = delexIFDNE
	default:
		c.Err(ErrSyntax)
		return
	}
	arg := c.Args[3]
	v, ok := c.Tx.Get(key)
	if !ok {
		c.W.Int(0)
		return
	}
	if v.Type != TypeString {
		c.Err(ErrWrongType)
		return
	}
	if (cond == delexIFDEQ || cond == delexIFDNE) && !validDigest(arg) {
		c.Err(errDigestFormat)
		return
	}
	var del bool
	switch cond {
	case delexIFEQ:
		del = v.Payload == string(arg)
	case delexIFNE:
		del = v.Payload != string(arg)
	case delexIFDEQ:
		del = digestMatches(v.Payload, arg)
	case delexIFDNE:
		del = !digestMatches(v.Payload, arg)
	}
	if !del {
		c.W.Int(0)
		return
	}
	c.Tx.Delete(key)
	c.Tx.Notify(NotifyGeneric, "del", key)
	c.W.Int(1)
}

// cmdDelIfEq is Valkey 9.0's DELIFEQ key value: 1 when the key held
// exactly value and was deleted, 0 when it was missing or held another
// string, WRONGTYPE for another type (valkey.io's examples).
func cmdDelIfEq(c *Call) {
	key := c.Args[1]
	v, ok := c.Tx.Get(key)
	switch {
	case !ok:
		c.W.Int(0)
	case v.Type != TypeString:
		c.Err(ErrWrongType)
	case v.Payload != string(c.Args[2]):
		c.W.Int(0)
	default:
		c.Tx.Delete(key)
		c.Tx.Notify(NotifyGeneric, "del", key)
		c.W.Int(1)
	}
}
