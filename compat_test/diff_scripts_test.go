package compat

// Differential cases for scripting: the scripts lock clients really send
// (redsync, bsm/redislock, redis-py, node-redlock, Redisson), reply
// conversions, the sandbox and the error texts, compared with
// redis-server.

import (
	"crypto/sha1"
	"encoding/hex"
	"strconv"
	"testing"
)

// evalArgs is EVAL script with keys and args: "EVAL script numkeys ...".
func evalArgs(script string, keys []string, argv ...string) []string {
	a := []string{"EVAL", script, strconv.Itoa(len(keys))}
	a = append(a, keys...)
	return append(a, argv...)
}

func scriptSHA(script string) string {
	sum := sha1.Sum([]byte(script))
	return hex.EncodeToString(sum[:])
}

// evalStep is an exact EVAL step; evalshaStep the same by SHA.
func evalStep(script string, keys []string, argv ...string) diffStep {
	return args(evalArgs(script, keys, argv...)...)
}

func evalshaStep(script string, keys []string, argv ...string) diffStep {
	a := evalArgs(script, keys, argv...)
	a[0], a[1] = "EVALSHA", scriptSHA(script)
	return args(a...)
}

// evalWithin is an EVAL whose integer reply is a TTL.
func evalWithin(script string, keys []string, argv ...string) diffStep {
	return diffStep{args: evalArgs(script, keys, argv...), mode: modeWithin, tol: tolMs}
}

func keyList(keys ...string) []string { return keys }

