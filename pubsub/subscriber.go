package pubsub

import (
	"io"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lockredis/lockredis/engine"
)

// Subscriber is a connection that can receive pushes. Everything sent to
// the client after it subscribed, command replies and messages alike, goes
// through its queue, so the two stay in order. A goroutine of its own
// writes the queue to the socket; publishers only append.
type Subscriber struct {
	hub       *Hub
	sess      *engine.Session
	w         io.Writer
	closeConn func()
	proto     atomic.Int32
	// fn, for a listener in the same process (Hub.Listen), takes each
	// message instead of the queue; such a subscriber has no connection.
	fn func(pattern string, channel, message []byte)
	// settler, when set, tells whether the connection has run what its
	// client sent (settle.go); settling is set while this subscriber's
	// own PUBLISH waits for others.
	settler  Settler
	settling atomic.Bool

	mu        sync.Mutex
	out       queue   // queued, not yet taken by the writer
	spare     []chunk // the writer's previous chunk list, reused
	added     int64   // bytes put since begin
	scratch   []byte  // a push's framing, built before it is queued
	pending   int64   // queued plus being written
	softSince time.Time
	closed    bool // dropped: overflow or write error
	closing   bool // Close called: write what is queued, then stop
	wake      chan struct{}
	done      chan struct{}

	// subscriptions, changed under hub.mu
	subs [3]map[string]struct{}
}

// Attach makes the session's connection a subscriber writing to w.
// closeConn must close the socket (it is called on overflow and by Close).
// settler, if not nil, lets a PUBLISH wait for the commands the client
// sent before it (settle.go).
func (h *Hub) Attach(sess *engine.Session, w io.Writer, closeConn func(), settler Settler) *Subscriber {
	s := &Subscriber{
		hub: h, sess: sess, w: w, closeConn: closeConn, settler: settler,
		wake: make(chan struct{}, 1), done: make(chan struct{}),
	}
	for i := range s.subs {
		s.subs[i] = make(map[string]struct{})
	}
	s.proto.Store(int32(sess.Proto))
	h.mu.Lock()
	h.bySess[sess] = s
	h.mu.Unlock()
	go s.writer()
	return s
}

// Done is closed when the subscriber's writer has stopped.
func (s *Subscriber) Done() <-chan struct{} { return s.done }

// Send queues raw protocol bytes (a command reply). It never blocks. It
// runs on the connection's goroutine, which owns sess.Proto: the pushes
// queued after a reply take the protocol the session has then, so those
// behind a HELLO or RESET that switched it come in the new protocol and
// those before it in the old one, as Redis writes them.
func (s *Subscriber) Send(b []byte) {
	if !s.begin() {
		return
	}
	s.put(b)
	s.proto.Store(int32(s.sess.Proto))
	s.end()
}

// queued accounts for n new bytes, enforces the output limits and wakes
// the writer. s.mu is held.
func (s *Subscriber) queued(n int64) {
	if s.closed || s.closing {
		s.out.drop(&s.hub.pool)
		return
	}
	s.pending += n
	lim := s.hub.currentLimits()
	over := false
	switch {
	case lim.Hard > 0 && s.pending > lim.Hard:
		over = true
	case lim.Soft > 0 && s.pending > lim.Soft:
		now := time.Now()
		if s.softSince.IsZero() {
			s.softSince = now
		} else if now.Sub(s.softSince) > lim.SoftFor {
			over = true
		}
	default:
		s.softSince = time.Time{}
	}
	if over {
		// Redis frees such a client at once. Closing the socket ends the
		// connection's reader, which then unsubscribes everything; we may
		// be under the hub lock here, so do no more than that.
		s.hub.logf("warning", "Client id=%d closed for overcoming of output buffer limits.", s.sess.ID)
		s.closed = true
		s.out.drop(&s.hub.pool)
		s.closeConn()
	}
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// writer drains the queue to the socket, chunk by chunk, taking each
// chunk off pending once the socket accepted it. It stops on a write
// error, on overflow (queued data is dropped), or once Close asked it to
// and what was queued has been written.
func (s *Subscriber) writer() {
	defer close(s.done)
	for {
		_, more := <-s.wake
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return
		}
		// The chunks taken are the writer's alone: appends start a new
		// chunk, so nothing written here changes under it.
		batch := s.out.take(s.spare)
		s.spare = nil
		s.mu.Unlock()
		for i, c := range batch {
			if s.write(c) != nil {
				for _, c := range batch[i+1:] {
					if c.mapped {
						s.hub.pool.put(c)
					}
				}
				return
			}
			batch[i] = chunk{}
		}
		s.mu.Lock()
		s.spare = batch[:0]
		s.mu.Unlock()
		if !more {
			return
		}
	}
}

