package engine

import (
	"sync"
	"sync/atomic"
	"time"
)

// The counters behind INFO commandstats and errorstats and the latency
// histograms (commandTally), with what resets them; stats.go counts a
// command into them and reports them.

// commandStats are one command's counters (Redis's redisCommand fields).
// Several read-only commands may run at once, hence atomics.
type commandStats struct {
	calls    atomic.Int64 // runs of the handler
	usec     atomic.Int64 // time spent in the handler
	rejected atomic.Int64 // refused before running (rejectCommand)
	failed   atomic.Int64 // ran and replied an error
}

func (st *commandStats) reset() {
	st.calls.Store(0)
	st.usec.Store(0)
	st.rejected.Store(0)
	st.failed.Store(0)
}

// errorStats count error replies by their prefix ("ERR", "WRONGTYPE"...).
type errorStats struct {
	mu     sync.Mutex
	counts map[string]int64
}

// commandTally is the engine's INFO commandstats, LATENCY HISTOGRAM and
// INFO errorstats: per-command counters by ACL id, and the error counts.
type commandTally struct {
	counters [aclFutureBit + 1]atomic.Pointer[cmdCounters]
	errors   errorStats
}

// cmdCounters are one command's counters in one engine: INFO
// commandstats and LATENCY HISTOGRAM. They live in the engine, by the
// command's ACL id, and not in the Command, which every engine shares
// (builtinTable); each is made when its command is first counted, so an
// idle server holds none.
type cmdCounters struct {
	stats commandStats
	hist  latencyHist
}

// reset clears every command's counters and the error counts.
func (t *commandTally) reset() {
	for i := range t.counters {
		if c := t.counters[i].Load(); c != nil {
			c.stats.reset()
			c.hist.reset()
		}
	}
	t.errors.mu.Lock()
	t.errors.counts = nil
	t.errors.mu.Unlock()
}

// histBuckets are the buckets of a command's latency histogram: bucket k
// holds durations up to 2^(10+k) ns, the reporting levels of Redis's
// hdr_iter_log_init(1024, 2); durations past 2^30 ns (about 1 s) land in
// the last one, as Redis caps them at 1 s.
const histBuckets = 21

// latencyHist is one command's latency histogram (LATENCY HISTOGRAM).
type latencyHist struct {
	counts [histBuckets]atomic.Int64
}

func (h *latencyHist) add(d time.Duration) {
	ns := d.Nanoseconds()
	k := 0
	for k < histBuckets-1 && ns > histEdge(k) {
		k++
	}
	h.counts[k].Add(1)
}

// histEdge is the largest duration (ns) bucket k holds: the highest value
// hdr_histogram (2 significant figures) reports for the level 2^(10+k).
func histEdge(k int) int64 { return 1<<(10+k) + 1<<(3+k) - 1 }

func (h *latencyHist) reset() {
	for i := range h.counts {
		h.counts[i].Store(0)
	}
}

func (h *latencyHist) total() int64 {
	var n int64
	for i := range h.counts {
		n += h.counts[i].Load()
	}
	return n
}
