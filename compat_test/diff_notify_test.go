package compat

// Keyspace notifications, compared with redis-server: each case runs the
// same commands on both servers with notify-keyspace-events set, and the
// stream of messages a subscriber of __key*__:* received must be the same,
// byte for byte and in the same order. Each case runs three ways:
//
//	resp2, resp3  a separate subscriber connection (RESP2, then RESP3)
//	              watches a RESP2 (RESP3) connection running the commands
//	self          one RESP3 connection subscribes and runs the commands:
//	              Redis writes each push where the command raised it, in
//	              the middle of the reply (inside EXEC's array, before a
//	              script's reply), so the whole byte stream is compared
//
// The pair expires keys lazily (newLazyExpiryPair) so that what expires
// when depends on the commands alone; TestDiffNotifyActiveExpiry has the
// background expiry.

import (
	"bytes"
	"sort"
	"strings"
	"testing"
	"time"
)

// notifyCase is a case of the keyspace notification harness. setup runs
// before the subscriber listens; cmds are strings (one command each, as in
// steps) or a time.Duration to sleep (a key's time passing).
type notifyCase struct {
	name   string
	events []string // notify-keyspace-events values to run with; none: KEA and KEAnm
	setup  []string
	cmds   []any
	// unordered compares the messages as a multiset: keys the background
	// expiry deletes in one cycle come in any order.
	unordered bool
	noSelf    bool // BLPOP and friends, which a subscribed RESP3 client may run but would block
}

// notifyPattern is what the subscriber listens to; notifySentinel, on a
// channel it matches, marks the end of a case's messages.
const (
	notifyPattern  = "__key*__:*"
	notifySentinel = "__keyevent@99__:end-of-case"
)

func TestDiffNotify(t *testing.T) {
	p := newLazyExpiryPair(t)
	runNotifyCases(t, p, notifyCases)
}

