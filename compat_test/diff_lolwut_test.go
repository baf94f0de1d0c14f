package compat

import "testing"

// LOLWUT: the version text and the arguments.
func TestDiffLolwut(t *testing.T) {
	runDiffCases(t, []diffCase{
		{name: "own version", steps: steps("LOLWUT", "lolwut 10 20 30", "LOLWUT VERSION 7",
			"LOLWUT VERSION 4", "LOLWUT VERSION 7 x y", "LOLWUT VERSION", "LOLWUT version -1",
			"LOLWUT VERSION 4294967297", "LOLWUT foo")},
		{name: "errors", steps: steps("LOLWUT VERSION x", "LOLWUT VERSION 5 x", "LOLWUT VERSION 5 1 x",
			"LOLWUT VERSION 5 1 2 x", "LOLWUT VERSION 6 x", "LOLWUT VERSION 6 1 x",
			"LOLWUT VERSION 4294967301 x", "LOLWUT VERSION 4294967302 1 x")},
		{name: "multi eval", steps: steps("MULTI", "LOLWUT", "LOLWUT VERSION 5 x", "EXEC",
			`EVAL "return redis.call('lolwut')" 0`, `EVAL "return redis.call('lolwut','version','6','x')" 0`)},
	})
}
