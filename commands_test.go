package lockredis

import (
	"testing"

	"github.com/lockredis/lockredis/engine"
)

// TestCommandsMatchSpecs: with luasvc and pubsub registered, every command
// has its entry in engine/commands.json and every entry is a registered
// command.
func TestCommandsMatchSpecs(t *testing.T) {
	s := RunT(t)
	registered := map[string]bool{}
	for _, c := range s.eng.Table.All() {
		registered[c.FullName] = true
		for _, sc := range c.Subcommands {
			registered[sc.FullName] = true
		}
	}
	for name := range registered {
		if engine.LookupSpec(name) == nil {
			t.Errorf("%s is registered without a spec", name)
		}
	}
	for _, name := range engine.SpecNames() {
		if !registered[name] {
			t.Errorf("commands.json describes %s, which lockredis does not register", name)
		}
	}
}
