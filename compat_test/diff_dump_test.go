package compat

import (
	"encoding/binary"
	"hash/crc64"
	"math/rand"
	"strings"
	"testing"
)

// rdbDumpOf wraps an RDB object in DUMP's trailer: the RDB version and
// Redis's CRC64 (Jones, reflected, no inversions).
func rdbDumpOf(body string, version uint16) string {
	b := binary.LittleEndian.AppendUint16([]byte(body), version)
	crc := ^crc64.Update(^uint64(0), crc64.MakeTable(0x95ac9329ac4bc9b5), b)
	return string(binary.LittleEndian.AppendUint64(b, crc))
}

// TestDiffRestoreOld: payloads in the encodings older Redis versions
// dumped (ziplists, plain lists, string scores), which 7.0 restores. A
// restored list is one node again here (Redis keeps the payload's nodes),
// so a list restored from several nodes is not dumped.
func TestDiffRestoreOld(t *testing.T) {
	two5 := "\x0f\x0f\x00\x00\x00\x0c\x00\x00\x00\x02\x00\x00\xf3\x02\xf6\xff" // length-prefixed ziplist "2" "5"
	pairs := "\x16\x16\x00\x00\x00\x12\x00\x00\x00\x04\x00\x00\x01a\x03\xf2\x02\x01b\x03\xfe\xfe\xff"
	scored := "\x16\x16\x00\x00\x00\x13\x00\x00\x00\x04\x00\x00\x01b\x03\xfe\xfe\x03\x01a\x03\xf2\xff" // b -2 a 1
	runDiffCases(t, []diffCase{{name: "old", steps: steps(
		args("RESTORE", "l", "0", rdbDumpOf("\x0a"+two5, 9)), "LRANGE l 0 -1", "OBJECT ENCODING l", "DUMP l",
		args("RESTORE", "q", "0", rdbDumpOf("\x0e\x02"+two5+two5, 9)), "LRANGE q 0 -1",
		args("RESTORE", "h", "0", rdbDumpOf("\x0d"+pairs, 9)), "HGETALL h", "OBJECT ENCODING h", "DUMP h",
		args("RESTORE", "z", "0", rdbDumpOf("\x0c"+scored, 9)), "ZRANGE z 0 -1 WITHSCORES", "OBJECT ENCODING z", "DUMP z",
		args("RESTORE", "p", "0", rdbDumpOf("\x01\x02\x01a\xc0\x05", 6)), "LRANGE p 0 -1",
		args("RESTORE", "o", "0", rdbDumpOf("\x03\x02\x01a\x031.5\x01b\xfe", 6)), "ZRANGE o 0 -1 WITHSCORES",
		args("RESTORE", "s", "0", rdbDumpOf("\x02\x02\x01a\xc0\x05", 6)), "SORT s ALPHA", "OBJECT ENCODING s",
		args("RESTORE", "i", "0", rdbDumpOf("\x02\x02\xc0\x07\xc0\x05", 6)), "SMEMBERS i", "OBJECT ENCODING i",
		args("RESTORE", "x", "0", rdbDumpOf("\x0a"+strings.Replace(two5, "\x02\xf6", "\x03\xf6", 1), 9)),
		args("RESTORE", "x", "0", rdbDumpOf("\x0a"+strings.Replace(two5, "\x02\x00\x00", "\x03\x00\x00", 1), 9)),
		args("RESTORE", "x", "0", rdbDumpOf("\x00\x01v", 11)), args("RESTORE", "x", "0", rdbDumpOf("\x00\x01v", 10)), "GET x",
		args("RESTORE", "y", "0", rdbDumpOf("\x12\x00", 10)), args("RESTORE", "y", "0", rdbDumpOf("\x04\x00", 10)),
		args("RESTORE", "y", "0", rdbDumpOf("\x02\x02\x01a\x01a", 10)), args("RESTORE", "y", "0", rdbDumpOf("\x05\x01\x01a\x00\x00\x00\x00\x00\x00\xf8\x7f", 10)),
		args("RESTORE", "y", "0", rdbDumpOf("\x09\x01a", 10)), args("RESTORE", "y", "0", rdbDumpOf("\x0f\x00", 10)),
		"EXISTS y",
		// LZF lengths written as encoding bytes: rdbLoadLen takes their low 6 bits.
		args("RESTORE", "e", "0", rdbDumpOf("\x00\xc3\xc6\xd5\x01aa\xe0\n\x00", 10)), "GET e",
	)}})
}

