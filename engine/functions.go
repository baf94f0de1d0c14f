package engine

import "sync/atomic"

// What the engine keeps for Redis 7 functions (luasvc owns the libraries
// and runs them, the keyspace stores them: keyspace/functions.go): INFO's
// counters and the BUSY reply while a function runs too long.

// functionsState is the engine's share of the functions.
type functionsState struct {
	busy  atomic.Int32 // running functions past the busy threshold
	count atomic.Pointer[func() FunctionCounts]
}

// FunctionCounts are INFO memory's figures about functions and the EVAL
// script cache.
type FunctionCounts struct {
	Libraries int   // number_of_libraries
	Functions int   // number_of_functions
	Memory    int64 // used_memory_functions: an estimate of what they hold
	// Scripts and ScriptMemory are number_of_cached_scripts and
	// used_memory_scripts_eval: what SCRIPT LOAD and EVAL have cached.
	Scripts      int
	ScriptMemory int64
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