var notifyCases = []notifyCase{
	// tests/unit/pubsub.tcl, "Keyspace notifications: ..."
	{name: "tcl keyspace", events: []string{"KA"}, cmds: []any{"SET foo bar"}},
	{name: "tcl keyevent", events: []string{"EA"}, cmds: []any{"SET foo bar"}},
	{name: "tcl both kinds", events: []string{"KEA"}, cmds: []any{"SET foo bar"}},
	{name: "tcl mask", events: []string{"KEl"}, cmds: []any{"DEL mylist", "SET foo bar", "LPUSH mylist a"}},
	{name: "tcl general", events: []string{"KEg"}, cmds: []any{"SET foo bar", "EXPIRE foo 1", "DEL foo"}},
	{name: "tcl list", events: []string{"KEl"}, cmds: []any{"LPUSH mylist a", "RPUSH mylist a", "RPOP mylist"}},
	{name: "tcl set", events: []string{"Ks"}, cmds: []any{"SADD myset a b c d", "SREM myset x", "SADD myset x y z", "SREM myset x"}},
	{name: "tcl zset", events: []string{"Kz"}, cmds: []any{"ZADD myzset 1 a 2 b", "ZREM myzset x", "ZADD myzset 3 x 4 y 5 z", "ZREM myzset x"}},
	{name: "tcl hash", events: []string{"Kh"}, cmds: []any{"HMSET myhash yes 1 no 0", "HINCRBY myhash yes 10"}},
	{name: "tcl expired triggered", events: []string{"Ex"}, cmds: []any{"PSETEX foo 100 1", 150 * time.Millisecond, "EXISTS foo"}},
	{name: "tcl new key", events: []string{"En"}, cmds: []any{"SET foo bar", "SET foo baz", "SET bar bar"}},
	{name: "tcl config flags", events: []string{"gKE"}, cmds: []any{
		"CONFIG GET notify-keyspace-events",
		"CONFIG SET notify-keyspace-events $lshzxeKE", "CONFIG GET notify-keyspace-events",
		"CONFIG SET notify-keyspace-events KA", "CONFIG GET notify-keyspace-events",
		"CONFIG SET notify-keyspace-events EA", "CONFIG GET notify-keyspace-events",
		"SET foo bar", "CONFIG SET notify-keyspace-events KEA"}},

	// Variants of the setting.
	{name: "variants", events: []string{"Ex", "Kgx", "KEAn", "Em", "KEA", "Kg$", "E$lshz", "K", "E", "A", "nK"}, cmds: []any{
		"SET a 1", "SET a 2 PX 1", 10 * time.Millisecond, "GET a", "GET missing", "LPUSH l x", "DEL l", "INCR n"}},

	// Strings.
	{name: "set options", cmds: []any{
		"SET k v", "SET k v2 EX 100", "SET k v3 PX 100000 GET", "SET k v KEEPTTL", "SET k v NX", "SET k v XX",
		"SET new v XX", "SET k2 v NX PXAT 99999999999999", "SETNX k v", "SETNX k3 v", "SETEX k4 100 v", "PSETEX k5 1000 v",
		"SET k v EX 0", "SET k v EX abc"}},
	{name: "set get wrongtype", cmds: []any{"LPUSH l a", "SET l v GET", "SET l v", "GET missing", "SET missing v GET"}},
	{name: "getset getdel getex", cmds: []any{
		"GETSET k v", "GETSET k w", "GETDEL k", "GETDEL k", "SET k v", "GETEX k", "GETEX k EX 100",
		"GETEX k PERSIST", "GETEX k PERSIST", "GETEX k PXAT 1", "GETEX k EX 10", "GETEX missing PX 10"}},
	{name: "mset msetnx", cmds: []any{"MSET a 1 b 2 a 3", "MSETNX a 1 c 3", "MSETNX c 3 d 4", "MSET a"}},
	{name: "counters", cmds: []any{
		"INCR n", "INCRBY n 10", "DECR n", "DECRBY n 2", "INCRBYFLOAT n 1.5", "INCRBYFLOAT f 2",
		"SET s abc", "INCR s", "INCRBYFLOAT s 1", "SET big 9223372036854775807", "INCR big"}},
	{name: "append setrange", cmds: []any{
		"APPEND k abc", "APPEND k def", "SETRANGE k 1 X", "SETRANGE k 0 \"\"", "SETRANGE new 0 \"\"",
		"SETRANGE new2 3 x", "LPUSH l a", "APPEND l x", "SETRANGE l 0 x"}},
	{name: "reads miss", events: []string{"KEAm", "Em"}, cmds: []any{
		"GET missing", "MGET a b", "SET a 1", "MGET a b", "STRLEN x", "GETRANGE x 0 1", "EXISTS x y", "TYPE x",
		"TTL x", "PTTL x", "HGET h f", "HGETALL h", "LRANGE l 0 -1", "LLEN l", "SMEMBERS s", "SISMEMBER s a",
		"ZRANGE z 0 -1", "ZSCORE z a", "OBJECT ENCODING x", "TOUCH x", "SET x 1 GET", "GETEX y", "COPY y z"}},

	// Lock scripts that run as Go (luasvc/native.go) raise the events of
	// their redis.calls, as the Lua does.
	{name: "native lock scripts", events: []string{"KEA", "KEAn"}, cmds: []any{
		"SET lock tok PX 30000",
		`EVAL 'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("pexpire", KEYS[1], ARGV[2]) else return 0 end' 1 lock tok 60000`,
		`EVAL 'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end' 1 lock other`,
		`EVAL 'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end' 1 lock tok`,
		"EVAL \"if ((redis.call('exists', KEYS[1]) == 0) or (redis.call('hexists', KEYS[1], ARGV[2]) == 1)) then " +
			"redis.call('hincrby', KEYS[1], ARGV[2], 1); redis.call('pexpire', KEYS[1], ARGV[1]); return nil; end; " +
			"return redis.call('pttl', KEYS[1]);\" 1 rlock 30000 uuid-1:1",
		`EVAL 'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end' 1 rlock tok`}},
	{name: "bitmaps", events: []string{"KEA", "KEAn", "Eg$m"}, cmds: []any{
		"SETBIT b 7 1", "SETBIT b 7 1", "SETBIT b 100 0", "BITOP OR d b", "BITOP AND d missing", "BITOP AND e missing",
		"BITFIELD f SET u8 0 255", "BITFIELD f GET u8 0", "BITFIELD f INCRBY u8 0 1 OVERFLOW FAIL INCRBY u8 0 1"}},

	// Generic.
	{name: "del unlink", cmds: []any{"SET a 1", "SET b 2", "DEL a a b c", "SET c 1", "UNLINK c d"}},
	{name: "expire family", cmds: []any{
		"SET k v", "EXPIRE k 100", "PEXPIRE k 100000", "EXPIREAT k 99999999999", "PEXPIREAT k 99999999999999",
		"EXPIRE k 100 NX", "EXPIRE k 200 XX", "EXPIRE k 50 GT", "EXPIRE k 50 LT", "PERSIST k", "PERSIST k",
		"EXPIRE missing 10", "EXPIRE k -1", "EXISTS k", "SET k v", "PEXPIREAT k 1", "SET k v", "EXPIREAT k 0"}},
	{name: "rename", cmds: []any{
		"SET a 1", "RENAME a b", "RENAME b b", "SET c 2", "RENAME b c", "RENAMENX c d", "SET e 1", "RENAMENX d e",
		"RENAME missing x", "SET t 1 PX 100000", "RENAME t u"}},
	{name: "move copy", cmds: []any{
		"SET a 1", "MOVE a 1", "MOVE a 1", "SELECT 1", "MOVE a 0", "SELECT 0", "COPY a b", "COPY a b",
		"COPY a b REPLACE", "COPY a b DB 2", "COPY a a", "COPY missing b", "SET c 1", "MOVE c 1", "SET c 2", "MOVE c 1"}},
	{name: "other databases", cmds: []any{"SELECT 3", "SET k v", "LPUSH l a", "DEL k", "EXPIRE l 0", "SELECT 0"}},
	{name: "swapdb flush", cmds: []any{"SET a 1", "SELECT 1", "SET b 2", "SWAPDB 0 1", "SELECT 0", "DEL b",
		"FLUSHDB", "SET c 1", "FLUSHALL", "SET d 1"}},

	// Hashes.
	{name: "hash", cmds: []any{
		"HSET h a 1 b 2", "HSET h a 1", "HMSET h c 3", "HSETNX h a 9", "HSETNX h d 4", "HSETNX h2 x 1",
		"HINCRBY h a 5", "HINCRBYFLOAT h a 0.5", "HINCRBYFLOAT h3 f 1", "HINCRBY h4 f 1", "HDEL h zz", "HDEL h a b",
		"HDEL h c d", "HDEL h2 x", "SET s v", "HSET s a 1", "HINCRBY h3 f x", "HINCRBY h3 f 9223372036854775807"}},

	// Lists.
	{name: "list push pop", cmds: []any{
		"LPUSH l a b c", "RPUSH l d", "LPUSHX l e", "RPUSHX l f", "LPUSHX nol a", "RPUSHX nol a", "LPOP l", "RPOP l",
		"LPOP l 2", "RPOP l 0", "RPOP l 5", "LPOP l", "LPOP l 1", "RPUSH m a", "RPOP m", "SET s v", "LPUSH s a"}},
	{name: "list edit", cmds: []any{
		"RPUSH l a b c b", "LSET l 0 x", "LSET l 9 x", "LSET nol 0 x", "LINSERT l BEFORE b y", "LINSERT l AFTER zz y",
		"LINSERT nol AFTER a b", "LREM l 1 b", "LREM l 0 zz", "LTRIM l 0 -1", "LTRIM l 1 2", "LTRIM l 5 10",
		"LTRIM nol 0 1", "RPUSH m a a", "LREM m 0 a"}},
	{name: "lmove", cmds: []any{
		"RPUSH a 1 2 3", "LMOVE a b LEFT RIGHT", "LMOVE a b RIGHT LEFT", "RPOPLPUSH a b", "RPOPLPUSH a b",
		"LMOVE b b LEFT RIGHT", "RPUSH c 1", "LMOVE c c LEFT LEFT", "LMOVE missing b LEFT LEFT", "SET s v",
		"LMOVE b s LEFT LEFT", "LMOVE b a LEFT LEFT"}},
	{name: "blocking pops served at once", noSelf: true, cmds: []any{
		"RPUSH a 1 2", "BLPOP a 1", "BRPOP a 1", "RPUSH b 1", "BLMOVE b c LEFT RIGHT 1", "BRPOPLPUSH c d 1",
		"BLPOP e 0.01"}},

	// Sets.
	{name: "set", cmds: []any{
		"SADD s a b c", "SADD s a", "SREM s zz", "SREM s a", "SREM s b c", "SADD s 1 2 3", "SPOP s 0",
		"SPOP s 5", "SPOP s", "SPOP s 1", "SADD t x", "SPOP t", "SADD u 1 2", "SPOP u 2", "SADD v 1", "SPOP v 1"}},
	{name: "smove", cmds: []any{
		"SADD a 1 2", "SADD b 2", "SMOVE a b 1", "SMOVE a b 2", "SMOVE a c 9", "SMOVE b b 1", "SMOVE b c 1",
		"SMOVE missing c 1", "SET s v", "SMOVE b s 2"}},

	// Sorted sets.
	{name: "zset", cmds: []any{
		"ZADD z 1 a 2 b", "ZADD z 1 a", "ZADD z CH 5 a", "ZADD z XX 3 b", "ZADD z NX 3 b", "ZADD z GT 1 b",
		"ZADD z2 XX 1 a", "ZINCRBY z 2 a", "ZADD z INCR 1 c", "ZADD z NX INCR 1 c", "ZINCRBY z3 1 m",
		"ZREM z zz", "ZREM z a", "ZREM z3 m", "ZADD z nan a"}},
	{name: "zset ranges pops", cmds: []any{
		"ZADD z 1 a 2 b 3 c 4 d 5 e 6 f", "ZREMRANGEBYRANK z 0 0", "ZREMRANGEBYRANK z 10 20",
		"ZREMRANGEBYSCORE z 2 2", "ZREMRANGEBYSCORE z 100 200", "ZREMRANGEBYLEX z [d [d", "ZPOPMIN z",
		"ZPOPMAX z", "ZPOPMIN z 0", "ZPOPMIN missing", "ZPOPMAX z 5", "ZADD y 0 a 0 b", "ZREMRANGEBYLEX y - +",
		"ZADD x 1 a", "ZPOPMIN x 1"}},

	// Expiry found by a command (lazy expiry). PEXPIRE l 5, not 1: a
	// 1 ms deadline can already be past when redis-server runs it, and
	// then it deletes the key (a "del" event) instead of "expire".
	{name: "lazy expired", cmds: []any{
		"SET a 1 PX 1", "SET b 1 PX 1", "LPUSH l x", "PEXPIRE l 5", "SET c 1 PX 1", "SET d 1 PX 1",
		"SET e 1 PX 1", "SET f 1 PX 1", "SET g 1 PX 1", "SET h 1 PX 1",
		20 * time.Millisecond,
		"GET a", "MGET b b", "LPUSH l y", "SET c 2", "DEL d", "EXISTS e", "MSET f 2", "TTL g", "INCR h"}},
	{name: "lazy expired scan", events: []string{"KEA", "Ex", "Exm"}, cmds: []any{
		// One expired key a SCAN: Redis meets them in its hash table's order.
		"SET a 1 PX 1", "SET b 1", 20 * time.Millisecond, "SCAN 0 COUNT 100",
		"SET a 1 PX 1", 20 * time.Millisecond, "SCAN 0 TYPE string COUNT 100", "SCAN 0 TYPE list COUNT 100"}},
	{name: "lazy expired randomkey", events: []string{"KEA", "Exm"}, cmds: []any{
		"SET a 1 PX 1", 20 * time.Millisecond, "RANDOMKEY", "RANDOMKEY"}},

	// Transactions and scripts: events come in the order of the commands,
	// and to a RESP3 subscriber running them, in the middle of the reply.
	{name: "multi", cmds: []any{
		"MULTI", "SET a 1", "LPUSH l x", "INCR a", "DEL a l", "EXEC"}},
	{name: "multi with error", cmds: []any{
		"SET s v", "MULTI", "SET a 1", "LPUSH s x", "EXPIRE a 100", "EXEC"}},
	{name: "multi discard", cmds: []any{"MULTI", "SET a 1", "DISCARD", "SET b 1"}},
	{name: "eval", cmds: []any{
		"EVAL \"redis.call('set','a','1') redis.call('lpush','l','x') redis.call('del','a') return 1\" 0",
		"EVAL \"redis.call('incr','n') return redis.call('get','missing')\" 0",
		"EVAL \"redis.call('set','b','1') redis.call('lpush','b','x') return 1\" 0",
		"EVAL \"return redis.call('get','b')\" 0"}},
	{name: "eval error", cmds: []any{
		"SET s v", "EVAL \"redis.call('set','a','1') redis.call('lpush','s','x') redis.call('set','b','1')\" 0",
		"EVAL \"redis.call('del','a') return redis.pcall('incr','s')\" 0", "EVAL_RO \"return redis.call('get','a')\" 0"}},
	{name: "watch aborted", cmds: []any{"SET w 1", "WATCH w", "SET w 2", "MULTI", "SET a 1", "EXEC", "SET b 1"}},
	{name: "multi eval", cmds: []any{
		"MULTI", "SET a 1", "EVAL \"redis.call('set','b','1') return redis.call('incr','a')\" 0", "GET missing", "EXEC"}},
}

