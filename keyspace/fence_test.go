package keyspace

import (
	"testing"
	"time"
)

func TestParseRestartFence(t *testing.T) {
	for _, tc := range []struct {
		in    string
		mode  string
		fixed time.Duration
		bad   bool
	}{
		{"", "auto", 0, false},
		{"auto", "auto", 0, false},
		{"AUTO", "auto", 0, false},
		{"off", "off", 0, false},
		{"0", "off", 0, false},
		{"0s", "off", 0, false},
		{"30s", "fixed", 30 * time.Second, false},
		{"1m30s", "fixed", 90 * time.Second, false},
		{"-1s", "", 0, true},
		{"soon", "", 0, true},
	} {
		mode, fixed, err := parseRestartFence(tc.in)
		if mode != tc.mode || fixed != tc.fixed || (err != nil) != tc.bad {
			t.Errorf("%q: got (%q, %s, %v)", tc.in, mode, fixed, err)
		}
	}
}
