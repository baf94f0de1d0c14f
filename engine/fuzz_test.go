package engine

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lockredis/lockredis/keyspace"
)

// The fuzz targets of this file feed the value encoding (value.go,
// encoding*.go) what a damaged append-only file could hold. A stored value
// is only ever written by the engine, but a corrupt one must never crash a
// command: decoding stops where the data stops making sense, and what it
// decoded encodes back to a stable form.
//
//	go test -run '^$' -fuzz '^FuzzValueEncoding$' -fuzztime 5m ./engine

// FuzzCollectionEncoding: every collection decoder on any payload does not
// panic, encode(decode(x)) decodes to the same object and is a fixed point,
// and the operations commands run on a decoded object do not panic either,
// whatever the payload held (duplicates, unsorted members, NaN scores).
func FuzzCollectionEncoding(f *testing.F) {
	f.Add([]byte(encodeHash(&hashObj{ents: []hashEntry{{field: "a", value: "1"}, {field: "b", value: "2"}}, live: 2})), []byte("a"))
	f.Add([]byte(encodeHash(&hashObj{ents: []hashEntry{{field: "a", value: "1", at: 1700000000000}, {field: "b", value: "2"}}, live: 2})), []byte("a"))
	f.Add([]byte(encodeList(&listObj{elems: []string{"x", "", "yy"}})), []byte("x"))
	f.Add([]byte(encodeSet(&setObj{intset: true, ints: []int64{-3, 0, 1 << 40}})), []byte("0"))
	f.Add([]byte(encodeSet(&setObj{members: []string{"a", "b", "c"}})), []byte("b"))
	f.Add([]byte(encodeZset(&zsetObj{ents: []zent{{member: "m", score: 1}, {member: "n", score: math.Inf(1)}}})), []byte("n"))
	f.Add([]byte(encodeZset(&zsetObj{large: true, ents: []zent{{member: "m", score: math.NaN()}}})), []byte("m"))
	f.Add([]byte("\x00\x05\x01a"), []byte{})
	f.Add([]byte("\x01\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff"), []byte("1"))
	f.Add([]byte("\x00\x03\x02\x02\x01"), []byte("1")) // intset out of order, with a duplicate
	f.Fuzz(func(t *testing.T, payload, member []byte) {
		defer fuzzWatch(payload, member)()
		p := string(payload)

		h := decodeHash(p)
		checkStable(t, "hash", p, h, encodeHash, decodeHash)
		h.expect(len(member))
		h.get(member)
		h.set(member, string(member))
		h.del(payload)
		h.each(func(string, string) {})
		h.compact()
		decodeHash(encodeHash(h))

		l := decodeList(p)
		checkStable(t, "list", p, l, encodeList, decodeList)

		for _, flag := range []string{"", "\x00", "\x01"} {
			s := decodeSet(flag + p)
			checkStable(t, "set", flag+p, s, encodeSet, decodeSet)
			for i := range s.size() {
				s.member(i)
			}
			s.has(member)
			s.add(member)
			s.remove(payload)
			s.addMany([][]byte{member, payload, []byte("1"), []byte("-1")})
			s.removeMany([][]byte{member, []byte("1")})
			decodeSet(encodeSet(s))
		}

		z := decodeZset(p)
		checkStable(t, "zset", p, z, encodeZset, decodeZset)
		z.find(member)
		z.indexer(len(member))(member)
		gone := make([]bool, len(z.ents))
		for i := range gone {
			gone[i] = i%2 == 0
		}
		z.replace(gone, []zent{{member: string(member), score: float64(len(member))}})
		decodeZset(encodeZset(z))

		v := Value{Type: TypeHash, Payload: p}
		for _, typ := range []Type{TypeHash, TypeList, TypeSet, TypeZSet} {
			v.Type = typ
			ObjectEncoding(v)
		}
	})
}

