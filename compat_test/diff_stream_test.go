package compat

import (
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"testing"
)

// Differential tests for the stream type (t_stream.c). IDs are given
// explicitly wherever the reply shows them: an ID made by "*" comes from
// each server's clock, so those steps compare only the reply's type.
// Replies that carry times (idle, delivery and seen times) are compared
// with within().

func TestDiffStreamBasics(t *testing.T) {
	runDiffCases(t, []diffCase{
		{name: "xadd-explicit-ids", steps: steps(
			"XADD s 1-1 a 1", "XADD s 1-2 b 2 c 3", "XADD s 2 d 4", "XADD s 2-* e 5", "XADD s 3-* f 6",
			"XADD s 1-5 x y", "XADD s 3-0 x y", "XADD s 0-0 x y", "XADD s 0 x y", "XADD s 0-* x y",
			"XLEN s", "XRANGE s - +", "TYPE s", "OBJECT ENCODING s", "EXISTS s",
			"XADD n 0-1 a b", "XADD n 0-* a b", "XRANGE n - +",
		)},
		{name: "xadd-auto-id", steps: steps(
			kind("XADD s * a 1"), kind("XADD s * a 2"), "XLEN s",
			"XADD t 99999999999999-5 a 1", "XADD t * a 2", "XRANGE t - +",
			"XADD u 18446744073709551615-18446744073709551615 a 1", "XADD u * a 1", "XADD u 5 a 1",
			"XADD v 18446744073709551615-18446744073709551614 a 1", "XADD v 18446744073709551615-* a 1",
			"XADD w 7-18446744073709551615 a 1", "XADD w 7-* a 1", "XRANGE w - +",
		)},
		{name: "xadd-errors", steps: steps(
			"XADD", "XADD s", "XADD s *", "XADD s * a", "XADD s * a b c", "XADD s 1-1 a",
			"XADD s foo a b", "XADD s 1-x a b", "XADD s -1 a b", "XADD s - a b", "XADD s + a b",
			"XADD s 1-2-3 a b", "XADD s 1- a b", "XADD s -1-1 a b", "XADD s '' a b",
			"XADD s MAXLEN -1 * a b", "XADD s MAXLEN x * a b", "XADD s MAXLEN 1 MINID 1 * a b",
			"XADD s MINID 1 MAXLEN 1 * a b", "XADD s LIMIT 10 * a b", "XADD s MAXLEN 1 LIMIT 10 * a b",
			"XADD s MAXLEN ~ 1 LIMIT -1 * a b", "XADD s MAXLEN ~ 1 LIMIT x * a b", "XADD s MINID - * a b",
			"XADD s MINID x * a b", "XADD s MAXLEN", "XADD s MAXLEN ~", "XADD s NOMKSTREAM",
			"SET str v", "XADD str 1 a b", "XADD str NOMKSTREAM 1 a b", "EXISTS s",
			"XADD s NOMKSTREAM 1-1 a b", "EXISTS s",
			"XADD s 00001-0002 a b", "XADD s +5 a b", "XADD s ' 7' a b", "XADD s 8-+3 a b", "XRANGE s - +",
		)},
		{name: "xadd-nomkstream-and-trim", steps: steps(
			"XADD s NOMKSTREAM * a b", "EXISTS s",
			"XADD s 1 a b", "XADD s NOMKSTREAM 2 a b", "XADD s nomkstream maxlen 1 3 a b", "XRANGE s - +",
			"XADD s MAXLEN = 1 4 a b", "XADD s MAXLEN ~ 1 5 a b", "XLEN s", "XADD s MINID 5 6 a b",
			"XADD s MINID = 6 7 a b", "XADD s MINID ~ 7 8 a b", "XADD s MAXLEN 0 9 a b", "XLEN s",
			"XRANGE s - +", "EXISTS s", "XADD s MAXLEN ~ 0 LIMIT 0 10 a b", "XLEN s",
		)},
		{name: "xlen-xrange", steps: steps(
			"XLEN s", "XRANGE s - +", "XREVRANGE s + -",
			"XADD s 1-0 f v", "XADD s 1-1 f v2", "XADD s 2-0 g w", "XADD s 3-5 h x", "XADD s 5-0 i y",
			"XRANGE s - +", "XREVRANGE s + -", "XRANGE s 1 1", "XRANGE s 2 3", "XRANGE s (1-0 +",
			"XRANGE s (1 +", "XRANGE s - (3-5", "XRANGE s (1-1 (5", "XREVRANGE s (5 (1-0",
			"XRANGE s - + COUNT 2", "XREVRANGE s + - COUNT 2", "XRANGE s - + COUNT 0", "XRANGE s - + COUNT -1",
			"XRANGE s - + count 1 COUNT 3", "XRANGE s 3 1", "XREVRANGE s 1 3", "XRANGE s 3-5 3-5",
			"XRANGE s - + COUNT", "XRANGE s - + FOO 1", "XRANGE s - + COUNT x", "XRANGE s x +",
			"XRANGE s - x", "XRANGE s (- +", "XRANGE s - (+", "XRANGE s ( +",
			"XRANGE s (18446744073709551615-18446744073709551615 +", "XRANGE s - (0-0", "XRANGE s - (0",
			"XRANGE s 18446744073709551615 +", "XRANGE s 18446744073709551616 +", "XRANGE s 2-18446744073709551616 +",
			"XRANGE", "XRANGE s", "XRANGE s -", "XREVRANGE s +",
			"SET str v", "XLEN str", "XRANGE str - +", "XREVRANGE str + -", "XRANGE str x +",
			"XRANGE nokey - + COUNT 0", "XRANGE nokey x +",
		)},
		{name: "xdel", steps: steps(
			"XDEL s 1", "XADD s 1 a 1", "XADD s 2 b 2", "XADD s 3 c 3", "XADD s 4 d 4",
			"XDEL s 2", "XDEL s 2", "XDEL s 1 3 9", "XRANGE s - +", "XLEN s", "XDEL s x", "XDEL s 4 x", "XLEN s",
			"XDEL s 4", "XLEN s", "EXISTS s", "XRANGE s - +", "XADD s 4 a b", "XADD s 5 a b", "XRANGE s - +",
			"XDEL s", "XDEL", "SET str v", "XDEL str 1", "XDEL str x", "XDEL s -", "XDEL s +", "XDEL s 5-0 5",
			"XLEN s",
		)},
		{name: "xtrim", steps: steps(
			"XTRIM s MAXLEN 1", "XADD s 1 a 1", "XADD s 2 a 2", "XADD s 3 a 3", "XADD s 4 a 4", "XADD s 5 a 5",
			"XTRIM s MAXLEN 10", "XTRIM s MAXLEN 3", "XRANGE s - +", "XTRIM s MINID 4", "XRANGE s - +",
			"XTRIM s MAXLEN ~ 0", "XLEN s", "XTRIM s MAXLEN = 0", "XLEN s", "EXISTS s", "XRANGE s - +",
			"XTRIM s", "XTRIM s FOO", "XTRIM s MAXLEN", "XTRIM s LIMIT 1", "XTRIM s MAXLEN 1 LIMIT 1",
			"XTRIM s MAXLEN ~ 1 LIMIT 1", "XTRIM s MAXLEN -1", "XTRIM s MINID 1 MAXLEN 1", "XTRIM s MINID -",
			"XTRIM s MINID +", "XTRIM s MAXLEN 1 NOMKSTREAM", "XTRIM s MAXLEN 1 *", "XTRIM nokey MAXLEN 0",
			"SET str v", "XTRIM str MAXLEN 0", "XTRIM str FOO", "XTRIM", "XTRIM s",
		)},
		{name: "xinfo-basic", steps: steps(
			"XINFO STREAM s", "XADD s 1 a 1", "XADD s 2 b 2 c 3", "XDEL s 1",
			"XINFO STREAM s", "XINFO STREAM s FULL", "XINFO STREAM s FULL COUNT 1", "XINFO STREAM s FULL COUNT 0",
			"XINFO STREAM s FULL COUNT -5", "XINFO STREAM s FULL COUNT x", "XINFO STREAM s FOO",
			"XINFO STREAM s FULL COUNT", "XINFO STREAM s FULL FOO 1", "XINFO GROUPS s", "XINFO CONSUMERS s g",
			"XINFO HELP", "XINFO help x", "XINFO", "XINFO FOO", "XINFO STREAM", "XINFO GROUPS s x",
			"XINFO CONSUMERS s", "SET str v", "XINFO STREAM str", "XINFO GROUPS nokey", "XINFO CONSUMERS nokey g",
			"XDEL s 2", "XINFO STREAM s", "XINFO STREAM s FULL",
		)},
		{name: "xsetid", steps: steps(
			"XSETID s 5", "XADD s 1 a b", "XADD s 2 a b", "XSETID s 1", "XSETID s 2", "XSETID s 10-5",
			"XADD s 10-5 a b", "XADD s 10-* a b", "XINFO STREAM s", "XSETID s 20 ENTRIESADDED 1",
			"XSETID s 20 ENTRIESADDED 10 MAXDELETEDID 15", "XINFO STREAM s", "XSETID s 20 MAXDELETEDID 25",
			"XSETID s 20 ENTRIESADDED -1", "XSETID s 20 ENTRIESADDED x", "XSETID s 20 FOO", "XSETID s 20 ENTRIESADDED",
			"XSETID s x", "XSETID s -", "XSETID s +", "XSETID s 20 MAXDELETEDID x", "XSETID", "XSETID s",
			"SET str v", "XSETID str 1", "XDEL s 1 2 10-5 10-6", "XLEN s", "XSETID s 0", "XINFO STREAM s",
		)},
		{name: "generic-commands-on-streams", steps: steps(
			"XADD s 1 a 1", "XGROUP CREATE s g 0", "TYPE s", "SCAN 0 TYPE stream", "SCAN 0 TYPE STREAM COUNT 100",
			"COPY s s2", "XINFO GROUPS s2", "XRANGE s2 - +", "RENAME s2 s3", "TYPE s3", "EXPIRE s 100", "TTL s",
			"OBJECT REFCOUNT s", "MOVE s 1", "SELECT 1", "XLEN s", "SELECT 0", "EXISTS s",
			"SET k v", "XADD k 1 a b", "LPUSH s3 a", "SADD s3 a", "GET s3", "STRLEN s3", "APPEND s3 x",
			"HSET s3 a b", "ZADD s3 1 a", "INCR s3", "DEL s3", "UNLINK s3", "XADD e MAXLEN 0 1 a b", "TYPE e",
			"EXISTS e", "DBSIZE",
		)},
		{name: "keys-and-acl", steps: steps(
			"COMMAND GETKEYS XREAD COUNT 1 STREAMS a b 0 0", "COMMAND GETKEYS XREAD STREAMS a 0",
			"COMMAND GETKEYS XREADGROUP GROUP g c STREAMS a b c > > >", "COMMAND GETKEYS XREAD STREAMS a b 0",
			"COMMAND GETKEYS XADD s * a b", "COMMAND GETKEYS XGROUP CREATE s g 0", "COMMAND GETKEYS XINFO STREAM s",
			"COMMAND GETKEYS XCLAIM s g c 0 1", "COMMAND GETKEYS XAUTOCLAIM s g c 0 0", "COMMAND GETKEYS XSETID s 1",
			"COMMAND GETKEYS XREAD COUNT 1 STREAMS", "COMMAND GETKEYSANDFLAGS XREADGROUP GROUP g c STREAMS a >",
			"COMMAND GETKEYS XREAD streams a 0", "COMMAND GETKEYS XREADGROUP GROUP g c streams a >",
			"COMMAND GETKEYS XREADGROUP GROUP streams c STREAMS a >", "COMMAND GETKEYS XREAD COUNT streams STREAMS a b 0 0",
			"ACL SETUSER u on nopass ~a* +@all", "AUTH u x", "XREAD STREAMS a b 0 0", "XREAD STREAMS a1 a2 0 0",
			"XADD b 1 a b", "XREADGROUP GROUP g c STREAMS b >", "XINFO STREAM b",
		)},
		{name: "multi-and-eval", steps: steps(
			"MULTI", "XADD s 1 a b", "XADD s 2 c d", "XLEN s", "XRANGE s - +", "XREAD STREAMS s 0",
			"XREAD BLOCK 0 STREAMS s 2", "XGROUP CREATE s g 0", "XREADGROUP GROUP g c STREAMS s >",
			"XREADGROUP GROUP g c BLOCK 0 STREAMS s >", "XPENDING s g", "XACK s g 1", "EXEC",
			"EVAL \"return redis.call('XADD', KEYS[1], '3', 'x', 'y')\" 1 s",
			"EVAL \"return redis.call('XRANGE', KEYS[1], '-', '+')\" 1 s",
			"EVAL \"return redis.call('XREAD', 'STREAMS', KEYS[1], '0')\" 1 s",
			"EVAL \"return redis.call('XREAD', 'BLOCK', '0', 'STREAMS', KEYS[1], '0')\" 1 s",
			"EVAL \"return redis.call('XREADGROUP', 'GROUP', 'g', 'c2', 'BLOCK', '10', 'STREAMS', KEYS[1], '>')\" 1 s",
			"EVAL \"return redis.call('XREADGROUP', 'GROUP', 'g', 'c2', 'STREAMS', KEYS[1], '>')\" 1 s",
			"EVAL \"return redis.call('XPENDING', KEYS[1], 'g')\" 1 s",
			"EVAL \"redis.setresp(3); return redis.call('XREAD', 'STREAMS', KEYS[1], '0')\" 1 s",
			"EVAL \"return redis.call('XINFO', 'GROUPS', KEYS[1])\" 1 s",
			"EVAL \"return redis.call('XADD', KEYS[1], '1', 'x', 'y')\" 1 s",
			"EVAL \"return redis.pcall('XADD', KEYS[1], '1', 'x', 'y')\" 1 s",
		)},
	})
}

