package compat

import (
	"math/rand"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestDiffRandom sends the same long random sequence of string, key and
// expiry commands to both servers and expects no differing reply. The
// sequence plays over a handful of keys with values chosen to hit the edge
// cases (integers at the limits, floats, bad numbers, huge and past expiry
// times, bad options).
//
// The default seeds are fixed so CI is repeatable. DIFF_SEED=N replays one
// seed; DIFF_SEED=random picks one from the clock (printed on failure).
//
// Valid TTLs are long and never close to one another (see slotSeconds): a
// key that expires between the two servers' turns, or two deadlines set a
// millisecond apart, would differ by timing, not by behaviour. Keys do
// expire at once when given a past time (SET ... EXAT 1 stores one, as
// Redis does). Both servers run without active expiry (newLazyExpiryPair),
// so such a key stays counted by DBSIZE until a command meets it, and
// DBSIZE is compared like any reply.
func TestDiffRandom(t *testing.T) {
	seeds := diffSeeds(t, 1, 2, 3)
	const length = 3000
	runSeeds(t, newLazyExpiryPair(t), seeds, length, func(t *testing.T, p *diffPair, proto int, seed int64) []stepDiff {
		return runSteps(t, p, proto, randomSteps(seed, length))
	})
}

// diffSeeds are a random test's seeds: defaults, fixed so CI is
// repeatable, or the one DIFF_SEED=N names, or DIFF_SEED=random's, taken
// from the clock (printed on failure).
func diffSeeds(t *testing.T, defaults ...int64) []int64 {
	switch s := os.Getenv("DIFF_SEED"); s {
	case "":
		return defaults
	case "random":
		return []int64{time.Now().UnixNano()}
	default:
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("DIFF_SEED=%q: want an integer or \"random\"", s)
		}
		return []int64{n}
	}
}

// runSeeds runs a random test for every seed, in RESP2 and in RESP3, on p
// reset before each run; run plays the length steps of a seed and returns
// those whose replies differ.
func runSeeds(t *testing.T, p *diffPair, seeds []int64, length int, run func(t *testing.T, p *diffPair, proto int, seed int64) []stepDiff) {
	t.Helper()
	for _, seed := range seeds {
		t.Run("seed="+strconv.FormatInt(seed, 10), func(t *testing.T) {
			forEachProto(t, func(t *testing.T, proto int) {
				p.reset(t)
				if diffs := run(t, p, proto, seed); len(diffs) > 0 {
					reportDiffs(t, diffs)
					t.Errorf("%d of %d random steps differ (later ones may only follow from the first); replay with DIFF_SEED=%d", len(diffs), length, seed)
				}
			})
		})
	}
}

// gen draws random commands.
type gen struct {
	r     *rand.Rand
	now   time.Time
	slots []int // a permutation: expiry slot numbers in draw order
	next  int
}

func (g *gen) pick(xs ...string) string { return xs[g.r.Intn(len(xs))] }

// word randomises the case of an option keyword.
func (g *gen) word(w string) string {
	switch g.r.Intn(3) {
	case 0:
		return strings.ToLower(w)
	case 1:
		return w
	}
	b := []byte(strings.ToLower(w))
	b[0] -= 'a' - 'A'
	return string(b)
}

func (g *gen) key() string { return g.pick("a", "b", "c", "n", "f", "a") }

func (g *gen) value() string {
	return g.pick("v", "", "0", "10", "-3", "3.5", "1e3", "abc", "9223372036854775807",
		"-9223372036854775808", " 5", "+5", "05", "inf", "hello world", "100", "-0", "0.1", "9223372036854775806")
}

func (g *gen) integer() string {
	return g.pick("0", "1", "-1", "5", "100", "-100", "abc", "1.5", "9223372036854775807",
		"-9223372036854775808", " 1", "2", "7")
}

func (g *gen) float() string {
	return g.pick("1.5", "-0.1", "1e3", "abc", "inf", "0", "3.0000000000000001", "5.", "-2", "1e308", ".5",
		"0x10", "1e-400", "-inf", "1.5e3")
}

// Valid expiry times come from unique slots, 60 s apart and drawn in
// random order, so that no two draws are close: "SET k v EX 100" followed
// by "EXPIRE k 100 GT" would compare two deadlines one command apart, and
// the answer would depend on whether both commands ran within the same
// millisecond. Absolute times are slots counted from the generation time,
// which is at most seconds before the commands run.
func (g *gen) slotSeconds() int64 {
	s := g.slots[g.next%len(g.slots)]
	g.next++
	return 100 + 60*int64(s)
}

// ttlS and ttlMs are relative times: valid and long, or zero, negative,
// invalid, out of range.
func (g *gen) ttlS() string {
	if g.r.Intn(2) == 0 {
		return strconv.FormatInt(g.slotSeconds(), 10)
	}
	return g.pick("0", "-1", "abc", "9223372036854775807", "9223372036854775", "1.5")
}

func (g *gen) ttlMs() string {
	if g.r.Intn(2) == 0 {
		return strconv.FormatInt(g.slotSeconds()*1000+3, 10)
	}
	return g.pick("0", "-5", "abc", "9223372036854775807", "1.5")
}

// atS and atMs are absolute times: future, past, zero, huge.
func (g *gen) atS() string {
	if g.r.Intn(2) == 0 {
		return strconv.FormatInt(g.now.Unix()+g.slotSeconds(), 10)
	}
	return g.pick("1", "0", "-1", strconv.FormatInt(g.now.Unix()-10, 10), "9223372036854775807", "abc")
}

