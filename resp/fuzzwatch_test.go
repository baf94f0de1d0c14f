package resp

import "github.com/lockredis/lockredis/internal/fuzzwatch"

// fuzzWatch: see fuzzwatch.Start.
var fuzzWatch = fuzzwatch.Start
