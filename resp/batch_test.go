package resp

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lockredis/lockredis/engine"
	"github.com/lockredis/lockredis/pubsub"
)

// encodeCommands is the RESP of cmds (space-separated words), as one write.
func encodeCommands(cmds ...string) string {
	var b strings.Builder
	for _, c := range cmds {
		words := strings.Fields(c)
		b.WriteString("*" + strconv.Itoa(len(words)) + "\r\n")
		for _, w := range words {
			b.WriteString("$" + strconv.Itoa(len(w)) + "\r\n" + w + "\r\n")
		}
	}
	return b.String()
}

// pipeline sends cmds in one write and returns their replies.
func (rc *rawClient) pipeline(cmds ...string) []string {
	rc.t.Helper()
	rc.send(encodeCommands(cmds...))
	out := make([]string, len(cmds))
	for i := range cmds {
		out[i] = rc.reply()
	}
	return out
}

// TestBatchRules: the commands of one read run as batches (one
// transaction) with the replies of one-by-one execution, which are those
// redis-server 7.0.15 gives for the same pipeline.
func TestBatchRules(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup []string // run first, one by one
		cmds  []string // sent in one write
		want  []string
		// batched: at least this many commands ran inside batches.
		batched int64
	}{
		{
			name:    "GET after SET sees the write",
			cmds:    []string{"SET k v", "GET k", "APPEND k w", "GET k", "DEL k", "GET k"},
			want:    []string{"+OK\r\n", "$1\r\nv\r\n", ":2\r\n", "$2\r\nvw\r\n", ":1\r\n", "$-1\r\n"},
			batched: 6,
		},
		{
			name:    "refused commands answer their error and the batch goes on",
			setup:   []string{"SET s x", "RPUSH l a"},
			cmds:    []string{"SET a 1", "SET b", "INCR s", "LPOP s", "NOSUCH x", "GET a"},
			want:    []string{"+OK\r\n", "-ERR wrong number of arguments for 'set' command\r\n", "-ERR value is not an integer or out of range\r\n", "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n", "-ERR unknown command 'NOSUCH', with args beginning with: 'x' \r\n", "$1\r\n1\r\n"},
			batched: 4, // SET a 1 .. LPOP s; NOSUCH runs alone, GET a after it
		},
		{
			name:    "a SET NX lock pipeline",
			cmds:    []string{"SET lk o1 NX PX 10000", "SET lk o2 NX PX 10000", "GET lk", "PEXPIRE lk 20000", "DEL lk", "SET lk o2 NX PX 10000"},
			want:    []string{"+OK\r\n", "$-1\r\n", "$2\r\no1\r\n", ":1\r\n", ":1\r\n", "+OK\r\n"},
			batched: 6,
		},
		{
			name:    "reads only: a shared transaction",
			setup:   []string{"SET r1 a", "SET r2 b"},
			cmds:    []string{"GET r1", "GET r2", "EXISTS r1 r2 r3", "STRLEN r1"},
			want:    []string{"$1\r\na\r\n", "$1\r\nb\r\n", ":2\r\n", ":1\r\n"},
			batched: 4,
		},
		{
			name:    "commands that do not join run alone between batches",
			cmds:    []string{"SET x 1", "INCR x", "PING", "INCR x", "GET x", "SELECT 1", "GET x", "SET x 9", "SELECT 0", "GET x"},
			want:    []string{"+OK\r\n", ":2\r\n", "+PONG\r\n", ":3\r\n", "$1\r\n3\r\n", "+OK\r\n", "$-1\r\n", "+OK\r\n", "+OK\r\n", "$1\r\n3\r\n"},
			batched: 6,
		},
		{
			name:    "MULTI queues: nothing joins inside it",
			cmds:    []string{"MULTI", "SET m 1", "INCR m", "EXEC", "GET m"},
			want:    []string{"+OK\r\n", "+QUEUED\r\n", "+QUEUED\r\n", "*2\r\n+OK\r\n:2\r\n", "$1\r\n2\r\n"},
			batched: 0,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := startServer(t, engine.Config{}, Options{})
			c := ts.dial(t)
			for _, s := range tc.setup {
				c.pipeline(s)
			}
			before := ts.eng.Stats.Batched.Load()
			got := c.pipeline(tc.cmds...)
			for i := range tc.want {
				if got[i] != tc.want[i] {
					t.Errorf("%s: got %q, want %q", tc.cmds[i], got[i], tc.want[i])
				}
			}
			// redcon parses what one read brought; a small write on
			// loopback arrives in one read.
			if n := ts.eng.Stats.Batched.Load() - before; n < tc.batched || tc.batched == 0 && n != 0 {
				t.Errorf("%d commands ran in batches, want %d", n, tc.batched)
			}
		})
	}
}

