package main

import (
	"math"
	"os"
	"runtime/debug"
	"testing"
)

func TestGoMemoryLimit(t *testing.T) {
	for _, tc := range []struct {
		maxmemory, want int64
	}{
		{0, math.MaxInt64},
		{-1, math.MaxInt64},
		{1 << 20, 1<<20 + 1<<18 + memLimitBase},
		{1 << 30, 1<<30 + 1<<28 + memLimitBase},
		{math.MaxInt64, math.MaxInt64},
		{math.MaxInt64 - memLimitBase, math.MaxInt64},
	} {
		if got := goMemoryLimit(tc.maxmemory); got != tc.want {
			t.Errorf("goMemoryLimit(%d) = %d, want %d", tc.maxmemory, got, tc.want)
		}
	}
}

// TestMemLimitFollowsMaxmemory: the limit is set at start and on CONFIG
// SET maxmemory (its normalized value, bytes), lifted by maxmemory 0, and
// left alone when GOMEMLIMIT is in the environment.
func TestMemLimitFollowsMaxmemory(t *testing.T) {
	for _, tc := range []struct {
		name  string
		env   string
		start int64
		sets  [][2]string // CONFIG SET name value, in order
		want  []int64     // the limits set, in order
	}{
		{name: "start", start: 1 << 30, want: []int64{goMemoryLimit(1 << 30)}},
		{name: "no maxmemory", start: 0, want: []int64{math.MaxInt64}},
		{name: "config set", start: 0, sets: [][2]string{{"maxmemory", "104857600"}, {"loglevel", "debug"}, {"maxmemory", "0"}},
			want: []int64{math.MaxInt64, goMemoryLimit(100 << 20), math.MaxInt64}},
		{name: "GOMEMLIMIT wins", env: "1GiB", start: 1 << 20, sets: [][2]string{{"maxmemory", "2048"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []int64
			m := newMemLimit(tc.env, func(string, string, ...any) {})
			m.set = func(limit int64) int64 {
				if limit >= 0 {
					got = append(got, limit)
				}
				return 0
			}
			m.apply(tc.start)
			for _, s := range tc.sets {
				m.onConfigSet(s[0], s[1])
			}
			if len(got) != len(tc.want) {
				t.Fatalf("limits set %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("limits set %v, want %v", got, tc.want)
				}
			}
		})
	}
}

// TestMaxmemoryFlagSetsMemLimit: the binary started with --maxmemory has
// the Go memory limit it implies.
func TestMaxmemoryFlagSetsMemLimit(t *testing.T) {
	if v, ok := os.LookupEnv("GOMEMLIMIT"); ok {
		t.Skipf("GOMEMLIMIT=%s in the environment", v)
	}
	prev := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(prev) })
	if code, out := runOnce(t, "--maxmemory", "100mb"); code != 0 {
		t.Fatalf("exit %d, output:\n%s", code, out)
	}
	if got, want := debug.SetMemoryLimit(-1), goMemoryLimit(100<<20); got != want {
		t.Fatalf("Go memory limit %d, want %d", got, want)
	}
}