func runNotifyCases(t *testing.T, p *diffPair, cases []notifyCase) {
	t.Helper()
	for _, tc := range cases {
		events := tc.events
		if len(events) == 0 {
			events = []string{"KEA", "KEAnm"}
		}
		t.Run(tc.name, func(t *testing.T) {
			for _, ev := range events {
				for _, mode := range []string{"resp2", "resp3", "self"} {
					if mode == "self" && tc.noSelf {
						continue
					}
					want := notifyRun(t, p, p.redisCtl, p.redisAddr, tc, ev, mode)
					got := notifyRun(t, p, p.lockCtl, p.lockAddr, tc, ev, mode)
					if tc.unordered {
						sort.Strings(want)
						sort.Strings(got)
					}
					if strings.Join(want, "") != strings.Join(got, "") {
						t.Errorf("%s %s: events differ\nredis-server:\n%s\nlockredis:\n%s",
							ev, mode, showFrames(want), showFrames(got))
					}
				}
			}
		})
	}
}

// showFrames prints one frame a line, quoted.
func showFrames(fs []string) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString("  ")
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(f, "\r\n", " "), "\n", " "))
		b.WriteString("\n")
	}
	return b.String()
}

// notifyRun runs one case on one server and returns what is compared: the
// replies to the commands, then the subscriber's messages (mode "resp2",
// "resp3"), or the whole byte stream of the connection (mode "self").
func notifyRun(t *testing.T, p *diffPair, ctl *rawConn, addr string, tc notifyCase, events, mode string) []string {
	t.Helper()
	if r := ctl.do(t, "FLUSHALL"); r != "+OK\r\n" {
		t.Fatalf("FLUSHALL: %q", r)
	}
	if r := ctl.do(t, "CONFIG", "SET", "notify-keyspace-events", events); r != "+OK\r\n" {
		t.Fatalf("CONFIG SET notify-keyspace-events %s: %q", events, r)
	}
	proto := 2
	if mode != "resp2" {
		proto = 3
	}
	cmd := dialRaw(t, addr)
	defer cmd.c.Close()
	if proto == 3 {
		helloResp3(t, cmd, "")
	}
	for _, s := range tc.setup {
		cmd.do(t, splitCommand(s)...)
	}
	var out []string
	if mode == "self" {
		cmd.do(t, "PSUBSCRIBE", notifyPattern)
		// The commands are pipelined; the stream is read up to the reply
		// to a PING, replies and pushes as they came. Pushes may sit
		// inside another reply (EXEC), so it is read as bytes.
		var buf []byte
		chunk := make([]byte, 4096)
		ping := func() {
			cmd.c.Write(encodeCommand([]string{"PING"}))
			cmd.c.SetDeadline(time.Now().Add(replyTimeout))
			for !bytes.HasSuffix(buf, []byte("+PONG\r\n")) {
				n, err := cmd.c.Read(chunk)
				buf = append(buf, chunk[:n]...)
				if err != nil {
					t.Fatalf("%s: reading the stream: %v (read %q)", addr, err, buf)
				}
			}
		}
		for _, c := range tc.cmds {
			if d, ok := c.(time.Duration); ok {
				ping() // the server has run what came before the sleep
				time.Sleep(d)
				continue
			}
			cmd.c.Write(encodeCommand(splitCommand(c.(string))))
		}
		ping()
		return strings.SplitAfter(string(buf), "\r\n")
	}
	sub := dialRaw(t, addr)
	defer sub.c.Close()
	if proto == 3 {
		helloResp3(t, sub, "")
	}
	sub.do(t, "PSUBSCRIBE", notifyPattern)
	for _, c := range tc.cmds {
		if d, ok := c.(time.Duration); ok {
			time.Sleep(d)
			continue
		}
		out = append(out, cmd.do(t, splitCommand(c.(string))...))
	}
	// Redis (and lockredis) deliver in order: the sentinel comes last.
	cmd.do(t, "PUBLISH", notifySentinel, "x")
	var msgs []string
	for {
		sub.c.SetDeadline(time.Now().Add(replyTimeout))
		m, err := readReply(sub.r)
		if err != nil {
			t.Fatalf("%s: reading messages: %v (so far %q)", addr, err, msgs)
		}
		if strings.Contains(string(m), notifySentinel) {
			break
		}
		msgs = append(msgs, string(m))
	}
	if !tc.unordered {
		return append(out, msgs...)
	}
	return msgs
}