// A list a pipelined LPUSH fills goes to the client blocked on it before
// the LPOP behind it in the same read runs, as on Redis: the LPUSH ends
// its batch.
func TestBatchServesBlockedClientFirst(t *testing.T) {
	ts := startServer(t, engine.Config{}, Options{})
	waiter, c := ts.dial(t), ts.dial(t)
	waiter.send(encodeCommands("BLPOP q 0"))
	waitFor(t, func() bool { return ts.eng.BlockedClients() == 1 })
	before := ts.eng.Stats.Batched.Load()
	got := c.pipeline("SET a 1", "LPUSH q x", "LPOP q", "GET a")
	want := []string{"+OK\r\n", ":1\r\n", "$-1\r\n", "$1\r\n1\r\n"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("reply %d: got %q, want %q", i, got[i], want[i])
		}
	}
	if got := waiter.reply(); got != "*2\r\n$1\r\nq\r\n$1\r\nx\r\n" {
		t.Fatalf("blocked client: %q", got)
	}
	if n := ts.eng.Stats.Batched.Load() - before; n != 4 {
		t.Fatalf("%d commands ran in batches, want 4 (two batches of two)", n)
	}
}

// A key found expired by a read is gone for the write that follows it in
// the same batch, and for everyone once the replies are read.
func TestBatchExpiredKeyReadThenWritten(t *testing.T) {
	clock := engine.NewManualClock(time.Unix(1700000000, 0))
	ts := startServer(t, engine.Config{Clock: clock}, Options{})
	ts.eng.SetActiveExpire(false)
	c := ts.dial(t)
	c.pipeline("SET k v PX 100", "SET other v PX 100")
	clock.FastForward(time.Second)
	got := c.pipeline("GET k", "EXISTS k", "SET k w NX", "GET k", "GET other", "DBSIZE")
	want := []string{"$-1\r\n", ":0\r\n", "+OK\r\n", "$1\r\nw\r\n", "$-1\r\n", ":1\r\n"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("reply %d: got %q, want %q", i, got[i], want[i])
		}
	}
	// A read-only batch that finds an expired key deletes it before its
	// replies go out.
	c.pipeline("SET r v PX 100")
	clock.FastForward(time.Second)
	before := ts.eng.Stats.Batched.Load()
	if got := c.pipeline("GET r", "EXISTS r"); got[0] != "$-1\r\n" || got[1] != ":0\r\n" {
		t.Fatalf("read batch: %q", got)
	}
	if ts.eng.Stats.Batched.Load()-before != 2 {
		t.Fatal("the reads did not run as one batch")
	}
	if got := ts.dial(t).pipeline("DBSIZE"); got[0] != ":1\r\n" {
		t.Fatalf("DBSIZE after the read batch: %q", got[0])
	}
}

// appendfsync always: a batch's replies go out only once an fsync covered
// its commit.
func TestBatchRepliesAfterFsync(t *testing.T) {
	dir := t.TempDir()
	ts := startServer(t, engine.Config{Params: map[string]string{"dir": dir, "appendonly": "yes", "appendfsync": "always"}}, Options{})
	c := ts.dial(t)
	c.pipeline("PING")
	fsyncs := ts.eng.StatsSnapshot().AOFFsync.Count
	before := ts.eng.Stats.Batched.Load()
	got := c.pipeline("SET a 1", "SET b 2", "INCR n", "GET a")
	if strings.Join(got, "") != "+OK\r\n+OK\r\n:1\r\n$1\r\n1\r\n" {
		t.Fatalf("replies %q", got)
	}
	if ts.eng.Stats.Batched.Load()-before != 4 {
		t.Fatal("the pipeline did not run as one batch")
	}
	if ts.eng.StatsSnapshot().AOFFsync.Count == fsyncs {
		t.Fatal("replies went out before an fsync")
	}
}

