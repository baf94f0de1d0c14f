package engine

// registerBuiltins fills the table with the commands implemented in this
// package, one file per family.
func (e *Engine) registerBuiltins() {
	e.Register(connectionCommands()...)
	e.Register(serverCommands()...)
	e.Register(stringCommands()...)
	e.Register(bitmapCommands()...)
	e.Register(keyCommands()...)
	e.Register(expireCommands()...)
	e.Register(multiCommands()...)
	e.Register(hashCommands()...)
	e.Register(hashTTLCommands()...)
	e.Register(listCommands()...)
	e.Register(setCommands()...)
	e.Register(setAlgebraCommands()...)
	e.Register(zsetCommands()...)
	e.Register(zsetAlgebraCommands()...)
	e.Register(geoCommands()...)
	e.Register(hllCommands()...)
	e.Register(objectCommands()...)
	e.Register(sortCommands()...)
	e.Register(dumpCommands()...)
	e.Register(blockingCommands()...)
	e.Register(mpopCommands()...)
	e.Register(lockCommands()...)
	e.Register(aclCommands()...)
	e.Register(clusterCommands()...)
	// Operations (ops.go): SLOWLOG, LATENCY, MONITOR, MEMORY, DEBUG,
	// SHUTDOWN, ROLE, SWAPDB.
	e.Register(slowlogCommands()...)
	e.Register(latencyCommands()...)
	e.Register(monitorCommands()...)
	e.Register(memoryCommands()...)
	e.Register(debugCommands()...)
	e.Register(shutdownCommands()...)
	// No modules, no replication (cmd_module.go, cmd_replication.go),
	// MIGRATE (cmd_migrate.go), LOLWUT (cmd_lolwut.go).
	e.Register(moduleCommands()...)
	e.Register(replicationCommands()...)
	e.Register(migrateCommands()...)
	e.Register(lolwutCommands()...)
}
