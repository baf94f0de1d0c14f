package compat

import (
	"strings"
	"testing"

	"github.com/lockredis/lockredis/engine"
	"github.com/lockredis/lockredis/luasvc"
	"github.com/lockredis/lockredis/pubsub"
)

// ACL users and permissions against redis-server, in RESP2 and RESP3.
// Users outlive FLUSHALL, so every case starts from the default user
// alone and an empty ACL LOG (aclReset).

// aclReset deletes every user but default, gives default back its
// rules and empties the ACL log, on both servers.
func aclReset(t *testing.T, p *diffPair) {
	t.Helper()
	for _, c := range []*rawConn{p.redisCtl, p.lockCtl} {
		users := c.do(t, "ACL", "USERS")
		for _, line := range strings.Split(users, "\r\n") {
			if line == "" || line[0] == '*' || line[0] == '$' || line == "default" {
				continue
			}
			c.do(t, "ACL", "DELUSER", line)
		}
		pass := "nopass"
		if p.password != "" {
			pass = ">" + p.password
		}
		if r := c.do(t, "ACL", "SETUSER", "default", "reset", "on", pass, "~*", "&*", "+@all"); r != "+OK\r\n" {
			t.Fatalf("resetting default: %q", r)
		}
		c.do(t, "ACL", "LOG", "RESET")
	}
}

// runACLCases is runDiffCasesOn with aclReset before each run.
func runACLCases(t *testing.T, p *diffPair, cases []diffCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			forEachProto(t, func(t *testing.T, proto int) {
				p.reset(t)
				aclReset(t, p)
				reportDiffs(t, runSteps(t, p, proto, tc.steps))
			})
		})
	}
}

// aclLog is an ACL LOG step compared without what cannot match: each
// entry's age-seconds and client-info (addresses, ids, ages).
func aclLog(cmd string) diffStep {
	return diffStep{args: splitCommand(cmd), cmp: func(a, b node) bool {
		return stripLogNoise(a).canonicalOrdered() == stripLogNoise(b).canonicalOrdered()
	}}
}

// stripLogNoise blanks the values of age-seconds and client-info in the
// entries of an ACL LOG reply.
func stripLogNoise(n node) node {
	out := n
	out.elems = make([]node, len(n.elems))
	for i, e := range n.elems {
		entry := e
		entry.elems = append([]node(nil), e.elems...)
		for j := 0; j+1 < len(entry.elems); j += 2 {
			if k := entry.elems[j].blob; k == "age-seconds" || k == "client-info" {
				entry.elems[j+1] = node{typ: '?'}
			}
		}
		out.elems[i] = entry
	}
	return out
}

// canonicalOrdered renders a reply keeping its order.
func (n node) canonicalOrdered() string {
	s := string(n.typ) + n.line + "\r\n" + n.blob
	for _, e := range n.elems {
		s += e.canonicalOrdered()
	}
	return s
}

