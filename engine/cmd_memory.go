package engine

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/lockredis/lockredis/keyspace"
)

// MEMORY USAGE key [SAMPLES n] | STATS | DOCTOR | MALLOC-STATS | PURGE |
// HELP. The numbers are lockredis's, under Redis's names:
//
//   - USAGE estimates what the key costs here: its buntdb item and B-tree
//     slot (memItemOverhead), the stored key (one byte of database number
//     and the name) and the stored value (header, expiry, fencing token,
//     payload), plus an expiry queue entry (memExpireOverhead) when it has
//     a TTL. Values are stored whole, so SAMPLES is checked and ignored.
//   - STATS maps Go's runtime.MemStats onto Redis's fields: the allocator
//     is Go's heap (allocated: HeapAlloc, active: HeapInuse, resident:
//     HeapSys-HeapReleased), the process's rss is Sys-HeapReleased; the
//     per-database overhead counts memItemOverhead per key and
//     memExpireOverhead per volatile key; what Redis has and lockredis
//     does not (replication backlog, cluster links, AOF buffer) is 0.
//   - MALLOC-STATS is the Go runtime's statistics as text, DOCTOR a short
//     report of lockredis's own, PURGE returns freed memory to the OS
//     (debug.FreeOSMemory).

const (
	memItemOverhead   = 64 // buntdb item (key, value, options) and its B-tree slot
	memExpireOverhead = 16 // an entry of the expiry queue
)

func memoryCommands() []*Command {
	return []*Command{{
		Name: "memory",
		Subcommands: []*Command{
			{Name: "usage", Handler: cmdMemoryUsage},
			{Name: "stats", Handler: cmdMemoryStats},
			{Name: "doctor", Handler: cmdMemoryDoctor},
			{Name: "malloc-stats", Handler: cmdMemoryMallocStats},
			{Name: "purge", Handler: cmdMemoryPurge},
			{Name: "help", Handler: cmdMemoryHelp},
		},
	}}
}

var memoryHelp = []string{
	"MEMORY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"DOCTOR",
	"    Return memory problems reports.",
	"MALLOC-STATS",
	"    Return internal statistics report from the memory allocator.",
	"PURGE",
	"    Attempt to purge dirty pages for reclamation by the allocator.",
	"STATS",
	"    Return information about the memory usage of the server.",
	"USAGE <key> [SAMPLES <count>]",
	"    Return memory in bytes used by <key> and its value. Nested values are",
	"    sampled up to <count> times (default: 5, 0 means sample all).",
	"HELP",
	"    Prints this help.",
}

func cmdMemoryHelp(c *Call) { WriteHelp(c.W, memoryHelp) }

func cmdMemoryUsage(c *Call) {
	for j := 3; j < len(c.Args); j++ {
		if EqualFold(c.Args[j], "samples") && j+1 < len(c.Args) {
			n, ok := ParseInt(c.Args[j+1])
			if !ok {
				c.Err(ErrNotInteger)
				return
			}
			if n < 0 {
				c.Err(ErrSyntax)
				return
			}
			j++
			continue
		}
		c.Err(ErrSyntax)
		return
	}
	// Redis looks the key up without expiring it: a key whose time has
	// passed but is still stored is measured.
	raw, ok := c.Tx.Stored(c.Tx.DB, c.Args[2])
	if !ok {
		c.W.Null()
		return
	}
	c.W.Int(keyUsage(len(c.Args[2]), raw))
}

// keyUsage is MEMORY USAGE's estimate for a key of keyLen bytes stored
// with the raw value.
func keyUsage(keyLen int, raw string) int64 {
	n := int64(memItemOverhead + 1 + keyLen + len(raw))
	if keyspace.StoredExpiry(raw) != 0 {
		n += memExpireOverhead
	}
	return n
}

// memStats gathers MEMORY STATS's fields.
type memStat struct {
	name  string
	n     int64
	f     float64
	isF   bool
	db    int // for a db.N entry: its index, with main and expires
	isDB  bool
	main  int64
	expir int64
}

