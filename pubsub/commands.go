package pubsub

import (
	"errors"
	"sort"

	"github.com/lockredis/lockredis/engine"
)

// Register adds the pub/sub commands to e's table and makes h the engine's
// publisher.
func Register(e *engine.Engine, h *Hub) {
	e.SetPublisher(h)
	e.Table.RegisterWith(Specs(),
		&engine.Command{Name: "subscribe", Handler: h.subscribeCmd(kindChannel, "subscribe")},
		&engine.Command{Name: "psubscribe", Handler: h.subscribeCmd(kindPattern, "psubscribe")},
		&engine.Command{Name: "ssubscribe", Handler: h.subscribeCmd(kindShard, "ssubscribe")},
		&engine.Command{Name: "unsubscribe", Handler: h.unsubscribeCmd(kindChannel, "unsubscribe")},
		&engine.Command{Name: "punsubscribe", Handler: h.unsubscribeCmd(kindPattern, "punsubscribe")},
		&engine.Command{Name: "sunsubscribe", Handler: h.unsubscribeCmd(kindShard, "sunsubscribe")},
		&engine.Command{Name: "publish", Handler: h.publishCmd(false)},
		&engine.Command{Name: "spublish", Handler: h.publishCmd(true)},
		&engine.Command{Name: "pubsub", Subcommands: []*engine.Command{
			{Name: "channels", Handler: h.pubsubChannels(kindChannel)},
			{Name: "shardchannels", Handler: h.pubsubChannels(kindShard)},
			{Name: "numsub", Handler: h.pubsubNumSub(kindChannel)},
			{Name: "shardnumsub", Handler: h.pubsubNumSub(kindShard)},
			{Name: "numpat", Handler: h.pubsubNumPat},
			{Name: "help", Handler: pubsubHelp},
		}},
	)
}

// ErrNoPush is returned when a session that cannot receive pushes (a
// script, the Go API) tries to subscribe.
var ErrNoPush = errors.New("ERR this client cannot subscribe: it has no connection to push messages to")

func (h *Hub) subscribeCmd(k kind, verb string) engine.Handler {
	return func(c *engine.Call) {
		s := h.subscriberOf(c.S)
		if s == nil {
			c.Err(ErrNoPush)
			return
		}
		if f, ok := c.W.(engine.Flusher); ok {
			f.FlushPending() // EXEC's "*n" goes out before the confirmations
		}
		// The confirmation is queued under the hub lock together with the
		// subscription, so no message on the channel can overtake it.
		for _, arg := range c.Args[1:] {
			name := string(arg)
			h.mu.Lock()
			h.sub(s, k, name)
			s.sendConfirm(verb, &name, s.count(k))
			h.mu.Unlock()
		}
		s.publishCounts()
	}
}

func (h *Hub) unsubscribeCmd(k kind, verb string) engine.Handler {
	return func(c *engine.Call) {
		s := h.subscriberOf(c.S)
		if s == nil {
			// Never subscribed: Redis still confirms each name (or one
			// nil), with a count of 0.
			if len(c.Args) == 1 {
				c.W.Push(3)
				c.W.BulkString(verb)
				c.W.Null()
				c.W.Int(0)
				return
			}
			for _, name := range c.Args[1:] {
				c.W.Push(3)
				c.W.BulkString(verb)
				c.W.Bulk(name)
				c.W.Int(0)
			}
			return
		}
		if f, ok := c.W.(engine.Flusher); ok {
			f.FlushPending()
		}
		h.mu.Lock()
		names := make([]string, 0, len(c.Args)-1)
		for _, arg := range c.Args[1:] {
			names = append(names, string(arg))
		}
		if len(c.Args) == 1 {
			for name := range s.subs[k] {
				names = append(names, name)
			}
			sort.Strings(names)
		}
		for i := range names {
			h.unsub(s, k, names[i])
			s.sendConfirm(verb, &names[i], s.count(k))
		}
		if len(names) == 0 {
			s.sendConfirm(verb, nil, s.count(k))
		}
		h.mu.Unlock()
		s.publishCounts()
	}
}

func (h *Hub) publishCmd(shard bool) engine.Handler {
	return func(c *engine.Call) {
		ch, msg := c.Args[1], c.Args[2]
		// The connection the command came from: a script's caller.
		origin := c
		if c.S.ScriptCaller != nil {
			origin = c.S.ScriptCaller
		}
		self := h.subscriberOf(origin.S)
		if c.Tx == nil {
			// Not inside a script or EXEC, which hold the keyspace a
			// subscriber's command may need.
			h.settle(ch, shard, self)
		}
		var n int
		if shard {
			n = h.ShardReceivers(ch)
		} else {
			n = h.Receivers(ch)
		}
		deliver := func(to func(*Subscriber) bool) {
			if shard {
				h.deliverShard(ch, msg, to)
			} else {
				h.deliver(ch, msg, to)
			}
		}
		// A message to the publisher itself (a RESP3 subscriber) comes
		// after what its reply has written so far: inside EXEC, Redis 7.0
		// writes it between the elements of EXEC's array.
		if f, ok := origin.W.(engine.Flusher); ok {
			f.FlushPending()
		}
		if c.Tx == nil {
			deliver(nil)
			c.W.Int(int64(n))
			return
		}
		// Inside a script or EXEC, messages to other connections leave
		// after it commits (a subscriber woken by them must see its
		// writes), when the caller may have reused its argument buffers.
		// The publisher's own connection gets its message at once, where
		// Redis writes it; it runs nothing else before the commit.
		if self != nil {
			deliver(func(s *Subscriber) bool { return s == self })
		}
		ch, msg = append([]byte(nil), ch...), append([]byte(nil), msg...)
		c.Tx.After(func() { deliver(func(s *Subscriber) bool { return s != self }) })
		c.W.Int(int64(n))
	}
}

func (h *Hub) pubsubChannels(k kind) engine.Handler {
	return func(c *engine.Call) {
		if len(c.Args) > 3 {
			c.Errf("ERR unknown subcommand or wrong number of arguments for '%s'. Try PUBSUB HELP.", c.Args[1])
			return
		}
		var pattern []byte
		if len(c.Args) == 3 {
			pattern = c.Args[2]
		}
		names := h.names(k, pattern)
		c.W.Array(len(names))
		for _, n := range names {
			c.W.BulkString(n)
		}
	}
}

func (h *Hub) pubsubNumSub(k kind) engine.Handler {
	return func(c *engine.Call) {
		c.W.Array(2 * (len(c.Args) - 2))
		for _, name := range c.Args[2:] {
			c.W.Bulk(name)
			c.W.Int(int64(h.numSub(k, name)))
		}
	}
}

func (h *Hub) pubsubNumPat(c *engine.Call) {
	_, p, _ := h.Counts()
	c.W.Int(int64(p))
}

var pubsubHelpLines = []string{
	"PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"CHANNELS [<pattern>]",
	"    Return the currently active channels matching a <pattern> (default: '*').",
	"NUMPAT",
	"    Return number of subscriptions to patterns.",
	"NUMSUB [<channel> ...]",
	"    Return the number of subscribers for the specified channels, excluding",
	"    pattern subscriptions(default: no channels).",
	"SHARDCHANNELS [<pattern>]",
	"    Return the currently active shard level channels matching a <pattern> (default: '*').",
	"SHARDNUMSUB [<shardchannel> ...]",
	"    Return the number of subscribers for the specified shard level channel(s)",
	"HELP",
	"    Prints this help.",
}

func pubsubHelp(c *engine.Call) { engine.WriteHelp(c.W, pubsubHelpLines) }
