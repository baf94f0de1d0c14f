package resp

import (
	"net"
	"runtime/debug"
	"time"
)

// cronInterval is how often the cron runs: Redis's serverCron at its
// default hz 10.
const cronInterval = 100 * time.Millisecond

// stormSize is how many connections must have gone since the last
// release before the cron hands freed memory back to the OS.
const stormSize = 1000

// runCron does the periodic connection work Redis does in clientsCron:
// closing idle clients, and returning to the OS the memory a burst of
// connections leaves behind. It stops when the server closes.
func (s *Server) runCron() {
	t := time.NewTicker(cronInterval)
	defer t.Stop()
	peak := s.count.Load()
	prev := peak
	for {
		select {
		case <-s.closing:
			return
		case <-t.C:
		}
		if timeout := s.eng.IdleTimeout(); timeout > 0 {
			s.closeIdle(int64(timeout/time.Second), time.Now().Unix())
		}
		s.checkOutputLimits(time.Now()) // outbuf.go
		peak, prev = s.releaseAfterStorm(peak, prev)
	}
}

// closeIdle closes the clients idle for more than timeout seconds, as
// Redis's clientsCronHandleTimeout: not subscribed clients (they wait for
// messages), not those in a command (blocked in BLPOP, held by CLIENT
// PAUSE). Like Redis it compares whole seconds, so a client goes between
// timeout and timeout+1 seconds after its last read or write.
func (s *Server) closeIdle(timeout, now int64) {
	s.mu.Lock()
	var idle []*client
	for c := range s.clients {
		if c.busy.Load() || c.sess.Subscriptions() > 0 {
			continue
		}
		if now-c.gc.lastIO.Load() > timeout {
			idle = append(idle, c)
		}
	}
	s.mu.Unlock()
	for _, c := range idle {
		s.opts.Logf("verbose", "Closing idle client")
		c.gc.Conn.Close()
	}
}

// releaseAfterStorm returns freed memory to the OS once stormSize
// connections have closed since the high-water mark peak and the count
// has stopped falling since the previous tick (prev), so that a storm
// ending over several ticks costs one release; it returns the new peak
// and prev. Each connection's goroutine stack and buffers are garbage once
// it closes, but Go's runtime keeps the pages for reuse and gives them
// back slowly (the next GC may be minutes away when nothing allocates), so
// after 10,000 connections the process stayed near its peak RSS; a forced
// release after the storm brings it down at the cost of one GC, at most
// once per storm.
func (s *Server) releaseAfterStorm(peak, prev int64) (int64, int64) {
	n := s.count.Load()
	switch {
	case n > peak:
		return n, n
	case peak-n >= stormSize && n >= prev:
		debug.FreeOSMemory()
		return n, n
	}
	return peak, n
}

// setKeepAlive applies tcp-keepalive to an accepted connection as Redis's
// anetKeepAlive: the first probe after period idle, then every period/3
// (at least 1 s), the peer given up after 3 unanswered probes; 0 turns
// keepalive off (Go's listener turns it on at 15 s by default).
func setKeepAlive(c *net.TCPConn, period time.Duration, logf func(level, format string, args ...any)) {
	cfg := net.KeepAliveConfig{Enable: period > 0}
	if period > 0 {
		cfg.Idle = period
		cfg.Interval = max(period/3, time.Second).Truncate(time.Second)
		cfg.Count = 3
	}
	if err := c.SetKeepAliveConfig(cfg); err != nil {
		logf("verbose", "Error configuring TCP keepalive: %v", err)
	}
}