func TestDiffStreamRead(t *testing.T) {
	runDiffCases(t, []diffCase{
		{name: "xread", steps: steps(
			"XREAD STREAMS s 0", "XADD s 1 a 1", "XADD s 2 b 2", "XADD t 1 c 3",
			"XREAD STREAMS s 0", "XREAD STREAMS s t 0 0", "XREAD COUNT 1 STREAMS s t 0 0", "XREAD STREAMS s 1",
			"XREAD STREAMS s 2", "XREAD STREAMS s $", "XREAD STREAMS s t nokey 0 0 0", "XREAD STREAMS s s 0 1",
			"XREAD COUNT 0 STREAMS s 0", "XREAD COUNT -1 STREAMS s 0", "XREAD count 1 count 2 STREAMS s 0",
			"XREAD BLOCK 10 STREAMS s 0", "XREAD BLOCK 10 STREAMS s $", "XREAD BLOCK 10 STREAMS nokey 0",
			"XDEL s 2", "XREAD STREAMS s 1", "XREAD STREAMS s (1",
		)},
		{name: "xread-errors", steps: steps(
			"XREAD", "XREAD STREAMS", "XREAD STREAMS s", "XREAD STREAMS s t 0", "XREAD COUNT x STREAMS s 0",
			"XREAD BLOCK x STREAMS s 0", "XREAD BLOCK -1 STREAMS s 0", "XREAD BLOCK 1.5 STREAMS s 0",
			"XREAD FOO STREAMS s 0", "XREAD GROUP g c STREAMS s 0", "XREAD NOACK STREAMS s 0",
			"XREAD STREAMS s >", "XREAD STREAMS s x", "XREAD STREAMS s -", "XREAD STREAMS s +", "XREAD COUNT 1",
			"SET str v", "XREAD STREAMS str 0", "XREAD STREAMS nokey str 0 0", "XREAD STREAMS str x",
			"XREAD BLOCK 0 COUNT", "XREAD COUNT 1 BLOCK",
		)},
		{name: "xreadgroup", steps: steps(
			"XADD s 1 a 1", "XADD s 2 b 2", "XADD s 3 c 3", "XGROUP CREATE s g 0",
			"XREADGROUP GROUP g alice COUNT 1 STREAMS s >", "XREADGROUP GROUP g bob STREAMS s >",
			"XREADGROUP GROUP g bob STREAMS s >", "XREADGROUP GROUP g alice STREAMS s 0",
			"XREADGROUP GROUP g bob STREAMS s 0", "XREADGROUP GROUP g bob COUNT 1 STREAMS s 2",
			"XREADGROUP GROUP g carol STREAMS s 0", "XINFO GROUPS s", nearly(50, "XINFO CONSUMERS s g"),
			"XADD s 4 d 4", "XREADGROUP GROUP g carol NOACK STREAMS s >", "XPENDING s g",
			"XDEL s 2", "XREADGROUP GROUP g bob STREAMS s 0", "XACK s g 2 3", "XREADGROUP GROUP g bob STREAMS s 0",
			"XREADGROUP GROUP g alice BLOCK 10 STREAMS s >", "XGROUP CREATE s g2 $", "XREADGROUP GROUP g2 x STREAMS s >",
			"XADD t 1 a b", "XGROUP CREATE t g 0", "XREADGROUP GROUP g alice STREAMS s t > >",
			"XREADGROUP GROUP g alice STREAMS s t 0 >", "XINFO GROUPS s", "XINFO GROUPS t",
			"XADD s 5 e 5", "XADD s 6 f 6", "XREADGROUP GROUP g dup COUNT 1 STREAMS s s > >",
			"XREADGROUP GROUP g dup STREAMS s s > >", "XREADGROUP GROUP g dup STREAMS s s 0 >",
			"XREADGROUP GROUP g dup2 STREAMS s s 0 0", "XPENDING s g", "XREAD STREAMS s s s 4 5 $",
			"XADD s 7 g 7", "XREADGROUP GROUP g dup STREAMS s s t > 0 >", "XPENDING s g",
		)},
		{name: "xreadgroup-errors", steps: steps(
			"XREADGROUP STREAMS s >", "XREADGROUP GROUP g STREAMS s >", "XREADGROUP GROUP g c STREAMS s >",
			"XADD s 1 a b", "XREADGROUP GROUP g c STREAMS s >", "XGROUP CREATE s g 0",
			"XREADGROUP GROUP g c STREAMS s $", "XREADGROUP GROUP g c STREAMS s x", "XREADGROUP GROUP g c STREAMS s nokey > >",
			"XREADGROUP GROUP g c STREAMS s", "XREADGROUP GROUP g c FOO STREAMS s >", "XREADGROUP GROUP g c COUNT x STREAMS s >",
			"XREADGROUP GROUP g c BLOCK -1 STREAMS s >", "SET str v", "XREADGROUP GROUP g c STREAMS str >",
			"XREADGROUP", "XREADGROUP GROUP g c", "XREADGROUP GROUP g c STREAMS s - ", "XREADGROUP GROUP g c STREAMS s +",
		)},
	})
}

