package engine

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/lockredis/lockredis/keyspace"
)

// INFO [section ...]: Redis's sections and field names for what clients
// and operators read. Figures that belong to Redis internals this server
// does not have (replication backlog, forks, allocator details) are left
// out or read as an idle Redis would report them.

func infoCommands() []*Command {
	return []*Command{
		{Name: "info", Handler: cmdInfo},
	}
}

// PubsubCounter is implemented by a Publisher that can count what is
// subscribed, for INFO's pubsub_channels, pubsub_patterns and
// pubsubshard_channels (pubsub.Hub does).
type PubsubCounter interface {
	Counts() (channels, patterns, shards int)
}

// infoSection is one "# Name" block of INFO.
type infoSection struct {
	name      string // lower case, as INFO's arguments name it
	alias     string // another name selecting it ("module_list")
	inDefault bool   // printed by INFO and INFO default
	gen       func(b []byte, c *Call) []byte
}

// infoSections are in the order Redis prints them. Redis's latencystats
// (per-command latency percentiles) is not kept.
var infoSections = []infoSection{
	{"server", "", true, infoServer},
	{"clients", "", true, infoClients},
	{"memory", "", true, infoMemory},
	{"persistence", "", true, infoPersistence},
	{"stats", "", true, infoStats},
	{"replication", "", true, infoReplication},
	{"cpu", "", true, infoCPU},
	{"modules", "module_list", true, func(b []byte, _ *Call) []byte { return append(b, "# Modules\r\n"...) }},
	{"commandstats", "", false, infoCommandstats},
	{"errorstats", "", true, infoErrorstats},
	{"cluster", "", true, func(b []byte, c *Call) []byte {
		return infoInt(append(b, "# Cluster\r\n"...), "cluster_enabled", boolInt(c.E.cluster.enabled))
	}},
	{"keyspace", "", true, infoKeyspace},
	// lockredis's own, after Redis's sections; only asked for or with all.
	{"locks", "", false, infoLocks},
}

// cmdInfo answers the selected sections, in Redis's order whatever the
// order asked, separated by blank lines: no argument or "default" selects
// the default sections, "all" and "everything" every one. Unknown names
// select nothing.
func cmdInfo(c *Call) {
	want := make([]bool, len(infoSections))
	for i, s := range infoSections {
		want[i] = len(c.Args) == 1 && s.inDefault
	}
	for _, a := range c.Args[1:] {
		all := EqualFold(a, "all") || EqualFold(a, "everything")
		for i, s := range infoSections {
			if all || (EqualFold(a, "default") && s.inDefault) || EqualFold(a, s.name) || (s.alias != "" && EqualFold(a, s.alias)) {
				want[i] = true
			}
		}
	}
	var b []byte
	first := true
	for i, s := range infoSections {
		if !want[i] {
			continue
		}
		if !first {
			b = append(b, "\r\n"...)
		}
		first = false
		b = s.gen(b, c)
	}
	c.W.Verbatim("txt", string(b))
}

func infoLine(b []byte, k, v string) []byte {
	b = append(b, k...)
	b = append(b, ':')
	b = append(b, v...)
	return append(b, "\r\n"...)
}

func infoInt(b []byte, k string, v int64) []byte {
	b = append(b, k...)
	b = append(b, ':')
	b = strconv.AppendInt(b, v, 10)
	return append(b, "\r\n"...)
}

// engineID is a stable 40-hex-digit identifier of this engine, for run_id
// and master_replid: Redis draws them at random at start; deriving them
// from the process, start time and engine keeps them fixed without state.
func (e *Engine) engineID(kind string) string {
	sum := sha1.Sum(fmt.Appendf(nil, "%s %d %d %p", kind, os.Getpid(), e.started.UnixNano(), e))
	return hex.EncodeToString(sum[:])
}

