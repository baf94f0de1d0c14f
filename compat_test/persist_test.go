package compat

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Kill -9 / restart tests of the real binary: persistence (issue 7).

// restartable is a lockredis process that can be killed and restarted on the same
// port and directory.
type restartable struct {
	t    *testing.T
	port int
	dir  string
	args []string

	mu     sync.Mutex
	cmd    *exec.Cmd
	out    lockedBuffer // output of every incarnation
	exited chan struct{}
	err    error
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (lb *lockedBuffer) Write(p []byte) (int, error) {
	lb.mu.Lock()
	defer lb.mu.Unlock()
	return lb.b.Write(p)
}

func (lb *lockedBuffer) String() string {
	lb.mu.Lock()
	defer lb.mu.Unlock()
	return lb.b.String()
}

// newNode prepares a restartable in dir (a new temporary one if empty); start it
// with start. It is killed when the test ends.
func newNode(t *testing.T, dir string, args ...string) *restartable {
	t.Helper()
	if dir == "" {
		dir = t.TempDir()
	}
	n := &restartable{t: t, port: freePort(t), dir: dir, args: args}
	t.Cleanup(func() {
		n.mu.Lock()
		running := n.cmd != nil
		n.mu.Unlock()
		if running {
			n.kill9()
		}
	})
	return n
}

func (n *restartable) addr() string { return "127.0.0.1:" + strconv.Itoa(n.port) }

// launch starts the process without waiting for it.
func (n *restartable) launch() {
	n.t.Helper()
	bin := lockredisBinary(n.t)
	all := append([]string{"--port", strconv.Itoa(n.port), "--bind", "127.0.0.1", "--dir", n.dir}, n.args...)
	cmd := exec.Command(bin, all...)
	dieWithTest(cmd)
	cmd.Stdout = &n.out
	cmd.Stderr = &n.out
	if err := cmd.Start(); err != nil {
		n.t.Fatal(err)
	}
	exited := make(chan struct{})
	n.mu.Lock()
	n.cmd, n.exited = cmd, exited
	n.mu.Unlock()
	go func() {
		err := cmd.Wait()
		n.mu.Lock()
		n.err = err
		n.mu.Unlock()
		close(exited)
	}()
}

// start runs the restartable until it answers PING.
func (n *restartable) start() {
	n.t.Helper()
	n.launch()
	if _, err := waitPing(n.addr(), n.exited); err != nil {
		n.t.Fatalf("lockredis on %s: %v\n%s", n.addr(), err, n.out.String())
	}
}

// startFails runs the restartable and expects it to exit with an error.
func (n *restartable) startFails() string {
	n.t.Helper()
	n.launch()
	select {
	case <-n.exited:
	case <-time.After(10 * time.Second):
		n.t.Fatalf("lockredis started although it should not have:\n%s", n.out.String())
	}
	n.mu.Lock()
	err := n.err
	n.cmd = nil
	n.mu.Unlock()
	if err == nil {
		n.t.Fatalf("lockredis exited with status 0:\n%s", n.out.String())
	}
	return n.out.String()
}

// kill9 kills the process as a crash would.
func (n *restartable) kill9() {
	n.t.Helper()
	n.mu.Lock()
	cmd, exited := n.cmd, n.exited
	n.cmd = nil
	n.mu.Unlock()
	cmd.Process.Signal(syscall.SIGKILL)
	<-exited
}

// term stops the process cleanly and checks it exited with status 0.
func (n *restartable) term() {
	n.t.Helper()
	n.mu.Lock()
	cmd, exited := n.cmd, n.exited
	n.cmd = nil
	n.mu.Unlock()
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-exited
		n.t.Fatalf("no exit within 10 s of SIGTERM:\n%s", n.out.String())
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.err != nil {
		n.t.Fatalf("exit after SIGTERM: %v\n%s", n.err, n.out.String())
	}
}

func (n *restartable) client() *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: n.addr(), Protocol: 2, MaxRetries: -1, DialTimeout: time.Second,
		ReadTimeout: 2 * time.Second, PoolSize: 64})
	n.t.Cleanup(func() { c.Close() })
	return c
}

