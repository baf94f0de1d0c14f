package lockredis

import (
	"net"
	"runtime"
	"testing"
)

// BenchmarkRunPingClose is what a test suite pays per embedded server:
// start, one PING over TCP, close.
func BenchmarkRunPingClose(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		srv, err := Run()
		if err != nil {
			b.Fatal(err)
		}
		c, err := net.Dial("tcp", srv.Addr())
		if err != nil {
			b.Fatal(err)
		}
		c.Write([]byte("PING\r\n"))
		buf := make([]byte, 16)
		if _, err := c.Read(buf); err != nil {
			b.Fatal(err)
		}
		c.Close()
		srv.Close()
	}
}

// TestIdleServerHeap reports the heap each idle embedded server holds
// (suites start hundreds). It measures; it asserts nothing.
func TestIdleServerHeap(t *testing.T) {
	const n = 100
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	servers := make([]*Server, n)
	for i := range servers {
		s, err := Run()
		if err != nil {
			t.Fatal(err)
		}
		servers[i] = s
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	t.Logf("%d idle servers: %d KB of heap each", n, (int64(after.HeapAlloc)-int64(before.HeapAlloc))/n/1024)
	for _, s := range servers {
		s.Close()
	}
}