func (e *Engine) memoryStats() []memStat {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	alloc := int64(ms.HeapAlloc)
	peak := e.ops.notePeak(alloc)
	// The heap may have shrunk below its size at start (a GC since).
	startup := min(e.ops.startupAlloc, alloc)
	out := []memStat{
		{name: "peak.allocated", n: peak},
		{name: "total.allocated", n: alloc},
		{name: "startup.allocated", n: startup},
		{name: "replication.backlog"},
		{name: "clients.slaves"},
		{name: "clients.normal"},
		{name: "cluster.links"},
		{name: "aof.buffer"},
		{name: "lua.caches"},
		{name: "functions.caches"},
	}
	overhead := startup
	var keys int64
	for db := range e.Databases() {
		k, v := e.ks.Keys(db), e.ks.Volatile(db)
		if k == 0 {
			continue
		}
		keys += k
		m, x := k*memItemOverhead, v*memExpireOverhead
		overhead += m + x
		out = append(out, memStat{name: "db." + strconv.Itoa(db), isDB: true, db: db, main: m, expir: x})
	}
	dataset := max(alloc-overhead, 0)
	perKey := int64(0)
	if keys > 0 {
		perKey = (alloc - startup) / keys
	}
	pct := func(a, b int64) float64 {
		if b == 0 {
			return 0
		}
		return float64(a) * 100 / float64(b)
	}
	ratio := func(a, b int64) float64 {
		if b == 0 {
			return 0
		}
		return float64(a) / float64(b)
	}
	active := int64(ms.HeapInuse)
	resident := int64(ms.HeapSys - ms.HeapReleased)
	rss := int64(ms.Sys - ms.HeapReleased)
	out = append(out,
		memStat{name: "overhead.total", n: overhead},
		memStat{name: "keys.count", n: keys},
		memStat{name: "keys.bytes-per-key", n: perKey},
		memStat{name: "dataset.bytes", n: dataset},
		memStat{name: "dataset.percentage", f: pct(dataset, alloc-startup), isF: true},
		memStat{name: "peak.percentage", f: pct(alloc, peak), isF: true},
		memStat{name: "allocator.allocated", n: alloc},
		memStat{name: "allocator.active", n: active},
		memStat{name: "allocator.resident", n: resident},
		memStat{name: "allocator-fragmentation.ratio", f: ratio(active, alloc), isF: true},
		memStat{name: "allocator-fragmentation.bytes", n: active - alloc},
		memStat{name: "allocator-rss.ratio", f: ratio(resident, active), isF: true},
		memStat{name: "allocator-rss.bytes", n: resident - active},
		memStat{name: "rss-overhead.ratio", f: ratio(rss, resident), isF: true},
		memStat{name: "rss-overhead.bytes", n: rss - resident},
		memStat{name: "fragmentation", f: ratio(rss, alloc), isF: true},
		memStat{name: "fragmentation.bytes", n: rss - alloc},
	)
	return out
}

// notePeak records alloc if it is the largest seen and returns the peak.
func (o *opsState) notePeak(alloc int64) int64 {
	for {
		p := o.peakAlloc.Load()
		if alloc <= p {
			return p
		}
		if o.peakAlloc.CompareAndSwap(p, alloc) {
			return alloc
		}
	}
}

func cmdMemoryStats(c *Call) {
	stats := c.E.memoryStats()
	c.W.Map(len(stats))
	for _, s := range stats {
		c.W.BulkString(s.name)
		switch {
		case s.isDB:
			c.W.Map(3)
			c.W.BulkString("overhead.hashtable.main")
			c.W.Int(s.main)
			c.W.BulkString("overhead.hashtable.expires")
			c.W.Int(s.expir)
			c.W.BulkString("overhead.hashtable.slot-to-keys")
			c.W.Int(0)
		case s.isF:
			c.W.Double(s.f)
		default:
			c.W.Int(s.n)
		}
	}
}

// cmdMemoryDoctor reports, in lockredis's words, the few things worth a
// look: a nearly empty server, heap fragmentation, memory the runtime
// holds but does not use.
func cmdMemoryDoctor(c *Call) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	var b strings.Builder
	switch {
	case ms.HeapAlloc < 5<<20:
		b.WriteString("This server holds little data (under 5 MB of heap): there is nothing to diagnose.\n")
	default:
		problems := 0
		if ms.HeapInuse > 0 && float64(ms.HeapInuse)/float64(ms.HeapAlloc) > 1.4 {
			problems++
			fmt.Fprintf(&b, "- The heap in use (%d bytes) is much larger than the live data (%d bytes): fragmentation after many deletions; it shrinks as the garbage collector reuses the space.\n", ms.HeapInuse, ms.HeapAlloc)
		}
		if idle := ms.HeapIdle - ms.HeapReleased; idle > 64<<20 {
			problems++
			fmt.Fprintf(&b, "- %d bytes of heap are free but not yet returned to the OS: MEMORY PURGE returns them now.\n", idle)
		}
		if problems == 0 {
			b.WriteString("No memory problem detected.\n")
		}
	}
	c.W.Verbatim("txt", b.String())
}

func cmdMemoryMallocStats(c *Call) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	var b strings.Builder
	b.WriteString("___ Begin Go runtime memory statistics ___\n")
	for _, f := range []struct {
		name string
		v    uint64
	}{
		{"Sys", ms.Sys}, {"HeapAlloc", ms.HeapAlloc}, {"HeapSys", ms.HeapSys},
		{"HeapIdle", ms.HeapIdle}, {"HeapInuse", ms.HeapInuse}, {"HeapReleased", ms.HeapReleased},
		{"HeapObjects", ms.HeapObjects}, {"StackInuse", ms.StackInuse}, {"MSpanInuse", ms.MSpanInuse},
		{"MCacheInuse", ms.MCacheInuse}, {"GCSys", ms.GCSys}, {"OtherSys", ms.OtherSys},
		{"NextGC", ms.NextGC}, {"Mallocs", ms.Mallocs}, {"Frees", ms.Frees}, {"NumGC", uint64(ms.NumGC)},
	} {
		fmt.Fprintf(&b, "%s: %d\n", f.name, f.v)
	}
	b.WriteString("--- End Go runtime memory statistics ---\n")
	c.W.Verbatim("txt", b.String())
}

func cmdMemoryPurge(c *Call) {
	debug.FreeOSMemory()
	c.OK()
}
