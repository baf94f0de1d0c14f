package engine

import (
	"strconv"
	"testing"
	"time"
)

// The expected replies below were produced by redis-server 7.0.15 (see
// strings_test.go), with time-dependent replies given for the manual clock.

// TestExpireTTL: EXPIRE family, TTL family and PERSIST: strict integers, overflow, huge TTLs, past times deleting, rounding.
func TestExpireTTL(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("SET", "k", "v"), `OK`},
		{cmd("EXPIRE", "k", "100"), `(integer) 1`},
		{cmd("TTL", "k"), `(integer) 100`},
		{cmd("PTTL", "k"), `(integer) 100000`},
		{cmd("PEXPIRE", "k", "100000"), `(integer) 1`},
		{cmd("TTL", "k"), `(integer) 100`},
		{cmd("EXPIRE", "k", "abc"), `(error) ERR value is not an integer or out of range`},
		{cmd("EXPIRE", "k", "+5"), `(error) ERR value is not an integer or out of range`},
		{cmd("EXPIRE", "k", "05"), `(error) ERR value is not an integer or out of range`},
		{cmd("EXPIRE", "k", " 5"), `(error) ERR value is not an integer or out of range`},
		{cmd("EXPIRE", "k", "5 "), `(error) ERR value is not an integer or out of range`},
		{cmd("EXPIRE", "k", "1.5"), `(error) ERR value is not an integer or out of range`},
		{cmd("EXPIRE", "k", ""), `(error) ERR value is not an integer or out of range`},
		{cmd("EXPIRE", "k", "9223372036854775807"), `(error) ERR invalid expire time in 'expire' command`},
		{cmd("EXPIRE", "k", "9223372036854775"), `(error) ERR invalid expire time in 'expire' command`},
		{cmd("EXPIRE", "k", "9223372036854776"), `(error) ERR invalid expire time in 'expire' command`},
		{cmd("EXPIRE", "k", "9223372036854774"), `(error) ERR invalid expire time in 'expire' command`},
		{cmd("EXPIRE", "k", "-9223372036854775"), `(integer) 1`},
		{cmd("SET", "k", "v"), `OK`},
		{cmd("EXPIRE", "k", "-9223372036854776"), `(error) ERR invalid expire time in 'expire' command`},
		{cmd("EXPIRE", "k", "-9223372036854775808"), `(error) ERR invalid expire time in 'expire' command`},
		{cmd("PEXPIRE", "k", "9223372036854775807"), `(error) ERR invalid expire time in 'pexpire' command`},
		{cmd("PEXPIRE", "k", "9223372036854775000"), `(error) ERR invalid expire time in 'pexpire' command`},
		{cmd("PEXPIRE", "k", "9223370000000000000"), `(integer) 1`},
		{cmd("PTTL", "k"), `(integer) 9223370000000000000`},
		{cmd("TTL", "k"), `(integer) 9223370000000000`},
		{cmd("EXPIRETIME", "k"), `(integer) 9223371700000000`},
		{cmd("PEXPIRE", "k", "-9223372036854775808"), `(integer) 1`},
		{cmd("EXISTS", "k"), `(integer) 0`},
		{cmd("SET", "k", "v"), `OK`},
		{cmd("EXPIREAT", "k", "9223372036854775807"), `(error) ERR invalid expire time in 'expireat' command`},
		{cmd("EXPIREAT", "k", "9223372036854775"), `(integer) 1`},
		{cmd("EXPIRETIME", "k"), `(integer) 9223372036854775`},
		{cmd("PEXPIRETIME", "k"), `(integer) 9223372036854775000`},
		{cmd("TTL", "k"), `(integer) 9223370336854775`},
		{cmd("EXPIREAT", "k", "9223372036854776"), `(error) ERR invalid expire time in 'expireat' command`},
		{cmd("PEXPIREAT", "k", "9223372036854775807"), `(integer) 1`},
		{cmd("PEXPIRETIME", "k"), `(integer) 9223372036854775807`},
		{cmd("EXPIRETIME", "k"), `(integer) 9223372036854776`},
		{cmd("TTL", "k"), `(integer) 9223370336854776`},
		{cmd("PTTL", "k"), `(integer) 9223370336854775807`},
		{cmd("PEXPIREAT", "k", "-9223372036854775808"), `(integer) 1`},
		{cmd("EXISTS", "k"), `(integer) 0`},
		{cmd("SET", "k", "v"), `OK`},
		{cmd("EXPIRE", "k", "0"), `(integer) 1`},
		{cmd("EXISTS", "k"), `(integer) 0`},
		{cmd("SET", "k", "v"), `OK`},
		{cmd("EXPIRE", "k", "-1"), `(integer) 1`},
		{cmd("EXISTS", "k"), `(integer) 0`},
		{cmd("SET", "k", "v"), `OK`},
		{cmd("PEXPIRE", "k", "0"), `(integer) 1`},
		{cmd("EXISTS", "k"), `(integer) 0`},
		{cmd("SET", "k", "v"), `OK`},
		{cmd("EXPIREAT", "k", "1"), `(integer) 1`},
		{cmd("EXISTS", "k"), `(integer) 0`},
		{cmd("SET", "k", "v"), `OK`},
		{cmd("PEXPIREAT", "k", "0"), `(integer) 1`},
		{cmd("EXISTS", "k"), `(integer) 0`},
		{cmd("EXPIRE", "nope", "100"), `(integer) 0`},
		{cmd("EXPIRE", "nope", "0"), `(integer) 0`},
		{cmd("EXPIRE", "nope", "abc"), `(error) ERR value is not an integer or out of range`},
		{cmd("EXPIRE", "nope", "9223372036854775807"), `(error) ERR invalid expire time in 'expire' command`},
		{cmd("EXPIRE", "k"), `(error) ERR wrong number of arguments for 'expire' command`},
		{cmd("EXPIRE"), `(error) ERR wrong number of arguments for 'expire' command`},
		{cmd("TTL", "nope"), `(integer) -2`},
		{cmd("PTTL", "nope"), `(integer) -2`},
		{cmd("EXPIRETIME", "nope"), `(integer) -2`},
		{cmd("PEXPIRETIME", "nope"), `(integer) -2`},
		{cmd("SET", "k", "v"), `OK`},
		{cmd("TTL", "k"), `(integer) -1`},
		{cmd("PTTL", "k"), `(integer) -1`},
		{cmd("EXPIRETIME", "k"), `(integer) -1`},
		{cmd("PEXPIRETIME", "k"), `(integer) -1`},
		{cmd("TTL"), `(error) ERR wrong number of arguments for 'ttl' command`},
		{cmd("TTL", "a", "b"), `(error) ERR wrong number of arguments for 'ttl' command`},
		{cmd("PERSIST", "k"), `(integer) 0`},
		{cmd("PERSIST", "nope"), `(integer) 0`},
		{cmd("EXPIRE", "k", "100"), `(integer) 1`},
		{cmd("PERSIST", "k"), `(integer) 1`},
		{cmd("TTL", "k"), `(integer) -1`},
		{cmd("PERSIST", "k"), `(integer) 0`},
		{cmd("PERSIST"), `(error) ERR wrong number of arguments for 'persist' command`},
		{cmd("EXPIREAT", "k", "4000000000"), `(integer) 1`},
		{cmd("EXPIRETIME", "k"), `(integer) 4000000000`},
		{cmd("PEXPIRETIME", "k"), `(integer) 4000000000000`},
		{cmd("PEXPIREAT", "k", "4000000000123"), `(integer) 1`},
		{cmd("PEXPIRETIME", "k"), `(integer) 4000000000123`},
		{cmd("EXPIRETIME", "k"), `(integer) 4000000000`},
		{cmd("PEXPIREAT", "k", "4000000000500"), `(integer) 1`},
		{cmd("EXPIRETIME", "k"), `(integer) 4000000001`},
		{cmd("PEXPIREAT", "k", "4000000000499"), `(integer) 1`},
		{cmd("EXPIRETIME", "k"), `(integer) 4000000000`},
		{cmd("PSETEX", "r", "1500", "v"), `OK`},
		{cmd("TTL", "r"), `(integer) 2`},
		{cmd("PSETEX", "r", "1499", "v"), `OK`},
		{cmd("TTL", "r"), `(integer) 1`},
		{cmd("PSETEX", "r", "499", "v"), `OK`},
		{cmd("TTL", "r"), `(integer) 0`},
		{cmd("PSETEX", "r", "500", "v"), `OK`},
		{cmd("TTL", "r"), `(integer) 1`},
	})
}

