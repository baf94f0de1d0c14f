package luasvc

import (
	"errors"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lockredis/lockredis/engine"
)

// Why a script was stopped.
const (
	stopNone    uint64 = iota
	stopKilled         // SCRIPT KILL
	stopTimeout        // ran past the hard time limit (lua-hard-time-limit)
	stopMemory         // grew the heap past memoryLimit
	stopPanic          // a command panicked: the run is abandoned
)

var (
	errStopKilled  = errors.New("Script killed by user with SCRIPT KILL...")
	errStopTimeout = errors.New("Script killed: it ran longer than lua-hard-time-limit")
	errStopMemory  = errors.New("Script killed: it used too much memory")
	errStopPanic   = errors.New("Script stopped: a command failed internally")
)

const (
	// memoryLimit is how much a script may grow the heap. Lua code can
	// allocate a lot in few instructions (s = s .. s doubles a string,
	// t[5e7] = 1 makes a 5e7-slot array), faster than any time limit; the
	// watchdog stops it.
	memoryLimit = 1 << 30
	// watchAfter is when the watchdog starts looking at a script: the
	// scripts lock clients send are long done by then, and pay only for
	// arming and disarming a timer.
	watchAfter = 20 * time.Millisecond
	// watchEvery is how often the watchdog looks.
	watchEvery = time.Millisecond
)

// interrupt is the context.Context a Lua state runs with. gopher-lua calls
// Done before every VM instruction and stops the script with Err once Done
// is ready. Done returns nil (never ready) while the script may go on and a
// closed channel once it must stop, so the per-instruction cost is one
// atomic load. The stop is sticky: a script that catches the error with
// pcall is stopped again at its next instruction.
//
// Time and memory are watched from outside: a timer armed for every run
// fires after watchAfter (or the busy threshold or time limit, if
// shorter), and its goroutine then checks the clock and the heap every
// watchEvery until the run ends or must stop. Past the busy threshold
// (busy-reply-threshold) it tells the engine, whose dispatcher then
// answers BUSY to other clients, and logs Redis's "Slow script detected"
// line; past the hard limit it stops the script.
type interrupt struct {
	// state is the current run's number << 8 | why it must stop; 0 when
	// no script runs. One word, so that a stop (SCRIPT KILL, the
	// watchdog) can never land on a later run.
	state  atomic.Uint64
	runs   uint64 // runs started, for run numbers
	closed chan struct{}

	limit    atomic.Int64 // this run's time limit in ns, <= 0: none
	busyAt   atomic.Int64 // this run's busy threshold in ns
	first    atomic.Int64 // the delay the watchdog was armed with
	watchdog *time.Timer
	memLimit uint64

	// The busy mark: the run the engine was told is busy (0: none), and
	// the current run's script name for the log, under busyMu.
	e        *engine.Engine
	logf     func(level, format string, args ...any)
	busyMu   sync.Mutex
	busyRun  uint64
	busyName string
	function bool // runs functions: the engine says FUNCTION KILL in BUSY
}

// setBusy tells the engine a run turned busy (on) or a busy run ended.
func (it *interrupt) setBusy(on bool) {
	if it.function {
		it.e.SetFunctionBusy(on)
	} else {
		it.e.SetScriptBusy(on)
	}
}

func newInterrupt(memLimit uint64, e *engine.Engine, logf func(level, format string, args ...any)) *interrupt {
	it := &interrupt{closed: make(chan struct{}), memLimit: memLimit, e: e, logf: logf}
	close(it.closed)
	it.watchdog = time.AfterFunc(time.Hour, it.watch)
	it.watchdog.Stop()
	return it
}

// begin arms the interrupt for a run of the script name that is busy
// past busy and stopped past limit (<= 0: never).
func (it *interrupt) begin(busy, limit time.Duration, name string) {
	it.runs++
	first := watchAfter
	if busy < first {
		first = max(busy, time.Millisecond)
	}
	if limit > 0 && limit < first {
		first = limit
	}
	it.limit.Store(int64(limit))
	it.busyAt.Store(int64(busy))
	it.first.Store(int64(first))
	it.busyMu.Lock()
	it.busyName = name
	it.busyMu.Unlock()
	it.state.Store(it.runs << 8)
	it.watchdog.Reset(first)
}

