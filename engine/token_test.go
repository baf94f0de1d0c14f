package engine

import (
	"strconv"
	"testing"
	"time"
)

// tokenOfKey is LOCK.TOKEN's reply as an int, -1 for nil.
func (te *testEngine) tokenOfKey(key string) int64 {
	r := te.do("LOCK.TOKEN", key)
	if r.Kind == KindNull {
		return -1
	}
	if r.Kind != KindInt {
		te.t.Fatalf("LOCK.TOKEN %s: %s", key, r)
	}
	return r.Int
}

// TestFencingTokens: a key that is created takes a token larger than any
// before; a key that is changed keeps its own.
func TestFencingTokens(t *testing.T) {
	te := newTestEngine(t)
	last := int64(0)
	created := func(what, key string) int64 {
		t.Helper()
		tok := te.tokenOfKey(key)
		if tok <= last {
			t.Errorf("%s: token %d, want more than %d", what, tok, last)
		}
		last = tok
		return tok
	}
	kept := func(what, key string, want int64) {
		t.Helper()
		if tok := te.tokenOfKey(key); tok != want {
			t.Errorf("%s: token %d, want %d (kept)", what, tok, want)
		}
	}
	if tok := te.tokenOfKey("lock"); tok != -1 {
		t.Fatalf("missing key: %d", tok)
	}
	te.do("SET", "lock", "a", "NX", "PX", "30000")
	a := created("SET NX", "lock")
	te.do("SET", "lock", "b", "NX", "PX", "30000") // refused
	kept("refused SET NX", "lock", a)
	te.do("PEXPIRE", "lock", "60000")
	kept("PEXPIRE", "lock", a)
	te.do("SET", "lock", "c")
	kept("blind SET over it", "lock", a)
	te.do("MSET", "lock", "d", "other", "x")
	kept("MSET over it", "lock", a)
	created("MSET of a new key", "other")
	te.do("DEL", "lock")
	te.do("SET", "lock", "e", "NX")
	created("SET NX after DEL", "lock")
	te.do("HINCRBY", "redisson", "uuid:1", "1")
	h := created("HINCRBY on a missing hash", "redisson")
	te.do("HINCRBY", "redisson", "uuid:1", "1")
	kept("reentry", "redisson", h)
	te.do("RENAME", "redisson", "moved")
	created("RENAME onto a free name", "moved")
	te.do("SET", "short", "v", "PX", "10")
	created("SET PX", "short")
	te.Clock.FastForward(20 * time.Millisecond)
	te.do("SET", "short", "v", "NX")
	created("SET NX over an expired key", "short")
	te.do("MULTI")
	te.do("GET", "short")
	te.do("DEL", "short")
	te.do("SET", "short", "v")
	te.do("EXEC")
	created("a read, DEL and SET in one transaction", "short")
	te.do("MULTI")
	te.do("SET", "m", "1")
	te.do("INCR", "m")
	te.do("EXEC")
	m := created("MULTI", "m")
	te.do("INCR", "m")
	kept("INCR", "m", m)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"LOCK.CHECK", "m", strconv.FormatInt(m, 10)}, "(integer) 1"},
		{[]string{"LOCK.CHECK", "m", strconv.FormatInt(m-1, 10)}, "(integer) 0"},
		{[]string{"LOCK.CHECK", "nokey", "1"}, "(integer) 0"},
		{[]string{"LOCK.CHECK", "m", "x"}, "(error) ERR value is not an integer or out of range"},
		{[]string{"LOCK.TOKEN"}, "(error) ERR wrong number of arguments for 'lock.token' command"},
	} {
		if got := te.do(tc.args...).String(); got != tc.want {
			t.Errorf("%q = %s, want %s", tc.args, got, tc.want)
		}
	}
}

// TestFencingTokensGrow: the tokens of 100,000 mixed acquisitions and
// releases strictly increase.
func TestFencingTokensGrow(t *testing.T) {
	te := newTestEngine(t)
	last := int64(0)
	for i := range 100000 {
		key := "lock:" + strconv.Itoa(i%50)
		switch i % 4 {
		case 0:
			te.do("SET", key, "owner", "NX", "PX", "30000")
		case 1:
			te.do("HINCRBY", key+":h", "owner", "1")
			key += ":h"
		case 2:
			te.do("DEL", key)
			te.do("SET", key, "owner", "NX")
		case 3:
			te.do("DEL", key+":h")
			te.do("HSET", key+":h", "owner", "1")
			key += ":h"
		}
		tok := te.tokenOfKey(key)
		if i%4 >= 2 && tok <= last {
			t.Fatalf("step %d: a new key got token %d after %d", i, tok, last)
		}
		last = max(last, tok)
	}
}

// TestFencingTokensAcrossRestarts: with a state file, a restart (clean or
// not) hands out tokens above every token of the previous run, and keys
// loaded from the append-only file keep theirs.
func TestFencingTokensAcrossRestarts(t *testing.T) {
	for _, aof := range []bool{false, true} {
		t.Run("appendonly="+strconv.FormatBool(aof), func(t *testing.T) {
			dir := t.TempDir()
			open := func() *testEngine {
				e, err := New(Config{Params: map[string]string{"dir": dir, "appendonly": yesNo(aof), "restart-fence": "off"}})
				if err != nil {
					t.Fatal(err)
				}
				return wrapTestEngine(t, e)
			}
			te := open()
			te.do("SET", "a", "1")
			first := te.tokenOfKey("a")
			te.do("SET", "b", "1")
			last := te.tokenOfKey("b")
			te.Close()

			te = open()
			if aof {
				if tok := te.tokenOfKey("a"); tok != first {
					t.Errorf("loaded key: token %d, want %d", tok, first)
				}
			}
			te.do("SET", "c", "1")
			if tok := te.tokenOfKey("c"); tok <= last {
				t.Errorf("after a restart: token %d, want more than %d", tok, last)
			}
			te.Close()
		})
	}
}
