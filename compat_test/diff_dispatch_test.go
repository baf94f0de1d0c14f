package compat

import (
	"sort"
	"strings"
	"testing"

	"github.com/lockredis/lockredis"
	"github.com/lockredis/lockredis/engine"
	"github.com/lockredis/lockredis/resp"
)

// Every command passes one door, engine.Dispatch, whether it comes from a
// socket, from a script's redis.call or from the Go API (Server.Do). These
// tests send the same refusals each way and compare with redis-server's
// replies, then compare the statistics both servers kept of them.

// refusalCase is a command sequence ending in refusals. The sequence runs
// on one connection to redis-server and to lockredis, and on Server.Do of
// a fresh embedded lockredis (viaDo); the replies of every step must be
// redis-server's. Refusals a script meets are EVAL steps: they go through
// redis.call.
type refusalCase struct {
	name     string
	password string
	steps    []string
	viaDo    bool // Server.Do can meet this refusal (it cannot subscribe)
}

var refusalCases = []refusalCase{
	{name: "unknown command", viaDo: true, steps: []string{
		"NOSUCH a b",
		`EVAL "return redis.pcall('nosuch', 'a')" 0`,
		`EVAL "return redis.call('nosuch', 'a')" 0`,
	}},
	{name: "unknown subcommand", viaDo: true, steps: []string{
		"CLIENT NOSUCH",
		`EVAL "return redis.pcall('client', 'nosuch')" 0`,
	}},
	{name: "wrong arity", viaDo: true, steps: []string{
		"GET",
		"OBJECT ENCODING",
		`EVAL "return redis.pcall('get')" 0`,
		`EVAL "return redis.pcall('object', 'encoding')" 0`,
		`EVAL "return redis.call('get')" 0`,
	}},
	{name: "NOAUTH", password: "s3cret", viaDo: true, steps: []string{
		"RESET", // Server.Do's client starts authenticated: RESET logs it out
		"GET k",
		`EVAL "return 1" 0`,
		"MULTI",
		"AUTH s3cret",
		"GET k",
	}},
	{name: "write in a read-only script", viaDo: true, steps: []string{
		`EVAL_RO "return redis.call('set', KEYS[1], 'v')" 1 k`,
		`EVAL_RO "return redis.pcall('set', KEYS[1], 'v')" 1 k`,
		`EVAL_RO "return redis.pcall('publish', 'ch', 'm')" 0`,
		"#!lua flags=no-writes\nreturn redis.pcall('del', KEYS[1])",
		"EXISTS k",
	}},
	{name: "noscript command in a script", viaDo: true, steps: []string{
		`EVAL "return redis.pcall('multi')" 0`,
		`EVAL "return redis.call('subscribe', 'ch')" 0`,
		`EVAL "return redis.pcall('eval', 'return 1', '0')" 0`,
	}},
	{name: "subscribed RESP2 context", steps: []string{
		"SUBSCRIBE ch",
		"GET k",
		"PING",
		"UNSUBSCRIBE ch",
		"GET k",
	}},
	{name: "MULTI queues and EXECABORT", viaDo: true, steps: []string{
		"MULTI",
		"SET a 1",
		"GET",
		"INCR a",
		"EXEC",
		"GET a",
	}},
	{name: "a refused EXEC discards", viaDo: true, steps: []string{
		"MULTI",
		"SET a 1",
		"EXEC x",
		"EXEC",
		"GET a",
	}},
	{name: "no_multi command inside MULTI", viaDo: true, steps: []string{
		"MULTI",
		"SAVE",
		"EXEC",
	}},
	{name: "MULTI runs at EXEC", viaDo: true, steps: []string{
		"MULTI",
		"SET a 1",
		"INCR a",
		"HSET a f v",
		"WATCH a",
		"EXEC",
		"DISCARD",
	}},
}

// script steps are written with a shebang line instead of EVAL when they
// hold a newline: splitCommand cannot carry one.
func refusalArgs(step string) []string {
	if strings.HasPrefix(step, "#!") {
		return []string{"EVAL", step, "1", "k"}
	}
	return splitCommand(step)
}

