package engine

import (
	"bufio"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

// MIGRATE: compat_test/diff_migrate_test.go compares it with redis-server;
// these tests cover what the comparison cannot: MIGRATE's work outside the
// keyspace lock, against a fake target.

// fakeTarget is a MIGRATE target that records the commands it receives and
// answers each with the next of its replies, after release (when set)
// gives way.
type fakeTarget struct {
	addr     string
	received chan []string
	release  chan struct{}
}

func newFakeTarget(t *testing.T, replies func(cmd []string) string, hold bool) *fakeTarget {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	ft := &fakeTarget{addr: ln.Addr().String(), received: make(chan []string, 16)}
	if hold {
		ft.release = make(chan struct{})
	}
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		r := bufio.NewReader(conn)
		for {
			cmd, err := readCommand(r)
			if err != nil {
				return
			}
			ft.received <- cmd
			if ft.release != nil && strings.HasPrefix(cmd[0], "RESTORE") {
				<-ft.release
			}
			if rep := replies(cmd); rep != "" {
				io.WriteString(conn, rep)
			}
		}
	}()
	return ft
}

// readCommand reads one RESP array of bulk strings.
func readCommand(r *bufio.Reader) ([]string, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	n, _ := strconv.Atoi(strings.TrimSpace(line[1:]))
	out := make([]string, n)
	for i := range out {
		if line, err = r.ReadString('\n'); err != nil {
			return nil, err
		}
		size, _ := strconv.Atoi(strings.TrimSpace(line[1:]))
		b := make([]byte, size+2)
		if _, err := io.ReadFull(r, b); err != nil {
			return nil, err
		}
		out[i] = string(b[:size])
	}
	return out, nil
}

func okToAll(cmd []string) string { return "+OK\r\n" }

// TestMigrateSends: AUTH2, SELECT, then one RESTORE per key with its
// remaining TTL and REPLACE; the keys are deleted once acknowledged.
func TestMigrateSends(t *testing.T) {
	te := newTestEngine(t)
	ft := newFakeTarget(t, okToAll, false)
	host, port, _ := net.SplitHostPort(ft.addr)
	te.run([]step{
		{cmd("SET", "a", "1"), "OK"},
		{cmd("SET", "b", "2", "PX", "5000"), "OK"},
		{cmd("MIGRATE", host, port, "", "3", "1000", "REPLACE", "AUTH2", "u", "pw", "KEYS", "a", "nokey", "b"), "OK"},
		{cmd("EXISTS", "a", "b"), "(integer) 0"},
	})
	want := []string{
		"AUTH u pw",
		"SELECT 3",
		"RESTORE a 0 " + string(dumpPayload(Value{Type: TypeString, Payload: "1"})) + " REPLACE",
		"RESTORE b 5000 " + string(dumpPayload(Value{Type: TypeString, Payload: "2"})) + " REPLACE",
	}
	for _, w := range want {
		if got := strings.Join(<-ft.received, " "); got != w {
			t.Errorf("target received %q, want %q", got, w)
		}
	}
}

// TestMigrateOutsideTheLock: while MIGRATE waits for the target, other
// clients run; a key written meanwhile keeps its new value, the others are
// deleted.
func TestMigrateOutsideTheLock(t *testing.T) {
	te := newTestEngine(t)
	ft := newFakeTarget(t, okToAll, true)
	host, port, _ := net.SplitHostPort(ft.addr)
	te.run([]step{
		{cmd("SET", "a", "1"), "OK"},
		{cmd("SET", "b", "2"), "OK"},
	})
	other := NewSession("normal")
	other.Authenticated = true
	te.AddSession(other)
	done := make(chan string)
	go func() {
		var rec Recorder
		args := [][]byte{[]byte("MIGRATE"), []byte(host), []byte(port), nil, []byte("0"), []byte("5000"), []byte("KEYS"), []byte("a"), []byte("b")}
		te.Dispatch(other, nil, args, &rec)
		done <- rec.Replies[0].String()
	}()
	for range 2 { // SELECT and the first RESTORE arrived: MIGRATE waits for replies
		<-ft.received
	}
	te.run([]step{{cmd("SET", "b", "new"), "OK"}}) // would deadlock if MIGRATE held the lock
	close(ft.release)
	if got := <-done; got != "OK" {
		t.Fatalf("MIGRATE: %s", got)
	}
	te.run([]step{
		{cmd("EXISTS", "a"), "(integer) 0"},
		{cmd("GET", "b"), `"new"`},
	})
}

// TestMigrateErrors: the target's errors, a target that never answers.
func TestMigrateErrors(t *testing.T) {
	te := newTestEngine(t)
	busy := newFakeTarget(t, func(cmd []string) string {
		if cmd[0] == "RESTORE" && cmd[1] == "b" {
			return "-BUSYKEY Target key name already exists.\r\n"
		}
		return "+OK\r\n"
	}, false)
	host, port, _ := net.SplitHostPort(busy.addr)
	silent := newFakeTarget(t, func([]string) string { return "" }, false)
	shost, sport, _ := net.SplitHostPort(silent.addr)
	te.run([]step{
		{cmd("MSET", "a", "1", "b", "2"), "OK"},
		{cmd("MIGRATE", host, port, "", "0", "1000", "KEYS", "a", "b"), "(error) ERR Target instance replied with error: BUSYKEY Target key name already exists."},
		{cmd("EXISTS", "a", "b"), "(integer) 1"},
		{cmd("MIGRATE", host, port, "nokey", "0", "1000"), "NOKEY"},
	})
	start := time.Now()
	te.run([]step{
		{cmd("MIGRATE", shost, sport, "b", "0", "50"), "(error) IOERR error or timeout reading to target instance"},
		{cmd("GET", "b"), `"2"`},
	})
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("a silent target held MIGRATE %v", d)
	}
}

// TestMigrateClusterAsking: in cluster mode MIGRATE sends RESTORE-ASKING,
// as Redis does, so that a target importing the slot takes the key.
func TestMigrateClusterAsking(t *testing.T) {
	te := newTestEngineConfig(t, Config{Params: map[string]string{"cluster-enabled": "yes"}})
	ft := newFakeTarget(t, okToAll, false)
	host, port, _ := net.SplitHostPort(ft.addr)
	te.run([]step{
		{cmd("SET", "k", "v"), "OK"},
		{cmd("MIGRATE", host, port, "k", "0", "1000", "COPY"), "OK"},
		{cmd("EXISTS", "k"), "(integer) 1"},
	})
	<-ft.received // SELECT
	if got := (<-ft.received)[0]; got != "RESTORE-ASKING" {
		t.Errorf("target received %s, want RESTORE-ASKING", got)
	}
}
