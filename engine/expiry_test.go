package engine

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// newLazyExpiryEngine is a test engine with the sweeper off (as Redis with
// DEBUG SET-ACTIVE-EXPIRE 0), so that only lookups expire keys.
func newLazyExpiryEngine(t *testing.T) *testEngine {
	t.Helper()
	te := newTestEngine(t)
	te.SetActiveExpire(false)
	return te
}

// expiredKeys is expired_keys as INFO stats reports it.
func (te *testEngine) expiredKeys() string {
	te.t.Helper()
	_, fields := parseInfo(te.t, te.do("INFO", "stats"))
	return fields["Stats"]["expired_keys"]
}

// TestLazyExpiry: every command that meets an expired key deletes it, read
// commands included, as Redis's lookups do: DBSIZE is one less right after,
// and expired_keys counts the key once however often it is met later.
// Replies, DBSIZE and expired_keys are what redis-server 7.0.15 gives for
// the same sequence with DEBUG SET-ACTIVE-EXPIRE 0 ("live" exists, the
// setup's keys get a 100 ms TTL, and the read runs once it has passed).
func TestLazyExpiry(t *testing.T) {
	str := [][]string{cmd("SET", "k", "v", "PX", "100")}
	hash := [][]string{cmd("HSET", "k", "a", "1"), cmd("PEXPIRE", "k", "100")}
	list := [][]string{cmd("RPUSH", "k", "a"), cmd("PEXPIRE", "k", "100")}
	set := [][]string{cmd("SADD", "k", "a"), cmd("PEXPIRE", "k", "100")}
	zset := [][]string{cmd("ZADD", "k", "1", "a"), cmd("PEXPIRE", "k", "100")}
	for _, tc := range []struct {
		setup   [][]string
		read    []string
		reply   string
		dbsize  int64 // after the read; before it, the expired keys count
		expired int64 // expired_keys after the read
	}{
		// Read commands (shared read transactions).
		{str, cmd("GET", "k"), `(nil)`, 1, 1},
		{str, cmd("EXISTS", "k", "k", "live"), `(integer) 1`, 1, 1},
		{str, cmd("TOUCH", "k"), `(integer) 0`, 1, 1},
		{str, cmd("TYPE", "k"), `none`, 1, 1},
		{str, cmd("TTL", "k"), `(integer) -2`, 1, 1},
		{str, cmd("PTTL", "k"), `(integer) -2`, 1, 1},
		{str, cmd("EXPIRETIME", "k"), `(integer) -2`, 1, 1},
		{str, cmd("PEXPIRETIME", "k"), `(integer) -2`, 1, 1},
		{str, cmd("OBJECT", "ENCODING", "k"), `(nil)`, 1, 1},
		{str, cmd("OBJECT", "REFCOUNT", "k"), `(nil)`, 1, 1},
		{str, cmd("STRLEN", "k"), `(integer) 0`, 1, 1},
		{str, cmd("GETRANGE", "k", "0", "-1"), `""`, 1, 1},
		{str, cmd("MGET", "k", "live", "k"), `[(nil) "1" (nil)]`, 1, 1},
		{str, cmd("SCAN", "0"), `["0" ["live"]]`, 1, 1},
		{str, cmd("SCAN", "0", "MATCH", "k"), `["0" []]`, 1, 1},
		{str, cmd("SCAN", "0", "TYPE", "hash"), `["0" []]`, 1, 1},
		{str, cmd("SCAN", "0", "MATCH", "x*"), `["0" []]`, 2, 0}, // not matched: not met
		{str, cmd("KEYS", "*"), `["live"]`, 2, 0},                // 7.0's KEYS only skips
		{[][]string{cmd("SET", "k", "v", "PX", "100"), cmd("SET", "k2", "v", "PX", "100"), cmd("DEL", "live")},
			cmd("RANDOMKEY"), `(nil)`, 0, 2},
		{str, cmd("WATCH", "k"), `OK`, 2, 0}, // keyIsExpired only
		{str, cmd("DBSIZE"), `(integer) 2`, 2, 0},
		{hash, cmd("HGET", "k", "a"), `(nil)`, 1, 1},
		{hash, cmd("HGETALL", "k"), `[]`, 1, 1},
		{hash, cmd("HSCAN", "k", "0"), `["0" []]`, 1, 1},
		{list, cmd("LRANGE", "k", "0", "-1"), `[]`, 1, 1},
		{list, cmd("LLEN", "k"), `(integer) 0`, 1, 1},
		{set, cmd("SMEMBERS", "k"), `[]`, 1, 1},
		{set, cmd("SISMEMBER", "k", "a"), `(integer) 0`, 1, 1},
		{set, cmd("SSCAN", "k", "0"), `["0" []]`, 1, 1},
		{zset, cmd("ZRANGE", "k", "0", "-1"), `[]`, 1, 1},
		{zset, cmd("ZSCORE", "k", "a"), `(nil)`, 1, 1},
		{zset, cmd("ZSCAN", "k", "0"), `["0" []]`, 1, 1},
		// Write commands (the exclusive transaction deletes at once).
		{str, cmd("GETEX", "k", "PERSIST"), `(nil)`, 1, 1},
		{str, cmd("GETDEL", "k"), `(nil)`, 1, 1},
		{str, cmd("RENAME", "k", "z"), `(error) ERR no such key`, 1, 1},
		{str, cmd("RENAMENX", "k", "z"), `(error) ERR no such key`, 1, 1},
		{str, cmd("COPY", "k", "z"), `(integer) 0`, 1, 1},
		{str, cmd("MOVE", "k", "1"), `(integer) 0`, 1, 1},
		{str, cmd("DEL", "k"), `(integer) 0`, 1, 1},
		{str, cmd("EXPIRE", "k", "100"), `(integer) 0`, 1, 1},
		{str, cmd("PERSIST", "k"), `(integer) 0`, 1, 1},
		{append(list, cmd("RPUSH", "d", "x")), cmd("LMOVE", "k", "d", "LEFT", "LEFT"), `(nil)`, 2, 1},
		{append(set, cmd("SADD", "s", "b")), cmd("SMOVE", "k", "s", "a"), `(integer) 0`, 2, 1},
		// Writes over an expired key: Redis's write lookup expires it first.
		{str, cmd("RENAME", "live", "k"), `OK`, 1, 1},
		{str, cmd("COPY", "live", "k"), `(integer) 1`, 2, 1},
		{str, cmd("SET", "k", "w"), `OK`, 2, 1},
		{str, cmd("MSET", "k", "w"), `OK`, 2, 1},
		{str, cmd("SET", "k", "w", "NX", "GET"), `(nil)`, 2, 1},
		{str, cmd("APPEND", "k", "w"), `(integer) 1`, 2, 1},
		{str, cmd("INCR", "k"), `(integer) 1`, 2, 1},
		{hash, cmd("HSET", "k", "b", "2"), `(integer) 1`, 2, 1},
		{append(list, cmd("RPUSH", "d", "x")), cmd("LMOVE", "d", "k", "LEFT", "LEFT"), `"x"`, 2, 1},
	} {
		t.Run(strings.Join(tc.read, " "), func(t *testing.T) {
			te := newLazyExpiryEngine(t)
			te.do("SET", "live", "1")
			for _, c := range tc.setup {
				te.do(c...)
			}
			before := te.do("DBSIZE").Int
			te.Clock.FastForward(time.Second)
			if got := te.do("DBSIZE").Int; got != before {
				t.Fatalf("DBSIZE went from %d to %d with nothing read", before, got)
			}
			if got := te.do(tc.read...).String(); got != tc.reply {
				t.Errorf("%q replied %s, want %s", tc.read, got, tc.reply)
			}
			if got := te.do("DBSIZE").Int; got != tc.dbsize {
				t.Errorf("DBSIZE after %q = %d, want %d", tc.read, got, tc.dbsize)
			}
			want := strconv.FormatInt(tc.expired, 10)
			if got := te.expiredKeys(); got != want {
				t.Errorf("expired_keys after %q = %s, want %s", tc.read, got, want)
			}
			// Meeting the keys again counts only those still stored: one
			// key expired in every setup but RANDOMKEY's, whose read
			// deleted both of its keys.
			te.do("EXISTS", "k", "k2")
			te.do("SCAN", "0")
			want = strconv.FormatInt(max(tc.expired, 1), 10)
			if got := te.expiredKeys(); got != want {
				t.Errorf("expired_keys after meeting the keys again = %s, want %s", got, want)
			}
		})
	}
}

