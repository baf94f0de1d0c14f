package compat

import (
	"math/rand"
	"strconv"
	"strings"
	"testing"
)

// Differential tests for the bitmap commands (SETBIT, GETBIT, BITCOUNT,
// BITPOS, BITOP, BITFIELD, BITFIELD_RO) and LCS: normal use, every option,
// every error, inside MULTI and inside EVAL, and a seeded random sequence
// of BITFIELD/BITCOUNT/BITPOS/SETBIT/BITOP.

func TestDiffBitmaps(t *testing.T) {
	runDiffCases(t, []diffCase{
		{name: "setbit-getbit", steps: steps(
			"SETBIT b 7 1", "GET b", "SETBIT b 7 1", "SETBIT b 7 0", "GET b", "SETBIT b 0 1", "GETBIT b 0",
			"GETBIT b 1", "GETBIT b 100", "GETBIT nokey 0", "SETBIT b 100 1", "STRLEN b", "GETBIT b 100",
			"SETBIT b 100 0", "STRLEN b", "GET b", "SETBIT b 23 1", "OBJECT ENCODING b",
			"SETBIT n 0 0", "GET n", "EXISTS n", "STRLEN n",
		)},
		{name: "setbit-errors", steps: steps(
			"SETBIT b -1 1", "SETBIT b abc 1", "SETBIT b 1.5 1", "SETBIT b 0 2", "SETBIT b 0 -1",
			"SETBIT b 0 abc", "SETBIT b 0 ''", "SETBIT b", "SETBIT b 0", "SETBIT b 0 1 1",
			"SETBIT b 4294967296 1", "SETBIT b 9223372036854775807 1",
			"SETBIT b 9223372036854775808 1", "SETBIT b +1 1", "SETBIT b 01 1", "SETBIT b ' 1' 1",
			"SETBIT b abc 2", "EXISTS b", "SETBIT b 8000000 1", "STRLEN b", "BITCOUNT b", "BITPOS b 1",
			"RPUSH l a", "SETBIT l 0 1", "SETBIT l abc 1", "SETBIT l 0 5", "GETBIT l 0", "GETBIT l abc",
			"GETBIT b -1", "GETBIT b abc", "GETBIT b 4294967296", "GETBIT b 4294967295", "GETBIT b",
			"GETBIT b 0 1",
		)},
		{name: "setbit-on-strings", steps: steps(
			"SET s 12", "OBJECT ENCODING s", "GETBIT s 2", "GETBIT s 3", "SETBIT s 7 0", "GET s",
			"SET s foobar", "SETBIT s 0 1", "GET s", "SET e ''", "GETBIT e 0", "SETBIT e 3 1", "GET e",
			"SET t v EX 100", "SETBIT t 1 0", "TTL t", "SETBIT t 200 1", "TTL t", "STRLEN t",
			"SET i 255", "GETBIT i 6", "GETBIT i 23", "GETBIT i 24",
		)},
		{name: "bitcount", steps: steps(
			"SET s foobar", "BITCOUNT s", "BITCOUNT s 0 0", "BITCOUNT s 1 1", "BITCOUNT s 1 1 BYTE",
			"BITCOUNT s 5 30 BIT", "BITCOUNT s 0 -1", "BITCOUNT s -2 -1", "BITCOUNT s -1 -2",
			"BITCOUNT s -100 100", "BITCOUNT s 100 200", "BITCOUNT s 3 1", "BITCOUNT s 0 -1 bit",
			"BITCOUNT s -9 -3 BIT", "BITCOUNT s 1 6 BIT", "BITCOUNT s 7 7 BIT", "BITCOUNT s 8 15 BIT",
			"BITCOUNT s 9 9 BIT", "BITCOUNT s 47 47 BIT", "BITCOUNT s 48 100 BIT", "BITCOUNT s -1 -1 BIT",
			"BITCOUNT s 2 1 BIT", "BITCOUNT s -9223372036854775808 9223372036854775807",
			"BITCOUNT s -9223372036854775808 9223372036854775807 BIT",
			"BITCOUNT nokey", "BITCOUNT nokey 0 1", "BITCOUNT nokey a b", "BITCOUNT nokey 0", "BITCOUNT nokey 1 2 3 4",
			"SET e ''", "BITCOUNT e", "BITCOUNT e 0 -1", "BITCOUNT e 0 -1 BIT", "SET n 1234", "BITCOUNT n",
		)},
		{name: "bitcount-errors", steps: steps(
			"SET s foobar", "BITCOUNT s 0", "BITCOUNT s a b", "BITCOUNT s 0 b", "BITCOUNT s 0 1 BITS",
			"BITCOUNT s 0 1 BIT x", "BITCOUNT s -1 -2 bogus", "BITCOUNT s 1 2 bogus", "BITCOUNT s a 1 bogus",
			"BITCOUNT s 1.0 2", "BITCOUNT s 9223372036854775808 1", "BITCOUNT", "BITCOUNT s 0 1 BYTE BIT",
			"HSET h f v", "BITCOUNT h", "BITCOUNT h 0 1", "BITCOUNT h a b",
		)},
		{name: "bitpos", steps: steps(
			"SET s \xff\xf0\x00", "BITPOS s 0", "BITPOS s 1", "BITPOS s 0 0", "BITPOS s 0 1", "BITPOS s 1 2",
			"BITPOS s 1 2 -1", "BITPOS s 0 2 -1", "BITPOS s 0 0 0", "BITPOS s 0 0 -1", "BITPOS s 1 0 -1",
			"BITPOS s 0 7 15 BIT", "BITPOS s 0 0 11 BIT", "BITPOS s 1 12 23 BIT", "BITPOS s 0 12 BIT",
			"BITPOS s 1 -1 -1 BIT", "BITPOS s 0 -1 -1 BIT", "BITPOS s 1 5 3", "BITPOS s 0 5 3",
			"BITPOS s 1 100", "BITPOS s 0 100", "BITPOS s 0 -100", "BITPOS s 1 -100 100 BYTE",
			"BITPOS s 0 3 100 bit", "BITPOS s 1 3 100 Bit", "BITPOS s 1 -2 -1 BIT",
			"SET f \xff\xff\xff", "BITPOS f 0", "BITPOS f 0 1", "BITPOS f 0 1 -1", "BITPOS f 0 0 -1 BIT",
			"BITPOS f 0 0 23 BIT", "BITPOS f 0 5", "BITPOS f 0 9 BIT", "BITPOS f 0 -1", "BITPOS f 1 0 -1",
			"BITPOS f 0 3 20 BIT", "BITPOS f 0 3 3 BIT",
			"SET z \x00\x00\x00", "BITPOS z 1", "BITPOS z 0", "BITPOS z 1 0 -1", "BITPOS z 1 3 20 BIT",
			"BITPOS z 0 3 20 BIT", "SET e ''", "BITPOS e 0", "BITPOS e 1", "BITPOS e 0 0", "BITPOS e 0 0 -1",
			"BITPOS nokey 0", "BITPOS nokey 1", "BITPOS nokey 1 0 -1 BIT", "BITPOS nokey 0 a", "BITPOS nokey 2",
			"SET n 12", "BITPOS n 1", "BITPOS n 0 1",
		)},
		{name: "bitpos-errors", steps: steps(
			"SET s abc", "BITPOS s 2", "BITPOS s -1", "BITPOS s a", "BITPOS s 1 a", "BITPOS s 1 0 a",
			"BITPOS s 1 0 1 BITS", "BITPOS s 1 0 a BITS", "BITPOS s 1 a 1 BITS", "BITPOS s 1 0 1 BIT x",
			"BITPOS s", "BITPOS", "BITPOS s 1.0", "BITPOS s 01",
			"SADD set a", "BITPOS set 1", "BITPOS set 2", "BITPOS set 1 a", "BITPOS set a",
		)},
		{name: "bitop", steps: steps(
			"SET a \xff\x0f\x55", "SET b \xf0\xf0", "SET c \x01",
			"BITOP AND d a b", "GET d", "BITOP OR d a b c", "GET d", "BITOP XOR d a b c", "GET d",
			"BITOP NOT d a", "GET d", "BITOP not d c", "GET d", "BITOP and d a nokey", "GET d", "STRLEN d",
			"BITOP or d nokey a", "GET d", "BITOP xor d a", "GET d", "BITOP AND d a", "OBJECT ENCODING d",
			"BITOP AND d a a a a", "GET d",
			"SET t v EX 100", "BITOP OR t a", "TTL t", "GET t",
			"BITOP AND d nokey", "EXISTS d", "BITOP AND d nokey", "BITOP NOT d nokey", "EXISTS d",
			"SET e ''", "BITOP OR d e", "EXISTS d", "SET d x", "BITOP XOR d e nokey", "EXISTS d",
			"RPUSH l x", "BITOP OR l a", "TYPE l", "GET l", "RPUSH l2 x", "BITOP OR l2 nokey", "EXISTS l2",
			"SET n 123", "BITOP NOT d n", "GET d", "BITOP AND d a d", "GET d",
		)},
		{name: "bitop-long", steps: steps(
			args("SET", "a", strings.Repeat("\xa5\x5a\xff\x00", 40)),
			args("SET", "b", strings.Repeat("\x0f", 130)),
			args("SET", "c", strings.Repeat("\x33", 200)),
			"BITOP AND d a b c", "GET d", "BITOP OR d a b c", "GET d", "BITOP XOR d a b c", "GET d",
			"BITOP NOT d a", "GET d", "BITCOUNT d", "BITOP AND d a b", "GET d",
		)},
		{name: "bitop-errors", steps: steps(
			"SET a x", "BITOP FOO d a", "BITOP NOT d a b", "BITOP NOT d", "BITOP AND d", "BITOP",
			"BITOP AND", "HSET h f v", "BITOP AND d a h", "BITOP AND d h nokey", "BITOP NOT d h",
			"BITOP ANDX d a", "BITOP '' d a", "EXISTS d", "SET d v", "BITOP XOR d a h", "GET d",
			"BITOP FOO d h",
		)},
		{name: "bitfield-get", steps: steps(
			"SET s \x12\x34\x56\x78\x9a\xbc\xde\xf0\x0f",
			"BITFIELD s GET u8 0", "BITFIELD s GET i8 0", "BITFIELD s GET u4 4 GET i4 4 GET u1 0 GET i1 3",
			"BITFIELD s GET i64 0", "BITFIELD s GET i64 8", "BITFIELD s GET u63 1", "BITFIELD s GET i64 30",
			"BITFIELD s GET u16 #1", "BITFIELD s GET i16 #3", "BITFIELD s GET u8 #100", "BITFIELD s GET u63 100",
			"BITFIELD s GET i13 3 GET u13 3 GET i7 60", "BITFIELD nokey GET u8 0 GET i64 0", "BITFIELD s",
			"BITFIELD nokey", "EXISTS nokey", "BITFIELD_RO s GET u8 0 GET i32 #1", "BITFIELD_RO nokey GET u8 0",
			"BITFIELD_RO s", "BITFIELD s get U8 0", "BITFIELD s GeT u8 0",
			"SET n 42", "BITFIELD n GET u8 0 GET u16 0", "BITFIELD_RO n GET u8 8",
		)},
		{name: "bitfield-set-incrby", steps: steps(
			"BITFIELD b SET u8 0 255", "GET b", "BITFIELD b SET u8 0 100 GET u8 0", "BITFIELD b INCRBY u8 0 10",
			"BITFIELD b SET i8 8 -1", "GET b", "BITFIELD b INCRBY i8 8 -127", "BITFIELD b GET i8 8",
			"BITFIELD b SET u4 #3 15 INCRBY u4 #3 1", "BITFIELD b GET u4 #3", "BITFIELD b INCRBY i64 64 1",
			"BITFIELD b SET i64 64 9223372036854775807 INCRBY i64 64 1", "BITFIELD b GET i64 64",
			"BITFIELD b SET u63 0 9223372036854775807 GET u63 0 INCRBY u63 0 1", "STRLEN b", "GET b",
			"BITFIELD b INCRBY i16 200 -5 INCRBY u16 200 0", "STRLEN b",
			"BITFIELD c SET i5 3 -16 GET i5 3 GET u5 3 SET u5 3 31 GET i5 3", "GET c",
			"BITFIELD c SET u8 0 0", "BITFIELD c INCRBY u1 0 1 INCRBY u1 0 1 INCRBY u1 0 -1 INCRBY u1 0 -1",
			"SET t v EX 100", "BITFIELD t SET u8 0 1", "TTL t", "GET t", "OBJECT ENCODING t",
			"SET n 7", "BITFIELD n SET u8 0 49", "GET n", "BITFIELD n INCRBY u8 0 0", "GET n",
		)},
		{name: "bitfield-overflow", steps: steps(
			"BITFIELD o SET u2 0 10", "BITFIELD o GET u2 0", "BITFIELD o OVERFLOW SAT SET u2 0 10 GET u2 0",
			"BITFIELD o OVERFLOW FAIL SET u2 0 10 GET u2 0", "BITFIELD o OVERFLOW SAT SET u2 0 -1 GET u2 0",
			"BITFIELD o OVERFLOW WRAP SET u2 0 -1 GET u2 0", "BITFIELD o OVERFLOW FAIL SET u2 0 -1",
			"BITFIELD o OVERFLOW SAT INCRBY u2 0 5 INCRBY u2 0 -9 OVERFLOW WRAP INCRBY u2 0 -1",
			"BITFIELD o OVERFLOW FAIL INCRBY u2 0 4 INCRBY u2 0 3 INCRBY u2 0 1 INCRBY u2 0 -5",
			"BITFIELD o SET i8 8 127 INCRBY i8 8 1 OVERFLOW SAT INCRBY i8 8 100 INCRBY i8 8 -300",
			"BITFIELD o OVERFLOW FAIL INCRBY i8 8 -1 INCRBY i8 8 1 overflow wrap INCRBY i8 8 -129",
			"BITFIELD o OVERFLOW SAT SET i8 8 1000 SET i8 8 -1000 GET i8 8 OVERFLOW FAIL SET i8 8 128 SET i8 8 -128",
			"BITFIELD o OVERFLOW SAT SET i8 8 -9223372036854775808 SET i8 8 9223372036854775807 GET i8 8",
			"BITFIELD o OVERFLOW WRAP SET i8 8 -9223372036854775808 SET i8 8 9223372036854775807 GET i8 8",
			"BITFIELD o OVERFLOW SAT SET i64 16 -9223372036854775808 INCRBY i64 16 -1 INCRBY i64 16 9223372036854775807",
			"BITFIELD o OVERFLOW WRAP INCRBY i64 16 -2 INCRBY i64 16 2 GET i64 16",
			"BITFIELD o OVERFLOW FAIL SET i64 16 5 INCRBY i64 16 9223372036854775807 INCRBY i64 16 -9223372036854775808",
			"BITFIELD o OVERFLOW SAT INCRBY i64 16 9223372036854775807 INCRBY i64 16 -9223372036854775808 INCRBY i64 16 -9223372036854775808",
			"BITFIELD o OVERFLOW SAT SET u63 0 -1 GET u63 0 OVERFLOW WRAP SET u63 0 -1 GET u63 0 INCRBY u63 0 9223372036854775807",
			"BITFIELD o OVERFLOW SAT INCRBY u63 0 -9223372036854775808 OVERFLOW WRAP INCRBY u63 0 -9223372036854775808",
			"BITFIELD o OVERFLOW SAT SET i1 0 1 SET i1 0 -1 SET i1 0 -2 GET i1 0 OVERFLOW WRAP INCRBY i1 0 1",
			"BITFIELD f OVERFLOW FAIL SET u2 0 10", "EXISTS f", "GET f", "STRLEN f",
			"BITFIELD f OVERFLOW FAIL SET u2 100 10", "STRLEN f", "BITFIELD f OVERFLOW FAIL INCRBY i8 #50 200", "STRLEN f",
			"BITFIELD o OVERFLOW SAT", "BITFIELD o OVERFLOW WRAP OVERFLOW FAIL", "GET o",
		)},
		{name: "bitfield-errors", steps: steps(
			"BITFIELD b GET", "BITFIELD b GET u8", "BITFIELD b SET u8 0", "BITFIELD b INCRBY u8 0",
			"BITFIELD b FOO", "BITFIELD b OVERFLOW", "BITFIELD b OVERFLOW FOO", "BITFIELD b OVERFLOW FOO GET x 0",
			"BITFIELD b GET x8 0", "BITFIELD b GET u64 0", "BITFIELD b GET i65 0", "BITFIELD b GET i0 0",
			"BITFIELD b GET u0 0", "BITFIELD b GET u 0", "BITFIELD b GET i 0", "BITFIELD b GET I8 0",
			"BITFIELD b GET '' 0", "BITFIELD b GET i-1 0", "BITFIELD b GET u08 0", "BITFIELD b GET u+8 0",
			"BITFIELD b GET u8 -1", "BITFIELD b GET u8 a", "BITFIELD b GET u8 #", "BITFIELD b GET u8 #-1",
			"BITFIELD b GET u8 ##1", "BITFIELD b GET u8 4294967288", "BITFIELD b GET u8 4294967295",
			"BITFIELD b GET u8 4294967296", "BITFIELD b GET u8 #536870911", "BITFIELD b GET u8 #536870912",
			"BITFIELD b GET i64 #67108863", "BITFIELD b GET i64 #67108864", "BITFIELD b GET u8 #1152921504606846976",
			"BITFIELD b GET u8 #2305843009213693952", "BITFIELD b GET i64 #144115188075855872",
			"BITFIELD b SET u8 0 a", "BITFIELD b SET u8 0 1.5", "BITFIELD b INCRBY u8 0 9223372036854775808",
			"BITFIELD b SET u8 0 1 GET u8", "BITFIELD b SET u8 0 1 FOO", "BITFIELD b GET u8 0 SET x8 0 1",
			"EXISTS b", "BITFIELD b SET u8 4294967296 1", "EXISTS b",
			"HSET h f v", "BITFIELD h GET u8 0", "BITFIELD h SET u8 0 1", "BITFIELD h", "BITFIELD h GET x 0",
			"BITFIELD_RO h GET u8 0", "BITFIELD_RO h SET u8 0 1", "BITFIELD_RO b SET u8 0 1",
			"BITFIELD_RO b INCRBY u8 0 1", "BITFIELD_RO b GET u8 0 SET u8 0 a", "BITFIELD_RO b OVERFLOW SAT",
			"BITFIELD_RO b OVERFLOW SAT GET u8 0", "BITFIELD_RO b GET u8 0 SET u8 0 1", "BITFIELD_RO b FOO",
			"BITFIELD_RO b GET u8", "BITFIELD", "BITFIELD_RO", "EXISTS b",
		)},
		{name: "lcs", steps: steps(
			"MSET a ohmytext b mynewtext", "LCS a b", "LCS a b LEN", "LCS a b IDX", "LCS a b IDX MINMATCHLEN 4",
			"LCS a b IDX WITHMATCHLEN", "LCS a b IDX MINMATCHLEN 4 WITHMATCHLEN", "LCS a b idx withmatchlen minmatchlen 2",
			"LCS a b MINMATCHLEN 2", "LCS a b MINMATCHLEN -5 IDX", "LCS a b WITHMATCHLEN", "LCS a b LEN WITHMATCHLEN",
			"LCS a b LEN LEN", "LCS a b IDX IDX", "LCS a b MINMATCHLEN 1 MINMATCHLEN 100 IDX",
			"LCS b a", "LCS b a IDX WITHMATCHLEN", "LCS a a", "LCS a a IDX", "LCS a nokey", "LCS nokey a IDX",
			"LCS nokey nokey2", "LCS nokey nokey2 LEN", "LCS nokey nokey2 IDX", "SET e ''", "LCS e a IDX",
			"MSET x ABCBDAB y BDCABA", "LCS x y", "LCS x y IDX WITHMATCHLEN", "LCS y x IDX",
			"MSET p aaaa q aa", "LCS p q IDX", "LCS q p IDX WITHMATCHLEN",
			"MSET n1 12345 n2 2345", "LCS n1 n2 IDX", "MSET u1 'hello world' u2 'yellow wold'", "LCS u1 u2",
			"LCS u1 u2 IDX MINMATCHLEN 3 WITHMATCHLEN",
		)},
		{name: "lcs-errors", steps: steps(
			"MSET a ohmytext b mynewtext", "LCS a b LEN IDX", "LCS a b IDX LEN", "LCS a b FOO", "LCS a b MINMATCHLEN",
			"LCS a b MINMATCHLEN x", "LCS a b MINMATCHLEN 1.5", "LCS a b MINMATCHLEN 9223372036854775808",
			"LCS a b IDX MINMATCHLEN", "LCS a b LEN FOO IDX", "LCS a b LEN IDX FOO", "LCS a", "LCS",
			"RPUSH l x", "LCS a l", "LCS l a", "LCS l nokey", "LCS l a FOO", "LCS l a LEN IDX",
			"LCS a b MINMATCHLEN x LEN IDX",
		)},
		{name: "lcs-long", steps: steps(
			args("SET", "a", strings.Repeat("abcde", 300)), args("SET", "b", strings.Repeat("aXcYe", 200)),
			"LCS a b LEN", "LCS a b IDX MINMATCHLEN 2", "STRLEN a",
			args("SET", "big", strings.Repeat("x", 5000)), "LCS big big LEN", "LCS big a LEN",
		)},
		{name: "multi", steps: steps(
			"MULTI", "SETBIT b 3 1", "GETBIT b 3", "BITCOUNT b", "BITPOS b 1", "BITFIELD b INCRBY u8 0 1 GET u8 0",
			"BITFIELD_RO b GET u4 0", "BITOP NOT d b", "SET s1 abc", "LCS s1 d", "LCS s1 s1 IDX", "EXEC",
			"MULTI", "SETBIT b -1 1", "BITFIELD b GET x8 0", "BITFIELD_RO b SET u8 0 1", "RPUSH l x",
			"BITCOUNT l", "LCS l b", "GET b", "EXEC", "MULTI", "SETBIT b", "BITOP AND", "EXEC",
		)},
		// A write that changes nothing does not touch a watched key; one
		// that changes it does.
		{name: "watch", steps: steps(
			"SET b x", "WATCH b", "SETBIT b 0 0", "MULTI", "PING", "EXEC",
			"SET n 12", "WATCH n", "SETBIT n 2 1", "MULTI", "PING", "EXEC",
			"WATCH b", "BITFIELD b SET u8 0 120", "MULTI", "PING", "EXEC",
			"WATCH b", "BITFIELD b SET u8 0 120 GET u8 0", "MULTI", "PING", "EXEC",
			"WATCH b", "BITFIELD b SET u8 0 121", "MULTI", "PING", "EXEC",
			"WATCH b", "SETBIT b 1 1", "MULTI", "PING", "EXEC",
			"WATCH d", "BITOP AND d nokey", "MULTI", "PING", "EXEC",
			"SET d x", "WATCH d", "BITOP AND d nokey", "MULTI", "PING", "EXEC",
			"WATCH d", "BITOP OR d b", "MULTI", "PING", "EXEC",
		)},
		{name: "eval", steps: steps(
			`EVAL "return redis.call('setbit', KEYS[1], 5, 1)" 1 b`,
			`EVAL "return redis.call('getbit', KEYS[1], 5)" 1 b`,
			`EVAL "return redis.call('bitcount', KEYS[1], 0, -1, 'bit')" 1 b`,
			`EVAL "return redis.call('bitpos', KEYS[1], 0, 0, -1)" 1 b`,
			`EVAL "return redis.call('bitop', 'or', KEYS[1], KEYS[2])" 2 d b`,
			`EVAL "return redis.call('bitfield', KEYS[1], 'overflow', 'fail', 'incrby', 'u2', 0, 5, 'get', 'i8', 0)" 1 b`,
			`EVAL "return redis.call('bitfield_ro', KEYS[1], 'get', 'u8', 0)" 1 b`,
			`EVAL "return redis.call('lcs', KEYS[1], KEYS[2], 'idx', 'withmatchlen')" 2 b d`,
			`EVAL "return redis.call('lcs', KEYS[1], KEYS[2])" 2 b d`,
			`EVAL "return redis.pcall('setbit', KEYS[1], -1, 1)" 1 b`,
			`EVAL "return redis.pcall('bitfield', KEYS[1], 'get', 'x', 0)" 1 b`,
			`EVAL "return redis.pcall('bitfield_ro', KEYS[1], 'set', 'u8', 0, 1)" 1 b`,
			`EVAL "return redis.pcall('bitpos', KEYS[1], 3)" 1 b`,
			`EVAL "return redis.pcall('lcs', KEYS[1], KEYS[2], 'len', 'idx')" 2 b d`,
			`EVAL "return redis.call('setbit', KEYS[1])" 1 b`,
			`EVAL_RO "return redis.call('bitfield_ro', KEYS[1], 'get', 'u8', 0)" 1 b`,
			`EVAL_RO "return redis.call('bitfield', KEYS[1], 'get', 'u8', 0)" 1 b`,
			`EVAL_RO "return redis.call('bitfield', KEYS[1], 'set', 'u8', 0, 1)" 1 b`,
			`EVAL_RO "return redis.call('setbit', KEYS[1], 0, 1)" 1 b`,
			`EVAL_RO "return redis.call('lcs', KEYS[1], KEYS[1], 'len')" 1 b`,
		)},
	})
}

