package engine

import (
	"strconv"
	"strings"
	"sync"
	"testing"
)

// trackingClient is a session with a push function that records the
// frames it is sent, as a detached connection would queue them.
type trackingClient struct {
	*Session
	mu     sync.Mutex
	frames []string
}

func newTrackingClient(te *testEngine, proto int) *trackingClient {
	s := NewSession(KindClient)
	s.Authenticated = true
	te.AddSession(s)
	s.SetProto(proto)
	tc := &trackingClient{Session: s}
	s.SetPush(func(write func(Writer)) {
		w := pushEncoder{proto: s.SharedProto()}
		write(&w)
		tc.mu.Lock()
		tc.frames = append(tc.frames, w.b.String())
		tc.mu.Unlock()
	})
	return tc
}

// pushEncoder encodes the few writer calls an invalidation makes as resp's
// Encoder does (the engine cannot import resp).
type pushEncoder struct {
	Recorder // the rest of Writer, unused here
	proto    int
	b        strings.Builder
}

func (w *pushEncoder) Push(n int) {
	if w.proto == 3 {
		w.b.WriteString(">" + itoa(n) + "\r\n")
		return
	}
	w.Array(n)
}
func (w *pushEncoder) Array(n int)         { w.b.WriteString("*" + itoa(n) + "\r\n") }
func (w *pushEncoder) BulkString(s string) { w.b.WriteString("$" + itoa(len(s)) + "\r\n" + s + "\r\n") }
func (w *pushEncoder) Int(n int64)         { w.b.WriteString(":" + strconv.FormatInt(n, 10) + "\r\n") }
func (w *pushEncoder) Null()               { w.NullOf(w.proto) }
func (w *pushEncoder) NullOf(proto int) {
	if proto == 3 {
		w.b.WriteString("_\r\n")
		return
	}
	w.b.WriteString("$-1\r\n")
}

func (tc *trackingClient) take() []string {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	out := tc.frames
	tc.frames = nil
	return out
}

// doAs runs a command for s and returns its reply.
func (te *testEngine) doAs(s *Session, args ...string) string { return te.replyAs(s, args...).String() }

func (te *testEngine) replyAs(s *Session, args ...string) Reply {
	bargs := make([][]byte, len(args))
	for i, a := range args {
		bargs[i] = []byte(a)
	}
	var rec Recorder
	te.Dispatch(s, nil, bargs, &rec)
	s.RunAfterReply()
	if len(rec.Replies) != 1 {
		te.t.Fatalf("%q wrote %d replies, want 1", args, len(rec.Replies))
	}
	return rec.Replies[0]
}

func invalidation(keys ...string) string {
	var b strings.Builder
	b.WriteString(">2\r\n$10\r\ninvalidate\r\n*")
	b.WriteString(itoa(len(keys)))
	b.WriteString("\r\n")
	for _, k := range keys {
		b.WriteString("$" + itoa(len(k)) + "\r\n" + k + "\r\n")
	}
	return b.String()
}

func itoa(n int) string { return strconv.Itoa(n) }

// trackingInfo returns INFO's tracking lines.
func (te *testEngine) trackingInfo() string {
	var lines []string
	for _, sec := range []string{"clients", "stats"} {
		for _, l := range strings.Split(te.replyAs(te.s, "INFO", sec).Str, "\r\n") {
			if strings.HasPrefix(l, "tracking_") {
				lines = append(lines, l)
			}
		}
	}
	return strings.Join(lines, " ")
}

