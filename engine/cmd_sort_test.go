package engine

import (
	"strings"
	"testing"
)

func TestSort(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("RPUSH", "l", "3", "1", "2", "10"), "(integer) 4"},
		{cmd("SORT", "l"), `["1" "2" "3" "10"]`},
		{cmd("SORT", "l", "ALPHA", "LIMIT", "1", "2"), `["10" "2"]`},
		{cmd("SORT", "l", "DESC", "LIMIT", "0", "1"), `["10"]`},
		{cmd("SORT", "l", "BY", "nosort", "DESC"), `["10" "2" "1" "3"]`},
		{cmd("MSET", "w_1", "4", "w_2", "3", "w_3", "2", "w_10", "1"), "OK"},
		{cmd("SORT", "l", "BY", "w_*"), `["10" "3" "2" "1"]`},
		{cmd("HSET", "h_1", "f", "one"), "(integer) 1"},
		{cmd("SORT", "l", "LIMIT", "0", "2", "GET", "#", "GET", "h_*->f", "GET", "w_*"),
			`["1" "one" "4" "2" (nil) "3"]`},
		{cmd("SORT", "l", "STORE", "d"), "(integer) 4"},
		{cmd("LRANGE", "d", "0", "-1"), `["1" "2" "3" "10"]`},
		{cmd("SORT", "nokey", "STORE", "d"), "(integer) 0"},
		{cmd("EXISTS", "d"), "(integer) 0"},
		{cmd("RPUSH", "bad", "1", "x"), "(integer) 2"},
		{cmd("SORT", "bad"), "(error) ERR One or more scores can't be converted into double"},
		{cmd("SORT", "bad", "LIMIT", "0"), "(error) ERR syntax error"},
		{cmd("SORT", "bad", "LIMIT", "0", "x"), "(error) ERR value is not an integer or out of range"},
		{cmd("SORT_RO", "l", "STORE", "d"), "(error) ERR syntax error"},
		{cmd("SET", "s", "v"), "OK"},
		{cmd("SORT", "s"), "(error) WRONGTYPE Operation against a key holding the wrong kind of value"},
		{cmd("ZADD", "z", "2", "a", "1", "b"), "(integer) 2"},
		{cmd("OBJECT", "ENCODING", "z"), `"listpack"`},
		{cmd("SORT_RO", "z", "BY", "nosort"), `["b" "a"]`},
		{cmd("OBJECT", "ENCODING", "z"), `"skiplist"`},
	})
}

// TestSortLookup: lookupKeyByPattern's parsing of "#", '*' and "->".
func TestSortLookup(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("SET", "k_e", "str"), "OK"},
		{cmd("HSET", "h_e", "f", "fv", "f->g", "x"), "(integer) 2"},
		{cmd("SET", "h_e->", "arrow"), "OK"},
	})
	for _, tc := range []struct {
		pattern, want string
		found         bool
	}{
		{"#", "e", true},
		{"##", "", false},
		{"k_*", "str", true},
		{"k_", "", false},
		{"h_*->f", "fv", true},
		{"h_*->f->g", "x", true},
		{"h_*->", "arrow", true}, // "->" with nothing after is part of the key name
		{"h_*->nope", "", false},
		{"k_*->f", "", false}, // not a hash
		{"h_*", "", false},    // not a string
		{"*", "", false},
	} {
		var got string
		var found bool
		te.Do(false, 0, func(tx *Tx) {
			c := &Call{E: te.Engine, S: te.s, Tx: tx}
			got, found = sortLookup(c, []byte(tc.pattern), "e")
		})
		if got != tc.want || found != tc.found {
			t.Errorf("sortLookup(%q) = %q, %v; want %q, %v", tc.pattern, got, found, tc.want, tc.found)
		}
	}
}

func TestSortKeys(t *testing.T) {
	te := newTestEngine(t)
	for _, tc := range []struct {
		line string
		want string
	}{
		{"sort a", "1"},
		{"sort a store b", "1 3"},
		{"sort a store b store c", "1 5"},
		{"sort a limit store x store c", "1 6"},
		{"sort a get store by store store", "1"},
		{"sort a store", "1"},
		{"sort_ro a store b", "1"},
	} {
		args := [][]byte{}
		for _, a := range strings.Fields(tc.line) {
			args = append(args, []byte(a))
		}
		keys, ok := sortKeys(te.Table.Get(args[0]), args)
		var pos []string
		for _, k := range keys {
			pos = append(pos, string('0'+rune(k.pos)))
		}
		if !ok || strings.Join(pos, " ") != tc.want {
			t.Errorf("%s: keys at %v (%v), want %s", tc.line, pos, ok, tc.want)
		}
	}
}

// TestSortDumpCopyEvents: the keyspace events of SORT ... STORE, RESTORE
// and COPY, as Redis 7.0 raises them.
func TestSortDumpCopyEvents(t *testing.T) {
	te := newTestEngine(t)
	log := &eventLog{}
	te.SetPublisher(log)
	te.run([]step{
		{cmd("RPUSH", "l", "2", "1"), "(integer) 2"},
		{cmd("SET", "s", "v"), "OK"},
		{cmd("CONFIG", "SET", "notify-keyspace-events", "KEA"), "OK"},
	})
	dump := te.do("DUMP", "s").Str
	for _, tc := range []struct {
		args []string
		want string
	}{
		{cmd("SORT", "l", "STORE", "d"), "__keyspace@0__:d sortstore, __keyevent@0__:sortstore d"},
		{cmd("SORT", "nokey", "STORE", "d"), "__keyspace@0__:d del, __keyevent@0__:del d"},
		{cmd("SORT", "nokey", "STORE", "d"), ""},
		{cmd("SORT", "l"), ""},
		{cmd("RESTORE", "r", "0", dump), "__keyspace@0__:r restore, __keyevent@0__:restore r"},
		{cmd("RESTORE", "r", "1", dump, "REPLACE", "ABSTTL"), "__keyspace@0__:r del, __keyevent@0__:del r"},
		{cmd("RESTORE", "r", "1", dump, "REPLACE", "ABSTTL"), ""},
		{cmd("COPY", "s", "c", "DB", "3"), "__keyspace@3__:c copy_to, __keyevent@3__:copy_to c"},
		{cmd("COPY", "s", "c", "DB", "3"), ""},
	} {
		te.do(tc.args...)
		if got := strings.Join(log.take(), ", "); got != tc.want {
			t.Errorf("%q: events %q, want %q", tc.args, got, tc.want)
		}
	}
}
