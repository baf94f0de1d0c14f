package engine

import (
	"sort"
	"time"
)

// StatsSnapshot is a copy of an engine's statistics at one moment, for
// monitoring: the binary's Prometheus endpoint reads it through
// lockredis.Server.Stats, so that no monitoring library's types reach the
// engine. Counters count from the start of the engine (or the last
// CONFIG RESETSTAT, as INFO's do); gauges are the value now. Taking it
// never waits for the keyspace lock: a long script does not stall a
// scrape.
type StatsSnapshot struct {
	// Clients (INFO clients and stats).
	ConnectedClients    int
	BlockedClients      int   // in BLPOP, LOCK.ACQUIRE ... WAIT and the like
	ConnectionsReceived int64 // total_connections_received
	RejectedConnections int64 // maxclients, protected mode

	// Commands (INFO stats, commandstats, errorstats).
	CommandsProcessed int64
	Commands          []CommandStats   // every command counted, by name
	ErrorReplies      int64            // total_error_replies
	Errors            map[string]int64 // error replies by prefix: "ERR", "WRONGTYPE", "LOADING"...
	NetInputBytes     int64
	NetOutputBytes    int64
	ExpiredKeys       int64
	KeyspaceHits      int64
	KeyspaceMisses    int64

	// Memory (INFO memory): UsedMemory is what maxmemory is compared with
	// (the keyspace's estimate, not the process's memory); MaxMemory 0 is
	// no limit.
	UsedMemory int64
	MaxMemory  int64

	// Keyspace: every database, empty ones included.
	Keyspace []KeyspaceStats

	// Locks: the lock layer (INFO locks, lockqueue.go) and fencing tokens
	// (token.go): the last token handed out and how many this engine
	// handed out since it started.
	Locks        LockStats
	LastToken    uint64
	TokensIssued uint64

	// Persistence (INFO persistence): the append-only file, how long its
	// fsyncs take and how many failed; the restart fence; a load in
	// progress.
	Persistence        PersistInfo
	AOFFsync           Histogram
	AOFFsyncErrors     int64
	RestartFenceActive bool
	RestartFenceLeft   time.Duration
	Loading            LoadingInfo

	// Replication: the replicated group's state (role, term, leader,
	// commit and apply indexes) goes here when it exists.
}

// CommandStats are one command's counters: INFO commandstats' calls, usec,
// rejected_calls and failed_calls. Name is the full name ("config|get").
type CommandStats struct {
	Name     string
	Calls    int64
	Usec     int64
	Rejected int64
	Failed   int64
}

// KeyspaceStats are one database's counts (INFO keyspace).
type KeyspaceStats struct {
	DB      int
	Keys    int64
	Expires int64
}

// LockStats are the lock layer's figures (INFO locks).
type LockStats struct {
	Held            int   // locks LOCK.ACQUIRE granted that are still held
	Waiters         int   // clients parked in LOCK.ACQUIRE ... WAIT
	Granted         int64 // LOCK.ACQUIRE grants, at once or from the queue
	QueueGrants     int64 // grants to a waiter
	WaitTimeouts    int64
	WaitAborts      int64 // waits ended by a disconnect or a shutdown
	Abandoned       int64 // grants undone because the waiter had left
	SessionReleases int64 // SESSION locks released with their connection
	ExpiryHandovers int64 // grants made when a lock expired at its deadline
	// WaitTime: from parking to grant. HandoverLateness: from an expired
	// lock's deadline to the grant to its next waiter.
	WaitTime         Histogram
	HandoverLateness Histogram
	LockDelay        time.Duration // lock-delay
}

// StatsSnapshot copies the engine's statistics; it may be called at
// any time, also while the keyspace loads.
func (e *Engine) StatsSnapshot() StatsSnapshot {
	st := &e.Stats
	s := StatsSnapshot{
		ConnectedClients:    e.ClientCount(),
		BlockedClients:      e.BlockedClients(),
		ConnectionsReceived: st.Connections.Load(),
		RejectedConnections: st.Rejected.Load(),
		CommandsProcessed:   st.Commands.Load(),
		ErrorReplies:        st.ErrorReplies.Load(),
		NetInputBytes:       st.NetInputBytes.Load(),
		NetOutputBytes:      st.NetOutputBytes.Load(),
		ExpiredKeys:         st.ExpiredKeys.Load(),
		KeyspaceHits:        st.KeyspaceHits.Load(),
		KeyspaceMisses:      st.KeyspaceMisses.Load(),
		UsedMemory:          e.UsedMemory(),
		MaxMemory:           e.MaxMemory(),
		Locks:               e.locks.statsSnapshot(),
		Persistence:         e.Persistence(),
		RestartFenceLeft:    e.RestartFenceRemaining(),
		Loading:             e.Loading(),
	}
	s.RestartFenceActive = s.RestartFenceLeft > 0
	for _, cmd := range e.Table.All() {
		s.Commands = e.appendCommandStats(s.Commands, cmd)
		for _, sc := range cmd.Subcommands {
			s.Commands = e.appendCommandStats(s.Commands, sc)
		}
	}
	sort.Slice(s.Commands, func(i, j int) bool { return s.Commands[i].Name < s.Commands[j].Name })
	e.tally.errors.mu.Lock()
	s.Errors = make(map[string]int64, len(e.tally.errors.counts))
	for p, n := range e.tally.errors.counts {
		s.Errors[p] = n
	}
	e.tally.errors.mu.Unlock()
	s.Keyspace = make([]KeyspaceStats, e.ks.Databases())
	for db := range s.Keyspace {
		s.Keyspace[db] = KeyspaceStats{DB: db, Keys: e.ks.Keys(db), Expires: e.ks.Volatile(db)}
	}
	s.LastToken, s.TokensIssued = e.ks.TokenStats()
	if s.Persistence.Enabled {
		s.AOFFsync = e.Stats.aofFsync.snapshot()
		s.AOFFsyncErrors = s.Persistence.FsyncErrors
	}
	return s
}

func (e *Engine) appendCommandStats(out []CommandStats, cmd *Command) []CommandStats {
	cc := e.tally.peek(cmd)
	if cc == nil {
		return out
	}
	st := &cc.stats
	cs := CommandStats{Name: cmd.FullName, Calls: st.calls.Load(), Usec: st.usec.Load(),
		Rejected: st.rejected.Load(), Failed: st.failed.Load()}
	if cs.Calls == 0 && cs.Rejected == 0 && cs.Failed == 0 {
		return out
	}
	return append(out, cs)
}

// statsSnapshot copies the lock layer's figures.
func (r *lockRegistry) statsSnapshot() LockStats {
	st := &r.stats
	held, _ := r.heldCounts()
	return LockStats{
		Held:             held,
		Waiters:          r.waiting(),
		Granted:          st.granted.Load(),
		QueueGrants:      st.queueGrants.Load(),
		WaitTimeouts:     st.waitTimeouts.Load(),
		WaitAborts:       st.waitAborts.Load(),
		Abandoned:        st.abandoned.Load(),
		SessionReleases:  st.sessionReleases.Load(),
		ExpiryHandovers:  st.expiryHandovers.Load(),
		WaitTime:         st.waitTime.snapshot(),
		HandoverLateness: st.lateness.snapshot(),
		LockDelay:        time.Duration(r.delayMs.Load()) * time.Millisecond,
	}
}
