package compat

import (
	"sort"
	"strconv"
	"testing"
)

func TestDiffKeys(t *testing.T) {
	runDiffCases(t, []diffCase{
		{name: "del-unlink", steps: steps(
			"DEL a", "MSET a 1 b 2 c 3", "DEL a b x", "DEL c c", "EXISTS a b c",
			"MSET a 1 b 2", "UNLINK a b x", "UNLINK a", "DEL", "UNLINK",
		)},
		{name: "exists", steps: steps(
			"EXISTS a", "SET a 1", "EXISTS a", "EXISTS a a a", "EXISTS a b a", "EXISTS", "EXISTS A",
		)},
		{name: "type", steps: steps("TYPE a", "SET a 1", "TYPE a", "TYPE", "TYPE a b")},
		{name: "keys", steps: steps(
			"KEYS *", "MSET hello 1 hallo 2 hxllo 3 hllo 4 heeello 5 a*b 6 'a b' 7 a?b 8 [x] 9 A 10",
			unordered("KEYS *"), unordered("KEYS h?llo"), unordered("KEYS h*llo"), unordered("KEYS h[ae]llo"),
			unordered("KEYS h[^e]llo"), unordered("KEYS h[a-b]llo"), unordered("KEYS h[b-a]llo"),
			unordered("KEYS a\\*b"), unordered("KEYS a\\?b"), unordered("KEYS *\\*"), unordered("KEYS [[]*"),
			unordered("KEYS [x"), unordered("KEYS \\[x\\]"), unordered("KEYS ''"), unordered("KEYS a"),
			unordered("KEYS A"), unordered("KEYS 'a *'"), unordered("KEYS h[!e]llo"), unordered("KEYS h\\"),
			unordered("KEYS *o"), unordered("KEYS h**o"), unordered("KEYS ?"), unordered("KEYS [a-]"),
			"KEYS", "KEYS a b",
		)},
		{name: "scan", steps: steps(
			"SCAN 0", "MSET k1 1 k2 2 k3 3 x1 4",
			unordered("SCAN 0 COUNT 1000"), unordered("SCAN 0 MATCH k* COUNT 1000"),
			unordered("SCAN 0 match x? count 1000"), unordered("SCAN 0 TYPE string COUNT 1000"),
			unordered("SCAN 0 TYPE hash COUNT 1000"), unordered("SCAN 0 TYPE nosuch COUNT 1000"),
			unordered("SCAN 0 COUNT 1000 MATCH k1 TYPE string"), unordered("SCAN 0 MATCH a MATCH k1 COUNT 1000"),
			"SCAN abc", "SCAN 0 COUNT 0", "SCAN 0 COUNT -1", "SCAN 0 COUNT abc", "SCAN 0 FOO",
			"SCAN 0 MATCH", "SCAN 0 COUNT", "SCAN 0 TYPE", "SCAN 18446744073709551616", "SCAN ' 0'",
			"SCAN", "SCAN 0 COUNT 1 COUNT",
		)},
		{name: "rename", steps: steps(
			"RENAME a b", "SET a 1", "RENAME a b", "GET b", "EXISTS a", "RENAME b b", "GET b",
			"SET c 3 EX 100", "RENAME c d", within(tolS, "TTL d"), "SET e 5", "RENAME e d", "TTL d", "GET d",
			"SET f 6", "SET g 7 EX 100", "RENAME f g", "TTL g", "GET g",
			"RENAME a", "RENAME", "RENAME a b c",
		)},
		{name: "renamenx", steps: steps(
			"RENAMENX a b", "SET a 1", "SET b 2", "RENAMENX a b", "RENAMENX a c", "GET c", "EXISTS a",
			"RENAMENX c c", "RENAMENX x x", "SET t 1 EX 100", "RENAMENX t u", within(tolS, "TTL u"),
			"RENAMENX a", "RENAMENX a b c",
		)},
		{name: "touch", steps: steps("TOUCH a", "MSET a 1 b 2", "TOUCH a b c a", "TOUCH")},
		{name: "randomkey", steps: steps(
			"RANDOMKEY", "SET only 1", "RANDOMKEY", "SET t 1 PXAT 1", "RANDOMKEY", "MSET a 1 b 2",
			kind("RANDOMKEY"), "RANDOMKEY x",
		)},
	})
}

