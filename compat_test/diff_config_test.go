package compat

// CONFIG beside redis-server 7.0.15, over the whole configuration spec
// (package config): the spec's names and defaults are redis-server's;
// every parameter refuses a bad value with Redis's words; CONFIG SET of
// several parameters is all or nothing (Redis's introspection.tcl "CONFIG
// SET rollback on set error", "on apply error", "duplicate configs", "set
// immutable"); CONFIG GET takes several patterns and answers hidden
// parameters by exact name only ("CONFIG GET hidden configs", "multiple
// args").

import (
	"net"
	"strconv"
	"strings"
	"testing"

	"github.com/lockredis/lockredis/config"
)

// TestSpecIsRedis: the spec's parameters are redis-server's, by name and
// alias, with its defaults, and CONFIG GET * of redis-server lists no
// parameter the spec lacks. lockredis's own are the spec's Own ones.
func TestSpecIsRedis(t *testing.T) {
	c := dialRaw(t, startRedis(t))
	redis := map[string]string{}
	all := parseArray(t, c.do(t, "CONFIG", "GET", "*"))
	for i := 0; i+1 < len(all); i += 2 {
		redis[all[i]] = all[i+1]
	}
	// What startRedis and the machine set, and lockredis's chosen
	// differences (save: no snapshots).
	skip := map[string]bool{"port": true, "bind": true, "dir": true, "save": true, "appendonly": true}
	for i := range config.Params {
		p := &config.Params[i]
		for _, n := range p.Names() {
			v, listed := redis[n]
			delete(redis, n)
			switch {
			case p.Own || p.Directive:
				if listed {
					t.Errorf("%s: redis-server knows it; the spec says Own or Directive", n)
				}
				continue
			case p.Hidden:
				if listed {
					t.Errorf("%s: redis-server lists it in CONFIG GET *; the spec says Hidden", n)
				}
				if got := parseArray(t, c.do(t, "CONFIG", "GET", n)); len(got) != 2 || got[1] != p.Default {
					t.Errorf("hidden %s: redis-server has %q, the spec %q", n, got, p.Default)
				}
				continue
			case !listed:
				t.Errorf("%s: not a redis-server parameter", n)
			case !skip[n] && v != p.Default:
				t.Errorf("%s: redis-server's default %q, the spec's %q", n, v, p.Default)
			}
		}
	}
	for n := range redis {
		t.Errorf("redis-server's %s is not in the spec", n)
	}
}

// parseArray reads a RESP2 array of bulk strings.
func parseArray(t *testing.T, raw string) []string {
	t.Helper()
	n, ok := parseRaw(raw)
	if !ok {
		t.Fatalf("not RESP: %q", raw)
	}
	out := make([]string, len(n.elems))
	for i, e := range n.elems {
		out[i] = e.blob
	}
	return out
}

// redisParams are the spec's parameters redis-server knows and CONFIG SET
// may reach (not immutable, not protected), by every name.
func redisParams() []string {
	var out []string
	for i := range config.Params {
		p := &config.Params[i]
		if p.Own || p.Directive || p.Immutable || p.Protected {
			continue
		}
		out = append(out, p.Names()...)
	}
	return out
}

func TestDiffConfigSpec(t *testing.T) {
	var invalid, bounds, current, kept []any
	for _, name := range redisParams() {
		p, _ := config.Lookup(name)
		switch p.Kind {
		case config.String, config.Custom, config.Addresses, config.Duration:
		default:
			invalid = append(invalid, args("CONFIG", "SET", name, "not-a-value"))
		}
		if p.Kind == config.Int || p.Kind == config.Memory {
			if p.Min > -1<<62 {
				bounds = append(bounds, args("CONFIG", "SET", name, strconv.FormatInt(p.Min-1, 10)))
			}
			if p.Max < 1<<62 {
				bounds = append(bounds, args("CONFIG", "SET", name, strconv.FormatInt(p.Max+1, 10)))
			}
		}
		switch name {
		case "port", "bind":
			// each server has its own
		default:
			// Redis's "CONFIG sanity": a parameter set to the value it
			// has is accepted, and reads back the same.
			current = append(current, args("CONFIG", "SET", name, p.Default), args("CONFIG", "GET", name))
		}
		if p.Mode == config.Kept && !p.Hidden && !unsafeOnRedis[p.Name] {
			kept = append(kept, args("CONFIG", "SET", name, p.Sample()), args("CONFIG", "GET", name),
				args("CONFIG", "SET", name, p.Default))
		}
	}
	runDiffCases(t, []diffCase{
		{name: "invalid", steps: steps(invalid...)},
		{name: "bounds", steps: steps(bounds...)},
		{name: "current", steps: steps(current...)},
		{name: "kept", steps: steps(kept...)},
	})
}