// lockredisVersion is lockredis's own version: Config.Version when the
// server's assembler sets it, else the module version Go recorded in the
// binary.
func (e *Engine) lockredisVersion() string {
	if v := e.cfg.Version; v != "" {
		return v
	}
	const module = "github.com/lockredis/lockredis"
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Path == module {
			return bi.Main.Version
		}
		for _, d := range bi.Deps {
			if d.Path == module {
				return d.Version
			}
		}
	}
	return "unknown"
}

// osName is INFO's os: like uname's "sysname machine", without the
// kernel release Go cannot read portably.
func osName() string {
	name := runtime.GOOS
	switch name {
	case "linux", "darwin", "freebsd", "openbsd", "netbsd", "windows":
		name = strings.ToUpper(name[:1]) + name[1:]
	}
	arch := runtime.GOARCH
	switch arch {
	case "amd64":
		arch = "x86_64"
	case "386":
		arch = "i686"
	case "arm64":
		if runtime.GOOS == "linux" {
			arch = "aarch64"
		}
	}
	return name + " " + arch
}

func infoServer(b []byte, c *Call) []byte {
	e := c.E
	up := time.Since(e.started)
	exe, _ := os.Executable()
	b = append(b, "# Server\r\n"...)
	b = infoLine(b, "redis_version", Version)
	b = infoLine(b, "redis_git_sha1", "00000000")
	b = infoLine(b, "redis_git_dirty", "0")
	b = infoLine(b, "redis_mode", c.E.cluster.mode())
	b = infoLine(b, "os", osName())
	b = infoInt(b, "arch_bits", strconv.IntSize)
	b = infoLine(b, "go_version", runtime.Version())
	b = infoInt(b, "process_id", int64(os.Getpid()))
	b = infoLine(b, "process_supervised", "no")
	b = infoLine(b, "run_id", e.engineID("run"))
	b = infoLine(b, "tcp_port", e.configValue("port"))
	b = infoInt(b, "server_time_usec", e.Clock.Now().UnixMicro())
	b = infoInt(b, "uptime_in_seconds", int64(up/time.Second))
	b = infoInt(b, "uptime_in_days", int64(up/(24*time.Hour)))
	hz := e.configValue("hz")
	b = infoLine(b, "hz", hz)
	b = infoLine(b, "configured_hz", hz)
	b = infoLine(b, "executable", exe)
	b = infoLine(b, "config_file", e.cfg.ConfigFile)
	b = infoLine(b, "io_threads_active", "0")
	b = infoLine(b, "lockredis_version", e.lockredisVersion())
	return b
}

func infoClients(b []byte, c *Call) []byte {
	b = append(b, "# Clients\r\n"...)
	b = infoInt(b, "connected_clients", int64(c.E.ClientCount()))
	b = infoLine(b, "cluster_connections", "0")
	b = infoLine(b, "maxclients", c.E.configValue("maxclients"))
	b = infoLine(b, "client_recent_max_input_buffer", "0")
	b = infoLine(b, "client_recent_max_output_buffer", "0")
	b = infoInt(b, "blocked_clients", int64(c.E.BlockedClients()))
	b = infoInt(b, "tracking_clients", int64(c.E.tracker.clients.Load()))
	b = infoLine(b, "clients_in_timeout_table", "0")
	return b
}