// Locks held through the lock registry keep batches going for other keys;
// a release that hands the lock to a waiter ends its batch, so the next
// command sees the waiter holding it.
func TestBatchLockHandOver(t *testing.T) {
	ts := startServer(t, engine.Config{}, Options{})
	c, waiter := ts.dial(t), ts.dial(t)
	if got := c.pipeline("LOCK.ACQUIRE lk a 30000"); !strings.HasPrefix(got[0], ":") {
		t.Fatalf("LOCK.ACQUIRE: %q", got[0])
	}
	before := ts.eng.Stats.Batched.Load()
	if got := strings.Join(c.pipeline("SET x 1", "INCR x", "GET x"), ""); got != "+OK\r\n:2\r\n$1\r\n2\r\n" {
		t.Fatalf("replies %q", got)
	}
	if n := ts.eng.Stats.Batched.Load() - before; n != 3 {
		t.Fatalf("with a lock held, %d commands ran in batches, want 3", n)
	}
	waiter.send(encodeCommands("LOCK.ACQUIRE lk b 30000 WAIT 60000"))
	waitFor(t, func() bool { return ts.eng.BlockedClients() == 1 })
	got := c.pipeline("LOCK.RELEASE lk a", "LOCK.RELEASE lk a", "LOCK.RELEASE lk b")
	want := []string{":1\r\n", ":0\r\n", ":1\r\n"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("reply %d: got %q, want %q", i, got[i], want[i])
		}
	}
	if r := waiter.reply(); !strings.HasPrefix(r, ":") {
		t.Fatalf("waiter: %q", r)
	}
}

// Batches of several connections interleave as whole transactions: every
// INCR counts once, each connection sees its own INCRs rise, and the race
// detector sees the batches' shared state.
func TestBatchConcurrentConnections(t *testing.T) {
	ts := startServer(t, engine.Config{}, Options{})
	const conns, rounds, per = 6, 20, 8
	cmds := make([]string, 0, per+1)
	for range per {
		cmds = append(cmds, "INCR n")
	}
	cmds = append(cmds, "GET n")
	errs := make(chan string, conns)
	for range conns {
		c := ts.dial(t)
		go func() {
			last := 0
			for range rounds {
				c.send(encodeCommands(cmds...))
				for i := range cmds {
					r := c.reply()
					n, err := strconv.Atoi(strings.TrimSpace(strings.TrimLeft(r[strings.LastIndexByte(r[:len(r)-2], '\n')+1:], ":")))
					if err != nil || n <= last && i < per {
						errs <- "reply " + strconv.Quote(r) + " after " + strconv.Itoa(last)
						return
					}
					last = n
				}
			}
			errs <- ""
		}()
	}
	for range conns {
		if e := <-errs; e != "" {
			t.Fatal(e)
		}
	}
	if got := ts.dial(t).pipeline("GET n"); got[0] != "$3\r\n960\r\n" {
		t.Fatalf("GET n = %q, want 960", got[0])
	}
}

// Commands read together with a SUBSCRIBE that detaches the connection
// are served after it as a detached connection's: QUIT behind it closes
// the connection, as before batches.
func TestBatchReadWithSubscribe(t *testing.T) {
	hub := pubsub.NewHub(pubsub.Limits{}, nil)
	defer hub.Close()
	ts := startServer(t, engine.Config{}, Options{Hub: hub})
	pubsub.Register(ts.eng, hub)
	c := ts.dial(t)
	c.send(encodeCommands("SET a 1", "GET a", "SUBSCRIBE ch", "PING", "QUIT", "SET after 1"))
	got := c.rest()
	want := "+OK\r\n$1\r\n1\r\n*3\r\n$9\r\nsubscribe\r\n$2\r\nch\r\n:1\r\n*2\r\n$4\r\npong\r\n$0\r\n\r\n+OK\r\n"
	if got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	if r := ts.dial(t).pipeline("GET after"); r[0] != "$-1\r\n" {
		t.Fatalf("the SET after QUIT ran: %q", r[0])
	}
}

// A read of more commands than maxBatch runs as several batches, in
// order.
func TestBatchLongRead(t *testing.T) {
	ts := startServer(t, engine.Config{}, Options{})
	c := ts.dial(t)
	cmds := make([]string, 0, 3*maxBatch+1)
	for range 3 * maxBatch {
		cmds = append(cmds, "INCR n")
	}
	cmds = append(cmds, "GET n")
	before := ts.eng.Stats.Batches.Load()
	got := c.pipeline(cmds...)
	for i := range 3 * maxBatch {
		if got[i] != ":"+strconv.Itoa(i+1)+"\r\n" {
			t.Fatalf("reply %d: %q", i, got[i])
		}
	}
	if want := "$3\r\n" + strconv.Itoa(3*maxBatch) + "\r\n"; got[len(got)-1] != want {
		t.Fatalf("GET n = %q, want %q", got[len(got)-1], want)
	}
	if n := ts.eng.Stats.Batches.Load() - before; n < 4 {
		t.Fatalf("%d batches for %d commands", n, len(cmds))
	}
}
