package engine

import "sync"

// registerBuiltins gives the engine its command table: a copy of the
// table of this package's commands, which is built once per process and
// whose Commands every engine shares (they hold no state of an engine:
// its counters are in Engine.tally). Other packages then register
// theirs into the copy.
func (e *Engine) registerBuiltins() { e.Table = builtinTable().clone() }

var builtins struct {
	once sync.Once
	t    *Table
}

func builtinTable() *Table {
	builtins.once.Do(func() {
		t := newTable()
		registerBuiltinsIn(t)
		t.aclCommands() // built once here, shared by the copies
		builtins.t = t
	})
	return builtins.t
}

// registerBuiltinsIn fills t with the commands implemented in this
// package, one file per family.
func registerBuiltinsIn(t *Table) {
	t.Register(connectionCommands()...)
	t.Register(serverCommands()...)
	t.Register(stringCommands()...)
	t.Register(bitmapCommands()...)
	t.Register(keyCommands()...)
	t.Register(expireCommands()...)
	t.Register(multiCommands()...)
	t.Register(hashCommands()...)
	t.Register(hashTTLCommands()...)
	t.Register(listCommands()...)
	t.Register(setCommands()...)
	t.Register(setAlgebraCommands()...)
	t.Register(zsetCommands()...)
	t.Register(zsetAlgebraCommands()...)
	t.Register(streamCommands()...)
	t.Register(geoCommands()...)
	t.Register(hllCommands()...)
	t.Register(objectCommands()...)
	t.Register(sortCommands()...)
	t.Register(dumpCommands()...)
	t.Register(blockingCommands()...)
	t.Register(mpopCommands()...)
	t.Register(lockCommands()...)
	t.Register(aclCommands()...)
	t.Register(clusterCommands()...)
	// Operations (ops.go): SLOWLOG, LATENCY, MONITOR, MEMORY, DEBUG,
	// SHUTDOWN, ROLE, SWAPDB.
	t.Register(slowlogCommands()...)
	t.Register(latencyCommands()...)
	t.Register(monitorCommands()...)
	t.Register(memoryCommands()...)
	t.Register(debugCommands()...)
	t.Register(shutdownCommands()...)
	// No modules, no replication (cmd_module.go, cmd_replication.go),
	// MIGRATE (cmd_migrate.go), LOLWUT (cmd_lolwut.go).
	t.Register(moduleCommands()...)
	t.Register(replicationCommands()...)
	t.Register(migrateCommands()...)
	t.Register(lolwutCommands()...)
}
