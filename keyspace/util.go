package keyspace

import (
	"math/rand/v2"
	"strconv"
	"unsafe"
)

// s2b returns the bytes of s without copying; they must not be modified.
func s2b(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// b2s returns a string that shares b's memory. Only for lookups that do not
// keep the string.
func b2s(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

func randv2IntN(n int) int { return rand.IntN(n) }

// BytesToHuman formats a size as Redis's INFO does (1.44M, 32.00K, 200B);
// from 1024P on Redis prints bytes again. The load's log lines here use
// it, and INFO above.
func BytesToHuman(n uint64) string {
	const units = "KMGTP"
	if n < 1024 || n >= 1<<60 {
		return strconv.FormatUint(n, 10) + "B"
	}
	i, size := 0, uint64(1024)
	for n >= size*1024 {
		i++
		size *= 1024
	}
	return strconv.FormatFloat(float64(n)/float64(size), 'f', 2, 64) + units[i:i+1]
}