// TestExpireOptions: NX, XX, GT, LT, their incompatible combinations and unknown options; no TTL counts as infinite.
func TestExpireOptions(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("SET", "k", "v"), `OK`},
		{cmd("EXPIRE", "k", "100", "NX"), `(integer) 1`},
		{cmd("EXPIRE", "k", "200", "NX"), `(integer) 0`},
		{cmd("TTL", "k"), `(integer) 100`},
		{cmd("EXPIRE", "k", "200", "XX"), `(integer) 1`},
		{cmd("TTL", "k"), `(integer) 200`},
		{cmd("PERSIST", "k"), `(integer) 1`},
		{cmd("EXPIRE", "k", "200", "XX"), `(integer) 0`},
		{cmd("TTL", "k"), `(integer) -1`},
		{cmd("EXPIRE", "k", "200", "GT"), `(integer) 0`},
		{cmd("TTL", "k"), `(integer) -1`},
		{cmd("EXPIRE", "k", "200", "LT"), `(integer) 1`},
		{cmd("TTL", "k"), `(integer) 200`},
		{cmd("EXPIRE", "k", "300", "LT"), `(integer) 0`},
		{cmd("EXPIRE", "k", "100", "LT"), `(integer) 1`},
		{cmd("TTL", "k"), `(integer) 100`},
		{cmd("EXPIRE", "k", "100", "GT"), `(integer) 0`},
		{cmd("EXPIRE", "k", "50", "GT"), `(integer) 0`},
		{cmd("EXPIRE", "k", "150", "GT"), `(integer) 1`},
		{cmd("TTL", "k"), `(integer) 150`},
		{cmd("EXPIRE", "k", "150", "gt", "xx"), `(integer) 0`},
		{cmd("EXPIRE", "k", "250", "gt", "xx"), `(integer) 1`},
		{cmd("TTL", "k"), `(integer) 250`},
		{cmd("EXPIRE", "k", "100", "NX", "XX"), `(error) ERR NX and XX, GT or LT options at the same time are not compatible`},
		{cmd("EXPIRE", "k", "100", "XX", "NX"), `(error) ERR NX and XX, GT or LT options at the same time are not compatible`},
		{cmd("EXPIRE", "k", "100", "NX", "GT"), `(error) ERR NX and XX, GT or LT options at the same time are not compatible`},
		{cmd("EXPIRE", "k", "100", "NX", "LT"), `(error) ERR NX and XX, GT or LT options at the same time are not compatible`},
		{cmd("EXPIRE", "k", "100", "GT", "LT"), `(error) ERR GT and LT options at the same time are not compatible`},
		{cmd("EXPIRE", "k", "100", "LT", "GT"), `(error) ERR GT and LT options at the same time are not compatible`},
		{cmd("EXPIRE", "k", "100", "NX", "GT", "LT"), `(error) ERR NX and XX, GT or LT options at the same time are not compatible`},
		{cmd("EXPIRE", "k", "100", "GT", "LT", "NX"), `(error) ERR NX and XX, GT or LT options at the same time are not compatible`},
		{cmd("EXPIRE", "k", "100", "FOO"), `(error) ERR Unsupported option FOO`},
		{cmd("EXPIRE", "k", "100", "NX", "FOO"), `(error) ERR Unsupported option FOO`},
		{cmd("EXPIRE", "k", "100", "FOO", "NX", "XX"), `(error) ERR Unsupported option FOO`},
		{cmd("EXPIRE", "k", "100", "NX", "XX", "FOO"), `(error) ERR Unsupported option FOO`},
		{cmd("EXPIRE", "k", "abc", "FOO"), `(error) ERR Unsupported option FOO`},
		{cmd("EXPIRE", "k", "abc", "NX", "XX"), `(error) ERR NX and XX, GT or LT options at the same time are not compatible`},
		{cmd("EXPIRE", "nope", "100", "NX", "XX"), `(error) ERR NX and XX, GT or LT options at the same time are not compatible`},
		{cmd("EXPIRE", "k", "9223372036854775807", "NX", "XX"), `(error) ERR NX and XX, GT or LT options at the same time are not compatible`},
		{cmd("EXPIRE", "k", "100", "nx", "nx"), `(integer) 0`},
		{cmd("EXPIRE", "k", "100", "XX", "XX"), `(integer) 1`},
		{cmd("TTL", "k"), `(integer) 100`},
		{cmd("EXPIRE", "k", "100", "XX", "GT"), `(integer) 0`},
		{cmd("EXPIRE", "k", "100", "XX", "LT"), `(integer) 0`},
		{cmd("TTL", "k"), `(integer) 100`},
		{cmd("EXPIRE", "k", "-1", "LT"), `(integer) 1`},
		{cmd("EXISTS", "k"), `(integer) 0`},
		{cmd("SET", "k", "v"), `OK`},
		{cmd("EXPIRE", "k", "-1", "GT"), `(integer) 0`},
		{cmd("EXISTS", "k"), `(integer) 1`},
		{cmd("EXPIRE", "k", "-1", "LT"), `(integer) 1`},
		{cmd("EXISTS", "k"), `(integer) 0`},
		{cmd("SET", "k", "v"), `OK`},
		{cmd("EXPIRE", "k", "-1", "XX"), `(integer) 0`},
		{cmd("EXPIRE", "k", "-1", "NX"), `(integer) 1`},
		{cmd("EXISTS", "k"), `(integer) 0`},
		{cmd("SET", "k", "v"), `OK`},
		{cmd("PEXPIRE", "k", "1000", "NX"), `(integer) 1`},
		{cmd("PEXPIREAT", "k", "1", "GT"), `(integer) 0`},
		{cmd("PEXPIREAT", "k", "1", "LT"), `(integer) 1`},
		{cmd("EXISTS", "k"), `(integer) 0`},
		{cmd("SET", "k", "v"), `OK`},
		{cmd("EXPIREAT", "k", "99999999999", "NX"), `(integer) 1`},
		{cmd("EXPIREAT", "k", "99999999999", "NX"), `(integer) 0`},
		{cmd("EXPIREAT", "k", "99999999998", "GT"), `(integer) 0`},
		{cmd("EXPIREAT", "k", "99999999998", "LT"), `(integer) 1`},
		{cmd("EXPIRETIME", "k"), `(integer) 99999999998`},
		{cmd("PEXPIRE", "k", "100", "Unknown"), `(error) ERR Unsupported option Unknown`},
		{cmd("PEXPIREAT", "k", "100", "Unknown"), `(error) ERR Unsupported option Unknown`},
		{cmd("EXPIREAT", "k", "100", "Unknown"), `(error) ERR Unsupported option Unknown`},
		{cmd("EXPIRE", "k", "100", "a\r\nb"), `(error) ERR Unsupported option a  b`},
		{cmd("EXPIRE", "nope", "100", "GT"), `(integer) 0`},
		{cmd("EXPIRE", "nope", "100", "LT"), `(integer) 0`},
		{cmd("EXPIRE", "nope", "100", "XX"), `(integer) 0`},
		{cmd("EXPIRE", "nope", "100", "NX"), `(integer) 0`},
	})
}

