package engine

import (
	"sync/atomic"

	"github.com/tidwall/buntdb"
)

// What the engine keeps for Redis 7 functions (luasvc owns the libraries
// and runs them): their persistence, INFO's counters and the BUSY reply
// while a function runs too long.
//
// The libraries are persisted as one buntdb item holding FUNCTION DUMP's
// payload, under the empty key: every key of a database starts with the
// database's byte, so "" belongs to none of them and SCAN, KEYS, DBSIZE,
// RANDOMKEY, FLUSHDB and SWAPDB never meet it. It is written by the
// transaction of the command that changed the libraries, so it lands in
// the AOF with the same fsync policy as keys, and BGREWRITEAOF keeps it.
// FLUSHALL keeps it too: in Redis it empties the keyspace, not the
// functions.
const functionsKey = ""

// functionsState is the engine's share of the functions.
type functionsState struct {
	busy   atomic.Int32 // running functions past the busy threshold
	count  atomic.Pointer[func() FunctionCounts]
	loader atomic.Pointer[func(payload []byte)]
}

// SetFunctionsLoader registers what loads the function libraries anew
// when Apply or RestoreSnapshot stored others (changes.go): luasvc's
// loader of the stored payload (nil or empty: no libraries).
func (e *Engine) SetFunctionsLoader(fn func(payload []byte)) {
	e.functions.loader.Store(&fn)
}

// functionsApplied tells the loader that the stored libraries changed.
func (e *Engine) functionsApplied() {
	if fn := e.functions.loader.Load(); fn != nil {
		payload, _ := e.StoredFunctions()
		(*fn)(payload)
	}
}

// errBusyFunction is Redis's shared.slowscripterr: the busy script is a
// function.
var errBusyFunction = replyError("BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.")

// StoredFunctions returns the payload PutFunctions stored, as loaded from
// the AOF at startup.
func (e *Engine) StoredFunctions() (payload []byte, ok bool) {
	e.db.View(func(bt *buntdb.Tx) error {
		v, err := bt.Get(functionsKey)
		if err == nil {
			payload, ok = []byte(v), true
		}
		return nil
	})
	return payload, ok
}

// PutFunctions stores the libraries' payload (FUNCTION DUMP's bytes) in
// this write transaction; an empty payload removes it.
func (tx *Tx) PutFunctions(payload []byte) {
	tx.record(Change{Kind: ChangeFunctions, Raw: string(payload)})
	if len(payload) == 0 {
		if _, err := tx.bt.Delete(functionsKey); err == nil {
			tx.wroteAOF = true
		}
		return
	}
	if _, _, err := tx.bt.Set(functionsKey, string(payload), nil); err != nil {
		panic(err) // only possible on a closed or read-only tx: a bug
	}
	tx.wroteAOF = true
}

// keepFunctions is called by FlushAll before it deletes everything: the
// returned func puts the functions back.
func (tx *Tx) keepFunctions() func() {
	v, err := tx.bt.Get(functionsKey)
	if err != nil {
		return func() {}
	}
	return func() { tx.bt.Set(functionsKey, v, nil) }
}

// FunctionCounts are INFO memory's figures about functions.
type FunctionCounts struct {
	Libraries int   // number_of_libraries
	Functions int   // number_of_functions
	Memory    int64 // used_memory_functions: an estimate of what they hold
}

// SetFunctionCount registers how INFO counts the libraries and functions
// (luasvc).
func (e *Engine) SetFunctionCount(fn func() FunctionCounts) {
	e.functions.count.Store(&fn)
}

func (e *Engine) functionCount() FunctionCounts {
	if fn := e.functions.count.Load(); fn != nil {
		return (*fn)()
	}
	return FunctionCounts{}
}

// SetFunctionBusy is SetScriptBusy for a function (FCALL): other clients
// are told to use FUNCTION KILL rather than SCRIPT KILL.
func (e *Engine) SetFunctionBusy(on bool) {
	if on {
		e.functions.busy.Add(1)
	} else {
		e.functions.busy.Add(-1)
	}
	e.SetScriptBusy(on)
}
