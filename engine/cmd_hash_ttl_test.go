package engine

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// No redis-server 7.4+ is here: the expected replies of these tests follow
// Redis's t_hash.c (7.4 for HEXPIRE...HPERSIST, 8.x for HGETDEL, HGETEX,
// HSETEX) and the examples of the redis.io command pages. The clock starts
// at 1700000000000 ms.

// ttlStep is a step that may first move the clock.
type ttlStep struct {
	ff   time.Duration
	args []string
	want string
}

func (te *testEngine) runTTL(steps []ttlStep) {
	te.t.Helper()
	for _, st := range steps {
		if st.ff != 0 {
			te.Clock.FastForward(st.ff)
		}
		if got := te.do(st.args...).String(); got != st.want {
			te.t.Errorf("%q: got %s, want %s", st.args, got, st.want)
		}
	}
}

// The examples of the redis.io pages, with the times they show replaced
// by this clock's. Where a page is older than the code it is noted.
func TestHashTTLDocExamples(t *testing.T) {
	for _, tc := range []struct {
		name  string
		start time.Time
		steps []ttlStep
	}{
		{"hexpire", time.Unix(1700000000, 0), []ttlStep{
			// The page shows (nil) for a missing key: the 7.4 code it
			// documents replies -2 per field.
			{0, cmd("HEXPIRE", "no-key", "20", "NX", "FIELDS", "2", "field1", "field2"), `[(integer) -2 (integer) -2]`},
			{0, cmd("HSET", "mykey", "field1", "hello", "field2", "world"), `(integer) 2`},
			{0, cmd("HEXPIRE", "mykey", "10", "FIELDS", "3", "field1", "field2", "field3"), `[(integer) 1 (integer) 1 (integer) -2]`},
			{11 * time.Second, cmd("HGETALL", "mykey"), `[]`},
		}},
		{"hexpiretime", time.Unix(1715705614, 0), []ttlStep{
			{0, cmd("HSET", "mykey", "field1", "hello", "field2", "world"), `(integer) 2`},
			{0, cmd("HEXPIRE", "mykey", "300", "FIELDS", "2", "field1", "field2"), `[(integer) 1 (integer) 1]`},
			{0, cmd("HEXPIRETIME", "mykey", "FIELDS", "2", "field1", "field2"), `[(integer) 1715705914 (integer) 1715705914]`},
		}},
		{"hgetdel", time.Unix(1700000000, 0), []ttlStep{
			{0, cmd("HSET", "mykey", "field1", "Hello", "field2", "World", "field3", "!"), `(integer) 3`},
			{0, cmd("HGETALL", "mykey"), `["field1" "Hello" "field2" "World" "field3" "!"]`},
			{0, cmd("HGETDEL", "mykey", "FIELDS", "2", "field3", "field4"), `["!" (nil)]`},
			{0, cmd("HGETALL", "mykey"), `["field1" "Hello" "field2" "World"]`},
			{0, cmd("HGETDEL", "mykey", "FIELDS", "2", "field1", "field2"), `["Hello" "World"]`},
			{0, cmd("KEYS", "*"), `[]`},
		}},
		{"hsetex", time.Unix(1740414773, 0), []ttlStep{
			{0, cmd("HSETEX", "mykey", "EXAT", "1740470400", "FIELDS", "2", "field1", "Hello", "field2", "World"), `(integer) 1`},
			{0, cmd("HTTL", "mykey", "FIELDS", "2", "field1", "field2"), `[(integer) 55627 (integer) 55627]`},
			{0, cmd("HSETEX", "mykey", "FNX", "EX", "60", "FIELDS", "2", "field1", "Hello", "field2", "World"), `(integer) 0`},
			{0, cmd("HSETEX", "mykey", "FXX", "EX", "60", "KEEPTTL", "FIELDS", "2", "field1", "hello", "field2", "world"),
				`(error) ERR Only one of EX, PX, EXAT, PXAT or KEEPTTL arguments can be specified`},
			{0, cmd("HSETEX", "mykey", "FXX", "KEEPTTL", "FIELDS", "2", "field1", "hello", "field2", "world"), `(integer) 1`},
			{0, cmd("HTTL", "mykey", "FIELDS", "2", "field1", "field2"), `[(integer) 55627 (integer) 55627]`},
		}},
		{"hpersist", time.Unix(1700000000, 0), []ttlStep{
			{0, cmd("HSET", "myhash", "f1", "v1", "f2", "v2", "f3", "v3"), `(integer) 3`},
			{0, cmd("HEXPIRE", "myhash", "1000", "FIELDS", "2", "f2", "f3"), `[(integer) 1 (integer) 1]`},
			{2 * time.Second, cmd("HTTL", "myhash", "FIELDS", "3", "f1", "f2", "f3"), `[(integer) -1 (integer) 998 (integer) 998]`},
			{0, cmd("HPERSIST", "myhash", "FIELDS", "3", "f1", "f2", "f3"), `[(integer) -1 (integer) 1 (integer) 1]`},
			{0, cmd("HTTL", "myhash", "FIELDS", "3", "f1", "f2", "f3"), `[(integer) -1 (integer) -1 (integer) -1]`},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := New(Config{Clock: NewManualClock(tc.start)})
			if err != nil {
				t.Fatal(err)
			}
			te := wrapTestEngine(t, e)
			te.SetActiveExpire(false)
			te.runTTL(tc.steps)
		})
	}
}

