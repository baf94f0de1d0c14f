package compat

import (
	"net"
	"runtime"
	"testing"

	"github.com/alicebob/miniredis/v2"
	"github.com/lockredis/lockredis"
)

// What a Go test suite pays per embedded server, lockredis beside
// miniredis in the same run: start, one PING over TCP, close
// (BenchmarkEmbeddedStartPingClose), and the heap an idle server holds
// (TestEmbeddedIdleHeap). They measure; they assert nothing.

type embedded struct {
	name  string
	start func(tb testing.TB) (addr string, stop func())
}

var embeddedServers = []embedded{
	{"lockredis", func(tb testing.TB) (string, func()) {
		s, err := lockredis.Run()
		if err != nil {
			tb.Fatal(err)
		}
		return s.Addr(), func() { s.Close() }
	}},
	{"miniredis", func(tb testing.TB) (string, func()) {
		m, err := miniredis.Run()
		if err != nil {
			tb.Fatal(err)
		}
		return m.Addr(), m.Close
	}},
}

func BenchmarkEmbeddedStartPingClose(b *testing.B) {
	for _, e := range embeddedServers {
		b.Run(e.name, func(b *testing.B) {
			b.ReportAllocs()
			buf := make([]byte, 16)
			for i := 0; i < b.N; i++ {
				addr, stop := e.start(b)
				c, err := net.Dial("tcp", addr)
				if err != nil {
					b.Fatal(err)
				}
				c.Write([]byte("*1\r\n$4\r\nPING\r\n")) // miniredis reads no inline commands
				if _, err := c.Read(buf); err != nil {
					b.Fatal(err)
				}
				c.Close()
				stop()
			}
		})
	}
}

func TestEmbeddedIdleHeap(t *testing.T) {
	const n = 100
	for _, e := range embeddedServers {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		stops := make([]func(), n)
		for i := range stops {
			_, stops[i] = e.start(t)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		t.Logf("%s: %d idle servers hold %d KB of heap each", e.name, n, (int64(after.HeapAlloc)-int64(before.HeapAlloc))/n/1024)
		for _, stop := range stops {
			stop()
		}
	}
}
