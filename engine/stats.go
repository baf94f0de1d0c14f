package engine

import (
	"sort"
	"strconv"
	"strings"
)

// Command and error statistics, kept as Redis 7.0 keeps them for INFO
// commandstats and INFO errorstats, and cleared by CONFIG RESETSTAT.

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

// reject answers a command refused before it ran, as Redis's rejectCommand:
// it counts as a rejected call of cmd (when there is one) and an error
// reply; inside MULTI it dooms the transaction (EXECABORT); a refused EXEC
// discards the transaction and says why (execCommandAbort).
func (e *Engine) reject(s *Session, cmd *Command, args [][]byte, w Writer, err error) {
	if cmd != nil {
		e.tally.of(cmd).stats.rejected.Add(1)
	}
	msg := err.Error()
	if cmd != nil && cmd == e.execCmd {
		e.ops.feedMonitorsNow(s, args) // Redis's execCommandAbort
		e.ResetTransaction(s)
		msg = "EXECABORT Transaction discarded because of: " + strings.TrimPrefix(msg, "ERR ")
	} else {
		s.FailMulti()
	}
	e.CountError(msg)
	w.Error(msg)
}
