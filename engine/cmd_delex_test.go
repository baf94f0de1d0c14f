package engine

import (
	"strings"
	"testing"
)

// DELEX, DIGEST, DELIFEQ and SET's IFEQ/IFNE/IFDEQ/IFDNE are newer than
// redis-server 7.0, the oracle of the other tests: the expected replies
// here come from redis.io's and valkey.io's documentation, and the digests
// from XXH3's reference vector and the documentation's examples.

// TestDigestKnownValues: DIGEST is XXH3-64 as 16 lowercase hexadecimal
// digits, leading zeros kept.
func TestDigestKnownValues(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "2d06800538d394c2"},            // XXH3_64bits of no input (xxHash's reference)
		{"Hello world", "b6acb9d84a38ff74"}, // redis.io's DIGEST example
		{"test", "9ec9f7918d7dfc40"},        // Dragonfly's DIGEST examples
		{"hello", "9555e8555c62dcfd"},
		// redis/redis#14496: a value whose digest starts with zeros.
		{"v8lf0c11xh8ymlqztfd3eeq16kfn4sspw7fqmnuuq3k3t75em5wdizgcdw7uc26nnf961u2jkfzkjytls2kwlj7626sd", "00006c38adf31777"},
	} {
		if got := digestHex(tc.in); got != tc.want {
			t.Errorf("digestHex(%q) = %s, want %s", tc.in, got, tc.want)
		}
		te := newTestEngine(t)
		te.run([]step{
			{cmd("SET", "k", tc.in), `OK`},
			{cmd("DIGEST", "k"), `"` + tc.want + `"`},
		})
	}
	te := newTestEngine(t)
	te.run([]step{
		{cmd("DIGEST", "nokey"), `(nil)`},
		{cmd("RPUSH", "l", "a"), `(integer) 1`},
		{cmd("DIGEST", "l"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("INCR", "n"), `(integer) 1`},
		{cmd("DIGEST", "n"), `"` + digestHex("1") + `"`}, // an integer-encoded string is hashed as its digits
		{cmd("DIGEST"), `(error) ERR wrong number of arguments for 'digest' command`},
		{cmd("DIGEST", "k", "x"), `(error) ERR wrong number of arguments for 'digest' command`},
	})
	te.s.SetProto(3)
	if r := te.do("DIGEST", "nokey"); r.Kind != KindNull {
		t.Errorf("RESP3 DIGEST nokey: %v %s", r.Kind, r)
	}
	if r := te.do("DIGEST", "n"); r.Kind != KindBulk {
		t.Errorf("RESP3 DIGEST n: %v %s", r.Kind, r)
	}
}

const wrongType = `(error) WRONGTYPE Operation against a key holding the wrong kind of value`

// keyState is what the key holds before a conditional command.
type keyState int

const (
	keyMissing   keyState = iota
	keyEqual              // the string "owner"
	keyDifferent          // the string "other"
	keyList               // a list
)

func (s keyState) String() string {
	return [...]string{"missing", "equal", "different", "list"}[s]
}

// setUp puts state at k.
func (te *testEngine) setUp(state keyState) {
	te.t.Helper()
	te.do("DEL", "k")
	switch state {
	case keyEqual:
		te.do("SET", "k", "owner")
	case keyDifferent:
		te.do("SET", "k", "other")
	case keyList:
		te.do("RPUSH", "k", "owner")
	}
}

// after renders what k holds: its string, (nil), or its type.
func (te *testEngine) after() string {
	if typ := te.do("TYPE", "k").String(); typ != "string" {
		if typ == "none" {
			return "(nil)"
		}
		return typ
	}
	return te.do("GET", "k").String()
}

