package engine

import (
	"strings"
	"testing"
)

// The expected replies of the table-driven tests in this file were produced
// by redis-server 7.0.15 (generated from the same steps run against it, and
// checked against the engine before being written down). Steps whose reply
// is random or in hash order are tested separately below.

// TestObjectEncodingRefcountIdletimeFreqHelp: encoding refcount idletime freq help.
func TestObjectEncodingRefcountIdletimeFreqHelp(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("SET", "i", "123"), `OK`},
		{cmd("SET", "n", "-5"), `OK`},
		{cmd("SET", "big", "12345678901234567890"), `OK`},
		{cmd("SET", "e", strings.Repeat("x", 44)), `OK`},
		{cmd("SET", "r", strings.Repeat("x", 45)), `OK`},
		{cmd("SET", "p", "+1"), `OK`},
		{cmd("SET", "z", "0"), `OK`},
		{cmd("SET", "zz", "00"), `OK`},
		{cmd("SET", "s9999", "9999"), `OK`},
		{cmd("SET", "s10000", "10000"), `OK`},
		{cmd("OBJECT", "ENCODING", "i"), `"int"`},
		{cmd("OBJECT", "ENCODING", "n"), `"int"`},
		{cmd("OBJECT", "ENCODING", "big"), `"embstr"`},
		{cmd("OBJECT", "ENCODING", "e"), `"embstr"`},
		{cmd("OBJECT", "ENCODING", "r"), `"raw"`},
		{cmd("OBJECT", "ENCODING", "p"), `"embstr"`},
		{cmd("OBJECT", "ENCODING", "z"), `"int"`},
		{cmd("OBJECT", "ENCODING", "zz"), `"embstr"`},
		{cmd("OBJECT", "REFCOUNT", "i"), `(integer) 2147483647`},
		{cmd("OBJECT", "REFCOUNT", "n"), `(integer) 1`},
		{cmd("OBJECT", "REFCOUNT", "s9999"), `(integer) 2147483647`},
		{cmd("OBJECT", "REFCOUNT", "s10000"), `(integer) 1`},
		{cmd("OBJECT", "REFCOUNT", "e"), `(integer) 1`},
		{cmd("OBJECT", "REFCOUNT", "nokey"), `(nil)`},
		{cmd("OBJECT", "ENCODING", "nokey"), `(nil)`},
	})
	te.do("OBJECT", "IDLETIME", "i")
	te.run([]step{
		{cmd("OBJECT", "IDLETIME", "nokey"), `(nil)`},
		{cmd("OBJECT", "FREQ", "i"), `(error) ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.`},
		{cmd("OBJECT", "FREQ", "nokey"), `(nil)`},
		{cmd("OBJECT", "HELP"), `[OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are: ENCODING <key>     Return the kind of internal representation used in order to store the value     associated with a <key>. FREQ <key>     Return the access frequency index of the <key>. The returned integer is     proportional to the logarithm of the recent access frequency of the key. IDLETIME <key>     Return the idle time of the <key>, that is the approximated number of     seconds elapsed since the last access to the key. REFCOUNT <key>     Return the number of references of the value associated with the specified     <key>. HELP     Prints this help.]`},
		{cmd("object", "help"), `[OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are: ENCODING <key>     Return the kind of internal representation used in order to store the value     associated with a <key>. FREQ <key>     Return the access frequency index of the <key>. The returned integer is     proportional to the logarithm of the recent access frequency of the key. IDLETIME <key>     Return the idle time of the <key>, that is the approximated number of     seconds elapsed since the last access to the key. REFCOUNT <key>     Return the number of references of the value associated with the specified     <key>. HELP     Prints this help.]`},
		{cmd("OBJECT", "HELP", "x"), `(error) ERR wrong number of arguments for 'object|help' command`},
		{cmd("OBJECT"), `(error) ERR wrong number of arguments for 'object' command`},
		{cmd("OBJECT", "FOO"), `(error) ERR unknown subcommand 'FOO'. Try OBJECT HELP.`},
		{cmd("OBJECT", "FOO", "bar"), `(error) ERR unknown subcommand 'FOO'. Try OBJECT HELP.`},
		{cmd("OBJECT", "ENCODING"), `(error) ERR wrong number of arguments for 'object|encoding' command`},
		{cmd("OBJECT", "ENCODING", "a", "b"), `(error) ERR wrong number of arguments for 'object|encoding' command`},
		{cmd("RPUSH", "l", "a"), `(integer) 1`},
		{cmd("HSET", "h", "a", "b"), `(integer) 1`},
		{cmd("SADD", "s", "a"), `(integer) 1`},
		{cmd("SADD", "si", "1"), `(integer) 1`},
		{cmd("ZADD", "zs", "1", "a"), `(integer) 1`},
		{cmd("OBJECT", "ENCODING", "l"), `"quicklist"`},
		{cmd("OBJECT", "ENCODING", "h"), `"listpack"`},
		{cmd("OBJECT", "ENCODING", "s"), `"hashtable"`},
		{cmd("OBJECT", "ENCODING", "si"), `"intset"`},
		{cmd("OBJECT", "ENCODING", "zs"), `"listpack"`},
		{cmd("OBJECT", "REFCOUNT", "l"), `(integer) 1`},
		{cmd("OBJECT", "REFCOUNT", "h"), `(integer) 1`},
	})
}