func infoMemory(b []byte, c *Call) []byte {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	maxMem := c.E.MaxMemory()
	used := c.E.UsedMemory()
	b = append(b, "# Memory\r\n"...)
	// used_memory is what maxmemory is compared with: the engine's
	// estimate of its keyspace plus an empty engine's size (guards.go);
	// used_memory_rss what the Go runtime got from the OS for the whole
	// process, used_memory_go_heap its live heap (lockredis's own field).
	b = infoInt(b, "used_memory", used)
	b = infoLine(b, "used_memory_human", keyspace.BytesToHuman(uint64(used)))
	b = infoInt(b, "used_memory_rss", int64(ms.Sys))
	b = infoLine(b, "used_memory_rss_human", keyspace.BytesToHuman(ms.Sys))
	b = infoInt(b, "used_memory_startup", engineBaseMemory)
	b = infoInt(b, "used_memory_dataset", used-engineBaseMemory)
	b = infoInt(b, "used_memory_go_heap", int64(ms.HeapAlloc))
	fc := c.E.functionCount() // functions.go
	b = infoInt(b, "used_memory_scripts_eval", fc.ScriptMemory)
	b = infoInt(b, "number_of_cached_scripts", int64(fc.Scripts))
	b = infoInt(b, "number_of_functions", int64(fc.Functions))
	b = infoInt(b, "number_of_libraries", int64(fc.Libraries))
	b = infoInt(b, "used_memory_functions", fc.Memory)
	b = infoInt(b, "used_memory_scripts", fc.ScriptMemory+fc.Memory)
	b = infoLine(b, "used_memory_scripts_human", keyspace.BytesToHuman(uint64(fc.ScriptMemory+fc.Memory)))
	b = infoInt(b, "maxmemory", maxMem)
	b = infoLine(b, "maxmemory_human", keyspace.BytesToHuman(uint64(maxMem)))
	b = infoLine(b, "maxmemory_policy", c.E.configValue("maxmemory-policy"))
	ratio := 0.0
	if used > 0 {
		ratio = float64(ms.Sys) / float64(used)
	}
	b = infoLine(b, "mem_fragmentation_ratio", strconv.FormatFloat(ratio, 'f', 2, 64))
	b = infoLine(b, "mem_allocator", "go")
	b = infoLine(b, "lazyfree_pending_objects", "0")
	return b
}

func infoPersistence(b []byte, c *Call) []byte {
	// Persistence and the restart fence (persist.go, fence.go).
	pi := c.E.Persistence()
	aof := "0"
	if pi.Enabled || c.E.configValue("appendonly") == "yes" {
		aof = "1"
	}
	rewriting := "0"
	if pi.RewriteInProgress {
		rewriting = "1"
	}
	rewriteStatus := "ok"
	if pi.RewriteFailed {
		rewriteStatus = "err"
	}
	writeStatus := "ok"
	if pi.LastWriteErr != "" || pi.LastFsyncErr != "" {
		writeStatus = "err"
	}
	li := c.E.Loading() // loading.go
	b = append(b, "# Persistence\r\n"...)
	b = infoInt(b, "loading", boolInt(li.Loading))
	b = infoLine(b, "async_loading", "0")
	// TODO: count changes once persistence reports its saves.
	b = infoLine(b, "rdb_changes_since_last_save", "0")
	b = infoLine(b, "rdb_bgsave_in_progress", "0")
	b = infoInt(b, "rdb_last_save_time", pi.LastSave)
	b = infoLine(b, "rdb_last_bgsave_status", "ok")
	b = infoLine(b, "rdb_last_bgsave_time_sec", "-1")
	b = infoLine(b, "rdb_current_bgsave_time_sec", "-1")
	b = infoLine(b, "rdb_saves", "0")
	b = infoLine(b, "aof_enabled", aof)
	b = infoLine(b, "aof_rewrite_in_progress", rewriting)
	b = infoLine(b, "aof_rewrite_scheduled", "0")
	b = infoLine(b, "aof_last_rewrite_time_sec", "-1")
	b = infoLine(b, "aof_current_rewrite_time_sec", "-1")
	b = infoLine(b, "aof_last_bgrewrite_status", rewriteStatus)
	b = infoInt(b, "aof_rewrites", pi.Rewrites)
	b = infoLine(b, "aof_last_write_status", writeStatus)
	if pi.Enabled {
		b = infoInt(b, "aof_current_size", pi.CurrentSize)
		b = infoInt(b, "aof_base_size", pi.BaseSize)
		// lockredis's own fields: the file, the policy, the fsync error.
		b = infoLine(b, "aof_filename", pi.Path)
		b = infoLine(b, "aof_fsync_policy", pi.Fsync)
		b = infoLine(b, "aof_last_fsync_error", pi.LastFsyncErr)
		b = infoLine(b, "aof_last_write_error", pi.LastWriteErr)
		b = infoInt(b, "aof_last_write_errno", int64(pi.LastErrno))
		b = infoLine(b, "aof_misconf", pi.Misconf)
	}
	if li.Loading {
		// Redis's fields while it loads; loading_rdb_used_mem is for RDB
		// files, which lockredis does not read.
		b = infoInt(b, "loading_start_time", li.Start.Unix())
		b = infoInt(b, "loading_total_bytes", li.TotalBytes)
		b = infoLine(b, "loading_rdb_used_mem", "0")
		b = infoInt(b, "loading_loaded_bytes", li.LoadedBytes)
		b = infoLine(b, "loading_loaded_perc", strconv.FormatFloat(li.Percent, 'f', 2, 64))
		b = infoInt(b, "loading_eta_seconds", int64(li.ETA/time.Second))
	}
	fence := c.E.RestartFenceRemaining()
	b = infoInt(b, "restart_fence_remaining_ms", fence.Milliseconds())
	b = infoInt(b, "restart_fence_remaining_sec", int64((fence+time.Second-1)/time.Second))
	return b
}

