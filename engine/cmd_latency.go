package engine

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// LATENCY LATEST | HISTORY event | RESET [event ...] | GRAPH event |
// DOCTOR | HISTOGRAM [command ...] | HELP, Redis's latency monitor: with
// latency-monitor-threshold (ms) above 0, every event that took at least
// that long adds a sample to its series (one per second: the worst), which
// keeps the last 160 samples and the all-time maximum. lockredis's events:
//
//	command, fast-command  a command (fast: flagged fast) took that long (ops.go)
//	expire-cycle           one run of the active expiry sweeper (sweep.go)
//	aof-fsync-always       an fsync of the AOF with appendfsync always (persist.go)
//	aof-write              an fsync of the AOF with another policy, or SAVE's
//
// HISTOGRAM is fed with every command, threshold or not, as Redis's
// latency-tracking (default yes) does.

func latencyCommands() []*Command {
	return []*Command{{
		Name: "latency",
		Subcommands: []*Command{
			{Name: "latest", Handler: cmdLatencyLatest},
			{Name: "history", Handler: cmdLatencyHistory},
			{Name: "reset", Handler: cmdLatencyReset},
			{Name: "graph", Handler: cmdLatencyGraph},
			{Name: "doctor", Handler: cmdLatencyDoctor},
			{Name: "histogram", Handler: cmdLatencyHistogram},
			{Name: "help", Handler: cmdLatencyHelp},
		},
	}}
}

var latencyHelp = []string{
	"LATENCY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"DOCTOR",
	"    Return a human readable latency analysis report.",
	"GRAPH <event>",
	"    Return an ASCII latency graph for the <event> class.",
	"HISTORY <event>",
	"    Return time-latency samples for the <event> class.",
	"LATEST",
	"    Return the latest latency samples for all events.",
	"RESET [<event> ...]",
	"    Reset latency data of one or more <event> classes.",
	"    (default: reset all data for all event classes)",
	"HISTOGRAM [COMMAND ...]",
	"    Return a cumulative distribution of latencies in the format of a histogram for the specified command names.",
	"    If no commands are specified then all histograms are replied.",
	"HELP",
	"    Prints this help.",
}

func cmdLatencyHelp(c *Call) { WriteHelp(c.W, latencyHelp) }

// LatencySample records that event took ms milliseconds, if the latency
// monitor is on and ms reaches its threshold (Redis's
// latencyAddSampleIfNeeded).
func (e *Engine) LatencySample(event string, ms int64) {
	th := e.ops.latThreshold.Load()
	if th == 0 || ms < th {
		return
	}
	now := e.Clock.Now().Unix()
	o := &e.ops
	o.latMu.Lock()
	defer o.latMu.Unlock()
	if o.latEvents == nil {
		o.latEvents = make(map[string]*latencySeries)
	}
	ts := o.latEvents[event]
	if ts == nil {
		ts = &latencySeries{}
		o.latEvents[event] = ts
	}
	ts.max = max(ts.max, ms)
	prev := (ts.idx + latencyTSLen - 1) % latencyTSLen
	if ts.samples[prev].time == now {
		ts.samples[prev].latency = max(ts.samples[prev].latency, ms)
		return
	}
	ts.samples[ts.idx] = latencySample{now, ms}
	ts.idx = (ts.idx + 1) % latencyTSLen
}