// end disarms it and returns why the run was stopped, if it was.
func (it *interrupt) end() uint64 {
	it.watchdog.Stop()
	it.busyMu.Lock()
	why := it.state.Swap(0) & 0xff
	if it.busyRun != 0 {
		it.busyRun = 0
		it.setBusy(false)
	}
	it.busyMu.Unlock()
	return why
}

// markBusy tells the engine that run is past the busy threshold, unless it
// has ended.
func (it *interrupt) markBusy(run uint64, elapsed time.Duration) {
	it.busyMu.Lock()
	defer it.busyMu.Unlock()
	if it.state.Load()&^0xff != run || it.busyRun != 0 {
		return
	}
	it.busyRun = run
	it.setBusy(true)
	kill := "SCRIPT KILL"
	if it.function {
		kill = "FUNCTION KILL"
	}
	it.logf("warning", "Slow script detected: still in execution after %d milliseconds. "+
		"You can try killing the script using the %s command. Script name is: %s.",
		elapsed.Milliseconds(), kill, it.busyName)
}

// stopRun stops run (its state word without a reason) for reason, unless
// it has ended or was already stopped. Safe from any goroutine.
func (it *interrupt) stopRun(run, reason uint64) bool {
	return run != 0 && it.state.CompareAndSwap(run, run|reason)
}

// kill stops the current run, if any (SCRIPT KILL).
func (it *interrupt) kill() bool {
	s := it.state.Load()
	if s == 0 {
		return false
	}
	it.stopRun(s&^0xff, stopKilled)
	return true
}

// halt stops the current run for reason (from the script's goroutine).
func (it *interrupt) halt(reason uint64) {
	s := it.state.Load()
	it.stopRun(s&^0xff, reason)
}

func (it *interrupt) reason() uint64 { return it.state.Load() & 0xff }

// watch runs in the timer's goroutine once a script has lasted the
// delay it was armed with: until the run ends, it stops it when it passes
// its time limit or grows the heap by more than memLimit.
func (it *interrupt) watch() {
	run := it.state.Load() &^ 0xff
	if run == 0 {
		return
	}
	start := time.Now().Add(-time.Duration(it.first.Load()))
	limit := time.Duration(it.limit.Load())
	busyAt := time.Duration(it.busyAt.Load())
	busy := false
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	base := sample[0].Value.Uint64()
	tick := time.NewTicker(watchEvery)
	defer tick.Stop()
	for {
		elapsed := time.Since(start)
		if !busy && elapsed >= busyAt {
			busy = true
			it.markBusy(run, elapsed)
		}
		if limit > 0 && elapsed >= limit {
			it.stopRun(run, stopTimeout)
			return
		}
		<-tick.C
		if it.state.Load() != run {
			return // ended, or already stopped
		}
		metrics.Read(sample)
		if sample[0].Value.Uint64() > base+it.memLimit {
			it.stopRun(run, stopMemory)
			return
		}
	}
}

func (it *interrupt) Deadline() (time.Time, bool) { return time.Time{}, false }
func (it *interrupt) Value(any) any               { return nil }

func (it *interrupt) Done() <-chan struct{} {
	if it.state.Load()&0xff != stopNone {
		return it.closed
	}
	return nil
}

func (it *interrupt) Err() error {
	switch it.reason() {
	case stopKilled:
		return errStopKilled
	case stopTimeout:
		return errStopTimeout
	case stopMemory:
		return errStopMemory
	case stopPanic:
		return errStopPanic
	}
	return nil
}

// check is for long-running Go code called from scripts (the pattern
// matcher): it reports whether the run must stop.
func (it *interrupt) check() bool { return it.reason() != stopNone }