func TestDiffStreamGroups(t *testing.T) {
	runDiffCases(t, []diffCase{
		{name: "xgroup", steps: steps(
			"XGROUP CREATE s g $", "XGROUP CREATE s g $ MKSTREAM", "XGROUP CREATE s g $ MKSTREAM",
			"XGROUP CREATE s g2 0 ENTRIESREAD 5", "XGROUP CREATE s g3 0 ENTRIESREAD -1 MKSTREAM",
			"XGROUP CREATE s g4 0 ENTRIESREAD -2", "XGROUP CREATE s g4 0 ENTRIESREAD x", "XGROUP CREATE s g4 x",
			"XGROUP CREATE s g4 - ", "XGROUP CREATE s g4 +", "XGROUP CREATE s g4 0 FOO", "XGROUP CREATE s g4 0 ENTRIESREAD",
			"XINFO GROUPS s", "XGROUP CREATECONSUMER s g alice", "XGROUP CREATECONSUMER s g alice",
			"XGROUP CREATECONSUMER s nog alice", "XGROUP DELCONSUMER s g bob", "XGROUP DELCONSUMER s g alice",
			"XGROUP DELCONSUMER s nog alice", "XGROUP DESTROY s g2", "XGROUP DESTROY s g2", "XINFO GROUPS s",
			"XADD s 1 a b", "XADD s 2 a b", "XGROUP SETID s g 1", "XGROUP SETID s g $", "XGROUP SETID s g -",
			"XGROUP SETID s g 1 ENTRIESREAD 1", "XGROUP SETID s g 1 ENTRIESREAD -3", "XGROUP SETID s g x",
			"XGROUP SETID s nog 1", "XGROUP SETID s g 1 MKSTREAM", "XGROUP SETID s g 1 ENTRIESREAD 1 x",
			"XINFO GROUPS s", "XGROUP SETID nokey g 1", "XGROUP DESTROY nokey g", "XGROUP CREATECONSUMER nokey g c",
			"SET str v", "XGROUP CREATE str g 0", "XGROUP CREATE str g 0 MKSTREAM", "XGROUP DESTROY str g",
			"XGROUP HELP", "XGROUP help x", "XGROUP", "XGROUP FOO", "XGROUP CREATE s", "XGROUP CREATE s g",
			"XGROUP CREATE s g 0 MKSTREAM ENTRIESREAD 1 x", "XGROUP DESTROY s g x", "XGROUP CREATECONSUMER s g",
			"XGROUP DELCONSUMER s g a b", "XGROUP SETID s g", "xgroup create s G 0", "XINFO GROUPS s",
		)},
		{name: "xack-xpending", steps: steps(
			"XACK s g 1", "XPENDING s g", "XADD s 1 a 1", "XADD s 2 b 2", "XADD s 3 c 3", "XADD s 4 d 4",
			"XACK s g 1", "XPENDING s g", "XGROUP CREATE s g 0", "XPENDING s g", "XPENDING s g - + 10",
			"XREADGROUP GROUP g alice COUNT 2 STREAMS s >", "XREADGROUP GROUP g bob STREAMS s >",
			"XPENDING s g", nearly(50, "XPENDING s g - + 10"), nearly(50, "XPENDING s g - + 10 alice"),
			nearly(50, "XPENDING s g - + 1"), nearly(50, "XPENDING s g (1 (4 10"), "XPENDING s g - + 10 nobody",
			"XPENDING s g IDLE 100000 - + 10", nearly(50, "XPENDING s g IDLE 0 - + 10 bob"), "XPENDING s g - + 0",
			"XPENDING s g - + -1", "XACK s g 1 2 9", "XACK s g 1", "XPENDING s g", "XACK s g x", "XACK s g 3 x",
			"XPENDING s g", "XACK s nog 3", "XPENDING s nog", "XPENDING nokey g",
			"XPENDING s g -", "XPENDING s g - +", "XPENDING s g - + 10 a b", "XPENDING s g IDLE 1 - +",
			"XPENDING s g IDLE x - + 1", "XPENDING s g - + x", "XPENDING s g x + 1", "XPENDING s g - x 1",
			"XPENDING s g (+ + 1", "XPENDING s g - (- 1", "XPENDING s g IDLE 0 - + 10 bob extra",
			"SET str v", "XACK str g 1", "XPENDING str g", "XPENDING str g x + 1", "XACK", "XACK s g", "XPENDING s",
			"XACK s g 3 4", "XPENDING s g",
			args("XPENDING", "k\r\ney", "g\nx"), args("XPENDING", "k\x00ey", "g\x00x"),
			args("XREADGROUP", "GROUP", "g\r\n", "c", "STREAMS", "s\x00t", ">"),
			args("XGROUP", "SETID", "s", "g\n\x00x", "0"), args("XCLAIM", "s", "g", "c", "0", "1", "F\nO\x00O"),
			args("XAUTOCLAIM", "s", "n\no", "c", "0", "0"), args("XINFO", "CONSUMERS", "s", "a\rb"),
		)},
		{name: "xclaim", steps: steps(
			"XADD s 1 a 1", "XADD s 2 b 2", "XADD s 3 c 3", "XADD s 4 d 4", "XGROUP CREATE s g 0",
			"XREADGROUP GROUP g alice STREAMS s >",
			"XCLAIM s g bob 0 1", "XCLAIM s g bob 0 2 3 JUSTID", "XCLAIM s g bob 1000000 4",
			nearly(50, "XPENDING s g - + 10"), "XCLAIM s g carol 0 9", "XCLAIM s g carol 0 9 FORCE",
			"XCLAIM s g carol 0 4 RETRYCOUNT 7", nearly(50, "XPENDING s g - + 10"),
			"XCLAIM s g carol 0 4 IDLE 5000 JUSTID", nearly(50, "XPENDING s g - + 10"),
			"XCLAIM s g dave 10000 4 JUSTID", "XCLAIM s g dave 0 4 TIME 1 JUSTID", nearly(50, "XPENDING s g - + 10"),
			"XDEL s 2", "XCLAIM s g erin 0 2 1", "XPENDING s g", "XCLAIM s g erin 0 1 LASTID 9", "XINFO GROUPS s",
			"XACK s g 1", "XCLAIM s g erin 0 1 FORCE", "XPENDING s g", "XCLAIM s g erin 0 1 LASTID 5 JUSTID",
			"XCLAIM s g erin x 1", "XCLAIM s g erin 0 1 IDLE x", "XCLAIM s g erin 0 1 TIME x",
			"XCLAIM s g erin 0 1 RETRYCOUNT x", "XCLAIM s g erin 0 1 LASTID x", "XCLAIM s g erin 0 1 FOO",
			"XCLAIM s g erin 0 1 IDLE", "XCLAIM s g erin 0 x", "XCLAIM s g erin 0 1 x 2",
			"XCLAIM s nog erin 0 1", "XCLAIM nokey g erin x 1", "SET str v", "XCLAIM str g c 0 1",
			"XCLAIM", "XCLAIM s g c 0", "XCLAIM s g c -5 3", nearly(50, "XINFO CONSUMERS s g"),
		)},
		{name: "xautoclaim", steps: steps(
			"XADD s 1 a 1", "XADD s 2 b 2", "XADD s 3 c 3", "XADD s 4 d 4", "XADD s 5 e 5", "XGROUP CREATE s g 0",
			"XREADGROUP GROUP g alice STREAMS s >",
			"XAUTOCLAIM s g bob 0 0 COUNT 2", "XAUTOCLAIM s g bob 0 3-0 COUNT 1 JUSTID", "XAUTOCLAIM s g bob 0 (3",
			"XAUTOCLAIM s g bob 1000000 0", "XDEL s 1 4", "XAUTOCLAIM s g carol 0 0", "XPENDING s g",
			"XAUTOCLAIM s g carol 0 0 JUSTID", "XAUTOCLAIM s g carol 0 0 COUNT 0", "XAUTOCLAIM s g carol 0 0 COUNT -1",
			"XAUTOCLAIM s g carol 0 0 COUNT x", "XAUTOCLAIM s g carol 0 0 COUNT 922337203685477581",
			"XAUTOCLAIM s g carol 0 0 COUNT 922337203685477580 JUSTID", "XAUTOCLAIM s g carol 0 0 FOO",
			"XAUTOCLAIM s g carol x 0", "XAUTOCLAIM s g carol 0 x", "XAUTOCLAIM s g carol 0 (18446744073709551615-18446744073709551615",
			"XAUTOCLAIM s nog carol 0 0", "XAUTOCLAIM nokey g c 0 0", "XAUTOCLAIM nokey g c x 0",
			"SET str v", "XAUTOCLAIM str g c 0 0", "XAUTOCLAIM", "XAUTOCLAIM s g c 0", "XAUTOCLAIM s g c 0 0 COUNT",
			"XAUTOCLAIM s g c -7 0 JUSTID",
		)},
		{name: "consumer-group-counters", steps: steps(
			"XADD s 1 a 1", "XADD s 2 a 2", "XADD s 3 a 3", "XADD s 4 a 4", "XGROUP CREATE s g 0",
			"XGROUP CREATE s g2 2", "XGROUP CREATE s g3 $", "XINFO GROUPS s", "XREADGROUP GROUP g c COUNT 1 STREAMS s >",
			"XINFO GROUPS s", "XDEL s 3", "XINFO GROUPS s", "XREADGROUP GROUP g c COUNT 1 STREAMS s >", "XINFO GROUPS s",
			"XREADGROUP GROUP g c STREAMS s >", "XINFO GROUPS s", "XADD s 5 a 5", "XINFO GROUPS s", "XDEL s 1",
			"XINFO GROUPS s", "XTRIM s MAXLEN 1", "XINFO GROUPS s", "XREADGROUP GROUP g2 c STREAMS s >", "XINFO GROUPS s",
			"XINFO STREAM s", "XGROUP SETID s g 0 ENTRIESREAD 0", "XINFO GROUPS s",
		)},
		{name: "xinfo-full-groups", steps: steps(
			"XADD s 1 a 1", "XADD s 2 b 2", "XGROUP CREATE s g 0", "XGROUP CREATE s a 0", "XGROUP CREATECONSUMER s g zed",
			"XREADGROUP GROUP g c STREAMS s >", "XINFO STREAM s", "XINFO CONSUMERS s a",
			nearly(1000, "XINFO STREAM s FULL"),
		)},
	})
}