func (n *restartable) aof() string { return filepath.Join(n.dir, "appendonly.aof") }

// ack is a write the restartable acknowledged, and when.
type ack struct {
	key string
	at  time.Time
}

// hammer runs writers that SET distinct keys until stop is closed, and
// returns what the restartable acknowledged.
func hammer(c *redis.Client, writers int, stop <-chan struct{}) []ack {
	var mu sync.Mutex
	var acks []ack
	var wg sync.WaitGroup
	ctx := context.Background()
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				key := fmt.Sprintf("w%d:%d", w, i)
				if c.Set(ctx, key, "v", time.Minute).Err() != nil {
					return // the restartable is gone
				}
				mu.Lock()
				acks = append(acks, ack{key, time.Now()})
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return acks
}

// missing returns the acknowledged writes a restarted restartable lacks.
func missing(t *testing.T, c *redis.Client, acks []ack) []ack {
	t.Helper()
	var out []ack
	ctx := context.Background()
	for i := 0; i < len(acks); i += 500 {
		batch := acks[i:min(i+500, len(acks))]
		keys := make([]string, len(batch))
		for j, a := range batch {
			keys[j] = a.key
		}
		vals, err := c.MGet(ctx, keys...).Result()
		if err != nil {
			t.Fatal(err)
		}
		for j, v := range vals {
			if v == nil {
				out = append(out, batch[j])
			}
		}
	}
	return out
}

// crashWhileWriting writes from many clients, kills the restartable with -9 in
// the middle and restarts it; it returns the acknowledged writes, the
// missing ones and when the kill happened.
func crashWhileWriting(t *testing.T, n *restartable) (acks, lost []ack, killed time.Time) {
	n.start()
	c := n.client()
	stop := make(chan struct{})
	done := make(chan []ack)
	go func() { done <- hammer(c, 16, stop) }()
	time.Sleep(300 * time.Millisecond)
	killed = time.Now()
	n.kill9()
	close(stop)
	acks = <-done
	if len(acks) == 0 {
		t.Fatal("no write was acknowledged")
	}
	n.start()
	return acks, missing(t, n.client(), acks), killed
}

func TestKill9AlwaysKeepsEveryAcknowledgedWrite(t *testing.T) {
	n := newNode(t, "", "--appendonly", "yes", "--appendfsync", "always")
	acks, lost, _ := crashWhileWriting(t, n)
	if len(lost) > 0 {
		t.Fatalf("%d of %d acknowledged writes lost, first %q", len(lost), len(acks), lost[0].key)
	}
	t.Logf("%d acknowledged writes, all there after kill -9", len(acks))
}

func TestKill9EverysecLosesAtMostASecond(t *testing.T) {
	n := newNode(t, "", "--appendonly", "yes", "--appendfsync", "everysec")
	acks, lost, killed := crashWhileWriting(t, n)
	for _, a := range lost {
		if killed.Sub(a.at) > 1500*time.Millisecond {
			t.Fatalf("lost %q acknowledged %s before the kill", a.key, killed.Sub(a.at))
		}
	}
	t.Logf("%d acknowledged writes, %d lost", len(acks), len(lost))
}

func TestExpiryAcrossDowntime(t *testing.T) {
	n := newNode(t, "", "--appendonly", "yes", "--appendfsync", "always")
	n.start()
	c := n.client()
	ctx := context.Background()
	if err := c.Set(ctx, "lock", "tok", 2*time.Second).Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.Set(ctx, "short", "x", 500*time.Millisecond).Err(); err != nil {
		t.Fatal(err)
	}
	n.kill9()
	time.Sleep(time.Second)
	n.start()
	c = n.client()
	pttl, err := c.PTTL(ctx, "lock").Result()
	if err != nil {
		t.Fatal(err)
	}
	// About 1 s: 2 s minus the downtime and the restarts.
	if pttl > time.Second || pttl < 500*time.Millisecond {
		t.Fatalf("PTTL after 1 s down = %s, want about 1s", pttl)
	}
	if n, _ := c.Exists(ctx, "short").Result(); n != 0 {
		t.Fatal("a key whose time passed while the restartable was down is back")
	}
}