func TestDispatchRefusalsEachWay(t *testing.T) {
	for _, tc := range refusalCases {
		t.Run(tc.name, func(t *testing.T) {
			p := newDiffPair(t, tc.password)
			forEachProto(t, func(t *testing.T, proto int) {
				redis := newStepConn(t, p.redisAddr, proto, tc.password)
				lock := newStepConn(t, p.lockAddr, proto, tc.password)
				// Server.Do's client speaks RESP2: compare it there.
				var do *lockredis.Server
				if tc.viaDo && proto == 2 {
					do = startEmbedded(t, lockredis.Options{Password: tc.password})
				}
				for _, step := range tc.steps {
					frame := encodeCommand(refusalArgs(step))
					want := redis.send(frame)
					if got := lock.send(frame); got != want {
						t.Errorf("socket %q:\n got  %q\n want %q", step, got, want)
					}
					if do == nil {
						continue
					}
					if got := encodeReply(do.Do(refusalArgs(step)...)); got != want {
						t.Errorf("Server.Do %q:\n got  %q\n want %q", step, got, want)
					}
				}
			})
		})
	}
}

// encodeReply is a Go API reply as RESP2 bytes.
func encodeReply(r engine.Reply) string {
	enc := resp.Encoder{Proto: 2}
	r.Replay(&enc)
	return string(enc.Buf)
}

// TestDispatchStatsMatchRedis runs the refusal cases and some failing
// commands and scripts on both servers, then compares INFO commandstats
// (calls, rejected_calls and failed_calls of every command; not the
// times), INFO errorstats and total_error_replies.
func TestDispatchStatsMatchRedis(t *testing.T) {
	p := newDiffPair(t, "")
	for _, c := range []*rawConn{p.redisCtl, p.lockCtl} {
		if r := c.do(t, "CONFIG", "RESETSTAT"); r != "+OK\r\n" {
			t.Fatalf("CONFIG RESETSTAT: %q", r)
		}
	}
	for _, tc := range refusalCases {
		if tc.password != "" {
			continue
		}
		var seq [][]string
		for _, step := range tc.steps {
			seq = append(seq, refusalArgs(step))
		}
		// Each case on a connection of its own, as a client would.
		diffs := runSteps(t, p, 2, stepsOf(seq))
		reportDiffs(t, diffs)
	}
	more := [][]string{
		{"SET", "s", "v"},
		{"LPUSH", "s", "x"},           // WRONGTYPE
		{"INCR", "s"},                 // ERR not an integer
		{"SET", "s", "v", "NX", "XX"}, // syntax error
		{"EVAL", "return redis.error_reply('MYERR custom')", "0"},
		{"EVAL", "return redis.error_reply('no prefix here')", "0"},
		{"EVAL", "return redis.pcall('lpush', KEYS[1], 'x')", "1", "s"},
		{"EVAL", "redis.pcall('lpush', KEYS[1], 'x') return 'ok'", "1", "s"},
		{"EVAL", "return redis.call('lpush', KEYS[1], 'x')", "1", "s"},
		{"EVAL", "return nosuchfunction()", "0"},
		{"EVAL", "return {err='PLAIN'}", "0"},
		{"MULTI"}, {"LPUSH", "s", "x"}, {"GET", "s"}, {"EXEC"},
		{"PING"}, {"PING", "a", "b"},
	}
	reportDiffs(t, runSteps(t, p, 2, stepsOf(more)))

	for _, section := range []string{"commandstats", "errorstats"} {
		want := statLines(t, p.redisCtl.do(t, "INFO", section))
		got := statLines(t, p.lockCtl.do(t, "INFO", section))
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("INFO %s:\n got\n  %s\n want\n  %s", section, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
		}
	}
	want := infoField(t, p.redisCtl, "stats", "total_error_replies")
	if got := infoField(t, p.lockCtl, "stats", "total_error_replies"); got != want {
		t.Errorf("total_error_replies %s, want %s", got, want)
	}
}

func stepsOf(cmds [][]string) []diffStep {
	out := make([]diffStep, len(cmds))
	for i, c := range cmds {
		out[i] = diffStep{args: c}
	}
	return out
}

// statLines are the lines of an INFO section reply, sorted (Redis lists
// commands in its hash table's order), with the time fields dropped:
// "cmdstat_get:calls=2,rejected_calls=0,failed_calls=1".
func statLines(t *testing.T, reply string) []string {
	t.Helper()
	var out []string
	for _, line := range infoLines(t, reply) {
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		name, fields, _ := strings.Cut(line, ":")
		var keep []string
		for _, f := range strings.Split(fields, ",") {
			if !strings.HasPrefix(f, "usec") {
				keep = append(keep, f)
			}
		}
		out = append(out, name+":"+strings.Join(keep, ","))
	}
	sort.Strings(out)
	return out
}

// infoLines are the lines of an INFO reply.
func infoLines(t *testing.T, reply string) []string {
	t.Helper()
	r, ok := parseRaw(reply)
	if !ok {
		t.Fatalf("INFO: unparsable reply %q", reply)
	}
	return strings.Split(strings.TrimSuffix(r.blob, "\r\n"), "\r\n")
}
