package engine

import "strconv"

// Keyspace notifications, as notify.c in Redis 7.0: a command that changes
// a key calls tx.Notify with the event's class and Redis's event name; when
// notify-keyspace-events enables the class, the event is published on
// __keyspace@<db>__:<key> (message: the event) and __keyevent@<db>__:<event>
// (message: the key). Events are queued in the transaction and leave after
// it commits, in the order the commands raised them, so a subscriber woken
// by one sees the change.

// NotifyClass is a set of keyspace event classes, with Redis's bits.
type NotifyClass uint32

// The classes; the letters are notify-keyspace-events'.
const (
	NotifyKeyspace NotifyClass = 1 << 0  // K
	NotifyKeyevent NotifyClass = 1 << 1  // E
	NotifyGeneric  NotifyClass = 1 << 2  // g
	NotifyString   NotifyClass = 1 << 3  // $
	NotifyList     NotifyClass = 1 << 4  // l
	NotifySet      NotifyClass = 1 << 5  // s
	NotifyHash     NotifyClass = 1 << 6  // h
	NotifyZset     NotifyClass = 1 << 7  // z
	NotifyExpired  NotifyClass = 1 << 8  // x
	NotifyEvicted  NotifyClass = 1 << 9  // e
	NotifyStream   NotifyClass = 1 << 10 // t
	NotifyKeyMiss  NotifyClass = 1 << 11 // m, not part of A
	NotifyModule   NotifyClass = 1 << 13 // d
	NotifyNew      NotifyClass = 1 << 14 // n, not part of A

	NotifyAll = NotifyGeneric | NotifyString | NotifyList | NotifySet | NotifyHash |
		NotifyZset | NotifyExpired | NotifyEvicted | NotifyStream | NotifyModule // A
)

// notifyLetters maps each letter to its classes, in the order
// NotifyClass.String writes the type classes.
var notifyLetters = []struct {
	letter byte
	class  NotifyClass
}{
	{'g', NotifyGeneric}, {'$', NotifyString}, {'l', NotifyList}, {'s', NotifySet},
	{'h', NotifyHash}, {'z', NotifyZset}, {'x', NotifyExpired}, {'e', NotifyEvicted},
	{'t', NotifyStream}, {'d', NotifyModule}, {'n', NotifyNew},
}

// errNotifyClasses is CONFIG SET's reason for a letter it does not know.
const errNotifyClasses = "Invalid event class character. Use 'Ag$lshzxeKEtmdn'."

// ParseNotifyClasses reads a notify-keyspace-events value
// (keyspaceEventsStringToFlags); ok is false on an unknown letter.
func ParseNotifyClasses(s string) (NotifyClass, bool) {
	var f NotifyClass
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case 'A':
			f |= NotifyAll
		case 'K':
			f |= NotifyKeyspace
		case 'E':
			f |= NotifyKeyevent
		case 'm':
			f |= NotifyKeyMiss
		default:
			found := false
			for _, l := range notifyLetters {
				if l.letter == s[i] {
					f |= l.class
					found = true
					break
				}
			}
			if !found {
				return 0, false
			}
		}
	}
	return f, true
}

// String is the value CONFIG GET shows (keyspaceEventsFlagsToString).
func (f NotifyClass) String() string {
	var b []byte
	if f&NotifyAll == NotifyAll {
		// Redis 7.0 writes no 'n' after 'A', though the class stays on.
		b = append(b, 'A')
	} else {
		for _, l := range notifyLetters {
			if f&l.class != 0 {
				b = append(b, l.letter)
			}
		}
	}
	if f&NotifyKeyspace != 0 {
		b = append(b, 'K')
	}
	if f&NotifyKeyevent != 0 {
		b = append(b, 'E')
	}
	if f&NotifyKeyMiss != 0 {
		b = append(b, 'm')
	}
	return string(b)
}

// NotifyClasses is the engine's notify-keyspace-events setting.
func (e *Engine) NotifyClasses() NotifyClass { return NotifyClass(e.notifyClasses.Load()) }

// SetNotifyClasses sets notify-keyspace-events.
func (e *Engine) SetNotifyClasses(f NotifyClass) { e.notifyClasses.Store(uint32(f)) }