// TestObjectGenericCommandsOnCollections: generic commands on collections.
func TestObjectGenericCommandsOnCollections(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("HSET", "h", "a", "1", "b", "2"), `(integer) 2`},
		{cmd("PEXPIRE", "h", "100000"), `(integer) 1`},
		{cmd("HSET", "h", "c", "3"), `(integer) 1`},
		{cmd("HDEL", "h", "a"), `(integer) 1`},
		{cmd("HINCRBY", "h", "b", "1"), `(integer) 3`},
	})
	te.do("PTTL", "h")
	te.run([]step{
		{cmd("TYPE", "h"), `hash`},
		{cmd("RPUSH", "l", "a", "b"), `(integer) 2`},
		{cmd("EXPIRE", "l", "1000"), `(integer) 1`},
		{cmd("LPUSH", "l", "x"), `(integer) 3`},
		{cmd("LPOP", "l"), `"x"`},
	})
	te.do("TTL", "l")
	te.run([]step{
		{cmd("TYPE", "l"), `list`},
		{cmd("SADD", "s", "a", "b"), `(integer) 2`},
		{cmd("EXPIRE", "s", "1000"), `(integer) 1`},
		{cmd("SADD", "s", "c"), `(integer) 1`},
		{cmd("SREM", "s", "a"), `(integer) 1`},
	})
	te.do("TTL", "s")
	te.run([]step{
		{cmd("TYPE", "s"), `set`},
		{cmd("ZADD", "z", "1", "a", "2", "b"), `(integer) 2`},
		{cmd("EXPIRE", "z", "1000"), `(integer) 1`},
		{cmd("ZADD", "z", "3", "c"), `(integer) 1`},
		{cmd("ZREM", "z", "a"), `(integer) 1`},
		{cmd("ZINCRBY", "z", "1", "b"), `3`},
	})
	te.do("TTL", "z")
	te.run([]step{
		{cmd("TYPE", "z"), `zset`},
		{cmd("RENAME", "h", "h2"), `OK`},
		{cmd("HGETALL", "h2"), `["b" "3" "c" "3"]`},
	})
	te.do("TTL", "h2")
	te.run([]step{
		{cmd("COPY", "l", "l2"), `(integer) 1`},
		{cmd("LRANGE", "l2", "0", "-1"), `["a" "b"]`},
		{cmd("DEL", "s", "z", "l", "l2", "h2"), `(integer) 5`},
		{cmd("KEYS", "*"), `[]`},
		{cmd("HSET", "h", "a", "1"), `(integer) 1`},
		{cmd("EXPIRE", "h", "1000"), `(integer) 1`},
		{cmd("HDEL", "h", "a"), `(integer) 1`},
		{cmd("TTL", "h"), `(integer) -2`},
		{cmd("HSET", "h", "a", "1"), `(integer) 1`},
		{cmd("TTL", "h"), `(integer) -1`},
	})
}
