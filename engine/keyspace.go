package engine

import (
	"time"

	"github.com/lockredis/lockredis/keyspace"
)

// The keyspace core's names, as the command layer and its users spell
// them: a stored value and its type, the clock, and the Go API's snapshot
// of an in-memory keyspace. They are the keyspace package's own types.
type (
	Value     = keyspace.Value
	Type      = keyspace.Type
	StringEnc = keyspace.StringEnc
	Clock     = keyspace.Clock
	Snapshot  = keyspace.Snapshot
)

const (
	TypeString = keyspace.TypeString
	TypeHash   = keyspace.TypeHash
	TypeList   = keyspace.TypeList
	TypeSet    = keyspace.TypeSet
	TypeZSet   = keyspace.TypeZSet
	TypeStream = keyspace.TypeStream

	EncNatural = keyspace.EncNatural
	EncRaw     = keyspace.EncRaw
	EncFloat   = keyspace.EncFloat

	FsyncAlways   = keyspace.FsyncAlways
	FsyncEverySec = keyspace.FsyncEverySec
	FsyncNo       = keyspace.FsyncNo

	StateFileName     = keyspace.StateFileName
	DefaultMaxLockTTL = keyspace.DefaultMaxLockTTL
)

// NewClock returns a clock that follows real time.
func NewClock() *Clock { return keyspace.NewClock() }

// NewManualClock returns a clock that moves only when told to.
func NewManualClock(start time.Time) *Clock { return keyspace.NewManualClock(start) }

// Snapshot copies the keyspace of an in-memory engine (the Go API's
// Restart); it fails for one whose keyspace is a file.
func (e *Engine) Snapshot() (*Snapshot, error) { return e.ks.Snapshot() }

// SetActiveExpire turns the background sweeper on or off, as Redis's DEBUG
// SET-ACTIVE-EXPIRE does (keyspace/sweep.go).
func (e *Engine) SetActiveExpire(on bool) { e.ks.SetActiveExpire(on) }

// Sweep deletes expired keys now (keyspace/sweep.go).
func (e *Engine) Sweep(budget time.Duration) int { return e.ks.Sweep(budget) }

// Persistence reports the state of the append-only file.
func (e *Engine) Persistence() keyspace.PersistInfo { return e.ks.Persistence() }

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
