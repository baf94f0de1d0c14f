package engine

import (
	"errors"
	"math"
)

// OBJECT: what Redis 7.0 would say about a key's internal representation,
// derived from the value (strings) or the encoding bit each collection
// keeps (see encoding.go).

var errFreqNoLFU = errors.New("ERR An LFU maxmemory policy is not selected, access frequency not tracked. " +
	"Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.")

func objectCommands() []*Command {
	return []*Command{{
		Name: "object",
		Subcommands: []*Command{
			{Name: "help", Handler: cmdObjectHelp},
			{Name: "encoding", Handler: cmdObjectEncoding},
			{Name: "refcount", Handler: cmdObjectRefcount},
			{Name: "idletime", Handler: cmdObjectIdletime},
			{Name: "freq", Handler: cmdObjectFreq},
		},
	}}
}

var objectHelp = []string{
	"OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"ENCODING <key>",
	"    Return the kind of internal representation used in order to store the value",
	"    associated with a <key>.",
	"FREQ <key>",
	"    Return the access frequency index of the <key>. The returned integer is",
	"    proportional to the logarithm of the recent access frequency of the key.",
	"IDLETIME <key>",
	"    Return the idle time of the <key>, that is the approximated number of",
	"    seconds elapsed since the last access to the key.",
	"REFCOUNT <key>",
	"    Return the number of references of the value associated with the specified",
	"    <key>.",
	"HELP",
	"    Prints this help.",
}

func cmdObjectHelp(c *Call) { WriteHelp(c.W, objectHelp) }

// objectLookup finds the key OBJECT inspects, replying nil when it is
// missing. Like Redis's lookup for OBJECT it counts a keyspace hit or miss.
func objectLookup(c *Call) (Value, bool) {
	v, ok := c.Tx.Get(c.Args[2])
	if !ok {
		c.E.Stats.KeyspaceMisses.Add(1)
		c.W.Null()
		return v, false
	}
	c.E.Stats.KeyspaceHits.Add(1)
	return v, true
}

// Redis's string encodings: small integers are stored as numbers, strings
// up to 44 bytes next to their header.
const embstrSizeLimit = 44

// stringIsInt reports whether Redis would hold s as an integer (the "int"
// encoding), and the integer.
func stringIsInt(s string) (int64, bool) {
	if len(s) > 20 {
		return 0, false
	}
	return ParseInt(StringBytes(s))
}

// ObjectEncoding is what OBJECT ENCODING replies for v. Strings are judged
// by their content, as Redis encodes what SET, GETSET or INCR store, unless
// APPEND or SETRANGE built them ("raw") or INCRBYFLOAT did (never "int").
func ObjectEncoding(v Value) string {
	switch v.Type {
	case TypeString:
		if v.Enc == EncRaw {
			return "raw"
		}
		if _, ok := stringIsInt(v.Payload); ok && v.Enc == EncNatural {
			return "int"
		}
		if len(v.Payload) <= embstrSizeLimit {
			return "embstr"
		}
		return "raw"
	case TypeList:
		return "quicklist" // Redis 7.0 has no listpack lists yet
	case TypeHash:
		if isLarge(v.Payload) {
			return "hashtable"
		}
		if hashFieldExpiry(v.Payload) != 0 {
			// Redis 7.4's listpack with field expiries. Redis keeps it
			// once the last expiry is gone; lockredis goes back to
			// "listpack" (the compact encoding without expiry times).
			return "listpackex"
		}
		return "listpack"
	case TypeSet:
		if isLarge(v.Payload) {
			return "hashtable"
		}
		return "intset"
	case TypeZSet:
		if isLarge(v.Payload) {
			return "skiplist"
		}
		return "listpack"
	case TypeStream:
		return "stream"
	}
	return "unknown"
}

// isLarge reads the encoding flag of a collection payload.
func isLarge(payload string) bool {
	return len(payload) > 0 && payload[0]&encLarge != 0
}

func cmdObjectEncoding(c *Call) {
	if v, ok := objectLookup(c); ok {
		c.W.BulkString(ObjectEncoding(v))
	}
}

// sharedRefcount is Redis's OBJ_SHARED_REFCOUNT, reported for the shared
// integers 0..9999.
const sharedRefcount = math.MaxInt32

func cmdObjectRefcount(c *Call) {
	v, ok := objectLookup(c)
	if !ok {
		return
	}
	if v.Type == TypeString {
		if n, isInt := stringIsInt(v.Payload); isInt && n >= 0 && n < 10000 {
			c.W.Int(sharedRefcount)
			return
		}
	}
	c.W.Int(1)
}

// cmdObjectIdletime answers 0: access times are not tracked.
func cmdObjectIdletime(c *Call) {
	if _, ok := objectLookup(c); ok {
		c.W.Int(0)
	}
}

// cmdObjectFreq answers as Redis does under the default, non-LFU,
// maxmemory policy.
func cmdObjectFreq(c *Call) {
	if _, ok := objectLookup(c); ok {
		c.Err(errFreqNoLFU)
	}
}