// TestDiffNotifyActiveExpiry: keys deleted by the background expiry raise
// "expired" too (pubsub.tcl's "expired events (background expire)").
func TestDiffNotifyActiveExpiry(t *testing.T) {
	p := newDiffPair(t, "")
	runNotifyCases(t, p, []notifyCase{
		{name: "tcl expired background", events: []string{"Ex"}, cmds: []any{"PSETEX foo 100 1", 600 * time.Millisecond}},
		{name: "several keys", events: []string{"KEA", "Egx"}, unordered: true, cmds: []any{
			"SET a 1 PX 20", "HSET h f v", "PEXPIRE h 30", "SET c 1 PX 100000", 600 * time.Millisecond}},
	})
}

// TestDiffNotifyBlocked: a client blocked in BLPOP (BLMOVE...) served by
// another client's push raises the pop's events after the push's, as
// Redis's handleClientsBlockedOnKeys does.
func TestDiffNotifyBlocked(t *testing.T) {
	p := newDiffPair(t, "")
	for _, tc := range []struct {
		name          string
		block, pushes []string
	}{
		{"blpop", []string{"BLPOP", "l", "0"}, []string{"RPUSH l a b"}},
		{"brpop emptied", []string{"BRPOP", "x", "l", "0"}, []string{"LPUSH l a"}},
		{"blmove", []string{"BLMOVE", "l", "d", "LEFT", "RIGHT", "0"}, []string{"RPUSH l a"}},
		{"brpoplpush", []string{"BRPOPLPUSH", "l", "d", "0"}, []string{"RPUSH d x", "RPUSH l a b"}},
		{"in multi", []string{"BLPOP", "l", "0"}, []string{"MULTI", "RPUSH l a", "SET k v", "EXEC"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// self: the pusher is a RESP3 client subscribed to the events,
			// which come after its reply (the served client's after its
			// command), and its whole stream is compared.
			run := func(ctl *rawConn, addr string, self bool) []string {
				ctl.do(t, "FLUSHALL")
				ctl.do(t, "CONFIG", "SET", "notify-keyspace-events", "KEAn")
				sub, blocker, pusher := dialRaw(t, addr), dialRaw(t, addr), dialRaw(t, addr)
				if self {
					helloResp3(t, pusher, "")
					sub = pusher
				}
				sub.do(t, "PSUBSCRIBE", notifyPattern)
				blocker.c.Write(encodeCommand(tc.block))
				// Wait until the server has the client blocked.
				for i := 0; ; i++ {
					if r := ctl.do(t, "INFO", "clients"); strings.Contains(r, "blocked_clients:1") {
						break
					}
					if i == 500 {
						t.Fatalf("%s: the client never blocked", addr)
					}
					time.Sleep(2 * time.Millisecond)
				}
				var out []string
				for _, c := range tc.pushes {
					if self {
						pusher.c.Write(encodeCommand(splitCommand(c)))
						continue
					}
					out = append(out, pusher.do(t, splitCommand(c)...))
				}
				blocker.c.SetDeadline(time.Now().Add(replyTimeout))
				r, err := readReply(blocker.r)
				if err != nil {
					t.Fatalf("%s: blocked reply: %v", addr, err)
				}
				out = append(out, string(r))
				if self {
					pusher.c.Write(encodeCommand([]string{"PUBLISH", notifySentinel, "x"}))
				} else {
					pusher.do(t, "PUBLISH", notifySentinel, "x")
				}
				for {
					sub.c.SetDeadline(time.Now().Add(replyTimeout))
					m, err := readReply(sub.r)
					if err != nil {
						t.Fatalf("%s: reading messages: %v", addr, err)
					}
					if strings.Contains(string(m), notifySentinel) {
						return out
					}
					out = append(out, string(m))
				}
			}
			for _, self := range []bool{false, true} {
				want, got := run(p.redisCtl, p.redisAddr, self), run(p.lockCtl, p.lockAddr, self)
				if strings.Join(want, "") != strings.Join(got, "") {
					t.Errorf("self %v: events differ\nredis-server:\n%s\nlockredis:\n%s", self, showFrames(want), showFrames(got))
				}
			}
		})
	}
}