// TestDiffStreamNodes checks the places where Redis cuts a stream into
// radix tree nodes (100 entries, or 4096 bytes): approximate trimming
// removes whole nodes only, so the entries it keeps depend on them.
func TestDiffStreamNodes(t *testing.T) {
	var fill []string
	for i := 1; i <= 250; i++ {
		fill = append(fill, fmt.Sprintf("XADD s %d f %d", i, i))
	}
	var big []string
	for i := 1; i <= 40; i++ {
		big = append(big, fmt.Sprintf("XADD b %d field%d %s", i, i%3, strings.Repeat("v", 50+i*7)))
	}
	var mixed []string
	for i := 1; i <= 120; i++ {
		if i%7 == 0 {
			mixed = append(mixed, fmt.Sprintf("XADD m %d other %d x -%d", i, i*1000, i*100000))
		} else {
			mixed = append(mixed, fmt.Sprintf("XADD m %d f %d", i, i*i*i))
		}
	}
	// IDs spread over many byte values, then nodes emptied at the head and
	// in the middle (some only in part): XINFO STREAM's radix-tree-nodes
	// follows the shape of Redis's radix tree.
	var spread []string
	id := uint64(1)
	for i := 0; i < 1200; i++ {
		id += uint64(1 + (i*7919)%300000000)
		spread = append(spread, fmt.Sprintf("XADD r %d-%d f %d", id, i%3, i))
	}
	spread = append(spread, "XINFO STREAM r")
	for _, n := range []int{2, 5, 7, 0, 11} {
		spread = append(spread, fmt.Sprintf("EVAL \"local r = redis.call('XRANGE', KEYS[1], '-', '+') local n = 0 "+
			"for i = %d*100+1, %d*100+100 do if r[i] then redis.call('XDEL', KEYS[1], r[i][1]) n = n + 1 end end "+
			"return n\" 1 r", n, n), "XINFO STREAM r")
	}
	spread = append(spread, "XTRIM r MAXLEN ~ 300", "XINFO STREAM r", "XTRIM r MAXLEN 0", "XINFO STREAM r")
	runDiffCases(t, []diffCase{
		{name: "radix-tree-shapes", steps: steps(many(spread))},
		{name: "approx-maxlen", steps: steps(many(fill), "XTRIM s MAXLEN ~ 200", "XLEN s", "XTRIM s MAXLEN ~ 120",
			"XLEN s", "XTRIM s MAXLEN ~ 10 LIMIT 50", "XLEN s", "XTRIM s MAXLEN ~ 10", "XLEN s", "XRANGE s - + COUNT 1",
			"XINFO STREAM s", "XTRIM s MAXLEN 10", "XRANGE s - + COUNT 1", "XADD s MAXLEN ~ 5 251 f 251", "XLEN s")},
		{name: "approx-minid", steps: steps(many(fill), "XDEL s 150 160 170", "XTRIM s MINID ~ 150", "XLEN s",
			"XTRIM s MINID ~ 220", "XLEN s", "XTRIM s MINID ~ 230 LIMIT 10", "XLEN s", "XTRIM s MINID = 230", "XLEN s",
			"XRANGE s - + COUNT 1", "XINFO STREAM s")},
		{name: "big-entries", steps: steps(many(big), "XTRIM b MAXLEN ~ 30", "XLEN b", "XTRIM b MAXLEN ~ 3", "XLEN b",
			"XRANGE b - + COUNT 1", "XINFO STREAM b")},
		{name: "mixed-fields", steps: steps(many(mixed), "XTRIM m MAXLEN ~ 30", "XLEN m", "XINFO STREAM m",
			"XDEL m 101 102", "XTRIM m MINID ~ 105", "XLEN m", "XRANGE m - + COUNT 2")},
		{name: "xdel-whole-node", steps: steps(many(fill[:110]), "XINFO STREAM s", many(func() []string {
			var d []string
			for i := 1; i <= 100; i++ {
				d = append(d, fmt.Sprintf("XDEL s %d", i))
			}
			return d
		}()), "XINFO STREAM s", "XTRIM s MAXLEN ~ 0", "XLEN s")},
	})
}

