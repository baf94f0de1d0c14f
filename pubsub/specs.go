package pubsub

import (
	_ "embed"
	"sync"

	"github.com/lockredis/lockredis/engine"
)

// commandsJSON holds the specs of the commands this package registers
// (SUBSCRIBE, PUBLISH, PUBSUB...), kept beside them rather than among the engine's: see
// engine/spec.go.
//
//go:embed commands.json
var commandsJSON []byte

// Specs returns the specs of this package's commands, parsed once per
// process (they are embedded: a constant computed late, not state).
var Specs = sync.OnceValue(func() engine.Specs {
	s := engine.Specs{}
	if err := engine.ParseSpecs(s, "pubsub/commands.json", commandsJSON); err != nil {
		panic("pubsub: " + err.Error())
	}
	return s
})