// latencyEvents returns the names of the recorded events, sorted (Redis
// lists them in its hash table's order). latMu held.
func (o *opsState) latencyEvents() []string {
	names := make([]string, 0, len(o.latEvents))
	for n := range o.latEvents {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// samples returns a series' samples, oldest first.
func (ts *latencySeries) list() []latencySample {
	var out []latencySample
	for j := 0; j < latencyTSLen; j++ {
		s := ts.samples[(ts.idx+j)%latencyTSLen]
		if s.time != 0 {
			out = append(out, s)
		}
	}
	return out
}

func cmdLatencyLatest(c *Call) {
	o := &c.E.ops
	o.latMu.Lock()
	defer o.latMu.Unlock()
	names := o.latencyEvents()
	c.W.Array(len(names))
	for _, n := range names {
		ts := o.latEvents[n]
		last := ts.samples[(ts.idx+latencyTSLen-1)%latencyTSLen]
		c.W.Array(4)
		c.W.BulkString(n)
		c.W.Int(last.time)
		c.W.Int(last.latency)
		c.W.Int(ts.max)
	}
}

func cmdLatencyHistory(c *Call) {
	if len(c.Args) != 3 {
		c.Err(ErrArity(c.Cmd.FullName))
		return
	}
	o := &c.E.ops
	o.latMu.Lock()
	var samples []latencySample
	if ts := o.latEvents[string(c.Args[2])]; ts != nil {
		samples = ts.list()
	}
	o.latMu.Unlock()
	c.W.Array(len(samples))
	for _, s := range samples {
		c.W.Array(2)
		c.W.Int(s.time)
		c.W.Int(s.latency)
	}
}

func cmdLatencyReset(c *Call) {
	o := &c.E.ops
	o.latMu.Lock()
	defer o.latMu.Unlock()
	resets := 0
	if len(c.Args) == 2 {
		resets = len(o.latEvents)
		o.latEvents = nil
	} else {
		for _, a := range c.Args[2:] {
			for n := range o.latEvents {
				if strings.EqualFold(n, string(a)) {
					delete(o.latEvents, n)
					resets++
				}
			}
		}
	}
	c.W.Int(int64(resets))
}

// cmdLatencyGraph draws the series as Redis's header line and a row of
// columns, one per sample, scaled between the lowest and highest sample,
// with the age of each sample below (lockredis's own drawing: Redis's
// sparkline differs in its characters).
func cmdLatencyGraph(c *Call) {
	if len(c.Args) != 3 {
		c.Err(ErrArity(c.Cmd.FullName))
		return
	}
	o := &c.E.ops
	o.latMu.Lock()
	ts := o.latEvents[string(c.Args[2])]
	var samples []latencySample
	var allMax int64
	if ts != nil {
		samples, allMax = ts.list(), ts.max
	}
	o.latMu.Unlock()
	if ts == nil {
		c.Errf("ERR No samples available for event '%s'", c.Args[2])
		return
	}
	lo, hi := samples[0].latency, samples[0].latency
	for _, s := range samples {
		lo, hi = min(lo, s.latency), max(hi, s.latency)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s - high %d ms, low %d ms (all time high %d ms)\n", c.Args[2], hi, lo, allMax)
	b.WriteString(strings.Repeat("-", 80) + "\n")
	const rows = 4
	now := c.E.Clock.Now().Unix()
	if len(samples) > 80 {
		samples = samples[len(samples)-80:]
	}
	for r := rows; r >= 1; r-- {
		for _, s := range samples {
			level := rows
			if hi > lo {
				level = 1 + int((s.latency-lo)*(rows-1)/(hi-lo))
			}
			if level >= r {
				b.WriteByte('#')
			} else {
				b.WriteByte(' ')
			}
		}
		b.WriteByte('\n')
	}
	for _, s := range samples {
		age := now - s.time
		switch {
		case age < 60:
			b.WriteString(strconv.FormatInt(age, 10) + "s ")
		case age < 3600:
			b.WriteString(strconv.FormatInt(age/60, 10) + "m ")
		default:
			b.WriteString(strconv.FormatInt(age/3600, 10) + "h ")
		}
	}
	b.WriteByte('\n')
	c.W.Verbatim("txt", b.String())
}

// cmdLatencyDoctor writes lockredis's own report: whether the monitor is
// on, and per event the number of samples, their average and the worst.
func cmdLatencyDoctor(c *Call) {
	o := &c.E.ops
	o.latMu.Lock()
	defer o.latMu.Unlock()
	var b strings.Builder
	switch {
	case len(o.latEvents) == 0 && o.latThreshold.Load() == 0:
		b.WriteString("Latency monitoring is disabled: nothing was recorded. Enable it with CONFIG SET latency-monitor-threshold <milliseconds>.\n")
	case len(o.latEvents) == 0:
		b.WriteString("No latency spike was recorded since the latency monitor was enabled.\n")
	default:
		b.WriteString("Latency spikes were recorded:\n\n")
		for i, n := range o.latencyEvents() {
			ts := o.latEvents[n]
			samples := ts.list()
			var sum int64
			for _, s := range samples {
				sum += s.latency
			}
			fmt.Fprintf(&b, "%d. %s: %d latency spikes (average %dms). Worst all time event %dms.\n",
				i+1, n, len(samples), sum/int64(len(samples)), ts.max)
		}
		b.WriteString("\nlockredis holds one lock for the keyspace: a slow command delays every other client. SLOWLOG GET shows which commands took long.\n")
	}
	c.W.Verbatim("txt", b.String())
}

// cmdLatencyHistogram replies, per command that ran, its number of calls
// and the cumulative counts of its durations by power-of-two microsecond
// buckets (the bucket edges Redis's hdr_histogram reports).
func cmdLatencyHistogram(c *Call) {
	var cmds []*Command
	add := func(cmd *Command) {
		if cc := c.E.tally.peek(cmd); cc != nil && cc.hist.total() > 0 {
			cmds = append(cmds, cmd)
		}
	}
	addTree := func(cmd *Command) {
		add(cmd)
		subs := make([]*Command, 0, len(cmd.subs))
		for _, sc := range cmd.subs {
			subs = append(subs, sc)
		}
		sort.Slice(subs, func(i, j int) bool { return subs[i].Name < subs[j].Name })
		for _, sc := range subs {
			add(sc)
		}
	}
	if len(c.Args) == 2 {
		for _, cmd := range c.E.Table.All() {
			addTree(cmd)
		}
	} else {
		for _, a := range c.Args[2:] {
			name := strings.ToLower(string(a))
			parent, sub, isSub := strings.Cut(name, "|")
			cmd := c.E.Table.Get([]byte(parent))
			if cmd == nil {
				continue
			}
			if isSub {
				if sc := cmd.Sub([]byte(sub)); sc != nil {
					add(sc)
				}
				continue
			}
			addTree(cmd)
		}
	}
	c.W.Map(len(cmds))
	for _, cmd := range cmds {
		c.W.BulkString(cmd.FullName)
		var counts [histBuckets]int64
		n := 0
		var total int64
		for k := range counts {
			counts[k] = c.E.tally.peek(cmd).hist.counts[k].Load()
			total += counts[k]
			if counts[k] > 0 {
				n++
			}
		}
		c.W.Map(2)
		c.W.BulkString("calls")
		c.W.Int(total)
		c.W.BulkString("histogram_usec")
		c.W.Map(n)
		var cum int64
		for k, v := range counts {
			if v == 0 {
				continue
			}
			cum += v
			c.W.Int(histEdge(k) / 1000)
			c.W.Int(cum)
		}
	}
}

// latencyFsync samples an fsync of the AOF: "aof-fsync-always" under
// appendfsync always, "aof-write" otherwise (lockredis's writes reach the
// file at commit; the fsync is where a slow disk shows).
func (e *Engine) latencyFsync(policy string, d time.Duration) {
	ev := "aof-write"
	if policy == FsyncAlways {
		ev = "aof-fsync-always"
	}
	e.LatencySample(ev, d.Milliseconds())
}
