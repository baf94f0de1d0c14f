package compat

// Pub/sub at scale, against the embedded server: tens of thousands of
// subscribers on one channel, thousands of channels on a few connections.
// Every subscriber is a real TCP connection, so the test raises its file
// descriptor limit if it can, and scales down, saying so, if the limit
// does not allow 20,000.

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/lockredis/lockredis"
)

// p5ScaleSubscribers is the number of subscribers on one channel.
const p5ScaleSubscribers = 20000

// p5RaiseFileLimit lifts RLIMIT_NOFILE to at least want if it can and
// returns the soft limit now in force.
func p5RaiseFileLimit(t *testing.T, want uint64) uint64 {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatalf("getrlimit: %v", err)
	}
	if lim.Cur >= want {
		return lim.Cur
	}
	old := lim
	raised := lim
	raised.Cur = want
	if raised.Max < want {
		raised.Max = want // needs CAP_SYS_RESOURCE
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &raised); err != nil {
		raised.Cur, raised.Max = old.Max, old.Max
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &raised); err != nil {
			return old.Cur
		}
	}
	t.Cleanup(func() { syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old) })
	syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim)
	return lim.Cur
}

// p5Frame renders a RESP2 array of bulk strings (a message, a
// confirmation without its count).
func p5Frame(items ...string) []byte {
	var b []byte
	b = append(b, '*')
	b = strconv.AppendInt(b, int64(len(items)), 10)
	b = append(b, "\r\n"...)
	for _, it := range items {
		b = append(b, '$')
		b = strconv.AppendInt(b, int64(len(it)), 10)
		b = append(b, "\r\n"...)
		b = append(b, it...)
		b = append(b, "\r\n"...)
	}
	return b
}

// p5Confirm is a (un)subscribe confirmation in RESP2.
func p5Confirm(verb, name string, count int) []byte {
	b := []byte("*3\r\n")
	b = append(b, p5Frame(verb, name)[4:]...)
	b = append(b, ':')
	b = strconv.AppendInt(b, int64(count), 10)
	return append(b, "\r\n"...)
}

// p5Expect reads exactly len(want) bytes from c and checks them.
func p5Expect(c net.Conn, want []byte, deadline time.Time) error {
	c.SetReadDeadline(deadline)
	got := make([]byte, len(want))
	if _, err := io.ReadFull(c, got); err != nil {
		return err
	}
	if !bytes.Equal(got, want) {
		i := 0
		for got[i] == want[i] {
			i++
		}
		from := max(0, i-60)
		return fmt.Errorf("at byte %d got %q, want %q", i, got[from:min(len(got), i+100)], want[from:min(len(want), i+100)])
	}
	return nil
}

// p5Parallel runs fn(i) for i in [0, n) on a few goroutines and returns
// the first error.
func p5Parallel(n, workers int, fn func(i int) error) error {
	var next atomic.Int64
	var first error
	var once sync.Once
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if err := fn(i); err != nil {
					once.Do(func() { first = fmt.Errorf("#%d: %w", i, err) })
					return
				}
			}
		}()
	}
	wg.Wait()
	return first
}

