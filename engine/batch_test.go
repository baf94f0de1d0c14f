package engine

import (
	"strings"
	"testing"
)

// TestBatchCommand: which commands may join a batch of one read
// (batch.go), and whether the batch then writes.
func TestBatchCommand(t *testing.T) {
	te := newTestEngine(t)
	for _, tc := range []struct {
		cmd         string
		join, write bool
	}{
		{"SET k v NX PX 100", true, true},
		{"GET k", true, false},
		{"DEL k", true, true},
		{"PEXPIRE k 100", true, true},
		{"LOCK.RELEASE k o", true, true},
		{"EXISTS k", true, false},
		{"OBJECT ENCODING k", true, false},
		{"LPUSH q x", true, true},
		// Blocking, scripts, MULTI, connection state, pub/sub, admin,
		// whole databases, nothing of the keyspace: alone.
		{"BLPOP q 0", false, false},
		{"LOCK.ACQUIRE k o 100", false, false},
		{"EVALSHA 0123 1 k", false, false},
		{"EVAL x 0", false, false},
		{"MULTI", false, false},
		{"EXEC", false, false},
		{"WATCH k", false, false},
		{"SELECT 1", false, false},
		{"PING", false, false},
		{"CLIENT REPLY OFF", false, false},
		{"SUBSCRIBE c", false, false},
		{"PUBLISH c m", false, false},
		{"WAIT 0 0", false, false},
		{"SWAPDB 0 1", false, false},
		{"FLUSHALL", false, false},
		{"DEBUG SLEEP 0", false, false},
		{"CONFIG GET x", false, false},
		{"NOSUCH", false, false},
	} {
		var args [][]byte
		for _, w := range strings.Fields(tc.cmd) {
			args = append(args, []byte(w))
		}
		cmd, write := te.BatchCommand(args)
		if (cmd != nil) != tc.join || write != tc.write {
			t.Errorf("%s: joins %v writes %v, want %v %v", tc.cmd, cmd != nil, write, tc.join, tc.write)
		}
	}
}

// TestBatchOpen: a session in MULTI, subscribed, tracking or with replies
// off runs its commands alone, as does every session while a pause or
// maxmemory is in force.
func TestBatchOpen(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup []string
		open  bool
	}{
		{"plain client", nil, true},
		{"in MULTI", []string{"MULTI"}, false},
		{"tracking", []string{"CLIENT TRACKING ON"}, false},
		{"replies off", []string{"CLIENT REPLY OFF"}, false},
		{"paused", []string{"CLIENT PAUSE 100000 WRITE"}, false},
		{"maxmemory", []string{"CONFIG SET maxmemory 1000000000"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			te := newTestEngine(t)
			te.s.Kind = KindClient
			for _, c := range tc.setup {
				var args [][]byte
				for _, w := range strings.Fields(c) {
					args = append(args, []byte(w))
				}
				te.Dispatch(te.s, nil, args, &Recorder{}) // CLIENT REPLY OFF answers nothing
			}
			if got := te.BatchOpen(te.s); got != tc.open {
				t.Errorf("BatchOpen = %v, want %v", got, tc.open)
			}
		})
	}
}
