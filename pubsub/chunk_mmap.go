//go:build linux || darwin || freebsd

package pubsub

import "syscall"

// mapChunk maps an empty chunk of chunkSize bytes outside the Go heap.
func mapChunk() ([]byte, bool) {
	b, err := syscall.Mmap(-1, 0, chunkSize, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil, false // out of mappings: the caller takes heap memory
	}
	return b[:0], true
}

// unmapChunk unmaps a chunk from mapChunk.
func unmapChunk(b []byte) { syscall.Munmap(b[:cap(b)]) }