func TestDiffACL(t *testing.T) {
	p := newDiffPair(t, "")
	runACLCases(t, p, []diffCase{
		{name: "default-user", steps: steps(
			"ACL WHOAMI", "ACL USERS", "ACL LIST", "ACL GETUSER default", "ACL GETUSER nosuch",
			"ACL CAT", "ACL CAT nosuch", "ACL CAT a b", "ACL HELP", "ACL NOSUCH", "ACL",
		)},
		{name: "setuser-passwords", steps: steps(
			"ACL SETUSER alice", "ACL GETUSER alice", "ACL LIST", "ACL USERS",
			"ACL SETUSER alice on >p1 >p2 >p1", "ACL GETUSER alice",
			"ACL SETUSER alice <p1", "ACL GETUSER alice", "ACL SETUSER alice <nope",
			"ACL SETUSER alice #abc", "ACL SETUSER alice #6B86B273FF34FCE19D6B804EFF5A3F5747ADA4EAA22F1D49C01E52DDB7875B4B",
			"ACL SETUSER alice #6b86b273ff34fce19d6b804eff5a3f5747ada4eaa22f1d49c01e52ddb7875b4b", "ACL GETUSER alice",
			"ACL SETUSER alice !6b86b273ff34fce19d6b804eff5a3f5747ada4eaa22f1d49c01e52ddb7875b4b",
			"ACL SETUSER alice !6b86b273ff34fce19d6b804eff5a3f5747ada4eaa22f1d49c01e52ddb7875b4b",
			"ACL SETUSER alice nopass", "ACL GETUSER alice", "ACL SETUSER alice >x resetpass", "ACL GETUSER alice",
			"ACL SETUSER alice off skip-sanitize-payload", "ACL LIST", "ACL SETUSER alice sanitize-payload on", "ACL LIST",
			"ACL SETUSER alice reset", "ACL LIST",
		)},
		{name: "setuser-errors", steps: steps(
			"ACL SETUSER bob +nosuch", "ACL SETUSER bob +@nosuch", "ACL SETUSER bob -nosuch", "ACL SETUSER bob bogus",
			"ACL SETUSER bob allkeys ~a", "ACL SETUSER bob allchannels &a", "ACL SETUSER bob ~a allkeys ~b",
			"ACL SETUSER bob +client|nosuch", "ACL SETUSER bob +client|list|x", "ACL SETUSER bob +select|",
			"ACL SETUSER bob %X~a", "ACL SETUSER bob %RR~a", "ACL SETUSER bob (~a", "ACL SETUSER bob (~a +get",
			args("ACL", "SETUSER", "b b"), args("ACL", "SETUSER", "bob", "~a b"), args("ACL", "SETUSER", "bob", "&a b"),
			"ACL USERS", "ACL SETUSER bob on ~a +nosuch", "ACL GETUSER bob",
		)},
		{name: "setuser-keys-channels", steps: steps(
			"ACL SETUSER k ~a* %R~r* %W~w* %RW~rw* ~r*", "ACL GETUSER k", "ACL LIST",
			"ACL SETUSER k %W~r*", "ACL GETUSER k", "ACL SETUSER k resetkeys ~x", "ACL GETUSER k",
			"ACL SETUSER k allkeys", "ACL GETUSER k", "ACL SETUSER k &c1 &c2 &c1", "ACL GETUSER k",
			"ACL SETUSER k resetchannels", "ACL GETUSER k", "ACL SETUSER k allchannels", "ACL LIST",
			"ACL SETUSER k resetkeys", "ACL LIST",
		)},
		{name: "setuser-commands", steps: steps(
			"ACL SETUSER c -@all +get", "ACL GETUSER c", "ACL SETUSER c +@all -@dangerous", "ACL GETUSER c",
			"ACL SETUSER c nocommands +@read", "ACL GETUSER c", "ACL SETUSER c allcommands -flushall", "ACL GETUSER c",
			"ACL SETUSER c -@all +client|list", "ACL GETUSER c", "ACL SETUSER c -@all +select|0", "ACL LIST",
			"ACL SETUSER c +@all -@write", "ACL LIST", "ACL SETUSER c -@all +@hash", "ACL LIST",
			"ACL SETUSER c -@all +@string", "ACL LIST", "ACL SETUSER c +@all -@keyspace", "ACL LIST",
		)},
		{name: "selectors", steps: steps(
			"ACL SETUSER s on nopass ~a* +get (~b* +set) (%R~c* +@read)", "ACL GETUSER s", "ACL LIST",
			"ACL SETUSER s clearselectors", "ACL GETUSER s",
			"ACL SETUSER s (", "ACL SETUSER s ()", "ACL GETUSER s",
		)},
		{name: "deluser", steps: steps(
			"ACL SETUSER a", "ACL SETUSER b", "ACL DELUSER a b c", "ACL DELUSER default", "ACL DELUSER x default",
			"ACL USERS",
		)},
		{name: "genpass", steps: steps(
			hexOfLen("ACL GENPASS"), hexOfLen("ACL GENPASS 1"), hexOfLen("ACL GENPASS 5"), hexOfLen("ACL GENPASS 4096"),
			"ACL GENPASS 0", "ACL GENPASS 4097", "ACL GENPASS -1", "ACL GENPASS x", "ACL GENPASS 1 2",
		)},
		{name: "cat", steps: steps(
			"ACL CAT", unordered("ACL CAT transaction"), sameCommands("ACL CAT CONNECTION"),
			sameCommands("ACL CAT dangerous"), sameCommands("ACL CAT read"), sameCommands("ACL CAT scripting"),
		)},
		{name: "dryrun", steps: steps(
			"ACL SETUSER d on nopass ~k* %R~r* &ch* -@all +get +set +publish +subscribe +client|id",
			"ACL DRYRUN d get k1", "ACL DRYRUN d get x", "ACL DRYRUN d set k1 v", "ACL DRYRUN d set r1 v",
			"ACL DRYRUN d get r1", "ACL DRYRUN d del k1", "ACL DRYRUN d publish ch1 m", "ACL DRYRUN d publish x m",
			"ACL DRYRUN d subscribe ch1 ch2 x", "ACL DRYRUN d client id", "ACL DRYRUN d client list",
			"ACL DRYRUN nosuch get k", "ACL DRYRUN d nosuch", "ACL DRYRUN d get", "ACL DRYRUN d client nosuch",
			"ACL DRYRUN d set k1 v get", "ACL DRYRUN d auth a b", "ACL DRYRUN d",
		)},
		{name: "auth-as-user", steps: steps(
			"ACL SETUSER u on >pw ~u:* &u:* +@all -@dangerous",
			"AUTH u bad", "AUTH nosuch pw", "ACL WHOAMI", "AUTH u pw", "ACL WHOAMI",
			"SET u:1 v", "GET u:1", "GET x", "SET x v", "MGET u:1 x", "DEL u:1 u:2", "FLUSHALL", "KEYS *",
			"ACL LIST", "CLIENT KILL USER nosuch", "ACL SETUSER off off", "AUTH off x", "AUTH default x", "ACL WHOAMI",
			"PUBLISH u:c m", "PUBLISH x m", "RESET", "ACL WHOAMI",
		)},
		{name: "auth-disabled", steps: steps(
			"ACL SETUSER u off >pw +@all ~*", "AUTH u pw", "ACL SETUSER u on", "AUTH u pw", "ACL WHOAMI",
			"ACL SETUSER u off", "ACL WHOAMI", "GET k",
		)},
		{name: "noperm-commands", steps: steps(
			"ACL SETUSER n on >pw allkeys allchannels -@all +get +client|id +acl|whoami +select|0 +@transaction",
			"AUTH n pw", "GET k", "SET k v", kind("CLIENT ID"), "CLIENT LIST", "ACL WHOAMI", "ACL LIST",
			"SELECT 0", "SELECT 1", "PING", shape("HELLO"), "MULTI", "GET k", "SET k v", "EXEC",
			"MULTI", "GET k", "EXEC",
		)},
		{name: "noperm-keys", steps: steps(
			"ACL SETUSER n on >pw &* +@all ~a* %R~r* %W~w*", "AUTH n pw",
			"SET a1 v", "SET r1 v", "SET w1 v", "GET a1", "GET r1", "GET w1", "APPEND r1 x", "APPEND w1 x",
			"COPY a1 w2", "COPY r1 w2", "COPY a1 r2", "LMOVE a1 w1 LEFT RIGHT", "SET w1 v GET", "SET a1 v GET",
			"RENAME a1 w3", "EXISTS r1 a1", "EXISTS w1", "DEL w1", "DEL r1", "EVAL \"return 1\" 1 r1",
			"EVAL \"return 1\" 1 x", "EVAL \"return 1\" 0",
		)},
		{name: "noperm-channels", steps: steps(
			"ACL SETUSER n on >pw ~* +@all &news.* &lit?", "AUTH n pw",
			"PUBLISH news.a m", "PUBLISH other m", "SPUBLISH news.a m", "SPUBLISH other m",
			"PUBLISH lit? m", "PUBLISH lita m",
			"PSUBSCRIBE news.*", "PSUBSCRIBE news.a",
		)},
		{name: "noperm-subscribe", steps: steps(
			"ACL SETUSER n on >pw ~* +@all &news.*", "AUTH n pw",
			"SUBSCRIBE other", "SUBSCRIBE news.a other", "SSUBSCRIBE other",
		)},
		{name: "multi-queue-noperm", steps: steps(
			"ACL SETUSER m on >pw ~m:* +@all -keys", "AUTH m pw",
			"MULTI", "SET m:1 v", "SET x v", "KEYS *", "GET m:1", "EXEC", "GET m:1",
		)},
		{name: "exec-rules-changed", steps: steps(
			"ACL SETUSER m on >pw ~* &* +@all", "AUTH m pw",
			"MULTI", "SET m:1 v", "GET m:1", "ACL SETUSER m -get", "EXEC",
		)},
		{name: "exec-rules-changed-keys", steps: steps(
			"ACL SETUSER m on >pw ~* &* +@all", "AUTH m pw",
			"MULTI", "SET m:1 v", "PUBLISH c m", "ACL SETUSER m resetkeys ~x resetchannels", "EXEC", "EXISTS m:1",
		)},
		{name: "exec-itself-denied", steps: steps(
			"ACL SETUSER m on >pw ~* &* +@all -exec", "AUTH m pw", "MULTI", "PING", "EXEC", "PING",
		)},
		{name: "scripts", steps: steps(
			"ACL SETUSER l on >pw ~l:* &l:* +@all -set -@dangerous", "AUTH l pw",
			`EVAL "return redis.call('get','l:1')" 0`,
			`EVAL "return redis.call('set','l:1','v')" 0`,
			`EVAL "return redis.pcall('set','l:1','v')" 0`,
			`EVAL "return redis.call('get','x')" 0`,
			`EVAL "return redis.pcall('get','x')" 0`,
			`EVAL "return redis.call('publish','x','m')" 0`,
			`EVAL "return redis.call('publish','l:c','m')" 0`,
			`EVAL "return redis.call('flushall')" 0`,
			`EVAL "return {redis.acl_check_cmd('get','l:1'), redis.acl_check_cmd('get','x'), redis.acl_check_cmd('set','l:1','v'), redis.acl_check_cmd('publish','l:c','m'), redis.acl_check_cmd('publish','x','m')}" 0`,
			`EVAL "return redis.acl_check_cmd('get')" 0`,
			`EVAL "return redis.acl_check_cmd('nosuch')" 0`,
			`EVAL "return redis.acl_check_cmd('client','nosuch')" 0`,
			`EVAL "return redis.acl_check_cmd('flushall')" 0`,
		)},
		{name: "acl-log", steps: steps(
			"ACL SETUSER g on >pw ~g:* &g:* -@all +get +publish +acl|log +multi +exec +eval", "AUTH g pw",
			"GET x", "GET x", "SET g:1 v", "PUBLISH x m", "AUTH nosuch pw", "AUTH g wrong",
			`EVAL "return redis.pcall('get','x')" 0`, "MULTI", "GET y", "EXEC",
			aclLog("ACL LOG"), aclLog("ACL LOG 2"), aclLog("ACL LOG 0"), aclLog("ACL LOG -1"), "ACL LOG x", "ACL LOG 1 2",
			"ACL LOG RESET", aclLog("ACL LOG"),
		)},
		{name: "acl-log-hello", steps: steps(
			"HELLO 2 AUTH nosuch pw", shape("hello 2 auth default wrong"), "auth x", "ACL SETUSER default >pw",
			"hello 3 auth default wrong", "auth nosuch x", aclLog("ACL LOG"),
		)},
		{name: "client-list-user", steps: steps(
			"ACL SETUSER cl on nopass ~* &* +@all", "AUTH cl x", shapeField("CLIENT INFO", "user"),
			"CLIENT KILL USER cl SKIPME yes",
		)},
		{name: "load-save-without-file", steps: steps("ACL LOAD", "ACL SAVE", "ACL LOAD x")},
	})
}

