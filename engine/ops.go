package engine

import (
	"runtime/metrics"
	"strconv"
	"time"
)

// Operations: what Redis's call() records after every command besides the
// statistics (stats.go): the slow log (cmd_slowlog.go), latency samples
// and per-command latency histograms (cmd_latency.go), and the MONITOR
// feed (monitor.go). Dispatch's call() calls afterCall once per command
// run; everything else lives in these files.

// heapAlloc is MemStats.HeapAlloc, read without stopping the world
// (ReadMemStats does: too slow for every embedded server's start).
func heapAlloc() int64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(sample[0].Value.Uint64())
}

// initOps records the heap the engine starts with (MEMORY STATS).
func (e *Engine) initOps() { e.ops.startupAlloc, e.ops.clock = heapAlloc(), e.Clock }

// bindOpsParams binds the slow log's and the latency monitor's
// thresholds and who may run DEBUG and MODULE (set at start only).
func (e *Engine) bindOpsParams() {
	e.bindParam("slowlog-log-slower-than", intParam(&e.ops.slowerThan))
	e.bindParam("latency-monitor-threshold", intParam(&e.ops.latThreshold))
	e.bindParam("slowlog-max-len", paramBinding{
		get: func() string { return strconv.FormatInt(e.ops.slowMax.Load(), 10) },
		apply: func(v string) error {
			n, err := strconv.ParseInt(v, 10, 64)
			e.ops.setSlowlogMaxLen(n)
			return err
		},
	})
	e.bindParam("enable-debug-command", paramBinding{
		get:   func() string { return e.ops.debugMode },
		apply: func(v string) error { e.ops.debugMode = v; return nil },
	})
	e.bindParam("enable-module-command", paramBinding{
		get:   func() string { return e.ops.moduleMode },
		apply: func(v string) error { e.ops.moduleMode = v; return nil },
	})
}

// afterCall records a command that ran: latency sample, slow log, MONITOR
// feed, latency histogram. Redis's call() does the same after the
// handler, in this order.
func (e *Engine) afterCall(c *Call, d time.Duration) {
	us := d.Microseconds()
	if th := e.ops.latThreshold.Load(); th > 0 && us/1000 >= th {
		ev := "command"
		if c.Cmd.Flags.Has(FlagFast) {
			ev = "fast-command"
		}
		e.LatencySample(ev, us/1000)
	}
	if !c.Cmd.Flags.Has(FlagSkipSlowlog) && c.S.Blocked == nil {
		if th := e.ops.slowerThan.Load(); th >= 0 && us >= th {
			e.slowlogPush(c, us)
		}
	}
	if e.ops.monCount.Load() > 0 && c.Cmd.Flags&(FlagSkipMonitor|FlagAdmin) == 0 {
		e.ops.feedMonitors(c.S, c.S.DB, c.argv())
	}
	e.tally.of(c.Cmd).hist.add(d)
}

// Redact hides argument i of the running command from MONITOR and the
// slow log, as Redis's redactClientCommandArgument (AUTH, HELLO AUTH).
func (c *Call) Redact(i int) {
	if i <= 0 || i >= len(c.Args) {
		return
	}
	if c.redacted == nil {
		c.redacted = make([][]byte, len(c.Args))
		copy(c.redacted, c.Args)
	}
	c.redacted[i] = redactedArg
}

var redactedArg = []byte("(redacted)")

// argv is the command as MONITOR and the slow log show it.
func (c *Call) argv() [][]byte {
	if c.redacted != nil {
		return c.redacted
	}
	return c.Args
}

// peerID is Redis's getClientPeerId: the address of a connection, "?:0"
// for a client without one (a script's).
func peerID(s *Session) string {
	if a := s.Addr(); a != "" {
		return a
	}
	return "?:0"
}

// unixMicros formats t as Redis's "%ld.%06ld" seconds.microseconds.
func unixMicros(buf []byte, t time.Time) []byte {
	us := t.UnixMicro()
	buf = strconv.AppendInt(buf, us/1e6, 10)
	buf = append(buf, '.')
	frac := strconv.AppendInt(nil, us%1e6, 10)
	for i := len(frac); i < 6; i++ {
		buf = append(buf, '0')
	}
	return append(buf, frac...)
}

// logClientKill logs a connection CLIENT KILL closes, naming it the way
// CLIENT LIST does and the client that asked. (Redis 7.0 logs nothing
// here; the line follows its log format.)
func (e *Engine) logClientKill(killed ClientInfo, by *Session) {
	e.Logf("notice", "Client id=%d addr=%s laddr=%s name=%s killed by CLIENT KILL from id=%d addr=%s",
		killed.ID, killed.Addr, killed.LAddr, killed.Name, by.ID, peerID(by))
}