// checkStable checks that obj, decoded from p, encodes to a payload that
// decodes to the same object and encodes to itself again.
func checkStable[T any](t *testing.T, what, p string, obj *T, encode func(*T) string, decode func(string) *T) {
	t.Helper()
	enc := encode(obj)
	again := decode(enc)
	if !sameObject(obj, again) {
		t.Fatalf("%s %q: decoded %+v, after a round trip %+v", what, p, obj, again)
	}
	if enc2 := encode(again); enc2 != enc {
		t.Fatalf("%s %q: encodes to %q, then to %q", what, p, enc, enc2)
	}
}

// sameObject compares decoded objects, scores by their bits (NaN is a
// possible score in a corrupt payload) and empty slices as nil.
func sameObject[T any](a, b *T) bool {
	switch a := any(a).(type) {
	case *zsetObj:
		b := any(b).(*zsetObj)
		if a.large != b.large || len(a.ents) != len(b.ents) {
			return false
		}
		for i := range a.ents {
			if a.ents[i].member != b.ents[i].member || math.Float64bits(a.ents[i].score) != math.Float64bits(b.ents[i].score) {
				return false
			}
		}
		return true
	case *setObj:
		b := any(b).(*setObj)
		return a.intset == b.intset && len(a.ints) == len(b.ints) && len(a.members) == len(b.members) &&
			(len(a.ints) == 0 || reflect.DeepEqual(a.ints, b.ints)) &&
			(len(a.members) == 0 || reflect.DeepEqual(a.members, b.members))
	case *listObj:
		b := any(b).(*listObj)
		return len(a.elems) == len(b.elems) && (len(a.elems) == 0 || reflect.DeepEqual(a.elems, b.elems))
	case *hashObj:
		b := any(b).(*hashObj)
		return a.large == b.large && a.live == b.live && len(a.ents) == len(b.ents) &&
			(len(a.ents) == 0 || reflect.DeepEqual(a.ents, b.ents))
	}
	panic("unknown object")
}

// corruptCommands run against a key whose stored bytes came from the
// fuzzer: every family's readers and writers, and the key commands.
var corruptCommands = [][]string{
	{"TYPE", "k"}, {"OBJECT", "ENCODING", "k"}, {"TTL", "k"}, {"PTTL", "k"}, {"EXPIRETIME", "k"},
	{"GET", "k"}, {"STRLEN", "k"}, {"GETRANGE", "k", "0", "-1"}, {"APPEND", "k", "x"}, {"INCR", "k"},
	{"DIGEST", "k"}, {"DELEX", "k", "IFEQ", "x"}, {"SET", "k", "v", "IFEQ", "v"},
	{"HGETALL", "k"}, {"HGET", "k", "f"}, {"HLEN", "k"}, {"HSET", "k", "f", "v"}, {"HDEL", "k", "a", "f"},
	{"HINCRBY", "k", "f", "1"}, {"HSCAN", "k", "0"}, {"HRANDFIELD", "k", "-5", "WITHVALUES"},
	{"HMGET", "k", "a", "b", "c", "d", "e", "f"},
	{"LRANGE", "k", "0", "-1"}, {"LLEN", "k"}, {"LINDEX", "k", "-1"}, {"LPUSH", "k", "x"}, {"RPOP", "k"},
	{"LPOS", "k", "x"}, {"LREM", "k", "0", "x"}, {"LSET", "k", "0", "y"}, {"LINSERT", "k", "BEFORE", "y", "z"},
	{"SMEMBERS", "k"}, {"SCARD", "k"}, {"SISMEMBER", "k", "1"}, {"SMISMEMBER", "k", "1", "a"},
	{"SADD", "k", "1", "a"}, {"SREM", "k", "1"}, {"SPOP", "k"}, {"SRANDMEMBER", "k", "-3"}, {"SSCAN", "k", "0"},
	{"SMOVE", "k", "k2", "1"},
	{"ZRANGE", "k", "0", "-1", "WITHSCORES"}, {"ZCARD", "k"}, {"ZSCORE", "k", "m"}, {"ZRANK", "k", "m"},
	{"ZADD", "k", "1", "m"}, {"ZINCRBY", "k", "1", "n"}, {"ZREM", "k", "m"}, {"ZRANGEBYSCORE", "k", "-inf", "+inf"},
	{"ZRANGEBYLEX", "k", "-", "+"}, {"ZCOUNT", "k", "0", "10"}, {"ZPOPMIN", "k", "2"}, {"ZSCAN", "k", "0"},
	{"ZREMRANGEBYRANK", "k", "0", "0"}, {"ZMSCORE", "k", "m", "n"}, {"ZRANDMEMBER", "k", "-3", "WITHSCORES"},
	{"SCAN", "0", "TYPE", "hash"}, {"KEYS", "*"}, {"RANDOMKEY"}, {"DBSIZE"},
	{"COPY", "k", "k3"}, {"RENAME", "k", "k4"}, {"RENAME", "k4", "k"}, {"EXPIRE", "k", "100"}, {"PERSIST", "k"},
	{"LOCK.CHECK", "k", "x"}, {"LOCK.TOKEN", "k"}, {"MOVE", "k", "1"}, {"DEL", "k", "k2", "k3"},
	{"SORT", "k", "ALPHA"}, {"SORT", "k", "BY", "nosort", "STORE", "k5"}, {"SORT_RO", "k", "BY", "k*", "GET", "#"},
	{"DUMP", "k"},
}

