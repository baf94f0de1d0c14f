package config

import (
	"math"
	"time"
)

const (
	maxInt32  = math.MaxInt32
	minInt32  = math.MinInt32
	maxUint32 = math.MaxUint32
	maxInt64  = math.MaxInt64
	mb        = 1 << 20
)

// Why texts shared by several parameters.
const (
	whyNoReplication = "lockredis has no replication"
	whyNoUnixSocket  = "lockredis listens on TCP only"
	whyClusterAddr   = "the emulated cluster announces the address each client connected to"
	whyTLSLinks      = "lockredis has no replication or cluster links for it to secure"
	whyTLSCache      = "crypto/tls resumes sessions with tickets, not a server-side cache; tls-session-caching turns resumption on or off"
)

// Params is every parameter, in the order CONFIG GET lists them: Redis
// 7.0's (its names, types, bounds and defaults; redis-server 7.0.15 is
// the reference) and lockredis's own, grouped as redis.conf groups them.
// Defaults differ from redis-server's only where lockredis behaves
// differently: save is "" (lockredis takes no snapshots).
var Params = []Param{
	// Network.
	{Name: "bind", Kind: Addresses, Default: "* -::*", Multi: true, Mode: Live, By: ByServer, Binary: "127.0.0.1",
		Usage: "address(es) to listen on, space or comma separated; a leading - makes one optional (127.0.0.1 -::1)"},
	{Name: "bind-source-addr", Kind: String, Mode: Fixed, Why: "lockredis does not choose the source address of its connections"},
	{Name: "protected-mode", Kind: Bool, Default: "yes", Mode: Live,
		Usage: "yes|no: without requirepass, refuse clients not from 127.0.0.1 or ::1"},
	{Name: "port", Kind: Int, Default: "6379", Max: 65535, Mode: Live, By: ByServer, Short: "p", Binary: "6379",
		Usage: "TCP port to listen on (0: a free port)"},
	{Name: "tcp-backlog", Kind: Int, Default: "511", Max: maxInt32, Mode: Kept, Immutable: true},
	{Name: "unixsocket", Kind: String, Mode: Fixed, Immutable: true, Why: whyNoUnixSocket},
	{Name: "unixsocketperm", Kind: Octal, Default: "0", Max: 0o777, Mode: Fixed, Immutable: true, Why: whyNoUnixSocket},
	{Name: "socket-mark-id", Kind: Int, Default: "0", Max: maxUint32, Mode: Fixed, Immutable: true, Why: "lockredis does not mark its sockets"},
	{Name: "timeout", Kind: Int, Default: "0", Max: maxInt32, Unit: time.Second, Mode: Live,
		Usage: "close a client idle for this many seconds (0: never)"},
	{Name: "tcp-keepalive", Kind: Int, Default: "300", Max: maxInt32, Unit: time.Second, Mode: Live,
		Usage: "seconds between TCP keepalive probes of idle clients (0: off)"},

	// TLS (tlsconfig.go): read at start by the server.
	{Name: "tls-port", Kind: Int, Default: "0", Max: 65535, Mode: Start, By: ByServer,
		Usage: "TLS port to listen on (0: none); with --port 0 the only port"},
	{Name: "tls-cert-file", Kind: String, Mode: Start, By: ByServer, Usage: "server certificate (PEM)"},
	{Name: "tls-key-file", Kind: String, Mode: Start, By: ByServer, Usage: "server private key (PEM, unencrypted)"},
	{Name: "tls-key-file-pass", Kind: String, Mode: Fixed,
		Why: "encrypted private keys are not supported: decrypt the key (openssl pkey -in key.pem -out plain.pem)"},
	{Name: "tls-client-cert-file", Kind: String, Mode: Fixed, Why: whyTLSLinks},
	{Name: "tls-client-key-file", Kind: String, Mode: Fixed, Why: whyTLSLinks},
	{Name: "tls-client-key-file-pass", Kind: String, Mode: Fixed, Why: whyTLSLinks},
	{Name: "tls-dh-params-file", Kind: String, Mode: Fixed, Why: "crypto/tls has no DHE cipher suites (it uses ECDHE)"},
	{Name: "tls-ca-cert-file", Kind: String, Mode: Start, By: ByServer, Usage: "CA bundle (PEM) that signs client certificates"},
	{Name: "tls-ca-cert-dir", Kind: String, Mode: Start, By: ByServer, Usage: "directory of CA certificates (PEM) that sign client certificates"},
	{Name: "tls-auth-clients", Kind: Enum, Enum: []string{"no", "yes", "optional"}, Default: "yes", Mode: Start, By: ByServer,
		Usage: "yes|optional|no: require, accept or ignore client certificates"},
	{Name: "tls-replication", Kind: Bool, Default: "no", Mode: Fixed, Why: whyNoReplication},
	{Name: "tls-cluster", Kind: Bool, Default: "no", Mode: Fixed, Why: "lockredis has no cluster bus"},
	{Name: "tls-protocols", Kind: String, Mode: Start, By: ByServer,
		Usage: `TLS versions, consecutive, e.g. "TLSv1.2 TLSv1.3" (the default)`},
	{Name: "tls-ciphers", Kind: String, Mode: Start, By: ByServer,
		Usage: "TLS 1.2 cipher suites, ':' separated (OpenSSL or IANA names); empty: Go's defaults"},
	{Name: "tls-ciphersuites", Kind: String, Mode: Fixed, Why: "crypto/tls does not let TLS 1.3 cipher suites be chosen"},
	{Name: "tls-prefer-server-ciphers", Kind: Bool, Default: "no", Mode: Fixed, Why: "crypto/tls always picks the cipher suite by its own order"},
	{Name: "tls-session-caching", Kind: Bool, Default: "yes", Mode: Start, By: ByServer, Usage: "yes|no: let clients resume TLS sessions"},
	{Name: "tls-session-cache-size", Kind: Int, Default: "20480", Max: maxInt32, Mode: Fixed, Why: whyTLSCache},
	{Name: "tls-session-cache-timeout", Kind: Int, Default: "300", Max: maxInt32, Mode: Fixed, Why: whyTLSCache},

	// General.
	{Name: "daemonize", Kind: Bool, Default: "no", Mode: Start, By: ByBinary, Immutable: true,
		Usage: "yes|no: lockredis never forks; yes logs that it stays in the foreground"},
	{Name: "supervised", Kind: Enum, Enum: []string{"upstart", "systemd", "auto", "no"}, Default: "no", Mode: Start, By: ByBinary, Immutable: true,
		Usage: "no|auto|systemd: tell systemd (NOTIFY_SOCKET) when ready"},
	{Name: "pidfile", Kind: String, Mode: Start, By: ByBinary, Immutable: true,
		Usage: "write the process id to this file while running"},
	{Name: "loglevel", Kind: Enum, Enum: []string{"debug", "verbose", "notice", "warning"}, Default: "notice", Mode: Live, By: ByBinary,
		Usage: "debug|verbose|notice|warning"},
	{Name: "logfile", Kind: String, Mode: Start, By: ByBinary, Immutable: true,
		Usage: "log file; empty logs to standard output"},
	// The binary's HTTP endpoint (cmd/lockredis/metrics.go), which
	// checks the address.
	{Name: "metrics-bind", Kind: String, Mode: Start, By: ByBinary, Immutable: true, Own: true,
		Usage: "host:port serving Prometheus metrics (/metrics), /healthz and /readyz over HTTP (empty: off)"},
	{Name: "syslog-enabled", Kind: Bool, Default: "no", Mode: Kept, Immutable: true},
	{Name: "syslog-ident", Kind: String, Default: "redis", Mode: Kept, Immutable: true},
	{Name: "syslog-facility", Kind: Enum, Enum: []string{"user", "local0", "local1", "local2", "local3", "local4", "local5", "local6", "local7"},
		Default: "local0", Mode: Kept, Immutable: true},
	{Name: "crash-log-enabled", Kind: Bool, Default: "yes", Mode: Kept},
	{Name: "crash-memcheck-enabled", Kind: Bool, Default: "yes", Mode: Kept},
	{Name: "databases", Kind: Int, Default: "16", Min: 1, Max: 256, Mode: Start, Immutable: true,
		Usage: "number of databases (1..256)"},
	{Name: "always-show-logo", Kind: Bool, Default: "no", Mode: Kept, Immutable: true},
	{Name: "set-proc-title", Kind: Bool, Default: "yes", Mode: Kept, Immutable: true},
	{Name: "proc-title-template", Kind: String, Default: "{title} {listen-addr} {server-mode}", Mode: Kept},
	{Name: "enable-protected-configs", Kind: Enum, Enum: []string{"no", "yes", "local"}, Default: "no", Mode: Fixed, Immutable: true,
		Why: "CONFIG SET never changes dir or dbfilename in lockredis"},
	{Name: "enable-debug-command", Kind: Enum, Enum: []string{"no", "yes", "local"}, Default: "no", Mode: Start, Immutable: true,
		Usage: "no|yes|local: who may run DEBUG (local: loopback and unix socket clients)"},
	{Name: "enable-module-command", Kind: Enum, Enum: []string{"no", "yes", "local"}, Default: "no", Mode: Start, Immutable: true,
		Usage: "no|yes|local: who may run MODULE LOAD/LOADEX/UNLOAD (lockredis loads no modules: they fail as Redis's do)"},
	{Name: "include", Kind: String, Multi: true, Directive: true, Mode: Fixed, Why: "lockredis reads one config file"},
	{Name: "loadmodule", Kind: String, Multi: true, Directive: true, Mode: Fixed, Why: "lockredis has no modules"},

	// Snapshotting: lockredis persists with its append-only file only.
	{Name: "save", Kind: Save, Multi: true, Repeat: true, Mode: Kept,
		Usage: "accepted for redis-server compatibility; snapshots are not used"},
	{Name: "stop-writes-on-bgsave-error", Kind: Bool, Default: "yes", Mode: Kept},
	{Name: "rdbcompression", Kind: Bool, Default: "yes", Mode: Kept},
	{Name: "rdbchecksum", Kind: Bool, Default: "yes", Mode: Kept, Immutable: true},
	{Name: "sanitize-dump-payload", Kind: Enum, Enum: []string{"no", "yes", "clients"}, Default: "no", Mode: Kept},
	{Name: "dbfilename", Kind: String, Default: "dump.rdb", Mode: Kept, Protected: true},
	{Name: "rdb-del-sync-files", Kind: Bool, Default: "no", Mode: Kept},
	{Name: "rdb-save-incremental-fsync", Kind: Bool, Default: "yes", Mode: Kept},
	// dir: "" keeps an embedded server's files nowhere (in memory, no
	// restart fence state); CONFIG GET then reports the working directory,
	// as redis-server does.
	{Name: "dir", Kind: String, Mode: Start, Protected: true, Binary: ".",
		Usage: "directory for the append-only file and the state file"},

	// Replication: lockredis has none; its knobs are kept.
	{Name: "replicaof", Alias: "slaveof", Kind: String, Multi: true, Mode: Fixed, Immutable: true, Why: whyNoReplication},
	{Name: "masterauth", Kind: String, Mode: Fixed, Sensitive: true, Why: whyNoReplication},
	{Name: "masteruser", Kind: String, Mode: Fixed, Sensitive: true, Why: whyNoReplication},
	{Name: "replica-serve-stale-data", Alias: "slave-serve-stale-data", Kind: Bool, Default: "yes", Mode: Kept},
	{Name: "replica-read-only", Alias: "slave-read-only", Kind: Bool, Default: "yes", Mode: Kept},
	{Name: "repl-diskless-sync", Kind: Bool, Default: "yes", Mode: Kept},
	{Name: "repl-diskless-sync-delay", Kind: Int, Default: "5", Max: maxInt32, Mode: Kept},
	{Name: "repl-diskless-sync-max-replicas", Kind: Int, Default: "0", Max: maxInt32, Mode: Kept},
	{Name: "repl-diskless-load", Kind: Enum, Enum: []string{"disabled", "on-empty-db", "swapdb"}, Default: "disabled", Mode: Kept},
	{Name: "repl-ping-replica-period", Alias: "repl-ping-slave-period", Kind: Int, Default: "10", Min: 1, Max: maxInt32, Mode: Kept},
	{Name: "repl-timeout", Kind: Int, Default: "60", Min: 1, Max: maxInt32, Mode: Kept},
	{Name: "repl-disable-tcp-nodelay", Kind: Bool, Default: "no", Mode: Kept},
	{Name: "repl-backlog-size", Kind: Memory, Default: "1048576", Min: 1, Max: maxInt64, Clamp: [2]int64{16 << 10, 0}, Mode: Kept},
	{Name: "repl-backlog-ttl", Kind: Int, Default: "3600", Max: maxInt64, Mode: Kept},
	{Name: "replica-priority", Alias: "slave-priority", Kind: Int, Default: "100", Max: maxInt32, Mode: Kept},
	{Name: "replica-announced", Kind: Bool, Default: "yes", Mode: Kept},
	// lockredis has no replicas, so with both set above 0 every write is
	// refused NOREPLICAS, as by a redis-server without replicas.
	{Name: "min-replicas-to-write", Alias: "min-slaves-to-write", Kind: Int, Default: "0", Max: maxInt32, Mode: Live},
	{Name: "min-replicas-max-lag", Alias: "min-slaves-max-lag", Kind: Int, Default: "10", Max: maxInt32, Mode: Live},
	{Name: "replica-announce-ip", Alias: "slave-announce-ip", Kind: String, Mode: Kept},
	{Name: "replica-announce-port", Alias: "slave-announce-port", Kind: Int, Default: "0", Max: 65535, Mode: Kept},
	{Name: "replica-ignore-maxmemory", Alias: "slave-ignore-maxmemory", Kind: Bool, Default: "yes", Mode: Kept},
	{Name: "replica-lazy-flush", Alias: "slave-lazy-flush", Kind: Bool, Default: "no", Mode: Kept},
	{Name: "replica-ignore-disk-write-errors", Kind: Bool, Default: "no", Mode: Kept},
	{Name: "propagation-error-behavior", Kind: Enum, Enum: []string{"ignore", "panic", "panic-on-replicas"}, Default: "ignore", Mode: Kept},

	// Keys tracking (tracking.go).
	{Name: "tracking-table-max-keys", Kind: Int, Default: "1000000", Max: maxInt64, Mode: Live},

	// Security (acl.go).
	{Name: "acllog-max-len", Kind: Int, Default: "128", Max: maxInt64, Mode: Live},
	{Name: "aclfile", Kind: String, Mode: Start, Immutable: true,
		Usage: "ACL users file (ACL LOAD/SAVE); loaded at start"},
	{Name: "requirepass", Kind: String, Mode: Start, Sensitive: true,
		Usage: "password clients must AUTH with"},
	{Name: "acl-pubsub-default", Kind: Enum, Enum: []string{"allchannels", "resetchannels"}, Default: "resetchannels", Mode: Fixed,
		Why: "new ACL users start with no channels (resetchannels), Redis 7.0's default"},
	{Name: "rename-command", Kind: String, Multi: true, Directive: true, Mode: Fixed, Why: "use ACL rules (aclfile) to deny commands"},

	// Clients (resp/).
	{Name: "maxclients", Kind: Int, Default: "10000", Min: 1, Max: maxUint32, Mode: Start, By: ByServer,
		Usage: "maximum number of connected clients"},

	// Memory management (guards.go). Nothing is ever evicted.
	{Name: "maxmemory", Kind: Memory, Default: "0", Max: maxInt64, Mode: Live,
		Usage: "refuse commands that may grow memory (OOM) past this many bytes (100mb, 1gb...; 0: no limit)"},
	{Name: "maxmemory-policy", Kind: Enum, Enum: []string{"volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl",
		"allkeys-lru", "allkeys-lfu", "allkeys-random", "noeviction"}, Default: "noeviction", Mode: Fixed,
		Why:   "lockredis only supports noeviction: evicting keys would release locks their owners still hold",
		Usage: "noeviction (the only policy: evicting keys would release held locks)"},
	{Name: "maxmemory-samples", Kind: Int, Default: "5", Min: 1, Max: maxInt32, Mode: Kept},
	{Name: "maxmemory-eviction-tenacity", Kind: Int, Default: "10", Max: 100, Mode: Kept},
	{Name: "maxmemory-clients", Kind: MemoryPercent, Default: "0", Min: -100, Max: maxInt64, Mode: Fixed,
		Why: "lockredis does not evict clients"},
	{Name: "active-expire-effort", Kind: Int, Default: "1", Min: 1, Max: 10, Mode: Kept},

	// Lazy freeing, threads, kernel tuning.
	{Name: "lazyfree-lazy-eviction", Kind: Bool, Default: "no", Mode: Kept},
	{Name: "lazyfree-lazy-expire", Kind: Bool, Default: "no", Mode: Kept},
	{Name: "lazyfree-lazy-server-del", Kind: Bool, Default: "no", Mode: Kept},
	{Name: "lazyfree-lazy-user-del", Kind: Bool, Default: "no", Mode: Kept},
	{Name: "lazyfree-lazy-user-flush", Kind: Bool, Default: "no", Mode: Kept},
	{Name: "io-threads", Kind: Int, Default: "1", Min: 1, Max: 128, Mode: Kept, Immutable: true},
	{Name: "io-threads-do-reads", Kind: Bool, Default: "no", Mode: Kept, Immutable: true},
	{Name: "oom-score-adj", Kind: Enum, Enum: []string{"no", "yes", "relative", "absolute"}, Default: "no", Mode: Kept},
	{Name: "oom-score-adj-values", Kind: Ints, Count: 3, Default: "0 200 800", Min: -2000, Max: 2000, Multi: true, Mode: Kept},
	{Name: "disable-thp", Kind: Bool, Default: "yes", Mode: Kept, Immutable: true},

	// Append only mode (persist.go).
	{Name: "appendonly", Kind: Bool, Default: "no", Mode: Start,
		Usage: "yes|no: keep the keyspace on disk"},
	{Name: "appendfilename", Kind: String, Default: "appendonly.aof", Mode: Start, Immutable: true,
		Usage: "name of the append-only file in --dir"},
	{Name: "appenddirname", Kind: String, Default: "appendonlydir", Mode: Kept, Immutable: true},
	{Name: "appendfsync", Kind: Enum, Enum: []string{"everysec", "always", "no"}, Default: "everysec", Mode: Start,
		Usage: "always|everysec|no"},
	{Name: "no-appendfsync-on-rewrite", Kind: Bool, Default: "no", Mode: Kept},
	{Name: "auto-aof-rewrite-percentage", Kind: Int, Default: "100", Max: maxInt32, Mode: Kept},
	{Name: "auto-aof-rewrite-min-size", Kind: Memory, Default: "67108864", Max: maxInt64, Mode: Kept},
	{Name: "aof-load-truncated", Kind: Bool, Default: "yes", Mode: Kept},
	{Name: "aof-use-rdb-preamble", Kind: Bool, Default: "yes", Mode: Kept},
	{Name: "aof-timestamp-enabled", Kind: Bool, Default: "no", Mode: Kept},
	{Name: "aof-rewrite-incremental-fsync", Kind: Bool, Default: "yes", Mode: Kept},
	{Name: "aof-disable-auto-gc", Kind: Bool, Default: "no", Mode: Kept},

	// The restart fence (fence.go): lockredis's own. max-lock-ttl caps
	// an automatic fence: a lock TTL above 5m is unusual, and a node
	// refusing new locks for longer after a crash is worse than the risk
	// it covers.
	{Name: "restart-fence", Kind: Custom, Default: "auto", Mode: Start, Immutable: true, Own: true,
		Usage: "auto|off|<duration>: after a crash, refuse to create keys for the largest TTL granted (auto) or the duration"},
	{Name: "max-lock-ttl", Kind: Duration, Default: "5m0s", Mode: Start, Immutable: true, Own: true,
		Usage: "longest restart fence auto may impose"},

	// Shutdown.
	{Name: "shutdown-timeout", Kind: Int, Default: "10", Max: maxInt32, Mode: Kept},
	{Name: "shutdown-on-sigint", Kind: Flags, Enum: []string{"default", "save", "nosave", "now", "force"}, Default: "default", Multi: true, Mode: Kept},
	{Name: "shutdown-on-sigterm", Kind: Flags, Enum: []string{"default", "save", "nosave", "now", "force"}, Default: "default", Multi: true, Mode: Kept},

	// Scripts (guards.go). lua-hard-time-limit is lockredis's own: the
	// running time that stops a script and rolls it back (0: never, as
	// Redis).
	{Name: "busy-reply-threshold", Alias: "lua-time-limit", Kind: Int, Default: "5000", Max: maxInt64, Unit: time.Millisecond, Mode: Live,
		Usage: "milliseconds a script may run before other clients get BUSY and SCRIPT KILL may stop it"},
	{Name: "lua-hard-time-limit", Kind: Int, Default: "60000", Max: maxInt64, Unit: time.Millisecond, Mode: Live, Own: true,
		Usage: "milliseconds after which a script is stopped and rolled back (0: never)"},

	// Locks (lockqueue.go): lockredis's own.
	{Name: "lock-delay", Kind: Int, Default: "0", Max: maxInt64, Unit: time.Millisecond, Mode: Live, Own: true,
		Usage: "milliseconds a SESSION lock stays with its dead owner before it passes on (LOCK.ACQUIRE LOCKDELAY)"},

	// A node of a replicated group (docs/replication.md): the binary makes
	// it one through package raftgroup; lockredis's own, so CONFIG GET
	// answers them by their exact names only (a pattern answers as
	// redis-server does).
	{Name: "raft-id", Kind: String, Hidden: true, Mode: Start, By: ByBinary, Immutable: true, Own: true,
		Usage: "this node's id in a replicated group (docs/replication.md); needs raft-bind"},
	{Name: "raft-bind", Kind: String, Hidden: true, Mode: Start, By: ByBinary, Immutable: true, Own: true,
		Usage: "HOST:PORT of this node's Raft traffic"},
	{Name: "raft-peers", Kind: String, Hidden: true, Mode: Start, By: ByBinary, Immutable: true, Own: true,
		Usage: "the group's first members, the same on every node: 1=HOST:PORT,2=HOST:PORT,3=HOST:PORT (ignored once the node has Raft state)"},
	{Name: "raft-dir", Kind: String, Hidden: true, Mode: Start, By: ByBinary, Immutable: true, Own: true,
		Usage: "directory of the Raft log and snapshots (default <dir>/raft)"},
	{Name: "raft-group-name", Kind: String, Hidden: true, Default: "mymaster", Mode: Start, By: ByBinary, Immutable: true, Own: true,
		Usage: "the master's name Sentinel clients ask for (SENTINEL GET-MASTER-ADDR-BY-NAME)"},
	{Name: "raft-seed-aof", Kind: String, Hidden: true, Mode: Start, By: ByBinary, Immutable: true, Own: true,
		Usage: "a standalone node's append-only file the new group starts with: its first leader loads it when the group has no data yet"},
	{Name: "raft-session-timeout", Kind: Duration, Hidden: true, Default: "10s", Mode: Start, By: ByBinary, Immutable: true, Own: true,
		Usage: "how long a node may be out of the group before the session locks of the clients it forwards end (after their lock-delay); at least twice the heartbeat timeout"},

	// Cluster (cmd_cluster.go): one node that owns every slot, with no
	// bus, file, peers or failures; its tuning is kept.
	{Name: "cluster-enabled", Kind: Bool, Default: "no", Mode: Start, Immutable: true,
		Usage: "yes|no: answer as a Redis cluster of one node that owns every slot (CLUSTER SLOTS, CROSSSLOT...)"},
	{Name: "cluster-config-file", Kind: String, Default: "nodes.conf", Mode: Kept, Immutable: true},
	{Name: "cluster-node-timeout", Kind: Int, Default: "15000", Max: maxInt64, Mode: Kept},
	{Name: "cluster-port", Kind: Int, Default: "0", Max: 65535, Mode: Fixed, Immutable: true,
		Why: "the emulated cluster reports the client port + 10000 as its bus port"},
	{Name: "cluster-replica-validity-factor", Alias: "cluster-slave-validity-factor", Kind: Int, Default: "10", Max: maxInt32, Mode: Kept},
	{Name: "cluster-migration-barrier", Kind: Int, Default: "1", Max: maxInt32, Mode: Kept},
	{Name: "cluster-allow-replica-migration", Kind: Bool, Default: "yes", Mode: Kept},
	{Name: "cluster-require-full-coverage", Kind: Bool, Default: "yes", Mode: Kept},
	{Name: "cluster-replica-no-failover", Alias: "cluster-slave-no-failover", Kind: Bool, Default: "no", Mode: Kept},
	{Name: "cluster-allow-reads-when-down", Kind: Bool, Default: "no", Mode: Kept},
	{Name: "cluster-allow-pubsubshard-when-down", Kind: Bool, Default: "yes", Mode: Kept},
	{Name: "cluster-link-sendbuf-limit", Kind: Memory, Default: "0", Max: maxInt64, Mode: Kept},
	{Name: "cluster-announce-hostname", Kind: String, Mode: Fixed, Why: whyClusterAddr},
	{Name: "cluster-announce-ip", Kind: String, Mode: Fixed, Why: whyClusterAddr},
	{Name: "cluster-announce-port", Kind: Int, Default: "0", Max: 65535, Mode: Fixed, Why: whyClusterAddr},
	{Name: "cluster-announce-tls-port", Kind: Int, Default: "0", Max: 65535, Mode: Fixed, Why: whyClusterAddr},
	{Name: "cluster-announce-bus-port", Kind: Int, Default: "0", Max: 65535, Mode: Fixed, Why: whyClusterAddr},
	{Name: "cluster-preferred-endpoint-type", Kind: Enum, Enum: []string{"ip", "hostname", "unknown-endpoint"}, Default: "ip", Mode: Fixed,
		Why: whyClusterAddr},

	// Slow log and latency monitor (ops.go).
	{Name: "slowlog-log-slower-than", Kind: Int, Default: "10000", Min: -1, Max: maxInt64, Unit: time.Microsecond, Mode: Live,
		Usage: "microseconds a command must take to enter the slow log (-1: none, 0: all)"},
	{Name: "slowlog-max-len", Kind: Int, Default: "128", Max: maxInt64, Mode: Live,
		Usage: "entries the slow log keeps"},
	{Name: "latency-monitor-threshold", Kind: Int, Default: "0", Max: maxInt64, Unit: time.Millisecond, Mode: Live,
		Usage: "milliseconds an event must take to be sampled by LATENCY (0: off)"},
	{Name: "latency-tracking", Kind: Bool, Default: "yes", Mode: Kept},
	{Name: "latency-tracking-info-percentiles", Kind: Percentiles, Default: "50 99 99.9", Multi: true, Mode: Kept},

	// Event notification (notify.go).
	{Name: "notify-keyspace-events", Kind: Custom, Mode: Live,
		Usage: "keyspace event classes to publish, as redis.conf's letters (KEA, Ex...; empty: none)"},

	// Advanced config: encodings and internal tuning lockredis does not
	// have, kept.
	{Name: "hash-max-listpack-entries", Alias: "hash-max-ziplist-entries", Kind: Int, Default: "512", Max: maxInt64, Mode: Kept},
	{Name: "hash-max-listpack-value", Alias: "hash-max-ziplist-value", Kind: Memory, Default: "64", Max: maxInt64, Mode: Kept},
	{Name: "list-max-listpack-size", Alias: "list-max-ziplist-size", Kind: Int, Default: "-2", Min: minInt32, Max: maxInt32, Mode: Kept},
	{Name: "list-compress-depth", Kind: Int, Default: "0", Max: maxInt32, Mode: Kept},
	{Name: "set-max-intset-entries", Kind: Int, Default: "512", Max: maxInt64, Mode: Kept},
	{Name: "zset-max-listpack-entries", Alias: "zset-max-ziplist-entries", Kind: Int, Default: "128", Max: maxInt64, Mode: Kept},
	{Name: "zset-max-listpack-value", Alias: "zset-max-ziplist-value", Kind: Memory, Default: "64", Max: maxInt64, Mode: Kept},
	{Name: "hll-sparse-max-bytes", Kind: Memory, Default: "3000", Max: maxInt64, Mode: Kept},
	{Name: "stream-node-max-bytes", Kind: Memory, Default: "4096", Max: maxInt64, Mode: Kept},
	{Name: "stream-node-max-entries", Kind: Int, Default: "100", Max: maxInt64, Mode: Kept},
	{Name: "activerehashing", Kind: Bool, Default: "yes", Mode: Kept},
	// client-output-buffer-limit (outbuf.go): normal clients in resp/,
	// pubsub in pubsub/, replica kept only.
	{Name: "client-output-buffer-limit", Kind: Custom, Multi: true, Repeat: true, Mode: Live,
		Default: "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60",
		Usage:   `"<class> <hard> <soft> <seconds>" (normal, pubsub, replica); repeatable`},
	// client-query-buffer-limit: resp/ reads it for every command
	// (protect.go keeps it); proto-max-bulk-len is fixed.
	{Name: "client-query-buffer-limit", Kind: Memory, Default: "1073741824", Min: mb, Max: maxInt64, Mode: Live},
	{Name: "proto-max-bulk-len", Kind: Memory, Default: "536870912", Min: mb, Max: maxInt64, Mode: Fixed,
		Why: "lockredis's bulk length limit is 512mb"},
	{Name: "hz", Kind: Int, Default: "10", Max: maxInt32, Clamp: [2]int64{1, 500}, Mode: Kept},
	{Name: "dynamic-hz", Kind: Bool, Default: "yes", Mode: Kept},
	{Name: "lfu-log-factor", Kind: Int, Default: "10", Max: maxInt32, Mode: Kept},
	{Name: "lfu-decay-time", Kind: Int, Default: "1", Max: maxInt32, Mode: Kept},
	// Redis's words when built without its own jemalloc, as Debian's is.
	{Name: "activedefrag", Kind: Bool, Default: "no", Mode: Fixed,
		Why: "Active defragmentation cannot be enabled: it requires a Redis server compiled with a modified Jemalloc like the one shipped by default with the Redis source distribution"},
	{Name: "active-defrag-ignore-bytes", Kind: Memory, Default: "104857600", Min: 1, Max: maxInt64, Mode: Kept},
	{Name: "active-defrag-threshold-lower", Kind: Int, Default: "10", Max: 1000, Mode: Kept},
	{Name: "active-defrag-threshold-upper", Kind: Int, Default: "100", Max: 1000, Mode: Kept},
	{Name: "active-defrag-cycle-min", Kind: Int, Default: "1", Min: 1, Max: 99, Mode: Kept},
	{Name: "active-defrag-cycle-max", Kind: Int, Default: "25", Min: 1, Max: 99, Mode: Kept},
	{Name: "active-defrag-max-scan-fields", Kind: Int, Default: "1000", Min: 1, Max: maxInt64, Mode: Kept},
	{Name: "jemalloc-bg-thread", Kind: Bool, Default: "yes", Mode: Kept},
	{Name: "server_cpulist", Kind: String, Mode: Kept, Immutable: true},
	{Name: "bio_cpulist", Kind: String, Mode: Kept, Immutable: true},
	{Name: "aof_rewrite_cpulist", Kind: String, Mode: Kept, Immutable: true},
	{Name: "bgsave_cpulist", Kind: String, Mode: Kept, Immutable: true},
	{Name: "ignore-warnings", Kind: String, Mode: Kept},

	// Redis's debugging knobs: CONFIG GET answers them by exact name only.
	{Name: "use-exit-on-panic", Kind: Bool, Default: "no", Mode: Kept, Hidden: true},
	{Name: "rdb-key-save-delay", Kind: Int, Default: "0", Min: minInt32, Max: maxInt32, Mode: Kept, Hidden: true},
	{Name: "key-load-delay", Kind: Int, Default: "0", Min: minInt32, Max: maxInt32, Mode: Kept, Hidden: true},
	{Name: "watchdog-period", Kind: Int, Default: "0", Max: maxInt32, Mode: Kept, Hidden: true},
	{Name: "loading-process-events-interval-bytes", Kind: Int, Default: "2097152", Min: 1024, Max: maxInt32, Mode: Kept, Hidden: true},
}