// Scripts as the clients send them.
const (
	// go-redsync/redsync v4 scripts.go
	redsyncDelete = `
	local val = redis.call("GET", KEYS[1])
	if val == ARGV[1] then
		return redis.call("DEL", KEYS[1])
	elseif val == false then
		return -1
	else
		return 0
	end
`
	redsyncTouch = `
	if redis.call("GET", KEYS[1]) == ARGV[1] then
		return redis.call("PEXPIRE", KEYS[1], ARGV[2])
	else
		return 0
	end
`
	redsyncTouchSetNX = `
	if redis.call("GET", KEYS[1]) == ARGV[1] then
		return redis.call("PEXPIRE", KEYS[1], ARGV[2])
	elseif redis.call("SET", KEYS[1], ARGV[1], "PX", ARGV[2], "NX") then
		return 1
	else
		return 0
	end
`
	// The simplest compare-and-delete, as in redsync's README and most
	// hand-written locks.
	simpleDelete = `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) else return 0 end`

	// bsm/redislock v0.9.4 (redislock.go)
	bsm094Refresh = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("pexpire", KEYS[1], ARGV[2]) else return 0 end`
	bsm094Release = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end`
	bsm094PTTL    = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("pttl", KEYS[1]) else return -3 end`
	bsm094Obtain  = `
if redis.call("set", KEYS[1], ARGV[1], "NX", "PX", ARGV[3]) then return redis.status_reply("OK") end

local offset = tonumber(ARGV[2])
if redis.call("getrange", KEYS[1], 0, offset-1) == string.sub(ARGV[1], 1, offset) then return redis.call("set", KEYS[1], ARGV[1], "PX", ARGV[3]) end
`
	// bsm/redislock v0.10 (obtain.lua, release.lua, refresh.lua, pttl.lua)
	bsm010Obtain = `-- obtain.lua: arguments => [value, tokenLen, ttl]
local function pexpire(ttl)
	for _, key in ipairs(KEYS) do
		redis.call("pexpire", key, ttl)
	end
end

local function canOverrideKeys()
	local offset = tonumber(ARGV[2])

	for i, key in ipairs(KEYS) do
		if redis.call("getrange", key, 0, offset-1) ~= string.sub(ARGV[1], 1, offset) then
			return false
		end
	end
	return true
end

local setArgs = {}
for i, key in ipairs(KEYS) do
	table.insert(setArgs, key)
	table.insert(setArgs, ARGV[1])
end

if redis.call("msetnx", unpack(setArgs)) ~= 1 then
	if canOverrideKeys() == false then
		return false
	end
	redis.call("mset", unpack(setArgs))
end

pexpire(ARGV[3])
return redis.status_reply("OK")`
	bsm010Release = `local values = redis.call("mget", unpack(KEYS))
for i, _ in ipairs(KEYS) do
	if values[i] ~= ARGV[1] then
		return false
	end
end

for _, key in ipairs(KEYS) do
	if redis.call("del", key) ~= 1 then
		return redis.error_reply("redislock: failed to del " + key)
	end
end

return redis.status_reply("OK")`
	bsm010Refresh = `local values = redis.call("mget", unpack(KEYS))
for i, _ in ipairs(KEYS) do
	if values[i] ~= ARGV[1] then
		return false
	end
end

for _, key in ipairs(KEYS) do
	redis.call("pexpire", key, ARGV[2])
end

return redis.status_reply("OK")`
	bsm010PTTL = `local values = redis.call("mget", unpack(KEYS))
local ttl = -3
for i, _ in ipairs(KEYS) do
	if values[i] == ARGV[1] then
		ttl = redis.call("pttl", KEYS[i])
    else
        return -3
	end
end
return ttl`

	// redis-py Lock (redis/lock.py, 4.x to 8.x)
	pyRelease = `
        local token = redis.call('get', KEYS[1])
        if not token or token ~= ARGV[1] then
            return 0
        end
        redis.call('del', KEYS[1])
        return 1
    `
	pyExtend = `
        local token = redis.call('get', KEYS[1])
        if not token or token ~= ARGV[1] then
            return 0
        end
        local expiration = redis.call('pttl', KEYS[1])
        if not expiration then
            expiration = 0
        end
        if expiration < 0 then
            return 0
        end

        local newttl = ARGV[2]
        if ARGV[3] == "0" then
            newttl = ARGV[2] + expiration
        end
        redis.call('pexpire', KEYS[1], newttl)
        return 1
    `
	pyReacquire = `
        local token = redis.call('get', KEYS[1])
        if not token or token ~= ARGV[1] then
            return 0
        end
        redis.call('pexpire', KEYS[1], ARGV[2])
        return 1
    `

	// node-redlock (v4 and v5)
	redlockAcquire = `
  -- Return 0 if an entry already exists.
  for i, key in ipairs(KEYS) do
    if redis.call("exists", key) == 1 then
      return 0
    end
  end

  -- Create an entry for each provided key.
  for i, key in ipairs(KEYS) do
    redis.call("set", key, ARGV[1], "PX", ARGV[2])
  end

  -- Return the number of entries added.
  return #KEYS
`
	redlockExtend = `
  -- Return 0 if an entry exists with a *different* lock value.
  for i, key in ipairs(KEYS) do
    if redis.call("get", key) ~= ARGV[1] then
      return 0
    end
  end

  -- Update the entry for each provided key.
  for i, key in ipairs(KEYS) do
    redis.call("set", key, ARGV[1], "PX", ARGV[2])
  end

  -- Return the number of entries updated.
  return #KEYS
`
	redlockRelease = `
  local count = 0
  for i, key in ipairs(KEYS) do
    -- Only remove entries for *this* lock value.
    if redis.call("get", key) == ARGV[1] then
      redis.pcall("del", key)
      count = count + 1
    end
  end

  -- Return the number of entries removed.
  return count
`

	// Redisson RLock (RedissonLock.java, 3.24 and later)
	redissonTryLock = "if ((redis.call('exists', KEYS[1]) == 0) " +
		"or (redis.call('hexists', KEYS[1], ARGV[2]) == 1)) then " +
		"redis.call('hincrby', KEYS[1], ARGV[2], 1); " +
		"redis.call('pexpire', KEYS[1], ARGV[1]); " +
		"return nil; " +
		"end; " +
		"return redis.call('pttl', KEYS[1]);"
	redissonUnlock = "local val = redis.call('get', KEYS[3]); " +
		"if val ~= false then " +
		"return tonumber(val);" +
		"end; " +
		"if (redis.call('hexists', KEYS[1], ARGV[3]) == 0) then " +
		"return nil;" +
		"end; " +
		"local counter = redis.call('hincrby', KEYS[1], ARGV[3], -1); " +
		"if (counter > 0) then " +
		"redis.call('pexpire', KEYS[1], ARGV[2]); " +
		"redis.call('set', KEYS[3], 0, 'px', ARGV[5]); " +
		"return 0; " +
		"else " +
		"redis.call('del', KEYS[1]); " +
		"redis.call(ARGV[4], KEYS[2], ARGV[1]); " +
		"redis.call('set', KEYS[3], 1, 'px', ARGV[5]); " +
		"return 1; " +
		"end; "
	redissonForceUnlock = "if (redis.call('del', KEYS[1]) == 1) then " +
		"redis.call(ARGV[2], KEYS[2], ARGV[1]); " +
		"return 1 " +
		"else " +
		"return 0 " +
		"end"
	redissonWatchdog = "local result = {} " +
		"for i = 1, #KEYS, 1 do " +
		"if (redis.call('hexists', KEYS[i], ARGV[i + 1]) == 1) then " +
		"redis.call('pexpire', KEYS[i], ARGV[1]); " +
		"table.insert(result, 1); " +
		"else " +
		"table.insert(result, 0); " +
		"end; " +
		"end; " +
		"return result;"
	redissonProbe = "redis.call('get', KEYS[1]) redis.call('get', KEYS[2])"
)

func TestDiffScriptsLockClients(t *testing.T) {
	eval := []string{"eval"}
	hashes := []string{"eval", "hset"}
	runDiffCases(t, []diffCase{
		{name: "redsync", needs: eval, steps: steps(
			// EVALSHA first, EVAL on NOSCRIPT, then EVALSHA hits.
			evalshaStep(redsyncTouch, keyList("lock"), "tok", "30000"),
			"SET lock tok EX 8 NX",
			"SET lock other EX 8 NX",
			evalStep(redsyncTouch, keyList("lock"), "tok", "30000"),
			evalshaStep(redsyncTouch, keyList("lock"), "tok", "30000"),
			within(tolMs, "PTTL lock"),
			evalStep(redsyncTouch, keyList("lock"), "other", "30000"),
			evalStep(redsyncDelete, keyList("lock"), "other"),
			"GET lock",
			evalStep(redsyncDelete, keyList("lock"), "tok"),
			evalStep(redsyncDelete, keyList("lock"), "tok"),
			evalStep(redsyncTouchSetNX, keyList("lock"), "tok", "5000"),
			within(tolMs, "PTTL lock"),
			evalStep(redsyncTouchSetNX, keyList("lock"), "tok", "6000"),
			evalStep(redsyncTouchSetNX, keyList("lock"), "other", "6000"),
			evalStep(simpleDelete, keyList("lock"), "other"),
			evalStep(simpleDelete, keyList("lock"), "tok"),
			"EXISTS lock",
		)},
		// An empty string from a script is an argument, not a missing
		// one (lockredis once took SET ... PX "" as a syntax error).
		{name: "empty-argument", needs: eval, steps: steps(
			evalStep(`return redis.call("SET", KEYS[1], ARGV[1], "PX", ARGV[2], "NX")`, keyList("lock"), "tok", ""),
			evalStep(redsyncTouchSetNX, keyList("lock"), "tok", ""),
			evalStep(`return redis.call("SET", KEYS[1], ARGV[1], ARGV[2])`, keyList("lock"), "tok", ""),
			evalStep(`return redis.call("HSET", KEYS[1], ARGV[1], ARGV[2])`, keyList("h"), "", ""),
			"HGETALL h",
		)},
		{name: "bsm-v0.9.4", needs: eval, steps: steps(
			evalStep(bsm094Obtain, keyList("lock"), "abcdef0123", "10", "10000"),
			within(tolMs, "PTTL lock"),
			evalStep(bsm094Obtain, keyList("lock"), "zzzzzz0123", "10", "10000"),
			// Re-obtaining with the same token relays SET's status reply.
			evalStep(bsm094Obtain, keyList("lock"), "abcdef0123", "10", "20000"),
			evalWithin(bsm094PTTL, keyList("lock"), "abcdef0123"),
			evalStep(bsm094PTTL, keyList("lock"), "zzzzzz0123"),
			evalStep(bsm094Refresh, keyList("lock"), "abcdef0123", "30000"),
			evalStep(bsm094Refresh, keyList("lock"), "zzzzzz0123", "30000"),
			evalStep(bsm094Release, keyList("lock"), "zzzzzz0123"),
			evalStep(bsm094Release, keyList("lock"), "abcdef0123"),
			evalStep(bsm094Release, keyList("lock"), "abcdef0123"),
			evalStep(bsm094PTTL, keyList("lock"), "abcdef0123"),
		)},
		{name: "bsm-v0.10", needs: eval, steps: steps(
			evalStep(bsm010Obtain, keyList("a", "b"), "token-value-1", "13", "10000"),
			"MGET a b",
			within(tolMs, "PTTL b"),
			evalStep(bsm010Obtain, keyList("a", "b"), "token-value-2", "13", "10000"),
			evalStep(bsm010Obtain, keyList("a", "c"), "token-value-1", "13", "20000"),
			evalWithin(bsm010PTTL, keyList("a", "b"), "token-value-1"),
			evalStep(bsm010PTTL, keyList("a", "b"), "token-value-2"),
			evalStep(bsm010Refresh, keyList("a", "b"), "token-value-2", "5000"),
			evalStep(bsm010Refresh, keyList("a", "b"), "token-value-1", "5000"),
			within(tolMs, "PTTL a"),
			evalStep(bsm010Release, keyList("a", "b"), "token-value-2"),
			evalStep(bsm010Release, keyList("a", "b", "c"), "token-value-1"),
			"EXISTS a b c",
			evalStep(bsm010Release, keyList("a"), "token-value-1"),
		)},
		{name: "redis-py", needs: eval, steps: steps(
			"SET lock tok PX 10000 NX",
			// redis-py answers NOSCRIPT with SCRIPT LOAD, then EVALSHA.
			evalshaStep(pyExtend, keyList("lock"), "tok", "5000", "0"),
			args("SCRIPT", "LOAD", pyExtend),
			evalshaStep(pyExtend, keyList("lock"), "tok", "5000", "0"),
			within(tolMs, "PTTL lock"),
			evalStep(pyExtend, keyList("lock"), "tok", "5000", "1"),
			within(tolMs, "PTTL lock"),
			evalStep(pyExtend, keyList("lock"), "other", "5000", "1"),
			evalStep(pyReacquire, keyList("lock"), "tok", "7000"),
			within(tolMs, "PTTL lock"),
			evalStep(pyReacquire, keyList("lock"), "other", "7000"),
			"SET nottl tok",
			evalStep(pyExtend, keyList("nottl"), "tok", "5000", "0"),
			evalStep(pyRelease, keyList("lock"), "other"),
			evalStep(pyRelease, keyList("lock"), "tok"),
			evalStep(pyRelease, keyList("lock"), "tok"),
			evalStep(pyExtend, keyList("lock"), "tok", "5000", "0"),
		)},
		{name: "node-redlock", needs: eval, steps: steps(
			evalStep(redlockAcquire, keyList("r1", "r2"), "val", "10000"),
			evalStep(redlockAcquire, keyList("r1", "r2"), "val2", "10000"),
			within(tolMs, "PTTL r2"),
			evalStep(redlockExtend, keyList("r1", "r2"), "val", "20000"),
			within(tolMs, "PTTL r1"),
			evalStep(redlockExtend, keyList("r1", "r2"), "val2", "20000"),
			evalStep(redlockRelease, keyList("r1", "r2"), "val2"),
			evalStep(redlockRelease, keyList("r1", "r2", "r3"), "val"),
			"EXISTS r1 r2",
		)},
		{name: "redisson-rlock", needs: hashes, steps: steps(
			evalStep(redissonProbe, keyList("test1", "test2")),
			evalStep(redissonTryLock, keyList("lock"), "30000", "uuid-1:1"),
			"HGETALL lock",
			within(tolMs, "PTTL lock"),
			// Reentry by the same thread.
			evalStep(redissonTryLock, keyList("lock"), "30000", "uuid-1:1"),
			"HGET lock uuid-1:1",
			// Another thread gets the time to wait.
			evalWithin(redissonTryLock, keyList("lock"), "30000", "uuid-1:2"),
			// Watchdog: one held lock, one not.
			evalStep(redissonWatchdog, keyList("lock", "other"), "30000", "uuid-1:1", "uuid-1:1"),
			// Unlock by a non-owner: nil.
			evalStep(redissonUnlock, keyList("lock", "redisson_lock__channel:{lock}", "redisson_unlock_latch:{lock}:r1"), "0", "30000", "uuid-1:2", "PUBLISH", "13000"),
			// First unlock of two holds: 0, latch 0.
			evalStep(redissonUnlock, keyList("lock", "redisson_lock__channel:{lock}", "redisson_unlock_latch:{lock}:r2"), "0", "30000", "uuid-1:1", "PUBLISH", "13000"),
			"GET redisson_unlock_latch:{lock}:r2",
			within(tolMs, "PTTL redisson_unlock_latch:{lock}:r2"),
			// A repeated request answers from its latch.
			evalStep(redissonUnlock, keyList("lock", "redisson_lock__channel:{lock}", "redisson_unlock_latch:{lock}:r2"), "0", "30000", "uuid-1:1", "PUBLISH", "13000"),
			"HGET lock uuid-1:1",
			// Last unlock: 1, the key is gone, the channel got its message.
			evalStep(redissonUnlock, keyList("lock", "redisson_lock__channel:{lock}", "redisson_unlock_latch:{lock}:r3"), "0", "30000", "uuid-1:1", "PUBLISH", "13000"),
			"EXISTS lock",
			"GET redisson_unlock_latch:{lock}:r3",
			"DEL redisson_unlock_latch:{lock}:r3",
			evalStep(redissonTryLock, keyList("lock"), "30000", "uuid-2:7"),
			evalStep(redissonForceUnlock, keyList("lock", "redisson_lock__channel:{lock}"), "0", "PUBLISH"),
			evalStep(redissonForceUnlock, keyList("lock", "redisson_lock__channel:{lock}"), "0", "PUBLISH"),
			// A string at the lock name: WRONGTYPE from inside the script.
			"SET str v",
			evalStep(redissonTryLock, keyList("str"), "30000", "uuid-1:1"),
		)},
	})
}

func TestDiffScriptsSemantics(t *testing.T) {
	eval := []string{"eval"}
	runDiffCases(t, []diffCase{
		{name: "reply-conversions", needs: eval, steps: steps(
			"SET s v", "RPUSH l a b", "SET n 10",
			evalStep(`return 3.99`, nil), evalStep(`return -3.99`, nil), evalStep(`return "s"`, nil),
			evalStep(`return true`, nil), evalStep(`return false`, nil), evalStep(`return nil`, nil), evalStep(``, nil),
			evalStep(`return {1, "two", {3}, true, false, 4}`, nil),
			evalStep(`return {1, 2, nil, 4}`, nil),
			evalStep(`return {ok="fine"}`, nil), evalStep(`return {err="CODE failed"}`, nil), evalStep(`return {err="failed"}`, nil),
			evalStep(`return redis.status_reply("PONG")`, nil), evalStep(`return redis.error_reply("failed")`, nil),
			evalStep(`return redis.error_reply("MY failure")`, nil), evalStep(`return redis.error_reply(1)`, nil),
			evalStep(`return {double=2.5}`, nil), evalStep(`return {map={a=1}}`, nil), evalStep(`return {set={x=true}}`, nil),
			evalStep(`return redis.call("get", "s")`, nil),
			evalStep(`return redis.call("get", "missing")`, nil),
			evalStep(`return redis.call("get", "missing") == false`, nil),
			evalStep(`return redis.call("set", "s", "w")`, nil),
			evalStep(`return redis.call("set", "s", "w").ok`, nil),
			evalStep(`return redis.call("incr", "n") + 1`, nil),
			evalStep(`return redis.call("lrange", "l", 0, -1)`, nil),
			evalStep(`return redis.call("type", "l")`, nil),
			evalStep(`return redis.call("type", "l")["ok"]`, nil),
			evalStep(`return redis.pcall("incr", "s")`, nil),
			evalStep(`return redis.pcall("incr", "s").err`, nil),
			evalStep(`local r = redis.call("lpop", "nosuch") return {type(r), tostring(r)}`, nil),
			evalStep(`return {KEYS[1], KEYS[2], ARGV[1], ARGV[2], #KEYS, #ARGV}`, keyList("k1", "k2"), "a1", "a2"),
			args("EVAL", `return {KEYS[1], ARGV[1]}`, "1", "b\x00in\r\nary", "\xff\xfe"),
		)},
		{name: "lua-number-arguments", needs: eval, steps: steps(
			evalStep(`redis.call("set", "k", 1724000000000) return redis.call("get", "k")`, nil),
			evalStep(`redis.call("set", "k", -300000) return redis.call("get", "k")`, nil),
			evalStep(`redis.call("set", "k", 0.1) return redis.call("get", "k")`, nil),
			evalStep(`redis.call("set", "k", 1e20) return redis.call("get", "k")`, nil),
			evalStep(`redis.call("set", "k", 2^53) return redis.call("get", "k")`, nil),
			evalStep(`redis.call("set", "k", 1/0) return redis.call("get", "k")`, nil),
			evalStep(`redis.call("set", "k", 1e-5) return redis.call("get", "k")`, nil),
			evalStep(`redis.call("set", "k", "v", "px", 30000) return redis.call("pttl", "k") > 29000`, nil),
			evalStep(`return redis.call("incrby", "c", -5)`, nil),
			evalStep(`return redis.call("get", "k", {})`, nil),
			evalStep(`return redis.pcall("get", true)`, nil),
		)},
		{name: "lua-library", needs: eval, steps: steps(
			evalStep(`return {tonumber("1e2"), tonumber("0x10"), tonumber(" 5 "), tonumber("10", 2), tonumber("zz", 36)}`, nil),
			evalStep(`return {tonumber("5x"), tonumber("")}`, nil),
			evalStep(`return {tostring(0.1 + 0.2), tostring(1e15), tostring(2^53), tostring(1/0), tostring(-1/0), tostring(123456789012345)}`, nil),
			evalStep(`return {string.format("%5.2f|%-5d|%x|%s|%q", 3.14159, 42, 255, "x", "a\"b"), string.rep("ab", 3)}`, nil),
			evalStep(`return {string.find("hello world", "o w"), string.match("key:123", "(%a+):(%d+)")}`, nil),
			evalStep(`return {string.gsub("hello world", "o", "0")}`, nil),
			evalStep(`local t = {3, 1, 2} table.sort(t) return t`, nil),
			evalStep(`local t = {} table.insert(t, "a") table.insert(t, 1, "b") return {table.concat(t, ","), #t, table.remove(t)}`, nil),
			evalStep(`return {math.floor(3.7), math.max(1, "5", 3), math.min(4, 2), math.fmod(7, 3), math.abs(-2)}`, nil),
			evalStep(`math.randomseed(42) return {math.random(100), math.random(5, 10), tostring(math.random())}`, nil),
			evalStep(`return {select("#", 1, 2, 3), select(2, "a", "b", "c")}`, nil),
			evalStep(`return {unpack({1, 2, 3})}`, nil),
			evalStep(`return cjson.encode({1, 2, {a = "b/c"}})`, nil),
			evalStep(`local t = cjson.decode('{"a":[1,2,{"b":null}]}') return {t.a[1], t.a[2], t.a[3].b == cjson.null}`, nil),
			evalStep(`return cjson.decode("[1,")`, nil),
			evalStep(`return {bit.band(0xff, 0x0f), bit.bor(1, 2), bit.bxor(5, 3), bit.lshift(1, 31), bit.tohex(255), bit.tobit(2^32 + 5)}`, nil),
			evalStep(`return {struct.pack(">I2", 258), struct.unpack("<i4", "\254\255\255\255")}`, nil),
			evalStep(`return {cmsgpack.unpack(cmsgpack.pack({1, 2, 3}))}`, nil),
			evalStep(`return cmsgpack.pack({1, "a", true}, -1, 2^40)`, nil),
			evalStep(`return redis.sha1hex("abc")`, nil),
			evalStep(`local co = coroutine.create(function(a) local b = coroutine.yield(a + 1) return b * 2 end) local _, x = coroutine.resume(co, 1) local _, y = coroutine.resume(co, 10) return {x, y, coroutine.status(co)}`, nil),
			evalStep(`local ok, e = pcall(function() error("x") end) return {tostring(ok), e}`, nil),
			evalStep(`local ok, e = pcall(redis.call, "nosuch") return e`, nil),
			evalStep(`return {xpcall(function() error("x") end, function(m) return "handled: " .. m end)}`, nil),
		)},
		// cjson settings persist between scripts in Redis (not here):
		// each script restores the defaults it changed.
		{name: "cjson-settings", needs: eval, steps: steps(
			evalStep(`local p = cjson.encode_number_precision(3) local s = cjson.encode({1/3, 2/3}) cjson.encode_number_precision(14) return {p, s}`, nil),
			evalStep(`local a = {cjson.encode_sparse_array(true)} local s = cjson.encode({[1] = 1, [20] = 2}) cjson.encode_sparse_array(false) return {s, #a}`, nil),
			evalStep(`cjson.encode_invalid_numbers(true) local s = cjson.encode({1/0, -1/0}) cjson.encode_invalid_numbers(false) return s`, nil),
			evalStep(`cjson.encode_invalid_numbers("null") local s = cjson.encode({1/0}) cjson.encode_invalid_numbers(false) return s`, nil),
			evalStep(`cjson.decode_invalid_numbers(false) local ok, e = pcall(cjson.decode, "0x10") cjson.decode_invalid_numbers(true) return e`, nil),
			evalStep(`cjson.encode_max_depth(2) local ok, e = pcall(cjson.encode, {{{1}}}) cjson.encode_max_depth(1000) return e`, nil),
			evalStep(`cjson.decode_max_depth(2) local ok, e = pcall(cjson.decode, "[[[1]]]") cjson.decode_max_depth(1000) return e`, nil),
			evalStep(`return cjson.encode_max_depth(0)`, nil),
			evalStep(`return cjson.encode_number_precision(15)`, nil),
			evalStep(`return cjson.encode_max_depth(1, 2)`, nil),
			evalStep(`return cjson.new().encode({1, "a"})`, nil),
		)},
		{name: "sandbox", needs: eval, steps: steps(
			evalStep(`x = 1`, nil), evalStep(`return x`, nil), evalStep(`local x = 1 return x`, nil),
			evalStep(`return os`, nil), evalStep(`return io`, nil), evalStep(`return print`, nil), evalStep(`return require`, nil),
			evalStep(`return debug`, nil), evalStep(`return setfenv`, nil), evalStep(`return newproxy`, nil), evalStep(`return package`, nil),
			evalStep(`rawset(_G, "x", 1)`, nil), evalStep(`string.upper = nil`, nil), evalStep(`getmetatable("").__index.upper = nil`, nil),
			evalStep(`setmetatable(_G, nil)`, nil), evalStep(`return string.upper("a")`, nil),
			evalStep(`return loadstring("return 1 + 1")()`, nil), evalStep(`return loadstring("x = 1")()`, nil),
			evalStep(`return load("return 1")`, nil),
			evalStep(`return collectgarbage()`, nil), evalStep(`return collectgarbage("count") > 0`, nil),
			evalStep(`return type(string.dump)`, nil),
			evalStep(`return _VERSION`, nil),
			evalStep(`return string.rep("x", -1)`, nil),
			evalStep(`local function f() pcall(f) end f() return "survived"`, nil),
			evalStep(`local t = {} for i = 1, 200000 do t[i] = i end return #{unpack(t)}`, nil),
		)},
		{name: "errors", needs: eval, steps: steps(
			"SET str v",
			args("EVAL", "return 1"),
			args("EVAL", "return 1", "2", "a"),
			args("EVAL", "return 1", "-1"),
			args("EVAL", "return 1", "x"),
			args("EVAL", "return 1", "01", "a"),
			args("EVALSHA", "abc", "x"),
			args("EVALSHA", "0123456789012345678901234567890123456789", "0"),
			args("EVALSHA", "0123456789012345678901234567890123456789", "x"),
			evalStep(`return (`, nil), evalStep(`return "abc`, nil), evalStep("local a = 1\nx = = 2", nil),
			evalStep(`error("boom")`, nil), evalStep(`error("boom", 0)`, nil), evalStep(`error({err="CODE boom"})`, nil),
			evalStep(`error()`, nil), evalStep(`error(12)`, nil), evalStep("local x = 1\n\nerror('line three')", nil),
			evalStep(`return 1 + nil`, nil), evalStep(`return nil .. "a"`, nil), evalStep(`return #nil`, nil),
			evalStep(`return redis.call("hget", "str", "f")`, nil),
			evalStep(`return redis.pcall("hget", "str", "f")`, nil),
			evalStep(`return redis.call("nosuch")`, nil), evalStep(`return redis.pcall("nosuch")`, nil),
			evalStep(`return redis.call("get")`, nil), evalStep(`return redis.call()`, nil),
			evalStep(`return redis.call("eval", "return 1", "0")`, nil), evalStep(`return redis.call("multi")`, nil),
			evalStep(`return redis.call("watch", "k")`, nil), evalStep(`return redis.call("subscribe", "c")`, nil),
			evalStep(`return redis.call("set", "k", "v", "px", "x")`, nil),
			evalStep(`return redis.sha1hex()`, nil), evalStep(`return redis.log(9, "x")`, nil), evalStep(`return redis.setresp(4)`, nil),
			evalStep(`return string.rep()`, nil), evalStep(`return tonumber()`, nil),
			args("EVAL_RO", `return redis.call("set", "k", "v")`, "0"),
			args("EVAL_RO", `return redis.call("get", "str")`, "0"),
			args("EVAL_RO", "#!lua\nreturn 1", "0"),
			args("EVAL", "#!lua flags=no-writes\nreturn redis.call('set', 'k', 'v')", "0"),
			args("EVAL", "#!lua flags=bogus\nreturn 1", "0"),
			args("EVAL", "#!lua", "0"),
			args("EVAL", "#!lua\n\nerror('x')", "0"),
		)},
		{name: "script-cache", needs: eval, steps: steps(
			args("SCRIPT", "EXISTS", scriptSHA("return 'c'"), "nosuch"),
			args("EVALSHA", scriptSHA("return 'c'"), "0"),
			args("EVAL", "return 'c'", "0"),
			args("EVALSHA", scriptSHA("return 'c'"), "0"),
			args("EVALSHA", "4E8A9C49C7B0E5BDE8E8B3B1B2F2A2E1C3D4F5A6", "0"),
			args("SCRIPT", "EXISTS", scriptSHA("return 'c'")),
			args("SCRIPT", "LOAD", "return 'loaded'"),
			args("EVALSHA_RO", scriptSHA("return 'loaded'"), "0"),
			args("SCRIPT", "LOAD", "return ("),
			"SCRIPT FLUSH",
			args("EVALSHA", scriptSHA("return 'c'"), "0"),
			"SCRIPT FLUSH ASYNC", "SCRIPT FLUSH SYNC", "SCRIPT FLUSH bogus", "SCRIPT FLUSH SYNC x",
			"SCRIPT KILL", "SCRIPT", "SCRIPT bogus", "SCRIPT LOAD", "SCRIPT EXISTS", "SCRIPT HELP",
		)},
		{name: "script-in-multi", needs: eval, steps: steps(
			"MULTI",
			evalStep(`return redis.call("set", KEYS[1], ARGV[1])`, keyList("k"), "v"),
			evalStep(`return redis.call("get", "k")`, nil),
			args("EVAL", "return 1", "5"),
			args("EVALSHA", "0123456789012345678901234567890123456789", "0"),
			evalStep(`return redis.call("nosuch")`, nil),
			args("EVAL", "return 1"),
			"EXEC",
			"MULTI",
			evalStep(`return redis.call("incr", "n")`, nil),
			"EXEC",
		)},
		{name: "script-select", needs: eval, steps: steps(
			"SELECT 2", "SET k db2",
			evalStep(`redis.call("select", "3") redis.call("set", "k", "db3") return redis.call("get", "k")`, nil),
			"GET k",
			evalStep(`return redis.call("get", "k")`, nil),
			"SELECT 3", "GET k", "SELECT 0",
		)},
	})
}

