"""lockredis's LOCK.* commands from redis-py (execute_command); the
recipes docs/locks.md shows are cookbook.py. Run by ../lockcmd_test.go
with the server address.
Prints "ok <check>" for every property verified, exits 1 at the first
violation.
"""
import sys
import threading

import redis


def check(cond, what):
    if not cond:
        raise AssertionError("FAIL " + what)


def ok(name):
    print("ok " + name, flush=True)


def main(addr):
    host, port = addr.rsplit(":", 1)
    r = redis.Redis(host=host, port=int(port), decode_responses=True)
    other = redis.Redis(host=host, port=int(port), decode_responses=True)

    # LOCK.ACQUIRE key owner ttl-ms -> the fencing token, or None.
    token = r.execute_command("LOCK.ACQUIRE", "job:42", "worker-1", 30000)
    check(isinstance(token, int), "token %r" % token)
    check(r.get("job:42") == "worker-1", "the lock is a string key")
    ok("acquire")

    again = r.execute_command("LOCK.ACQUIRE", "job:42", "worker-1", 30000)
    check(again == token, "same owner, same token")
    ok("idempotent")

    check(other.execute_command("LOCK.ACQUIRE", "job:42", "worker-2", 30000) is None, "held")
    ok("refused")

    # WAIT: worker-2 queues; the release hands the lock straight to it.
    result = {}
    t = threading.Thread(target=lambda: result.update(
        token=other.execute_command("LOCK.ACQUIRE", "job:42", "worker-2", 30000, "WAIT", 5000)))
    t.start()
    while r.execute_command("LOCK.INFO", "job:42")[9] != 1:  # "waiters"
        pass
    check(r.execute_command("LOCK.RELEASE", "job:42", "worker-1") == 1, "release")
    t.join()
    check(result["token"] > token, "a newer token: %r" % result)
    check(r.get("job:42") == "worker-2", "handed over")
    ok("wait and hand-over")

    info = r.execute_command("LOCK.INFO", "job:42")
    fields = dict(zip(info[0::2], info[1::2]))  # RESP2: a flat array
    check(fields["kind"] == "string" and fields["owners"] == ["worker-2"], "info %r" % fields)
    check(0 < fields["ttl"] <= 30000 and fields["waiters"] == 0, "info %r" % fields)
    ok("info")

    check(r.execute_command("LOCK.EXTEND", "job:42", "worker-2", 60000) == 1, "extend")
    check(r.execute_command("LOCK.RELEASE", "job:42", "worker-1") == 0, "not the owner")
    check(r.execute_command("LOCK.RELEASE", "job:42", "worker-2") == 1, "release")
    check(r.exists("job:42") == 0, "gone")
    ok("release")


if __name__ == "__main__":
    try:
        main(sys.argv[1])
    except AssertionError as e:
        print(e)
        sys.exit(1)