func TestDiffExpire(t *testing.T) {
	runDiffCases(t, []diffCase{
		{name: "expire-basic", steps: steps(
			"EXPIRE k 100", "SET k v", "EXPIRE k 100", within(tolS, "TTL k"), within(tolMs, "PTTL k"),
			within(tolS, "EXPIRETIME k"), within(tolMs, "PEXPIRETIME k"),
			"PEXPIRE k 100000", within(tolMs, "PTTL k"), "PEXPIRE nope 100",
			"EXPIREAT k "+futureS, "EXPIRETIME k", "PEXPIREAT k "+futureMs, "PEXPIRETIME k",
			"EXPIREAT nope "+futureS, "PEXPIREAT nope "+futureMs,
			"TTL nope", "PTTL nope", "EXPIRETIME nope", "PEXPIRETIME nope",
			"SET p v", "TTL p", "PTTL p", "EXPIRETIME p", "PEXPIRETIME p",
		)},
		{name: "expire-rounding", steps: steps(
			"SET k v PX 1499000", within(tolS, "TTL k"), "SET k v PX 1500600", within(tolS, "TTL k"),
			"SET k v PX 1000", within(tolS, "TTL k"),
		)},
		{name: "expire-past-deletes", steps: steps(
			"SET a v", "EXPIRE a 0", "EXISTS a", "SET a v", "EXPIRE a -1", "EXISTS a",
			"SET a v", "PEXPIRE a 0", "EXISTS a", "SET a v", "EXPIREAT a 1", "EXISTS a",
			"SET a v", "PEXPIREAT a 1", "EXISTS a", "SET a v", "EXPIREAT a 0", "EXISTS a",
			"SET a v", "PEXPIREAT a -5", "EXISTS a", "EXPIRE a -1", "EXPIREAT nope 1",
		)},
		{name: "expire-nx-xx-gt-lt", steps: steps(
			"SET k v", "EXPIRE k 100 XX", "TTL k", "EXPIRE k 100 GT", "TTL k", "EXPIRE k 100 NX", within(tolS, "TTL k"),
			"EXPIRE k 200 NX", "EXPIRE k 200 GT", within(tolS, "TTL k"), "EXPIRE k 50 GT", "EXPIRE k 50 LT",
			within(tolS, "TTL k"), "EXPIRE k 500 LT", "EXPIRE k 300 XX", within(tolS, "TTL k"), "EXPIRE k 400 xx gt", "EXPIRE k 100 xx gt",
			"SET m v", "EXPIRE m 100 LT", within(tolS, "TTL m"),
			"SET m v", "PEXPIRE m 100000 lt", "PEXPIRE m 200000 gt", "PEXPIRE m 50000 nx", "PEXPIRE m 50000 xx",
			"EXPIREAT m "+futureS+" GT", "PEXPIREAT m "+futureMs+" LT", "PEXPIRETIME m",
			"EXPIRE k 100 NX XX", "EXPIRE k 100 XX NX", "EXPIRE k 100 GT LT", "EXPIRE k 100 NX GT",
			"EXPIRE k 100 NX LT", "EXPIRE k 100 LT GT", "EXPIRE k 100 FOO", "EXPIRE k 100 NX FOO",
			"EXPIRE k 100 XX GT", "EXPIRE k 100 XX LT", "EXPIRE k 100 NX NX", "PEXPIRE k 100 bar",
			"EXPIREAT k 100 ''", "EXPIRE nope 100 XX", "EXPIRE nope 100 NX", "EXPIRE nope 0 GT",
			"SET z v", "EXPIRE z 0 XX", "EXISTS z", "EXPIRE z 0 NX", "EXISTS z", "SET z v EX 100",
			"EXPIRE z -1 GT", "EXISTS z", "EXPIRE z -1 LT", "EXISTS z",
		)},
		{name: "expire-errors", steps: steps(
			"SET k v", "EXPIRE k abc", "EXPIRE k 1.5", "EXPIRE k ' 10'", "EXPIRE k +10", "EXPIRE k 010",
			"EXPIRE k 9223372036854775807", "EXPIRE k 9223372036854775", "EXPIRE k 9223372036854774",
			"EXPIRE k -9223372036854775808", "EXPIRE k -9223372036854775", "PEXPIRE k 9223372036854775807",
			"PEXPIRE k -9223372036854775808", "EXPIREAT k 9223372036854775807", "EXPIREAT k -9223372036854775808",
			"PEXPIREAT k -9223372036854775808", "EXPIRE k 99999999999999999999",
			"EXISTS k", "TTL k",
			"EXPIRE k", "EXPIRE", "PEXPIRE k", "EXPIREAT k", "PEXPIREAT k", "TTL", "TTL k x", "PTTL", "PTTL k x",
			"EXPIRETIME", "PEXPIRETIME k x", "PERSIST", "PERSIST k x",
		)},
		{name: "expire-huge-valid", steps: steps(
			"SET k v", "PEXPIREAT k 9223372036854775807", "PEXPIRETIME k", "EXPIRETIME k", kind("TTL k"),
			"SET k v", "EXPIRE k 9223372036854774", "EXISTS k", kind("PEXPIRETIME k"),
			"SET k v", "EXPIREAT k 9223372036854775", "PEXPIRETIME k", "EXPIRETIME k",
			"SET k v", "PEXPIRE k 9223372036854775000", "EXISTS k",
			"SET k v EXAT 9223372036854775", "PEXPIRETIME k",
			"SET k v PXAT 9223372036854775807", "PEXPIRETIME k",
		)},
		{name: "persist", steps: steps(
			"PERSIST k", "SET k v", "PERSIST k", "EXPIRE k 100", "PERSIST k", "TTL k", "PERSIST k",
		)},
	})
}

