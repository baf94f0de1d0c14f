"""redis-py's Lock across a replicated group's leader failover.

Run by ../failover_linux_test.go as: failover.py MODE host:port... where
MODE is "sentinel" (redis-py's Sentinel: master_for the group's name) or
"cluster" (redis-py's RedisCluster), and the addresses are the group's
nodes. The script takes a lock, prints "kill" and waits for a line on
stdin: meanwhile the test kills the leader with SIGKILL. Then the lock
must still be held (another owner's acquire is refused as soon as the
group answers again), its owner must still own it (extend, release), and
the other owner gets it once released. Prints "ok <check>" for every
property that held; exits 1 at the first violation.

redis-py 4.3.4 (Debian's python3-redis) has a RedisCluster bug: once a
node is gone, NodesManager.initialize deep-copies its connection kwargs,
which hold a bound method of the client, and raises RedisClusterException
("cannot pickle '_thread.lock' object"; redis/redis-py#2480). A real
Redis Cluster losing its master meets the same; an application works
around it by making a new RedisCluster, which this script does (the lock
keeps its token: redis-py's Lock keeps it in lock.local.token).
"""
import sys
import time

import redis
from redis.cluster import ClusterNode, RedisCluster
from redis.exceptions import ConnectionError, RedisClusterException, RedisError, TimeoutError
from redis.sentinel import MasterNotFoundError, Sentinel


def check(cond, what):
    if not cond:
        raise AssertionError("FAIL " + what)


def ok(name):
    print("ok " + name, flush=True)


class Owner:
    """One client and its Lock on the test's key; renew() makes a new
    client (the RedisCluster work-around above), keeping the lock's token."""

    def __init__(self, mode, nodes):
        self.mode, self.nodes = mode, nodes
        self.renew()

    def renew(self):
        token = self.lock.local.token if hasattr(self, "lock") else None
        if self.mode == "sentinel":
            s = Sentinel(self.nodes, socket_timeout=1)
            check(s.discover_master("mymaster") in self.nodes, "SENTINEL names a node of the group as master")
            self.r = s.master_for("mymaster", socket_timeout=1)
        else:
            self.r = RedisCluster(startup_nodes=[ClusterNode(h, p) for h, p in self.nodes], socket_timeout=1)
        self.lock = self.r.lock("failover:lock", timeout=60)
        self.lock.local.token = token

    def retry(self, what, fn, within=20.0):
        """fn(self) until it answers: the errors a client sees while the
        group elects a new leader (a closed connection, no master yet,
        TRYAGAIN, CLUSTERDOWN, MOVED to a node that is gone) are retried."""
        deadline = time.monotonic() + within
        while True:
            try:
                return fn(self)
            except (ConnectionError, TimeoutError, MasterNotFoundError, RedisError, RedisClusterException) as e:
                if isinstance(e, redis.exceptions.LockError):
                    raise
                if time.monotonic() > deadline:
                    raise AssertionError("FAIL %s: no answer within %.0f s: %r" % (what, within, e))
                if isinstance(e, RedisClusterException):
                    try:
                        self.renew()
                    except (RedisError, RedisClusterException):
                        pass  # no node answers yet: try again
                time.sleep(0.05)


def main(mode, addrs):
    if mode not in ("sentinel", "cluster"):
        raise SystemExit("unknown mode " + mode)
    nodes = [(a.rsplit(":", 1)[0], int(a.rsplit(":", 1)[1])) for a in addrs]
    me, other = Owner(mode, nodes), Owner(mode, nodes)
    ok("redis-py %s %s" % (redis.__version__, mode))
    check(me.lock.acquire(blocking=False), "first acquire")
    check(not other.lock.acquire(blocking=False), "second owner refused before the failover")
    token = me.lock.local.token
    ok("acquire")

    print("kill", flush=True)
    sys.stdin.readline()  # the test killed the leader
    killed = time.monotonic()

    got = other.retry("another owner's acquire after the failover", lambda o: o.lock.acquire(blocking=False))
    check(not got, "another owner acquired a lock held across the failover")
    print("info first answer %.0f ms after the kill" % ((time.monotonic() - killed) * 1000), flush=True)
    ok("lock held across the failover")

    check(me.retry("GET", lambda o: o.r.get("failover:lock")) == token, "the key still holds the owner's token")
    check(me.retry("extend", lambda o: o.lock.extend(30)), "the owner extends its lock after the failover")
    pttl = me.retry("PTTL", lambda o: o.r.pttl("failover:lock"))
    check(30000 < pttl <= 90000, "PTTL after extend in (30000,90000]: %d" % pttl)
    ok("owner still owns it")

    me.retry("release", lambda o: o.lock.release())
    check(other.retry("acquire after release", lambda o: o.lock.acquire(blocking=False)), "the other owner acquires once released")
    other.retry("release", lambda o: o.lock.release())
    ok("released and reacquired")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