func infoStats(b []byte, c *Call) []byte {
	st := &c.E.Stats
	var channels, patterns, shards int
	if pc, ok := c.E.Publisher().(PubsubCounter); ok {
		channels, patterns, shards = pc.Counts()
	}
	b = append(b, "# Stats\r\n"...)
	b = infoInt(b, "total_connections_received", st.Connections.Load())
	b = infoInt(b, "total_commands_processed", st.Commands.Load())
	b = infoLine(b, "instantaneous_ops_per_sec", "0")
	b = infoInt(b, "total_net_input_bytes", st.NetInputBytes.Load())
	b = infoInt(b, "total_net_output_bytes", st.NetOutputBytes.Load())
	b = infoLine(b, "instantaneous_input_kbps", "0.00")
	b = infoLine(b, "instantaneous_output_kbps", "0.00")
	b = infoInt(b, "rejected_connections", st.Rejected.Load())
	b = infoLine(b, "sync_full", "0")
	b = infoLine(b, "sync_partial_ok", "0")
	b = infoLine(b, "sync_partial_err", "0")
	b = infoInt(b, "expired_keys", st.ExpiredKeys.Load())
	b = infoLine(b, "expired_stale_perc", "0.00")
	b = infoLine(b, "expired_time_cap_reached_count", "0")
	b = infoLine(b, "evicted_keys", "0")
	b = infoLine(b, "evicted_clients", "0")
	b = infoInt(b, "keyspace_hits", st.KeyspaceHits.Load())
	b = infoInt(b, "keyspace_misses", st.KeyspaceMisses.Load())
	b = infoInt(b, "pubsub_channels", int64(channels))
	b = infoInt(b, "pubsub_patterns", int64(patterns))
	b = infoInt(b, "pubsubshard_channels", int64(shards))
	b = infoLine(b, "latest_fork_usec", "0")
	b = infoLine(b, "total_forks", "0")
	_, tkeys, titems, tprefixes := c.E.TrackingStats()
	b = infoInt(b, "tracking_total_keys", tkeys)
	b = infoInt(b, "tracking_total_items", titems)
	b = infoInt(b, "tracking_total_prefixes", tprefixes)
	b = infoInt(b, "total_error_replies", st.ErrorReplies.Load())
	return b
}

