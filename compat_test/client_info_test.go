package compat

import (
	"strconv"
	"strings"
	"testing"
)

// TestClientInfoFields: the CLIENT INFO / CLIENT LIST fields that measure
// a connection (fd, qbuf, argv-mem, multi-mem, obl, oll, omem, tot-mem)
// follow the same rules on lockredis as on redis-server 7.0.15, as
// Redis's introspection.tcl "CLIENT LIST" and "CLIENT INFO" check them:
// the caller's qbuf is its own 26-byte command, argv-mem its arguments'
// bytes; another client queuing in MULTI shows its queue's size; an idle
// client's input is empty. The sizes of buffers (qbuf-free, rbs, rbp,
// tot-mem) are each server's own: only their being there is compared.
func TestClientInfoFields(t *testing.T) {
	for _, srv := range []struct{ name, addr string }{
		{"redis-server", startRedis(t)},
		{"lockredis", startBinary(t)},
	} {
		t.Run(srv.name, func(t *testing.T) {
			a, b := dialRaw(t, srv.addr), dialRaw(t, srv.addr)
			self := clientFields(t, a.do(t, "CLIENT", "INFO"))
			expectFields(t, "CLIENT INFO", self, map[string]string{
				"qbuf": "26", "argv-mem": "10", "multi": "-1", "multi-mem": "0",
				"obl": "0", "oll": "0", "omem": "0", "events": "r", "cmd": "client|info",
			})
			if fd, err := strconv.Atoi(self["fd"]); err != nil || fd <= 2 {
				t.Errorf("fd=%s: want the socket's descriptor", self["fd"])
			}
			if n, err := strconv.Atoi(self["tot-mem"]); err != nil || n <= 0 {
				t.Errorf("tot-mem=%s: want a size", self["tot-mem"])
			}
			for _, f := range []string{"qbuf-free", "rbs", "rbp"} {
				if _, err := strconv.Atoi(self[f]); err != nil {
					t.Errorf("%s=%s: want a size", f, self[f])
				}
			}
			id := strings.TrimSuffix(strings.TrimPrefix(a.do(t, "CLIENT", "ID"), ":"), "\r\n")
			a.do(t, "MULTI")
			a.do(t, "SET", "ci:k", "v")
			other := clientFields(t, b.do(t, "CLIENT", "LIST", "ID", id))
			expectFields(t, "CLIENT LIST of a client in MULTI", other, map[string]string{
				"qbuf": "0", "argv-mem": "0", "multi": "1", "multi-mem": "32", // "set" "ci:k" "v" and a pointer each
				"obl": "0", "oll": "0", "omem": "0", "flags": "x", "cmd": "set",
			})
			a.do(t, "DISCARD")
			other = clientFields(t, b.do(t, "CLIENT", "LIST", "ID", id))
			expectFields(t, "CLIENT LIST after DISCARD", other, map[string]string{
				"qbuf": "0", "multi": "-1", "multi-mem": "0", "flags": "N",
			})
		})
	}
}

// clientFields parses the one line of a CLIENT INFO or CLIENT LIST ID
// reply (a RESP2 bulk string).
func clientFields(t *testing.T, raw string) map[string]string {
	t.Helper()
	_, body, ok := strings.Cut(raw, "\r\n")
	if !ok || raw[0] != '$' {
		t.Fatalf("not a bulk string: %q", raw)
	}
	out := map[string]string{}
	for _, kv := range strings.Fields(strings.TrimSuffix(body, "\r\n")) {
		k, v, _ := strings.Cut(kv, "=")
		out[k] = v
	}
	return out
}

func expectFields(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %s=%s, want %s", what, k, got[k], v)
		}
	}
}
