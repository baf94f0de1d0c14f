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

// counts is what the registered counter says (none: zeros).
func (f *functionsState) counts() FunctionCounts {
	if fn := f.count.Load(); fn != nil {
		return (*fn)()
	}
	return FunctionCounts{}
}

// running counts a function that runs past the busy threshold (on) or
// has ended (off).
func (f *functionsState) running(on bool) {
	if on {
		f.busy.Add(1)
	} else {
		f.busy.Add(-1)
	}
}