// TestDelExConditions: every condition of DELEX (and none), and DELIFEQ,
// against every state of the key: the reply and what is left.
func TestDelExConditions(t *testing.T) {
	dOwner := digestHex("owner")
	type outcome struct{ reply, after string }
	deleted := outcome{`(integer) 1`, `(nil)`}
	for _, tc := range []struct {
		args []string // after the key
		want [4]outcome
	}{
		{nil, [4]outcome{{`(integer) 0`, `(nil)`}, deleted, deleted, deleted}},
		{cmd("IFEQ", "owner"), [4]outcome{{`(integer) 0`, `(nil)`}, deleted, {`(integer) 0`, `"other"`}, {wrongType, "list"}}},
		{cmd("ifeq", "owner"), [4]outcome{{`(integer) 0`, `(nil)`}, deleted, {`(integer) 0`, `"other"`}, {wrongType, "list"}}},
		{cmd("IFNE", "owner"), [4]outcome{{`(integer) 0`, `(nil)`}, {`(integer) 0`, `"owner"`}, deleted, {wrongType, "list"}}},
		{cmd("IFDEQ", dOwner), [4]outcome{{`(integer) 0`, `(nil)`}, deleted, {`(integer) 0`, `"other"`}, {wrongType, "list"}}},
		{cmd("IfDeQ", strings.ToUpper(dOwner)), [4]outcome{{`(integer) 0`, `(nil)`}, deleted, {`(integer) 0`, `"other"`}, {wrongType, "list"}}},
		{cmd("IFDNE", dOwner), [4]outcome{{`(integer) 0`, `(nil)`}, {`(integer) 0`, `"owner"`}, deleted, {wrongType, "list"}}},
	} {
		for state := keyMissing; state <= keyList; state++ {
			te := newTestEngine(t)
			te.setUp(state)
			args := append(cmd("DELEX", "k"), tc.args...)
			if got := te.do(args...).String(); got != tc.want[state].reply {
				t.Errorf("%q on %s key: got %s, want %s", args, state, got, tc.want[state].reply)
			}
			if got := te.after(); got != tc.want[state].after {
				t.Errorf("%q on %s key: k is %s after, want %s", args, state, got, tc.want[state].after)
			}
		}
	}
	want := [4]outcome{{`(integer) 0`, `(nil)`}, deleted, {`(integer) 0`, `"other"`}, {wrongType, "list"}}
	for state := keyMissing; state <= keyList; state++ {
		te := newTestEngine(t)
		te.setUp(state)
		if got := te.do("DELIFEQ", "k", "owner").String(); got != want[state].reply {
			t.Errorf("DELIFEQ on %s key: got %s, want %s", state, got, want[state].reply)
		}
		if got := te.after(); got != want[state].after {
			t.Errorf("DELIFEQ on %s key: k is %s after, want %s", state, got, want[state].after)
		}
	}
}

// TestDelExErrors: argument counts, unknown conditions and digests that
// are not 16 hexadecimal digits.
func TestDelExErrors(t *testing.T) {
	const syntax = `(error) ERR syntax error`
	const badDigest = `(error) ERR must be exactly 16 hexadecimal characters`
	te := newTestEngine(t)
	te.run([]step{
		{cmd("DELEX"), `(error) ERR wrong number of arguments for 'delex' command`},
		{cmd("DELIFEQ", "k"), `(error) ERR wrong number of arguments for 'delifeq' command`},
		{cmd("DELIFEQ", "k", "a", "b"), `(error) ERR wrong number of arguments for 'delifeq' command`},
		{cmd("SET", "k", "owner"), `OK`},
		{cmd("DELEX", "k", "IFEQ"), syntax},
		{cmd("DELEX", "k", "IFEQ", "owner", "IFNE", "x"), syntax},
		{cmd("DELEX", "k", "IFEQ", "owner", "extra"), syntax},
		{cmd("DELEX", "k", "NX", "owner"), syntax},
		{cmd("DELEX", "k", "IFDEQ", "123"), badDigest},
		{cmd("DELEX", "k", "IFDNE", digestHex("owner")+"0"), badDigest},
		{cmd("DELEX", "k", "IFDEQ", "zzzzzzzzzzzzzzzz"), badDigest},
		{cmd("DELEX", "k", "IFDEQ", ""), badDigest},
		{cmd("GET", "k"), `"owner"`},
		// Digest checked where Redis checks it, after the key: a missing
		// key answers 0, a key of another type WRONGTYPE.
		{cmd("DELEX", "nokey", "IFDEQ", "123"), `(integer) 0`},
		{cmd("DELEX", "nokey", "IFEQ"), syntax},
		{cmd("RPUSH", "l", "a"), `(integer) 1`},
		{cmd("DELEX", "l", "IFDEQ", "123"), wrongType},
		{cmd("DELEX", "l", "FOO", "a"), syntax},
	})
}

