package engine

import (
	"strconv"
	"testing"
	"time"
)

// benchEngine is an engine (closed when the benchmark ends) and a client
// session that runs as the default user: the ACL check's fast path.
func benchEngine(b *testing.B) (*Engine, *Session) {
	e, err := New(Config{Clock: NewManualClock(time.Unix(1700000000, 0))})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { e.Close() })
	s := NewSession("normal")
	e.AddSession(s)
	return e, s
}

// BenchmarkSetNXPX is the lock-acquire command through the command table,
// as a connection runs it (without the network).
func BenchmarkSetNXPX(b *testing.B) {
	e, s := benchEngine(b)
	keys := make([][]byte, 100000)
	for i := range keys {
		keys[i] = []byte("lock:" + strconv.Itoa(i))
	}
	args := [][]byte{[]byte("SET"), nil, []byte("tok"), []byte("NX"), []byte("PX"), []byte("30000")}
	var rec Recorder
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		args[1] = keys[i%len(keys)]
		rec.Reset()
		e.Dispatch(s, nil, args, &rec)
	}
}

func BenchmarkGet(b *testing.B) {
	e, s := benchEngine(b)
	args := [][]byte{[]byte("GET"), []byte("lock:1")}
	var rec Recorder
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rec.Reset()
		e.Dispatch(s, nil, args, &rec)
	}
}

// BenchmarkGetLive is GET of a key that exists and has not expired: the
// hot path of a read, which lazy expiry must not slow down.
func BenchmarkGetLive(b *testing.B) {
	e, s := benchEngine(b)
	var rec Recorder
	set := [][]byte{[]byte("SET"), []byte("lock:1"), []byte("tok"), []byte("PX"), []byte("30000")}
	e.Dispatch(s, nil, set, &rec)
	args := [][]byte{[]byte("GET"), []byte("lock:1")}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rec.Reset()
		e.Dispatch(s, nil, args, &rec)
	}
}

// BenchmarkSetNXPXTeamUser is BenchmarkSetNXPX as a user restricted to a
// key prefix and a few commands: the full ACL check (command bit, one key
// pattern) on every command.
func BenchmarkSetNXPXTeamUser(b *testing.B) {
	e, s := benchEngine(b)
	if msg := e.acl.stringSetUser("team-a", []string{"on", "nopass", "~lock:team-a:*", "+@all", "-@dangerous"}); msg != "" {
		b.Fatal(msg)
	}
	s.user.Store(e.LookupUser("team-a"))
	keys := make([][]byte, 100000)
	for i := range keys {
		keys[i] = []byte("lock:team-a:" + strconv.Itoa(i))
	}
	args := [][]byte{[]byte("SET"), nil, []byte("tok"), []byte("NX"), []byte("PX"), []byte("30000")}
	var rec Recorder
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		args[1] = keys[i%len(keys)]
		rec.Reset()
		e.Dispatch(s, nil, args, &rec)
		if rec.Replies[0].Kind == KindError {
			b.Fatal(rec.Replies[0])
		}
	}
}

// BenchmarkACLCheckDefaultUser is the ACL check alone for the default
// user (allowed everything): the cost every command pays.
func BenchmarkACLCheckDefaultUser(b *testing.B) {
	e, s := benchEngine(b)
	args := [][]byte{[]byte("SET"), []byte("lock:1"), []byte("tok"), []byte("NX"), []byte("PX"), []byte("30000")}
	cmd := e.Table.Lookup(args)
	var rec Recorder
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if e.aclRefuses(s, cmd, args, &rec) {
			b.Fatal("refused")
		}
	}
}