// hexOfLen compares a random hex string by its length (ACL GENPASS).
func hexOfLen(cmd string) diffStep {
	return diffStep{args: splitCommand(cmd), cmp: func(a, b node) bool {
		return a.typ == '$' && b.typ == '$' && len(a.blob) == len(b.blob) &&
			strings.Trim(b.blob, "0123456789abcdef") == ""
	}}
}

// sameCommands compares lists of command names (ACL CAT category) as
// sets, over the commands both servers have: Redis lists them in its hash
// table's order, and has commands lockredis does not implement.
func sameCommands(cmd string) diffStep {
	return diffStep{args: splitCommand(cmd), cmp: func(a, b node) bool {
		if a.typ != '*' || b.typ != '*' {
			return false
		}
		known := lockredisCommandNames()
		inRedis := map[string]bool{}
		for _, e := range a.elems {
			inRedis[e.blob] = true
		}
		inLock := map[string]bool{}
		for _, e := range b.elems {
			inLock[e.blob] = true
			if !inRedis[e.blob] && !notInRedis70(e.blob) {
				return false
			}
		}
		for name := range inRedis {
			if known[name] && !inLock[name] {
				return false
			}
		}
		return true
	}}
}

// lockredisCommandNames lists every command and subcommand lockredis has.
func lockredisCommandNames() map[string]bool {
	out := map[string]bool{}
	for _, names := range [][]string{engine.SpecNames(), luasvc.Specs().Names(), pubsub.Specs().Names()} {
		for _, n := range names {
			out[n] = true
		}
	}
	return out
}