// TestSetConditions: SET with each condition, with and without GET,
// against every state of the key: the reply and what is left.
func TestSetConditions(t *testing.T) {
	dOwner := digestHex("owner")
	type outcome struct{ reply, after string }
	for _, tc := range []struct {
		cond []string
		// without GET, then with GET, for each key state
		want, withGet [4]outcome
	}{
		{cmd("IFEQ", "owner"),
			[4]outcome{{`(nil)`, `(nil)`}, {`OK`, `"new"`}, {`(nil)`, `"other"`}, {wrongType, "list"}},
			[4]outcome{{`(nil)`, `(nil)`}, {`"owner"`, `"new"`}, {`"other"`, `"other"`}, {wrongType, "list"}}},
		{cmd("IFNE", "owner"),
			[4]outcome{{`OK`, `"new"`}, {`(nil)`, `"owner"`}, {`OK`, `"new"`}, {wrongType, "list"}},
			[4]outcome{{`(nil)`, `"new"`}, {`"owner"`, `"owner"`}, {`"other"`, `"new"`}, {wrongType, "list"}}},
		{cmd("IFDEQ", dOwner),
			[4]outcome{{`(nil)`, `(nil)`}, {`OK`, `"new"`}, {`(nil)`, `"other"`}, {wrongType, "list"}},
			[4]outcome{{`(nil)`, `(nil)`}, {`"owner"`, `"new"`}, {`"other"`, `"other"`}, {wrongType, "list"}}},
		{cmd("ifdeq", strings.ToUpper(dOwner)),
			[4]outcome{{`(nil)`, `(nil)`}, {`OK`, `"new"`}, {`(nil)`, `"other"`}, {wrongType, "list"}},
			[4]outcome{{`(nil)`, `(nil)`}, {`"owner"`, `"new"`}, {`"other"`, `"other"`}, {wrongType, "list"}}},
		{cmd("IFDNE", dOwner),
			[4]outcome{{`OK`, `"new"`}, {`(nil)`, `"owner"`}, {`OK`, `"new"`}, {wrongType, "list"}},
			[4]outcome{{`(nil)`, `"new"`}, {`"owner"`, `"owner"`}, {`"other"`, `"new"`}, {wrongType, "list"}}},
	} {
		for _, get := range []bool{false, true} {
			want := tc.want
			args := append(cmd("SET", "k", "new"), tc.cond...)
			if get {
				want = tc.withGet
				args = append(args, "GET")
			}
			for state := keyMissing; state <= keyList; state++ {
				te := newTestEngine(t)
				te.setUp(state)
				if got := te.do(args...).String(); got != want[state].reply {
					t.Errorf("%q on %s key: got %s, want %s", args, state, got, want[state].reply)
				}
				if got := te.after(); got != want[state].after {
					t.Errorf("%q on %s key: k is %s after, want %s", args, state, got, want[state].after)
				}
			}
		}
	}
}

