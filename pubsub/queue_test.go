package pubsub

import (
	"bytes"
	"runtime"
	"testing"
)

func TestQueuePut(t *testing.T) {
	for _, tc := range []struct {
		name  string
		sizes []int
	}{
		{"one byte", []int{1}},
		{"one small reply", []int{40}},
		{"exactly one chunk", []int{chunkSize}},
		{"one byte over a chunk", []int{chunkSize + 1}},
		{"a big message", []int{3*chunkSize + 7}},
		{"small, big, small", []int{100, 2*chunkSize + 5, 3}},
		{"fills a chunk in pieces", []int{chunkSize / 2, chunkSize / 2, 1}},
		{"many small", func() []int {
			s := make([]int, 3000)
			for i := range s {
				s[i] = 1 + i%97
			}
			return s
		}()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var pool chunkPool
			var q queue
			var want []byte
			for i, n := range tc.sizes {
				p := bytes.Repeat([]byte{byte('a' + i%26)}, n)
				q.put(&pool, p)
				want = append(want, p...)
			}
			var got []byte
			for i, c := range q.chunks {
				if len(c.b) == 0 || len(c.b) > chunkSize {
					t.Fatalf("chunk %d holds %d bytes", i, len(c.b))
				}
				if i < len(q.chunks)-1 && len(c.b) != chunkSize {
					t.Fatalf("chunk %d is not full (%d bytes) but another follows", i, len(c.b))
				}
				if c.mapped && cap(c.b) != chunkSize {
					t.Fatalf("mapped chunk %d has capacity %d", i, cap(c.b))
				}
				if i == 0 && c.mapped {
					t.Fatal("the first chunk is mapped: a subscriber that keeps up should not need a mapping")
				}
				got = append(got, c.b...)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("queued %d bytes, want %d (or different bytes)", len(got), len(want))
			}
			// The writer's turn: take everything and give it back.
			batch := q.take(nil)
			if len(q.chunks) != 0 {
				t.Fatal("take left chunks behind")
			}
			for _, c := range batch {
				q.done(&pool, c)
			}
			if q.small == nil {
				t.Fatal("the written first chunk was not kept for reuse")
			}
			if pool.free != nil && len(pool.free.list) > poolMax {
				t.Fatalf("pool keeps %d chunks, at most %d", len(pool.free.list), poolMax)
			}
		})
	}
}

// A subscriber that keeps up reuses one small buffer; a backlog's chunks
// go back to the pool, and what the pool does not keep is released.
func TestQueueReuse(t *testing.T) {
	var pool chunkPool
	var q queue
	q.put(&pool, []byte("hello"))
	first := &q.chunks[0].b[:1][0]
	for _, c := range q.take(nil) {
		q.done(&pool, c)
	}
	q.put(&pool, []byte("again"))
	if &q.chunks[0].b[:1][0] != first {
		t.Fatal("the small buffer was not reused")
	}
	q.drop(&pool)
	if len(q.chunks) != 0 {
		t.Fatal("drop left chunks")
	}

	// A backlog of 2*poolMax chunks.
	q.put(&pool, make([]byte, (2*poolMax+1)*chunkSize))
	mapped := 0
	for _, c := range q.chunks {
		if c.mapped {
			mapped++
		}
	}
	if runtime.GOOS == "linux" && mapped != 2*poolMax {
		t.Fatalf("%d mapped chunks, want %d", mapped, 2*poolMax)
	}
	q.drop(&pool)
	if mapped > 0 && len(pool.free.list) != poolMax {
		t.Fatalf("pool keeps %d chunks, want %d", len(pool.free.list), poolMax)
	}
	// The pool's chunks are handed out again, empty.
	if mapped > 0 {
		c := pool.get()
		if !c.mapped || len(c.b) != 0 || cap(c.b) != chunkSize {
			t.Fatalf("pool handed out a chunk of len %d cap %d mapped %v", len(c.b), cap(c.b), c.mapped)
		}
		pool.put(c)
	}
}
