package compat

import "testing"

// TestDiffAuth compares a redis-server started with --requirepass and a
// lockredis with Options.Password. Each case starts unauthenticated.
func TestDiffAuth(t *testing.T) {
	p := newDiffPair(t, "s3cret")
	runDiffCasesOn(t, p, []diffCase{
		{name: "noauth", steps: steps(
			"PING", "GET k", "SET k v", "SELECT 1", "CLIENT SETNAME x", "CONFIG GET save", "NOSUCH",
			"GET", "ECHO", "QUIT",
		)},
		{name: "auth", steps: steps(
			"AUTH wrong", "PING", "AUTH s3cret", "PING", "SET k v", "GET k", "AUTH s3cret", "AUTH wrong", "PING",
		)},
		{name: "auth-user-forms", steps: steps(
			"AUTH default wrong", "AUTH bob s3cret", "AUTH DEFAULT s3cret", "PING", "AUTH default s3cret",
			"PING", "AUTH", "AUTH a b c",
		)},
		{name: "wrongpass-keeps-authenticated", steps: steps("AUTH s3cret", "AUTH nope", "GET k")},
		{name: "hello-before-auth", steps: steps(
			"HELLO", "HELLO 2", "HELLO 2 SETNAME x", "HELLO 2 AUTH default wrong", "HELLO 2 AUTH bob s3cret",
			"PING", "HELLO 4 AUTH default s3cret", "PING", shape("HELLO 2 AUTH default s3cret"), "PING",
			shape("HELLO 2"),
		)},
		{name: "hello-auth-setname", steps: steps(
			shape("HELLO 2 AUTH default s3cret SETNAME me"), "CLIENT GETNAME",
		)},
		{name: "reset-deauthenticates", steps: steps("AUTH s3cret", "GET k", "RESET", "GET k", "AUTH s3cret", "GET k")},
		{name: "config-requirepass", steps: steps("AUTH s3cret", "CONFIG GET requirepass")},
		{name: "inline-before-auth", steps: steps(raw("PING\r\n"), raw("AUTH s3cret\r\n"), raw("PING\r\n"))},
	})
}
