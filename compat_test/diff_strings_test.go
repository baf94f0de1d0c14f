package compat

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// Absolute expiry times for EXAT/PXAT/EXPIREAT cases, computed when the test
// starts: both servers see the same argument, so replies that depend on it
// are exact.
var (
	futureS  = strconv.FormatInt(time.Now().Unix()+1000, 10)
	futureMs = strconv.FormatInt(time.Now().UnixMilli()+1000000, 10)
)

// Tolerances for within(): two servers run a step a moment apart.
const (
	tolS  = 1   // TTL, EXPIRETIME (seconds)
	tolMs = 250 // PTTL, PEXPIRETIME (milliseconds; generous for -race on a busy CI)
)

func TestDiffStrings(t *testing.T) {
	runDiffCases(t, []diffCase{
		{name: "get", steps: steps(
			"GET k", "SET k v", "GET k", "SET k ''", "GET k",
			args("SET", "k", "a\r\nb\x00c"), "GET k", "GET K",
		)},
		{name: "set/nx-xx", steps: steps(
			"SET k v XX", "GET k", "SET k v NX", "SET k w NX", "GET k", "SET k w XX", "GET k",
			"SET k x nx", "SET k x xx", "SET k y Nx", "GET k",
			"SET k v NX NX", "SET k v XX XX", "SET k v NX XX", "SET k v XX NX",
		)},
		{name: "set/expire-options", steps: steps(
			"SET k v EX 100", within(tolS, "TTL k"), within(tolMs, "PTTL k"),
			"SET k v PX 100000", within(tolMs, "PTTL k"),
			"SET k v ex 100 nx", "SET k v NX EX 100", "DEL k", "SET k v NX EX 100", within(tolS, "TTL k"),
			"SET k v Px 5000 Nx", "SET k v xx px 50000", within(tolMs, "PTTL k"),
			"SET k v EXAT "+futureS, "EXPIRETIME k", within(tolS, "TTL k"),
			"SET k v PXAT "+futureMs, "PEXPIRETIME k", within(tolMs, "PTTL k"),
			"SET k v", "TTL k",
		)},
		{name: "set/past-exat-pxat", steps: steps(
			"SET k v EXAT 1", "GET k", "EXISTS k", "SET k v PXAT 1", "EXISTS k",
			"SET k v", "SET k w PXAT 1 GET", "EXISTS k",
		)},
		{name: "set/keepttl", steps: steps(
			"SET k v EX 100", "SET k w KEEPTTL", within(tolS, "TTL k"), "GET k",
			"SET k x keepttl", within(tolS, "TTL k"), "SET k y", "TTL k",
			"SET k v KEEPTTL EX 10", "SET k v EX 10 KEEPTTL", "SET k v PX 10 KEEPTTL", "SET k v KEEPTTL KEEPTTL",
		)},
		{name: "set/get-option", steps: steps(
			"SET k v GET", "SET k w GET", "GET k", "SET k x get", "SET k y NX GET", "SET k z XX GET",
			"SET n v NX GET", "SET n2 v XX GET", "EXISTS n2", "SET k v GET EX 100", within(tolS, "TTL k"),
			"SET k v GET GET", "SET k v KEEPTTL GET",
		)},
		{name: "set/errors", steps: steps(
			"SET", "SET k", "SET k v EX", "SET k v PX", "SET k v EXAT", "SET k v PXAT",
			"SET k v EX abc", "SET k v EX 0", "SET k v EX -1", "SET k v PX 0", "SET k v PX -5",
			"SET k v EXAT 0", "SET k v PXAT 0", "SET k v EXAT -1",
			"SET k v EX 100 PX 100", "SET k v PX 100 EX 100", "SET k v EX 10 EX 20", "SET k v EXAT 10 PXAT 20",
			"SET k v FOO", "SET k v NX FOO", "SET k v EX 1.5", "SET k v EX ' 10'", "SET k v EX +10",
			"SET k v EX 010", "SET k v EX 9223372036854775807", "SET k v PX 9223372036854775807",
			"SET k v EX 9223372036854775", "SET k v EX 9223372036854776", "SET k v PX 9223372036854775",
			"SET k v EXAT 9223372036854775807", "SET k v PXAT 9223372036854775807",
			"SET k v EX 99999999999999999999", "SET k v ex", "GET k", "EXISTS k",
		)},
		{name: "setnx", steps: steps("SETNX k v", "SETNX k w", "GET k", "SETNX k", "SETNX", "SETNX k v x")},
		{name: "setex", steps: steps(
			"SETEX k 100 v", within(tolS, "TTL k"), "GET k", "SETEX k 0 v", "SETEX k -5 v", "SETEX k abc v",
			"SETEX k 1.5 v", "SETEX k 9223372036854775807 v", "SETEX k 100", "SETEX k 100 v x", "GET k",
		)},
		{name: "psetex", steps: steps(
			"PSETEX k 100000 v", within(tolMs, "PTTL k"), "GET k", "PSETEX k 0 v", "PSETEX k -1 v",
			"PSETEX k abc v", "PSETEX k 9223372036854775807 v", "PSETEX k 100", "GET k",
		)},
		{name: "getset", steps: steps(
			"GETSET k v", "GETSET k w", "GET k", "SET k v EX 100", "GETSET k x", "TTL k", "GETSET k", "GETSET k v x",
		)},
		{name: "getdel", steps: steps("GETDEL k", "SET k v", "GETDEL k", "EXISTS k", "GETDEL", "GETDEL k x")},
		{name: "getex", steps: steps(
			"GETEX k", "GETEX k EX 100", "EXISTS k", "SET k v", "GETEX k", "TTL k",
			"GETEX k EX 100", within(tolS, "TTL k"), "GETEX k PERSIST", "TTL k",
			"GETEX k PX 100000", within(tolMs, "PTTL k"), "GETEX k EXAT "+futureS, "EXPIRETIME k",
			"GETEX k PXAT "+futureMs, "PEXPIRETIME k", "GETEX k persist", "TTL k",
			"GETEX k EX 0", "GETEX k PX -1", "GETEX k EX abc", "GETEX k EX", "GETEX k EX 10 PX 10",
			"GETEX k PERSIST EX 10", "GETEX k EX 10 PERSIST", "GETEX k FOO", "GETEX k KEEPTTL", "GETEX k NX",
			"GETEX k EX 9223372036854775807", "GETEX k PERSIST PERSIST", "TTL k",
			"GETEX k EXAT 1", "EXISTS k", "GETEX",
		)},
		{name: "mget-mset-msetnx", steps: steps(
			"MGET a b c", "MSET a 1 b 2", "MGET a b c a", "MSET a 3 a 4", "GET a",
			"MSET a", "MSET a 1 b", "MSET", "MGET",
			"MSETNX a 1 c 3", "EXISTS c", "MSETNX c 3 d 4", "MGET c d", "MSETNX c 5 c 6", "MSETNX e 5 e 6", "GET e",
			"MSETNX a", "MSETNX",
			"SET x v EX 100", "MSET x w", "TTL x",
		)},
		{name: "append-strlen", steps: steps(
			"APPEND k x", "APPEND k yz", "GET k", "STRLEN k", "STRLEN nope", "APPEND k ''", "STRLEN k",
			"SET t v EX 100", "APPEND t w", within(tolS, "TTL t"), "GET t",
			"APPEND k", "APPEND", "STRLEN", "STRLEN k x",
			"SET n 10", "APPEND n 5", "INCR n",
		)},
		{name: "incr-decr", steps: steps(
			"INCR n", "INCR n", "INCRBY n 5", "INCRBY n -20", "DECR n", "DECRBY n 3", "DECRBY n -3", "GET n",
			"SET n 9223372036854775806", "INCR n", "INCR n", "GET n", "INCRBY n -1",
			"SET n -9223372036854775807", "DECR n", "DECR n", "DECRBY n 1", "INCRBY n -1",
			"SET n 0", "DECRBY n -9223372036854775808", "INCRBY n -9223372036854775808", "INCRBY n 9223372036854775807",
			"SET s abc", "INCR s", "SET s 1.5", "INCR s", "SET s ' 1'", "INCR s", "SET s +1", "INCR s",
			"SET s 01", "INCR s", "SET s -0", "INCR s", "SET s ''", "INCR s", "SET s 123456789012345678901", "INCR s",
			"SET s 1e3", "INCR s",
			"INCRBY n abc", "INCRBY n 1.5", "INCRBY n ''", "DECRBY n +1", "INCRBY n 99999999999999999999",
			"SET t 5 EX 100", "INCR t", "DECRBY t 2", within(tolS, "TTL t"), "GET t",
			"INCR", "INCR a b", "INCRBY n", "INCRBY n 1 2", "DECR", "DECRBY n",
		)},
		{name: "incrbyfloat", steps: steps(
			"INCRBYFLOAT f 1.5", "INCRBYFLOAT f 0.1", "INCRBYFLOAT f 0.1", "INCRBYFLOAT f -3.7", "GET f",
			"INCRBYFLOAT f 1e3", "INCRBYFLOAT f 5.0e3", "INCRBYFLOAT f 3.0000000000000001", "INCRBYFLOAT f -6001",
			"INCRBYFLOAT f abc", "INCRBYFLOAT f inf", "INCRBYFLOAT f -inf", "INCRBYFLOAT f nan", "INCRBYFLOAT f ''",
			"INCRBYFLOAT f ' 1'", "INCRBYFLOAT f 1.5x", "INCRBYFLOAT f 0x10", "INCRBYFLOAT f .5", "INCRBYFLOAT f 5.",
			"SET g 10", "INCRBYFLOAT g 1.5", "SET g abc", "INCRBYFLOAT g 1", "SET g 1e308", "INCRBYFLOAT g 1e308",
			"GET g", "SET g 10.50", "INCRBYFLOAT g 0", "SET g ' 1'", "INCRBYFLOAT g 1",
			"SET g 1", "INCRBYFLOAT g 0.3333333333333333", "INCRBYFLOAT g 1e-20", "INCRBYFLOAT g 123456789012345678",
			"SET t 1 EX 100", "INCRBYFLOAT t 1", within(tolS, "TTL t"),
			"INCRBYFLOAT", "INCRBYFLOAT f", "INCRBYFLOAT f 1 2",
		)},
		{name: "incrbyfloat-syntax", steps: incrbyfloatSyntax(
			"0x10", "-0x10", "0x1p3", "0X1.8P1", "0x", "1e-400", "1e5000", "-1e5000", "0x1p-20000", "infinity",
			"-Infinity", "nan", "1_0", "1e", "00012.5", "1E3", "+1.5", "1.5 ", "1.5\x00",
		)},
		{name: "getrange", steps: steps(
			"GETRANGE k 0 -1", "SET k 'Hello World'", "GETRANGE k 0 -1", "GETRANGE k 0 0", "GETRANGE k -3 -1",
			"GETRANGE k 5 2", "GETRANGE k 100 200", "GETRANGE k -100 -50", "GETRANGE k 0 100", "GETRANGE k -100 2",
			"GETRANGE k 3 -100", "GETRANGE k -1 -2", "GETRANGE k 10 10", "GETRANGE k 11 11",
			"GETRANGE k 0 9223372036854775807", "GETRANGE k -9223372036854775808 3",
			"GETRANGE k a 1", "GETRANGE k 0 b", "GETRANGE k 0", "GETRANGE k 0 1 2", "SUBSTR k 0 3",
			"SET e ''", "GETRANGE e 0 -1", "GETRANGE e 0 0",
		)},
		{name: "setrange", steps: steps(
			"SETRANGE k 0 x", "GET k", "SETRANGE k 5 abc", "GET k", "STRLEN k", "SETRANGE k 1 YZ", "GET k",
			"SETRANGE k -1 x", "SETRANGE k a x", "SETRANGE k 536870912 x", "SETRANGE k 536870911 xy",
			"SETRANGE k 536870912 ''", "SETRANGE k 3 ''", "GET k",
			"SETRANGE m 0 ''", "EXISTS m", "SETRANGE m 10 ''", "EXISTS m", "SETRANGE m -1 ''",
			"SET t abc EX 100", "SETRANGE t 1 Z", within(tolS, "TTL t"), "GET t",
			"SETRANGE k 0", "SETRANGE", "SETRANGE k 0 x y",
		)},
	})
}