// FuzzCorruptStoredValue stores the fuzzer's bytes as a key's raw buntdb
// value, as a damaged append-only file would load, and runs every family's
// commands on it: none may panic (a panic leaves Dispatch), and each
// writes exactly one reply.
func FuzzCorruptStoredValue(f *testing.F) {
	for _, v := range []Value{
		{Type: TypeString, Payload: "v"},
		{Type: TypeHash, Payload: encodeHash(&hashObj{ents: []hashEntry{{field: "f", value: "1"}, {field: "f", value: "2"}}, live: 2})},
		{Type: TypeList, Payload: encodeList(&listObj{elems: []string{"x", "y"}})},
		{Type: TypeSet, Payload: encodeSet(&setObj{intset: true, ints: []int64{5, 1, 1}})},
		{Type: TypeSet, Payload: encodeSet(&setObj{members: []string{"b", "a"}})},
		{Type: TypeZSet, Payload: encodeZset(&zsetObj{ents: []zent{{member: "n", score: 2}, {member: "m", score: math.NaN()}}})},
		{Type: TypeZSet, Payload: "\x01\x05"},
		{Type: 'q', Payload: "?"},
	} {
		f.Add([]byte(keyspace.EncodeValue(v)), uint8(0))
	}
	f.Add([]byte("h\x00\x00\x01\x00\x00\x00\x00\x00\x01\x01\x01f"), uint8(3)) // expired long ago
	e, err := New(Config{Clock: NewManualClock(time.Unix(1700000000, 0))})
	if err != nil {
		f.Fatal(err)
	}
	defer e.Close()
	f.Fuzz(func(t *testing.T, raw []byte, start uint8) {
		defer fuzzWatch(raw, start)()
		s := NewSession(KindClient)
		s.Authenticated = true
		var rec Recorder
		e.Dispatch(s, nil, [][]byte{[]byte("FLUSHALL")}, &rec)
		err := e.Keyspace().Apply(&keyspace.ChangeBatch{Changes: []keyspace.Change{
			{Kind: keyspace.ChangePut, Key: "k", Raw: string(raw)},
		}})
		if err != nil {
			return // no whole value header (either layout): Apply refuses it, nothing is stored
		}
		for i := range corruptCommands {
			args := corruptCommands[(int(start)+i)%len(corruptCommands)]
			bargs := make([][]byte, len(args))
			for j, a := range args {
				bargs[j] = []byte(a)
			}
			rec = Recorder{}
			e.Dispatch(s, nil, bargs, &rec)
			if len(rec.Replies) != 1 {
				t.Fatalf("raw %q: %q wrote %d replies", raw, args, len(rec.Replies))
			}
			if r := rec.Replies[0]; r.Kind == KindError && strings.Contains(r.Str, ErrPanic.Error()) {
				t.Fatalf("raw %q: %q: %s", raw, args, r.Str)
			}
		}
	})
}