func infoReplication(b []byte, c *Call) []byte {
	if fn := c.E.replInfo.Load(); fn != nil {
		return (*fn)(b)
	}
	b = append(b, "# Replication\r\n"...)
	b = infoLine(b, "role", "master")
	b = infoLine(b, "connected_slaves", "0")
	if c.E.NoGoodReplicas() {
		b = infoLine(b, "min_slaves_good_slaves", "0") // shown while min-replicas applies
	}
	b = infoLine(b, "master_failover_state", "no-failover")
	b = infoLine(b, "master_replid", c.E.engineID("replid"))
	b = infoLine(b, "master_replid2", "0000000000000000000000000000000000000000")
	b = infoLine(b, "master_repl_offset", "0")
	b = infoLine(b, "second_repl_offset", "-1")
	b = infoLine(b, "repl_backlog_active", "0")
	b = infoLine(b, "repl_backlog_size", "1048576")
	b = infoLine(b, "repl_backlog_first_byte_offset", "0")
	b = infoLine(b, "repl_backlog_histlen", "0")
	return b
}

func infoCPU(b []byte, _ *Call) []byte {
	user, sys := processCPU()
	b = append(b, "# CPU\r\n"...)
	b = infoLine(b, "used_cpu_sys", strconv.FormatFloat(sys.Seconds(), 'f', 6, 64))
	b = infoLine(b, "used_cpu_user", strconv.FormatFloat(user.Seconds(), 'f', 6, 64))
	b = infoLine(b, "used_cpu_sys_children", "0.000000")
	b = infoLine(b, "used_cpu_user_children", "0.000000")
	return b
}

// infoKeyspace lists the non-empty databases. Counts include keys that
// have expired but are not yet removed, as Redis's do; avg_ttl is not
// tracked and reads 0.
func infoKeyspace(b []byte, c *Call) []byte {
	b = append(b, "# Keyspace\r\n"...)
	for db := 0; db < c.E.Databases(); db++ {
		var keys, vol int64
		if c.Tx != nil {
			keys, vol = c.Tx.KeyCount(db), c.Tx.VolatileCount(db)
		} else {
			keys, vol = c.E.ks.Keys(db), c.E.ks.Volatile(db)
		}
		if keys == 0 && vol == 0 {
			continue
		}
		b = append(b, "db"...)
		b = strconv.AppendInt(b, int64(db), 10)
		b = append(b, ":keys="...)
		b = strconv.AppendInt(b, keys, 10)
		b = append(b, ",expires="...)
		b = strconv.AppendInt(b, vol, 10)
		b = append(b, ",avg_ttl=0\r\n"...)
	}
	return b
}

// infoLocks is INFO's "# Locks" section.
func infoLocks(b []byte, c *Call) []byte {
	r := &c.E.locks
	st := &r.stats
	ms := func(f float64) string { return strconv.FormatFloat(f, 'f', 3, 64) }
	keys, holders := r.heldCounts()
	b = append(b, "# Locks\r\n"...)
	b = infoInt(b, "locks_held", int64(keys))
	b = infoInt(b, "lock_holders", int64(holders))
	b = infoInt(b, "locks_granted", st.granted.Load())
	b = infoInt(b, "queue_grants", st.queueGrants.Load())
	b = infoInt(b, "wait_timeouts", st.waitTimeouts.Load())
	b = infoInt(b, "wait_aborts", st.waitAborts.Load())
	b = infoInt(b, "abandoned_grants", st.abandoned.Load())
	b = infoInt(b, "session_releases", st.sessionReleases.Load())
	b = infoInt(b, "sessions", int64(r.sessionCount()))
	b = infoInt(b, "session_expiries", st.sessionExpiries.Load())
	b = infoInt(b, "current_waiters", int64(r.waiting()))
	b = infoLine(b, "wait_time_p50_ms", ms(st.waitTime.quantile(0.50)))
	b = infoLine(b, "wait_time_p99_ms", ms(st.waitTime.quantile(0.99)))
	b = infoInt(b, "expiry_handovers", st.expiryHandovers.Load())
	b = infoLine(b, "expiry_handover_late_p50_ms", ms(st.lateness.quantile(0.50)))
	b = infoLine(b, "expiry_handover_late_p99_ms", ms(st.lateness.quantile(0.99)))
	b = infoInt(b, "lock_delay", r.delayMs.Load())
	return b
}
