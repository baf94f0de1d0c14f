// Package pubsub delivers PUBLISH messages to subscribed connections
// without ever letting a slow subscriber stall the server: every
// subscriber has its own bounded outbound queue drained by its own
// goroutine, and publishing only appends to those queues.
package pubsub

import (
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lockredis/lockredis/engine"
)

// Limits is Redis's client-output-buffer-limit for pubsub clients: a
// subscriber whose unsent output exceeds Hard, or stays above Soft for
// SoftFor, is disconnected.
type Limits struct {
	Hard    int64
	Soft    int64
	SoftFor time.Duration
}

// DefaultLimits are Redis's defaults: "pubsub 32mb 8mb 60".
var DefaultLimits = Limits{Hard: 32 << 20, Soft: 8 << 20, SoftFor: 60 * time.Second}

// kind separates the three namespaces Redis keeps apart.
type kind uint8

const (
	kindChannel kind = iota
	kindPattern
	kindShard
)

// Hub is one server's channels, patterns and shard channels.
type Hub struct {
	limits Limits
	// limitsFn, when set, gives the current limits instead (CONFIG SET
	// client-output-buffer-limit changes them).
	limitsFn func() Limits
	logf     func(level, format string, args ...any)

	mu       sync.RWMutex
	channels map[string]map[*Subscriber]struct{}
	patterns map[string]map[*Subscriber]struct{}
	shards   map[string]map[*Subscriber]struct{}
	// patternOrder lists the patterns in the order they were first
	// subscribed: PUBLISH walks it, so deliveries have a stable order.
	patternOrder []string
	bySess       map[*engine.Session]*Subscriber

	messages atomic.Int64 // messages delivered, for INFO
	pool     chunkPool    // subscribers' written queue chunks, for reuse
}

// NewHub makes an empty hub.
func NewHub(limits Limits, logf func(level, format string, args ...any)) *Hub {
	if limits.Hard == 0 && limits.Soft == 0 {
		limits = DefaultLimits
	}
	if logf == nil {
		logf = func(string, string, ...any) {}
	}
	return &Hub{
		limits:   limits,
		logf:     logf,
		channels: make(map[string]map[*Subscriber]struct{}),
		patterns: make(map[string]map[*Subscriber]struct{}),
		shards:   make(map[string]map[*Subscriber]struct{}),
		bySess:   make(map[*engine.Session]*Subscriber),
	}
}

// SetLimitsFunc makes the hub read its limits from f at every check,
// so that they follow CONFIG SET; call it before the hub is used. With f
// a zero Limits means no limit, as "pubsub 0 0 0" in Redis.
func (h *Hub) SetLimitsFunc(f func() Limits) { h.limitsFn = f }

func (h *Hub) currentLimits() Limits {
	if h.limitsFn != nil {
		return h.limitsFn()
	}
	return h.limits
}

func (h *Hub) table(k kind) map[string]map[*Subscriber]struct{} {
	switch k {
	case kindPattern:
		return h.patterns
	case kindShard:
		return h.shards
	}
	return h.channels
}

// subscriberOf returns the session's subscriber, or nil if its connection
// cannot receive pushes.
func (h *Hub) subscriberOf(s *engine.Session) *Subscriber {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.bySess[s]
}

// Receivers counts who would get a PUBLISH on channel now: subscribers of
// the channel plus every subscription to a matching pattern.
func (h *Hub) Receivers(channel []byte) int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	n := len(h.channels[string(channel)])
	for _, p := range h.patternOrder {
		if engine.Glob(engine.StringBytes(p), channel, false) {
			n += len(h.patterns[p])
		}
	}
	return n
}

// Deliver queues message for every receiver of channel. It never blocks on
// a subscriber's socket.
func (h *Hub) Deliver(channel, message []byte) { h.deliver(channel, message, nil) }

// deliver is Deliver to the receivers that to accepts (all when to is
// nil).
func (h *Hub) deliver(channel, message []byte, to func(*Subscriber) bool) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	for sub := range h.channels[string(channel)] {
		if to == nil || to(sub) {
			sub.sendMessage(channel, message)
			h.messages.Add(1)
		}
	}
	for _, p := range h.patternOrder {
		if !engine.Glob(engine.StringBytes(p), channel, false) {
			continue
		}
		for sub := range h.patterns[p] {
			if to == nil || to(sub) {
				sub.sendPMessage(p, channel, message)
				h.messages.Add(1)
			}
		}
	}
}

