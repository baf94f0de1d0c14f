package compat

import (
	"math/rand"
	"strconv"
	"strings"
	"testing"
)

// Differential tests for the HyperLogLog commands: the bytes of the
// strings (GET), the estimates, the cached cardinality, the sparse to
// dense promotion, corrupt values, MULTI and EVAL, and seeded random adds.

// hllElems returns PFADD's arguments: n elements named prefix0...
func hllElems(prefix string, from, n int) string {
	var b strings.Builder
	for i := from; i < from+n; i++ {
		b.WriteString(" " + prefix + strconv.Itoa(i))
	}
	return b.String()
}

func TestDiffHyperLogLog(t *testing.T) {
	runDiffCases(t, []diffCase{
		{name: "pfadd-pfcount", steps: steps(
			"PFADD h", "GET h", "PFCOUNT h", "GET h", "PFADD h a b c", "PFADD h a", "GET h", "PFCOUNT h", "GET h",
			"PFADD h d", "PFCOUNT h", "PFADD h ''", "PFCOUNT h", "PFCOUNT nokey", "PFCOUNT nokey h",
			"PFADD", "PFCOUNT", "OBJECT ENCODING h", "TYPE h", "STRLEN h", "PFADD h"+hllElems("x", 0, 200),
			"GET h", "PFCOUNT h", "PFDEBUG ENCODING h", "PFDEBUG DECODE h", "EXISTS nokey", "PFCOUNT nokey", "EXISTS nokey",
		)},
		{name: "promotion", steps: steps(
			"PFADD h"+hllElems("e", 0, 600), "PFDEBUG ENCODING h", "STRLEN h", "PFCOUNT h",
			"PFADD h"+hllElems("e", 600, 600), "PFDEBUG ENCODING h", "STRLEN h", "PFCOUNT h", "GET h",
			"PFADD h"+hllElems("e", 1200, 3000), "PFDEBUG ENCODING h", "PFCOUNT h", "GET h",
			"PFADD big"+hllElems("z", 0, 20000), "PFCOUNT big", "PFDEBUG ENCODING big",
		)},
		{name: "pfcount-multi", steps: steps(
			"PFADD a"+hllElems("x", 0, 100), "PFADD b"+hllElems("x", 50, 100), "PFADD c"+hllElems("y", 0, 3000),
			"PFCOUNT a b", "PFCOUNT a b c", "PFCOUNT a nokey", "PFCOUNT nokey1 nokey2", "GET a", "GET b",
			"SET s foo", "PFCOUNT a s", "LPUSH l x", "PFCOUNT a l", "PFCOUNT l", "PFCOUNT s",
		)},
		{name: "pfmerge", steps: steps(
			"PFADD a"+hllElems("x", 0, 100), "PFADD b"+hllElems("x", 50, 100), "PFADD c"+hllElems("y", 0, 3000),
			"PFMERGE d a b", "GET d", "PFCOUNT d", "PFMERGE d", "GET d", "PFMERGE e", "GET e", "PFCOUNT e",
			"PFMERGE a b", "GET a", "PFMERGE f a c", "PFDEBUG ENCODING f", "GET f", "PFCOUNT f",
			"PFMERGE g nokey", "GET g", "PFMERGE d c", "PFDEBUG ENCODING d", "PFCOUNT d",
			"SET s foo", "PFMERGE s a", "PFMERGE d s", "LPUSH l x", "PFMERGE d l", "PFMERGE l d", "PFMERGE",
			"PFMERGE h"+hllElems("k", 0, 50), "GET h",
		)},
		{name: "pfdebug", steps: steps(
			"PFADD h a b c", "PFDEBUG ENCODING h", "PFDEBUG DECODE h", "PFDEBUG decode h", "PFDEBUG FOO h",
			"PFDEBUG GETREG nokey", "PFDEBUG FOO nokey", "PFDEBUG TODENSE h", "PFDEBUG TODENSE h", "PFDEBUG ENCODING h",
			"PFDEBUG DECODE h", "GET h", "PFCOUNT h", "PFADD g x", "PFDEBUG GETREG g", "PFDEBUG ENCODING g",
			"SET s foo", "PFDEBUG ENCODING s", "PFDEBUG GETREG", "PFDEBUG GETREG h x", "PFSELFTEST", "PFSELFTEST x",
		)},
		{name: "corrupt", steps: steps(
			"SET s 'HYLL'", "PFADD s a", "PFCOUNT s", "SET s 'HYLX\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x7f\xff'", "PFADD s a",
			"SET s 'HYLL\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x7f\xff'", "PFADD s a",
			"SET s 'HYLL\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x7f\xff'", "PFADD s a", "PFCOUNT s",
			"SET s 'HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x7f\xfe'", "PFCOUNT s", "PFADD s a", "PFADD s x y z",
			"PFDEBUG GETREG s", "PFDEBUG DECODE s", "PFMERGE d s", "PFCOUNT s s",
			"SET s 'HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x7f\xff\x80'", "PFCOUNT s", "PFADD s a b c", "GET s",
			"SET s 'HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x7f\xff'", "PFCOUNT s",
			"SET s 'HYLL\x01\x00\x00\x00\x05\x00\x00\x00\x00\x00\x00\x00\x7f\xff'", "PFCOUNT s", "PFADD s a", "PFCOUNT s",
		)},
		{name: "set-roundtrip-and-ttl", steps: steps(
			"PFADD h"+hllElems("r", 0, 300), "PFCOUNT h", "EXPIRE h 100", "PFADD h zz", "TTL h", "PFCOUNT h", "TTL h",
			"PFMERGE h h", "TTL h", "PFDEBUG TODENSE h", "TTL h", "GET h",
		)},
		{name: "hll-multi-eval", steps: steps(
			"MULTI", "PFADD h a b", "PFCOUNT h", "PFADD h c", "PFMERGE d h", "PFCOUNT d h", "GET d", "EXEC",
			"MULTI", "PFADD", "EXEC",
			"EVAL \"return redis.call('PFADD', KEYS[1], 'x', 'y')\" 1 h",
			"EVAL \"return redis.call('PFCOUNT', KEYS[1])\" 1 h",
			"EVAL \"return redis.call('PFMERGE', KEYS[1], KEYS[2])\" 2 {h}d h",
			"EVAL \"return redis.pcall('PFADD', KEYS[1], 'x')\" 1 s",
			"SET s foo", "EVAL \"return redis.pcall('PFADD', KEYS[1], 'x')\" 1 s",
			"EVAL \"return redis.call('PFCOUNT', KEYS[1])\" 1 s",
			"EVAL_RO \"return redis.call('PFCOUNT', KEYS[1])\" 1 h",
			"EVAL_RO \"return redis.call('PFADD', KEYS[1], 'q')\" 1 h",
		)},
	})
}

// TestDiffHyperLogLogRandom adds thousands of random elements, in random
// batches, to a few keys and compares the strings byte for byte and the
// estimates after every batch, through the sparse encoding, the promotion
// and the dense one, with merges between the keys.
func TestDiffHyperLogLogRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(11242026))
	var cases []diffCase
	for c := 0; c < 4; c++ {
		var st []any
		for batch := 0; batch < 80; batch++ {
			key := "h" + strconv.Itoa(rng.Intn(3))
			cmd := []string{"PFADD", key}
			for n := 1 + rng.Intn(200); n > 0; n-- {
				e := make([]byte, 1+rng.Intn(12))
				for i := range e {
					e[i] = byte(rng.Intn(256))
				}
				cmd = append(cmd, string(e))
			}
			st = append(st, cmd, "GET "+key, "PFCOUNT "+key, "PFDEBUG ENCODING "+key)
			if batch%10 == 9 {
				st = append(st, "PFCOUNT h0 h1 h2", "PFMERGE m h0 h1", "GET m", "PFCOUNT m")
			}
		}
		cases = append(cases, diffCase{name: "random" + strconv.Itoa(c), steps: steps(st...)})
	}
	runDiffCases(t, cases)
}
