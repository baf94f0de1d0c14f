package engine

import (
	"reflect"
	"testing"
)

// TestSplitArgs: sdssplitargs's words, quotes, escapes and failures.
func TestSplitArgs(t *testing.T) {
	for _, tc := range []struct {
		line string
		want []string // nil with ok false
		ok   bool
	}{
		{"", nil, true},
		{" \t\v\f ", nil, true},
		{"set k v", []string{"set", "k", "v"}, true},
		{"  a\v\fb  c ", []string{"a\v\fb", "c"}, true},
		{`"a b" 'c d'`, []string{"a b", "c d"}, true},
		{`"\x41\x4g\n\r\t\b\a\q\\\"" '\'x\"'`, []string{"Ax4g\n\r\t\b\aq\\\"", `'x\"`}, true},
		{`"x"` + "\v" + `y`, []string{"x", "y"}, true},
		{`ab"c d"`, []string{"abc d"}, true},
		{"a\x00b c", []string{"a"}, true}, // a C string: the NUL ends it
		{`"x"y`, nil, false},
		{`'x'y`, nil, false},
		{`"x`, nil, false},
		{`'x`, nil, false},
		{"\"x\x00\"", nil, false},
	} {
		got, ok := SplitArgs(tc.line)
		if ok != tc.ok || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("SplitArgs(%q) = %q %v, want %q %v", tc.line, got, ok, tc.want, tc.ok)
		}
	}
}