// luaDetails are scripts whose replies (results and error texts) match
// redis-server 7.0 exactly: conversions, the base library, string
// patterns and formats, tables, math, cjson, cmsgpack, bit, struct,
// coroutines, pcall, the redis.* API, the sandbox, compile and runtime
// errors. Each runs as EVAL script 0, in this order, on both servers.
var luaDetails = []string{
	"x=1",
	"return x",
	"local x=1 return x",
	"return os",
	"rawset(_G,\"x\",1)",
	"string.foo=1",
	"getmetatable(\"\").__index.upper=nil",
	"return string.upper(\"a\")",
	"return print",
	"return loadstring",
	"return type(load)",
	"return type(loadstring)",
	"return _VERSION",
	"return type(setfenv)",
	"return type(getfenv)",
	"return type(newproxy)",
	"return type(gcinfo)",
	"return type(collectgarbage)",
	"return redis.call(\"get\")",
	"return redis.call()",
	"return redis.call(\"nosuch\")",
	"return redis.pcall(\"nosuch\")",
	"return redis.call(\"eval\",\"return 1\",\"0\")",
	"return redis.call(\"multi\")",
	"return redis.call(\"watch\",\"x\")",
	"return redis.call(\"get\",{})",
	"return redis.call(\"get\",true)",
	"return redis.call(\"get\",nil)",
	"return redis.pcall(\"get\")",
	"return redis.call(\"set\",\"k\",\"v\",\"px\",\"abc\")",
	"return redis.pcall(\"set\",\"k\",\"v\",\"px\",\"abc\")",
	"return {err=\"x\"}",
	"return {err=\"MYERR x\"}",
	"return redis.error_reply(\"x\")",
	"return redis.error_reply(\"-x\")",
	"return redis.error_reply(\"MY x\")",
	"return redis.status_reply(\"x\")",
	"return redis.error_reply(1)",
	"return redis.status_reply()",
	"error(\"boom\")",
	"error({err=\"boom\"})",
	"error({err=\"X boom\"})",
	"error()",
	"error(nil)",
	"error(12)",
	"return 1+nil",
	"return (",
	"x = ",
	"return \"abc",
	"return {1,2,nil,3}",
	"return {1,\"a\",{true,false},3.9,-3.9}",
	"return redis.status_reply(\"a\\r\nb\")",
	"return {err=\"a\nb\"}",
	"error(\"a\nb\")",
	"local t = {} t.x = 1 return t.x",
	"return _G.x",
	"return rawget(_G,\"x\")",
	"return loadstring(\"return 1\")()",
	"return loadstring(\"x=1\")()",
	"return loadstring(\"return y\")()",
	"return type(string.dump)",
	"return load(\"return 5\")()",
	"return {pcall(function() redis.call(\"nosuch\") end)}",
	"local ok, e = pcall(function() redis.call(\"nosuch\") end) return type(e)",
	"local ok, e = pcall(function() redis.call(\"nosuch\") end) return e",
	"local ok, e = pcall(function() error({err=\"x\"}) end) return type(e)",
	"local ok, e = pcall(function() error(\"x\") end) return e",
	"local ok, e = pcall(error) return tostring(e)",
	"local ok, e = xpcall(function() redis.call(\"nosuch\") end, function(m) return m end) return type(e)",
	"setmetatable(_G, nil)",
	"return collectgarbage(\"count\") > 0",
	"return collectgarbage()",
	"return collectgarbage(\"step\")",
	"return gcinfo() > 0",
	"return type(coroutine.create)",
	"return type(cjson)",
	"return type(cmsgpack)",
	"return type(struct)",
	"return type(bit)",
	"return type(table.getn)",
	"return type(string.gfind)",
	"return type(math.mod)",
	"return type(table.foreach)",
	"return type(debug)",
	"return type(module)",
	"return type(require)",
	"return type(unpack)",
	"return type(package)",
	"return type(__redis__err__handler)",
	"return type(redis.breakpoint)",
	"return redis.breakpoint()",
	"return redis.debug(\"x\")",
	"return redis.replicate_commands()",
	"return redis.set_repl(redis.REPL_ALL)",
	"return {redis.REPL_NONE, redis.REPL_AOF, redis.REPL_SLAVE, redis.REPL_REPLICA, redis.REPL_ALL}",
	"return {redis.LOG_DEBUG, redis.LOG_VERBOSE, redis.LOG_NOTICE, redis.LOG_WARNING}",
	"return redis.REDIS_VERSION",
	"return redis.REDIS_VERSION_NUM",
	"return type(redis.acl_check_cmd)",
	"return redis.sha1hex(\"\")",
	"return redis.sha1hex()",
	"return redis.sha1hex(1)",
	"return redis.setresp(3)",
	"return redis.setresp(4)",
	"return redis.set_repl(9)",
	"return redis.set_repl()",
	"error({err=\"x\"},0)",
	"error(\"x\",0)",
	"error(\"x\",2)",
	"local function f() error(\"x\", 2) end f()",
	"local function f() error(\"x\") end\nf()",
	"local t = setmetatable({}, {__index=function() error(\"deep\") end}) return t.x",
	"return string.rep()",
	"return tonumber()",
	"return math.floor(\"a\")",
	"return #nil",
	"return nil .. \"a\"",
	"return {} < {}",
	"local a = {} a[nil] = 1",
	"return redis.call(\"get\", KEYS[1])",
	"return pcall(redis.call, \"nosuch\")",
	"return select(2, pcall(redis.call, \"nosuch\"))",
	"local ok, e = pcall(redis.call, \"get\", \"k\", \"x\") return e",
	"return redis.pcall(\"get\", \"k\", \"x\")",
	"return type(redis.pcall(\"get\", \"k\", \"x\"))",
	"local r = redis.pcall(\"nosuch\") return r.err",
	"return redis.pcall(\"get\", \"a\", \"b\").ignore_error_stats_update",
	"local function f(n) return 1 + f(n+1) end return f(1)",
	"local t = {} for i=1,200000 do t[i]=i end return #{unpack(t)}",
	"local t = {} for i=1,7000 do t[i]=i end return #{unpack(t)}",
	"return string.rep(\"x\", -1)",
	"return table.concat({1,2,3.5}, \",\")",
	"return tostring(1e15)..\",\"..tostring(0.1+0.2)..\",\"..tostring(2^53)..\",\"..tostring(1/0)..\",\"..tostring(-1/0)..\",\"..tostring(0/0)..\",\"..tostring(123456789012345)",
	"return {tonumber(\"1e2\"), tonumber(\"0x10\"), tonumber(\" 5 \"), tonumber(\"10\",2), tonumber(\"zz\",36), tonumber(\"8\",8)}",
	"return {tonumber(\"5x\"), tonumber(\"\"), tonumber(\"  \"), tonumber(\"0x\"), tonumber(\"1e\"), tonumber(\".5\")*10, tonumber(\"5.\")}",
	"return {tostring(tonumber(\"inf\")), tostring(tonumber(\"-inf\")), tostring(tonumber(\"nan\")), tostring(tonumber(\" 0x10 \")), tostring(tonumber(\"1e500\")), tostring(tonumber(\"0x1p4\")), tostring(tonumber(\"\\t5\n\"))}",
	"local r = {} for i, n in ipairs({1724000000000, -300000, 0.1, 1e20, 1e17, 2^53, 1/0, -1/0, 3.5, 1e-5, 123456789.123}) do redis.call(\"set\", \"k\", n) r[i] = redis.call(\"get\",\"k\") end return r",
	"return {double=3.5}",
	"return {map={a=1}}",
	"return {set={a=true}}",
	"return {big_number=\"123\"}",
	"return {verbatim_string={format=\"txt\",string=\"x\"}}",
	"return {ok=1}",
	"return {err=1}",
	"return {ok=\"a\", err=\"b\"}",
	"return select(2, loadstring(\"return (\"))",
	"return select(2, loadstring(\"return (\", \"@foo\"))",
	"return select(2, loadstring(\"return (\", \"=foo\"))",
	"KEYS[1]=\"x\" KEYS[5]=1 return KEYS",
	"return redis.call(\"ping\")",
	"return redis.call(\"select\",\"1\")",
	"return redis.call(\"object\")",
	"return redis.call(\"config\",\"get\",\"x\")",
	"return redis.call(\"client\",\"foo\")",
	"#!lua flags=no-writes\nreturn redis.call(\"set\",\"k\",\"v\")",
	"#!lua\nreturn redis.call(\"set\",\"k\",\"v\")",
	"#!lua flags=foo\nreturn 1",
	"#!lua x=1\nreturn 1",
	"#!py\nreturn 1",
	"#!lua\nreturn (",
	"#!lua\n\nerror(\"x\")",
	"#!lua",
	"#!lua flags=no-writes,allow-stale\nreturn 2",
	"return redis.status_reply(\"a\nb\")",
	"return cjson.encode({1,2,3})",
	"return cjson.encode({})",
	"return cjson.encode({a=1})",
	"return cjson.encode(\"a/b\\\"c\\\\d\\n\\r\\t\\b\\f\\1\\127\\200\xc3\xa9\")",
	"return cjson.encode(0.1)",
	"return cjson.encode(1e15)",
	"return cjson.encode(123456789012345)",
	"return cjson.encode(-0)",
	"return cjson.encode(1/0)",
	"return cjson.encode(0/0)",
	"return cjson.encode(nil)",
	"return cjson.encode()",
	"return cjson.encode(true)",
	"return cjson.encode(cjson.null)",
	"return cjson.encode({1,nil,3})",
	"return cjson.encode({[1]=1,[2]=2,[4]=4})",
	"return cjson.encode({[1]=1,[20]=2})",
	"return cjson.encode({[1]=1,[11]=2})",
	"return cjson.encode({[0]=1})",
	"return cjson.encode({[1.5]=1})",
	"return cjson.encode({[true]=1})",
	"return cjson.encode({a={b={c={}}}})",
	"return cjson.encode(function() end)",
	"return cjson.encode({1,{2,{3}}})",
	"return cjson.encode({[-1]=1})",
	"return cjson.encode({[\"1\"]=1})",
	"local t = {} t[1]=t return cjson.encode(t)",
	"return cjson.encode(2^53)",
	"return cjson.encode(3.14159265358979)",
	"return cjson.encode({[2]=1})",
	"return cjson.encode({[3]=1})",
	"return cjson.decode(\"[1,2,3]\")",
	"return cjson.decode(\"{\\\"a\\\":[1,{\\\"b\\\":2}]}\").a[2].b",
	"return type(cjson.decode(\"null\"))",
	"return tostring(cjson.decode(\"null\"))",
	"return cjson.decode(\"null\") == cjson.null",
	"return cjson.decode(\"\\\"a\\\\u00e9\\\\ud83d\\\\ude00\\\\n\\\"\")",
	"return cjson.decode(\"1e2\")",
	"return tostring(cjson.decode(\"0.1\"))",
	"return cjson.decode(\"\")",
	"return cjson.decode(\"[1,2\")",
	"return cjson.decode(\"{\\\"a\\\" 1}\")",
	"return cjson.decode(\"tru\")",
	"return cjson.decode(\"[1,]\")",
	"return cjson.decode(\"  [1]  x\")",
	"return cjson.decode(\"\\\"abc\")",
	"return cjson.decode(\"\\\"\\\\x\\\"\")",
	"return cjson.decode(\"-\")",
	"return cjson.decode(\"01\")",
	"return cjson.decode(\"0x10\")",
	"return cjson.decode(\"[nan]\")",
	"return cjson.decode(\"{1:2}\")",
	"return cjson.decode(\"\\\"\\\\ud800\\\"\")",
	"return cjson.decode(1)",
	"return cjson.decode()",
	"return cjson.decode(string.rep(\"[\", 1001) .. string.rep(\"]\", 1001))",
	"return #cjson.decode(string.rep(\"[\", 1000) .. string.rep(\"]\", 1000))",
	"return cjson.decode(\"\\\"\\1\\\"\")",
	"return cjson.decode(\"[true,false]\")",
	"return cjson.decode(\"{}\")",
	"return type(cjson.decode(\"[]\"))",
	"return cjson.decode(\"  5  \")",
	"return cjson.decode(\"[1e400]\")",
	"return cjson.decode(\"\\\"\\\\/\\\"\")",
	"return {cjson._NAME, cjson._VERSION}",
	"return cjson.decode(\"[Infinity]\")",
	"return cjson.decode(\"[-0]\")",
	"return cjson.decode(\"1.5e\")",
	"return {cmsgpack.unpack(cmsgpack.pack(1, \"a\", {1,2}, {a=1}, true))}",
	"return cmsgpack.pack(1, -1, 127, 128, -32, -33, 255, 256, 65535, 65536, -129, -32769, 4294967296, -4294967296, 0.5, 1e300, 2^53)",
	"return cmsgpack.pack(\"a\", string.rep(\"x\", 32), true, false, nil)",
	"return cmsgpack.pack({1,2,3}, {a=1}, {}, {[1]=1,[3]=3})",
	"return cmsgpack.unpack(\"\")",
	"return cmsgpack.pack()",
	"return cmsgpack.unpack(\"\\193\")",
	"return cmsgpack.unpack(\"\\145\")",
	"return {cmsgpack.unpack_one(cmsgpack.pack(1,2,3))}",
	"return {cmsgpack.unpack_limit(cmsgpack.pack(1,2,3), 2)}",
	"return {cmsgpack.unpack_one(cmsgpack.pack(1,2,3), 2)}",
	"return {cmsgpack.unpack_one(cmsgpack.pack(1,2,3), 3)}",
	"return {cmsgpack.unpack_one(cmsgpack.pack(1,2,3), 4)}",
	"return cmsgpack.pack(1.5)",
	"return cmsgpack.pack(3.0)",
	"return cmsgpack.pack(-0.0)",
	"return cmsgpack.pack(0/0)",
	"return cmsgpack.pack(function() end)",
	"return cmsgpack.pack(string.rep(\"x\", 256))",
	"return #cmsgpack.pack(string.rep(\"x\", 65536))",
	"return {cmsgpack._NAME, cmsgpack._VERSION, cmsgpack._COPYRIGHT, cmsgpack._DESCRIPTION}",
	"return cmsgpack.unpack(\"\\204\\1\\2\")",
	"return cmsgpack.unpack(\"\\203\")",
	"local t={} t[1]=t return #cmsgpack.pack(t)",
	"return cmsgpack.pack({1,nil,3})",
	"return cmsgpack.pack({[1]=1,[2]=2,[4]=4})",
	"return cmsgpack.pack({1.5})",
	"return cmsgpack.pack({[1.5]=1})",
	"return {cmsgpack.unpack(\"\\217\\3abc\")}",
	"local t = cmsgpack.unpack(\"\\130\\161a\\1\\161b\\2\") return {t.a, t.b}",
	"return {cmsgpack.unpack(\"\\130\\161a\\1\\161b\\2\")}",
	"return {cmsgpack.unpack(\"\\196\\1a\")}",
	"return {cmsgpack.unpack(\"\\205\\1\\2\", \"\\206\\0\\0\\1\\0\")}",
	"return {cmsgpack.unpack(\"\\206\\0\\0\\1\\0\\207\\0\\0\\0\\1\\0\\0\\0\\0\\211\\255\\255\\255\\255\\255\\255\\255\\255\\210\\255\\255\\255\\254\")}",
	"return {cmsgpack.unpack(\"\\220\\0\\2\\1\\2\\221\\0\\0\\0\\1\\5\\222\\0\\1\\161a\\1\")}",
	"return {cmsgpack.unpack(\"\\218\\0\\2ab\\219\\0\\0\\0\\1c\")}",
	"return cmsgpack.unpack(\"\\203\\63\\240\\0\\0\\0\\0\\0\\0\") * 2",
	"return {cmsgpack.unpack(\"\\192\\195\\194\")}",
	"return cmsgpack.unpack(1)",
	"return cmsgpack.unpack()",
	"return cmsgpack.unpack_one()",
	"return cmsgpack.unpack_limit(\"\\1\", \"x\")",
	"return {cmsgpack.unpack_limit(\"\\1\\2\\3\", 0)}",
	"return {cmsgpack.unpack_limit(\"\\1\\2\\3\", -1)}",
	"return {cmsgpack.unpack_one(\"\\1\\2\\3\", -1)}",
	"return cmsgpack.pack({a={b={c=1}}}) == \"\\129\\161a\\129\\161b\\129\\161c\\1\"",
	"return {bit.tobit(1), bit.tobit(2^32+5), bit.tobit(-1), bit.tobit(2^31), bit.tobit(1.5), bit.tobit(2.5), bit.tobit(\"7\")}",
	"return {bit.bnot(0), bit.band(0xff, 0x0f, 0x3), bit.bor(1,2,4), bit.bxor(5, 3), bit.lshift(1, 31), bit.lshift(1, 32), bit.rshift(-1, 28), bit.arshift(-256, 4), bit.rol(0x80000001, 1), bit.ror(1, 1), bit.bswap(0x12345678)}",
	"return {bit.tohex(255), bit.tohex(-1, 4), bit.tohex(255, -2), bit.tohex(0x12345678, 12)}",
	"return bit.band()",
	"return bit.tobit(\"x\")",
	"return bit.tobit({})",
	"return {struct.pack(\">I2\", 258), struct.pack(\"<i\", -2), struct.pack(\"b B h H l L\", -1, 255, -2, 65535, -3, 7)}",
	"return {struct.unpack(\">I2\", \"\\1\\2\"), struct.unpack(\"<i4\", \"\\254\\255\\255\\255\")}",
	"return {struct.size(\"i\"), struct.size(\"!8 b d\"), struct.size(\"c10\"), struct.size(\">hhl\")}",
	"return struct.size(\"s\")",
	"return struct.size(\"c0\")",
	"return {struct.pack(\"s\", \"ab\"), struct.unpack(\"s\", \"ab\\0cd\")}",
	"return {struct.unpack(\"c0\", \"\\3abcde\")}",
	"return {struct.unpack(\"b c0\", \"\\3abcde\")}",
	"return struct.pack(\"c3\", \"ab\")",
	"return struct.pack(\"z\", 1)",
	"return struct.unpack(\"i4\", \"ab\")",
	"return {struct.pack(\"d\", 1.5), struct.pack(\">f\", 1.5)}",
	"return {struct.unpack(\">d\", struct.pack(\">d\", 3.25)), struct.unpack(\"<f\", struct.pack(\"<f\", -2.5))}",
	"return struct.unpack(\"i\", \"\\1\\0\\0\\0\", 0)",
	"return {struct.unpack(\"i\", \"\\1\\0\\0\\0\\2\\0\\0\\0\", 5)}",
	"return struct.pack(\"!3i\", 1)",
	"return struct.pack(\"i33\", 1)",
	"return {struct.pack(\"!4 b i\", 1, 2)}",
	"return {string.find(\"hello world\", \"o w\"), string.find(\"hello\", \"l+\"), string.find(\"hello\", \"(l)(l)\"), string.find(\"a.b\", \".\", 1, true), string.find(\"abc\", \"b\", -1), string.find(\"abc\", \"\", 10), string.find(\"abc\", \"\", 4)}",
	"return {string.match(\"key:123\", \"(%a+):(%d+)\"), string.match(\"abc\", \"()b()\"), string.match(\"  x  \", \"^%s*(.-)%s*$\")}",
	"return {string.gsub(\"hello world\", \"o\", \"0\"), string.gsub(\"abc\", \"%w\", \"%0%0\"), string.gsub(\"abc\", \"\", \"-\"), string.gsub(\"hello\", \"(l)\", {l=\"L\"}), string.gsub(\"abc\", \"%w\", function(c) return c:upper() .. \".\" end)}",
	"return string.gsub(\"abc\", \"(\", \"x\")",
	"return string.gsub(\"abc\", \"%\", \"x\")",
	"return string.gsub(\"abc\", \"[a\", \"x\")",
	"return string.gsub(\"abc\", \"a\", \"%2\")",
	"return string.gsub(\"abc\", \"a\", true)",
	"return string.gsub(\"abc\", \"b\", \"%\")",
	"return string.find(\"a\", \"%f\")",
	"return {string.find(\"THE (quick) fox\", \"%((%a+)%)\"), string.match(\"[[x]]\", \"%b[]\"), string.match(\"THE (quick) fox\", \"%f[%a]%a+\")}",
	"local r = {} for k, v in string.gmatch(\"a=1, b=2\", \"(%w+)=(%w+)\") do r[#r+1] = k .. v end return r",
	"local r = {} for w in string.gmatch(\"one two\", \"%a+\") do r[#r+1] = w end return r",
	"return {string.format(\"%5.2f|%-5d|%05d|%x|%X|%o|%e|%g|%G|%c|%q|%s|%%\", 3.14159, 42, 42, 255, 255, 8, 12345.678, 0.0001, 1e20, 65, \"a\\\"b\\n\", \"x\")}",
	"return string.format(\"%d %s %i\", 3.9, 1.5, -2.5)",
	"return string.format(\"%10s|%-10s|%.2s\", \"abc\", \"abc\", \"abc\")",
	"return string.format(\"%5.1f|%f|%g\", 1/0, -1/0, 0/0)",
	"return string.format(\"%y\", 1)",
	"return string.format(\"%d\")",
	"return string.format(\"%123d\", 1)",
	"return string.format(\"%------d\", 1)",
	"return string.format(\"%#x %#o %+d % d\", 255, 8, 5, 5)",
	"return string.format(\"%.3d|%3.1s|%-3c|\", 5, \"xyz\", 65)",
	"return string.format(\"%u %x\", -1, -1)",
	"return string.format(\"%s\", 0.1+0.2)",
	"return string.format(\"%s %s\", true, nil)",
	"return {string.byte(\"ABC\", 1, -1), string.char(72, 105), string.len(\"\\0a\"), string.lower(\"AbC\"), string.upper(\"aBc\"), string.reverse(\"abc\"), string.sub(\"hello\", 2, -2), string.sub(\"hello\", -3), string.sub(\"hello\", 0), string.sub(\"hello\", 10)}",
	"return string.char(256)",
	"return string.rep(\"ab\", 3, \"x\")",
	"return {string.rep(\"ab\", 3), string.rep(\"\", 5), string.rep(\"x\", 0)}",
	"return {string.byte(\"a\", 10), #string.rep(\"x\", 100, \"y\")}",
	"return {table.concat({1, 2, 3}), table.concat({\"a\", \"b\"}, \", \", 2), table.concat({}, \"x\"), table.concat({1,2,3}, \"-\", 2, 3)}",
	"return table.concat({1, {}, 3})",
	"local t = {3,1,2} table.sort(t) return t",
	"local t = {\"b\",\"a\",\"c\"} table.sort(t, function(a,b) return a > b end) return t",
	"local t = {3,1,\"x\"} table.sort(t) return t",
	"local t = {5,2,8,1,9,3,7,4,6,0} table.sort(t, function(a,b) return true end) return t",
	"local t = {1,2,3} table.insert(t, 4) table.insert(t, 1, 0) return t",
	"local t = {1,2,3} return {table.remove(t), table.remove(t, 1), t[1], #t}",
	"local t = {} return {table.remove(t)}",
	"return table.insert({}, 1, 2, 3)",
	"return {table.getn({1,2,3}), table.maxn({[10]=1, [2]=2}), table.maxn({})}",
	"return table.setn({}, 1)",
	"local r = {} table.foreach({a=1}, function(k,v) r[#r+1] = k..v end) return r",
	"local r = {} table.foreachi({5,6}, function(i,v) r[#r+1] = i..v end) return r",
	"table.insert(string, \"x\")",
	"table.remove(string)",
	"table.sort(string)",
	"return {math.floor(3.7), math.ceil(3.2), math.abs(-2), math.max(1, 5, 3), math.min(4, 2, 8), math.fmod(7, 3), math.sqrt(16), math.pow(2, 10), math.huge > 0, math.pi > 3, math.max(\"10\", 2)}",
	"return {math.modf(3.7)}",
	"return {math.frexp(8)}",
	"return math.ldexp(1, 4)",
	"return math.floor()",
	"return math.max()",
	"return tostring(math.log(100)) .. \" \" .. tostring(math.log10(100)) .. \" \" .. tostring(math.exp(1))",
	"return {select(\"#\", 1, 2, 3), select(2, \"a\", \"b\", \"c\"), select(-1, \"a\", \"b\")}",
	"return select(0, 1)",
	"return select(\"x\", 1)",
	"return {tostring(nil), tostring(true), tostring(12), tostring(\"s\"), type(tostring({}))}",
	"return {type(nil), type(1), type(\"s\"), type({}), type(print == nil), type(function() end)}",
	"return type()",
	"return tostring()",
	"return {rawequal(1, 1), rawequal({}, {}), rawget({5}, 1), #rawset({}, 1, 2)}",
	"return rawset(string, \"x\", 1)",
	"return rawget(string, \"len\") == string.len",
	"return getmetatable(\"\").__index == string",
	"return getmetatable(string)",
	"return getmetatable(_G) ~= nil",
	"local t = setmetatable({}, {__index = function(t, k) return k .. \"!\" end}) return t.foo",
	"local t = setmetatable({}, {__metatable = \"locked\"}) return getmetatable(t)",
	"local t = setmetatable({}, {__metatable = \"locked\"}) setmetatable(t, {})",
	"return setmetatable(1, {})",
	"return setmetatable({}, 1)",
	"local mt = {__tostring = function() return \"custom\" end} return tostring(setmetatable({}, mt))",
	"local n = 0 for k, v in pairs(string) do n = n + 1 end return n",
	"local n = 0 for k, v in pairs(_G) do n = n + 1 end return n",
	"local n = 0 for k, v in pairs(redis) do n = n + 1 end return n",
	"return next({})",
	"return {pcall(error, \"x\")}",
	"return {pcall(error, \"x\", 0)}",
	"return {pcall(error, {code=1})}",
	"return {pcall(1)}",
	"return {pcall()}",
	"return {xpcall(function() error(\"x\") end, function(m) return \"handled: \" .. m end)}",
	"return {xpcall(function() return 1, 2 end, print)}",
	"return {xpcall(function() error(\"x\") end)}",
	"return {assert(1, 2)}",
	"assert(false)",
	"assert(nil, \"custom\")",
	"assert(false, 12)",
	"assert()",
	"return unpack({1, 2, 3})",
	"return {unpack({1, 2, 3}, 2)}",
	"return {unpack({1, 2, 3}, 2, 3)}",
	"return {unpack({1, 2, 3}, 3, 2)}",
	"return unpack({}, 1, 1e8)",
	"local co = coroutine.create(function(a) local b = coroutine.yield(a + 1) return b * 2 end) local _, x = coroutine.resume(co, 1) local _, y = coroutine.resume(co, 10) return {x, y, coroutine.status(co)}",
	"local co = coroutine.create(function() error(\"boom\") end) return {coroutine.resume(co)}",
	"local co = coroutine.create(function() end) coroutine.resume(co) return {coroutine.resume(co)}",
	"local f = coroutine.wrap(function() coroutine.yield(1) return 2 end) return {f(), f()}",
	"local f = coroutine.wrap(function() error(\"x\") end) f()",
	"local f = coroutine.wrap(function() end) f() f()",
	"return coroutine.running()",
	"return coroutine.yield(1)",
	"return coroutine.create(1)",
	"return {tonumber(\"10\", 16), tonumber(\"ff\", 16), tonumber(\"FF\", 16), tonumber(\"0x1F\", 16), tonumber(\"z\", 36), tonumber(\" 11 \", 2), tonumber(\"12\", 2)}",
	"return tonumber(\"1\", 1)",
	"return tonumber(\"1\", 37)",
	"return {tonumber(1e300 * 1e10), tonumber(\"1e1\"), tonumber(\" 0x1A \"), tonumber(\"-0x10\"), tonumber(\"1 2\")}",
	"return {tonumber(nil)}",
	"return {\"10\" + 5, \"3\" * \"4\", \"0x10\" + 0, \" 5 \" + 1}",
	"return \"abc\" + 1",
	"return #\"abc\" + #{1, 2}",
	"local a = \"x\" return a < \"y\", a == \"x\"",
	"return 7 % 3, -7 % 3, 7 % -3",
	"return {2^0.5 > 1.41, 10 // 3}",
	"return math.floor(-0.5)",
	"return {1e308 * 10 > 0, -(0/0) ~= -(0/0)}",
	"local function f() pcall(f) end f() return \"survived\"",
	"local d = 0 local function f() d = d + 1 local ok, e = pcall(f) if not ok then return e end return ok end return {f(), d}",
	"local d = 0 local function f() d = d + 1 coroutine.wrap(f)() end local ok, e = pcall(f) return {#e, d}",
	"local d = 0 local function f() d = d + 1 local co = coroutine.create(f) local ok, e = coroutine.resume(co) if not ok then error(e, 0) end end local ok, e = pcall(f) return {e, d}",
	"local d = 0 local function f() d = d + 1 table.sort({1,2,3}, function(a, b) f() return a < b end) end local ok, e = pcall(f) return {e, d}",
	"local d = 0 local function f() d = d + 1 return tostring(setmetatable({}, {__tostring = f})) end local ok, e = pcall(f) return {e, d}",
	"local d = 0 local function f() d = d + 1 return xpcall(f, function(m) return m end) end return {f(), d}",
	"local d = 0 local function f() d = d + 1 string.gsub('a', 'a', f) end local ok, e = pcall(f) return {e, d}",
}

func TestDiffScriptsLuaDetails(t *testing.T) {
	var st []diffStep
	for _, s := range luaDetails {
		st = append(st, evalStep(s, nil))
	}
	runDiffCases(t, []diffCase{{name: "lua-details", needs: []string{"eval"}, steps: st}})
}
