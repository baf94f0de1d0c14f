package engine

import "testing"

// Set algebra: results built like Redis's temporary set, so that integer
// results come as a sorted intset and others in lockredis's bytewise
// order; STORE forms replace the destination (type and TTL) or delete it.
func TestSetAlgebra(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("SADD", "a", "10", "9", "1", "x"), `(integer) 4`},
		{cmd("SADD", "b", "10", "9", "x", "y"), `(integer) 4`},
		{cmd("SADD", "i", "10", "2", "9"), `(integer) 3`},
		// The intersection of a and b holds "x": a hashtable, bytewise.
		{cmd("SINTER", "a", "b"), `["10" "9" "x"]`},
		// Only integers: an intset, in numeric order.
		{cmd("SINTER", "a", "i"), `["9" "10"]`},
		{cmd("SINTER", "a", "nokey"), `[]`},
		{cmd("SINTERCARD", "2", "a", "b"), `(integer) 3`},
		{cmd("SINTERCARD", "2", "a", "b", "LIMIT", "2"), `(integer) 2`},
		{cmd("SINTERCARD", "2", "a", "b", "LIMIT", "0"), `(integer) 3`},
		{cmd("SINTERCARD", "0", "a"), `(error) ERR numkeys should be greater than 0`},
		{cmd("SINTERCARD", "3", "a", "b"), `(error) ERR Number of keys can't be greater than number of args`},
		{cmd("SINTERCARD", "1", "a", "LIMIT", "-1"), `(error) ERR LIMIT can't be negative`},
		{cmd("SUNION", "i", "nokey"), `["2" "9" "10"]`},
		{cmd("SUNION", "i", "b"), `["10" "2" "9" "x" "y"]`},
		{cmd("SDIFF", "i", "a"), `["2"]`},
		{cmd("SDIFF", "a", "b", "a"), `[]`},
		{cmd("SDIFF", "nokey", "a"), `[]`},
		{cmd("SET", "s", "v"), `OK`},
		{cmd("SINTER", "nokey", "s"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("SUNIONSTORE", "s", "i"), `(integer) 3`},
		{cmd("OBJECT", "ENCODING", "s"), `"intset"`},
		{cmd("EXPIRE", "s", "100"), `(integer) 1`},
		{cmd("SINTERSTORE", "s", "a", "b"), `(integer) 3`},
		{cmd("OBJECT", "ENCODING", "s"), `"hashtable"`},
		{cmd("TTL", "s"), `(integer) -1`},
		{cmd("SDIFFSTORE", "s", "a", "a"), `(integer) 0`},
		{cmd("EXISTS", "s"), `(integer) 0`},
		// The destination may be one of the sources.
		{cmd("SDIFFSTORE", "a", "a", "b"), `(integer) 1`},
		{cmd("SMEMBERS", "a"), `["1"]`},
	})
}

// A result of more than 512 integers is a hashtable, as in Redis.
func TestSetAlgebraIntsetLimit(t *testing.T) {
	te := newTestEngine(t)
	for i := 0; i < 600; i++ {
		te.do("SADD", "a", itoa(i))
	}
	te.run([]step{
		{cmd("SUNIONSTORE", "d", "a"), `(integer) 600`},
		{cmd("OBJECT", "ENCODING", "d"), `"hashtable"`},
		{cmd("SDIFFSTORE", "d", "a", "nokey"), `(integer) 600`},
		{cmd("OBJECT", "ENCODING", "d"), `"hashtable"`},
		{cmd("SREM", "d", "0"), `(integer) 1`},
		{cmd("SINTERCARD", "2", "a", "d"), `(integer) 599`},
	})
	for i := 0; i < 100; i++ {
		te.do("SREM", "a", itoa(i))
	}
	te.run([]step{
		{cmd("SCARD", "a"), `(integer) 500`},
		{cmd("OBJECT", "ENCODING", "a"), `"hashtable"`},
		{cmd("SINTERSTORE", "e", "a", "d"), `(integer) 500`},
		{cmd("OBJECT", "ENCODING", "e"), `"intset"`},
	})
}