// TestTrackingTableMaxKeys: past tracking-table-max-keys the table drops
// keys before the next command, each with the invalidation a change would
// send, until it is back within the limit.
func TestTrackingTableMaxKeys(t *testing.T) {
	te := newTestEngine(t)
	k := newTrackingClient(te, 3)
	if got := te.doAs(k.Session, "CLIENT", "TRACKING", "ON"); got != "OK" {
		t.Fatalf("CLIENT TRACKING ON: %s", got)
	}
	if got := te.doAs(te.s, "CONFIG", "SET", "tracking-table-max-keys", "3"); got != "OK" {
		t.Fatalf("CONFIG SET: %s", got)
	}
	read := []string{"k1", "k2", "k3", "k4", "k5"}
	for _, key := range read {
		te.doAs(k.Session, "GET", key)
	}
	// The last GET left 4 keys (the limit is checked before a command):
	// the next command brings the table back to 3 with one eviction.
	if got := k.take(); len(got) != 1 {
		t.Fatalf("invalidations while reading: %q; want 1 eviction", got)
	}
	te.doAs(te.s, "PING")
	evicted := k.take()
	if len(evicted) != 1 {
		t.Fatalf("evictions before PING: %q; want 1", evicted)
	}
	if got, want := te.trackingInfo(), "tracking_clients:1 tracking_total_keys:3 tracking_total_items:3 tracking_total_prefixes:0"; got != want {
		t.Errorf("INFO: %s; want %s", got, want)
	}
	// Lowering the limit evicts more at the next command; every evicted
	// key is one the client read, invalidated once.
	te.doAs(te.s, "CONFIG", "SET", "tracking-table-max-keys", "1")
	te.doAs(te.s, "PING")
	evicted = append(evicted, k.take()...)
	if len(evicted) != 3 {
		t.Fatalf("evictions after lowering the limit to 1: %q; want 3 in all", evicted)
	}
	seen := map[string]bool{}
	for _, key := range read {
		for _, f := range evicted {
			if f == invalidation(key) {
				seen[key] = true
			}
		}
	}
	if len(seen) != 3 {
		t.Errorf("evictions %q: want 3 distinct keys among %v", evicted, read)
	}
	// 0 lifts the limit.
	te.doAs(te.s, "CONFIG", "SET", "tracking-table-max-keys", "0")
	for i := 0; i < 50; i++ {
		te.doAs(k.Session, "GET", "many"+itoa(i))
	}
	te.doAs(te.s, "PING")
	if got := k.take(); len(got) != 0 {
		t.Errorf("evictions without a limit: %d", len(got))
	}
	if got, want := te.trackingInfo(), "tracking_clients:1 tracking_total_keys:51 tracking_total_items:51 tracking_total_prefixes:0"; got != want {
		t.Errorf("INFO: %s; want %s", got, want)
	}
}

// TestTrackingInvalidations checks, per mode, which client gets what, on
// pushes recorded in order.
func TestTrackingInvalidations(t *testing.T) {
	te := newTestEngine(t)
	k := newTrackingClient(te, 3)
	w := newTrackingClient(te, 2)
	steps := []struct {
		s    *Session
		args []string
		want []string // pushes k receives
	}{
		{k.Session, cmd("CLIENT", "TRACKING", "ON"), nil},
		{k.Session, cmd("GET", "a"), nil},
		{w.Session, cmd("SET", "a", "1"), []string{invalidation("a")}},
		{w.Session, cmd("SET", "a", "2"), nil},
		{k.Session, cmd("MGET", "a", "b"), nil},
		{k.Session, cmd("SET", "b", "1"), []string{invalidation("b")}},
		{w.Session, cmd("FLUSHALL"), []string{">2\r\n$10\r\ninvalidate\r\n_\r\n"}},
		{w.Session, cmd("SET", "a", "3"), nil},
		{k.Session, cmd("CLIENT", "TRACKING", "OFF"), nil},
		{k.Session, cmd("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "x", "PREFIX", "y"), nil},
		{w.Session, cmd("MSET", "y2", "1", "x1", "1", "z", "1", "x0", "1"), []string{invalidation("x0", "x1"), invalidation("y2")}},
		{k.Session, cmd("CLIENT", "TRACKING", "ON", "BCAST", "NOLOOP"), nil},
		{k.Session, cmd("SET", "x3", "1"), nil},
		// ON BCAST without PREFIX added the prefix "" to x and y: one
		// message per matching prefix, as Redis.
		{w.Session, cmd("DEL", "x3"), []string{invalidation("x3"), invalidation("x3")}},
	}
	for _, st := range steps {
		te.doAs(st.s, st.args...)
		if got := k.take(); strings.Join(got, "|") != strings.Join(st.want, "|") {
			t.Errorf("%q: pushes %q, want %q", st.args, got, st.want)
		}
	}
	if got, want := te.trackingInfo(), "tracking_clients:1 tracking_total_keys:0 tracking_total_items:0 tracking_total_prefixes:3"; got != want {
		t.Errorf("INFO: %s; want %s", got, want)
	}
	te.RemoveSession(k.Session)
	if got, want := te.trackingInfo(), "tracking_clients:0 tracking_total_keys:0 tracking_total_items:0 tracking_total_prefixes:0"; got != want {
		t.Errorf("INFO after the client left: %s; want %s", got, want)
	}
}
