# The Ruby recipes of docs/locks.md, with redis-rb (Debian's ruby-redis):
# each region between a "snippet:" line and "end snippet" is shown on the
# page, and the root module's TestDocSnippets checks that page and file
# agree. Run by ../cookbook_test.go with a lockredis address; prints
# "ok <check>" for every lock property verified and exits 1 at the first
# violation.
require "redis"
require "securerandom"

def check(cond, what)
  raise "FAIL #{what}" unless cond
end

def ok(name)
  puts "ok #{name}"
  $stdout.flush
end

host, port = ARGV.fetch(0).split(/:(?=\d+\z)/)
port = Integer(port)

# snippet: ruby-lock
# The compare-and-delete release every Redis lock client sends.
RELEASE = <<~LUA
  if redis.call("get", KEYS[1]) == ARGV[1] then
    return redis.call("del", KEYS[1])
  else
    return 0
  end
LUA

r = Redis.new(host: host, port: port) # lockredis's address
me = SecureRandom.hex(16)

check(r.set("lock:report", me, nx: true, px: 200), "a acquires (200 ms lease)")
# The lock's fencing token, sent with every write to the resource.
token_a = r.call("LOCK.TOKEN", "lock:report")
check(r.call("LOCK.CHECK", "lock:report", token_a) == 1, "a holds it")
check(!r.set("lock:report", "someone-else", nx: true, px: 200), "a second holder is refused")

sleep 0.3 # a stalls past its lease; b takes the lock
b = SecureRandom.hex(16)
check(r.set("lock:report", b, nx: true, px: 10_000), "b acquires")
token_b = r.call("LOCK.TOKEN", "lock:report")
check(token_b > token_a, "tokens only grow")
# The resource asks lockredis whether a's token still holds the lock.
check(r.call("LOCK.CHECK", "lock:report", token_a) == 0, "a's token is stale")
check(r.eval(RELEASE, keys: ["lock:report"], argv: [me]) == 0, "a cannot release b's lock")
check(r.eval(RELEASE, keys: ["lock:report"], argv: [b]) == 1, "b releases")
# end snippet
ok "lock with fencing tokens"

r.call("LOCK.ACQUIRE", "lock:job", "worker-1", 10_000)
# snippet: ruby-wait
# worker-2 queues for the lock worker-1 holds, for up to 2 s. redis-rb
# gives up reading after read_timeout (5 s by default) and then sends the
# command again: keep the timeout above the WAIT. nil means not granted.
other = Redis.new(host: host, port: port, read_timeout: 3)
waiter = Thread.new { other.call("LOCK.ACQUIRE", "lock:job", "worker-2", 10_000, "WAIT", 2000) }
sleep 0.001 until r.call("LOCK.INFO", "lock:job")[9] == 1 # "waiters"
# worker-1's release hands the lock to worker-2 in the same step.
check(r.call("LOCK.RELEASE", "lock:job", "worker-1") == 1, "worker-1 released")
token = waiter.value
check(!token.nil? && r.get("lock:job") == "worker-2", "worker-2 granted")
# end snippet
check(token > token_b, "a newer token for worker-2")
ok "wait and hand-over"
