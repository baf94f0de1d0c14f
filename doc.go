// Package lockredis is a lock server that speaks the Redis protocol (RESP2
// and RESP3): unmodified Redis clients and lock libraries (go-redis,
// redsync, rueidislock, redis-py's Lock, node-redlock, Redisson's scripts...) run
// against it, and for every Redis 7.0 command it gives the bytes
// redis-server 7.0 gives. On top of Redis it knows it holds locks: every
// key has a fencing token that only grows, LOCK.ACQUIRE ... WAIT queues
// waiters and hands a freed lock to one of them, SESSION locks die with
// their connection, and a restart fence keeps a crashed server from
// granting a lock twice.
//
// This package runs it inside a Go process: as a fake Redis in tests, with
// a clock the test moves, or built into a program. The standalone server
// is cmd/lockredis.
//
// # A server in a test
//
// [RunT] starts a server on a free port of 127.0.0.1 and closes it when
// the test ends; point any Redis client at [Server.Addr]:
//
//	srv := lockredis.RunT(t)
//	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
//	rdb.SetNX(ctx, "lock:job", "worker-1", 30*time.Second)
//	srv.FastForward(31 * time.Second) // the lease runs out: no sleeping
//
// [Run] and [NewServer] with [Options] do the same outside tests. Many
// servers live in one process and share nothing; [RunCluster] starts
// several, for Redlock.
//
// # The clock
//
// A server's clock follows real time; [Server.FastForward] adds to it,
// [Server.SetTime] sets it, and with Options.ManualClock it moves only
// by those two, so TTLs and TIME are exact in a test. Expiry follows that
// clock, keyspace events included.
//
// # State without a client
//
// [Server.Do] runs any command as a client of its own would. The typed
// helpers ([Server.Get], [Server.Set], [DB.HSet], [DB.ZAdd]...; [Server.DB]
// for another database) read and change state in one call, through the
// same dispatcher, so they see expiry and take fencing tokens; the Check
// helpers ([Server.CheckGet]...) assert on it. [Server.Subscribe] receives
// pub/sub messages and keyspace events in process.
//
// # Faults
//
// [Server.SetError] makes every command fail, [Server.Pause] hangs the
// server, [Server.Close] takes it down and [Server.Restart] brings it back
// as a redis-server restarted with persistence would be.
//
// # More
//
// The repository's docs/ pages: embedding.md (this API), locks.md (the
// lock commands, fencing tokens, a cookbook per client), configuration.md
// (the Options' flag and config-file names), operations.md (persistence,
// the restart fence, TLS), commands.md and differences.md.
package lockredis
