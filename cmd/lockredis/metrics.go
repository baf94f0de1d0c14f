package main

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/lockredis/lockredis"
	"github.com/lockredis/lockredis/replication"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// The monitoring endpoint (--metrics-bind host:port, off by default): an
// HTTP listener of its own serving
//
//	/metrics  Prometheus's text format: the server's Stats (lockredis_*),
//	          the Go runtime (go_*) and the process (process_*);
//	/healthz  200 while the process serves HTTP at all (liveness);
//	/readyz   200 when the server takes writes: the keyspace is loaded,
//	          the restart fence is over, the disk takes writes (no
//	          MISCONF) and the leader is known; 503 and the reasons
//	          otherwise.
//
// It starts before the keyspace loads, so a long load shows in /metrics
// and /readyz. Nothing below the binary knows of Prometheus: the
// collector turns lockredis.Stats (plain values) into metrics at each
// scrape. It has no authentication: bind it to loopback or a monitoring
// network (docs/operations.md).

// metricsServer is the running endpoint.
type metricsServer struct {
	ln   net.Listener
	http *http.Server
	done chan struct{}
}

// checkMetricsBind validates --metrics-bind: empty (off) or host:port.
func checkMetricsBind(v string) error {
	if v == "" {
		return nil
	}
	_, port, err := net.SplitHostPort(v)
	if err == nil {
		var n int
		n, err = strconv.Atoi(port)
		if err == nil && (n < 0 || n > 65535) {
			err = errors.New("port out of range")
		}
	}
	if err != nil {
		return fmt.Errorf("--metrics-bind must be host:port (127.0.0.1:9121, [::1]:9121, :9121), got %q: %v", v, err)
	}
	return nil
}

// startMetrics listens on addr and serves the endpoint for srv, which
// may not be started yet.
// g is the node's replicated group, nil for a single server.
func startMetrics(addr string, srv *lockredis.Server, g group, logf func(level, format string, args ...any)) (*metricsServer, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		newStatsCollector(srv, g),
	)
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{
		ErrorLog: promLogger{logf}, ErrorHandling: promhttp.ContinueOnError,
	}))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		st, ok := srv.Stats()
		why := notReady(st, ok, groupStatus(g))
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if len(why) > 0 {
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintf(w, "not ready: %s\n", strings.Join(why, "; "))
			return
		}
		fmt.Fprintln(w, "ready")
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintln(w, "lockredis: /metrics (Prometheus), /healthz, /readyz")
	})
	m := &metricsServer{ln: ln, done: make(chan struct{}),
		http: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}}
	go func() {
		defer close(m.done)
		if err := m.http.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logf("warning", "Metrics endpoint stopped: %v", err)
		}
	}()
	logf("notice", "Metrics on http://%s/metrics (also /healthz, /readyz)", ln.Addr())
	return m, nil
}

// Close stops the endpoint.
func (m *metricsServer) Close() {
	m.http.Close()
	<-m.done
}

// group is what the endpoint reads of a replicated node
// (replication.Node).
type group interface {
	Status() replication.Status
}

// groupStatus is g's status, nil for a single server.
func groupStatus(g group) *replication.Status {
	if g == nil {
		return nil
	}
	st := g.Status()
	return &st
}

// notReady lists why the server does not take writes now; none: ready.
// gs is the replicated group's status, nil for a single server.
func notReady(st lockredis.Stats, running bool, gs *replication.Status) []string {
	if !running {
		return []string{"server not running"}
	}
	var why []string
	if st.Loading.Loading {
		why = append(why, fmt.Sprintf("loading the keyspace (%.2f%%)", st.Loading.Percent))
	}
	if st.RestartFenceActive {
		why = append(why, fmt.Sprintf("restart fence active (%d s left)", (st.RestartFenceLeft+time.Second-1)/time.Second))
	}
	if st.Persistence.Misconf != "" {
		why = append(why, "writes refused: "+st.Persistence.Misconf)
	}
	// A node of a replicated group takes writes (its own as leader, or
	// forwarded) only while a leader is known and serving; a single
	// server is its own leader.
	switch {
	case gs == nil || gs.Leading:
	case !gs.Running:
		why = append(why, "not attached to its Raft group")
	case gs.LeaderID == "":
		why = append(why, "no Raft leader known (election under way, or no majority reachable)")
	case gs.State == "leader":
		why = append(why, "elected Raft leader, catching up with the log")
	case gs.LeaderAddr == "":
		why = append(why, "Raft leader "+gs.LeaderID+" known but its client address not yet")
	}
	return why
}

