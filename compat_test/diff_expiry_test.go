package compat

import (
	"bufio"
	"strings"
	"testing"
)

// TestDiffLazyExpiry: a command that meets an expired key deletes it, read
// commands included, so DBSIZE right after counts one key less, and INFO's
// expired_keys counts the key once. Both servers run without active expiry
// (newLazyExpiryPair), so only the commands expire keys. Each case starts
// with "live" and an expired "k" (a string stored with a past PXAT, or a
// collection given a 1 ms TTL and left to pass it); the case's commands
// follow, then DBSIZE, EXISTS k and DBSIZE again; the stats are compared
// at the end.
func TestDiffLazyExpiry(t *testing.T) {
	str := h4On(h4A, "SET k v PXAT 1")
	ttl := func(create string) []h4Step {
		return h4Script(h4On(h4A, create, "PEXPIRE k 1"), h4SleepMs(5))
	}
	hash, list, set, zset := ttl("HSET k a 1"), ttl("RPUSH k a"), ttl("SADD k a"), ttl("ZADD k 1 a")
	A := func(items ...any) []h4Step { return h4On(h4A, items...) }
	B := func(items ...any) []h4Step { return h4On(h4B, items...) }
	cases := []struct {
		name  string
		setup []h4Step
		steps []h4Step
	}{
		{"set-exat-past-get", nil, A("SET k v EXAT 1 GET", "DBSIZE", "EXISTS k")},
		{"get", str, A("GET k")},
		{"mget", str, A("MGET k live k")},
		{"exists", str, A("EXISTS k k live")},
		{"touch", str, A("TOUCH k")},
		{"type", str, A("TYPE k")},
		{"ttl", str, A("TTL k")},
		{"pttl", str, A("PTTL k")},
		{"expiretime", str, A("EXPIRETIME k")},
		{"pexpiretime", str, A("PEXPIRETIME k")},
		{"object", str, A("OBJECT ENCODING k")},
		{"strlen", str, A("STRLEN k")},
		{"getrange", str, A("GETRANGE k 0 -1")},
		{"getex", str, A("GETEX k PERSIST")},
		{"getdel", str, A("GETDEL k")},
		{"scan", str, A(unordered("SCAN 0"))},
		{"scan-match", str, A("SCAN 0 MATCH k")},
		{"scan-match-other", str, A("SCAN 0 MATCH x*")},
		{"scan-type", str, A("SCAN 0 TYPE hash")},
		{"keys", str, A("KEYS *", "KEYS k")},
		{"randomkey-all-expired", h4Script(str, A("SET j v PXAT 1", "DEL live")), A("RANDOMKEY")},
		{"rename-source", str, A("RENAME k z")},
		{"renamenx-source", str, A("RENAMENX k z")},
		{"rename-destination", str, A("RENAME live k")},
		{"copy-source", str, A("COPY k z")},
		{"copy-destination", str, A("COPY live k")},
		{"move", str, A("MOVE k 1")},
		{"del", str, A("DEL k")},
		{"expire", str, A("EXPIRE k 100")},
		{"persist", str, A("PERSIST k")},
		{"set-over", str, A("SET k w")},
		{"mset-over", str, A("MSET k w")},
		{"append-over", str, A("APPEND k w")},
		{"watch", str, A("WATCH k")},
		{"hash-read", hash, A("HGET k a", "HLEN k")},
		{"hscan", hash, A("HSCAN k 0")},
		{"list-read", list, A("LRANGE k 0 -1")},
		{"lmove-source", h4Script(list, A("RPUSH d x")), A("LMOVE k d LEFT LEFT")},
		{"set-read", set, A("SMEMBERS k")},
		{"smove-source", h4Script(set, A("SADD s b")), A("SMOVE k s a")},
		{"zset-read", zset, A("ZRANGE k 0 -1")},
		{"zscan", zset, A("ZSCAN k 0")},
		{"multi", str, A("MULTI", "GET k", "DBSIZE", "EXEC")},
		{"multi-scan", str, A("MULTI", unordered("SCAN 0"), "DBSIZE", "EXEC")},
		{"eval", str, A(`EVAL "redis.call('get', 'k') return redis.call('dbsize')" 0`)},
		{"eval-ro", str, A(`EVAL_RO "redis.call('get', 'k') return redis.call('dbsize')" 0`)},
		{"eval-ro-dbsize", str, A(`EVAL_RO "return redis.call('dbsize')" 0`)},
		{"other-client-sees-it-gone", str, h4Script(A("GET k"), B("DBSIZE"))},
		{"watch-broken-by-read-of-other", nil, h4Script(
			A("SET k 1 PX 50", "WATCH k"), h4SleepMs(120), B("GET k", "DBSIZE"), A("MULTI", "SET k 2", "EXEC"),
		)},
		{"watch-expired-then-read-by-other", str, h4Script(
			A("WATCH k"), B("GET k", "DBSIZE"), A("MULTI", "SET k 2", "EXEC"),
		)},
	}
	p := newLazyExpiryPair(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			forEachProto(t, func(t *testing.T, proto int) {
				p.reset(t)
				script := h4Script(
					A("CONFIG RESETSTAT", "SET live 1"), tc.setup, A("DBSIZE"),
					tc.steps, A("DBSIZE", "EXISTS k", "DBSIZE"),
				)
				reportDiffs(t, h4Run(t, p, proto, script))
				for _, field := range []string{"expired_keys", "keyspace_hits", "keyspace_misses"} {
					r, l := infoField(t, p.redisCtl, "stats", field), infoField(t, p.lockCtl, "stats", field)
					if r != l {
						t.Errorf("INFO %s: redis %q, lockredis %q", field, r, l)
					}
				}
			})
		})
	}
}

// infoField is one field of an INFO section, "" when missing.
func infoField(t *testing.T, c *rawConn, section, field string) string {
	t.Helper()
	r, ok := parseRaw(c.do(t, "INFO", section))
	if !ok {
		t.Fatalf("INFO %s: unparsable reply", section)
	}
	sc := bufio.NewScanner(strings.NewReader(r.blob))
	for sc.Scan() {
		if v, found := strings.CutPrefix(strings.TrimSpace(sc.Text()), field+":"); found {
			return v
		}
	}
	return ""
}