// unsafeOnRedis are Kept parameters whose sample would change how the
// redis-server under test runs (its threads, its own process).
var unsafeOnRedis = map[string]bool{"oom-score-adj": true, "oom-score-adj-values": true}

func TestDiffConfigSetSeveral(t *testing.T) {
	// A port nobody can listen on while the test holds it, on every
	// address.
	held, err := net.Listen("tcp", ":0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	usedPort := strconv.Itoa(held.Addr().(*net.TCPAddr).Port)
	runDiffCases(t, []diffCase{
		// introspection.tcl "CONFIG SET with multiple args"
		{name: "several", steps: steps(
			`CONFIG SET maxmemory 10000001 repl-backlog-size 10000002 save "3000 5"`,
			"CONFIG GET maxmemory", "CONFIG GET repl-backlog-size", "CONFIG GET save",
			`CONFIG SET maxmemory 0 repl-backlog-size 1mb save ""`,
			"CONFIG GET repl-backlog-size",
		)},
		// "CONFIG SET rollback on set error": maxmemory-clients's 200% is
		// refused before anything changes
		{name: "rollback-on-set-error", steps: steps(
			"CONFIG SET maxmemory 10000002",
			"CONFIG SET maxmemory 10000001 maxmemory-clients 200% client-query-buffer-limit invalid",
			"CONFIG GET maxmemory", "CONFIG GET maxmemory-clients", "CONFIG GET client-query-buffer-limit",
			"CONFIG SET maxmemory 10000001 timeout 5 hz abc",
			"CONFIG GET maxmemory", "CONFIG GET timeout", "CONFIG GET hz",
			"CONFIG SET maxmemory 0",
		)},
		// "CONFIG SET rollback on apply error": the port is in use, so
		// its apply fails and maxmemory and the query buffer limit,
		// applied before it, go back
		{name: "rollback-on-apply-error", steps: steps(
			"CONFIG SET maxmemory 10000001 port "+usedPort+" client-query-buffer-limit 10m",
			"CONFIG GET maxmemory", "CONFIG GET client-query-buffer-limit",
			"CONFIG SET maxmemory 10000001 client-query-buffer-limit 10m port "+usedPort,
			"CONFIG GET maxmemory", "CONFIG GET client-query-buffer-limit",
			"PING",
			"CONFIG SET client-query-buffer-limit 10m",
			"CONFIG GET client-query-buffer-limit",
			"CONFIG SET client-query-buffer-limit 1gb",
		)},
		// "CONFIG SET duplicate configs", "CONFIG SET set immutable", and
		// the order of the checks: names first, then values
		{name: "refused-names", steps: steps(
			"CONFIG SET maxmemory 10000001 maxmemory 10000002",
			"CONFIG SET MAXMEMORY 1 maxmemory 2",
			"CONFIG SET daemonize yes",
			"CONFIG SET timeout 1 daemonize yes",
			"CONFIG SET timeout x daemonize yes",
			"CONFIG SET nosuch 1 daemonize yes",
			"CONFIG SET daemonize yes nosuch 1",
			"CONFIG SET timeout 1 nosuch 2",
			"CONFIG SET dir /tmp timeout 1",
			"CONFIG SET timeout 1 timeout",
			"CONFIG GET timeout",
		)},
		// a value's error names the parameter as Redis spells it; a
		// name and its alias are two parameters, set in order
		{name: "names-in-errors", steps: steps(
			"CONFIG SET TIMEOUT abc",
			"CONFIG SET Lua-Time-Limit abc",
			"CONFIG SET slave-read-only maybe",
			"CONFIG SET lua-time-limit 1 busy-reply-threshold 2",
			"CONFIG GET lua-time-limit", "CONFIG GET LUA-TIME-LIMIT",
			"CONFIG SET busy-reply-threshold 5000",
		)},
		// "CONFIG GET hidden configs", "CONFIG GET multiple args"
		{name: "get", steps: steps(
			"CONFIG GET key-load-delay",
			"CONFIG GET KEY-LOAD-DELAY",
			"CONFIG GET key-load*",
			unordered("CONFIG GET maxmemory maxmemory* timeout *of"),
			unordered("CONFIG GET *-max-ziplist-* *-max-listpack-*"),
			unordered("CONFIG GET save SAVE Save"),
			unordered("CONFIG GET lua-time-limit busy-reply-threshold"),
			"CONFIG GET no-such",
		)},
		// min-replicas on a master without replicas (replication-2.tcl
		// "With min-slaves-to-write: master not writable with lagged
		// slave"; scripts per script.c's two checks)
		{name: "min-replicas", steps: steps(
			"SET mr:k v",
			"CONFIG SET min-replicas-to-write 1",
			"SET mr:k w", "DEL mr:k", "GET mr:k", "PING",
			"MULTI", "SET mr:k w", "EXEC",
			args("EVAL", "return redis.call('set','mr:k','w')", "0"),
			args("EVAL", "return redis.pcall('set','mr:k','w')", "0"),
			args("EVAL", "return redis.call('get','mr:k')", "0"),
			args("EVAL", "#!lua\nreturn redis.call('get','mr:k')", "0"),
			args("EVAL", "#!lua flags=no-writes\nreturn redis.call('get','mr:k')", "0"),
			args("EVAL", "#!lua flags=no-writes\nreturn redis.call('set','mr:k','w')", "0"),
			args("FUNCTION", "LOAD", "REPLACE", "#!lua name=mrlib\nredis.register_function('mrw', function() return redis.call('set','mr:k','w') end)\nredis.register_function{function_name='mrr', callback=function() return redis.call('get','mr:k') end, flags={'no-writes'}}"),
			"FCALL mrw 0", "FCALL mrr 0", "FCALL_RO mrr 0",
			"CONFIG SET min-slaves-max-lag 0",
			"SET mr:k w",
			"CONFIG SET min-replicas-max-lag 10 min-replicas-to-write 0",
			"FUNCTION DELETE mrlib",
			"DEL mr:k",
		)},
		// sensitive values are hidden from the slow log, even past an
		// error
		{name: "redacted", steps: steps(
			"CONFIG SET slowlog-log-slower-than 0",
			"SLOWLOG RESET",
			"CONFIG SET masterauth secret nosuch 1",
			"CONFIG SET masteruser someone requirepass",
			masked("SLOWLOG GET 2"),
			"CONFIG SET slowlog-log-slower-than 10000",
			"SLOWLOG RESET",
		)},
	})
}

// TestConfigSetPortMovesListener: CONFIG SET port moves the server to the
// new port; the client that asked stays connected, new clients connect
// on the new port only; CONFIG SET bind does the same for addresses.
func TestConfigSetPortMovesListener(t *testing.T) {
	addr := startBinary(t)
	c := dialRaw(t, addr)
	newPort := strconv.Itoa(freePort(t))
	if got := c.do(t, "CONFIG", "SET", "port", newPort); got != "+OK\r\n" {
		t.Fatalf("CONFIG SET port: %q", got)
	}
	if got := c.do(t, "PING"); got != "+PONG\r\n" {
		t.Errorf("the client that moved the port: %q", got)
	}
	if got := c.do(t, "CONFIG", "GET", "port"); got != bulkGet("port", newPort) {
		t.Errorf("CONFIG GET port: %q", got)
	}
	if conn, err := net.Dial("tcp", addr); err == nil {
		conn.Close()
		t.Errorf("the old port %s still accepts", addr)
	}
	moved := dialRaw(t, net.JoinHostPort("127.0.0.1", newPort))
	if got := moved.do(t, "CONFIG", "SET", "bind", "127.0.0.2"); got != "+OK\r\n" {
		t.Fatalf("CONFIG SET bind: %q", got)
	}
	if got := moved.do(t, "CONFIG", "GET", "bind"); got != bulkGet("bind", "127.0.0.2") {
		t.Errorf("CONFIG GET bind: %q", got)
	}
	nc := dialRaw(t, net.JoinHostPort("127.0.0.2", newPort))
	if got := nc.do(t, "PING"); got != "+PONG\r\n" {
		t.Errorf("PING on the new address: %q", got)
	}
	if got := moved.do(t, "CONFIG", "SET", "bind", "203.0.113.7"); !strings.HasPrefix(got, "-ERR CONFIG SET failed (possibly related to argument 'bind') - Failed to bind to specified addresses.") {
		t.Errorf("CONFIG SET bind to an address the machine lacks: %q", got)
	}
	if got := nc.do(t, "PING"); got != "+PONG\r\n" {
		t.Errorf("after a failed move: %q", got)
	}
}
