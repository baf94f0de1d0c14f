package engine

import (
	"time"
)

// Pausing holds client commands back without closing connections, as
// CLIENT PAUSE does: a node that stops answering, for Redlock tests and for
// operators. Commands wait at the connection before they run.

// Pause holds commands back for d (writes only if writeOnly; d <= 0 means
// until Unpause). A longer or stronger pause replaces a shorter one.
func (e *Engine) Pause(d time.Duration, writeOnly bool) {
	p := &e.pause
	p.mu.Lock()
	defer p.mu.Unlock()
	until := time.Now().Add(d)
	if d <= 0 {
		until = time.Now().Add(100 * 365 * 24 * time.Hour)
	}
	// Decide the kind before the deadline moves: a pause of writes only
	// does not weaken a pause of everything still in force.
	active := !p.until.IsZero() && time.Now().Before(p.until)
	if !active || !writeOnly {
		p.writeOnly = writeOnly
	}
	if !active || until.After(p.until) {
		p.until = until
	}
	p.signal()
}

// Unpause lets waiting commands run.
func (e *Engine) Unpause() {
	p := &e.pause
	p.mu.Lock()
	defer p.mu.Unlock()
	p.until = time.Time{}
	p.writeOnly = false
	p.signal()
}

func (p *pauseState) signal() {
	if p.changed != nil {
		close(p.changed)
	}
	p.changed = make(chan struct{})
}

// WaitPause blocks while cmd is held back by a pause, or until done is
// closed. It returns at once when nothing is paused.
func (e *Engine) WaitPause(cmd *Command, done <-chan struct{}) {
	p := &e.pause
	for {
		p.mu.Lock()
		if p.until.IsZero() || (p.writeOnly && cmd.Flags&(FlagWrite|FlagWriteTx|FlagMayReplicate) == 0) {
			p.mu.Unlock()
			return
		}
		left := time.Until(p.until)
		if left <= 0 {
			p.until = time.Time{}
			p.mu.Unlock()
			return
		}
		if p.changed == nil {
			p.changed = make(chan struct{})
		}
		ch := p.changed
		p.mu.Unlock()
		t := time.NewTimer(left)
		select {
		case <-ch:
		case <-t.C:
		case <-done:
			t.Stop()
			return
		}
		t.Stop()
	}
}

// Paused reports whether a pause is in force.
func (e *Engine) Paused() bool {
	p := &e.pause
	p.mu.Lock()
	defer p.mu.Unlock()
	return !p.until.IsZero() && time.Now().Before(p.until)
}
