package pubsub_test

import (
	"bufio"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lockredis/lockredis"
	"github.com/lockredis/lockredis/pubsub"
)

// conn is a minimal RESP client that returns replies as raw protocol text.
type conn struct {
	t  *testing.T
	c  net.Conn
	rd *bufio.Reader
}

func dial(t *testing.T, addr string) *conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &conn{t: t, c: c, rd: bufio.NewReader(c)}
}

func (c *conn) send(args ...string) {
	c.t.Helper()
	var sb strings.Builder
	fmt.Fprintf(&sb, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&sb, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := c.c.Write([]byte(sb.String())); err != nil {
		c.t.Fatal(err)
	}
}

// read returns the next reply as raw text, failing after 5 s (a hang guard,
// not a timing assertion).
func (c *conn) read() string {
	c.t.Helper()
	c.c.SetReadDeadline(time.Now().Add(5 * time.Second))
	s, err := readReply(c.rd)
	if err != nil {
		c.t.Fatalf("read: %v", err)
	}
	return s
}

func (c *conn) do(args ...string) string {
	c.t.Helper()
	c.send(args...)
	return c.read()
}

func readReply(rd *bufio.Reader) (string, error) {
	line, err := rd.ReadString('\n')
	if err != nil {
		return "", err
	}
	switch line[0] {
	case '$':
		n, _ := strconv.Atoi(strings.TrimSpace(line[1:]))
		if n < 0 {
			return line, nil
		}
		buf := make([]byte, n+2)
		if _, err := readFull(rd, buf); err != nil {
			return "", err
		}
		return line + string(buf), nil
	case '*', '>', '~', '%':
		n, _ := strconv.Atoi(strings.TrimSpace(line[1:]))
		if line[0] == '%' {
			n *= 2 // key, value
		}
		out := line
		for i := 0; i < n; i++ {
			e, err := readReply(rd)
			if err != nil {
				return "", err
			}
			out += e
		}
		return out, nil
	}
	return line, nil
}

func readFull(rd *bufio.Reader, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := rd.Read(buf[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

func arr(elems ...string) string {
	out := fmt.Sprintf("*%d\r\n", len(elems))
	for _, e := range elems {
		out += e
	}
	return out
}

func bulk(s string) string { return fmt.Sprintf("$%d\r\n%s\r\n", len(s), s) }
func num(n int) string     { return fmt.Sprintf(":%d\r\n", n) }

// The reply shapes below were taken from redis-server 7.0.15.
func TestReplyShapes(t *testing.T) {
	srv := lockredis.RunT(t)
	sub := dial(t, srv.Addr())
	pub := dial(t, srv.Addr())
	steps := []struct {
		c    *conn
		args []string
		want string
	}{
		{sub, []string{"UNSUBSCRIBE"}, arr(bulk("unsubscribe"), "$-1\r\n", num(0))},
		{sub, []string{"PUNSUBSCRIBE"}, arr(bulk("punsubscribe"), "$-1\r\n", num(0))},
		{sub, []string{"SSUBSCRIBE", "a"}, arr(bulk("ssubscribe"), bulk("a"), num(1))},
		{sub, []string{"SUBSCRIBE", "b"}, arr(bulk("subscribe"), bulk("b"), num(1))},
		{sub, []string{"PSUBSCRIBE", "x*"}, arr(bulk("psubscribe"), bulk("x*"), num(2))},
		{sub, []string{"SUBSCRIBE", "b"}, arr(bulk("subscribe"), bulk("b"), num(2))},
		{sub, []string{"UNSUBSCRIBE", "nosuch"}, arr(bulk("unsubscribe"), bulk("nosuch"), num(2))},
		{sub, []string{"GET", "k"}, "-ERR Can't execute 'get': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context\r\n"},
		{sub, []string{"PING"}, arr(bulk("pong"), bulk(""))},
		{sub, []string{"PING", "x"}, arr(bulk("pong"), bulk("x"))},
		{pub, []string{"PUBLISH", "b", "hi"}, num(1)},
		{sub, nil, arr(bulk("message"), bulk("b"), bulk("hi"))},
		{pub, []string{"PUBLISH", "xy", "p"}, num(1)},
		{sub, nil, "*4\r\n" + bulk("pmessage") + bulk("x*") + bulk("xy") + bulk("p")},
		{pub, []string{"PUBLISH", "zzz", "none"}, num(0)},
		{pub, []string{"SPUBLISH", "a", "s"}, num(1)},
		{sub, nil, arr(bulk("smessage"), bulk("a"), bulk("s"))},
		{pub, []string{"PUBSUB", "NUMSUB", "b", "zzz"}, arr(bulk("b"), num(1), bulk("zzz"), num(0))},
		{pub, []string{"PUBSUB", "NUMPAT"}, num(1)},
		{pub, []string{"PUBSUB", "CHANNELS"}, arr(bulk("b"))},
		{pub, []string{"PUBSUB", "SHARDCHANNELS"}, arr(bulk("a"))},
		{pub, []string{"PUBSUB", "SHARDNUMSUB", "a"}, arr(bulk("a"), num(1))},
		{sub, []string{"PUNSUBSCRIBE"}, arr(bulk("punsubscribe"), bulk("x*"), num(1))},
		{sub, []string{"SUNSUBSCRIBE"}, arr(bulk("sunsubscribe"), bulk("a"), num(0))},
		{sub, []string{"UNSUBSCRIBE"}, arr(bulk("unsubscribe"), bulk("b"), num(0))},
		// a normal connection again
		{sub, []string{"PING"}, "+PONG\r\n"},
		{sub, []string{"SET", "k", "v"}, "+OK\r\n"},
		{sub, []string{"GET", "k"}, bulk("v")},
	}
	for i, st := range steps {
		var got string
		if st.args == nil {
			got = st.c.read()
		} else {
			got = st.c.do(st.args...)
		}
		if got != st.want {
			t.Fatalf("step %d %q: got %q, want %q", i, st.args, got, st.want)
		}
	}
}

func push(elems ...string) string { return ">" + arr(elems...)[1:] }

// TestReplyShapesRESP3: after HELLO 3 confirmations and messages are push
// frames, a subscribed connection runs any command, and a message to the
// publisher itself comes where redis-server 7.0.15 writes it (inside
// EXEC's array too). HELLO 2 switches the pushes back to arrays.
func TestReplyShapesRESP3(t *testing.T) {
	srv := lockredis.RunT(t)
	sub := dial(t, srv.Addr())
	pub := dial(t, srv.Addr())
	msg := func(ch, m string) string { return push(bulk("message"), bulk(ch), bulk(m)) }
	steps := []struct {
		c    *conn
		args []string
		want []string // the frames read after sending args
	}{
		{sub, []string{"UNSUBSCRIBE"}, []string{arr(bulk("unsubscribe"), "$-1\r\n", num(0))}},
		{sub, []string{"HELLO", "3", "SETNAME", "s"}, nil}, // checked below: a map
		{sub, []string{"UNSUBSCRIBE"}, []string{push(bulk("unsubscribe"), "_\r\n", num(0))}},
		{sub, []string{"SUBSCRIBE", "b"}, []string{push(bulk("subscribe"), bulk("b"), num(1))}},
		{sub, []string{"GET", "k"}, []string{"_\r\n"}},
		{sub, []string{"SET", "k", "v"}, []string{"+OK\r\n"}},
		{sub, []string{"PING"}, []string{"+PONG\r\n"}},
		{sub, []string{"PUBLISH", "b", "self"}, []string{msg("b", "self"), num(1)}},
		{pub, []string{"PUBLISH", "b", "hi"}, []string{num(1)}},
		{sub, nil, []string{msg("b", "hi")}},
		{sub, []string{"MULTI"}, []string{"+OK\r\n"}},
		{sub, []string{"GET", "k"}, []string{"+QUEUED\r\n"}},
		{sub, []string{"PUBLISH", "b", "tx"}, []string{"+QUEUED\r\n"}},
		// The push is read as EXEC's second element; the real one follows.
		{sub, []string{"EXEC"}, []string{arr(bulk("v"), msg("b", "tx")), num(1)}},
		{sub, []string{"EVAL", "return redis.call('publish', 'b', 'lua')", "0"}, []string{msg("b", "lua"), num(1)}},
		{sub, []string{"HELLO", "2"}, nil},
		{pub, []string{"PUBLISH", "b", "two"}, []string{num(1)}},
		{sub, nil, []string{arr(bulk("message"), bulk("b"), bulk("two"))}},
		{sub, []string{"RESET"}, []string{"+RESET\r\n"}},
		{pub, []string{"PUBLISH", "b", "gone"}, []string{num(0)}},
		{sub, []string{"GET", "nokey"}, []string{"$-1\r\n"}},
	}
	for i, st := range steps {
		if st.args != nil {
			st.c.send(st.args...)
		}
		if st.want == nil { // HELLO
			prefix := map[string]string{"3": "%7\r\n", "2": "*14\r\n"}[st.args[1]]
			if got := st.c.read(); !strings.HasPrefix(got, prefix) {
				t.Fatalf("step %d %q: got %q, want HELLO's map (%q)", i, st.args, got, prefix)
			}
			continue
		}
		for _, want := range st.want {
			if got := st.c.read(); got != want {
				t.Fatalf("step %d %q: got %q, want %q", i, st.args, got, want)
			}
		}
	}
}

// Pipelined commands before SUBSCRIBE keep their replies, in order.
func TestPipelineIntoSubscribe(t *testing.T) {
	srv := lockredis.RunT(t)
	c := dial(t, srv.Addr())
	c.c.Write([]byte("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n*2\r\n$9\r\nSUBSCRIBE\r\n$1\r\nc\r\n*1\r\n$4\r\nPING\r\n"))
	for _, want := range []string{"+OK\r\n", arr(bulk("subscribe"), bulk("c"), num(1)), arr(bulk("pong"), bulk(""))} {
		if got := c.read(); got != want {
			t.Fatalf("got %q, want %q", got, want)
		}
	}
}

// A subscriber that stops reading must not slow anybody else down, and is
// disconnected once its queue passes the hard limit.
func TestStalledSubscriber(t *testing.T) {
	srv := lockredis.NewServer(lockredis.Options{PubSubLimits: pubsub.Limits{Hard: 4 << 20, Soft: 1 << 20, SoftFor: time.Minute}})
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	stalled := dial(t, srv.Addr())
	reader := dial(t, srv.Addr())
	pub := dial(t, srv.Addr())
	worker := dial(t, srv.Addr())
	stalled.do("SUBSCRIBE", "news")
	reader.do("SUBSCRIBE", "news")

	payload := strings.Repeat("x", 32<<10)
	received := make(chan int, 1)
	go func() {
		n := 0
		for n < 400 {
			reader.c.SetReadDeadline(time.Now().Add(10 * time.Second))
			if _, err := readReply(reader.rd); err != nil {
				break
			}
			n++
		}
		received <- n
	}()
	// 12.5 MB for the stalled client: well over its 4 MB hard limit plus
	// what the kernel's socket buffers absorb.
	for i := 0; i < 400; i++ {
		pub.send("PUBLISH", "news", payload)
		if got := pub.read(); got != num(2) && got != num(1) {
			t.Fatalf("publish %d: %q", i, got)
		}
		if i%50 == 0 {
			// Other work goes on while a subscriber is stalled.
			if got := worker.do("SET", "lock", "me", "NX", "PX", "1000"); got != "+OK\r\n" && got != "$-1\r\n" {
				t.Fatalf("SET during stall: %q", got)
			}
			// Scripts that publish do not wait for the stalled reader either.
			if got := worker.do("EVAL", "return redis.call('publish', KEYS[1], 'x')", "1", "other"); got != num(0) {
				t.Fatalf("EVAL during stall: %q", got)
			}
		}
	}
	if n := <-received; n != 400 {
		t.Fatalf("reading subscriber got %d of 400 messages", n)
	}
	// The stalled client was dropped: after draining what the kernel had
	// buffered it sees EOF.
	stalled.c.SetReadDeadline(time.Now().Add(10 * time.Second))
	buf := make([]byte, 1<<20)
	for {
		if _, err := stalled.c.Read(buf); err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				t.Fatal("stalled subscriber was not disconnected")
			}
			break
		}
	}
	if got := pub.do("PUBSUB", "NUMSUB", "news"); got != arr(bulk("news"), num(1)) {
		t.Fatalf("NUMSUB after overflow: %q", got)
	}
}

// Close disconnects subscribers too.
func TestCloseDropsSubscribers(t *testing.T) {
	srv, err := lockredis.Run()
	if err != nil {
		t.Fatal(err)
	}
	sub := dial(t, srv.Addr())
	sub.do("SUBSCRIBE", "c")
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	sub.c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := sub.c.Read(make([]byte, 10)); err == nil {
		t.Fatal("subscriber still connected after Close")
	} else if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatal("subscriber still connected after Close")
	}
}

// Redisson's reentrant lock, as its scripts do it: a hash {owner: count}
// with a TTL; unlock publishes on the lock's channel once the count drops
// to zero.
const (
	tryLockScript = `if (redis.call('exists', KEYS[1]) == 0) or (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then ` +
		`redis.call('hincrby', KEYS[1], ARGV[2], 1); redis.call('pexpire', KEYS[1], ARGV[1]); return nil; end; ` +
		`return redis.call('pttl', KEYS[1]);`
	unlockScript = `if (redis.call('hexists', KEYS[1], ARGV[3]) == 0) then return nil; end; ` +
		`local counter = redis.call('hincrby', KEYS[1], ARGV[3], -1); ` +
		`if (counter > 0) then redis.call('pexpire', KEYS[1], ARGV[2]); return 0; ` +
		`else redis.call('del', KEYS[1]); redis.call(ARGV[4], KEYS[2], ARGV[1]); return 1; end; return nil;`
)

// A waiter subscribed to the lock's channel is woken by the unlock script
// and its very next tryLock succeeds: the message leaves only after the
// script committed, so the lock is free when the waiter reads it.
func TestUnlockScriptWakesWaiter(t *testing.T) {
	srv := lockredis.RunT(t)
	holder := dial(t, srv.Addr())
	waiter := dial(t, srv.Addr())
	waiterSub := dial(t, srv.Addr())
	const lock, channel = "myLock", "redisson_lock__channel:{myLock}"

	if got := holder.do("EVAL", tryLockScript, "1", lock, "30000", "holder:1"); got != "$-1\r\n" {
		t.Fatalf("holder tryLock: %q", got)
	}
	// Reentrant: the holder takes it twice.
	holder.do("EVAL", tryLockScript, "1", lock, "30000", "holder:1")
	if got := waiterSub.do("SUBSCRIBE", channel); got != arr(bulk("subscribe"), bulk(channel), num(1)) {
		t.Fatalf("subscribe: %q", got)
	}
	if got := waiter.do("EVAL", tryLockScript, "1", lock, "30000", "waiter:1"); !strings.HasPrefix(got, ":") {
		t.Fatalf("waiter should get the lock's PTTL, got %q", got)
	}
	// First unlock only decrements the count: no message.
	if got := holder.do("EVAL", unlockScript, "2", lock, channel, "0", "30000", "holder:1", "PUBLISH"); got != num(0) {
		t.Fatalf("first unlock: %q", got)
	}
	if got := holder.do("EVAL", unlockScript, "2", lock, channel, "0", "30000", "holder:1", "PUBLISH"); got != num(1) {
		t.Fatalf("second unlock: %q", got)
	}
	if got := waiterSub.read(); got != arr(bulk("message"), bulk(channel), bulk("0")) {
		t.Fatalf("wake-up message: %q", got)
	}
	if got := waiter.do("EVAL", tryLockScript, "1", lock, "30000", "waiter:1"); got != "$-1\r\n" {
		t.Fatalf("woken waiter could not take the lock at once: %q", got)
	}
	if got := holder.do("HGET", lock, "waiter:1"); got != bulk("1") {
		t.Fatalf("lock owner: %q", got)
	}
}

// One SUBSCRIBE of many channels confirms them in order, byte for byte,
// while the subscriber's writer is draining the queue concurrently.
func TestManyConfirmationsInOrder(t *testing.T) {
	srv := lockredis.RunT(t)
	for round := 0; round < 5; round++ {
		c := dial(t, srv.Addr())
		args := []string{"SUBSCRIBE"}
		var want strings.Builder
		for j := 0; j < 2000; j++ {
			ch := fmt.Sprintf("lock:{%d}:%d", round, j)
			args = append(args, ch)
			want.WriteString(arr(bulk("subscribe"), bulk(ch), num(j+1)))
		}
		c.send(args...)
		var got strings.Builder
		for j := 0; j < 2000; j++ {
			got.WriteString(c.read())
		}
		if got.String() != want.String() {
			t.Fatalf("round %d: confirmations out of order", round)
		}
	}
}
