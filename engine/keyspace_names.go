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

	// PersistInfo is the append-only file's state (INFO persistence).
	PersistInfo = keyspace.PersistInfo
	// LoadingInfo is a load's progress, as INFO persistence's loading_*
	// fields show it (keyspace/loading.go).
	LoadingInfo = keyspace.LoadingInfo
)

// The keyspace core's constants: the types of a value and the encoding
// hints of a string, the appendfsync policies, the restart fence's state
// file and its default cap.
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