// shapeField compares only one field of a CLIENT INFO line.
func shapeField(cmd, field string) diffStep {
	return diffStep{args: splitCommand(cmd), cmp: func(a, b node) bool {
		return clientInfoField(a, field) == clientInfoField(b, field) && clientInfoField(a, field) != ""
	}}
}

func clientInfoField(n node, field string) string {
	text := n.blob
	if text == "" {
		text = n.line
	}
	for _, kv := range strings.Fields(text) {
		if k, v, ok := strings.Cut(kv, "="); ok && k == field {
			return v
		}
	}
	return ""
}

// TestDiffACLPassword: requirepass is the default user's password.
func TestDiffACLPassword(t *testing.T) {
	p := newDiffPair(t, "s3cret")
	runACLCases(t, p, []diffCase{
		{name: "requirepass-is-default", steps: steps(
			"AUTH s3cret", "ACL GETUSER default", "ACL LIST",
			"ACL SETUSER u on >pw ~* +@all", "AUTH u pw", "ACL WHOAMI", "AUTH s3cret", "ACL WHOAMI",
			"ACL SETUSER default nopass", "AUTH x", "AUTH default anything",
			"ACL SETUSER default resetpass >s3cret",
		)},
		{name: "noauth-before-acl", steps: steps(
			"ACL WHOAMI", "ACL SETUSER x", "AUTH u pw", "ACL WHOAMI",
		)},
	})
}
