package engine

import (
	"testing"
	"time"
)

// TestHistogramSnapshot: the cumulative buckets end exactly at powers of
// two of microseconds, whatever the finer buckets inside.
func TestHistogramSnapshot(t *testing.T) {
	var h histogram
	for _, us := range []int64{0, 3, 4, 7, 8, 1000, 1023, 1024, 5000000} {
		h.add(time.Duration(us) * time.Microsecond)
	}
	s := h.snapshot()
	if s.Count != 9 || s.Sum != (0+3+4+7+8+1000+1023+1024+5000000)*time.Microsecond {
		t.Fatalf("count %d sum %v", s.Count, s.Sum)
	}
	if len(s.Buckets) != histSnapshotPowers {
		t.Fatalf("%d buckets", len(s.Buckets))
	}
	for _, tc := range []struct {
		pow  int
		want int64
	}{
		{0, 1},  // < 1 µs: 0
		{2, 2},  // < 4 µs: 0, 3
		{3, 4},  // < 8 µs: + 4, 7
		{4, 5},  // < 16 µs: + 8
		{10, 7}, // < 1024 µs: + 1000, 1023
		{11, 8}, // < 2048 µs: + 1024
		{22, 8}, // < 4.19 s
		{23, 9}, // < 8.39 s: + 5 s
		{40, 9},
	} {
		b := s.Buckets[tc.pow]
		if b.UpperBound != time.Duration(1<<tc.pow)*time.Microsecond || b.Count != tc.want {
			t.Errorf("bucket 2^%d: %v %d, want %d", tc.pow, b.UpperBound, b.Count, tc.want)
		}
	}
	h.reset()
	if s := h.snapshot(); s.Count != 0 || s.Sum != 0 || s.Buckets[40].Count != 0 {
		t.Fatalf("after reset: %+v", s)
	}
}

// TestStatsSnapshotMoves: the snapshot's figures follow the workload:
// commands and errors by name, keyspace, locks, tokens, fsyncs.
func TestStatsSnapshotMoves(t *testing.T) {
	te := newTestEngineConfig(t, Config{Params: map[string]string{"dir": t.TempDir(), "appendonly": "yes", "appendfsync": "always"}})
	before := te.StatsSnapshot()
	te.run([]step{
		{cmd("SET", "plain", "v"), "OK"},
		{cmd("INCR", "plain"), "(error) ERR value is not an integer or out of range"},
		{cmd("HSET", "h", "f", "v"), "(integer) 1"},
		{cmd("GET", "h"), "(error) WRONGTYPE Operation against a key holding the wrong kind of value"},
		{cmd("LOCK.ACQUIRE", "lock", "me", "30000"), "(integer) 3"},
		{cmd("SELECT", "2"), "OK"},
		{cmd("SET", "other", "v", "PX", "10000"), "OK"},
	})
	after := te.StatsSnapshot()
	if after.CommandsProcessed-before.CommandsProcessed != 7 {
		t.Errorf("commands processed: %d -> %d", before.CommandsProcessed, after.CommandsProcessed)
	}
	calls := map[string]CommandStats{}
	for _, cs := range after.Commands {
		calls[cs.Name] = cs
	}
	if calls["set"].Calls != 2 || calls["incr"].Failed != 1 || calls["lock.acquire"].Calls != 1 {
		t.Errorf("command stats: %+v", after.Commands)
	}
	if after.Errors["ERR"] != 1 || after.Errors["WRONGTYPE"] != 1 || after.ErrorReplies != 2 {
		t.Errorf("errors: %v (%d)", after.Errors, after.ErrorReplies)
	}
	if len(after.Keyspace) != 16 || after.Keyspace[0].Keys != 3 || after.Keyspace[2].Keys != 1 || after.Keyspace[2].Expires != 1 {
		t.Errorf("keyspace: %+v", after.Keyspace)
	}
	if after.Locks.Held != 1 || after.Locks.Granted != 1 {
		t.Errorf("locks: %+v", after.Locks)
	}
	// Four keys were created, each with a fresh token.
	if after.TokensIssued-before.TokensIssued != 4 || after.LastToken != before.LastToken+4 {
		t.Errorf("tokens: %d issued, last %d (before: %d, %d)", after.TokensIssued, after.LastToken, before.TokensIssued, before.LastToken)
	}
	if !after.Persistence.Enabled || after.Persistence.CurrentSize <= before.Persistence.CurrentSize {
		t.Errorf("persistence: %+v", after.Persistence)
	}
	if after.AOFFsync.Count <= before.AOFFsync.Count || after.AOFFsyncErrors != 0 {
		t.Errorf("fsyncs: %d -> %d, %d errors", before.AOFFsync.Count, after.AOFFsync.Count, after.AOFFsyncErrors)
	}
	if after.UsedMemory <= before.UsedMemory || after.Loading.Loading || after.RestartFenceActive {
		t.Errorf("memory %d -> %d, loading %v, fence %v", before.UsedMemory, after.UsedMemory, after.Loading.Loading, after.RestartFenceActive)
	}
}