// TestDiffDumpLZF: DUMP compresses strings of every length and
// compressibility to redis-server's bytes (a seeded random sample).
func TestDiffDumpLZF(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	var st []diffStep
	for i := 0; i < 60; i++ {
		n := 21 + rng.Intn(3000)
		if i < 20 {
			n = 21 + i
		}
		alpha := 1 + rng.Intn(60)
		b := make([]byte, n)
		for j := range b {
			if j > 10 && rng.Intn(3) == 0 {
				b[j] = b[j-1-rng.Intn(10)]
			} else {
				b[j] = byte('!' + rng.Intn(alpha))
			}
		}
		st = append(st, args("SET", "k", string(b)), args("DUMP", "k"), args("RPUSH", "l", string(b)))
	}
	st = append(st, args("DUMP", "l"))
	runDiffCases(t, []diffCase{{name: "random", steps: st}})
}

// Payloads redis-server 7.0.15 dumped: a hashtable set, hash and sorted
// set (in its dict's order, which lockredis cannot reproduce), a list and
// an LZF-compressed string.
const (
	shDump = "\x02\x05\x01\x79\xc0\x0a\x01\x7a\x01\x78\xc3\x09\x1e\x01\x61\x61\xe0\x11\x00\x01\x61\x61\x0a\x00\x2e\xe3\xed\xb9\xf7\xed\xb8\x1b"
	hhDump = "\x04\x03\x02\x66\x33\xc0\x03\x02\x66\x31\x02\x76\x31\x02\x66\x32\xc3\x10\x40\x50\x08\x61\x62\x63\x64\x65\x66\x67\x68\x61\xe0\x3c\x07\x01\x67\x68\x0a\x00\xd2\xfc\x06\x1c\xea\x81\x83\xe3"
	zsDump = "\x05\x04\x01\x64\x00\x00\x00\x00\x00\x00\x0c\x40\xc3\x10\x40\x50\x08\x61\x62\x63\x64\x65\x66\x67\x68\x61\xe0\x3c\x07\x01\x67\x68\x00\x00\x00\x00\x00\x00\x00\x40\x01\x61\x00\x00\x00\x00\x00\x00\xf0\x3f\x01\x63\x00\x00\x00\x00\x00\x00\x00\x80\x0a\x00\x88\xca\xc9\x2c\x91\x11\x7c\x44"
	llDump = "\x12\x01\x02\x12\x12\x00\x00\x00\x04\x00\x81\x61\x02\x81\x62\x02\x01\x01\xdf\xfb\x02\xff\x0a\x00\xea\x1d\x4a\x4b\x23\xde\x32\xd3"
	stDump = "\x00\xc3\x10\x40\xf0\x08\x61\x62\x63\x64\x65\x66\x67\x68\x61\xe0\xdc\x07\x01\x67\x68\x0a\x00\x74\xef\x4a\x07\xb2\x1e\x86\x70"
)

