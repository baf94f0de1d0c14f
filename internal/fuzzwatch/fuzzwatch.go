// Package fuzzwatch fails a fuzzing worker on an input that runs too
// long, for the fuzz targets of the engine, keyspace and resp packages.
package fuzzwatch

import (
	"flag"
	"fmt"
	"os"
	"time"
)

// Start is deferred by a fuzz target around one input: in a fuzzing
// worker (go test -fuzz), an input still running after
// LOCKREDIS_FUZZ_SLOW (1s by default) ends the worker with a panic, so the
// fuzzing engine writes the input to testdata/fuzz as a failure instead of
// reporting 0 execs/s until its time runs out. A server must answer any
// input far sooner (issue #25 set 100 ms as the bar); the default leaves
// room for a loaded machine, LOCKREDIS_FUZZ_SLOW=100ms hunts on an idle
// one. Plain go test runs the seeds without it: no timing in unit tests.
func Start(input ...any) func() {
	if f := flag.Lookup("test.fuzzworker"); f == nil || f.Value.String() != "true" {
		return func() {}
	}
	limit := time.Second
	if d, err := time.ParseDuration(os.Getenv("LOCKREDIS_FUZZ_SLOW")); err == nil && d > 0 {
		limit = d
	}
	timer := time.AfterFunc(limit, func() {
		panic(fmt.Sprintf("fuzz input still running after %v: %#v", limit, input))
	})
	return func() { timer.Stop() }
}
