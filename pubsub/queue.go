package pubsub

import (
	"runtime"
	"sync"
)

// chunkSize is the most a queue chunk holds. A subscriber's unsent output
// is a list of chunks rather than one growing slice: a subscriber that
// does not read can queue hundreds of megabytes, and a single slice would
// be copied whole each time it grew (stalling the other goroutines while
// the runtime waits to stop the world for the collector) and hold twice
// its size.
const chunkSize = 32 << 10

// chunk is a piece of queued output. Full-size chunks are mapped outside
// the Go heap where the platform allows (mapped): hundreds of megabytes
// queued for a subscriber that does not read would otherwise raise the
// collector's heap goal by as much again, and the server's RSS with it.
// A mapped chunk has one owner at a time (the queue, under the
// subscriber's lock, or the writer) and goes back to the pool, never to
// the collector.
type chunk struct {
	b      []byte
	mapped bool
}

// queue is a subscriber's unsent output, in order.
type queue struct {
	chunks []chunk // the last one may have room left
	small  []byte  // an emptied heap buffer, reused for short output
}

// put appends p, filling the last chunk before it starts another one.
// No chunk holds more than chunkSize, so a mapped chunk, whose capacity
// that is, never grows.
func (q *queue) put(pool *chunkPool, p []byte) {
	for len(p) > 0 {
		n := len(q.chunks)
		if n == 0 || len(q.chunks[n-1].b) >= chunkSize {
			q.chunks = append(q.chunks, q.next(pool, n, len(p)))
			n++
		}
		c := &q.chunks[n-1]
		k := min(len(p), chunkSize-len(c.b))
		if len(c.b)+k > cap(c.b) {
			// Only the first, heap chunk grows; never past chunkSize,
			// so that it can be reused.
			nb := make([]byte, len(c.b), min(max(2*cap(c.b), len(c.b)+k), chunkSize))
			copy(nb, c.b)
			c.b = nb
		}
		c.b = append(c.b, p[:k]...)
		p = p[k:]
	}
}

// next is the chunk to start for a put into a queue of n chunks. A
// subscriber that keeps up has a reply or a few messages queued at a
// time: the first chunk is a heap buffer that grows up to chunkSize and
// is reused once written. Only a backlog takes pooled full-size chunks.
func (q *queue) next(pool *chunkPool, n, size int) chunk {
	if n == 0 {
		b := q.small
		q.small = nil
		if b == nil {
			b = make([]byte, 0, min(max(size, 512), chunkSize))
		}
		return chunk{b: b}
	}
	return pool.get()
}

// take hands every queued chunk to the caller and leaves the queue empty;
// spare is the caller's previous, emptied list, reused for the chunk
// headers.
func (q *queue) take(spare []chunk) []chunk {
	c := q.chunks
	q.chunks = spare[:0]
	return c
}

// done takes back a chunk the writer has written.
func (q *queue) done(pool *chunkPool, c chunk) {
	switch {
	case c.mapped:
		pool.put(c)
	case q.small == nil:
		q.small = c.b[:0]
	}
}

// drop releases every queued chunk.
func (q *queue) drop(pool *chunkPool) {
	for i, c := range q.chunks {
		if c.mapped {
			pool.put(c)
		}
		q.chunks[i] = chunk{}
	}
	q.chunks = q.chunks[:0]
}

// chunkPool hands out full-size chunks and keeps a few written ones for
// reuse, so that big messages to a subscriber that keeps up do not map
// and unmap memory each time; a burst's chunks beyond that are unmapped
// at once.
type chunkPool struct {
	mu   sync.Mutex
	free *freeChunks
}

// freeChunks is apart from the hub, which is in cycles with its
// subscribers, so that a finalizer can unmap the chunks once the hub is
// gone (embedded servers come and go in one process).
type freeChunks struct{ list [][]byte }

// poolMax is how many chunks the pool keeps (1 MB).
const poolMax = 32

func (p *chunkPool) get() chunk {
	p.mu.Lock()
	if f := p.free; f != nil && len(f.list) > 0 {
		b := f.list[len(f.list)-1]
		f.list[len(f.list)-1] = nil
		f.list = f.list[:len(f.list)-1]
		p.mu.Unlock()
		return chunk{b: b, mapped: true}
	}
	p.mu.Unlock()
	if b, ok := mapChunk(); ok {
		return chunk{b: b, mapped: true}
	}
	return chunk{b: make([]byte, 0, chunkSize)}
}

// put gives back a mapped chunk nobody uses any more.
func (p *chunkPool) put(c chunk) {
	p.mu.Lock()
	if p.free == nil {
		p.free = &freeChunks{}
		runtime.SetFinalizer(p.free, func(f *freeChunks) {
			for _, b := range f.list {
				unmapChunk(b)
			}
		})
	}
	if len(p.free.list) < poolMax {
		p.free.list = append(p.free.list, c.b[:0])
		p.mu.Unlock()
		return
	}
	p.mu.Unlock()
	unmapChunk(c.b)
}
