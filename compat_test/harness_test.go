package compat

import (
	"bufio"
	"reflect"
	"strings"
	"testing"
)

// Tests of the harness itself: reply framing, comparison modes, step
// parsing. They need no server.

func TestReadReply(t *testing.T) {
	for _, tc := range []string{
		"+OK\r\n", "-ERR x\r\n", ":-5\r\n", "$-1\r\n", "$0\r\n\r\n", "$4\r\na\r\nb\r\n", "*-1\r\n", "*0\r\n",
		"*2\r\n$1\r\na\r\n*1\r\n:1\r\n", "_\r\n", ",1.5\r\n", "#t\r\n", "(123\r\n", "!3\r\nerr\r\n",
		"=7\r\ntxt:abc\r\n", "%1\r\n+k\r\n:1\r\n", "~1\r\n+a\r\n", ">2\r\n+message\r\n$1\r\nx\r\n",
		"|1\r\n+ttl\r\n:3\r\n+OK\r\n",
	} {
		r := bufio.NewReader(strings.NewReader(tc + "+NEXT\r\n"))
		got, err := readReply(r)
		if err != nil || string(got) != tc {
			t.Errorf("readReply(%q) = %q, %v", tc, got, err)
		}
		if next, _ := readReply(r); string(next) != "+NEXT\r\n" {
			t.Errorf("after %q the next reply is %q", tc, next)
		}
	}
	for _, bad := range []string{"", "+OK", "?x\r\n", "$5\r\nab\r\n", "*2\r\n+a\r\n"} {
		if got, err := readReply(bufio.NewReader(strings.NewReader(bad))); err == nil {
			t.Errorf("readReply(%q) = %q, want an error", bad, got)
		}
	}
}

func TestSameReply(t *testing.T) {
	for _, tc := range []struct {
		step diffStep
		a, b string
		same bool
	}{
		{diffStep{}, "+OK\r\n", "+OK\r\n", true},
		{diffStep{}, "+OK\r\n", "$2\r\nOK\r\n", false},
		{unordered("KEYS *"), "*2\r\n$1\r\na\r\n$1\r\nb\r\n", "*2\r\n$1\r\nb\r\n$1\r\na\r\n", true},
		{unordered("KEYS *"), "*2\r\n$1\r\na\r\n$1\r\nb\r\n", "*2\r\n$1\r\na\r\n$1\r\na\r\n", false},
		{unordered("SCAN 0"), "*2\r\n$1\r\n0\r\n*2\r\n$1\r\na\r\n$1\r\nb\r\n", "*2\r\n$1\r\n0\r\n*2\r\n$1\r\nb\r\n$1\r\na\r\n", true},
		{within(1, "TTL k"), ":100\r\n", ":99\r\n", true},
		{within(1, "TTL k"), ":100\r\n", ":98\r\n", false},
		{within(1, "TTL k"), ":-1\r\n", ":-2\r\n", false},
		{within(1, "TTL k"), ":0\r\n", ":-1\r\n", false},
		{within(1, "TTL k"), "-ERR a\r\n", "-ERR b\r\n", false},
		{kind("TIME"), "*2\r\n$1\r\n1\r\n$1\r\n2\r\n", "*2\r\n$1\r\n3\r\n$1\r\n4\r\n", true},
		{kind("TIME"), "*2\r\n$1\r\n1\r\n$1\r\n2\r\n", "-ERR\r\n", false},
		{shape("HELLO"), "*4\r\n$2\r\nid\r\n:5\r\n$1\r\nx\r\n*0\r\n", "*4\r\n$2\r\nid\r\n:7\r\n$1\r\nx\r\n*0\r\n", true},
		{shape("HELLO"), "*4\r\n$2\r\nid\r\n:5\r\n$1\r\nx\r\n*0\r\n", "*4\r\n$2\r\nid\r\n:5\r\n$1\r\ny\r\n*0\r\n", false},
		{errPrefix("X"), "-ERR one\r\n", "-ERR two\r\n", true},
		{errPrefix("X"), "-ERR one\r\n", "-WRONGTYPE one\r\n", false},
		{diffStep{}, "<connection closed>", "<connection closed>", true},
		{unordered("KEYS"), "<connection closed>", "*0\r\n", false},
	} {
		if got := sameReply(tc.step, tc.a, tc.b); got != tc.same {
			t.Errorf("%v mode %d: sameReply(%q, %q) = %v", tc.step, tc.step.mode, tc.a, tc.b, got)
		}
	}
}

func TestSplitCommand(t *testing.T) {
	for in, want := range map[string][]string{
		"SET k v":            {"SET", "k", "v"},
		"  GET   k  ":        {"GET", "k"},
		`SET k ""`:           {"SET", "k", ""},
		`SET k "a b" 'c d'`:  {"SET", "k", "a b", "c d"},
		`SET k a"b c"d`:      {"SET", "k", "ab cd"},
		`ECHO "it's"`:        {"ECHO", "it's"},
		"":                   nil,
		`KEYS a\*b`:          {"KEYS", `a\*b`},
		"SET k v EX 100 NX ": {"SET", "k", "v", "EX", "100", "NX"},
	} {
		if got := splitCommand(in); !reflect.DeepEqual(got, want) {
			t.Errorf("splitCommand(%q) = %q, want %q", in, got, want)
		}
	}
}
