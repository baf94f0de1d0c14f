package engine

import (
	"strconv"
	"testing"
	"time"
)

// BenchmarkSetNXPX is the lock-acquire command through the command table,
// as a connection runs it (without the network).
func BenchmarkSetNXPX(b *testing.B) {
	e, err := New(Config{Clock: NewManualClock(time.Unix(1700000000, 0))})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	s := NewSession("normal")
	keys := make([][]byte, 100000)
	for i := range keys {
		keys[i] = []byte("lock:" + strconv.Itoa(i))
	}
	args := [][]byte{[]byte("SET"), nil, []byte("tok"), []byte("NX"), []byte("PX"), []byte("30000")}
	var rec Recorder
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		args[1] = keys[i%len(keys)]
		rec.Reset()
		e.Dispatch(s, nil, args, &rec)
	}
}

func BenchmarkGet(b *testing.B) {
	e, err := New(Config{Clock: NewManualClock(time.Unix(1700000000, 0))})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	s := NewSession("normal")
	args := [][]byte{[]byte("GET"), []byte("lock:1")}
	var rec Recorder
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rec.Reset()
		e.Dispatch(s, nil, args, &rec)
	}
}

// BenchmarkGetLive is GET of a key that exists and has not expired: the
// hot path of a read, which lazy expiry must not slow down.
func BenchmarkGetLive(b *testing.B) {
	e, err := New(Config{Clock: NewManualClock(time.Unix(1700000000, 0))})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	s := NewSession("normal")
	var rec Recorder
	set := [][]byte{[]byte("SET"), []byte("lock:1"), []byte("tok"), []byte("PX"), []byte("30000")}
	e.Dispatch(s, nil, set, &rec)
	args := [][]byte{[]byte("GET"), []byte("lock:1")}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rec.Reset()
		e.Dispatch(s, nil, args, &rec)
	}
}
