package compat

import (
	"testing"

	"github.com/lockredis/lockredis"
)

// MODULE: lockredis loads no module; LIST, HELP and the refusals as
// redis-server words them.
func TestDiffModule(t *testing.T) {
	runDiffCases(t, []diffCase{
		{name: "list help", steps: steps("MODULE LIST", "MODULE HELP", "module list", "MODULE help")},
		{name: "protected", steps: steps("MODULE LOAD /nonexistent.so", "MODULE LOAD /x a b",
			"MODULE LOADEX /x CONFIG a b ARGS c", "MODULE LOADEX /x foo", "MODULE UNLOAD x")},
		{name: "errors", steps: steps("MODULE", "MODULE FOO", "MODULE LIST x", "MODULE HELP x",
			"MODULE LOAD", "MODULE LOADEX", "MODULE UNLOAD", "MODULE UNLOAD a b")},
		{name: "multi", steps: steps("MULTI", "MODULE LIST", "MODULE LOAD /x", "EXEC",
			"MULTI", "MODULE LIST", "MODULE HELP", "EXEC")},
		{name: "eval", steps: steps(`EVAL "return redis.call('module','list')" 0`,
			`EVAL "return redis.call('module','load','/x')" 0`)},
	})
}

// TestDiffModuleEnabled: with enable-module-command yes, LOAD fails
// as a load of a missing library fails in Redis, UNLOAD finds nothing.
func TestDiffModuleEnabled(t *testing.T) {
	p := &diffPair{}
	p.owner = t
	p.supported = map[string]bool{}
	p.redisAddr = startRedis(t, "--enable-module-command", "yes")
	p.redisCtl = p.admin(t, p.redisAddr)
	p.lockOpts = lockredis.Options{Params: map[string]string{"enable-module-command": "yes"}}
	p.startLock(t)
	runDiffCasesOn(t, p, []diffCase{
		{name: "load", steps: steps("CONFIG GET enable-module-command",
			"MODULE LOAD /nonexistent.so", "MODULE LOAD /x a b",
			"MODULE LOADEX /x", "MODULE LOADEX /x CONFIG a b ARGS c", "MODULE LOADEX /x CONFIG a",
			"MODULE LOADEX /x foo", "MODULE UNLOAD x", "MODULE LIST",
			"CONFIG SET enable-module-command no")},
		{name: "multi eval", steps: steps("MULTI", "MODULE LOAD /x", "MODULE UNLOAD x", "EXEC",
			`EVAL "return redis.call('module','unload','x')" 0`)},
	})
}
