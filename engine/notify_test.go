package engine

import (
	"strings"
	"sync"
	"testing"
	"time"
)

// eventLog is a Publisher that records what it is asked to deliver, as
// "channel message" lines.
type eventLog struct {
	mu  sync.Mutex
	got []string
}

func (l *eventLog) Receivers([]byte) int { return 1 }

func (l *eventLog) Deliver(channel, message []byte) {
	l.mu.Lock()
	l.got = append(l.got, string(channel)+" "+string(message))
	l.mu.Unlock()
}

// take returns what was delivered since the last take.
func (l *eventLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	got := l.got
	l.got = nil
	return got
}

// notifyEngine is a test engine publishing keyspace events of classes
// (notify-keyspace-events letters) to a log.
func notifyEngine(t *testing.T, classes string) (*testEngine, *eventLog) {
	te := newTestEngine(t)
	log := &eventLog{}
	te.SetPublisher(log)
	f, ok := ParseNotifyClasses(classes)
	if !ok {
		t.Fatalf("bad classes %q", classes)
	}
	te.SetNotifyClasses(f)
	return te, log
}

// Events of lockredis's own commands and paths that the differential
// tests cannot compare with redis-server: LOCK.*, DELEX, DELIFEQ, SET
// IFEQ, the sweeper, lock hand-overs, and the filtering by class.
func TestNotifyEvents(t *testing.T) {
	for _, tc := range []struct {
		name    string
		classes string
		setup   [][]string
		cmds    [][]string
		ff      time.Duration // fast-forward between setup and cmds
		sweep   bool          // run the sweeper after cmds
		want    string        // keyevent channels' suffix and key, one a line
	}{
		{name: "lock acquire", classes: "EA", cmds: [][]string{cmd("LOCK.ACQUIRE", "l", "o", "1000")},
			want: "set l|expire l"},
		{name: "lock acquire new", classes: "En", cmds: [][]string{cmd("LOCK.ACQUIRE", "l", "o", "1000")},
			want: "new l"},
		{name: "lock retry", classes: "EA", setup: [][]string{cmd("LOCK.ACQUIRE", "l", "o", "1000")},
			cmds: [][]string{cmd("LOCK.ACQUIRE", "l", "o", "1000"), cmd("LOCK.ACQUIRE", "l", "other", "1000")},
			want: "expire l"},
		{name: "lock extend release", classes: "EA", setup: [][]string{cmd("LOCK.ACQUIRE", "l", "o", "1000")},
			cmds: [][]string{cmd("LOCK.EXTEND", "l", "x", "5000"), cmd("LOCK.EXTEND", "l", "o", "5000"),
				cmd("LOCK.RELEASE", "l", "x"), cmd("LOCK.RELEASE", "l", "o"), cmd("LOCK.RELEASE", "l", "o")},
			want: "expire l|del l"},
		{name: "lock expired by sweeper", classes: "Ex", setup: [][]string{cmd("LOCK.ACQUIRE", "l", "o", "1000")},
			ff: 2 * time.Second, sweep: true, want: "expired l"},
		{name: "delex", classes: "Eg", setup: [][]string{cmd("SET", "a", "1"), cmd("SET", "b", "1")},
			cmds: [][]string{cmd("DELEX", "a"), cmd("DELEX", "a"), cmd("DELEX", "b", "IFEQ", "2"),
				cmd("DELEX", "b", "IFEQ", "1"), cmd("SET", "c", "1"), cmd("DELIFEQ", "c", "2"), cmd("DELIFEQ", "c", "1")},
			want: "del a|del b|del c"},
		{name: "set ifeq", classes: "EA", setup: [][]string{cmd("SET", "a", "1")},
			cmds: [][]string{cmd("SET", "a", "2", "IFEQ", "9"), cmd("SET", "a", "2", "IFEQ", "1"),
				cmd("SET", "b", "2", "IFEQ", "1"), cmd("SET", "a", "3", "IFNE", "3", "PX", "100")},
			want: "set a|set a|expire a"},
		{name: "classes filter", classes: "El", cmds: [][]string{cmd("SET", "a", "1"), cmd("LPUSH", "l", "x"), cmd("DEL", "l")},
			want: "lpush l"},
		{name: "no channel kind", classes: "A", cmds: [][]string{cmd("SET", "a", "1")}},
		{name: "keymiss not from object", classes: "Em", cmds: [][]string{cmd("OBJECT", "ENCODING", "x"), cmd("GET", "x"), cmd("SET", "x", "1")},
			want: "keymiss x"},
		{name: "expired once in a read", classes: "Exm", setup: [][]string{cmd("SET", "k", "v", "PX", "10")},
			ff: time.Second, cmds: [][]string{cmd("MGET", "k", "k")},
			want: "expired k|keymiss k|keymiss k"},
		{name: "expired by sweeper", classes: "Ex", setup: [][]string{cmd("SET", "a", "1", "PX", "10"), cmd("SET", "b", "1")},
			ff: time.Second, sweep: true, want: "expired a"},
		{name: "other db", classes: "Eg", setup: [][]string{cmd("SET", "a", "1")},
			cmds: [][]string{cmd("MOVE", "a", "2"), cmd("SELECT", "2"), cmd("DEL", "a"), cmd("SELECT", "0")},
			want: "move_from a|move_to a|del a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			te, log := notifyEngine(t, tc.classes)
			for _, c := range tc.setup {
				te.do(c...)
			}
			te.Clock.FastForward(tc.ff)
			log.take()
			for _, c := range tc.cmds {
				te.do(c...)
			}
			if tc.sweep {
				te.Sweep(0)
			}
			var got []string
			for _, m := range log.take() {
				// "__keyevent@<db>__:<event> <key>" -> "<event> <key>"
				_, after, ok := strings.Cut(m, "__:")
				if !ok || !strings.HasPrefix(m, "__keyevent@") {
					t.Fatalf("unexpected delivery %q", m)
				}
				got = append(got, after)
			}
			if g := strings.Join(got, "|"); g != tc.want {
				t.Errorf("events\n got %s\nwant %s", g, tc.want)
			}
		})
	}
}

