// Command stall measures what a subscriber that never reads costs the other
// clients: against redis-server and lockredis in turn, a subscriber
// subscribes to a channel and then never reads (a raw socket with a small
// receive buffer), a publisher publishes MB megabytes in messages of 1 KB
// to 64 KB as fast as it can, and a third client runs SET NX PX / GET in a
// loop meanwhile, timing every command. It reports that client's worst and
// p99 latency during the publishing, the growth of the server's RSS
// (VmRSS in /proc/PID/status, peak minus before), the server's CPU time,
// and whether and when the subscriber was disconnected (the first PUBLISH
// that reaches nobody). Each run is done twice: with the default
// client-output-buffer-limit pubsub (32mb 8mb 60 on both servers), which
// disconnects the subscriber, and with "pubsub 0 0 0", so that all of it
// queues; and once more with no subscriber at all, the baseline: what
// reading and running that many big PUBLISH commands costs by itself. The
// servers take turns; medians over the rounds, as rows of a table like
// the one compat_test/bench/run.sh prints, with ratios lockredis /
// redis-server. Single runs move a lot on a shared machine: the per-run
// numbers go to stderr.
//
// It exits non-zero when a command gets an error or an unexpected reply.
package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand"
	"net"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/lockredis/lockredis/compat_test/bench/serverstat"
)

const channel = "bench:stall"

type server struct {
	name, addr string
	pid        int
}

// result is one run's numbers.
type result struct {
	maxMs, p99Ms float64 // the SET NX PX / GET client's latency
	ops          int     // its commands
	rssMB        float64 // peak VmRSS minus VmRSS before
	cpu          time.Duration
	pubSecs      float64 // publishing took
	cutMB        float64 // published when the subscriber was dropped; -1: never
}

type mode struct {
	name  string
	limit string // client-output-buffer-limit pubsub
	noSub bool   // publish to nobody: what the rest costs
}

func main() {
	redisAddr := flag.String("redis", "", "redis-server address")
	redisPid := flag.Int("redis-pid", 0, "redis-server process id (for its RSS and CPU time)")
	lockAddr := flag.String("lock", "", "lockredis address")
	lockPid := flag.Int("lock-pid", 0, "lockredis process id")
	mb := flag.Int("mb", 300, "megabytes published per run")
	rounds := flag.Int("rounds", 3, "rounds; the servers take turns in each")
	only := flag.String("mode", "", "run only this mode: default, off or none")
	flag.Parse()
	if *redisAddr == "" || *lockAddr == "" || *redisPid == 0 || *lockPid == 0 || *rounds < 1 || *mb < 1 {
		flag.Usage()
		os.Exit(2)
	}
	servers := []server{{"redis-server", *redisAddr, *redisPid}, {"lockredis", *lockAddr, *lockPid}}
	modes := []mode{
		{"default limit (pubsub 32mb 8mb 60)", "pubsub 33554432 8388608 60", false},
		{"no limit (pubsub 0 0 0)", "pubsub 0 0 0", false},
		// The same publishing with no subscriber at all: what reading and
		// running the PUBLISH commands costs by itself.
		{"no subscriber (baseline)", "pubsub 33554432 8388608 60", true},
	}
	switch *only {
	case "default":
		modes = modes[:1]
	case "off":
		modes = modes[1:2]
	case "none":
		modes = modes[2:]
	}
	results := make([][2][]result, len(modes))
	failed := false
	for round := 0; round < *rounds; round++ {
		for mi, m := range modes {
			order := []int{0, 1}
			if (round+mi)%2 == 1 {
				order = []int{1, 0}
			}
			for _, si := range order {
				r, err := run(servers[si], m, int64(*mb)<<20, int64(round))
				if err != nil {
					fmt.Fprintf(os.Stderr, "stall, %s, on %s: %v\n", m.name, servers[si].name, err)
					failed = true
					continue
				}
				fmt.Fprintf(os.Stderr, "stall round %d, %s, %s: max %.1f ms, p99 %.2f ms, %d ops, RSS +%.0f MB, CPU %.2f s, publish %.2f s, cut at %.0f MB\n",
					round, m.name, servers[si].name, r.maxMs, r.p99Ms, r.ops, r.rssMB, r.cpu.Seconds(), r.pubSecs, r.cutMB)
				results[mi][si] = append(results[mi][si], r)
			}
		}
	}
	fmt.Printf("| stalled subscriber, %d MB published | redis-server | lockredis | ratio |\n", *mb)
	fmt.Printf("| --- | --- | --- | --- |\n")
	for mi, m := range modes {
		r, l := results[mi][0], results[mi][1]
		row := func(what string, f func(result) float64, format string) {
			a, b := median(r, f), median(l, f)
			ratio := "-"
			if a > 0 {
				ratio = fmt.Sprintf("%.2f", b/a)
			}
			fmt.Printf("| %s, %s | "+format+" | "+format+" | %s |\n", m.name, what, a, b, ratio)
		}
		row("SET NX PX / GET max latency ms", func(x result) float64 { return x.maxMs }, "%.1f")
		row("p99 latency ms", func(x result) float64 { return x.p99Ms }, "%.2f")
		row("RSS growth MB", func(x result) float64 { return x.rssMB }, "%.0f")
		row("server CPU s", func(x result) float64 { return x.cpu.Seconds() }, "%.2f")
		row("publishing s", func(x result) float64 { return x.pubSecs }, "%.2f")
		if !m.noSub {
			fmt.Printf("| %s, subscriber dropped after | %s | %s | - |\n", m.name, cuts(r), cuts(l))
		}
	}
	if failed {
		os.Exit(1)
	}
}