// TestDiffStreamRandom mixes stream commands at random (seeded) on a few
// keys and compares every reply.
func TestDiffStreamRandom(t *testing.T) {
	for seed := int64(1); seed <= 4; seed++ {
		r := rand.New(rand.NewSource(seed))
		var cmds []string
		nextID := 1
		for i := 0; i < 300; i++ {
			id := func() int { return 1 + r.Intn(nextID+2) }
			switch r.Intn(12) {
			case 0, 1, 2:
				var trim string
				switch r.Intn(6) {
				case 0:
					trim = fmt.Sprintf("MAXLEN ~ %d ", r.Intn(20))
				case 1:
					trim = fmt.Sprintf("MINID %d ", id())
				case 2:
					trim = fmt.Sprintf("MAXLEN %d ", 5+r.Intn(30))
				}
				fields := "f v"
				if r.Intn(3) == 0 {
					fields = fmt.Sprintf("g %d h %d", r.Intn(1000), r.Intn(5))
				}
				cmds = append(cmds, fmt.Sprintf("XADD s %s%d %s", trim, nextID, fields))
				nextID += 1 + r.Intn(2)
			case 3:
				cmds = append(cmds, fmt.Sprintf("XDEL s %d %d", id(), id()))
			case 4:
				cmds = append(cmds, fmt.Sprintf("XTRIM s MINID ~ %d", id()))
			case 5:
				cmds = append(cmds, fmt.Sprintf("XRANGE s %d + COUNT %d", id(), r.Intn(5)))
			case 6:
				cmds = append(cmds, fmt.Sprintf("XREVRANGE s + (%d COUNT %d", id(), 1+r.Intn(5)))
			case 7:
				cmds = append(cmds, fmt.Sprintf("XREADGROUP GROUP g c%d COUNT %d STREAMS s >", r.Intn(3), 1+r.Intn(4)))
			case 8:
				cmds = append(cmds, fmt.Sprintf("XACK s g %d %d", id(), id()))
			case 9:
				cmds = append(cmds, fmt.Sprintf("XCLAIM s g c%d 0 %d %d JUSTID", r.Intn(3), id(), id()))
			case 10:
				cmds = append(cmds, "XPENDING s g", "XINFO GROUPS s")
			case 11:
				cmds = append(cmds, fmt.Sprintf("XAUTOCLAIM s g c%d 0 0 COUNT %d JUSTID", r.Intn(3), 1+r.Intn(5)), "XLEN s")
			}
		}
		cmds = append(cmds, "XRANGE s - +", "XINFO STREAM s", "XINFO GROUPS s")
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			runDiffCases(t, []diffCase{{name: "random", steps: steps("XGROUP CREATE s g 0 MKSTREAM", many(cmds),
				nearly(100, "XINFO CONSUMERS s g"), nearly(100, "XPENDING s g - + 1000"))}})
		})
	}
}

