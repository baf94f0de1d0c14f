package keyspace

import (
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// TestLoadingStats: Loading reports the load as INFO does, with Redis's
// formulas: percentage of the bytes, ETA scaled from the time so far.
func TestLoadingStats(t *testing.T) {
	var s Store
	l := &s.loading
	if li := s.Loading(); li.Loading {
		t.Fatalf("a store never opened reports a load: %+v", li)
	}
	l.active.Store(true)
	l.start.Store(time.Now().Add(-10 * time.Second).UnixMilli())
	l.total.Store(1000)
	l.setStep(loadCheck)
	l.read.Store(900)
	if li := s.Loading(); li.LoadedBytes != 0 || li.Percent != 0 {
		t.Errorf("the check pass counts as loaded: %+v", li)
	}
	l.setStep(loadRead)
	l.read.Store(250)
	li := s.Loading()
	if li.LoadedBytes != 250 || li.Percent != 25 || li.TotalBytes != 1000 {
		t.Errorf("read step: %+v", li)
	}
	// Redis: eta = elapsed * remaining / (loaded + 1) = 10 * 750 / 251.
	if li.ETA != 29*time.Second {
		t.Errorf("ETA %v, want 29s", li.ETA)
	}
	l.setStep(loadIndex)
	if li := s.Loading(); li.LoadedBytes != 1000 || li.Percent != 100 {
		t.Errorf("index step: %+v", li)
	}
	var keys atomic.Int64
	keys.Store(42)
	line := l.progressLine("/x/appendonly.aof", loadIndex, time.Second, keys.Load)
	if line != "Loading the append only file /x/appendonly.aof: indexing the loaded keys, 42 so far" {
		t.Errorf("index line: %q", line)
	}
	l.setStep(loadRead)
	l.read.Store(500)
	line = l.progressLine(":memory:", loadRead, 2*time.Second, keys.Load)
	if line != "Loading the snapshot: 50.00% (500B of 1000B, 250B/s)" {
		t.Errorf("read line: %q", line)
	}
}

// TestDescriptorOffset: the load's progress is the offset of the
// descriptor reading the file, found by the file's identity.
func TestDescriptorOffset(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("descriptor offsets are read from /proc (Linux)")
	}
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, make([]byte, 10000), 0o644); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	var d descriptorFinder
	if _, ok := d.offset(fi); ok {
		t.Fatal("found a descriptor before the file was opened")
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, n := range []int{1234, 4000} {
		if _, err := f.Read(make([]byte, n)); err != nil {
			t.Fatal(err)
		}
	}
	if off, ok := d.offset(fi); !ok || off != 5234 {
		t.Fatalf("offset = %d, %v; want 5234", off, ok)
	}
}