// wrongTypeCommands are run against a key holding a non-string: each must
// answer WRONGTYPE (or whatever Redis answers: MGET gives nil, SET
// overwrites).
var wrongTypeCommands = []string{
	"GET w", "GETSET w v", "GETDEL w", "GETEX w", "GETEX w EX 100", "APPEND w x", "STRLEN w",
	"INCR w", "INCRBY w 2", "DECR w", "DECRBY w 2", "INCRBYFLOAT w 1.5", "GETRANGE w 0 -1",
	"SETRANGE w 0 x", "SETRANGE w 0 ''", "MGET w k", "SETNX w v", "MSETNX w v k2 v", "SET w v NX",
	"SET w v XX GET", "SET w v GET", "SET w v NX GET", "TYPE w", "EXISTS w", "TTL w", "EXPIRE w 100",
	"PERSIST w", "RENAME w w2", "TYPE w2", "RENAMENX w2 w", "TYPE w", "TOUCH w",
	"SET w v", "TYPE w", "GET w",
}

// makers create a non-string key w; a case per maker runs while lockredis
// does not know the data type yet it is skipped.
var wrongTypeMakers = []struct{ cmd, need string }{
	{"HSET w f v", "hset"},
	{"RPUSH w a", "rpush"},
	{"SADD w a", "sadd"},
	{"ZADD w 1 a", "zadd"},
}

func TestDiffWrongType(t *testing.T) {
	var cases []diffCase
	for _, m := range wrongTypeMakers {
		cases = append(cases, diffCase{
			name:  strings.Fields(m.cmd)[0],
			needs: []string{m.need},
			steps: steps(m.cmd, "SET k 1", steps(toAny(wrongTypeCommands)...), unordered("KEYS *")),
		})
	}
	runDiffCases(t, cases)
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// incrbyfloatSyntax checks how each number is parsed, both as the
// increment and as the stored value.
func incrbyfloatSyntax(numbers ...string) []diffStep {
	var out []diffStep
	for _, n := range numbers {
		out = append(out,
			args("DEL", "f"), args("INCRBYFLOAT", "f", n),
			args("SET", "f", n), args("INCRBYFLOAT", "f", "0"),
		)
	}
	return out
}