// TestDiffBitmapsRandom runs a seeded random sequence of bitmap commands
// on a few keys against both servers. DIFF_SEED picks another seed (or
// "random").
func TestDiffBitmapsRandom(t *testing.T) {
	seeds := diffSeeds(t, 1, 2)
	const length = 1500
	runSeeds(t, newDiffPair(t, ""), seeds, length, func(t *testing.T, p *diffPair, proto int, seed int64) []stepDiff {
		return runSteps(t, p, proto, randomBitmapSteps(seed, length))
	})
}

// randomBitmapSteps draws n bitmap commands on keys k0..k3, with offsets
// and ranges near the strings' ends, where the edge cases are.
func randomBitmapSteps(seed int64, n int) []diffStep {
	r := rand.New(rand.NewSource(seed))
	key := func() string { return "k" + strconv.Itoa(r.Intn(4)) }
	num := func(lo, hi int) string { return strconv.Itoa(lo + r.Intn(hi-lo+1)) }
	pick := func(s ...string) string { return s[r.Intn(len(s))] }
	bigs := []string{"0", "1", "-1", "9223372036854775807", "-9223372036854775808", "127", "-128", "255", "256",
		"32767", "-32768", "4294967295", "4611686018427387904", "-4611686018427387905"}
	value := func() string {
		if r.Intn(3) == 0 {
			return pick(bigs...)
		}
		return num(-300, 300)
	}
	bfType := func() string {
		if r.Intn(2) == 0 {
			return "u" + num(1, 63)
		}
		return "i" + num(1, 64)
	}
	bfOffset := func() string {
		if r.Intn(4) == 0 {
			return "#" + num(0, 12)
		}
		return num(0, 100)
	}
	unit := func() []string {
		switch r.Intn(4) {
		case 0:
			return []string{"BIT"}
		case 1:
			return []string{"BYTE"}
		}
		return nil
	}
	out := make([]diffStep, 0, n)
	for len(out) < n {
		var a []string
		switch r.Intn(12) {
		case 0:
			a = []string{"SETBIT", key(), num(0, 120), pick("0", "1", "1")}
		case 1:
			a = []string{"GETBIT", key(), num(0, 130)}
		case 2:
			a = []string{"BITCOUNT", key()}
			if r.Intn(4) > 0 {
				a = append(a, num(-20, 20), num(-20, 20))
				a = append(a, unit()...)
			}
		case 3:
			a = []string{"BITPOS", key(), pick("0", "1")}
			switch r.Intn(4) {
			case 1:
				a = append(a, num(-20, 20))
			case 2:
				a = append(a, num(-20, 20), num(-20, 20))
			case 3:
				a = append(a, num(-130, 130), num(-130, 130), pick("BIT", "BYTE"))
			}
		case 4, 5, 6:
			a = []string{"BITFIELD", key()}
			for i := r.Intn(5); i >= 0; i-- {
				switch r.Intn(5) {
				case 0:
					a = append(a, "OVERFLOW", pick("WRAP", "SAT", "FAIL"))
				case 1:
					a = append(a, "GET", bfType(), bfOffset())
				case 2:
					a = append(a, "SET", bfType(), bfOffset(), value())
				default:
					a = append(a, "INCRBY", bfType(), bfOffset(), value())
				}
			}
		case 7:
			a = []string{"BITFIELD_RO", key(), "GET", bfType(), bfOffset()}
		case 8:
			a = []string{"BITOP", pick("AND", "OR", "XOR", "NOT"), key(), key()}
			if a[1] != "NOT" {
				for i := r.Intn(3); i > 0; i-- {
					a = append(a, key())
				}
			}
		case 10:
			// A string of up to 80 bytes, mostly 0x00 and 0xff runs, so
			// that BITPOS and BITCOUNT meet whole words and edges.
			b := make([]byte, r.Intn(81))
			fill := byte(r.Intn(256))
			for i := range b {
				if r.Intn(8) == 0 {
					fill = []byte{0, 0xff, byte(r.Intn(256))}[r.Intn(3)]
				}
				b[i] = fill
			}
			a = []string{"SET", key(), string(b)}
		case 11:
			// Ranges over the longer strings, in bytes or in bits.
			a = []string{"BITCOUNT", key()}
			if r.Intn(2) == 0 {
				a = []string{"BITPOS", key(), pick("0", "1")}
			}
			if r.Intn(2) == 0 {
				a = append(a, num(-90, 90), num(-90, 90), pick("BYTE", "byte"))
			} else {
				a = append(a, num(-700, 700), num(-700, 700), pick("BIT", "bit"))
			}
		case 9:
			a = []string{"GET", key()}
			if r.Intn(3) == 0 {
				a = []string{"LCS", key(), key(), pick("IDX", "LEN", "WITHMATCHLEN"), pick("IDX", "WITHMATCHLEN")}
			}
		}
		out = append(out, diffStep{args: a})
	}
	return out
}

// TestDiffBitmapsArity sends every bitmap command and LCS with 0 to 5
// arguments, integer-looking and words, on keys holding a string, so every
// arity and argument-parsing error is compared (as TestDiffArity does for
// the string family).
func TestDiffBitmapsArity(t *testing.T) {
	commands := []string{"SETBIT", "GETBIT", "BITCOUNT", "BITPOS", "BITOP", "BITFIELD", "BITFIELD_RO", "LCS"}
	pools := [][]string{
		{"k", "1", "2", "3", "4"},
		{"k", "x", "y", "z", "w"},
		{"1", "k", "v", "k2", "v2"},
		{"k", "-1", "0", "-2", "bit"},
		{"k", "get", "u8", "0", "overflow"},
		{"k", "k", "idx", "len", "withmatchlen"},
	}
	var cases []diffCase
	for _, name := range commands {
		ss := []diffStep{args("MSET", "k", "foobar", "1", "\x0f\xf0", "v", "12", "x", "")}
		for _, pool := range pools {
			for n := 0; n <= len(pool); n++ {
				ss = append(ss, diffStep{args: append([]string{name}, pool[:n]...)})
			}
		}
		cases = append(cases, diffCase{name: name, steps: ss})
	}
	runDiffCases(t, cases)
}
