package resp

import (
	"sync/atomic"
	"time"

	"github.com/lockredis/lockredis/engine"
)

// Output buffer limits of normal clients (client-output-buffer-limit
// normal): replies wait in redcon's writer until the pipeline batch is
// flushed, and a client that does not read blocks its own goroutine in
// that write. outBuf counts the bytes handed to redcon and not yet taken
// by the socket; flush checks it after every reply (the hard limit, and
// the start of a soft-limit period) and the cron checks clients stuck in
// a write (the soft limit's seconds). Subscribed clients are the pubsub
// class, limited by pubsub/.
type outBuf struct {
	pending   atomic.Int64 // bytes handed to redcon, not yet written
	softSince atomic.Int64 // unix ms when pending passed the soft limit; 0: below it
	closed    atomic.Bool  // closed for its limit: logged once
}

// written takes n bytes the socket accepted off pending.
func (o *outBuf) written(n int) {
	for {
		old := o.pending.Load()
		nv := old - int64(n)
		if nv < 0 {
			nv = 0 // bytes redcon wrote by itself (its own errors)
		}
		if o.pending.CompareAndSwap(old, nv) {
			return
		}
	}
}

// over tells whether pending passes limit l now, as Redis's
// checkClientOutputBufferLimits: at or past the hard limit, or past the
// soft limit for more than its seconds.
func (o *outBuf) over(l engine.OutputLimit, now time.Time) bool {
	p := o.pending.Load()
	hard := l.Hard > 0 && p >= l.Hard
	soft := false
	if l.Soft > 0 && p >= l.Soft {
		ms := now.UnixMilli()
		since := o.softSince.Load()
		if since == 0 {
			o.softSince.CompareAndSwap(0, ms)
		} else if ms-since > l.SoftSeconds*1000 {
			soft = true
		}
	} else {
		o.softSince.Store(0)
	}
	return hard || soft
}

// checkOutputLimit closes c, with Redis's log line, if its pending output
// passes the normal clients' limit. It tells whether c was closed.
func (s *Server) checkOutputLimit(c *client, now time.Time) bool {
	if c.sub != nil || c.dc != nil {
		return false
	}
	l := s.eng.OutputLimit(engine.OutputNormal)
	if l.Hard <= 0 && l.Soft <= 0 {
		c.gc.obuf.softSince.Store(0)
		return false
	}
	if !c.gc.obuf.over(l, now) {
		return false
	}
	if c.gc.obuf.closed.CompareAndSwap(false, true) {
		s.opts.Logf("warning", "Client %s scheduled to be closed ASAP for overcoming of output buffer limits.",
			engine.ClientInfoString(c.sess.Info(now)))
		c.gc.Conn.Close()
	}
	return true
}

// checkOutputLimits is the cron's pass over clients stuck in a write.
func (s *Server) checkOutputLimits(now time.Time) {
	if l := s.eng.OutputLimit(engine.OutputNormal); l.Hard <= 0 && l.Soft <= 0 {
		return
	}
	s.mu.Lock()
	var cs []*client
	for c := range s.clients {
		if c.gc.obuf.pending.Load() > 0 {
			cs = append(cs, c)
		}
	}
	s.mu.Unlock()
	for _, c := range cs {
		s.checkOutputLimit(c, now)
	}
}
