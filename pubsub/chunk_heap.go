//go:build !(linux || darwin || freebsd)

package pubsub

// mapChunk is mapping's stand-in where it is not used: chunks come from
// the heap.
func mapChunk() ([]byte, bool) { return nil, false }

func unmapChunk([]byte) {}
