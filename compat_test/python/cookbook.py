"""The Python recipes of docs/locks.md: each region between a "snippet:"
line and "end snippet" is shown on the page, and the root module's
TestDocSnippets checks that page and file agree. Run by ../cookbook_test.go
with a lockredis address; prints "ok <check>" for every lock property
verified and exits 1 at the first violation.
"""
import sys
import threading
import time

import redis


def check(cond, what):
    if not cond:
        raise AssertionError("FAIL " + what)


def ok(name):
    print("ok " + name, flush=True)


def main(addr):
    host, port = addr.rsplit(":", 1)
    # snippet: python-lock
    r = redis.Redis(host=host, port=int(port))  # lockredis's address

    a = r.lock("lock:report", timeout=0.2)  # a 200 ms lease
    check(a.acquire(blocking=False), "a acquires")
    # The lock's fencing token, sent with every write to the resource.
    token_a = r.execute_command("LOCK.TOKEN", "lock:report")
    check(r.execute_command("LOCK.CHECK", "lock:report", token_a) == 1, "a holds it")
    check(not r.lock("lock:report").acquire(blocking=False), "a second holder is refused")

    time.sleep(0.3)  # a stalls past its lease; b takes the lock
    b = r.lock("lock:report", timeout=10)
    check(b.acquire(blocking=False), "b acquires")
    token_b = r.execute_command("LOCK.TOKEN", "lock:report")
    check(token_b > token_a, "tokens only grow")
    # The resource asks lockredis whether a's token still holds the lock.
    check(r.execute_command("LOCK.CHECK", "lock:report", token_a) == 0, "a's token is stale")
    b.release()
    # end snippet
    ok("lock with fencing tokens")

    other = redis.Redis(host=host, port=int(port))
    r.execute_command("LOCK.ACQUIRE", "lock:job", "worker-1", 10000)
    # snippet: python-wait
    # worker-2 queues for the lock worker-1 holds, for up to 2 s (redis-py
    # has no read timeout unless socket_timeout is set: keep it above the
    # WAIT). None means not granted.
    result = {}
    waiter = threading.Thread(target=lambda: result.update(token=other.execute_command(
        "LOCK.ACQUIRE", "lock:job", "worker-2", 10000, "WAIT", 2000)))
    waiter.start()
    while r.execute_command("LOCK.INFO", "lock:job")[9] != 1:  # "waiters" (RESP2)
        pass
    # worker-1's release hands the lock to worker-2 in the same step.
    check(r.execute_command("LOCK.RELEASE", "lock:job", "worker-1") == 1, "worker-1 released")
    waiter.join()
    check(result["token"] is not None and r.get("lock:job") == b"worker-2", "worker-2 granted")
    # end snippet
    check(result["token"] > token_b, "a newer token for worker-2")
    ok("wait and hand-over")

    # What LOCK.INFO says of redis-py's Lock (docs/locks.md's table): a
    # string holding the lock's token.
    lock = r.lock("layout:redis-py", timeout=10)
    check(lock.acquire(blocking=False), "layout lock")
    info = r.execute_command("LOCK.INFO", "layout:redis-py")
    fields = dict(zip(info[0::2], info[1::2]))
    check(fields[b"kind"] == b"string" and fields[b"owners"] == [lock.local.token], "redis-py Lock: %r" % fields)
    ok("lock.info layout")


if __name__ == "__main__":
    try:
        main(sys.argv[1])
    except AssertionError as e:
        print(e)
        sys.exit(1)