// median of f over rs; 0 when there is none.
func median(rs []result, f func(result) float64) float64 {
	if len(rs) == 0 {
		return 0
	}
	v := make([]float64, len(rs))
	for i, r := range rs {
		v[i] = f(r)
	}
	sort.Float64s(v)
	return v[len(v)/2]
}

// cuts lists when each round's subscriber was dropped.
func cuts(rs []result) string {
	var s []string
	for _, r := range rs {
		if r.cutMB < 0 {
			s = append(s, "never")
		} else {
			s = append(s, fmt.Sprintf("%.0f MB", r.cutMB))
		}
	}
	return strings.Join(s, ", ")
}

// conn is a plain RESP2 connection for one command at a time.
type conn struct {
	c net.Conn
	r *bufio.Reader
	w []byte
}

func dial(addr string) (*conn, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	return &conn{c: c, r: bufio.NewReaderSize(c, 64<<10)}, nil
}

func appendCommand(b []byte, args ...string) []byte {
	b = append(b, '*')
	b = strconv.AppendInt(b, int64(len(args)), 10)
	b = append(b, '\r', '\n')
	for _, a := range args {
		b = append(b, '$')
		b = strconv.AppendInt(b, int64(len(a)), 10)
		b = append(b, '\r', '\n')
		b = append(b, a...)
		b = append(b, '\r', '\n')
	}
	return b
}

// do sends one command and returns its reply: the first line without
// "\r\n", and for a bulk string its content instead. Error replies are
// errors.
func (c *conn) do(args ...string) (string, error) {
	c.w = appendCommand(c.w[:0], args...)
	if _, err := c.c.Write(c.w); err != nil {
		return "", err
	}
	return readReply(c.r)
}

func readReply(r *bufio.Reader) (string, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return "", err
	}
	line = strings.TrimSuffix(line, "\r\n")
	if line == "" {
		return "", errors.New("empty reply line")
	}
	switch line[0] {
	case '-':
		return "", errors.New(line)
	case '$':
		n, err := strconv.Atoi(line[1:])
		if err != nil || n < 0 {
			return line, err
		}
		b := make([]byte, n+2)
		if _, err := io.ReadFull(r, b); err != nil {
			return "", err
		}
		return string(b[:n]), nil
	}
	return line, nil
}

// vmRSS is a process's resident set in bytes.
func vmRSS(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// stalledSubscriber subscribes to the channel and never reads again. Its
// receive buffer is made small before connecting, so that the kernel
// holds little and the server has to queue the rest.
func stalledSubscriber(addr string) (net.Conn, error) {
	d := net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
		var serr error
		err := rc.Control(func(fd uintptr) {
			serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096)
		})
		if err != nil {
			return err
		}
		return serr
	}}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	if _, err := c.Write(appendCommand(nil, "SUBSCRIBE", channel)); err != nil {
		c.Close()
		return nil, err
	}
	want := fmt.Sprintf("*3\r\n$9\r\nsubscribe\r\n$%d\r\n%s\r\n:1\r\n", len(channel), channel)
	got := make([]byte, len(want))
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadFull(c, got); err != nil || string(got) != want {
		c.Close()
		return nil, fmt.Errorf("SUBSCRIBE: %q, %v", got, err)
	}
	return c, nil
}

