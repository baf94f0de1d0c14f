package lockredis

import "sync"

// Message is what a Subscription receives: the channel a message was
// published on, the message, and the pattern of Subscribe's that matched.
type Message struct {
	Pattern string
	Channel string
	Message string
}

// Subscription receives, in this process, the messages published on the
// channels that match its patterns: PUBLISH's, and keyspace events. No
// message is dropped and the server never waits for the reader: messages
// queue until read from C.
type Subscription struct {
	// C delivers the messages in the order the server published them. It
	// is closed by Close.
	C <-chan Message

	stop    func()
	mu      sync.Mutex
	queue   []Message
	wake    chan struct{}
	done    chan struct{}
	closing sync.Once
}

// Subscribe listens to the channels matching patterns (globs, as
// PSUBSCRIBE's) without a network client, for tests that wait on events:
//
//	srv.Do("CONFIG", "SET", "notify-keyspace-events", "Ex")
//	sub := srv.Subscribe("__keyevent@0__:expired")
//	defer sub.Close()
//	srv.FastForward(time.Minute)
//	msg := <-sub.C // msg.Message is the key that expired
//
// Keyspace events are only published for the classes notify-keyspace-events
// enables (CONFIG SET, or Options.Params["notify-keyspace-events"]); by
// default, as in Redis, none. The subscription counts as a receiver, as a
// client's PSUBSCRIBE does (PUBLISH's reply, PUBSUB NUMPAT). The server
// must be started; after a Restart, as a client after a reconnection,
// subscribe again.
func (s *Server) Subscribe(patterns ...string) *Subscription {
	ch := make(chan Message)
	sub := &Subscription{C: ch, wake: make(chan struct{}, 1), done: make(chan struct{})}
	sub.stop = s.hub.Listen(patterns, func(pattern string, channel, message []byte) {
		sub.mu.Lock()
		sub.queue = append(sub.queue, Message{Pattern: pattern, Channel: string(channel), Message: string(message)})
		sub.mu.Unlock()
		select {
		case sub.wake <- struct{}{}:
		default:
		}
	})
	go sub.pump(ch)
	return sub
}

// pump hands the queued messages to C, one at a time, until Close.
func (sub *Subscription) pump(ch chan<- Message) {
	defer close(ch)
	for {
		sub.mu.Lock()
		if len(sub.queue) == 0 {
			sub.mu.Unlock()
			select {
			case <-sub.wake:
				continue
			case <-sub.done:
				return
			}
		}
		m := sub.queue[0]
		sub.queue[0] = Message{}
		sub.queue = sub.queue[1:]
		sub.mu.Unlock()
		select {
		case ch <- m:
		case <-sub.done:
			return
		}
	}
}

// Close ends the subscription and closes C; what was not read is dropped.
// It is safe to call twice.
func (sub *Subscription) Close() {
	sub.closing.Do(func() {
		sub.stop()
		close(sub.done)
	})
}
