package raftgroup_test

import (
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lockredis/lockredis/raftgroup"
)

// raftInfo is a node's RAFT.INFO as field -> value.
func raftInfo(t *testing.T, c *client) map[string]string {
	t.Helper()
	out := map[string]string{}
	r, _ := c.must("RAFT.INFO").(string)
	for _, line := range strings.Split(r, "\r\n") {
		if k, v, ok := strings.Cut(line, ":"); ok {
			out[k] = v
		}
	}
	return out
}

func atoi(s string) uint64 {
	n, _ := strconv.ParseUint(s, 10, 64)
	return n
}

// The leader compacts its log while clients keep writing: its engine is
// then always ahead of the applied entries, and a snapshot is only taken
// with writes held for a moment (replication/compact.go). The log stays
// bounded (entries before snapshot_index - TrailingLogs are gone), no
// acknowledged write is lost, and a leader restarted from its compacted
// log and snapshot has every write.
func TestLeaderCompactsLogUnderLoad(t *testing.T) {
	const threshold, trailing = 64, 16
	g := raftgroup.RunWith(t, 3, raftgroup.Options{
		SnapshotThreshold: threshold, TrailingLogs: trailing, SnapshotInterval: 20e6, // 20 ms
	})
	leader := g.Leader()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	const writers = 8
	acked := make([]atomic.Int64, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := dial(t, leader.Addr())
			key := "counter:" + strconv.Itoa(w)
			for {
				select {
				case <-stop:
					return
				default:
				}
				r, err := c.do("INCR", key)
				if err != nil {
					return
				}
				if s, _ := r.(string); s != "" && s[0] != '-' {
					acked[w].Add(1)
				}
			}
		}()
	}
	// Watch the leader's snapshots while the writers run: several,
	// each taken while writes went on, each followed by compaction.
	info := dial(t, leader.Addr())
	// Without the held-writes capture a leader under this load finds the
	// engine in step with the log only by chance (minutes); with it the
	// three snapshots take seconds. The deadline is a liveness bound.
	deadline := time.Now().Add(60 * time.Second)
	var snaps []uint64
	for len(snaps) < 3 {
		if time.Now().After(deadline) {
			close(stop)
			wg.Wait()
			t.Fatalf("the leader took only the snapshots %v under load in a minute", snaps)
		}
		i := raftInfo(t, info)
		if i["state"] != "leader" {
			close(stop)
			wg.Wait()
			t.Skipf("leadership moved during the test (node %s is %s)", leader.ID, i["state"])
		}
		snap, first := atoi(i["snapshot_index"]), atoi(i["first_log_index"])
		if snap != 0 && (len(snaps) == 0 || snap > snaps[len(snaps)-1]) {
			// raft compacts right after each snapshot, before it takes
			// the next, keeping TrailingLogs entries behind the log's
			// end: when a newer snapshot shows, every entry before the
			// previous one's index - TrailingLogs is gone.
			if len(snaps) > 0 && snaps[len(snaps)-1] > trailing && first < snaps[len(snaps)-1]-trailing+1 {
				t.Fatalf("log starts at %d after the snapshot at %d: not compacted", first, snaps[len(snaps)-1])
			}
			snaps = append(snaps, snap)
		}
	}
	close(stop)
	wg.Wait()
	var total int64
	for w := range acked {
		total += acked[w].Load()
	}
	t.Logf("%d writes acknowledged, snapshots at %v, last index %s", total, snaps, raftInfo(t, info)["last_log_index"])
	// Every acknowledged INCR is in the state, also on the leader after a
	// restart from its own compacted log and snapshot.
	check := func(addr string) {
		c := dial(t, addr)
		c.must("READONLY")
		eventually(t, "counters on "+addr, func() string {
			for w := range acked {
				n := acked[w].Load()
				r, _ := c.must("GET", "counter:"+strconv.Itoa(w)).(string)
				if got, _ := strconv.ParseInt(r, 10, 64); got < n {
					return "counter:" + strconv.Itoa(w) + " = " + r + ", acknowledged " + strconv.FormatInt(n, 10)
				}
			}
			return ""
		})
	}
	for _, addr := range g.Addrs() {
		check(addr)
	}
	g.Restart(leader)
	check(leader.Addr())
}