func TestDiffStreamBlocking(t *testing.T) {
	C := func(conn int, items ...any) []h4Step { return h4On(conn, items...) }
	send, recv, await := h4SendOn, h4RecvOn, h4AwaitBlocked
	cases := []h4Case{
		{"xread-dollar", h4Script(
			C(0, "XADD s 1 a 1"),
			send(1, "XREAD BLOCK 0 STREAMS s $"), await(1),
			C(0, "XADD s 2 b 2", "XADD s 3 c 3"), recv(1), await(0),
		)},
		{"xread-missing-key", h4Script(
			send(1, "XREAD BLOCK 0 STREAMS s nokey $ $"), await(1),
			C(0, "XADD nokey 5 a 1"), recv(1),
		)},
		{"xread-several-waiters", h4Script(
			C(0, "XADD s 1 a 1"),
			send(1, "XREAD BLOCK 0 STREAMS s 1"), await(1),
			send(2, "XREAD BLOCK 0 COUNT 1 STREAMS s 1-0"), await(2),
			send(3, "XREAD BLOCK 0 STREAMS s 5"), await(3),
			C(0, "XADD s 2 b 2", "XADD s 3 c 3"), recv(1), recv(2), await(1),
			C(0, "XADD s 6 d 6"), recv(3), await(0),
		)},
		{"xread-timeout", h4Script(
			send(1, "XREAD BLOCK 50 STREAMS s $"), recv(1),
			send(1, "XREAD BLOCK 30 COUNT 1 STREAMS s t 0 0"), recv(1),
			C(0, "SET str v"), send(1, "XREAD BLOCK 30 STREAMS str $"), recv(1),
		)},
		{"xread-other-type-then-stream", h4Script(
			send(1, "XREAD BLOCK 0 STREAMS k 0"), await(1),
			C(0, "SET k v"), await(1),
			C(0, "DEL k", "XGROUP CREATE k g $ MKSTREAM"), await(1),
			C(0, "XADD k 1 a b"), recv(1),
		)},
		{"xread-inside-multi", h4Script(
			send(1, "XREAD BLOCK 0 STREAMS s 0"), await(1),
			C(0, "MULTI", "XADD s 1 a 1", "XADD s 2 b 2", "XDEL s 1", "EXEC"), recv(1),
		)},
		{"xreadgroup-waiters", h4Script(
			C(0, "XGROUP CREATE s g $ MKSTREAM"),
			send(1, "XREADGROUP GROUP g alice BLOCK 0 STREAMS s >"), await(1),
			send(2, "XREADGROUP GROUP g bob BLOCK 0 STREAMS s >"), await(2),
			C(0, "XADD s 1 a 1"), recv(1), await(1),
			C(0, "MULTI", "XADD s 2 b 2", "XADD s 3 c 3", "EXEC"), recv(2), await(0),
			C(0, "XPENDING s g"),
			send(1, "XREADGROUP GROUP g alice NOACK BLOCK 0 STREAMS s >"), await(1),
			C(0, "XADD s 4 d 4"), recv(1), C(0, "XPENDING s g"),
		)},
		{"xreadgroup-group-destroyed", h4Script(
			C(0, "XGROUP CREATE s g $ MKSTREAM"),
			send(1, "XREADGROUP GROUP g alice BLOCK 0 STREAMS s >"), await(1),
			C(0, "XGROUP DESTROY s g"), recv(1),
		)},
		{"xreadgroup-key-deleted", h4Script(
			C(0, "XGROUP CREATE s g $ MKSTREAM"),
			send(1, "XREADGROUP GROUP g alice BLOCK 0 STREAMS s >"), await(1),
			C(0, "DEL s"), recv(1),
			C(0, "XGROUP CREATE s g $ MKSTREAM"),
			send(1, "XREADGROUP GROUP g alice BLOCK 0 STREAMS s >"), await(1),
			C(0, "SET s v"), recv(1),
		)},
		{"xreadgroup-timeout", h4Script(
			C(0, "XGROUP CREATE s g $ MKSTREAM"),
			send(1, "XREADGROUP GROUP g alice BLOCK 40 STREAMS s >"), recv(1),
			C(0, "XINFO GROUPS s"),
		)},
		{"unsignaled-changes-serve-nobody", h4Script(
			C(0, "XADD s 5 a 1"),
			send(1, "XREAD BLOCK 0 STREAMS s $"), await(1),
			C(0, "XSETID s 10", "XGROUP CREATE s g 0", "XGROUP CREATECONSUMER s g c"), await(1),
			C(0, "XADD s 11 b 2"), recv(1),
			C(0, "XREADGROUP GROUP g c STREAMS s >"),
			send(2, "XREADGROUP GROUP g alice BLOCK 0 STREAMS s >"), await(1),
			C(0, "XGROUP SETID s g 0", "XACK s g 5"), await(1),
			C(0, "XADD s 12 c 3"), recv(2), await(0),
		)},
		{"stream-renamed-in", h4Script(
			C(0, "XADD src 7 a 1"),
			send(1, "XREAD BLOCK 0 STREAMS dst 0"), await(1),
			C(0, "RENAME src dst"), recv(1),
			C(0, "XADD src 9 b 2"),
			send(1, "XREAD BLOCK 0 STREAMS dst $"), await(1),
			C(0, "EXPIRE dst 100", "XDEL dst 7", "PERSIST dst"), await(1),
			C(0, "RENAME src dst"), recv(1),
			send(2, "XREAD BLOCK 0 STREAMS dst 100"), await(1),
			C(0, "XADD other 200 c 3", "COPY other dst REPLACE"), recv(2),
		)},
		{"flush-unblocks-group-readers", h4Script(
			C(0, "XGROUP CREATE s g $ MKSTREAM"),
			send(1, "XREADGROUP GROUP g alice BLOCK 0 STREAMS s >"), await(1),
			send(2, "XREAD BLOCK 0 STREAMS s $"), await(2),
			C(0, "FLUSHALL"), recv(1), await(1),
			C(0, "XADD s 1 a 1"), recv(2),
		)},
		{"swapdb", h4Script(
			C(0, "XADD s 5 a 1", "SELECT 1", "XADD s 10 b 2", "XGROUP CREATE s g 0", "SELECT 0", "XGROUP CREATE s g $"),
			send(1, "XREAD BLOCK 0 STREAMS s $"), await(1),
			send(2, "XREADGROUP GROUP g c BLOCK 0 STREAMS s >"), await(2),
			C(0, "SWAPDB 0 1"), recv(1), recv(2), await(0),
			send(2, "XREADGROUP GROUP g c BLOCK 0 STREAMS s >"), await(1),
			C(0, "SELECT 1", "SET s x", "SWAPDB 1 0"), recv(2),
		)},
		{"xread-huge-block", h4Script(
			send(1, "XREAD BLOCK 9223372036854775807 STREAMS s $"), await(1),
			C(0, "XADD s 1 a 1"), recv(1),
		)},
		{"watch", h4Script(func() []h4Step {
			// Which stream commands break a WATCH: those that signal the
			// key as modified (XADD, XDEL, XTRIM, a stream made by
			// XGROUP CREATE MKSTREAM), not the consumer group commands.
			var out []h4Step
			for _, cmd := range []string{"XADD s 9 a b", "XDEL s 1", "XDEL s 7", "XTRIM s MAXLEN 1", "XTRIM s MAXLEN 5",
				"XSETID s 50", "XGROUP CREATE s g2 0", "XGROUP CREATE s g3 0 MKSTREAM", "XGROUP CREATE n g 0 MKSTREAM",
				"XGROUP SETID s g 0", "XGROUP CREATECONSUMER s g x", "XGROUP DELCONSUMER s g c",
				"XREADGROUP GROUP g c STREAMS s >", "XREADGROUP GROUP g c STREAMS s 0", "XACK s g 1",
				"XCLAIM s g d 0 2", "XAUTOCLAIM s g e 0 0", "XGROUP DESTROY s g", "XREAD STREAMS s 0"} {
				key := "s"
				if strings.Contains(cmd, " n ") {
					key = "n"
				}
				out = append(out, C(0, "FLUSHALL", "XADD s 1 a 1", "XADD s 2 a 2", "XGROUP CREATE s g 0",
					"XREADGROUP GROUP g c STREAMS s >")...)
				out = append(out, C(1, "WATCH "+key)...)
				out = append(out, C(0, cmd)...)
				out = append(out, C(1, "MULTI", "PING", "EXEC")...)
			}
			return out
		}())},
		{"xread-and-xreadgroup-mixed", h4Script(
			C(0, "XGROUP CREATE s g $ MKSTREAM"),
			send(1, "XREADGROUP GROUP g alice BLOCK 0 STREAMS s >"), await(1),
			send(2, "XREAD BLOCK 0 STREAMS s $"), await(2),
			send(3, "XREADGROUP GROUP g bob BLOCK 0 STREAMS s >"), await(3),
			C(0, "XADD s 1 a 1"), recv(1), recv(2), await(1),
			C(0, "XADD s 2 a 2"), recv(3), await(0),
		)},
	}
	h4RunCases(t, newDiffPair(t, ""), cases)
}