// Differential tests for DUMP, RESTORE, COPY and OBJECT: DUMP must give
// redis-server's bytes wherever Redis's own output is deterministic.
func TestDiffDump(t *testing.T) {
	long := strings.Repeat("abcdefgh", 10)
	runDiffCases(t, []diffCase{
		{name: "strings", steps: steps(
			"SET a 1", "DUMP a", "SET a -1", "DUMP a", "SET a 127", "DUMP a", "SET a 128", "DUMP a",
			"SET a -129", "DUMP a", "SET a 32767", "DUMP a", "SET a 32768", "DUMP a", "SET a -2147483648", "DUMP a",
			"SET a 2147483648", "DUMP a", "SET a 12345678901", "DUMP a", "SET a 01", "DUMP a", "SET a -0", "DUMP a",
			"SET a +1", "DUMP a", "SET a ''", "DUMP a", "SET a hello", "DUMP a", "SET a "+long, "DUMP a",
			"SET a aaaaaaaaaaaaaaaaaaaaa", "DUMP a", "SET a abcdefghijklmnopqrstu", "DUMP a",
			"SET a 9223372036854775807", "DUMP a", "SET a -9223372036854775808", "DUMP a",
			"APPEND b 12", "DUMP b", "INCRBYFLOAT c 1.5", "DUMP c", "DUMP nokey",
			"SET a "+strings.Repeat("x", 70000), "DUMP a", "SET a "+strings.Repeat("0123456789", 2000), "DUMP a",
		)},
		{name: "lists", steps: steps(
			"RPUSH l a 1 -1 200 -5000 40000 -9000000 3000000000 9223372036854775807 -9223372036854775808 01 -0 +3 '' "+long,
			"DUMP l", "LPUSH m x", "DUMP m", "RPUSH n "+strings.Repeat("a ", 300), "DUMP n",
			h4Join(h4Cmd("RPUSH", "big"), h4Fields(2000, "element-", "")...), "DUMP big", "OBJECT ENCODING big",
			"RPUSH e "+strings.Repeat("y", 5000), "DUMP e", "RPUSH e "+strings.Repeat("z", 4000), "DUMP e",
			"RPUSH f "+strings.Repeat("w", 9000), "DUMP f", "RPUSH f a", "DUMP f",
		)},
		{name: "sets", steps: steps(
			"SADD s 1 2 3", "DUMP s", "SADD s -40000", "DUMP s", "SADD t 5000000000 -1", "DUMP t",
			"SADD u a", "DUMP u", "OBJECT ENCODING u", "SADD v 1", "DUMP v",
		)},
		{name: "zsets", steps: steps(
			"ZADD z 1 a 2.5 b -3 c 1e100 d inf e -inf f 0 g -0 h 4611686018427387904 i 3 100", "DUMP z",
			"OBJECT ENCODING z", "ZADD y 1 "+long, "DUMP y", "OBJECT ENCODING y", "ZADD y 2 b -1 c inf d", "DUMP y",
			"ZADD x 1 a", "DUMP x", "SORT x", "DUMP x", "OBJECT ENCODING x",
			h4Join(h4Cmd("ZADD", "w"), h4Members(129, 0.5)...), "DUMP w",
		)},
		{name: "hashes", steps: steps(
			"HSET h a 1 b 2 c hello d -70000", "DUMP h", "HSET h a x", "DUMP h", "HDEL h b", "HSET h b 9", "DUMP h",
			"HSET g f "+long, "DUMP g", "OBJECT ENCODING g", "HSET k "+long+" v", "OBJECT ENCODING k", "DUMP k",
			"HSET j f 1", "DUMP j",
		)},
		{name: "round-trips", steps: steps(
			"SET a "+long, "RPUSH l 1 2 b", "SADD s 3 4 x", "SADD i 7 -8", "ZADD z 1 a 2 b", "HSET h f v",
			"ZADD zl 1 "+long, "HSET hl f "+long, h4Join(h4Cmd("HSET", "hb"), h4Fields(600, "f", "v")...),
			h4Join(h4Cmd("SADD", "sb"), h4Fields(300, "", "")...), h4Join(h4Cmd("ZADD", "zb"), h4Members(200, 1)...),
			"EVAL \"for _, k in ipairs(KEYS) do redis.call('RESTORE', k..'2', 0, redis.call('DUMP', k)) end return 1\" 12 a l s i z h zl hl hb sb zb nokey",
			"GET a2", "LRANGE l2 0 -1", "SORT s2 ALPHA", "SMEMBERS i2", "ZRANGE z2 0 -1 WITHSCORES", "HGETALL h2",
			"OBJECT ENCODING s2", "OBJECT ENCODING i2", "OBJECT ENCODING zl2", "OBJECT ENCODING hl2", "OBJECT ENCODING hb2",
			"OBJECT ENCODING sb2", "OBJECT ENCODING zb2", "HLEN hb2", "SCARD sb2", "ZCARD zb2", "ZRANGE zb2 0 3 WITHSCORES",
			"DUMP z2", "DUMP zl2", "DUMP i2", "DUMP l2", "EXISTS nokey2",
		)},
		{name: "copy", steps: steps(
			"SET s 1", "RPUSH l a b", "SADD i 1 2", "SADD t a b", "ZADD z 1 a", "ZADD zz 1 "+long, "HSET h f v",
			"HSET hh f "+long, "PEXPIRE l 100000", "COPY s s2", "COPY l l2", "COPY i i2", "COPY t t2", "COPY z z2",
			"COPY zz zz2", "COPY h h2", "COPY hh hh2", "GET s2", "LRANGE l2 0 -1", "SMEMBERS i2", unordered("SMEMBERS t2"),
			"ZRANGE z2 0 -1 WITHSCORES", "HGETALL hh2", within(1, "TTL l2"), "TTL s2", "OBJECT ENCODING s2",
			"OBJECT ENCODING i2", "OBJECT ENCODING t2", "OBJECT ENCODING zz2", "OBJECT ENCODING hh2", "DUMP z2",
			"DUMP h2", "DUMP l2", "COPY s l2", "COPY s l2 REPLACE", "TYPE l2", "TTL l2", "COPY h s DB 1",
			"SELECT 1", "HGETALL s", "COPY s s DB 0", "COPY s s DB 0 REPLACE", "SELECT 0", "TYPE s",
			"COPY nokey x", "COPY s s", "COPY s x DB", "COPY s x DB 16", "COPY s x DB -1", "COPY s x DB a",
			"COPY s x REPLACE DB 1 DB 2", "COPY s", "COPY", "COPY s x FOO",
			"MULTI", "COPY l l3", "COPY l l3", "LRANGE l3 0 -1", "EXEC",
			"EVAL \"return redis.call('COPY', KEYS[1], KEYS[2], 'REPLACE')\" 2 z l3", "ZRANGE l3 0 -1",
		)},
		{name: "object", steps: steps(
			"SET a 123", "OBJECT ENCODING a", "SET a 12345678901234567890", "OBJECT ENCODING a",
			"SET a "+strings.Repeat("e", 44), "OBJECT ENCODING a", "SET a "+strings.Repeat("e", 45), "OBJECT ENCODING a",
			"RPUSH l a", "OBJECT ENCODING l", "SADD s 1", "OBJECT ENCODING s", h4Join(h4Cmd("SADD", "s"), h4Fields(511, "", "")...),
			"OBJECT ENCODING s", "SADD s x", "OBJECT ENCODING s", "SREM s x", "OBJECT ENCODING s",
			h4Join(h4Cmd("HSET", "h"), h4Fields(512, "f", "v")...), "OBJECT ENCODING h", "HSET h x y", "OBJECT ENCODING h",
			"HSET g f "+strings.Repeat("v", 64), "OBJECT ENCODING g", "HSET g f "+strings.Repeat("v", 65), "OBJECT ENCODING g",
			h4Join(h4Cmd("ZADD", "z"), h4Members(128, 1)...), "OBJECT ENCODING z", "ZADD z 1 x", "OBJECT ENCODING z",
			"ZADD y 1 "+strings.Repeat("m", 64), "OBJECT ENCODING y", "ZADD y 1 "+strings.Repeat("m", 65), "OBJECT ENCODING y",
			"OBJECT FREQ a", "OBJECT FREQ nokey", "OBJECT IDLETIME a", "OBJECT IDLETIME nokey", "OBJECT ENCODING nokey",
			"OBJECT REFCOUNT a", "OBJECT FREQ", "OBJECT IDLETIME a b", "OBJECT HELP", "OBJECT FOO",
			"EVAL \"return redis.pcall('OBJECT', 'FREQ', 'a')\" 0", "MULTI", "OBJECT FREQ a", "EXEC",
		)},
		{name: "restore-from-redis", steps: steps(
			args("RESTORE", "sh", "0", shDump), unordered("SMEMBERS sh"), "OBJECT ENCODING sh",
			args("RESTORE", "hh", "0", hhDump), unordered("HGETALL hh"), "OBJECT ENCODING hh",
			args("RESTORE", "zs", "0", zsDump), "ZRANGE zs 0 -1 WITHSCORES", "ZSCORE zs c", "OBJECT ENCODING zs",
			args("RESTORE", "ll", "0", llDump), "LRANGE ll 0 -1", "DUMP ll",
			args("RESTORE", "st", "0", stDump), "GET st", "DUMP st", "OBJECT ENCODING st",
			args("RESTORE", "st", "0", stDump), args("RESTORE", "st", "0", shDump, "REPLACE"), "TYPE st",
		)},
		{name: "restore-options", steps: steps(
			"SET a v", "DUMP a", args("RESTORE", "b", "0", stDump, "REPLACE", "ABSTTL"), "TTL b",
			args("RESTORE", "c", "100000", stDump), "TTL c", args("RESTORE", "d", "99999999999999", stDump, "ABSTTL"),
			"TTL d", args("RESTORE", "e", "1", stDump, "ABSTTL"), "EXISTS e", args("RESTORE", "a", "1", stDump, "ABSTTL"),
			"GET a", args("RESTORE", "a", "1", stDump, "ABSTTL", "REPLACE"), "EXISTS a",
			args("RESTORE", "f", "0", stDump, "IDLETIME", "10"), args("RESTORE", "g", "0", stDump, "FREQ", "10"),
			args("RESTORE", "h", "0", stDump, "IDLETIME", "10", "FREQ", "5"), args("RESTORE", "h", "0", stDump, "FREQ", "5", "IDLETIME", "1"),
			args("RESTORE", "h", "0", stDump, "IDLETIME", "-1"), args("RESTORE", "h", "0", stDump, "IDLETIME", "x"),
			args("RESTORE", "h", "0", stDump, "FREQ", "256"), args("RESTORE", "h", "0", stDump, "FREQ", "-1"),
			args("RESTORE", "h", "0", stDump, "FREQ", "x"), args("RESTORE", "h", "0", stDump, "FREQ"),
			args("RESTORE", "h", "0", stDump, "IDLETIME"), args("RESTORE", "h", "0", stDump, "FOO"),
			args("RESTORE", "h", "0", stDump, "REPLACE", "REPLACE", "ABSTTL"), "EXISTS h",
			args("RESTORE", "i", "9223372036854775807", stDump), "EXISTS i",
			args("RESTORE", "j", "9223372036854775807", stDump, "ABSTTL"), "EXISTS j",
			args("RESTORE", "k", "-1", stDump), args("RESTORE", "k", "x", stDump), args("RESTORE", "a", "x", stDump),
			args("RESTORE", "f", "-1", stDump), args("RESTORE", "k", "1.5", stDump),
		)},
		{name: "restore-errors", steps: steps(
			"RESTORE", "RESTORE k", "RESTORE k 0", "RESTORE k 0 ''", "RESTORE k 0 x", "RESTORE k 0 0123456789",
			args("RESTORE", "k", "0", stDump[:len(stDump)-1]+"\x00"),
			args("RESTORE", "k", "0", stDump[:len(stDump)-10]+"\x0b\x00"+stDump[len(stDump)-8:]),
			args("RESTORE", "k", "0", "\x00\x01a\x09\x00"+"\x11\x00\x00\x00\x00\x00\x00\x00"),
			"SET a v", "DUMP a", "EVAL \"return redis.pcall('RESTORE', 'b', 0, string.sub(redis.call('DUMP', 'a'), 1, 2) .. string.sub(redis.call('DUMP', 'a'), 3))\" 0",
			"EVAL \"local d = redis.call('DUMP', 'a') return redis.pcall('RESTORE', 'c', 0, string.sub(d, 1, 2) .. 'x' .. string.sub(d, 4))\" 0",
			"EVAL \"return redis.pcall('RESTORE', 'a', 0, redis.call('DUMP', 'a'))\" 0",
			"EVAL \"return redis.pcall('RESTORE', 'x', 0, redis.call('DUMP', 'a'), 'REPLACE')\" 0", "GET x",
			"DUMP", "DUMP a b", "MULTI", "DUMP a", args("RESTORE", "m", "0", stDump), "RESTORE m 0 bad", "GET m", "EXEC",
		)},
	})
}
