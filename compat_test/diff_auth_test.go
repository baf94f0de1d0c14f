package compat

import "testing"

// TestDiffAuth compares a redis-server started with --requirepass and a
// lockredis with Options.Password. Each case starts unauthenticated in
// RESP2; its RESP3 run (forEachProto) starts with HELLO 3 AUTH, the only
// way to switch protocol before logging in.
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
			// shape: errors before AUTH, HELLO's map (with a client id)
			// in the RESP3 run, which starts authenticated.
			shape("HELLO"), shape("HELLO 2"), shape("HELLO 2 SETNAME x"), "HELLO 2 AUTH default wrong", "HELLO 2 AUTH bob s3cret",
			"PING", "HELLO 4 AUTH default s3cret", "PING", shape("HELLO 2 AUTH default s3cret"), "PING",
			shape("HELLO 2"),
		)},
		{name: "hello3-before-auth", steps: steps(
			shape("HELLO 3"), shape("HELLO 3 SETNAME x"), "HELLO 3 AUTH default wrong", "PING", "GET k",
			shape("HELLO 3 AUTH default s3cret"), "PING", "GET k", "SET k v", "HGETALL k", "RESET", "GET k",
			shape("HELLO 3"), "AUTH s3cret", shape("HELLO 3"), "GET k", "RESET", "PING",
		)},
		{name: "hello-auth-setname", steps: steps(
			shape("HELLO 2 AUTH default s3cret SETNAME me"), "CLIENT GETNAME",
		)},
		{name: "reset-deauthenticates", steps: steps("AUTH s3cret", "GET k", "RESET", "GET k", "AUTH s3cret", "GET k")},
		{name: "config-requirepass", steps: steps("AUTH s3cret", "CONFIG GET requirepass")},
		{name: "inline-before-auth", steps: steps(raw("PING\r\n"), raw("AUTH s3cret\r\n"), raw("PING\r\n"))},
	})
}