// write sends one chunk, takes it off pending and gives it back. On an
// error the subscriber is dropped and its connection closed.
func (s *Subscriber) write(c chunk) error {
	_, err := s.w.Write(c.b)
	s.mu.Lock()
	s.pending -= int64(len(c.b))
	if s.pending <= s.hub.currentLimits().Soft {
		s.softSince = time.Time{}
	}
	s.out.done(&s.hub.pool, c)
	if err != nil {
		s.closed = true
		s.out.drop(&s.hub.pool)
		s.mu.Unlock()
		s.closeConn()
		return err
	}
	s.mu.Unlock()
	return nil
}

// Close drops every subscription, lets the writer send what is queued
// (a QUIT's +OK, say) for up to a second, and closes the socket. It is
// safe to call twice.
func (s *Subscriber) Close() {
	h := s.hub
	h.mu.Lock()
	for k := range s.subs {
		for name := range s.subs[k] {
			h.unsub(s, kind(k), name)
		}
	}
	delete(h.bySess, s.sess)
	h.mu.Unlock()
	s.publishCounts()
	s.mu.Lock()
	already := s.closing
	s.closing = true
	s.mu.Unlock()
	if !already {
		close(s.wake)
		select {
		case <-s.done:
		case <-time.After(time.Second):
			// A client that does not read cannot hold up shutdown.
		}
	}
	s.closeConn()
	<-s.done
}

// UnsubscribeAll drops every subscription without confirming them (RESET).
func (s *Subscriber) UnsubscribeAll() {
	h := s.hub
	h.mu.Lock()
	for k := range s.subs {
		for name := range s.subs[k] {
			h.unsub(s, kind(k), name)
		}
	}
	h.mu.Unlock()
	s.publishCounts()
}

// count is the number Redis reports in (un)subscribe replies: channels
// plus patterns, or shard channels for the sharded commands.
func (s *Subscriber) count(k kind) int {
	if k == kindShard {
		return len(s.subs[kindShard])
	}
	return len(s.subs[kindChannel]) + len(s.subs[kindPattern])
}

// Subscribed reports whether any subscription is active.
func (s *Subscriber) Subscribed() bool {
	s.hub.mu.RLock()
	defer s.hub.mu.RUnlock()
	return s.count(kindChannel)+s.count(kindShard) > 0
}

// publishCounts copies the counts to the session for CLIENT LIST and for
// the subscribed-mode checks.
func (s *Subscriber) publishCounts() {
	s.hub.mu.RLock()
	c, p, sh := len(s.subs[kindChannel]), len(s.subs[kindPattern]), len(s.subs[kindShard])
	s.hub.mu.RUnlock()
	s.sess.Sub.Store(int32(c))
	s.sess.PSub.Store(int32(p))
	s.sess.SSub.Store(int32(sh))
}

// sub adds a subscription; h.mu is held for writing.
func (h *Hub) sub(s *Subscriber, k kind, name string) bool {
	if _, ok := s.subs[k][name]; ok {
		return false
	}
	s.subs[k][name] = struct{}{}
	t := h.table(k)
	m := t[name]
	if m == nil {
		m = make(map[*Subscriber]struct{})
		t[name] = m
		if k == kindPattern {
			h.patternOrder = append(h.patternOrder, name)
		}
	}
	m[s] = struct{}{}
	return true
}

