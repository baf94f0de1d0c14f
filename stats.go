package lockredis

import "github.com/lockredis/lockredis/engine"

// Stats is a copy of a server's statistics at one moment: clients,
// commands and errors by name, memory, keyspace, the lock layer (locks
// held, waiters, wait-time and hand-over histograms, fencing tokens),
// persistence (append-only file size, fsync latency), the restart fence
// and a load in progress. cmd/lockredis serves it as Prometheus metrics;
// it holds only plain values.
type Stats = engine.StatsSnapshot

// The parts of Stats.
type (
	// CommandStats are one command's counters (INFO commandstats).
	CommandStats = engine.CommandStats
	// KeyspaceStats are one database's key counts (INFO keyspace).
	KeyspaceStats = engine.KeyspaceStats
	// LockStats are the lock layer's figures (INFO locks).
	LockStats = engine.LockStats
	// Histogram is a duration histogram with cumulative buckets at powers
	// of two of microseconds.
	Histogram = engine.Histogram
	// PersistInfo is the append-only file's state (INFO persistence).
	PersistInfo = engine.PersistInfo
	// LoadingInfo is the progress of a load (INFO persistence's loading_*).
	LoadingInfo = engine.LoadingInfo
)

// Stats takes a snapshot of the server's statistics. It does not wait
// for the keyspace (a running script, a load in progress) and works
// while Start is still loading the keyspace; ok is false when the server
// is not running.
func (s *Server) Stats() (st Stats, ok bool) {
	eng := s.live.Load()
	if eng == nil {
		return Stats{}, false
	}
	return eng.StatsSnapshot(), true
}
