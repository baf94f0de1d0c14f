package lockredis

import (
	"bufio"
	"bytes"
	"net"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// releaseScript is the compare-and-delete release every SET NX client
// sends (redis.io's distlock pattern).
const releaseScript = `if redis.call("get",KEYS[1]) == ARGV[1] then return redis.call("del",KEYS[1]) else return 0 end`

// BenchmarkLockCommands is what the lock commands cost through the real
// server: a TCP client on loopback, the protocol guard, the command parser,
// the dispatcher, the keyspace and the reply writer. Each op is one round
// of the commands of a case (an acquire and its release, say), sent one at
// a time (P1) or 16 rounds in one write (P16); allocs/cmd and B/cmd divide
// by the commands of a round (ns/op and allocs/op are per round). The allocations count the whole process,
// server and client, and the client allocates nothing per op.
func BenchmarkLockCommands(b *testing.B) {
	srv, err := Run()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { srv.Close() })
	sha := srv.Do("SCRIPT", "LOAD", releaseScript).Str
	const keys = 1024
	for i := range keys {
		// GET and PEXPIRE find these; the pairs use their own keys.
		srv.Do("SET", "held:"+strconv.Itoa(i), "tok")
	}
	for _, tc := range []struct {
		name string
		cmds [][]string // one round; %k is the round's key number
	}{
		{"SET-NX-PX+EVALSHA-release", [][]string{
			{"SET", "lock:%k", "tok", "NX", "PX", "30000"},
			{"EVALSHA", sha, "1", "lock:%k", "tok"}}},
		{"SET-NX-PX+DEL", [][]string{
			{"SET", "lock:%k", "tok", "NX", "PX", "30000"},
			{"DEL", "lock:%k"}}},
		{"LOCK.ACQUIRE+LOCK.RELEASE", [][]string{
			{"LOCK.ACQUIRE", "lk:%k", "tok", "30000"},
			{"LOCK.RELEASE", "lk:%k", "tok"}}},
		{"GET", [][]string{{"GET", "held:%k"}}},
		{"PEXPIRE", [][]string{{"PEXPIRE", "held:%k", "30000"}}},
	} {
		for _, p := range []int{1, 16} {
			b.Run(tc.name+"/P"+strconv.Itoa(p), func(b *testing.B) {
				benchRounds(b, srv.Addr(), tc.cmds, keys, p)
			})
		}
	}
}