// TestPubSubManySubscribers puts 20,000 subscribers on one channel. The
// client ends of the connections live in a child process (this test
// binary, running TestPubSubScaleChild), so that each process needs one
// descriptor per subscriber: 20,000 connections fit a limit of about
// 20,000 that cannot be raised (no CAP_SYS_RESOURCE in a container).
func TestPubSubManySubscribers(t *testing.T) {
	n := p5ScaleSubscribers
	if testing.Short() {
		n = 2000
	}
	limit := p5RaiseFileLimit(t, uint64(n+256))
	if most := int(limit) - 256; n > most {
		t.Logf("RLIMIT_NOFILE is %d and cannot be raised: %d subscribers instead of %d", limit, most, n)
		n = most
	}
	srv := startEmbedded(t, lockredis.Options{MaxClients: n + 16})

	start := time.Now()
	child := exec.Command(os.Args[0], "-test.run=^TestPubSubScaleChild$", "-test.count=1", "-test.v")
	child.Env = append(os.Environ(), "P5_SCALE_ADDR="+srv.Addr(), "P5_SCALE_N="+strconv.Itoa(n))
	dieWithTest(child)
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	child.Stderr = child.Stdout
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { child.Process.Kill() })
	lines := make(chan string, 64)
	var log bytes.Buffer
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	// await waits for the child to print "p5: what". The bound is a
	// hang detector, not a speed check: 20,000 connections took 70 s on
	// 2 cores shared with other work (load 18), 10 s when quiet.
	await := func(what string) {
		t.Helper()
		timeout := time.After(5 * time.Minute)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					child.Wait()
					t.Fatalf("the subscriber process ended before %q:\n%s", what, log.String())
				}
				log.WriteString(l + "\n")
				if l == "p5: "+what {
					return
				}
			case <-timeout:
				t.Fatalf("the subscriber process did not report %q:\n%s", what, log.String())
			}
		}
	}
	await("subscribed")
	subscribed := time.Since(start)

	pub := dialRaw(t, srv.Addr())
	if got, want := pub.do(t, "PUBSUB", "NUMSUB", "lock:wake"), fmt.Sprintf("*2\r\n$9\r\nlock:wake\r\n:%d\r\n", n); got != want {
		t.Fatalf("PUBSUB NUMSUB = %q, want %q", got, want)
	}
	published := time.Now()
	if got, want := pub.do(t, "PUBLISH", "lock:wake", "unlocked"), fmt.Sprintf(":%d\r\n", n); got != want {
		t.Fatalf("PUBLISH = %q, want %q", got, want)
	}
	// The server still serves everyone else while it delivers.
	if got := pub.do(t, "SET", "k", "v"); got != "+OK\r\n" {
		t.Fatalf("SET = %q", got)
	}
	await("received")
	t.Logf("%d subscribers: subscribed in %v, one PUBLISH delivered to all in %v",
		n, subscribed.Round(time.Millisecond), time.Since(published).Round(time.Millisecond))
	for range lines {
	}
	if err := child.Wait(); err != nil {
		t.Fatalf("subscriber process: %v\n%s", err, log.String())
	}
}

// TestPubSubScaleChild is the subscriber side of TestPubSubManySubscribers;
// it runs only in the child process that test starts.
func TestPubSubScaleChild(t *testing.T) {
	addr := os.Getenv("P5_SCALE_ADDR")
	if addr == "" {
		t.Skip("runs only as the child of TestPubSubManySubscribers")
	}
	n, _ := strconv.Atoi(os.Getenv("P5_SCALE_N"))
	p5RaiseFileLimit(t, uint64(n+256))
	deadline := time.Now().Add(4 * time.Minute)
	conns := make([]net.Conn, n)
	t.Cleanup(func() {
		for _, c := range conns {
			if c != nil {
				c.Close()
			}
		}
	})
	sub := encodeCommand([]string{"SUBSCRIBE", "lock:wake"})
	confirm := p5Confirm("subscribe", "lock:wake", 1)
	err := p5Parallel(n, 64, func(i int) error {
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			return err
		}
		conns[i] = c
		if _, err := c.Write(sub); err != nil {
			return err
		}
		return p5Expect(c, confirm, deadline)
	})
	if err != nil {
		t.Fatalf("subscribing: %v", err)
	}
	fmt.Println("p5: subscribed")
	msg := p5Frame("message", "lock:wake", "unlocked")
	if err := p5Parallel(n, 64, func(i int) error { return p5Expect(conns[i], msg, deadline) }); err != nil {
		t.Fatalf("receiving: %v", err)
	}
	// A subscriber still answers PING after the fan-out.
	conns[n/2].Write(encodeCommand([]string{"PING"}))
	if err := p5Expect(conns[n/2], p5Frame("pong", ""), deadline); err != nil {
		t.Fatalf("PING on a subscriber: %v", err)
	}
	fmt.Println("p5: received")
}