// TestExpiredKeysAreGone: keys past their time are invisible to every command, and SET KEEPTTL or APPEND on them start afresh.
func TestExpiredKeysAreGone(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("SET", "a", "1"), `OK`},
		{cmd("SET", "b", "2", "EX", "100"), `OK`},
		{cmd("SET", "c", "3", "PX", "50"), `OK`},
	})
	te.Clock.FastForward(120 * time.Millisecond)
	te.run([]step{
		{cmd("GET", "c"), `(nil)`},
		{cmd("EXISTS", "c"), `(integer) 0`},
		{cmd("TTL", "c"), `(integer) -2`},
		{cmd("KEYS", "*"), `["a" "b"]`},
		{cmd("SCAN", "0"), `["0" ["a" "b"]]`},
		{cmd("MGET", "a", "b", "c"), `["1" "2" (nil)]`},
		{cmd("EXPIRE", "c", "100"), `(integer) 0`},
		{cmd("PERSIST", "c"), `(integer) 0`},
		{cmd("RENAME", "c", "d"), `(error) ERR no such key`},
		{cmd("COPY", "c", "d"), `(integer) 0`},
		{cmd("INCR", "c"), `(integer) 1`},
		{cmd("TTL", "c"), `(integer) -1`},
		{cmd("SET", "e", "x", "PX", "50"), `OK`},
	})
	te.Clock.FastForward(120 * time.Millisecond)
	te.run([]step{
		{cmd("SET", "e", "y", "KEEPTTL"), `OK`},
		{cmd("TTL", "e"), `(integer) -1`},
		{cmd("SET", "f", "x", "PX", "50"), `OK`},
	})
	te.Clock.FastForward(120 * time.Millisecond)
	te.run([]step{
		{cmd("SET", "f", "y", "NX"), `OK`},
		{cmd("APPEND", "g", "x"), `(integer) 1`},
		{cmd("SET", "g", "x", "PX", "50"), `OK`},
	})
	te.Clock.FastForward(120 * time.Millisecond)
	te.run([]step{
		{cmd("APPEND", "g", "y"), `(integer) 1`},
		{cmd("TTL", "g"), `(integer) -1`},
		{cmd("GET", "g"), `"y"`},
	})
}

