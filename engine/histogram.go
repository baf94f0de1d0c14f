package engine

import (
	"math"
	"math/bits"
	"sync/atomic"
	"time"
)

// histogram counts durations in logarithmic buckets (four per power of
// two of microseconds), so that its memory is fixed and a quantile is
// known within 19%. INFO reads quantiles; Stats reads cumulative counts
// at powers of two (snapshot).
type histogram struct {
	buckets [4 * 64]atomic.Int64
	sumUs   atomic.Int64 // the durations added, in microseconds
}

func histBucket(us uint64) int {
	if us < 4 {
		return int(us)
	}
	n := bits.Len64(us) - 1 // us is in [2^n, 2^(n+1))
	return 4*n + int(us>>(n-2)&3)
}

// histUpper is the largest microsecond count of bucket i.
func histUpper(i int) float64 {
	if i < 4 {
		return float64(i)
	}
	n := i / 4
	return math.Ldexp(float64(4+i%4+1), n-2) - 1
}

func (h *histogram) add(d time.Duration) {
	us := d.Microseconds()
	if us < 0 {
		us = 0
	}
	h.buckets[histBucket(uint64(us))].Add(1)
	h.sumUs.Add(us)
}

// quantile is the upper bound of the bucket holding quantile q, in
// milliseconds; 0 when empty.
func (h *histogram) quantile(q float64) float64 {
	var total int64
	for i := range h.buckets {
		total += h.buckets[i].Load()
	}
	if total == 0 {
		return 0
	}
	rank := int64(math.Ceil(q * float64(total)))
	var seen int64
	for i := range h.buckets {
		seen += h.buckets[i].Load()
		if seen >= rank {
			return histUpper(i) / 1000
		}
	}
	return histUpper(len(h.buckets)-1) / 1000
}

func (h *histogram) reset() {
	for i := range h.buckets {
		h.buckets[i].Store(0)
	}
	h.sumUs.Store(0)
}

// histSnapshotPowers: Histogram.Buckets end at 2^0 .. 2^40 µs (12.7
// days); longer durations are only in Count.
const histSnapshotPowers = 41

// Histogram is a copy of a duration histogram, in the shape monitoring
// systems take (Prometheus's): Buckets[k] counts the durations below
// 2^k microseconds, cumulatively; Count all of them, Sum their total.
// The bounds are exact: they are edges of the engine's buckets.
type Histogram struct {
	Count   int64
	Sum     time.Duration
	Buckets []HistogramBucket
}

// HistogramBucket is one cumulative bucket of a Histogram.
type HistogramBucket struct {
	UpperBound time.Duration // exclusive
	Count      int64         // durations below UpperBound
}

// snapshot copies h. Each bucket is read once, so the cumulative counts
// and Count agree even while durations are added.
func (h *histogram) snapshot() Histogram {
	out := Histogram{Buckets: make([]HistogramBucket, histSnapshotPowers)}
	i := 0
	var seen int64
	for k := range histSnapshotPowers {
		end := histBucket(1 << k) // the first bucket at or above 2^k µs
		for ; i < end; i++ {
			seen += h.buckets[i].Load()
		}
		out.Buckets[k] = HistogramBucket{UpperBound: time.Duration(1<<k) * time.Microsecond, Count: seen}
	}
	for ; i < len(h.buckets); i++ {
		seen += h.buckets[i].Load()
	}
	out.Count = seen
	out.Sum = time.Duration(h.sumUs.Load()) * time.Microsecond
	return out
}
