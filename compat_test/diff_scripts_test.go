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
		{name: "script-select", needs: eval, steps: steps(
			"SELECT 2", "SET k db2",
			evalStep(`redis.call("select", "3") redis.call("set", "k", "db3") return redis.call("get", "k")`, nil),
			"GET k",
			evalStep(`return redis.call("get", "k")`, nil),
			"SELECT 3", "GET k", "SELECT 0",
		)},
	})
}