// benchRounds sends the rounds of cmds over keys, pipeline rounds per
// write, and reads every reply.
func benchRounds(b *testing.B, addr string, cmds [][]string, keys, pipeline int) {
	// Every write is encoded up front: the loop only copies bytes.
	writes := make([][]byte, keys/pipeline)
	for w := range writes {
		var buf bytes.Buffer
		for r := range pipeline {
			k := strconv.Itoa(w*pipeline + r)
			for _, cmd := range cmds {
				buf.WriteString("*" + strconv.Itoa(len(cmd)) + "\r\n")
				for _, a := range cmd {
					a = string(bytes.ReplaceAll([]byte(a), []byte("%k"), []byte(k)))
					buf.WriteString("$" + strconv.Itoa(len(a)) + "\r\n" + a + "\r\n")
				}
			}
		}
		writes[w] = buf.Bytes()
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	rd := bufio.NewReaderSize(c, 64<<10)
	replies := pipeline * len(cmds)
	round := func(w []byte) {
		if _, err := c.Write(w); err != nil {
			b.Fatal(err)
		}
		for range replies {
			if err := skipReply(rd); err != nil {
				b.Fatal(err)
			}
		}
	}
	for _, w := range writes { // warm up: buffers, the keys' first creation
		round(w)
	}
	b.ReportAllocs()
	b.ResetTimer()
	var before, after runtimeMem
	before.read()
	for i := 0; i < b.N; i += pipeline {
		round(writes[(i/pipeline)%len(writes)])
	}
	after.read()
	b.StopTimer()
	n := float64(((b.N + pipeline - 1) / pipeline) * replies)
	b.ReportMetric(float64(after.mallocs-before.mallocs)/n, "allocs/cmd")
	b.ReportMetric(float64(after.bytes-before.bytes)/n, "B/cmd")
}

// skipReply reads one reply of the kinds the lock commands give: a line
// (+ - :) or a bulk string ($, nil included).
func skipReply(rd *bufio.Reader) error {
	line, err := rd.ReadSlice('\n')
	if err != nil {
		return err
	}
	if line[0] == '-' {
		return &replyError{string(line)}
	}
	if line[0] != '$' {
		return nil
	}
	if line[1] == '-' {
		return nil // nil bulk
	}
	n := 0
	for _, c := range line[1 : len(line)-2] {
		n = n*10 + int(c-'0')
	}
	_, err = rd.Discard(n + 2)
	return err
}

type replyError struct{ s string }

// runtimeMem is the process's allocation counters.
type runtimeMem struct{ mallocs, bytes uint64 }

func (m *runtimeMem) read() {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m.mallocs, m.bytes = ms.Mallocs, ms.TotalAlloc
}

func (e *replyError) Error() string { return "reply: " + e.s }

// BenchmarkLockWait is lockwait.sh's queue case in one process, for a
// profile of the queue: clients on loopback contend for ONE lock, each
// looping LOCK.ACQUIRE ... WAIT and LOCK.RELEASE (no critical section),
// so all but the holder wait in the queue and every release hands the
// lock to the next. An op is one acquisition (and its release);
// allocs/acq counts the whole process (the clients allocate nothing per
// op) and cpu-µs/acq the process's CPU time, server and clients (the
// wall time per op says little on a loaded machine); syscalls are not
// counted here (strace -c -f on lockwait.sh's
// server for that).
func BenchmarkLockWait(b *testing.B) {
	for _, clients := range []int{2, 64} {
		b.Run("clients="+strconv.Itoa(clients), func(b *testing.B) {
			srv, err := Run()
			if err != nil {
				b.Fatal(err)
			}
			defer srv.Close()
			acquire := []byte("*6\r\n$12\r\nLOCK.ACQUIRE\r\n$4\r\nwait\r\n$%o\r\n%owner\r\n$5\r\n10000\r\n$4\r\nWAIT\r\n$5\r\n20000\r\n")
			release := []byte("*3\r\n$12\r\nLOCK.RELEASE\r\n$4\r\nwait\r\n$%o\r\n%owner\r\n")
			conns := make([]net.Conn, clients)
			for i := range conns {
				if conns[i], err = net.Dial("tcp", srv.Addr()); err != nil {
					b.Fatal(err)
				}
				defer conns[i].Close()
			}
			var done atomic.Int64
			var wg sync.WaitGroup
			var before, after runtimeMem
			b.ResetTimer()
			before.read()
			cpu0 := processCPU()
			for i, c := range conns {
				owner := "c" + strconv.Itoa(i)
				fill := func(tmpl []byte) []byte {
					s := strings.ReplaceAll(string(tmpl), "$%o", "$"+strconv.Itoa(len(owner)))
					return []byte(strings.ReplaceAll(s, "%owner", owner))
				}
				acq, rel := fill(acquire), fill(release)
				wg.Add(1)
				go func() {
					defer wg.Done()
					rd := bufio.NewReader(c)
					for {
						for _, cmd := range [][]byte{acq, rel} {
							if _, err := c.Write(cmd); err != nil {
								b.Error(err)
								return
							}
							line, err := rd.ReadSlice('\n')
							if err != nil || line[0] != ':' {
								b.Errorf("%q %v", line, err)
								return
							}
						}
						if done.Add(1) >= int64(b.N) {
							return
						}
					}
				}()
			}
			wg.Wait()
			cpu := processCPU() - cpu0
			after.read()
			b.StopTimer()
			n := float64(done.Load())
			b.ReportMetric(float64(cpu.Microseconds())/n, "cpu-µs/acq")
			b.ReportMetric(float64(after.mallocs-before.mallocs)/n, "allocs/acq")
			b.ReportMetric(float64(after.bytes-before.bytes)/n, "B/acq")
		})
	}
}

// processCPU is the process's user and system CPU time so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