// unsub removes a subscription; h.mu is held for writing.
func (h *Hub) unsub(s *Subscriber, k kind, name string) bool {
	if _, ok := s.subs[k][name]; !ok {
		return false
	}
	delete(s.subs[k], name)
	t := h.table(k)
	if m := t[name]; m != nil {
		delete(m, s)
		if len(m) == 0 {
			delete(t, name)
			if k == kindPattern {
				h.patternOrder = slices.DeleteFunc(h.patternOrder, func(p string) bool { return p == name })
			}
		}
	}
	return true
}

// Encoding of pushes. RESP2 uses arrays, RESP3 push frames. A push's
// framing is built in s.scratch and queued with its payload, which is
// copied once, into the queue.

func (s *Subscriber) header(b []byte, n int) []byte {
	if s.proto.Load() == 3 {
		b = append(b, '>')
	} else {
		b = append(b, '*')
	}
	b = strconv.AppendInt(b, int64(n), 10)
	return append(b, '\r', '\n')
}

func appendBulkString(b []byte, s string) []byte {
	b = appendBulkLen(b, len(s))
	b = append(b, s...)
	return append(b, '\r', '\n')
}

func appendBulk(b []byte, s []byte) []byte {
	b = appendBulkLen(b, len(s))
	b = append(b, s...)
	return append(b, '\r', '\n')
}

func appendBulkLen(b []byte, n int) []byte {
	b = append(b, '$')
	b = strconv.AppendInt(b, int64(n), 10)
	return append(b, '\r', '\n')
}

// begin and end bracket the puts of one reply or push; begin locks s.mu
// and tells whether the subscriber still takes output.
func (s *Subscriber) begin() bool {
	s.mu.Lock()
	if s.closed || s.closing {
		s.mu.Unlock()
		return false
	}
	s.added = 0
	return true
}

func (s *Subscriber) put(p []byte) {
	s.out.put(&s.hub.pool, p)
	s.added += int64(len(p))
}

func (s *Subscriber) end() {
	s.queued(s.added)
	s.mu.Unlock()
}

// push queues a push frame: the framing in s.scratch, then the payload
// as a bulk string.
func (s *Subscriber) push(msg []byte) {
	s.scratch = appendBulkLen(s.scratch, len(msg))
	s.put(s.scratch)
	s.put(msg)
	s.put(crlf)
}

var crlf = []byte("\r\n")

func (s *Subscriber) sendMessage(channel, msg []byte) {
	if s.fn != nil {
		s.fn("", channel, msg)
		return
	}
	if !s.begin() {
		return
	}
	b := s.header(s.scratch[:0], 3)
	b = append(b, "$7\r\nmessage\r\n"...)
	b = appendBulk(b, channel)
	s.scratch = b
	s.push(msg)
	s.end()
}

func (s *Subscriber) sendSMessage(channel, msg []byte) {
	if !s.begin() {
		return
	}
	b := s.header(s.scratch[:0], 3)
	b = append(b, "$8\r\nsmessage\r\n"...)
	b = appendBulk(b, channel)
	s.scratch = b
	s.push(msg)
	s.end()
}

func (s *Subscriber) sendPMessage(pattern string, channel, msg []byte) {
	if s.fn != nil {
		s.fn(pattern, channel, msg)
		return
	}
	if !s.begin() {
		return
	}
	b := s.header(s.scratch[:0], 4)
	b = append(b, "$8\r\npmessage\r\n"...)
	b = appendBulkString(b, pattern)
	b = appendBulk(b, channel)
	s.scratch = b
	s.push(msg)
	s.end()
}

// sendConfirm queues a (un)subscribe confirmation: [verb, name|nil, count].
func (s *Subscriber) sendConfirm(verb string, name *string, count int) {
	if !s.begin() {
		return
	}
	b := s.header(s.scratch[:0], 3)
	b = appendBulkString(b, verb)
	switch {
	case name != nil:
		b = appendBulkString(b, *name)
	case s.proto.Load() == 3:
		b = append(b, "_\r\n"...)
	default:
		b = append(b, "$-1\r\n"...)
	}
	b = append(b, ':')
	b = strconv.AppendInt(b, int64(count), 10)
	s.scratch = append(b, '\r', '\n')
	s.put(s.scratch)
	s.end()
}