// TestSetConditionOptions: which options combine with the conditions, the
// expiry options applied only when the condition holds, and the errors.
func TestSetConditionOptions(t *testing.T) {
	const syntax = `(error) ERR syntax error`
	const badDigest = `(error) ERR must be exactly 16 hexadecimal characters`
	te := newTestEngine(t)
	te.run([]step{
		{cmd("SET", "k", "v", "IFEQ"), syntax},
		{cmd("SET", "k", "v", "IFDEQ"), syntax},
		{cmd("SET", "k", "v", "IFEQ", "a", "IFNE", "b"), syntax},
		{cmd("SET", "k", "v", "IFEQ", "a", "IFEQ", "b"), syntax},
		{cmd("SET", "k", "v", "IFDEQ", digestHex("a"), "IFDNE", digestHex("a")), syntax},
		{cmd("SET", "k", "v", "NX", "IFEQ", "a"), syntax},
		{cmd("SET", "k", "v", "IFEQ", "a", "NX"), syntax},
		{cmd("SET", "k", "v", "XX", "IFNE", "a"), syntax},
		{cmd("SET", "k", "v", "IFNE", "a", "XX"), syntax},
		{cmd("SET", "k", "v", "IFDEQ", "123"), badDigest},
		{cmd("SET", "k", "v", "IFDNE", "0123456789abcdefa"), badDigest},
		{cmd("SET", "k", "v", "IFDEQ", "0123456789abcdeg"), badDigest},
		// Options are read in order: the first bad one answers.
		{cmd("SET", "k", "v", "FOO", "IFDEQ", "123"), syntax},
		{cmd("SET", "k", "v", "IFDEQ", "123", "FOO"), badDigest},
		{cmd("GETEX", "k", "IFEQ", "a"), syntax},
		{cmd("EXISTS", "k"), `(integer) 0`},
		// Expiry options: applied with the write, checked before the key.
		{cmd("SET", "k", "owner"), `OK`},
		{cmd("SET", "k", "v2", "IFEQ", "owner", "EX", "0"), `(error) ERR invalid expire time in 'set' command`},
		{cmd("SET", "k", "v2", "IFEQ", "nobody", "PX", "abc"), `(error) ERR value is not an integer or out of range`},
		{cmd("SET", "k", "v2", "IFEQ", "nobody", "EX", "100"), `(nil)`},
		{cmd("TTL", "k"), `(integer) -1`},
		{cmd("SET", "k", "v2", "EX", "100", "IFEQ", "owner", "GET"), `"owner"`},
		{cmd("TTL", "k"), `(integer) 100`},
		{cmd("SET", "k", "v3", "ifdeq", digestHex("v2"), "KEEPTTL"), `OK`},
		{cmd("TTL", "k"), `(integer) 100`},
		{cmd("SET", "k", "v4", "GET", "IFNE", "v2", "PXAT", "1700000050000"), `"v3"`},
		{cmd("PTTL", "k"), `(integer) 50000`},
		{cmd("SET", "k", "v5", "IFNE", "v4"), `(nil)`},
		{cmd("SET", "k", "v5", "IFEQ", "v4"), `OK`},
		{cmd("TTL", "k"), `(integer) -1`},
		{cmd("SET", "new", "v", "IFNE", "x", "EX", "10"), `OK`},
		{cmd("TTL", "new"), `(integer) 10`},
		// The old forms are unchanged.
		{cmd("SET", "k", "v", "NX", "NX"), `(nil)`},
		{cmd("SET", "k", "v", "XX", "XX", "GET"), `"v5"`},
	})
}

// TestConditionalReleaseInMulti: inside MULTI the commands are queued and
// run at EXEC like any other.
func TestConditionalReleaseInMulti(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("SET", "lock", "me"), `OK`},
		{cmd("MULTI"), `OK`},
		{cmd("DIGEST", "lock"), `QUEUED`},
		{cmd("DELEX", "lock", "IFEQ", "you"), `QUEUED`},
		{cmd("DELEX", "lock", "IFDEQ", digestHex("me")), `QUEUED`},
		{cmd("DELIFEQ", "lock", "me"), `QUEUED`},
		{cmd("SET", "lock", "you", "IFNE", "me"), `QUEUED`},
		{cmd("EXEC"), `["` + digestHex("me") + `" (integer) 0 (integer) 1 (integer) 0 OK]`},
		{cmd("GET", "lock"), `"you"`},
		{cmd("MULTI"), `OK`},
		{cmd("DELEX", "lock", "IFEQ"), `QUEUED`}, // arity -2: the syntax error comes at EXEC
		{cmd("EXEC"), `[(error) ERR syntax error]`},
	})
}