// TestTTLKeptOrCleared: commands that modify a string in place keep its
// TTL, commands that replace it clear it (or set a new one).
func TestTTLKeptOrCleared(t *testing.T) {
	te := newTestEngine(t)
	keep := [][]string{
		cmd("SET", "k", "v2", "KEEPTTL"),
		cmd("APPEND", "k", "x"),
		cmd("SETRANGE", "k", "0", "x"),
		cmd("INCR", "k"),
		cmd("INCRBY", "k", "2"),
		cmd("DECR", "k"),
		cmd("DECRBY", "k", "2"),
		cmd("INCRBYFLOAT", "k", "1.5"),
		cmd("GETEX", "k"),
		cmd("SETNX", "k", "x"),
		cmd("MSETNX", "k", "x"),
		cmd("RENAME", "k", "k"),
	}
	for _, c := range keep {
		val := "5"
		if c[0] == "SET" || c[0] == "APPEND" || c[0] == "SETRANGE" {
			val = "v"
		}
		te.do("SET", "k", val, "PX", "1000")
		te.Clock.FastForward(400 * time.Millisecond)
		if rep := te.do(c...); rep.Kind == KindError {
			t.Errorf("%q: %s", c, rep)
		}
		if got := te.do("PTTL", "k").String(); got != "(integer) 600" {
			t.Errorf("%q: PTTL %s, want 600", c, got)
		}
		// Live through its expiry millisecond, gone right after (Redis:
		// expired when now > expireAt).
		te.Clock.FastForward(600 * time.Millisecond)
		if got := te.do("PTTL", "k").String(); got != "(integer) 0" {
			t.Errorf("%q: at its expiry ms PTTL is %s, want 0", c, got)
		}
		te.Clock.FastForward(time.Millisecond)
		if got := te.do("EXISTS", "k").String(); got != "(integer) 0" {
			t.Errorf("%q: key still there after its expiry time", c)
		}
	}
	clear := [][]string{
		cmd("SET", "k", "v"),
		cmd("SET", "k", "v", "XX"),
		cmd("GETSET", "k", "v"),
		cmd("MSET", "k", "v"),
		cmd("PERSIST", "k"),
		cmd("GETEX", "k", "PERSIST"),
	}
	for _, c := range clear {
		te.do("SET", "k", "v", "PX", "1000")
		te.do(c...)
		if got := te.do("PTTL", "k").String(); got != "(integer) -1" {
			t.Errorf("%q: PTTL %s, want -1", c, got)
		}
	}
	replace := [][]string{
		cmd("SETEX", "k", "5", "v"),
		cmd("PSETEX", "k", "5000", "v"),
		cmd("SET", "k", "v", "EX", "5"),
		cmd("GETEX", "k", "PX", "5000"),
		cmd("EXPIRE", "k", "5"),
		cmd("PEXPIREAT", "k", strconv.FormatInt(te.Clock.NowMs()+5000, 10)),
	}
	for _, c := range replace {
		te.do("SET", "k", "v", "PX", "1000")
		te.do(c...)
		if got := te.do("PTTL", "k").String(); got != "(integer) 5000" {
			t.Errorf("%q: PTTL %s, want 5000", c, got)
		}
	}
}

