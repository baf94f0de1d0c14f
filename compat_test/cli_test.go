package compat

import (
	"bytes"
	"errors"
	"net"
	"os/exec"
	"strings"
	"testing"
)

// cliRun is one redis-cli invocation: arguments after "-p PORT" and what
// to feed on standard input.
type cliRun struct {
	name  string
	args  []string
	stdin string
	want  string // expected output against lockredis; "" checks only that it matches redis-server
}

// cliResult is what redis-cli printed and its exit status.
type cliResult struct {
	out  string
	code int
}

func runCLI(t *testing.T, bin, addr string, r cliRun) cliResult {
	t.Helper()
	host, port, _ := net.SplitHostPort(addr)
	cmd := exec.Command(bin, append([]string{"-h", host, "-p", port}, r.args...)...)
	cmd.Stdin = strings.NewReader(r.stdin)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("redis-cli %q: %v", r.args, err)
	}
	return cliResult{out: out.String(), code: code}
}

// TestRedisCLI runs redis-cli (from redis-tools) against the built binary
// and against redis-server: output and exit status must match, and the
// lock-relevant ones must print what a user expects. Runs share one pair
// of servers and go in order (the SET comes before the GET).
func TestRedisCLI(t *testing.T) {
	bin := requireTool(t, "redis-cli")
	redisAddr := startRedis(t)
	lockAddr := startBinary(t)
	runs := []cliRun{
		{name: "ping", args: []string{"ping"}, want: "PONG\n"},
		{name: "set-px-nx", args: []string{"set", "k", "v", "px", "10000", "nx"}, want: "OK\n"},
		{name: "set-px-nx-again", args: []string{"set", "k", "w", "px", "10000", "nx"}, want: "\n"},
		{name: "get", args: []string{"get", "k"}, want: "v\n"},
		{name: "get-missing", args: []string{"get", "nope"}, want: "\n"},
		{name: "no-raw-get", args: []string{"--no-raw", "get", "k"}, want: "\"v\"\n"},
		{name: "no-raw-nil", args: []string{"--no-raw", "get", "nope"}, want: "(nil)\n"},
		{name: "no-raw-integer", args: []string{"--no-raw", "exists", "k"}, want: "(integer) 1\n"},
		{name: "no-raw-error", args: []string{"--no-raw", "nosuchcommand", "a"},
			want: "(error) ERR unknown command 'nosuchcommand', with args beginning with: 'a' \n"},
		{name: "no-raw-wrong-arity", args: []string{"--no-raw", "get"}},
		{name: "raw-error", args: []string{"incr", "k"}},
		{name: "stdin-commands", stdin: "SET a 1\nINCR a\nGET a\nDEL a\n", want: "OK\n2\n2\n1\n"},
		{name: "stdin-quoted", stdin: "SET q \"x y\"\nGET q\n", want: "OK\nx y\n"},
		{name: "stdin-x", args: []string{"-x", "set", "fromstdin"}, stdin: "value"},
		{name: "stdin-x-get", args: []string{"get", "fromstdin"}},
		{name: "pttl", args: []string{"pttl", "nope"}, want: "-2\n"},
		{name: "mget", args: []string{"mget", "k", "nope"}, want: "v\n\n"},
		{name: "pipe", args: []string{"--pipe"},
			stdin: "*3\r\n$3\r\nSET\r\n$1\r\np\r\n$1\r\n1\r\n*2\r\n$4\r\nINCR\r\n$1\r\np\r\n"},
	}
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			want := runCLI(t, bin, redisAddr, r)
			got := runCLI(t, bin, lockAddr, r)
			if got != want {
				t.Errorf("redis-cli %q (stdin %q):\n\tredis:     %q exit %d\n\tlockredis: %q exit %d",
					r.args, r.stdin, want.out, want.code, got.out, got.code)
			}
			if r.want != "" && got.out != r.want {
				t.Errorf("redis-cli %q against lockredis printed %q, want %q", r.args, got.out, r.want)
			}
		})
	}
}

// TestInlineOverSocket sends inline (telnet-style) commands to the built
// binary over a raw socket.
func TestInlineOverSocket(t *testing.T) {
	addr := startBinary(t)
	c := dialRaw(t, addr)
	for _, tc := range []struct{ send, want string }{
		{"PING\r\n", "+PONG\r\n"},
		{"SET a \"b c\"\r\n", "+OK\r\n"},
		{"GET a\r\n", "$3\r\nb c\r\n"},
		{"EXISTS a a\n", ":2\r\n"},
	} {
		got, err := c.roundTrip([]byte(tc.send))
		if err != nil || string(got) != tc.want {
			t.Errorf("%q: got %q, %v; want %q", tc.send, got, err, tc.want)
		}
	}
}
