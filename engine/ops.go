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

// slowlogPush records a command that ran for us microseconds.
func (e *Engine) slowlogPush(c *Call, us int64) {
	argv := c.argv()
	n := min(len(argv), slowlogMaxArgc)
	ent := slowEntry{
		time:     e.Clock.Now().Unix(),
		duration: us,
		argv:     make([]string, n),
		peer:     peerID(c.S),
	}
	if c.S.Kind != KindScript {
		ent.name = c.S.Name()
	}
	for j := 0; j < n; j++ {
		a := argv[j]
		switch {
		case n != len(argv) && j == n-1:
			ent.argv[j] = "... (" + strconv.Itoa(len(argv)-n+1) + " more arguments)"
		case len(a) > slowlogMaxArg:
			ent.argv[j] = string(a[:slowlogMaxArg]) + "... (" + strconv.Itoa(len(a)-slowlogMaxArg) + " more bytes)"
		default:
			ent.argv[j] = string(a)
		}
	}
	o := &e.ops
	o.slowMu.Lock()
	ent.id = o.slowNextID
	o.slowNextID++
	o.slowlog = append(o.slowlog, ent)
	o.trimSlowlog()
	o.slowMu.Unlock()
}

// setSlowlogMaxLen applies CONFIG SET slowlog-max-len at once.
func (o *opsState) setSlowlogMaxLen(n int64) {
	o.slowMu.Lock()
	o.slowMax.Store(n)
	o.trimSlowlog()
	o.slowMu.Unlock()
}
