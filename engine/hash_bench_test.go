package engine

import (
	"strconv"
	"testing"
)

// BenchmarkHashRedissonLock runs the hash commands of a Redisson lock
// (reentrant HINCRBY, HEXISTS, HGET on a "uuid:threadId" field) on 10000
// lock hashes without field expiries: the hot path that hash field expiry
// must leave as fast and as compact as it was. It reports the stored
// payload size of one lock hash (payload-B/lock).
func BenchmarkHashRedissonLock(b *testing.B) {
	for _, cmdName := range []string{"HINCRBY", "HEXISTS", "HGET"} {
		b.Run(cmdName, func(b *testing.B) {
			e, s := benchEngine(b)
			keys := make([][]byte, 10000)
			field := []byte("8743c9c0-0795-4907-87fd-6c719a6b4586:1")
			var rec Recorder
			for i := range keys {
				keys[i] = []byte("lock:" + strconv.Itoa(i))
				e.Dispatch(s, nil, [][]byte{[]byte("HINCRBY"), keys[i], field, []byte("1")}, &rec)
				e.Dispatch(s, nil, [][]byte{[]byte("PEXPIRE"), keys[i], []byte("30000")}, &rec)
			}
			var size int
			e.Do(false, 0, func(tx *Tx) {
				v, _ := tx.Get(keys[0])
				size = len(v.Payload)
			})
			args := [][]byte{[]byte(cmdName), nil, field}
			if cmdName == "HINCRBY" {
				args = append(args, []byte("0"))
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				args[1] = keys[i%len(keys)]
				rec.Reset()
				e.Dispatch(s, nil, args, &rec)
			}
			b.ReportMetric(float64(size), "payload-B/lock")
		})
	}
}