// run is one measurement on one server.
func run(s server, m mode, total int64, seed int64) (result, error) {
	ctl, err := dial(s.addr)
	if err != nil {
		return result{}, err
	}
	defer ctl.c.Close()
	if _, err := ctl.do("CONFIG", "SET", "client-output-buffer-limit", m.limit); err != nil {
		return result{}, fmt.Errorf("CONFIG SET: %w", err)
	}
	defer ctl.do("CONFIG", "SET", "client-output-buffer-limit", "pubsub 33554432 8388608 60")
	if _, err := ctl.do("FLUSHALL"); err != nil {
		return result{}, err
	}
	// Both give back what they can first, so that every run starts from
	// a comparable RSS: jemalloc's purge, lockredis's GC and
	// FreeOSMemory.
	if _, err := ctl.do("MEMORY", "PURGE"); err != nil {
		return result{}, err
	}
	time.Sleep(200 * time.Millisecond)

	var sub net.Conn
	if !m.noSub {
		sub, err = stalledSubscriber(s.addr)
		if err != nil {
			return result{}, err
		}
	}
	subOpen := !m.noSub
	defer func() {
		if subOpen {
			sub.Close()
		}
	}()
	lat, err := dial(s.addr)
	if err != nil {
		return result{}, err
	}
	defer lat.c.Close()
	pub, err := dial(s.addr)
	if err != nil {
		return result{}, err
	}
	defer pub.c.Close()

	rssBefore := vmRSS(s.pid)
	cpuBefore := serverstat.CPUTime(s.pid)
	var peak atomic.Int64
	peak.Store(rssBefore)
	stop := make(chan struct{})
	var wg sync.WaitGroup

	// RSS sampler.
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				if v := vmRSS(s.pid); v > peak.Load() {
					peak.Store(v)
				}
			}
		}
	}()

	// The latency client: SET NX PX on a fresh key, then GET it.
	var lats []time.Duration
	var latErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			key := "stall:lock:" + strconv.Itoa(i)
			t0 := time.Now()
			r, err := lat.do("SET", key, "tok", "NX", "PX", "30000")
			t1 := time.Now()
			if err == nil && r != "+OK" {
				err = fmt.Errorf("SET NX PX replied %q", r)
			}
			if err == nil {
				r, err = lat.do("GET", key)
				if err == nil && r != "tok" {
					err = fmt.Errorf("GET replied %q", r)
				}
			}
			t2 := time.Now()
			if err != nil {
				latErr = err
				return
			}
			lats = append(lats, t1.Sub(t0), t2.Sub(t1))
		}
	}()

	// The publisher writes while its replies are read beside it.
	rng := rand.New(rand.NewSource(seed))
	cut := int64(-1)
	var pubErr error
	var published atomic.Int64 // payload bytes whose PUBLISH was sent
	sentQ := make(chan int64, 1<<16)
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		for upTo := range sentQ {
			r, err := readReply(pub.r)
			if err != nil {
				pubErr = err
				return
			}
			switch r {
			case ":1":
			case ":0":
				if cut < 0 && !m.noSub {
					cut = upTo
				}
			default:
				pubErr = fmt.Errorf("PUBLISH replied %q", r)
				return
			}
		}
	}()
	start := time.Now()
	bw := bufio.NewWriterSize(pub.c, 256<<10)
	msg := bytes.Repeat([]byte("x"), 64<<10)
	var hdr []byte
	for published.Load() < total {
		n := 1<<10 + rng.Intn(63<<10+1)
		hdr = fmt.Appendf(hdr[:0], "*3\r\n$7\r\nPUBLISH\r\n$%d\r\n%s\r\n$%d\r\n", len(channel), channel, n)
		bw.Write(hdr)
		bw.Write(msg[:n])
		if _, err := bw.WriteString("\r\n"); err != nil {
			pubErr = err
			break
		}
		up := published.Add(int64(n))
		select {
		case sentQ <- up:
		case <-readDone:
		}
		if pubErr != nil {
			break
		}
	}
	bw.Flush()
	close(sentQ)
	<-readDone
	pubSecs := time.Since(start).Seconds()
	close(stop)
	wg.Wait()
	cpu := serverstat.CPUTime(s.pid) - cpuBefore
	if pubErr != nil {
		return result{}, fmt.Errorf("publisher: %w", pubErr)
	}
	if latErr != nil {
		return result{}, fmt.Errorf("SET NX PX / GET client: %w", latErr)
	}
	if len(lats) == 0 {
		return result{}, errors.New("the SET NX PX / GET client ran no command")
	}
	sort.Slice(lats, func(i, j int) bool { return lats[i] < lats[j] })
	res := result{
		maxMs:   float64(lats[len(lats)-1]) / float64(time.Millisecond),
		p99Ms:   float64(lats[len(lats)*99/100]) / float64(time.Millisecond),
		ops:     len(lats),
		rssMB:   float64(peak.Load()-rssBefore) / (1 << 20),
		cpu:     cpu,
		pubSecs: pubSecs,
		cutMB:   -1,
	}
	if cut >= 0 {
		res.cutMB = float64(cut) / (1 << 20)
	}

	// Drop the subscriber and wait until the server has let it go, so
	// that the next run starts clean.
	if sub != nil {
		sub.Close()
	}
	subOpen = false
	for i := 0; i < 500; i++ {
		r, err := ctl.do("PUBLISH", channel, "x")
		if err != nil {
			return res, err
		}
		if r == ":0" {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := ctl.do("FLUSHALL"); err != nil {
		return res, err
	}
	return res, nil
}