func TestPubSubManyChannels(t *testing.T) {
	const nConns, perConn = 5, 1000 // 5,000 channels
	srv := startEmbedded(t, lockredis.Options{})
	deadline := time.Now().Add(20 * time.Second)
	channel := func(c, j int) string { return fmt.Sprintf("lock:{%d}:%d", c, j) }

	subs := make([]*rawConn, nConns)
	for c := range subs {
		subs[c] = dialRaw(t, srv.Addr())
		cmd := []string{"SUBSCRIBE"}
		var want []byte
		for j := 0; j < perConn; j++ {
			cmd = append(cmd, channel(c, j))
			want = append(want, p5Confirm("subscribe", channel(c, j), j+1)...)
		}
		subs[c].c.Write(encodeCommand(cmd))
		if err := p5Expect(subs[c].c, want, deadline); err != nil {
			t.Fatalf("SUBSCRIBE on connection %d: %v", c, err)
		}
	}
	// A pattern subscriber on one of them sees every channel once more.
	pat := dialRaw(t, srv.Addr())
	pat.c.Write(encodeCommand([]string{"PSUBSCRIBE", "lock:{3}:*"}))
	if err := p5Expect(pat.c, p5Confirm("psubscribe", "lock:{3}:*", 1), deadline); err != nil {
		t.Fatalf("PSUBSCRIBE: %v", err)
	}

	pub := dialRaw(t, srv.Addr())
	want := "*11\r\n$11\r\nlock:{2}:99\r\n"
	for j := 990; j < 1000; j++ {
		want += "$12\r\nlock:{2}:" + strconv.Itoa(j) + "\r\n"
	}
	if got := pub.do(t, "PUBSUB", "CHANNELS", "lock:{2}:99*"); !sameReply(unordered("PUBSUB CHANNELS"), got, want) {
		t.Fatalf("PUBSUB CHANNELS lock:{2}:99* = %q", got)
	}

	// Every channel gets one message, all PUBLISHes pipelined.
	var frames, replies []byte
	for j := 0; j < perConn; j++ {
		for c := 0; c < nConns; c++ {
			frames = append(frames, encodeCommand([]string{"PUBLISH", channel(c, j), "m" + strconv.Itoa(j)})...)
			if c == 3 {
				replies = append(replies, ":2\r\n"...)
			} else {
				replies = append(replies, ":1\r\n"...)
			}
		}
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		pub.c.Write(frames)
	}()
	if err := p5Expect(pub.c, replies, deadline); err != nil {
		t.Fatalf("PUBLISH replies: %v", err)
	}
	wg.Wait()
	for c := range subs {
		var want []byte
		for j := 0; j < perConn; j++ {
			want = append(want, p5Frame("message", channel(c, j), "m"+strconv.Itoa(j))...)
		}
		if err := p5Expect(subs[c].c, want, deadline); err != nil {
			t.Fatalf("messages on connection %d: %v", c, err)
		}
	}
	var pwant []byte
	for j := 0; j < perConn; j++ {
		pwant = append(pwant, p5Frame("pmessage", "lock:{3}:*", channel(3, j), "m"+strconv.Itoa(j))...)
	}
	if err := p5Expect(pat.c, pwant, deadline); err != nil {
		t.Fatalf("pmessages: %v", err)
	}

	// UNSUBSCRIBE with no arguments confirms each channel, counting down.
	subs[0].c.Write(encodeCommand([]string{"UNSUBSCRIBE"}))
	for left := perConn - 1; left >= 0; left-- {
		reply, err := readReply(subs[0].r)
		if err != nil {
			t.Fatalf("UNSUBSCRIBE: %v", err)
		}
		if !bytes.HasSuffix(reply, []byte(":"+strconv.Itoa(left)+"\r\n")) {
			t.Fatalf("UNSUBSCRIBE confirmation %q, want count %d", reply, left)
		}
	}
	if got := pub.do(t, "PUBSUB", "NUMSUB", channel(0, 7), channel(1, 7)); got != "*4\r\n$10\r\nlock:{0}:7\r\n:0\r\n$10\r\nlock:{1}:7\r\n:1\r\n" {
		t.Fatalf("PUBSUB NUMSUB after UNSUBSCRIBE = %q", got)
	}
	// Closing the other connections drops their channels.
	for _, c := range subs[1:] {
		c.c.Close()
	}
	pat.c.Close()
	for {
		got := pub.do(t, "PUBSUB", "CHANNELS")
		if got == "*0\r\n" && pub.do(t, "PUBSUB", "NUMPAT") == ":0\r\n" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("channels left after every subscriber closed: %.100q", got)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
