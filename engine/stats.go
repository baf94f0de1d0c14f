package engine

import (
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Command and error statistics, kept as Redis 7.0 keeps them for INFO
// commandstats and INFO errorstats, and cleared by CONFIG RESETSTAT.

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

// CountError records an error reply sent to a client: total_error_replies
// and its prefix's count, as Redis's afterErrorReply. The prefix is the
// first word when it is found in the first 32 bytes, else ERR.
func (e *Engine) CountError(msg string) {
	e.Stats.ErrorReplies.Add(1)
	prefix := "ERR"
	// A leading '-' means msg is the whole line (Encoder.Error): a
	// script's {err="-ERR x"} is sent as "--ERR x", and Redis counts it
	// under "-ERR".
	head := strings.TrimPrefix(msg, "-")
	if len(head) > 31 { // Redis looks at 32 bytes, its leading '-' included
		head = head[:31]
	}
	for i := 0; i < len(head); i++ {
		if head[i] == ' ' {
			prefix = head[:i]
			break
		}
	}
	es := &e.tally.errors
	es.mu.Lock()
	if es.counts == nil {
		es.counts = make(map[string]int64)
	}
	es.counts[prefix]++
	es.mu.Unlock()
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

// of returns cmd's counters, making them on first use.
func (t *commandTally) of(cmd *Command) *cmdCounters {
	p := &t.counters[cmd.aclID]
	if c := p.Load(); c != nil {
		return c
	}
	p.CompareAndSwap(nil, new(cmdCounters))
	return p.Load()
}

// peek returns cmd's counters, or nil when it was never counted.
func (t *commandTally) peek(cmd *Command) *cmdCounters { return t.counters[cmd.aclID].Load() }

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

// infoCommandstats writes one line per command that was called, rejected
// or failed: cmdstat_<name>:calls=..,usec=..,usec_per_call=..,
// rejected_calls=..,failed_calls=.. (sorted by name; Redis's order is its
// hash table's).
func infoCommandstats(b []byte, c *Call) []byte {
	b = append(b, "# Commandstats\r\n"...)
	for _, cmd := range c.E.Table.All() {
		b = appendCommandstat(b, c.E, cmd)
		for _, sc := range cmd.Subcommands {
			b = appendCommandstat(b, c.E, sc)
		}
	}
	return b
}

func appendCommandstat(b []byte, e *Engine, cmd *Command) []byte {
	cc := e.tally.peek(cmd)
	if cc == nil {
		return b
	}
	st := &cc.stats
	calls, rejected, failed := st.calls.Load(), st.rejected.Load(), st.failed.Load()
	if calls == 0 && rejected == 0 && failed == 0 {
		return b
	}
	usec := st.usec.Load()
	perCall := 0.0
	if calls > 0 {
		perCall = float64(usec) / float64(calls)
	}
	b = append(b, "cmdstat_"...)
	b = append(b, cmd.FullName...)
	b = append(b, ":calls="...)
	b = strconv.AppendInt(b, calls, 10)
	b = append(b, ",usec="...)
	b = strconv.AppendInt(b, usec, 10)
	b = append(b, ",usec_per_call="...)
	b = strconv.AppendFloat(b, perCall, 'f', 2, 64)
	b = append(b, ",rejected_calls="...)
	b = strconv.AppendInt(b, rejected, 10)
	b = append(b, ",failed_calls="...)
	b = strconv.AppendInt(b, failed, 10)
	return append(b, "\r\n"...)
}

// infoErrorstats writes errorstat_<PREFIX>:count=n, sorted by prefix as
// Redis's radix tree orders them.
func infoErrorstats(b []byte, c *Call) []byte {
	b = append(b, "# Errorstats\r\n"...)
	es := &c.E.tally.errors
	es.mu.Lock()
	prefixes := make([]string, 0, len(es.counts))
	for p := range es.counts {
		prefixes = append(prefixes, p)
	}
	sort.Strings(prefixes)
	for _, p := range prefixes {
		b = append(b, "errorstat_"...)
		b = append(b, p...)
		b = append(b, ":count="...)
		b = strconv.AppendInt(b, es.counts[p], 10)
		b = append(b, "\r\n"...)
	}
	es.mu.Unlock()
	return b
}