func (g *gen) atMs() string {
	if g.r.Intn(2) == 0 {
		return strconv.FormatInt(g.now.UnixMilli()+g.slotSeconds()*1000+1, 10)
	}
	return g.pick("1", "0", "-1", strconv.FormatInt(g.now.UnixMilli()-10, 10), "9223372036854775807", "abc")
}

func (g *gen) offset() string { return g.pick("0", "1", "-1", "3", "-100", "100", "abc", "2") }

// setOptions returns up to three SET options, valid or not.
func (g *gen) setOptions(getex bool) []string {
	var out []string
	for n := g.r.Intn(4); n > 0; n-- {
		var opts []func() []string
		opts = append(opts,
			func() []string { return []string{g.word("EX"), g.ttlS()} },
			func() []string { return []string{g.word("PX"), g.ttlMs()} },
			func() []string { return []string{g.word("EXAT"), g.atS()} },
			func() []string { return []string{g.word("PXAT"), g.atMs()} },
			func() []string { return []string{g.pick("FOO", "EX")} },
		)
		if getex {
			opts = append(opts, func() []string { return []string{g.word("PERSIST")} })
		} else {
			opts = append(opts,
				func() []string { return []string{g.word("NX")} },
				func() []string { return []string{g.word("XX")} },
				func() []string { return []string{g.word("GET")} },
				func() []string { return []string{g.word("KEEPTTL")} },
			)
		}
		out = append(out, opts[g.r.Intn(len(opts))]()...)
	}
	return out
}

func (g *gen) expireOption() []string {
	switch g.r.Intn(8) {
	case 0:
		return []string{g.word("NX")}
	case 1:
		return []string{g.word("XX")}
	case 2:
		return []string{g.word("GT")}
	case 3:
		return []string{g.word("LT")}
	case 4:
		return []string{g.word("NX"), g.word("GT")}
	case 5:
		return []string{"BAD"}
	}
	return nil
}

// step draws one command and how to compare it.
func (g *gen) step() diffStep {
	c := func(a ...string) diffStep { return diffStep{args: a} }
	w := func(tol int64, a ...string) diffStep { return diffStep{args: a, mode: modeWithin, tol: tol} }
	switch g.r.Intn(41) {
	case 0, 1, 2:
		return c(append([]string{"SET", g.key(), g.value()}, g.setOptions(false)...)...)
	case 3, 4:
		return c("GET", g.key())
	case 5:
		return c("SETNX", g.key(), g.value())
	case 6:
		return c("SETEX", g.key(), g.ttlS(), g.value())
	case 7:
		return c("PSETEX", g.key(), g.ttlMs(), g.value())
	case 8:
		return c("GETSET", g.key(), g.value())
	case 9:
		return c("GETDEL", g.key())
	case 10:
		return c(append([]string{"GETEX", g.key()}, g.setOptions(true)...)...)
	case 11:
		return c("MGET", g.key(), g.key(), g.key())
	case 12:
		return c("MSET", g.key(), g.value(), g.key(), g.value())
	case 13:
		return c("MSETNX", g.key(), g.value(), g.key(), g.value())
	case 14:
		return c("APPEND", g.key(), g.pick("x", "", "12", "-"))
	case 15:
		return c("STRLEN", g.key())
	case 16, 17:
		return c(g.pick("INCR", "DECR"), g.key())
	case 18, 19:
		return c(g.pick("INCRBY", "DECRBY"), g.key(), g.integer())
	case 20:
		return c("INCRBYFLOAT", g.key(), g.float())
	case 21:
		return c("GETRANGE", g.key(), g.offset(), g.offset())
	case 22:
		return c("SETRANGE", g.key(), g.pick("0", "1", "3", "10", "-1", "abc", "536870912"), g.pick("x", "", "yz"))
	case 23:
		return c("DEL", g.key(), g.key())
	case 24:
		return c(g.pick("EXISTS", "UNLINK", "TOUCH"), g.key(), g.key())
	case 25:
		return c("TYPE", g.key())
	case 26:
		return diffStep{args: []string{"KEYS", g.pick("*", "?", "[ab]", "[^a]*", "n*")}, mode: modeUnordered}
	case 27:
		return diffStep{args: []string{"SCAN", "0", "COUNT", "1000", "MATCH", g.pick("*", "a", "[a-c]")}, mode: modeUnordered}
	case 28:
		return c(g.pick("RENAME", "RENAMENX"), g.key(), g.key())
	case 29, 30:
		return c(append([]string{g.pick("EXPIRE"), g.key(), g.ttlS()}, g.expireOption()...)...)
	case 31:
		return c(append([]string{"PEXPIRE", g.key(), g.ttlMs()}, g.expireOption()...)...)
	case 32:
		return c(append([]string{"EXPIREAT", g.key(), g.atS()}, g.expireOption()...)...)
	case 33:
		return c(append([]string{"PEXPIREAT", g.key(), g.atMs()}, g.expireOption()...)...)
	case 34, 35:
		return w(tolS, "TTL", g.key())
	case 36:
		return w(tolMs, "PTTL", g.key())
	case 37:
		return w(tolS, "EXPIRETIME", g.key())
	case 38:
		return w(tolMs, "PEXPIRETIME", g.key())
	case 39:
		return c("DBSIZE")
	}
	return c("PERSIST", g.key())
}

func randomSteps(seed int64, n int) []diffStep {
	r := rand.New(rand.NewSource(seed))
	g := &gen{r: r, now: time.Now(), slots: r.Perm(4 * n)}
	out := make([]diffStep, n)
	for i := range out {
		out[i] = g.step()
	}
	return out
}