// TestDiffNotifyGeoHLL: the keyspace events of the GEO and HyperLogLog
// commands (GEOADD's are ZADD's; the STORE variants' "georadiusstore",
// "geosearchstore" or "del"; PFADD's and PFMERGE's "pfadd"; the misses of
// their read lookups), compared with redis-server's.
func TestDiffNotifyGeoHLL(t *testing.T) {
	p := newLazyExpiryPair(t)
	runNotifyCases(t, p, []notifyCase{
		{name: "geo", cmds: []any{
			"GEOADD g 13.361389 38.115556 Palermo 15.087269 37.502669 Catania", "GEOADD g 13.361389 38.115556 Palermo",
			"GEOADD g XX 1 1 nope", "GEOADD g CH 1 1 Palermo", "GEOADD nokey XX 1 1 a", "GEOADD g 200 1 x",
			"GEOSEARCHSTORE d g FROMLONLAT 15 37 BYRADIUS 500 km", "GEORADIUS g 15 37 500 km STORE d2",
			"GEORADIUSBYMEMBER g Catania 500 km STOREDIST d2", "GEOSEARCHSTORE d g FROMLONLAT 15 37 BYRADIUS 1 m",
			"GEORADIUS nokey 15 37 200 km STORE d2", "GEORADIUS nokey 15 37 200 km STORE d2",
			"GEOSEARCHSTORE d nokey FROMMEMBER x BYRADIUS 1 m", "GEOSEARCHSTORE d g FROMMEMBER nope BYRADIUS 1 m",
		}},
		{name: "geo reads", cmds: []any{
			"GEOADD g 13.361389 38.115556 Palermo", "GEOPOS nokey a", "GEOPOS g Palermo", "GEODIST nokey a b",
			"GEOHASH nokey a", "GEOSEARCH nokey FROMMEMBER a BYRADIUS 1 km", "GEORADIUS_RO nokey 1 1 1 km",
			"GEORADIUSBYMEMBER_RO nokey a 1 km", "GEODIST g Palermo nope",
		}},
		{name: "hll", cmds: []any{
			"PFADD h a b", "PFADD h a", "PFCOUNT h", "PFCOUNT h", "PFADD e", "PFCOUNT nokey", "PFCOUNT h nokey",
			"PFMERGE m h", "PFMERGE m2 nokey", "PFMERGE m", "PFDEBUG TODENSE m", "PFDEBUG GETREG nokey",
			"PFDEBUG ENCODING h", "SET s foo", "PFADD s a", "PFMERGE m s",
		}},
		{name: "geo hll multi eval", cmds: []any{
			"MULTI", "GEOADD g 1 1 a", "GEOSEARCHSTORE d g FROMLONLAT 1 1 BYRADIUS 1 km", "PFADD h x", "PFMERGE m h", "EXEC",
			"EVAL \"redis.call('GEOADD', KEYS[1], 2, 2, 'b'); return redis.call('PFADD', KEYS[2], 'y')\" 2 g h",
		}},
	})
}
