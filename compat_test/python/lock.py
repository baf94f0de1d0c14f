"""redis-py's Lock (Debian python3-redis) against one lockredis.

Run by ../python_test.go with the server address ("host:port") as argument.
Prints "ok <check>" for every lock property verified and exits 1 at the
first violation.
"""
import sys
import threading
import time

import redis
from redis.exceptions import LockError, LockNotOwnedError


def check(cond, what):
    if not cond:
        raise AssertionError("FAIL " + what)


def ok(name):
    print("ok " + name, flush=True)


def main(addr):
    host, port = addr.rsplit(":", 1)
    connect = lambda: redis.Redis(host=host, port=int(port), socket_timeout=5)
    r1, r2 = connect(), connect()
    ok("redis-py " + redis.__version__)

    l1 = r1.lock("pl", timeout=5)
    check(l1.acquire(blocking=False), "first acquire")
    check(l1.owned() and l1.locked(), "holder sees owned() and locked()")
    check(r1.get("pl") == l1.local.token, "key holds the holder token")
    pttl = r1.pttl("pl")
    check(0 < pttl <= 5000, "PTTL in (0,5000]: %d" % pttl)
    ok("acquire")

    l2 = r2.lock("pl", timeout=5, sleep=0.01)
    check(l2.locked() and not l2.owned(), "other client sees locked() but not owned()")
    start = time.monotonic()
    got = l2.acquire(blocking=True, blocking_timeout=0.3)
    waited = time.monotonic() - start
    check(not got, "blocking acquire of a held lock fails")
    check(0.25 <= waited < 3, "blocking acquire gave up after its timeout: %.3fs" % waited)
    ok("blocking acquire times out")

    check(l1.extend(10), "extend by 10 s")
    pttl = r1.pttl("pl")
    check(10000 < pttl <= 15000, "extend adds to the TTL: %d" % pttl)
    check(l1.extend(2, replace_ttl=True), "extend with replace_ttl")
    pttl = r1.pttl("pl")
    check(0 < pttl <= 2000, "replace_ttl sets the TTL: %d" % pttl)
    check(l1.reacquire(), "reacquire")
    pttl = r1.pttl("pl")
    check(2000 < pttl <= 5000, "reacquire resets the TTL to the timeout: %d" % pttl)
    ok("extend and reacquire")

    # A non-owner: same name, another token (as another process would hold).
    # release() forgets the token before it asks the server, so set it anew.
    thief = r2.lock("pl", timeout=5)
    for name, op in (("release", thief.release), ("extend", lambda: thief.extend(5)),
                     ("reacquire", thief.reacquire)):
        thief.local.token = b"not-the-owner"
        try:
            op()
        except LockNotOwnedError:
            pass
        else:
            raise AssertionError("FAIL %s by a non-owner did not raise LockNotOwnedError" % name)
    check(r1.get("pl") == l1.local.token, "non-owner calls left the lock in place")
    ok("non-owner raises LockNotOwnedError")

    l1.release()
    check(not l1.locked() and r1.exists("pl") == 0, "release frees the key")
    try:
        l1.release()
    except LockError:
        pass
    else:
        raise AssertionError("FAIL releasing twice did not raise LockError")
    check(l2.acquire(blocking=False), "lock free again after release")
    l2.release()
    ok("release")

    short = r1.lock("pe", timeout=0.1)
    check(short.acquire(blocking=False), "short lock acquired")
    waiter = r2.lock("pe", timeout=5, sleep=0.01)
    start = time.monotonic()
    check(waiter.acquire(blocking=True, blocking_timeout=3), "waiter gets the lock once it expires")
    waited = time.monotonic() - start
    check(waited < 2, "expiry freed the lock in time: %.3fs" % waited)
    check(not short.owned(), "expired holder no longer owns it")
    try:
        short.release()
    except LockNotOwnedError:
        pass
    else:
        raise AssertionError("FAIL releasing an expired, retaken lock did not raise LockNotOwnedError")
    check(waiter.owned(), "waiter still owns the lock")
    waiter.release()
    ok("expiry")

    # Exclusion: threads on their own connections; critical sections never overlap.
    state = {"inside": 0, "entries": 0, "overlap": False}
    guard = threading.Lock()

    def worker():
        client = connect()
        for _ in range(10):
            with client.lock("mutex", timeout=5, sleep=0.002, blocking_timeout=10):
                with guard:
                    state["inside"] += 1
                    state["entries"] += 1
                    if state["inside"] != 1:
                        state["overlap"] = True
                time.sleep(0.001)
                client.incr("counter")
                with guard:
                    state["inside"] -= 1

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    check(not state["overlap"], "two holders inside the critical section")
    check(state["entries"] == 40 and r1.get("counter") == b"40", "all 40 critical sections ran")
    ok("exclusion")


if __name__ == "__main__":
    try:
        main(sys.argv[1])
    except Exception as err:  # report any failure, including client errors
        print("%s: %s" % (type(err).__name__, err), file=sys.stderr)
        sys.exit(1)