func TestTornTailIsDropped(t *testing.T) {
	n := newNode(t, "", "--appendonly", "yes")
	n.start()
	c := n.client()
	ctx := context.Background()
	for i := 0; i < 10; i++ {
		c.Set(ctx, fmt.Sprint("k", i), i, 0)
	}
	n.term()
	whole, _ := os.ReadFile(n.aof())
	record := "*3\r\n$3\r\nset\r\n$3\r\n\x00k1\r\n$12\r\ns\xff\xff\xff\xff\xff\xff\xff\xffabc\r\n"
	half := record[:len(record)/2]
	f, err := os.OpenFile(n.aof(), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(half)
	f.Close()
	n.start()
	want := fmt.Sprintf("dropping its %d bytes at offset %d", len(half), len(whole))
	if !strings.Contains(n.out.String(), want) {
		t.Fatalf("log lacks %q:\n%s", want, n.out.String())
	}
	if v, _ := n.client().Get(ctx, "k9").Result(); v != "9" {
		t.Fatalf("k9 = %q", v)
	}
	if got, _ := os.ReadFile(n.aof()); len(got) < len(whole) || !bytes.Equal(got[:len(whole)], whole) {
		t.Fatal("the records before the torn one changed")
	}
}

func TestCorruptMiddleStopsStartup(t *testing.T) {
	n := newNode(t, "", "--appendonly", "yes")
	n.start()
	c := n.client()
	ctx := context.Background()
	c.Set(ctx, "a", "1", 0)
	c.Set(ctx, "b", "2", 0)
	n.term()
	body, _ := os.ReadFile(n.aof())
	// Break the second record's header.
	second := bytes.Index(body[1:], []byte("*3\r\n")) + 1
	body[second] = '#'
	os.WriteFile(n.aof(), body, 0o644)
	out := n.startFails()
	want := fmt.Sprintf("%s at byte offset %d", n.aof(), second)
	if !strings.Contains(out, want) {
		t.Fatalf("output lacks %q:\n%s", want, out)
	}
	if got, _ := os.ReadFile(n.aof()); !bytes.Equal(got, body) {
		t.Fatal("the corrupt file was changed")
	}
}

func TestPersistenceCommandsOnBinary(t *testing.T) {
	n := newNode(t, "", "--appendonly", "yes", "--appendfsync", "always")
	n.start()
	c := dialRaw(t, n.addr())
	for i := 0; i < 50; i++ {
		c.do(t, "SET", "k", strconv.Itoa(i))
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"CONFIG", "GET", "appendonly"}, "*2\r\n$10\r\nappendonly\r\n$3\r\nyes\r\n"},
		{[]string{"CONFIG", "GET", "appendfsync"}, "*2\r\n$11\r\nappendfsync\r\n$6\r\nalways\r\n"},
		{[]string{"CONFIG", "GET", "dir"}, fmt.Sprintf("*2\r\n$3\r\ndir\r\n$%d\r\n%s\r\n", len(n.dir), n.dir)},
		{[]string{"SAVE"}, "+OK\r\n"},
		{[]string{"BGSAVE"}, "+Background saving started\r\n"},
		{[]string{"BGREWRITEAOF"}, "+Background append only file rewriting started\r\n"},
	} {
		if got := c.do(t, tc.args...); got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.args, got, tc.want)
		}
	}
	if got := c.do(t, "LASTSAVE"); !strings.HasPrefix(got, ":") {
		t.Errorf("LASTSAVE: %q", got)
	}
	info := c.do(t, "INFO", "persistence")
	for _, want := range []string{"aof_enabled:1", "aof_fsync_policy:always", "aof_filename:" + n.aof(), "restart_fence_remaining_sec:0"} {
		if !strings.Contains(info, want+"\r\n") {
			t.Errorf("INFO persistence lacks %q:\n%s", want, info)
		}
	}
}
