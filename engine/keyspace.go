package engine

import (
	"time"
)

// Snapshot copies the keyspace of an in-memory engine (the Go API's
// Restart); it fails for one whose keyspace is a file.
func (e *Engine) Snapshot() (*Snapshot, error) { return e.ks.Snapshot() }

// SetActiveExpire turns the background sweeper on or off, as Redis's DEBUG
// SET-ACTIVE-EXPIRE does (keyspace/sweep.go).
func (e *Engine) SetActiveExpire(on bool) { e.ks.SetActiveExpire(on) }

// Sweep deletes expired keys now (keyspace/sweep.go).
func (e *Engine) Sweep(budget time.Duration) int {
	n := e.ks.Sweep(budget)
	// Lock deadlines that are not key expiries (a semaphore holder's),
	// for a manual clock, which the lock timers do not follow.
	e.locks.fireDue()
	return n
}

// Persistence reports the state of the append-only file.
func (e *Engine) Persistence() PersistInfo { return e.ks.Persistence() }

// Loading reports Load's progress (keyspace/loading.go).
func (e *Engine) Loading() LoadingInfo { return e.ks.Loading() }

// Loaded reports whether Load has finished successfully: the keyspace is
// there and commands run.
func (e *Engine) Loaded() bool { return e.ks.Loaded() }

// AfterLoad runs fn once the keyspace is loaded, before commands that
// need it are let through (luasvc reads the stored functions): at the end
// of Load, or at once when it already ran. Call it before Load starts or
// after it returned, not while it runs.
func (e *Engine) AfterLoad(fn func()) { e.ks.AfterLoad(fn) }

// RewriteAOF starts a background rewrite of the append-only file.
func (e *Engine) RewriteAOF() error { return e.ks.RewriteAOF() }

// SyncAOF fsyncs the append-only file now (SAVE).
func (e *Engine) SyncAOF() error { return e.ks.SyncAOF() }

// StoredFunctions returns the function libraries' payload the keyspace
// holds, as loaded from the AOF at startup.
func (e *Engine) StoredFunctions() ([]byte, bool) { return e.ks.StoredFunctions() }

// tokensReserved makes sure fencing tokens are reserved on disk before a
// command that may create keys runs; a failing disk refuses the command
// with a MISCONF error instead of handing out tokens that could repeat.
func (e *Engine) tokensReserved(w Writer) bool {
	if err := e.ks.ReserveTokens(); err != nil {
		e.Logf("warning", "Fencing tokens: could not reserve a range: %v", err)
		w.Error("MISCONF could not reserve fencing tokens on disk: " + err.Error())
		return false
	}
	return true
}