// A lock handed to a waiter when its holder releases it raises the
// release's "del", then the waiter's grant, a SET PX NX: "new", "set",
// "expire". Expiry hands over the same way, after "expired".
func TestNotifyLockHandOver(t *testing.T) {
	for _, tc := range []struct {
		name string
		free func(te *testEngine)
		want string
	}{
		{"release", func(te *testEngine) { te.do("LOCK.RELEASE", "l", "holder") },
			"keyspace l del|keyevent del l|keyspace l new|keyevent new l|keyspace l set|keyevent set l|keyspace l expire|keyevent expire l"},
		{"expiry", func(te *testEngine) { te.Clock.FastForward(2 * time.Second); te.Sweep(0) },
			"keyspace l expired|keyevent expired l|keyspace l new|keyevent new l|keyspace l set|keyevent set l|keyspace l expire|keyevent expire l"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			te, log := notifyEngine(t, "KEAn")
			te.do("LOCK.ACQUIRE", "l", "holder", "1000")
			_, w := te.lockWaiter("l", "w1")
			log.take()
			tc.free(te)
			if got := served(t, w); !strings.HasPrefix(got, "(integer) ") {
				t.Fatalf("waiter: %s", got)
			}
			var got []string
			for _, m := range log.take() {
				m = strings.Replace(strings.Replace(m, "__keyspace@0__:", "keyspace ", 1), "__keyevent@0__:", "keyevent ", 1)
				got = append(got, m)
			}
			if g := strings.Join(got, "|"); g != tc.want {
				t.Errorf("events\n got %s\nwant %s", g, tc.want)
			}
		})
	}
}