// TestTTLMovesWithKey: RENAME, COPY and MOVE carry the TTL along.
func TestTTLMovesWithKey(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("SET", "a", "v", "PX", "1000"), "OK"},
		{cmd("RENAME", "a", "b"), "OK"},
		{cmd("COPY", "b", "c"), "(integer) 1"},
		{cmd("COPY", "b", "d", "DB", "2"), "(integer) 1"},
		{cmd("RENAMENX", "c", "e"), "(integer) 1"},
		{cmd("MOVE", "e", "3"), "(integer) 1"},
		{cmd("PTTL", "b"), "(integer) 1000"},
	})
	te.Clock.FastForward(999 * time.Millisecond)
	te.run([]step{
		{cmd("PTTL", "b"), "(integer) 1"},
		{cmd("TTL", "b"), "(integer) 0"},
	})
	te.Clock.FastForward(2 * time.Millisecond)
	te.run([]step{
		{cmd("EXISTS", "a", "b", "c", "e"), "(integer) 0"},
		{cmd("SELECT", "2"), "OK"},
		{cmd("EXISTS", "d"), "(integer) 0"},
		{cmd("SELECT", "3"), "OK"},
		{cmd("EXISTS", "e"), "(integer) 0"},
	})
}

// TestHugeTTLs: TTLs up to the int64 limit of unix milliseconds are stored
// and reported exactly, and time passing does not overflow anything.
func TestHugeTTLs(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("SET", "k", "v"), "OK"},
		{cmd("PEXPIREAT", "k", "9223372036854775807"), "(integer) 1"},
		{cmd("PEXPIRETIME", "k"), "(integer) 9223372036854775807"},
		{cmd("EXPIRETIME", "k"), "(integer) 9223372036854776"},
		{cmd("PTTL", "k"), "(integer) 9223370336854775807"},
		{cmd("SET", "s", "v", "EX", "9223370000000000"), "OK"},
		{cmd("TTL", "s"), "(integer) 9223370000000000"},
		{cmd("SET", "p", "v", "PX", "9223370000000000000"), "OK"},
		{cmd("PTTL", "p"), "(integer) 9223370000000000000"},
	})
	te.Clock.FastForward(100 * 365 * 24 * time.Hour)
	te.run([]step{
		{cmd("PTTL", "k"), "(integer) 9223367183254775807"},
		{cmd("TTL", "s"), "(integer) 9223366846400000"},
		{cmd("EXISTS", "k", "s", "p"), "(integer) 3"},
		{cmd("PEXPIRE", "k", "9223370000000000000"), "(error) ERR invalid expire time in 'pexpire' command"},
	})
}

// TestExpireRelativeToClock: EXPIRE and friends use the engine clock, and a
// time at or before it deletes the key at once.
func TestExpireRelativeToClock(t *testing.T) {
	te := newTestEngine(t)
	te.Clock.FastForward(time.Hour)
	te.run([]step{
		{cmd("SET", "k", "v"), "OK"},
		{cmd("EXPIREAT", "k", "1700003600"), "(integer) 1"},
		{cmd("EXISTS", "k"), "(integer) 0"},
		{cmd("SET", "k", "v"), "OK"},
		{cmd("PEXPIREAT", "k", "1700003600001"), "(integer) 1"},
		{cmd("PTTL", "k"), "(integer) 1"},
		{cmd("SET", "k", "v", "PXAT", "1700003600500"), "OK"},
		{cmd("TTL", "k"), "(integer) 1"},
		{cmd("GETEX", "k", "EXAT", "1700003601"), `"v"`},
		{cmd("PTTL", "k"), "(integer) 1000"},
		{cmd("GETEX", "k", "PXAT", "1700003600000"), `"v"`},
		{cmd("EXISTS", "k"), "(integer) 0"},
	})
}
