package engine

import "testing"

// MODULE: lockredis loads no module (compat_test/diff_module_test.go compares
// the replies with redis-server).
func TestModuleCommands(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("MODULE", "LIST"), "[]"},
		{cmd("MODULE", "LOAD", "/x.so"), `(error) ERR MODULE command not allowed. If the enable-module-command option is set to "local", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server.`},
		{cmd("MODULE", "UNLOAD", "x"), `(error) ERR MODULE command not allowed. If the enable-module-command option is set to "local", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server.`},
		{cmd("CONFIG", "GET", "enable-module-command"), `["enable-module-command" "no"]`},
	})

	e, err := New(Config{Params: map[string]string{"enable-module-command": "yes"}})
	if err != nil {
		t.Fatal(err)
	}
	te = wrapTestEngine(t, e)
	te.run([]step{
		{cmd("MODULE", "LOAD", "/x.so"), "(error) ERR Error loading the extension. Please check the server logs."},
		{cmd("MODULE", "LOADEX", "/x.so", "CONFIG", "a"), "(error) ERR Error loading the extension. Please check the server logs."},
		{cmd("MODULE", "UNLOAD", "x"), "(error) ERR Error unloading module: no such module with that name"},
		{cmd("DEBUG", "SLEEP", "0"), `(error) ERR DEBUG command not allowed. If the enable-debug-command option is set to "local", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server.`},
	})
}