func TestHashTTLHexpire(t *testing.T) {
	const at = "1700000010" // 10 s from now, in seconds
	for _, tc := range []struct {
		name  string
		steps []ttlStep
	}{
		{"units", []ttlStep{
			{0, cmd("HEXPIRE", "h", "10", "FIELDS", "1", "a"), `[(integer) 1]`},
			{0, cmd("HPEXPIRETIME", "h", "FIELDS", "1", "a"), `[(integer) 1700000010000]`},
			{0, cmd("HPEXPIRE", "h", "1500", "FIELDS", "1", "a"), `[(integer) 1]`},
			{0, cmd("HPEXPIRETIME", "h", "FIELDS", "1", "a"), `[(integer) 1700000001500]`},
			{0, cmd("HEXPIREAT", "h", at, "FIELDS", "1", "a"), `[(integer) 1]`},
			{0, cmd("HPTTL", "h", "FIELDS", "1", "a"), `[(integer) 10000]`},
			{0, cmd("HPEXPIREAT", "h", "1700000000001", "FIELDS", "1", "a"), `[(integer) 1]`},
			{0, cmd("HPTTL", "h", "FIELDS", "1", "a"), `[(integer) 1]`},
			{0, cmd("HTTL", "h", "FIELDS", "1", "a"), `[(integer) 1]`}, // rounded up
			{0, cmd("HEXPIRETIME", "h", "FIELDS", "1", "a"), `[(integer) 1700000001]`},
		}},
		{"conditions on a field without expiry", []ttlStep{
			{0, cmd("HEXPIRE", "h", "10", "XX", "FIELDS", "1", "a"), `[(integer) 0]`},
			{0, cmd("HEXPIRE", "h", "10", "GT", "FIELDS", "1", "a"), `[(integer) 0]`},
			{0, cmd("HEXPIRE", "h", "10", "LT", "FIELDS", "1", "a"), `[(integer) 1]`},
			{0, cmd("HPERSIST", "h", "FIELDS", "1", "a"), `[(integer) 1]`},
			{0, cmd("HEXPIRE", "h", "10", "nx", "FIELDS", "1", "a"), `[(integer) 1]`},
		}},
		{"conditions on a field with expiry", []ttlStep{
			{0, cmd("HEXPIRE", "h", "10", "FIELDS", "2", "a", "b"), `[(integer) 1 (integer) 1]`},
			{0, cmd("HEXPIRE", "h", "20", "NX", "FIELDS", "1", "a"), `[(integer) 0]`},
			{0, cmd("HEXPIRE", "h", "20", "XX", "FIELDS", "1", "a"), `[(integer) 1]`},
			{0, cmd("HEXPIRE", "h", "20", "GT", "FIELDS", "1", "a"), `[(integer) 0]`},
			{0, cmd("HEXPIRE", "h", "30", "GT", "FIELDS", "1", "a"), `[(integer) 1]`},
			{0, cmd("HEXPIRE", "h", "30", "LT", "FIELDS", "1", "a"), `[(integer) 0]`},
			{0, cmd("HEXPIRE", "h", "5", "LT", "FIELDS", "2", "a", "b"), `[(integer) 1 (integer) 1]`},
			{0, cmd("HTTL", "h", "FIELDS", "3", "a", "b", "c"), `[(integer) 5 (integer) 5 (integer) -1]`},
			// A condition not met keeps the field even for a past time.
			{0, cmd("HEXPIRE", "h", "0", "NX", "FIELDS", "1", "a"), `[(integer) 0]`},
		}},
		{"a time in the past deletes", []ttlStep{
			{0, cmd("HEXPIRE", "h", "0", "FIELDS", "2", "a", "x"), `[(integer) 2 (integer) -2]`},
			{0, cmd("HPEXPIREAT", "h", "1700000000000", "FIELDS", "2", "b", "b"), `[(integer) 2 (integer) -2]`},
			{0, cmd("HGETALL", "h"), `["c" "3"]`},
			{0, cmd("HEXPIREAT", "h", "1", "FIELDS", "1", "c"), `[(integer) 2]`},
			{0, cmd("EXISTS", "h"), `(integer) 0`},
		}},
		{"missing key and wrong type", []ttlStep{
			{0, cmd("HEXPIRE", "nokey", "10", "FIELDS", "2", "a", "b"), `[(integer) -2 (integer) -2]`},
			{0, cmd("HTTL", "nokey", "FIELDS", "1", "a"), `[(integer) -2]`},
			{0, cmd("HPERSIST", "nokey", "FIELDS", "1", "a"), `[(integer) -2]`},
			{0, cmd("EXISTS", "nokey"), `(integer) 0`},
			{0, cmd("SET", "s", "x"), `OK`},
			// The type is checked before the arguments.
			{0, cmd("HEXPIRE", "s", "x", "FIELDS", "0", "a"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
			{0, cmd("HTTL", "s", "x", "0", "a"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
			{0, cmd("HPERSIST", "s", "FIELDS", "1", "a"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		}},
		{"errors", []ttlStep{
			{0, cmd("HEXPIRE", "h", "10", "FIELDS", "1"), `(error) ERR wrong number of arguments for 'hexpire' command`},
			{0, cmd("HEXPIRE", "h", "abc", "FIELDS", "1", "a"), `(error) ERR value is not an integer or out of range`},
			{0, cmd("HEXPIRE", "h", "-1", "FIELDS", "1", "a"), `(error) ERR invalid expire time, must be >= 0`},
			{0, cmd("HEXPIRE", "h", "70368744178", "FIELDS", "1", "a"), `(error) ERR invalid expire time in 'hexpire' command`},
			{0, cmd("HEXPIRE", "h", "70368744177", "FIELDS", "1", "a"), `(error) ERR invalid expire time in 'hexpire' command`},
			{0, cmd("HEXPIREAT", "h", "70368744177", "FIELDS", "1", "a"), `[(integer) 1]`},
			{0, cmd("HPEXPIREAT", "h", "70368744177664", "FIELDS", "1", "a"), `(error) ERR invalid expire time in 'hpexpireat' command`},
			{0, cmd("HPEXPIRE", "h", "70368744177663", "FIELDS", "1", "a"), `(error) ERR invalid expire time in 'hpexpire' command`},
			{0, cmd("HEXPIRE", "h", "10", "FIELD", "1", "a"), `(error) ERR Mandatory argument FIELDS is missing or not at the right position`},
			{0, cmd("HEXPIRE", "h", "10", "XX", "1", "a"), `(error) ERR Mandatory argument FIELDS is missing or not at the right position`},
			{0, cmd("HEXPIRE", "h", "10", "FIELDS", "0", "a"), "(error) ERR Parameter `numFields` should be greater than 0"},
			{0, cmd("HEXPIRE", "h", "10", "FIELDS", "-1", "a"), "(error) ERR Parameter `numFields` should be greater than 0"},
			{0, cmd("HEXPIRE", "h", "10", "FIELDS", "x", "a"), "(error) ERR Parameter `numFields` should be greater than 0"},
			{0, cmd("HEXPIRE", "h", "10", "FIELDS", "2", "a"), "(error) ERR The `numfields` parameter must match the number of arguments"},
			{0, cmd("HEXPIRE", "h", "10", "FIELDS", "1", "a", "b"), "(error) ERR The `numfields` parameter must match the number of arguments"},
			{0, cmd("HTTL", "h", "FIELDS", "0", "a"), "(error) ERR Number of fields must be a positive integer"},
			{0, cmd("HTTL", "h", "FIELD", "1", "a"), "(error) ERR Mandatory argument FIELDS is missing or not at the right position"},
			{0, cmd("HPTTL", "h", "FIELDS", "2", "a"), "(error) ERR The `numfields` parameter must match the number of arguments"},
			{0, cmd("HPERSIST", "h", "FIELDS", "x", "a"), "(error) ERR Number of fields must be a positive integer"},
			{0, cmd("HTTL", "h", "FIELDS", "1"), `(error) ERR wrong number of arguments for 'httl' command`},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			te := newLazyExpiryEngine(t)
			te.do("HSET", "h", "a", "1", "b", "2", "c", "3")
			te.runTTL(tc.steps)
		})
	}
}

func TestHashTTLGetdelGetexSetex(t *testing.T) {
	wrongType := `(error) WRONGTYPE Operation against a key holding the wrong kind of value`
	for _, tc := range []struct {
		name  string
		steps []ttlStep
	}{
		{"hgetdel", []ttlStep{
			{0, cmd("HGETDEL", "h", "FIELDS", "3", "a", "a", "x"), `["1" (nil) (nil)]`},
			{0, cmd("HGETDEL", "nokey", "FIELDS", "1", "a"), `[(nil)]`},
			{0, cmd("HGETDEL", "s", "FIELDS", "1", "a"), wrongType},
			{0, cmd("HGETDEL", "h", "FIELD", "1", "a"), `(error) ERR Mandatory argument FIELDS is missing or not at the right position`},
			{0, cmd("HGETDEL", "h", "FIELDS", "0", "a"), `(error) ERR Number of fields must be a positive integer`},
			{0, cmd("HGETDEL", "h", "FIELDS", "2", "a"), "(error) ERR The `numfields` parameter must match the number of arguments"},
			{0, cmd("HGETDEL", "h", "FIELDS", "1"), `(error) ERR wrong number of arguments for 'hgetdel' command`},
			{0, cmd("HGETDEL", "h", "FIELDS", "2", "b", "c"), `["2" "3"]`},
			{0, cmd("EXISTS", "h"), `(integer) 0`},
		}},
		{"hgetex", []ttlStep{
			{0, cmd("HGETEX", "h", "FIELDS", "2", "a", "x"), `["1" (nil)]`},
			{0, cmd("HGETEX", "h", "EX", "10", "FIELDS", "2", "a", "x"), `["1" (nil)]`},
			{0, cmd("HPTTL", "h", "FIELDS", "2", "a", "b"), `[(integer) 10000 (integer) -1]`},
			{0, cmd("HGETEX", "h", "PX", "500", "FIELDS", "1", "b"), `["2"]`},
			{0, cmd("HGETEX", "h", "EXAT", "1700000020", "FIELDS", "1", "c"), `["3"]`},
			{0, cmd("HGETEX", "h", "pxat", "1700000030000", "FIELDS", "1", "a"), `["1"]`},
			{0, cmd("HPEXPIRETIME", "h", "FIELDS", "3", "a", "b", "c"), `[(integer) 1700000030000 (integer) 1700000000500 (integer) 1700000020000]`},
			{0, cmd("HGETEX", "h", "PERSIST", "FIELDS", "2", "a", "x"), `["1" (nil)]`},
			{0, cmd("HTTL", "h", "FIELDS", "1", "a"), `[(integer) -1]`},
			{time.Second, cmd("HGETEX", "h", "FIELDS", "2", "b", "c"), `[(nil) "3"]`},
			// A time in the past deletes after replying.
			{0, cmd("HGETEX", "h", "EX", "0", "FIELDS", "2", "a", "c"), `["1" "3"]`},
			{0, cmd("EXISTS", "h"), `(integer) 0`},
			{0, cmd("HGETEX", "nokey", "PERSIST", "FIELDS", "1", "a"), `[(nil)]`},
			{0, cmd("HGETEX", "s", "FIELDS", "1", "a"), wrongType},
			{0, cmd("HGETEX", "k", "EX", "x", "FIELDS", "1", "a"), `(error) ERR value is not an integer or out of range`},
			{0, cmd("HGETEX", "k", "EX", "-1", "FIELDS", "1", "a"), `(error) ERR invalid expire time, must be >= 0`},
			{0, cmd("HGETEX", "k", "PX", "70368744177663", "FIELDS", "1", "a"), `(error) ERR invalid expire time in 'hgetex' command`},
			{0, cmd("HGETEX", "k", "KEEPTTL", "FIELDS", "1", "a"), `(error) ERR Mandatory argument FIELDS is missing or not at the right position`},
			{0, cmd("HGETEX", "k", "EX", "1", "FIELDS"), `(error) ERR Number of fields must be a positive integer`},
			{0, cmd("HGETEX", "k", "FIELDS", "2", "a"), "(error) ERR The `numfields` parameter must match the number of arguments"},
		}},
		{"hsetex", []ttlStep{
			{0, cmd("HSETEX", "n", "FIELDS", "2", "a", "1", "b", "2"), `(integer) 1`},
			{0, cmd("HGETALL", "n"), `["a" "1" "b" "2"]`},
			{0, cmd("HSETEX", "n", "FXX", "PX", "100", "FIELDS", "2", "a", "x", "z", "y"), `(integer) 0`},
			{0, cmd("HSETEX", "n", "FNX", "PX", "100", "FIELDS", "2", "z", "x", "a", "y"), `(integer) 0`},
			{0, cmd("HSETEX", "n", "FXX", "PX", "100", "FIELDS", "1", "a", "x"), `(integer) 1`},
			{0, cmd("HSETEX", "n", "FNX", "EX", "100", "FIELDS", "1", "c", "3"), `(integer) 1`},
			{0, cmd("HPTTL", "n", "FIELDS", "3", "a", "b", "c"), `[(integer) 100 (integer) -1 (integer) 100000]`},
			{0, cmd("HSETEX", "n", "KEEPTTL", "FIELDS", "1", "a", "y"), `(integer) 1`},
			{0, cmd("HPTTL", "n", "FIELDS", "1", "a"), `[(integer) 100]`},
			{0, cmd("HSETEX", "n", "FIELDS", "1", "c", "4"), `(integer) 1`}, // drops the expiry
			{0, cmd("HPTTL", "n", "FIELDS", "1", "c"), `[(integer) -1]`},
			{0, cmd("HSETEX", "nokey", "FXX", "FIELDS", "1", "a", "1"), `(integer) 0`},
			{0, cmd("EXISTS", "nokey"), `(integer) 0`},
			{0, cmd("HSETEX", "past", "PXAT", "1", "FIELDS", "1", "a", "1"), `(integer) 1`},
			{0, cmd("EXISTS", "past"), `(integer) 0`},
			{0, cmd("HSETEX", "n", "EXAT", "1", "FIELDS", "1", "a", "1"), `(integer) 1`},
			{0, cmd("HGETALL", "n"), `["b" "2" "c" "4"]`},
			{0, cmd("HSETEX", "s", "FIELDS", "1", "a", "1"), wrongType},
			// Every argument error comes before the type check.
			{0, cmd("HSETEX", "s", "FIELDS", "2", "a", "1"), `(error) ERR wrong number of arguments for 'hsetex' command`},
			{0, cmd("HSETEX", "s", "FIELDS", "1", "a", "1", "b"), `(error) ERR wrong number of arguments for 'hsetex' command`},
			{0, cmd("HSETEX", "s", "x", "FIELDS", "1", "a"), `(error) ERR unknown argument: x`},
			{0, cmd("HSETEX", "s", "FIELDS", "1", "a", "1", "b", "2"), `(error) ERR wrong number of arguments for 'hsetex' command`},
			{0, cmd("HSETEX", "s", "FIELDS", "0", "a", "1"), `(error) ERR invalid number of fields`},
			{0, cmd("HSETEX", "s", "FIELDS", "2147483648", "a", "1"), `(error) ERR invalid number of fields`},
			{0, cmd("HSETEX", "s", "FNX", "FXX", "FIELDS", "1", "a", "1"), `(error) ERR Only one of FXX or FNX arguments can be specified`},
			{0, cmd("HSETEX", "s", "EX", "1", "PX", "1", "FIELDS", "1", "a", "1"), `(error) ERR Only one of EX, PX, EXAT, PXAT or KEEPTTL arguments can be specified`},
			{0, cmd("HSETEX", "s", "KEEPTTL", "EXAT", "1", "FIELDS", "1", "a", "1"), `(error) ERR Only one of EX, PX, EXAT, PXAT or KEEPTTL arguments can be specified`},
			{0, cmd("HSETEX", "s", "EX", "x", "FIELDS", "1", "a", "1"), `(error) ERR value is not an integer or out of range`},
			{0, cmd("HSETEX", "s", "EX", "-5", "FIELDS", "1", "a", "1"), `(error) ERR invalid expire time, must be >= 0`},
			{0, cmd("HSETEX", "s", "EX", "70368744177", "FIELDS", "1", "a", "1"), `(error) ERR invalid expire time in 'hsetex' command`},
			{0, cmd("HSETEX", "s", "NX", "FIELDS", "1", "a", "1"), `(error) ERR unknown argument: NX`},
			{0, cmd("HSETEX", "s", "FNX", "FNX", "FNX", "EX"), `(error) ERR Only one of FXX or FNX arguments can be specified`},
			{0, cmd("HSETEX", "s", "FNX", "KEEPTTL", "a", "b"), `(error) ERR unknown argument: a`},
			{0, cmd("HSETEX", "s", "FNX", "x", "y", "EX"), `(error) ERR unknown argument: x`},
			{0, cmd("HSETEX", "s", "FNX", "KEEPTTL", "FNX", "EX"), `(error) ERR Only one of FXX or FNX arguments can be specified`},
			{0, cmd("HSETEX", "s", "FNX", "KEEPTTL", "PX", "EX"), `(error) ERR Only one of EX, PX, EXAT, PXAT or KEEPTTL arguments can be specified`},
			{0, cmd("HSETEX", "s", "FNX", "FIELDS", "1", "EX"), `(error) ERR wrong number of arguments for 'hsetex' command`},
			{0, cmd("HSETEX", "s", "FXX", "x", "FIELDS", "1"), `(error) ERR unknown argument: x`},
			{0, cmd("HSETEX", "s", "FXX", "PX", "1", "EX"), `(error) ERR Only one of EX, PX, EXAT, PXAT or KEEPTTL arguments can be specified`},
			{0, cmd("HSETEX", "s", "FXX", "FNX", "1", "EX"), `(error) ERR Only one of FXX or FNX arguments can be specified`},
			{0, cmd("HSETEX", "s", "FXX", "a", "b", "PX"), `(error) ERR unknown argument: a`},
			{0, cmd("HSETEX", "s", "PX", "1", "FXX", "PX"), `(error) ERR Only one of EX, PX, EXAT, PXAT or KEEPTTL arguments can be specified`},
			{0, cmd("HSETEX", "s", "FXX", "KEEPTTL", "PXAT"), `(error) ERR wrong number of arguments for 'hsetex' command`},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			te := newLazyExpiryEngine(t)
			te.do("HSET", "h", "a", "1", "b", "2", "c", "3")
			te.do("SET", "s", "x")
			te.runTTL(tc.steps)
		})
	}
}

// An expired field is invisible to every hash command at once, before the
// sweeper removes it; the key stays until then, as in Redis.
func TestHashTTLExpiredFieldIsInvisible(t *testing.T) {
	te := newLazyExpiryEngine(t)
	te.runTTL([]ttlStep{
		{0, cmd("HSET", "h", "a", "1", "b", "22"), `(integer) 2`},
		{0, cmd("HPEXPIRE", "h", "100", "FIELDS", "1", "a"), `[(integer) 1]`},
		{0, cmd("OBJECT", "ENCODING", "h"), `"listpackex"`},
		{100 * time.Millisecond, cmd("HGET", "h", "a"), `"1"`}, // lives through its millisecond
		{time.Millisecond, cmd("HGET", "h", "a"), `(nil)`},
		{0, cmd("HMGET", "h", "a", "b"), `[(nil) "22"]`},
		{0, cmd("HGETALL", "h"), `["b" "22"]`},
		{0, cmd("HKEYS", "h"), `["b"]`},
		{0, cmd("HVALS", "h"), `["22"]`},
		{0, cmd("HLEN", "h"), `(integer) 1`},
		{0, cmd("HEXISTS", "h", "a"), `(integer) 0`},
		{0, cmd("HSTRLEN", "h", "a"), `(integer) 0`},
		{0, cmd("HSCAN", "h", "0"), `["0" ["b" "22"]]`},
		{0, cmd("HRANDFIELD", "h", "-5"), `["b" "b" "b" "b" "b"]`},
		{0, cmd("HTTL", "h", "FIELDS", "1", "a"), `[(integer) -2]`},
		{0, cmd("HPERSIST", "h", "FIELDS", "1", "a"), `[(integer) -2]`},
		{0, cmd("HEXPIRE", "h", "5", "FIELDS", "1", "a"), `[(integer) -2]`},
		{0, cmd("HSETNX", "h", "a", "new"), `(integer) 1`},
		{0, cmd("HGETALL", "h"), `["b" "22" "a" "new"]`},
		{0, cmd("OBJECT", "ENCODING", "h"), `"listpack"`},
		// Every field gone: the hash reads as missing, the key waits
		// for the sweeper (EXISTS, TYPE see it, as in Redis).
		{0, cmd("HPEXPIRE", "h", "1", "FIELDS", "2", "a", "b"), `[(integer) 1 (integer) 1]`},
		{2 * time.Millisecond, cmd("HLEN", "h"), `(integer) 0`},
		{0, cmd("HGETALL", "h"), `[]`},
		{0, cmd("HRANDFIELD", "h"), `(nil)`},
		{0, cmd("EXISTS", "h"), `(integer) 1`},
		{0, cmd("TYPE", "h"), `hash`},
	})
	te.Sweep(0)
	te.runTTL([]ttlStep{
		{0, cmd("EXISTS", "h"), `(integer) 0`},
		{0, cmd("DBSIZE"), `(integer) 0`},
	})
}

// HSET overwrites a field's expiry away, HINCRBY and HINCRBYFLOAT keep it
// (Redis's HASH_SET_KEEP_TTL); the key's own TTL is separate; RENAME and
// COPY carry the field expiries.
func TestHashTTLOtherCommands(t *testing.T) {
	te := newLazyExpiryEngine(t)
	te.runTTL([]ttlStep{
		{0, cmd("HSET", "h", "s", "x", "i", "1", "f", "1.5"), `(integer) 3`},
		{0, cmd("HEXPIRE", "h", "100", "FIELDS", "3", "s", "i", "f"), `[(integer) 1 (integer) 1 (integer) 1]`},
		{0, cmd("HSET", "h", "s", "y"), `(integer) 0`},
		{0, cmd("HINCRBY", "h", "i", "2"), `(integer) 3`},
		{0, cmd("HINCRBYFLOAT", "h", "f", "1"), `"2.5"`},
		{0, cmd("HTTL", "h", "FIELDS", "3", "s", "i", "f"), `[(integer) -1 (integer) 100 (integer) 100]`},
		{0, cmd("EXPIRE", "h", "50"), `(integer) 1`},
		{0, cmd("TTL", "h"), `(integer) 50`},
		{0, cmd("HTTL", "h", "FIELDS", "1", "i"), `[(integer) 100]`},
		{0, cmd("PERSIST", "h"), `(integer) 1`},
		{0, cmd("HTTL", "h", "FIELDS", "1", "i"), `[(integer) 100]`},
		{0, cmd("HDEL", "h", "i"), `(integer) 1`},
		{0, cmd("HSET", "h", "i", "0"), `(integer) 1`},
		{0, cmd("HTTL", "h", "FIELDS", "1", "i"), `[(integer) -1]`},
		{0, cmd("RENAME", "h", "h2"), `OK`},
		{0, cmd("HTTL", "h2", "FIELDS", "1", "f"), `[(integer) 100]`},
		{0, cmd("COPY", "h2", "h3"), `(integer) 1`},
		{0, cmd("HTTL", "h3", "FIELDS", "1", "f"), `[(integer) 100]`},
		{0, cmd("TYPE", "h3"), `hash`},
		{0, cmd("MOVE", "h3", "1"), `(integer) 1`},
		{0, cmd("SWAPDB", "0", "1"), `OK`},
		{0, cmd("HTTL", "h3", "FIELDS", "1", "f"), `[(integer) 100]`},
	})
	// The sweeper finds the copies under their new names.
	te.Clock.FastForward(101 * time.Second)
	te.Sweep(0)
	te.runTTL([]ttlStep{
		{0, cmd("HGETALL", "h3"), `["s" "y" "i" "0"]`},
		{0, cmd("SELECT", "1"), `OK`},
		{0, cmd("HGETALL", "h2"), `["s" "y" "i" "0"]`},
	})
}

// The keyspace events of the new commands and of field expiry, in Redis's
// order.
func TestHashTTLEvents(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup [][]string
		ff    time.Duration
		sweep bool
		cmd   []string
		want  string
	}{
		{"hexpire", nil, 0, false, cmd("HEXPIRE", "h", "10", "FIELDS", "1", "a"), "hexpire h"},
		{"hexpire condition not met", nil, 0, false, cmd("HEXPIRE", "h", "10", "XX", "FIELDS", "1", "a"), ""},
		{"hexpire past time", nil, 0, false, cmd("HEXPIRE", "h", "0", "FIELDS", "1", "a"), "hdel h"},
		{"hexpire past time, last field", nil, 0, false, cmd("HEXPIRE", "h", "0", "FIELDS", "2", "a", "b"), "hdel h, del h"},
		{"hpersist", [][]string{cmd("HEXPIRE", "h", "10", "FIELDS", "1", "a")}, 0, false, cmd("HPERSIST", "h", "FIELDS", "2", "a", "b"), "hpersist h"},
		{"hpersist nothing", nil, 0, false, cmd("HPERSIST", "h", "FIELDS", "1", "a"), ""},
		{"hgetdel", nil, 0, false, cmd("HGETDEL", "h", "FIELDS", "1", "a"), "hdel h"},
		{"hgetdel last", nil, 0, false, cmd("HGETDEL", "h", "FIELDS", "2", "a", "b"), "hdel h, del h"},
		{"hgetex ex", nil, 0, false, cmd("HGETEX", "h", "EX", "5", "FIELDS", "1", "a"), "hexpire h"},
		{"hgetex persist", [][]string{cmd("HEXPIRE", "h", "10", "FIELDS", "1", "a")}, 0, false, cmd("HGETEX", "h", "PERSIST", "FIELDS", "1", "a"), "hpersist h"},
		{"hgetex past", nil, 0, false, cmd("HGETEX", "h", "PX", "0", "FIELDS", "2", "a", "b"), "hdel h, del h"},
		{"hgetex plain", nil, 0, false, cmd("HGETEX", "h", "FIELDS", "1", "a"), ""},
		{"hsetex", nil, 0, false, cmd("HSETEX", "h", "FIELDS", "1", "a", "2"), "hset h"},
		{"hsetex ex", nil, 0, false, cmd("HSETEX", "h", "EX", "5", "FIELDS", "1", "a", "2"), "hset h, hexpire h"},
		{"hsetex past", nil, 0, false, cmd("HSETEX", "n", "EXAT", "1", "FIELDS", "1", "a", "2"), "hset n, hdel n, del n"},
		{"hsetex fnx fails", nil, 0, false, cmd("HSETEX", "h", "FNX", "FIELDS", "1", "a", "2"), ""},
		{"swept field", [][]string{cmd("HPEXPIRE", "h", "10", "FIELDS", "1", "a")}, time.Second, true, nil, "hexpired h"},
		{"swept last fields", [][]string{cmd("HPEXPIRE", "h", "10", "FIELDS", "2", "a", "b")}, time.Second, true, nil, "hexpired h, del h"},
		// A write that drops fields whose time has passed raises
		// "hexpired" first.
		{"hgetex after expiry", [][]string{cmd("HPEXPIRE", "h", "10", "FIELDS", "1", "a")}, time.Second, false, cmd("HGETEX", "h", "FIELDS", "1", "a"), "hexpired h"},
		{"hgetdel after expiry", [][]string{cmd("HPEXPIRE", "h", "10", "FIELDS", "1", "a")}, time.Second, false, cmd("HGETDEL", "h", "FIELDS", "2", "a", "b"), "hexpired h, hdel h, del h"},
		{"hsetex fxx fails after expiry", [][]string{cmd("HPEXPIRE", "h", "10", "FIELDS", "1", "a")}, time.Second, false, cmd("HSETEX", "h", "FXX", "FIELDS", "1", "a", "2"), "hexpired h"},
		{"write after expiry", [][]string{cmd("HPEXPIRE", "h", "10", "FIELDS", "1", "a")}, time.Second, false, cmd("HSET", "h", "c", "3"), "hexpired h"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			te := newLazyExpiryEngine(t)
			log := &eventLog{}
			te.SetPublisher(log)
			te.do("HSET", "h", "a", "1", "b", "2")
			for _, c := range tc.setup {
				te.do(c...)
			}
			te.do("CONFIG", "SET", "notify-keyspace-events", "Eh")
			if strings.Contains(tc.want, "del ") {
				te.do("CONFIG", "SET", "notify-keyspace-events", "Egh")
			}
			te.Clock.FastForward(tc.ff)
			if tc.sweep {
				te.Sweep(0)
			}
			if tc.cmd != nil {
				te.do(tc.cmd...)
			}
			// HSET's own event comes from cmd_hash.go, which may or
			// may not raise it yet: only the events before it count.
			// Only keyevent classes (E) are on: "__keyevent@0__:<event> <key>".
			got := strings.ReplaceAll(strings.Join(log.take(), ", "), "__keyevent@0__:", "")
			if tc.want == "hexpired h" && tc.cmd != nil {
				got, _, _ = strings.Cut(got, ", hset")
			}
			if got != tc.want {
				t.Errorf("events %q, want %q", got, tc.want)
			}
		})
	}
}

// The sweeper removes expired fields a bounded batch at a time, finds
// stale queue entries, and leaves hashes without due fields alone.
func TestHashTTLSweeper(t *testing.T) {
	const sweepBatch = 200 // keyspace/sweep.go: hashes per transaction
	te := newLazyExpiryEngine(t)
	for i := 0; i < sweepBatch+50; i++ {
		k := "h" + strconv.Itoa(i)
		te.do("HSET", k, "a", "1", "b", "2")
		te.do("HPEXPIRE", k, strconv.Itoa(10+i%3), "FIELDS", "1", "a")
	}
	te.do("HSET", "later", "a", "1")
	te.do("HPEXPIRE", "later", "100000", "FIELDS", "1", "a")
	// Re-timed before it was due: the first entry is stale.
	te.do("HPEXPIRE", "h0", "50000", "FIELDS", "1", "a")
	te.Clock.FastForward(time.Second)
	te.Sweep(0)
	te.Do(false, 0, func(tx *Tx) {
		for i := 0; i < sweepBatch+50; i++ {
			v, ok := tx.Get([]byte("h" + strconv.Itoa(i)))
			h := decodeHash(v.Payload)
			want := 1
			if i == 0 {
				want = 2
			}
			if !ok || len(h.ents) != want {
				t.Fatalf("h%d: %d stored fields, want %d", i, len(h.ents), want)
			}
			if i > 0 && hashFieldExpiry(v.Payload) != 0 {
				t.Fatalf("h%d keeps the field expiry flag", i)
			}
		}
	})
	// h0 and later are still queued, at their new times.
	te.Clock.FastForward(200 * time.Second)
	if te.Sweep(0); te.do("HLEN", "h0").Int != 1 || te.do("EXISTS", "later").Int != 0 {
		t.Errorf("h0 and later were not swept at their times")
	}
}

// Field expiries are in the stored value: they survive a restart with the
// AOF, and the sweeper's queue is rebuilt from it.
func TestHashTTLSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	start := time.Unix(1700000000, 0)
	cfg := Config{Params: map[string]string{"dir": dir, "appendonly": "yes", "appendfsync": FsyncAlways}, Clock: NewManualClock(start)}
	te := openEngine(t, cfg)
	te.runTTL([]ttlStep{
		{0, cmd("HSET", "h", "a", "1", "b", "2", "c", "3"), `(integer) 3`},
		{0, cmd("HPEXPIRE", "h", "2000", "FIELDS", "1", "a"), `[(integer) 1]`},
		{0, cmd("HPEXPIRE", "h", "500", "FIELDS", "1", "b"), `[(integer) 1]`},
	})
	te.Close()
	cfg.Clock = NewManualClock(start.Add(time.Second))
	te = openEngine(t, cfg)
	te.SetActiveExpire(false)
	te.runTTL([]ttlStep{
		{0, cmd("HPTTL", "h", "FIELDS", "3", "a", "b", "c"), `[(integer) 1000 (integer) -2 (integer) -1]`},
		{0, cmd("HGETALL", "h"), `["a" "1" "c" "3"]`},
	})
	te.Sweep(0)
	te.Do(false, 0, func(tx *Tx) {
		v, _ := tx.Get([]byte("h"))
		if n := len(decodeHash(v.Payload).ents); n != 2 {
			t.Errorf("%d stored fields after the sweep, want 2", n)
		}
	})
}

// A semaphore with one field per holder, each with its own lease: holders
// expire one by one, HLEN drops, and the key goes with the last one.
func TestHashTTLSemaphore(t *testing.T) {
	te := newLazyExpiryEngine(t)
	const permits = 3
	acquire := func(holder string, leaseMs int) bool {
		if te.do("HLEN", "sem").Int >= permits {
			return false
		}
		te.do("HSET", "sem", holder, "1")
		te.do("HPEXPIRE", "sem", strconv.Itoa(leaseMs), "FIELDS", "1", holder)
		return true
	}
	for i, lease := range []int{100, 200, 300} {
		if !acquire("holder"+strconv.Itoa(i), lease) {
			t.Fatalf("holder%d not admitted", i)
		}
	}
	if acquire("late", 100) {
		t.Fatal("a fourth holder was admitted")
	}
	for i, want := range []int64{2, 1, 0} {
		te.Clock.FastForward(100 * time.Millisecond)
		te.Clock.FastForward(time.Millisecond)
		if i%2 == 0 {
			te.Sweep(0) // actively, or lazily: the same for readers
		}
		if got := te.do("HLEN", "sem").Int; got != want {
			t.Fatalf("after %d leases: HLEN %d, want %d", i+1, got, want)
		}
	}
	te.Sweep(0)
	if got := te.do("EXISTS", "sem").Int; got != 0 {
		t.Fatal("the semaphore key outlived its last holder")
	}
}

// A hash without field expiries encodes exactly as before (the flag bit
// off, no expiry bytes); one with them round-trips.
func TestHashTTLEncoding(t *testing.T) {
	plain := &hashObj{}
	plain.set([]byte("owner:1"), "1")
	before := encodeHash(plain)
	if before != "\x00\x01\x07owner:1\x011" {
		t.Fatalf("plain encoding %q", before)
	}
	h := decodeHash(before)
	h.ents[0].at = 1700000000123
	withTTL := encodeHash(h)
	if hashFieldExpiry(withTTL) != 1700000000123 {
		t.Fatalf("minAt of %q", withTTL)
	}
	back := decodeHash(withTTL)
	if back.ents[0].at != 1700000000123 || back.ents[0].value != "1" {
		t.Fatalf("decoded %+v", back.ents[0])
	}
	back.ents[0].at = 0
	if got := encodeHash(back); got != before {
		t.Fatalf("persisted: %q, want %q", got, before)
	}
}

// LOCK.INFO does not count a holder whose field has expired.
func TestHashTTLLockInfo(t *testing.T) {
	te := newLazyExpiryEngine(t)
	te.do("HSET", "rlock", "a:1", "1", "b:1", "2")
	te.do("HPEXPIRE", "rlock", "10", "FIELDS", "1", "a:1")
	te.Clock.FastForward(11 * time.Millisecond)
	if got := te.do("LOCK.INFO", "rlock").String(); !strings.Contains(got, `"owners" ["b:1"]`) || !strings.Contains(got, `"reentries" (integer) 2`) {
		t.Errorf("LOCK.INFO: %s", got)
	}
}

// A field's lease counts for the restart fence like a key's TTL.
func TestHashTTLFenceRecordsFieldLeases(t *testing.T) {
	dir := t.TempDir()
	te := openEngine(t, Config{Params: map[string]string{"dir": dir, "max-lock-ttl": time.Minute.String()}})
	for _, st := range []struct {
		args []string
		want int64
	}{
		{cmd("HSETEX", "sem", "PX", "1500", "FIELDS", "1", "a", "1"), 2000},
		{cmd("HEXPIRE", "sem", "30", "FIELDS", "1", "a"), 30000},
		{cmd("HSET", "sem", "b", "1"), 30000},
		{cmd("HGETEX", "sem", "PX", "45000", "FIELDS", "1", "b"), 45000},
	} {
		te.do(st.args...)
		if got := stateMaxTTL(t, dir); got != st.want {
			t.Fatalf("after %q: max-ttl-ms %d, want %d", st.args, got, st.want)
		}
	}
}

// stateMaxTTL reads max-ttl-ms from the restart fence's state file in dir
// (keyspace/fence.go writes it).
func stateMaxTTL(t *testing.T, dir string) int64 {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, StateFileName))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "max-ttl-ms "); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatalf("no max-ttl-ms in %q", b)
	return 0
}