// bindNotifyParams binds notify-keyspace-events: its letters are read
// here, and CONFIG REWRITE writes them quoted, adding no line for "" to a
// file without one (rewriteConfigNotifyKeyspaceEventsOption).
func (e *Engine) bindNotifyParams() {
	e.bindParam("notify-keyspace-events", paramBinding{
		get: func() string { return e.NotifyClasses().String() },
		check: func(v string) (string, string) {
			f, ok := ParseNotifyClasses(v)
			if !ok {
				return "", errNotifyClasses
			}
			if f&NotifyAll == NotifyAll && f&NotifyNew != 0 {
				// String hides 'n' after 'A' (as Redis 7.0's CONFIG
				// GET); the value applied must keep it.
				return f.String() + "n", ""
			}
			return f.String(), ""
		},
		apply: func(v string) error {
			f, _ := ParseNotifyClasses(v)
			e.SetNotifyClasses(f)
			return nil
		},
		rewrite: func() ([]string, bool) {
			v := e.NotifyClasses().String()
			return []string{`notify-keyspace-events "` + v + `"`}, v != ""
		},
	})
}

// Notify raises a keyspace event of class for key in the transaction's
// database (notifyKeyspaceEvent). event is Redis's name ("set", "del",
// "expired"...). It costs one atomic load when the class is off.
func (tx *Tx) Notify(class NotifyClass, event string, key []byte) {
	tx.NotifyDB(tx.DB, class, event, key)
}

// NotifyDB is Notify for a key in database db (MOVE, COPY ... DB, SWAPDB).
//
// Redis publishes while the command runs: a RESP3 connection subscribed to
// the events of its own command gets the push where the command raised it,
// after what its reply wrote so far and before the rest. With a Publisher
// that is a SelfPublisher the origin's connection is served so, at once;
// the others after commit, when a subscriber woken by the event sees the
// change.
func (tx *Tx) NotifyDB(db int, class NotifyClass, event string, key []byte) {
	e := tx.e
	f := e.NotifyClasses()
	if f&class == 0 || f&(NotifyKeyspace|NotifyKeyevent) == 0 || e.publisher == nil {
		return
	}
	prefix := strconv.Itoa(db) + "__:"
	var space, ev []byte
	if f&NotifyKeyspace != 0 {
		space = append([]byte("__keyspace@"+prefix), key...)
	}
	if f&NotifyKeyevent != 0 {
		ev = []byte("__keyevent@" + prefix + event)
	}
	k := append([]byte(nil), key...)
	p := e.publisher
	deliver := p.Deliver
	if sp, ok := p.(SelfPublisher); ok && tx.clientCall != nil && sp.Subscriber(tx.clientCall.S) {
		// The Call is reused once the command ends: keep its session.
		self := tx.clientCall.S
		if fl, ok := tx.clientCall.W.(Flusher); ok {
			fl.FlushPending()
		}
		if space != nil {
			sp.DeliverTo(self, space, []byte(event))
		}
		if ev != nil {
			sp.DeliverTo(self, ev, k)
		}
		deliver = func(channel, message []byte) { sp.DeliverExcept(self, channel, message) }
	}
	tx.After(func() {
		if space != nil {
			deliver(space, []byte(event))
		}
		if ev != nil {
			deliver(ev, k)
		}
	})
}

// SelfPublisher is implemented by a Publisher that can write to the
// connection of the command raising a keyspace event at once (see
// NotifyDB). The pubsub package implements it; the engine only knows this
// interface.
type SelfPublisher interface {
	// Subscriber reports whether s's connection takes pushes: its events
	// then go through DeliverTo, and DeliverExcept leaves it out.
	Subscriber(s *Session) bool
	// DeliverTo delivers the message to s's connection only, if it is
	// subscribed to the channel or a matching pattern.
	DeliverTo(s *Session, channel, message []byte)
	// DeliverExcept delivers the message to every receiver but s.
	DeliverExcept(s *Session, channel, message []byte)
}

// notifyNew raises "new" for a key a write creates (Redis's dbAdd): before
// the command's own event, so the store functions raise it.
func (tx *Tx) notifyNew(db int, key []byte) {
	tx.NotifyDB(db, NotifyNew, "new", key)
}

// notifyKeyMiss raises "keymiss" for a read lookup that found nothing
// (Redis's lookupKeyReadWithFlags without LOOKUP_NONOTIFY).
func (tx *Tx) notifyKeyMiss(key []byte) {
	tx.Notify(NotifyKeyMiss, "keymiss", key)
}