// Inside MULTI/EXEC the exclusive transaction deletes what a command finds
// expired at once, so a later command of the same EXEC already counts one
// key less (redis-server 7.0.15 replies the same).
func TestLazyExpiryInsideExec(t *testing.T) {
	for _, tc := range []struct {
		read  []string
		reply string
	}{
		{cmd("GET", "k"), `(nil)`},
		{cmd("EXISTS", "k"), `(integer) 0`},
		{cmd("SCAN", "0"), `["0" ["live"]]`},
		{cmd("KEYS", "*"), `["live"]`}, // skips, deletes nothing
	} {
		t.Run(strings.Join(tc.read, " "), func(t *testing.T) {
			te := newLazyExpiryEngine(t)
			a := te.newClient()
			playClients(t, []clientStep{
				{a, cmd("SET", "live", "1"), "OK"},
				{a, cmd("SET", "k", "v", "PX", "100"), "OK"},
			})
			te.Clock.FastForward(time.Second)
			want := "[" + tc.reply + " (integer) 1]"
			if tc.read[0] == "KEYS" {
				want = "[" + tc.reply + " (integer) 2]"
			}
			playClients(t, []clientStep{
				{a, cmd("MULTI"), "OK"},
				{a, tc.read, "QUEUED"},
				{a, cmd("DBSIZE"), "QUEUED"},
				{a, cmd("EXEC"), want},
			})
		})
	}
}

