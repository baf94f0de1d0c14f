package compat

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The checkers of the fault tests catch what they must: each is fed
// valid histories (no finding) and crafted bad ones (the finding named).
// They need no server.

// ms is a time in the crafted histories, in nanoseconds.
func ms(n int64) int64 { return n * int64(time.Millisecond) }

func incr(client int, start, end int64, res outcome, value string) op {
	return op{client: client, f: "incr", key: "counter", start: ms(start), end: ms(end), result: res, value: value}
}

func TestCheckCounter(t *testing.T) {
	for _, tc := range []struct {
		name  string
		ops   []op
		final int64
		want  string // a part of the finding; "" = valid
	}{
		{"valid", []op{incr(0, 0, 10, opOK, "1"), incr(1, 5, 20, opOK, "2"), incr(0, 30, 40, opOK, "3")}, 3, ""},
		{"concurrent in either order", []op{incr(0, 0, 10, opOK, "2"), incr(1, 5, 20, opOK, "1")}, 2, ""},
		{"indeterminate applied", []op{incr(0, 0, 10, opOK, "1"), incr(1, 5, 20, opInfo, "")}, 2, ""},
		{"indeterminate not applied", []op{incr(0, 0, 10, opOK, "1"), incr(1, 5, 20, opInfo, "")}, 1, ""},
		{"failed ones do not count", []op{incr(0, 0, 10, opOK, "1"), incr(1, 5, 20, opFail, "")}, 1, ""},
		{"lost write", []op{incr(0, 0, 10, opOK, "1"), incr(1, 20, 30, opOK, "2")}, 1, "lost acknowledged writes"},
		{"from nowhere", []op{incr(0, 0, 10, opOK, "1"), incr(1, 5, 20, opFail, "")}, 2, "writes from nowhere"},
		{"same number twice", []op{incr(0, 0, 10, opOK, "1"), incr(1, 5, 20, opOK, "1"), incr(1, 25, 30, opInfo, "")}, 2, "two acknowledged INCRs answered 1"},
		{"answer beyond final", []op{incr(0, 0, 10, opOK, "1"), incr(1, 5, 20, opOK, "3"), incr(1, 25, 30, opInfo, "")}, 2, "outside [1, final 2]"},
		{"real-time order", []op{incr(0, 0, 10, opOK, "2"), incr(1, 15, 20, opOK, "1")}, 2, "not linearizable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			expectFinding(t, checkCounter(tc.ops, tc.final), tc.want)
		})
	}
}

func grant(client int, key string, start, end int64, token, owner string) op {
	return op{client: client, f: "acquire", key: key, arg: owner, start: ms(start), end: ms(end), result: opOK, value: token}
}

func cs(client int, key string, start, end int64, token string) op {
	return op{client: client, f: "cs", key: key, start: ms(start), end: ms(end), result: opOK, value: token}
}

func TestCheckLocks(t *testing.T) {
	for _, tc := range []struct {
		name string
		ops  []op
		want string
	}{
		{"valid hand-over", []op{
			grant(0, "L", 0, 5, "10", "a"), cs(0, "L", 5, 50, "10"),
			grant(1, "L", 10, 60, "11", "b"), cs(1, "L", 60, 90, "11"),
		}, ""},
		{"two locks may overlap", []op{
			grant(0, "L1", 0, 5, "10", "a"), cs(0, "L1", 5, 50, "10"),
			grant(1, "L2", 0, 5, "11", "b"), cs(1, "L2", 5, 50, "11"),
		}, ""},
		{"a refused acquire is no grant", []op{
			grant(0, "L", 0, 5, "10", "a"),
			{client: 1, f: "acquire", key: "L", arg: "b", start: ms(6), end: ms(8), result: opOK, isNil: true},
			{client: 1, f: "acquire", key: "L", arg: "c", start: ms(6), end: ms(9), result: opInfo, err: "i/o timeout"},
			grant(1, "L", 20, 25, "12", "d"),
		}, ""},
		{"overlapping holders", []op{
			grant(0, "L", 0, 5, "10", "a"), cs(0, "L", 5, 50, "10"),
			grant(1, "L", 10, 20, "11", "b"), cs(1, "L", 20, 30, "11"),
		}, "mutual exclusion violated on L"},
		{"overlap with an earlier, longer section", []op{
			grant(0, "L", 0, 5, "10", "a"), cs(0, "L", 5, 100, "10"),
			grant(1, "L", 110, 115, "11", "b"), cs(1, "L", 115, 120, "11"),
			grant(2, "L", 6, 8, "12", "c"), cs(2, "L", 90, 95, "12"),
		}, "mutual exclusion violated on L"},
		{"token went down", []op{
			grant(0, "L", 0, 5, "10", "a"), cs(0, "L", 5, 50, "10"),
			grant(1, "L", 60, 70, "9", "b"), cs(1, "L", 70, 90, "9"),
		}, "not increasing in grant order: 9 granted after 10"},
		{"token repeated", []op{
			grant(0, "L", 0, 5, "10", "a"),
			grant(1, "L", 60, 70, "10", "b"),
		}, "not increasing"},
		{"same token, two owners, concurrently", []op{
			grant(0, "L", 0, 50, "10", "a"),
			grant(1, "L", 10, 70, "10", "b"),
		}, "granted to two owners"},
		{"lost while valid", []op{
			grant(0, "L", 0, 5, "10", "a"),
			{client: 0, f: "lost", key: "L", start: ms(6), end: ms(7), result: opOK, err: "owner is b"},
		}, "lock L lost while its holder's validity ran"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			expectFinding(t, checkLocks(tc.ops), tc.want)
		})
	}
}

