package keyspace

import (
	"math/rand/v2"
	"unsafe"
)

// s2b returns the bytes of s without copying; they must not be modified.
func s2b(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// b2s returns a string that shares b's memory. Only for lookups that do not
// keep the string.
func b2s(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

func randv2IntN(n int) int { return rand.IntN(n) }
