package engine

import (
	"sync"
	"time"
)

const latencyTSLen = 160

type latencySample struct {
	time    int64 // unix seconds
	latency int64 // ms
}

type latencySeries struct {
	idx     int
	max     int64
	samples [latencyTSLen]latencySample
}

type slowEntry struct {
	id       int64
	time     int64
	duration int64
	argv     []string
	peer     string
	name     string
}

type pauseState struct {
	mu        sync.Mutex
	until     time.Time // zero: not paused
	writeOnly bool
	changed   chan struct{} // closed and replaced when the pause changes
}