func reg(client int, f, key, arg, arg2 string, start, end int64, res outcome, value string) op {
	return op{client: client, f: f, key: key, arg: arg, arg2: arg2, start: ms(start), end: ms(end), result: res, value: value, isNil: f == "get" && value == "" && res == opOK}
}

func TestCheckRegister(t *testing.T) {
	for _, tc := range []struct {
		name string
		ops  []op
		want string
	}{
		{"valid", []op{
			reg(0, "get", "r", "", "", 0, 5, opOK, ""),
			reg(0, "set", "r", "a", "", 10, 20, opOK, ""),
			reg(1, "get", "r", "", "", 15, 25, opOK, "a"),
			reg(1, "cas", "r", "a", "b", 30, 40, opOK, "1"),
			reg(0, "cas", "r", "a", "c", 45, 50, opOK, "0"),
			reg(0, "get", "r", "", "", 55, 60, opOK, "b"),
		}, ""},
		{"concurrent read sees the old value", []op{
			reg(0, "set", "r", "a", "", 0, 5, opOK, ""),
			reg(0, "set", "r", "b", "", 10, 30, opOK, ""),
			reg(1, "get", "r", "", "", 12, 20, opOK, "a"),
		}, ""},
		{"indeterminate write seen later", []op{
			reg(0, "set", "r", "a", "", 0, 5, opInfo, ""),
			reg(1, "get", "r", "", "", 100, 110, opOK, "a"),
		}, ""},
		{"indeterminate write never seen", []op{
			reg(0, "set", "r", "a", "", 0, 5, opInfo, ""),
			reg(1, "get", "r", "", "", 100, 110, opOK, ""),
		}, ""},
		{"indeterminate cas applied", []op{
			reg(0, "set", "r", "a", "", 0, 5, opOK, ""),
			reg(0, "cas", "r", "a", "b", 10, 15, opInfo, ""),
			reg(1, "get", "r", "", "", 100, 110, opOK, "b"),
		}, ""},
		{"failed write ignored", []op{
			reg(0, "set", "r", "a", "", 0, 5, opFail, ""),
			reg(1, "get", "r", "", "", 100, 110, opOK, ""),
		}, ""},
		{"stale read", []op{
			reg(0, "set", "r", "a", "", 0, 5, opOK, ""),
			reg(0, "set", "r", "b", "", 10, 20, opOK, ""),
			reg(1, "get", "r", "", "", 30, 40, opOK, "a"),
		}, "not linearizable"},
		{"lost acknowledged write", []op{
			reg(0, "set", "r", "a", "", 0, 5, opOK, ""),
			reg(1, "get", "r", "", "", 30, 40, opOK, ""),
		}, "not linearizable"},
		{"cas answered wrongly", []op{
			reg(0, "set", "r", "a", "", 0, 5, opOK, ""),
			reg(1, "cas", "r", "a", "b", 10, 20, opOK, "0"),
		}, "not linearizable"},
		{"one bad key among good ones", []op{
			reg(0, "set", "r1", "a", "", 0, 5, opOK, ""),
			reg(0, "get", "r1", "", "", 10, 15, opOK, "a"),
			reg(0, "set", "r2", "x", "", 0, 5, opOK, ""),
			reg(1, "get", "r2", "", "", 10, 15, opOK, "y"),
		}, "not linearizable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			findings := checkRegister(tc.ops, time.Minute)
			expectFinding(t, findings, tc.want)
			// A violation names the visualization it wrote.
			for _, f := range findings {
				if m := regexp.MustCompile(`visualization: (\S+)`).FindStringSubmatch(f); m != nil {
					if _, err := os.Stat(m[1]); err != nil {
						t.Errorf("visualization %s: %v", m[1], err)
					}
					os.Remove(m[1])
				} else if tc.want != "" {
					t.Errorf("no visualization named in %q", f)
				}
			}
		})
	}
}

// expectFinding checks that findings is empty when want is "", or that
// one of them contains want.
func expectFinding(t *testing.T, findings []string, want string) {
	t.Helper()
	if want == "" {
		for _, f := range findings {
			t.Errorf("unexpected finding: %s", f)
		}
		return
	}
	for _, f := range findings {
		if strings.Contains(f, want) {
			return
		}
	}
	t.Errorf("no finding contains %q; findings: %q", want, findings)
}