// Clients reading the same expired key at once: it is deleted once and
// counted once.
func TestLazyExpiryConcurrentReaders(t *testing.T) {
	te := newLazyExpiryEngine(t)
	te.do("SET", "live", "1")
	for i := 0; i < 50; i++ {
		te.do("SET", "k"+strconv.Itoa(i), "v", "PX", "100")
	}
	te.Clock.FastForward(time.Second)
	done := make(chan struct{})
	for c := 0; c < 8; c++ {
		go func() {
			defer func() { done <- struct{}{} }()
			s := NewSession("normal")
			for i := 0; i < 50; i++ {
				for _, args := range [][][]byte{
					{[]byte("GET"), []byte("k" + strconv.Itoa(i))},
					{[]byte("SCAN"), []byte("0"), []byte("COUNT"), []byte("7")},
					{[]byte("DBSIZE")},
				} {
					var rec Recorder
					te.Dispatch(s, nil, args, &rec)
				}
			}
		}()
	}
	for c := 0; c < 8; c++ {
		<-done
	}
	te.run([]step{
		{cmd("DBSIZE"), "(integer) 1"},
		{cmd("INFO", "keyspace"), "\"# Keyspace\\r\\ndb0:keys=1,expires=0,avg_ttl=0\\r\\n\""},
	})
	if got := te.expiredKeys(); got != "50" {
		t.Errorf("expired_keys = %s, want 50", got)
	}
}

// A key watched while live breaks the WATCH when a read of another client
// expires it; one watched when already expired does not (Redis's
// touchWatchedKey: deleting an expired key is no change).
func TestWatchAndLazyExpiry(t *testing.T) {
	te := newLazyExpiryEngine(t)
	a, b := te.newClient(), te.newClient()
	playClients(t, []clientStep{
		{a, cmd("SET", "k", "1", "PX", "100"), "OK"},
		{a, cmd("WATCH", "k"), "OK"},
	})
	te.Clock.FastForward(time.Second)
	playClients(t, []clientStep{
		{b, cmd("GET", "k"), "(nil)"},
		{b, cmd("DBSIZE"), "(integer) 0"},
		{a, cmd("MULTI"), "OK"},
		{a, cmd("SET", "k", "2"), "QUEUED"},
		{a, cmd("EXEC"), "(nil)"},
		{a, cmd("SET", "k", "1", "PX", "100"), "OK"},
	})
	te.Clock.FastForward(time.Second)
	playClients(t, []clientStep{
		{a, cmd("WATCH", "k"), "OK"},
		{b, cmd("EXISTS", "k"), "(integer) 0"},
		{b, cmd("DBSIZE"), "(integer) 0"},
		{a, cmd("MULTI"), "OK"},
		{a, cmd("SET", "k", "2"), "QUEUED"},
		{a, cmd("EXEC"), "[OK]"},
	})
}