// promLogger passes promhttp's errors to the server's log.
type promLogger struct {
	logf func(level, format string, args ...any)
}

func (l promLogger) Println(v ...any) { l.logf("warning", "Metrics: %s", fmt.Sprint(v...)) }

// statsCollector turns the server's Stats into metrics at each scrape.
type statsCollector struct {
	srv *lockredis.Server
	g   group // nil: a single server
}

func newStatsCollector(srv *lockredis.Server, g group) *statsCollector {
	return &statsCollector{srv: srv, g: g}
}

// The metrics, all under lockredis_.
var (
	descReady   = newDesc("ready", "1 when the server takes writes (what /readyz answers 200 for), else 0.")
	descInfo    = newDesc("info", "Always 1; the labels say which version runs.", "version", "redis_version")
	descClients = newDesc("connected_clients", "Clients connected now.")
	descBlocked = newDesc("blocked_clients", "Clients blocked in a command now (BLPOP, LOCK.ACQUIRE ... WAIT...).")
	descConns   = newDesc("connections_received_total", "Connections accepted.")
	descRejects = newDesc("connections_rejected_total", "Connections refused (maxclients, protected mode).")

	descCommands     = newDesc("commands_processed_total", "Commands run.")
	descCmdCalls     = newDesc("command_calls_total", "Runs of each command (INFO commandstats calls).", "command")
	descCmdSeconds   = newDesc("command_duration_seconds_total", "Time spent in each command (INFO commandstats usec).", "command")
	descCmdRejected  = newDesc("command_rejected_calls_total", "Calls of each command refused before it ran (arity, ACL, OOM, LOADING...).", "command")
	descCmdFailed    = newDesc("command_failed_calls_total", "Calls of each command that ran and replied an error.", "command")
	descErrorReplies = newDesc("error_replies_total", "Error replies by prefix (INFO errorstats: ERR, WRONGTYPE, TRYAGAIN...).", "prefix")
	descNetIn        = newDesc("net_input_bytes_total", "Bytes read from clients.")
	descNetOut       = newDesc("net_output_bytes_total", "Bytes written to clients.")
	descExpired      = newDesc("expired_keys_total", "Keys removed because their time passed.")
	descHits         = newDesc("keyspace_hits_total", "Lookups that found their key.")
	descMisses       = newDesc("keyspace_misses_total", "Lookups that did not find their key.")

	descMemUsed = newDesc("memory_used_bytes", "Memory the keyspace uses by the server's count: what maxmemory is compared with (INFO used_memory).")
	descMemMax  = newDesc("memory_max_bytes", "maxmemory: past it, commands that may grow memory get OOM; 0 is no limit.")
	descKeys    = newDesc("db_keys", "Keys in each database.", "db")
	descExpires = newDesc("db_keys_expiring", "Keys with a time to live in each database.", "db")

	descLocksHeld       = newDesc("locks_held", "Locks LOCK.ACQUIRE granted that are still held.")
	descLockWaiters     = newDesc("lock_waiters", "Clients waiting in LOCK.ACQUIRE ... WAIT.")
	descLockGrants      = newDesc("lock_grants_total", "LOCK.ACQUIRE grants, at once or from the queue.")
	descQueueGrants     = newDesc("lock_queue_grants_total", "Grants to a waiting client.")
	descWaitTimeouts    = newDesc("lock_wait_timeouts_total", "Waits that ran out of time.")
	descWaitAborts      = newDesc("lock_wait_aborts_total", "Waits ended by a disconnect or a shutdown.")
	descAbandoned       = newDesc("lock_abandoned_grants_total", "Grants undone because the waiter had left.")
	descSessionReleases = newDesc("lock_session_releases_total", "SESSION locks released because their connection closed.")
	descExpiryHandovers = newDesc("lock_expiry_handovers_total", "Locks handed to a waiter when their time ran out.")
	descWaitTime        = newDesc("lock_wait_seconds", "Time from parking in LOCK.ACQUIRE ... WAIT to the grant.")
	descLateness        = newDesc("lock_handover_lateness_seconds", "Time from an expired lock's deadline to the grant to its next waiter.")
	descLockDelay       = newDesc("lock_delay_seconds", "lock-delay: how long a SESSION lock stays with its dead owner.")
	descTokenLast       = newDesc("fencing_token_last", "The last fencing token handed out (only grows, across restarts too).")
	descTokensIssued    = newDesc("fencing_tokens_issued_total", "Fencing tokens handed out by this process.")

	descFenceActive = newDesc("restart_fence_active", "1 while the restart fence refuses new keys after an unclean stop.")
	descFenceLeft   = newDesc("restart_fence_remaining_seconds", "How long the restart fence still refuses new keys.")
	descAOFEnabled  = newDesc("aof_enabled", "1 when the keyspace is kept in an append-only file.")
	descAOFSize     = newDesc("aof_current_size_bytes", "Size of the append-only file.")
	descAOFBase     = newDesc("aof_base_size_bytes", "Size of the append-only file after the load or the last rewrite.")
	descAOFRewrites = newDesc("aof_rewrites_total", "Rewrites of the append-only file (BGREWRITEAOF, automatic).")
	descAOFRewrite  = newDesc("aof_rewrite_in_progress", "1 while the append-only file is being rewritten.")
	descAOFWriteOK  = newDesc("aof_last_write_ok", "1 when the last write and fsync of the append-only file succeeded (INFO aof_last_write_status).")
	descMisconf     = newDesc("aof_misconf", "1 while writes are refused with MISCONF because the disk failed.")
	descFsync       = newDesc("aof_fsync_seconds", "How long fsyncs of the append-only file took.")
	descFsyncErrors = newDesc("aof_fsync_errors_total", "Failed fsyncs of the append-only file.")
	descLastSave    = newDesc("aof_last_fsync_timestamp_seconds", "When the append-only file was last fsynced or rewritten (LASTSAVE).")

	descLoading       = newDesc("loading", "1 while the keyspace loads (commands get LOADING).")
	descLoadingTotal  = newDesc("loading_total_bytes", "Size of the file being loaded (0 when not loading).")
	descLoadingLoaded = newDesc("loading_loaded_bytes", "Bytes of it loaded so far (0 when not loading).")
	descLoadingETA    = newDesc("loading_eta_seconds", "Estimated time left to load, Redis's estimate (0 when not loading).")

	// A replicated node's view of its group (replication.Status); only
	// for a node of a group.
	descRaftLeader      = newDesc("raft_leader", "1 while this node leads its Raft group and serves as leader.")
	descRaftLeaderKnown = newDesc("raft_leader_known", "1 while this node knows a leader that serves (what /readyz needs).")
	descRaftState       = newDesc("raft_state", "1 for this node's Raft state (leader, follower, candidate, shutdown).", "state")
	descRaftTerm        = newDesc("raft_term", "The Raft term this node is in.")
	descRaftLastIndex   = newDesc("raft_last_log_index", "The last index of this node's Raft log.")
	descRaftCommitIndex = newDesc("raft_commit_index", "The last index this node knows committed by a majority.")
	descRaftApplied     = newDesc("raft_applied_index", "The last index applied to this node's keyspace.")
)