// TestDiffScanIteration walks the whole keyspace with small COUNTs on both
// servers: cursors differ by design (Redis walks its hash table, lockredis
// its ordered keys), but each full iteration must return every key.
func TestDiffScanIteration(t *testing.T) {
	p := newDiffPair(t, "")
	p.reset(t)
	var mset []string
	for i := 0; i < 300; i++ {
		mset = append(mset, "key:"+strconv.Itoa(i), "v")
	}
	walk := func(addr string, args ...string) []string {
		c := dialRaw(t, addr)
		c.do(t, append([]string{"MSET"}, mset...)...)
		seen := map[string]bool{}
		cursor := "0"
		for i := 0; i < 10000; i++ {
			r, ok := parseRaw(c.do(t, append([]string{"SCAN", cursor}, args...)...))
			if !ok || r.typ != '*' || len(r.elems) != 2 {
				t.Fatalf("SCAN %s on %s: unexpected reply %+v", cursor, addr, r)
			}
			for _, k := range r.elems[1].elems {
				seen[k.blob] = true
			}
			if cursor = r.elems[0].blob; cursor == "0" {
				keys := make([]string, 0, len(seen))
				for k := range seen {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				return keys
			}
		}
		t.Fatalf("SCAN on %s never returned cursor 0", addr)
		return nil
	}
	for _, opts := range [][]string{{}, {"COUNT", "1"}, {"COUNT", "7", "MATCH", "key:1*"}} {
		want := walk(p.redisAddr, opts...)
		got := walk(p.lockAddr, opts...)
		if len(want) != len(got) {
			t.Errorf("SCAN %q: redis found %d keys, lockredis %d", opts, len(want), len(got))
			continue
		}
		for i := range want {
			if want[i] != got[i] {
				t.Errorf("SCAN %q: key sets differ at %q / %q", opts, want[i], got[i])
				break
			}
		}
	}
}
