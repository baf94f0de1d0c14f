package luasvc

import (
	"bufio"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/lockredis/lockredis/engine"
	"github.com/lockredis/lockredis/pubsub"
	"github.com/lockredis/lockredis/resp"
)

// socketServer serves an engine with scripting and pub/sub over TCP.
func socketServer(t *testing.T, opts Options) string {
	t.Helper()
	e, err := engine.New(engine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	hub := pubsub.NewHub(pubsub.Limits{}, nil)
	pubsub.Register(e, hub)
	Register(e, opts)
	srv := resp.New(e, resp.Options{Hub: hub})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { srv.Serve(ln); close(done) }()
	t.Cleanup(func() {
		srv.Close()
		<-done
		e.Close()
	})
	return ln.Addr().String()
}

type client struct {
	t *testing.T
	c net.Conn
	r *bufio.Reader
}

func dial(t *testing.T, addr string) *client {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &client{t: t, c: c, r: bufio.NewReader(c)}
}

func (c *client) send(args ...string) {
	var sb strings.Builder
	fmt.Fprintf(&sb, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&sb, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := c.c.Write([]byte(sb.String())); err != nil {
		c.t.Fatal(err)
	}
}

// read reads one reply (simple types and flat arrays) as raw text.
func (c *client) read() string {
	c.c.SetReadDeadline(time.Now().Add(10 * time.Second))
	line, err := c.r.ReadString('\n')
	if err != nil {
		c.t.Fatal(err)
	}
	switch line[0] {
	case '$':
		var n int
		fmt.Sscanf(line[1:], "%d", &n)
		if n < 0 {
			return line
		}
		buf := make([]byte, n+2)
		if _, err := fullRead(c.r, buf); err != nil {
			c.t.Fatal(err)
		}
		return line + string(buf)
	case '*':
		var n int
		fmt.Sscanf(line[1:], "%d", &n)
		for i := 0; i < n; i++ {
			line += c.read()
		}
	}
	return line
}

func fullRead(r *bufio.Reader, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := r.Read(buf[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

func (c *client) do(args ...string) string {
	c.send(args...)
	return c.read()
}

func TestScriptKillOverSockets(t *testing.T) {
	addr := socketServer(t, Options{TimeLimit: -1})
	runner, admin := dial(t, addr), dial(t, addr)
	script := "redis.call('set', 'k', 'v') redis.call('publish', 'ch', 'never') while true do end"
	rolledBack := "-ERR Script killed by user with SCRIPT KILL... Its writes were rolled back. script: " + sha(script) + ", on @user_script:1.\r\n"
	// SCRIPT KILL can land before the script's SET has run (a loaded
	// machine, -race): then there is nothing to roll back and the reply
	// says so by omission; try again until the kill meets a write.
	for attempt := 0; ; attempt++ {
		runner.send("EVAL", script, "0")
		// The script holds the keyspace; commands that need no key still
		// answer, SCRIPT KILL among them.
		for i := 0; ; i++ {
			if r := admin.do("SCRIPT", "KILL"); r == "+OK\r\n" {
				break
			} else if r != "-NOTBUSY No scripts in execution right now.\r\n" || i > 1000 {
				t.Fatalf("SCRIPT KILL: %q", r)
			}
			time.Sleep(5 * time.Millisecond)
		}
		r := runner.read()
		if r == rolledBack {
			break
		}
		if !strings.HasPrefix(r, "-ERR Script killed by user with SCRIPT KILL") || attempt == 20 {
			t.Fatalf("killed script: %q, want %q", r, rolledBack)
		}
	}
	if r := admin.do("EXISTS", "k"); r != ":0\r\n" {
		t.Errorf("EXISTS k after the kill: %q", r)
	}
}

func TestPublishFromScriptAfterCommit(t *testing.T) {
	addr := socketServer(t, Options{TimeLimit: 100 * time.Millisecond})
	sub, pub := dial(t, addr), dial(t, addr)
	if r := sub.do("SUBSCRIBE", "redisson_lock__channel:{lock}"); !strings.Contains(r, "subscribe") {
		t.Fatalf("SUBSCRIBE: %q", r)
	}
	// Redisson's unlock publishes with the command name from ARGV.
	unlock := "redis.call('del', KEYS[1]); redis.call(ARGV[2], KEYS[2], ARGV[1]); return 1"
	if r := pub.do("EVAL", unlock, "2", "lock", "redisson_lock__channel:{lock}", "0", "PUBLISH"); r != ":1\r\n" {
		t.Fatalf("unlock: %q", r)
	}
	want := "*3\r\n$7\r\nmessage\r\n$29\r\nredisson_lock__channel:{lock}\r\n$1\r\n0\r\n"
	if r := sub.read(); r != want {
		t.Errorf("message: %q, want %q", r, want)
	}
	// A script stopped by the time limit publishes nothing.
	if r := pub.do("EVAL", "redis.call('publish', KEYS[1], 'lost') while true do end", "1", "redisson_lock__channel:{lock}"); !strings.HasPrefix(r, "-ERR Script killed") {
		t.Fatalf("looping script: %q", r)
	}
	if r := pub.do("PUBLISH", "redisson_lock__channel:{lock}", "next"); r != ":1\r\n" {
		t.Fatalf("PUBLISH: %q", r)
	}
	want = "*3\r\n$7\r\nmessage\r\n$29\r\nredisson_lock__channel:{lock}\r\n$4\r\nnext\r\n"
	if r := sub.read(); r != want {
		t.Errorf("after the rolled back script: %q, want %q", r, want)
	}
}
