package luasvc

import (
	"strconv"
	"testing"

	"github.com/lockredis/lockredis/engine"
)

// The scripts lock clients run most: redsync's release (compare and
// delete) and Redisson's reentrant tryLock.
const (
	releaseScript = `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) else return 0 end`
	acquireScript = "if ((redis.call('exists', KEYS[1]) == 0) or (redis.call('hexists', KEYS[1], ARGV[2]) == 1)) then " +
		"redis.call('hincrby', KEYS[1], ARGV[2], 1); " +
		"redis.call('pexpire', KEYS[1], ARGV[1]); " +
		"return nil; " +
		"end; " +
		"return redis.call('pttl', KEYS[1]);"
)

// benchRun runs a resolved command the way a connection does, reusing the
// argument vector.
func benchRun(b *testing.B, ts *testService, args [][]byte, rec *engine.Recorder) {
	rec.Reset()
	ts.e.Dispatch(ts.s, nil, args, rec)
	if len(rec.Replies) != 1 || rec.Replies[0].Kind == engine.KindError {
		b.Fatalf("%q: %v", args, rec.Replies)
	}
}

// BenchmarkRelease is a lock's life in two commands: SET, then the
// compare-and-delete script.
func BenchmarkRelease(b *testing.B) {
	b.Run("native", func(b *testing.B) { benchRelease(b, Options{}) })
	b.Run("lua", func(b *testing.B) { benchRelease(b, Options{LuaOnly: true}) })
}

func benchRelease(b *testing.B, opts Options) {
	ts := newTestService(b, opts)
	sha := ts.do("SCRIPT", "LOAD", releaseScript).Str
	var rec engine.Recorder
	setArgs := [][]byte{[]byte("SET"), []byte("lock:1"), []byte("token-1")}
	relArgs := [][]byte{[]byte("EVALSHA"), []byte(sha), []byte("1"), []byte("lock:1"), []byte("token-1")}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		benchRun(b, ts, setArgs, &rec)
		benchRun(b, ts, relArgs, &rec)
		if rec.Replies[0].Int != 1 {
			b.Fatal(rec.Replies[0])
		}
	}
}

// BenchmarkReentrantAcquire is Redisson's tryLock, reentering a held lock
// (five commands on a hash), the lock deleted every 64 acquisitions.
func BenchmarkReentrantAcquire(b *testing.B) {
	b.Run("native", func(b *testing.B) { benchReentrantAcquire(b, Options{}) })
	b.Run("lua", func(b *testing.B) { benchReentrantAcquire(b, Options{LuaOnly: true}) })
}

func benchReentrantAcquire(b *testing.B, opts Options) {
	ts := newTestService(b, opts)
	sha := ts.do("SCRIPT", "LOAD", acquireScript).Str
	var rec engine.Recorder
	args := [][]byte{[]byte("EVALSHA"), []byte(sha), []byte("1"), []byte("lock:1"), []byte("30000"), []byte("uuid-1:" + strconv.Itoa(1))}
	delArgs := [][]byte{[]byte("DEL"), []byte("lock:1")}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%64 == 0 {
			benchRun(b, ts, delArgs, &rec)
		}
		benchRun(b, ts, args, &rec)
	}
}

// BenchmarkEvalSHAReturn1 is the fixed cost of a script: lookup, Lua
// call, reply, and the engine transaction around it.
func BenchmarkEvalSHAReturn1(b *testing.B) {
	ts := newTestService(b)
	sha := ts.do("SCRIPT", "LOAD", "return 1").Str
	var rec engine.Recorder
	args := [][]byte{[]byte("EVALSHA"), []byte(sha), []byte("0")}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		benchRun(b, ts, args, &rec)
	}
}