// nearly is a step whose integers, at any depth, may differ by up to tol:
// idle times, delivery and seen times in stream replies.
func nearly(tol int64, cmd string) diffStep {
	return diffStep{args: splitCommand(cmd), cmp: func(a, b node) bool { return nearNodes(a, b, tol) }}
}

func nearNodes(a, b node, tol int64) bool {
	if a.typ != b.typ || a.blob != b.blob || len(a.elems) != len(b.elems) {
		return false
	}
	if a.line != b.line {
		x, err1 := strconv.ParseInt(a.line, 10, 64)
		y, err2 := strconv.ParseInt(b.line, 10, 64)
		if a.typ != ':' || err1 != nil || err2 != nil || x-y > tol || y-x > tol {
			return false
		}
	}
	for i := range a.elems {
		if !nearNodes(a.elems[i], b.elems[i], tol) {
			return false
		}
	}
	return true
}

// many makes one exact step of each command string.
func many(cmds []string) []diffStep {
	out := make([]diffStep, len(cmds))
	for i, c := range cmds {
		out[i] = diffStep{args: splitCommand(c)}
	}
	return out
}

// TestDiffStreamStats compares keyspace_hits and keyspace_misses after
// stream commands: which of them look keys up for reading, and how often
// (XREAD and XREADGROUP look every key up twice).
func TestDiffStreamStats(t *testing.T) {
	cases := []struct {
		name string
		cmds []string
	}{
		{"xread", []string{"XREAD STREAMS s t nokey 0 0 0", "XREAD STREAMS s $", "XREAD STREAMS str s 0 0",
			"XREAD STREAMS s nokey x 0"}},
		{"xreadgroup", []string{"XREADGROUP GROUP g c STREAMS s >", "XREADGROUP GROUP g c STREAMS s t > >",
			"XREADGROUP GROUP g c STREAMS s 0", "XREADGROUP GROUP g c STREAMS s $"}},
		{"reads", []string{"XLEN s", "XLEN nokey", "XRANGE s - +", "XREVRANGE nokey + -", "XRANGE s x +",
			"XINFO STREAM s", "XINFO STREAM nokey", "XINFO GROUPS s", "XINFO CONSUMERS s g", "XINFO STREAM s FOO"}},
		{"group-reads", []string{"XACK s g 1", "XACK nokey g 1", "XPENDING s g", "XPENDING s g - + 10",
			"XPENDING nokey g", "XPENDING s g x + 1", "XCLAIM s g c 0 1", "XCLAIM nokey g c 0 1", "XCLAIM s g c x 1",
			"XAUTOCLAIM s g c 0 0", "XAUTOCLAIM nokey g c 0 0", "XAUTOCLAIM s g c x 0", "XAUTOCLAIM str g c x 0"}},
		{"writes", []string{"XADD s 9 a b", "XDEL s 9", "XTRIM s MAXLEN 5", "XSETID s 20", "XGROUP CREATE s g2 0",
			"XGROUP SETID s g 0", "XGROUP DESTROY s g2"}},
	}
	p := newDiffPair(t, "")
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p.reset(t)
			setup := h4On(0, "XADD s 1 a 1", "XADD s 2 b 2", "XADD t 1 c 3", "SET str v", "XGROUP CREATE s g 0",
				"XGROUP CREATE t g 0", "CONFIG RESETSTAT")
			reportDiffs(t, h4Run(t, p, 2, h4Script(setup, h4On(0, many(tc.cmds)))))
			for _, field := range []string{"keyspace_hits", "keyspace_misses"} {
				r, l := infoField(t, p.redisCtl, "stats", field), infoField(t, p.lockCtl, "stats", field)
				if r != l || r == "" {
					t.Errorf("INFO %s: redis %q, lockredis %q", field, r, l)
				}
			}
		})
	}
}

