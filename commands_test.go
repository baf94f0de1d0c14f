package lockredis

import (
	"testing"

	"github.com/lockredis/lockredis/engine"
	"github.com/lockredis/lockredis/luasvc"
	"github.com/lockredis/lockredis/pubsub"
)

// TestCommandsMatchSpecs: with luasvc and pubsub registered, every command
// has its entry in a spec file (the engine's, luasvc's or pubsub's) and
// every entry is a registered command.
func TestCommandsMatchSpecs(t *testing.T) {
	s := RunT(t)
	registered := map[string]bool{}
	for _, c := range s.eng.Table.All() {
		registered[c.FullName] = true
		for _, sc := range c.Subcommands {
			registered[sc.FullName] = true
		}
	}
	described := map[string]bool{}
	for _, names := range [][]string{engine.SpecNames(), luasvc.Specs().Names(), pubsub.Specs().Names()} {
		for _, name := range names {
			if described[name] {
				t.Errorf("%s is described twice", name)
			}
			described[name] = true
			if !registered[name] {
				t.Errorf("the specs describe %s, which lockredis does not register", name)
			}
		}
	}
	for name := range registered {
		if !described[name] {
			t.Errorf("%s is registered without a spec", name)
		}
	}
}