// ShardReceivers counts subscribers of a shard channel (SPUBLISH).
func (h *Hub) ShardReceivers(channel []byte) int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.shards[string(channel)])
}

// deliverShard queues message for the subscribers of a shard channel
// that to accepts (all when to is nil).
func (h *Hub) deliverShard(channel, message []byte, to func(*Subscriber) bool) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	for sub := range h.shards[string(channel)] {
		if to == nil || to(sub) {
			sub.sendSMessage(channel, message)
			h.messages.Add(1)
		}
	}
}

// Messages is the number of messages delivered so far.
func (h *Hub) Messages() int64 { return h.messages.Load() }

// Counts returns the number of channels with subscribers, of patterns, and
// of shard channels (INFO pubsub_channels, pubsub_patterns).
func (h *Hub) Counts() (channels, patterns, shards int) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.channels), len(h.patterns), len(h.shards)
}

// names lists the channels (or shard channels) with subscribers that
// match pattern (all when pattern is nil), sorted.
func (h *Hub) names(k kind, pattern []byte) []string {
	h.mu.RLock()
	defer h.mu.RUnlock()
	var out []string
	for name := range h.table(k) {
		if pattern == nil || engine.Glob(pattern, []byte(name), false) {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

func (h *Hub) numSub(k kind, name []byte) int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.table(k)[string(name)])
}

// Close disconnects every subscriber.
func (h *Hub) Close() {
	h.mu.RLock()
	subs := make([]*Subscriber, 0, len(h.bySess))
	for _, s := range h.bySess {
		subs = append(subs, s)
	}
	h.mu.RUnlock()
	for _, s := range subs {
		s.Close()
	}
}

// SubscriptionsOf calls fn with each channel, shard channel and pattern
// (pattern true) the session is subscribed to, until fn returns false.
// The engine uses it to disconnect the subscribers whose ACL user lost
// access to one of them.
func (h *Hub) SubscriptionsOf(sess *engine.Session, fn func(name string, pattern bool) bool) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	s := h.bySess[sess]
	if s == nil {
		return
	}
	for k := range s.subs {
		for name := range s.subs[k] {
			if !fn(name, kind(k) == kindPattern) {
				return
			}
		}
	}
}

// Subscriber tells whether s's connection is subscribed to anything.
// Subscriber, DeliverTo and DeliverExcept make the hub an
// engine.SelfPublisher: keyspace events reach the connection whose command
// raised them at once, the others after the command commits.
func (h *Hub) Subscriber(s *engine.Session) bool { return h.subscriberOf(s) != nil }

// DeliverTo delivers message to sess's connection only.
func (h *Hub) DeliverTo(sess *engine.Session, channel, message []byte) {
	self := h.subscriberOf(sess)
	if self == nil {
		return
	}
	h.deliver(channel, message, func(s *Subscriber) bool { return s == self })
}

// DeliverExcept delivers message to every receiver but sess's connection.
func (h *Hub) DeliverExcept(sess *engine.Session, channel, message []byte) {
	self := h.subscriberOf(sess)
	h.deliver(channel, message, func(s *Subscriber) bool { return s != self })
}

var _ engine.SelfPublisher = (*Hub)(nil)

// Listen subscribes fn, in this process and without a connection, to
// patterns (globs, as PSUBSCRIBE's): fn gets every message PUBLISH or a
// keyspace event sends to a matching channel, with the pattern that
// matched. It counts as a receiver (PUBLISH's reply, PUBSUB NUMPAT), as a
// client's PSUBSCRIBE would. fn runs under the hub's lock: it must not
// block or call the hub. stop ends the subscription.
func (h *Hub) Listen(patterns []string, fn func(pattern string, channel, message []byte)) (stop func()) {
	s := &Subscriber{hub: h, fn: fn}
	for i := range s.subs {
		s.subs[i] = make(map[string]struct{})
	}
	h.mu.Lock()
	for _, p := range patterns {
		h.sub(s, kindPattern, p)
	}
	h.mu.Unlock()
	return func() {
		h.mu.Lock()
		for p := range s.subs[kindPattern] {
			h.unsub(s, kindPattern, p)
		}
		h.mu.Unlock()
	}
}
