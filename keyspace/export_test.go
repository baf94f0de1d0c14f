package keyspace

import (
	"os"
	"testing"
	"time"
)

// What the external tests (package keyspace_test, which drive the store
// through the engine's commands) may see of the store's insides.

// Fsyncs is how many fsyncs of the AOF succeeded.
func (s *Store) Fsyncs() int64 { return s.persist.fsyncs.Load() }

// WriteGen and SyncedGen are the group commit's generations: handed to
// committed writes, and known to be on disk.
func (s *Store) WriteGen() uint64 { return s.persist.writeGen.Load() }

func (s *Store) SyncedGen() uint64 {
	s.persist.mu.Lock()
	defer s.persist.mu.Unlock()
	return s.persist.synced
}

// FailFsyncs makes every fsync of the AOF fail, by giving the persister a
// closed descriptor, and returns the good one (RestoreFsyncs).
func (s *Store) FailFsyncs(t *testing.T) (good *os.File) {
	good = s.persist.fd.Load()
	bad, err := os.Open(good.Name())
	if err != nil {
		t.Fatal(err)
	}
	bad.Close()
	s.persist.fd.Store(bad)
	return good
}

func (s *Store) RestoreFsyncs(good *os.File) { s.persist.fd.Store(good) }

// WaitFsyncError returns once an fsync has failed.
func (s *Store) WaitFsyncError() {
	for {
		if _, fsyncErr := s.persist.status(); fsyncErr != "" {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Probe checks at once whether the disk works again (MISCONF).
func (s *Store) Probe() { s.persist.probe() }

// EndRestartFence makes the restart fence's time be up.
func (s *Store) EndRestartFence() { s.fence.until = time.Now() }

// FenceState is the state file's content.
type FenceState struct {
	Marker      string
	MaxTTLms    int64
	FenceLeftMs int64
}

const (
	MarkerRunning = markerRunning
	MarkerClean   = markerClean
)

func ReadState(path string) (FenceState, error) {
	st, err := readState(path)
	return FenceState{Marker: st.marker, MaxTTLms: st.maxTTLms, FenceLeftMs: st.fenceLeftMs}, err
}

func BootID() string { return bootID() }