// TestDiffStreamEvents compares the keyspace events of the stream
// commands (class t: xadd, xtrim, xdel, xsetid, xgroup-*), in order,
// blocked readers included.
func TestDiffStreamEvents(t *testing.T) {
	C := func(conn int, items ...any) []h4Step { return h4On(conn, items...) }
	send, recv, await := h4SendOn, h4RecvOn, h4AwaitBlocked
	cases := []h4Case{
		{"writes", h4Script(
			C(0, "XADD s 1 a 1", "XADD s MAXLEN 1 2 a 2", "XADD s MAXLEN 5 3 a 3", "XADD s NOMKSTREAM 4 a 4",
				"XADD nokey NOMKSTREAM 1 a 1", "XADD s 1 a 1", "XDEL s 3 9", "XDEL s 9", "XTRIM s MAXLEN 0",
				"XTRIM s MAXLEN 0", "XSETID s 10", "XSETID s 5", "XADD s MAXLEN ~ 0 11 a 1"),
		)},
		{"groups", h4Script(
			C(0, "XGROUP CREATE s g $ MKSTREAM", "XGROUP CREATE s g $", "XADD s 1 a 1", "XADD s 2 a 2",
				"XGROUP CREATECONSUMER s g c", "XGROUP CREATECONSUMER s g c",
				"XREADGROUP GROUP g c COUNT 1 STREAMS s >", "XREADGROUP GROUP g d STREAMS s >",
				"XREADGROUP GROUP g e STREAMS s >", "XREADGROUP GROUP g e STREAMS s 0", "XACK s g 1",
				"XCLAIM s g f 0 2", "XCLAIM s g f 0 2", "XCLAIM s g h 99999 2", "XAUTOCLAIM s g i 0 0",
				"XAUTOCLAIM s g j 99999 0", "XGROUP SETID s g 0", "XGROUP DELCONSUMER s g c",
				"XGROUP DELCONSUMER s g c", "XGROUP DESTROY s g", "XGROUP DESTROY s g",
				"MULTI", "XADD s 3 a 3", "XGROUP CREATE s g2 0", "XREADGROUP GROUP g2 x STREAMS s >", "EXEC",
				"EVAL \"return redis.call('XADD', KEYS[1], '9', 'a', 'b')\" 1 s"),
		)},
		{"served-waiters", h4Script(
			C(0, "XGROUP CREATE s g $ MKSTREAM"),
			send(1, "XREADGROUP GROUP g newc BLOCK 0 STREAMS s >"), await(1),
			send(2, "XREAD BLOCK 0 STREAMS s $"), await(2),
			C(0, "XADD s MAXLEN 5 1 a 1"), recv(1), recv(2), await(0),
		)},
	}
	runEventCases(t, cases, "stream-marker", []string{"PSUBSCRIBE", "__keyevent@0__:x*", "__keyspace@0__:s"})
}

// TestDiffStreamCluster: in cluster mode the keys of XREAD and XREADGROUP
// (after STREAMS) must share a slot.
func TestDiffStreamCluster(t *testing.T) {
	p := newClusterDiffPair(t)
	runDiffCasesOn(t, p, []diffCase{{name: "crossslot", steps: steps(
		"XADD {s}a 1 f v", "XADD {s}b 1 f v", "XREAD STREAMS {s}a {s}b 0 0", "XREAD STREAMS a b 0 0",
		"XGROUP CREATE {s}a g 0", "XGROUP CREATE {s}b g 0", "XREADGROUP GROUP g c STREAMS {s}a {s}b > >",
		"XREADGROUP GROUP g c STREAMS a {s}b > >", "XREAD COUNT 1 STREAMS a",
	)}})
}
