package engine

import "errors"

// MODULE LIST, LOAD, LOADEX, UNLOAD and HELP (module.c moduleCommand).
//
// lockredis loads no modules: a Go server cannot run Redis's C modules.
// MODULE LIST is always empty; LOAD and LOADEX fail with the reply Redis
// gives when the load fails (its details go to the log, as in Redis);
// UNLOAD finds no module of that name. LOAD, LOADEX and UNLOAD are
// protected as in Redis: refused unless enable-module-command allows the
// client (dispatch.go, cmd_debug.go).

var (
	errModuleLoad   = errors.New("ERR Error loading the extension. Please check the server logs.")
	errModuleUnload = errors.New("ERR Error unloading module: no such module with that name")
)

func moduleCommands() []*Command {
	return []*Command{{
		Name: "module",
		Subcommands: []*Command{
			{Name: "help", Handler: func(c *Call) { WriteHelp(c.W, moduleHelp) }},
			{Name: "list", Handler: func(c *Call) { c.W.Array(0) }},
			{Name: "load", Handler: cmdModuleLoad},
			{Name: "loadex", Handler: cmdModuleLoad},
			{Name: "unload", Handler: func(c *Call) { c.Err(errModuleUnload) }},
		},
	}}
}

var moduleHelp = []string{
	"MODULE <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"LIST",
	"    Return a list of loaded modules.",
	"LOAD <path> [<arg> ...]",
	"    Load a module library from <path>, passing to it any optional arguments.",
	"LOADEX <path> [[CONFIG NAME VALUE] [CONFIG NAME VALUE]] [ARGS ...]",
	"    Load a module library from <path>, while passing it module configurations and optional arguments.",
	"UNLOAD <name>",
	"    Unload a module.",
	"HELP",
	"    Prints this help.",
}

// cmdModuleLoad is MODULE LOAD and LOADEX: whatever the arguments (Redis
// too answers the same error for a LOADEX syntax error), the log says why.
func cmdModuleLoad(c *Call) {
	c.E.Logf("warning", "Module %s failed to load: lockredis loads no modules", c.Args[2])
	c.Err(errModuleLoad)
}