func newDesc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc("lockredis_"+name, help, labels, nil)
}

// Describe sends nothing: the collector is unchecked, since which
// commands, error prefixes and databases appear changes with the workload.
func (c *statsCollector) Describe(chan<- *prometheus.Desc) {}

func (c *statsCollector) Collect(ch chan<- prometheus.Metric) {
	st, ok := c.srv.Stats()
	gs := groupStatus(c.g)
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	counter := func(d *prometheus.Desc, v int64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), labels...)
	}
	gauge(descReady, b2f(len(notReady(st, ok, gs)) == 0))
	if gs != nil {
		gauge(descRaftLeader, b2f(gs.Leading))
		gauge(descRaftLeaderKnown, b2f(len(notReady(lockredis.Stats{}, true, gs)) == 0))
		gauge(descRaftState, 1, gs.State)
		gauge(descRaftTerm, float64(gs.Term))
		gauge(descRaftLastIndex, float64(gs.LastIndex))
		gauge(descRaftCommitIndex, float64(gs.CommitIndex))
		gauge(descRaftApplied, float64(gs.AppliedIndex))
	}
	gauge(descInfo, 1, lockredis.Version, lockredis.RedisVersion)
	if !ok {
		return
	}
	gauge(descClients, float64(st.ConnectedClients))
	gauge(descBlocked, float64(st.BlockedClients))
	counter(descConns, st.ConnectionsReceived)
	counter(descRejects, st.RejectedConnections)

	counter(descCommands, st.CommandsProcessed)
	for _, cs := range st.Commands {
		counter(descCmdCalls, cs.Calls, cs.Name)
		ch <- prometheus.MustNewConstMetric(descCmdSeconds, prometheus.CounterValue, float64(cs.Usec)/1e6, cs.Name)
		counter(descCmdRejected, cs.Rejected, cs.Name)
		counter(descCmdFailed, cs.Failed, cs.Name)
	}
	for prefix, n := range st.Errors {
		counter(descErrorReplies, n, prefix)
	}
	counter(descNetIn, st.NetInputBytes)
	counter(descNetOut, st.NetOutputBytes)
	counter(descExpired, st.ExpiredKeys)
	counter(descHits, st.KeyspaceHits)
	counter(descMisses, st.KeyspaceMisses)

	gauge(descMemUsed, float64(st.UsedMemory))
	gauge(descMemMax, float64(st.MaxMemory))
	for _, ks := range st.Keyspace {
		db := strconv.Itoa(ks.DB)
		gauge(descKeys, float64(ks.Keys), db)
		gauge(descExpires, float64(ks.Expires), db)
	}

	l := &st.Locks
	gauge(descLocksHeld, float64(l.Held))
	gauge(descLockWaiters, float64(l.Waiters))
	counter(descLockGrants, l.Granted)
	counter(descQueueGrants, l.QueueGrants)
	counter(descWaitTimeouts, l.WaitTimeouts)
	counter(descWaitAborts, l.WaitAborts)
	counter(descAbandoned, l.Abandoned)
	counter(descSessionReleases, l.SessionReleases)
	counter(descExpiryHandovers, l.ExpiryHandovers)
	// Lock waits: 64 µs to 2^32 µs (71 min), doubling.
	ch <- constHistogram(descWaitTime, l.WaitTime, 6, 32)
	ch <- constHistogram(descLateness, l.HandoverLateness, 6, 32)
	gauge(descLockDelay, l.LockDelay.Seconds())
	gauge(descTokenLast, float64(st.LastToken))
	counter(descTokensIssued, int64(st.TokensIssued))

	gauge(descFenceActive, b2f(st.RestartFenceActive))
	gauge(descFenceLeft, st.RestartFenceLeft.Seconds())
	p := &st.Persistence
	gauge(descAOFEnabled, b2f(p.Enabled))
	if p.Enabled {
		gauge(descAOFSize, float64(p.CurrentSize))
		gauge(descAOFBase, float64(p.BaseSize))
		counter(descAOFRewrites, p.Rewrites)
		gauge(descAOFRewrite, b2f(p.RewriteInProgress))
		gauge(descAOFWriteOK, b2f(p.LastWriteErr == "" && p.LastFsyncErr == ""))
		gauge(descMisconf, b2f(p.Misconf != ""))
		// fsyncs: 16 µs to 2^25 µs (34 s), doubling.
		ch <- constHistogram(descFsync, st.AOFFsync, 4, 25)
		counter(descFsyncErrors, st.AOFFsyncErrors)
		gauge(descLastSave, float64(p.LastSave))
	}

	li := &st.Loading // zeros once loaded
	gauge(descLoading, b2f(li.Loading))
	gauge(descLoadingTotal, float64(li.TotalBytes))
	gauge(descLoadingLoaded, float64(li.LoadedBytes))
	gauge(descLoadingETA, li.ETA.Seconds())
}

// constHistogram is h as a Prometheus histogram with the buckets from 2^lo
// to 2^hi microseconds (each an exact edge of the server's buckets).
func constHistogram(d *prometheus.Desc, h lockredis.Histogram, lo, hi int) prometheus.Metric {
	buckets := make(map[float64]uint64, hi-lo+1)
	for k := lo; k <= hi && k < len(h.Buckets); k++ {
		b := h.Buckets[k]
		buckets[b.UpperBound.Seconds()] = uint64(b.Count)
	}
	return prometheus.MustNewConstHistogram(d, uint64(h.Count), h.Sum.Seconds(), buckets)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
