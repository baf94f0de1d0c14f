package compat

// Differential tests for MULTI/EXEC/DISCARD/WATCH/UNWATCH played from two
// connections, and the small multi-connection runner (h4Run) that the
// blocking tests and the random type sequences use as well: a script of
// steps, each on a numbered connection, played step by step on redis-server
// and on lockredis, comparing the raw reply every connection gets.

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

type h4Op int

const (
	h4Do      h4Op = iota // send the command and read its reply
	h4Send                // send only (the command blocks); h4Recv reads the reply later
	h4Recv                // read the reply a h4Send left pending
	h4Close               // close the connection
	h4Sleep               // sleep on both servers (real time, for expiry)
	h4Blocked             // wait until the server reports n blocked clients
)

// h4Step is one step of a multi-connection script.
type h4Step struct {
	conn    int
	op      h4Op
	st      diffStep      // h4Do, h4Send (command), h4Recv (comparison mode)
	lenOnly bool          // compare only the reply's type and element count
	d       time.Duration // h4Sleep
	n       int           // h4Blocked
}

// h4On makes h4Do steps on connection conn from steps(...) items.
func h4On(conn int, items ...any) []h4Step {
	var out []h4Step
	for _, st := range steps(items...) {
		out = append(out, h4Step{conn: conn, st: st})
	}
	return out
}

func h4SendOn(conn int, cmd string) h4Step {
	return h4Step{conn: conn, op: h4Send, st: diffStep{args: splitCommand(cmd)}}
}

func h4RecvOn(conn int) h4Step { return h4Step{conn: conn, op: h4Recv} }

func h4CloseConn(conn int) h4Step { return h4Step{conn: conn, op: h4Close} }

func h4SleepMs(ms int) h4Step {
	return h4Step{op: h4Sleep, d: time.Duration(ms) * time.Millisecond}
}

func h4AwaitBlocked(n int) h4Step { return h4Step{op: h4Blocked, n: n} }

// h4Len is a step on conn whose reply must only have the same type and
// length (random members: SRANDMEMBER, HRANDFIELD, ZRANDMEMBER...).
func h4Len(conn int, cmd ...string) h4Step {
	return h4Step{conn: conn, st: diffStep{args: cmd}, lenOnly: true}
}

// h4Script flattens steps and step lists into one script.
func h4Script(items ...any) []h4Step {
	var out []h4Step
	for _, it := range items {
		switch v := it.(type) {
		case h4Step:
			out = append(out, v)
		case []h4Step:
			out = append(out, v...)
		default:
			panic(fmt.Sprintf("h4Script: unexpected %T", it))
		}
	}
	return out
}

type h4Case struct {
	name  string
	steps []h4Step
}

func h4RunCases(t *testing.T, p *diffPair, cases []h4Case) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			forEachProto(t, func(t *testing.T, proto int) {
				p.reset(t)
				reportDiffs(t, h4Run(t, p, proto, tc.steps))
			})
		})
	}
}

// h4Side is one server's end of a script: its connections, opened on first
// use, and the admin connection that reads INFO.
type h4Side struct {
	t     *testing.T
	addr  string
	proto int    // of every connection the script opens
	pass  string // the server's password, for HELLO 3 AUTH
	admin *rawConn
	conns map[int]*stepConn
	sent  map[int]bool // a reply is pending (h4Send)
}

func (s *h4Side) conn(i int) *stepConn {
	c, ok := s.conns[i]
	if !ok {
		c = newStepConn(s.t, s.addr, s.proto, s.pass)
		s.conns[i] = c
	}
	return c
}

// send writes a frame without reading the reply.
func (s *h4Side) send(i int, frame []byte) string {
	c := s.conn(i)
	if c.dead != "" {
		return c.dead
	}
	if _, err := c.raw.c.Write(frame); err != nil {
		c.dead = "<" + err.Error() + ">"
		return c.dead
	}
	s.sent[i] = true
	return ""
}

// recv reads the reply to an earlier send.
func (s *h4Side) recv(i int) string {
	c := s.conn(i)
	if c.dead != "" {
		return c.dead
	}
	if !s.sent[i] {
		return "<nothing pending>"
	}
	s.sent[i] = false
	c.raw.c.SetDeadline(time.Now().Add(replyTimeout))
	reply, err := readReply(c.raw.r)
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			c.dead = "<no reply within " + replyTimeout.String() + ">"
		} else {
			c.dead = "<" + err.Error() + ">"
		}
		return string(reply) + c.dead
	}
	return string(reply)
}

func (s *h4Side) close(i int) {
	if c, ok := s.conns[i]; ok {
		c.raw.c.Close()
		c.dead = "<closed by the test>"
	}
}

// awaitBlocked polls INFO clients until blocked_clients is n, for up to
// two seconds; it returns the last count seen.
func (s *h4Side) awaitBlocked(n int) (int, bool) {
	deadline := time.Now().Add(2 * time.Second)
	for {
		got := h4BlockedClients(s.t, s.admin)
		if got == n {
			return got, true
		}
		if time.Now().After(deadline) {
			return got, false
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func h4BlockedClients(t *testing.T, admin *rawConn) int {
	info := admin.do(t, "INFO", "clients")
	r, ok := parseRaw(info)
	if !ok {
		return -1
	}
	sc := bufio.NewScanner(strings.NewReader(r.blob))
	for sc.Scan() {
		if v, found := strings.CutPrefix(strings.TrimSpace(sc.Text()), "blocked_clients:"); found {
			n, err := strconv.Atoi(v)
			if err == nil {
				return n
			}
		}
	}
	return -1
}

// h4Run plays a script on both servers, each step first on redis-server
// then on lockredis, and returns the steps whose replies differ.
func h4Run(t *testing.T, p *diffPair, proto int, script []h4Step) []stepDiff {
	t.Helper()
	rs := &h4Side{t: t, addr: p.redisAddr, proto: proto, pass: p.password, admin: p.redisCtl, conns: map[int]*stepConn{}, sent: map[int]bool{}}
	ls := &h4Side{t: t, addr: p.lockAddr, proto: proto, pass: p.password, admin: p.lockCtl, conns: map[int]*stepConn{}, sent: map[int]bool{}}
	var diffs []stepDiff
	for i, st := range script {
		label := st.st
		var r, l string
		switch st.op {
		case h4Do:
			frame := st.st.raw
			if st.st.args != nil {
				frame = encodeCommand(st.st.args)
			}
			r = rs.conn(st.conn).send(frame)
			l = ls.conn(st.conn).send(frame)
		case h4Send:
			frame := encodeCommand(st.st.args)
			r = rs.send(st.conn, frame)
			l = ls.send(st.conn, frame)
		case h4Recv:
			r = rs.recv(st.conn)
			l = ls.recv(st.conn)
			label = diffStep{args: []string{"<reply>"}, mode: st.st.mode}
		case h4Close:
			rs.close(st.conn)
			ls.close(st.conn)
			continue
		case h4Sleep:
			time.Sleep(st.d)
			continue
		case h4Blocked:
			rn, rok := rs.awaitBlocked(st.n)
			ln, lok := ls.awaitBlocked(st.n)
			if !rok || !lok {
				diffs = append(diffs, stepDiff{index: i,
					step:  diffStep{args: []string{"<await blocked_clients=" + strconv.Itoa(st.n) + ">"}},
					redis: "blocked_clients:" + strconv.Itoa(rn), lock: "blocked_clients:" + strconv.Itoa(ln)})
			}
			continue
		}
		label.args = append([]string{"[conn " + strconv.Itoa(st.conn) + "]"}, label.args...)
		if strings.HasPrefix(r, "<no reply") {
			// redis-server itself blocked: the script is wrong, not lockredis.
			t.Errorf("step %d: %s: redis-server gave no reply (script error)", i+1, label)
		}
		same := sameReply(st.st, r, l)
		if st.lenOnly {
			same = h4SameLen(r, l)
		}
		if !same {
			diffs = append(diffs, stepDiff{index: i, step: label, redis: r, lock: l})
		}
	}
	return diffs
}

// h4SameLen reports whether two replies have the same type and, for
// aggregates, the same number of elements; nil and errors must match
// exactly.
func h4SameLen(a, b string) bool {
	if a == b {
		return true
	}
	ra, okA := parseRaw(a)
	rb, okB := parseRaw(b)
	if !okA || !okB || ra.typ != rb.typ {
		return false
	}
	switch ra.typ {
	case '*', '~', '%':
		return ra.line == rb.line
	case '$':
		return (ra.line == "-1") == (rb.line == "-1")
	}
	return false
}

// Connections: 1 is "client A", 2 is "client B".
const (
	h4A = 1
	h4B = 2
)

func TestDiffMulti(t *testing.T) {
	A := func(items ...any) []h4Step { return h4On(h4A, items...) }
	B := func(items ...any) []h4Step { return h4On(h4B, items...) }
	cases := []h4Case{
		{"queued-replies", h4Script(
			A("MULTI", "SET k v", "INCR n", "GET k", "RPUSH l a b", "HSET h f v", "ZADD z 1 m", "SADD s x",
				"LRANGE l 0 -1", "PING", "ECHO hi", "EXEC"),
			A("MULTI", "EXEC"), A("multi", "get k", "exec"),
		)},
		{"execabort-unknown-command", h4Script(
			A("MULTI", "SET k v", "NOSUCHCMD x", "SET k w", "EXEC", "GET k", "EXEC"),
		)},
		{"execabort-arity", h4Script(
			A("MULTI", "SET k", "SET k v", "EXEC", "EXISTS k"),
			A("MULTI", "GET", "HSET h f", "EXEC"),
			A("MULTI", "ZADD z", "DISCARD", "EXEC"),
		)},
		{"execabort-then-watch-cleared", h4Script(
			A("SET k 1", "WATCH k", "MULTI", "NOSUCHCMD", "EXEC"),
			B("SET k 2"),
			A("MULTI", "SET k 3", "EXEC", "GET k"),
		)},
		{"runtime-errors-inside-exec", h4Script(
			A("SET s str", "RPUSH l a"),
			A("MULTI", "INCR s", "LPUSH s x", "SET k v", "HSET l f v", "ZADD z abc m", "ZADD z 1 m",
				"LSET l 5 x", "INCRBYFLOAT k 1", "EXEC", "GET k", "ZSCORE z m"),
			A("MULTI", "SET k v EX 0", "SET k2 v", "EXEC", "GET k2"),
		)},
		{"syntax-errors-queue-then-fail", h4Script(
			// Errors that only the command itself detects (not arity)
			// are queued and fail inside EXEC.
			A("MULTI", "SET k v FOO", "SET k2 v", "ZADD z NX XX 1 m", "LPOP l -1", "EXEC", "EXISTS k k2"),
		)},
		{"exec-arity-inside-multi", h4Script(
			A("MULTI", "SET k v", "EXEC x", "EXEC", "EXISTS k"),
		)},
		{"nested-multi", h4Script(
			A("MULTI", "MULTI", "SET k v", "EXEC", "GET k"),
		)},
		{"watch-inside-multi", h4Script(
			A("MULTI", "WATCH k", "SET k v", "EXEC", "GET k"),
			A("MULTI", "UNWATCH", "EXEC"),
		)},
		{"exec-discard-without-multi", h4Script(
			A("EXEC", "DISCARD", "MULTI", "DISCARD", "DISCARD", "EXEC"),
			A("EXEC x", "DISCARD x", "MULTI x", "WATCH", "UNWATCH x"),
		)},
		{"discard", h4Script(
			A("MULTI", "SET k v", "INCR n", "DISCARD", "EXISTS k n"),
			A("SET k 1", "WATCH k", "MULTI", "DISCARD"),
			B("SET k 2"),
			A("MULTI", "SET k 3", "EXEC", "GET k"),
		)},
		{"watch-broken-by-other-write", h4Script(
			A("SET k 1", "WATCH k"),
			B("SET k 2"),
			A("MULTI", "SET k 3", "EXEC", "GET k"),
			A("WATCH k"),
			B("SET k 2"),
			A("MULTI", "SET k 3", "EXEC", "GET k"),
		)},
		{"watch-broken-by-same-value-write", h4Script(
			A("SET k 1", "WATCH k"),
			B("SET k 1"),
			A("MULTI", "GET k", "EXEC"),
		)},
		{"watch-broken-by-each-type", h4Script(
			A("WATCH h l z s"), B("HSET h f v"), A("MULTI", "PING", "EXEC"),
			A("WATCH h l z s"), B("RPUSH l a"), A("MULTI", "PING", "EXEC"),
			A("WATCH h l z s"), B("ZADD z 1 m"), A("MULTI", "PING", "EXEC"),
			A("WATCH h l z s"), B("SADD s m"), A("MULTI", "PING", "EXEC"),
			A("WATCH h l z s"), B("ZINCRBY z 1 m"), A("MULTI", "PING", "EXEC"),
			A("WATCH h l z s"), B("LPOP l"), A("MULTI", "PING", "EXEC"),
			A("WATCH h l z s"), B("HINCRBY h n 1"), A("MULTI", "PING", "EXEC"),
		)},
		{"watch-missing-key-then-created", h4Script(
			A("WATCH k"), B("SET k v"), A("MULTI", "SET k mine", "EXEC", "GET k"),
		)},
		{"watch-own-write-before-multi", h4Script(
			// The watching client's own write also breaks the WATCH.
			A("SET k 1", "WATCH k", "SET k 2", "MULTI", "SET k 3", "EXEC", "GET k"),
		)},
		{"watch-broken-by-del", h4Script(
			A("SET k 1", "WATCH k"), B("DEL k"), A("MULTI", "SET k 3", "EXEC", "GET k"),
		)},
		{"watch-not-broken-by-del-of-missing", h4Script(
			A("WATCH k"), B("DEL k"), A("MULTI", "SET k 3", "EXEC", "GET k"),
		)},
		{"watch-broken-by-expire", h4Script(
			A("SET k 1", "WATCH k"), B("EXPIRE k 100"), A("MULTI", "SET k 3", "EXEC", "GET k"),
			A("WATCH k"), B("PERSIST k"), A("MULTI", "SET k 4", "EXEC", "GET k"),
		)},
		{"watch-broken-by-rename", h4Script(
			A("SET k 1", "SET j 2", "WATCH k j"), B("RENAME k x"), A("MULTI", "PING", "EXEC"),
			A("WATCH x"), B("RENAME j x"), A("MULTI", "PING", "EXEC"),
		)},
		{"watch-broken-by-key-expiring", h4Script(
			A("SET k 1 PX 60", "WATCH k"), h4SleepMs(150), A("MULTI", "SET k 3", "EXEC", "GET k"),
		)},
		{"watch-key-already-expired", h4Script(
			// Watched after it expired: its (lazy) deletion is no change.
			A("SET k 1 PX 20"), h4SleepMs(100), A("WATCH k", "MULTI", "SET k 3", "EXEC", "GET k"),
		)},
		{"watch-broken-by-flushdb", h4Script(
			A("SET k 1", "WATCH k"), B("FLUSHDB"), A("MULTI", "SET k 3", "EXEC", "GET k"),
		)},
		{"watch-broken-by-flushall", h4Script(
			A("SET k 1", "WATCH k"), B("FLUSHALL"), A("MULTI", "SET k 3", "EXEC", "GET k"),
		)},
		{"watch-flushdb-other-db", h4Script(
			A("SET k 1", "WATCH k"), B("SELECT 5", "FLUSHDB"), A("MULTI", "SET k 3", "EXEC", "GET k"),
		)},
		{"watch-not-broken-by-failed-setnx", h4Script(
			A("SET k 1", "WATCH k"), B("SET k 2 NX", "SETNX k 3", "SET nokey x XX", "HSETNX h f v"),
			A("MULTI", "SET k 3", "EXEC", "GET k"),
		)},
		{"watch-not-broken-by-reads", h4Script(
			A("SET k 1", "WATCH k"), B("GET k", "EXISTS k", "TTL k", "TYPE k"),
			A("MULTI", "SET k 3", "EXEC", "GET k"),
		)},
		{"watch-not-broken-by-noop-writes", h4Script(
			A("SET k 1", "WATCH k"), B("PERSIST k", "EXPIRE nokey 10", "DEL nokey"),
			A("MULTI", "SET k 3", "EXEC", "GET k"),
		)},
		{"watch-not-broken-by-other-keys", h4Script(
			A("SET k 1", "WATCH k"), B("SET j 2", "DEL x", "HSET h f v"),
			A("MULTI", "SET k 3", "EXEC", "GET k"),
		)},
		{"watch-not-broken-by-other-db", h4Script(
			A("SET k 1", "WATCH k"), B("SELECT 1", "SET k 2", "DEL k"),
			A("MULTI", "SET k 3", "EXEC", "GET k"),
		)},
		{"watch-in-other-db", h4Script(
			A("SELECT 2", "SET k 1", "WATCH k"), B("SET k 2"), A("MULTI", "SET k 3", "EXEC"),
			A("WATCH k"), B("SELECT 2", "SET k 2"), A("MULTI", "SET k 3", "EXEC", "GET k"),
		)},
		{"unwatch", h4Script(
			A("SET k 1", "WATCH k", "UNWATCH"), B("SET k 2"), A("MULTI", "SET k 3", "EXEC", "GET k"),
			A("UNWATCH", "UNWATCH"),
		)},
		{"exec-clears-watch", h4Script(
			A("SET k 1", "WATCH k", "MULTI", "PING", "EXEC"), B("SET k 2"),
			A("MULTI", "SET k 3", "EXEC", "GET k"),
		)},
		{"failed-exec-clears-watch", h4Script(
			A("SET k 1", "WATCH k"), B("SET k 2"), A("MULTI", "PING", "EXEC"),
			B("SET k 4"), A("MULTI", "SET k 3", "EXEC", "GET k"),
		)},
		{"watch-then-select", h4Script(
			// WATCH remembers the db: a write to k in db 0 still breaks it
			// after SELECT; a write to k in the new db does not.
			A("SET k 1", "WATCH k", "SELECT 1"), B("SET k 2"), A("MULTI", "SET k 3", "EXEC"),
			A("SELECT 0", "WATCH k", "SELECT 1"), B("SELECT 1", "SET k 2"), A("MULTI", "SET k 3", "EXEC", "GET k"),
		)},
		{"watch-several-keys", h4Script(
			A("WATCH a b c"), B("SET c 1"), A("MULTI", "SET a 1", "EXEC", "EXISTS a"),
			A("WATCH a", "WATCH b"), B("SET a 1"), A("MULTI", "SET b 1", "EXEC", "EXISTS b"),
		)},
		{"select-inside-multi", h4Script(
			A("MULTI", "SELECT 3", "SET k v", "EXEC", "GET k", "SELECT 0", "GET k"),
		)},
		{"multi-isolation", h4Script(
			// Queued commands do not run before EXEC.
			A("MULTI", "SET k a", "INCR n"), B("GET k", "SET n 10"), A("EXEC"), B("GET k", "GET n"),
		)},
		{"exec-sees-watched-type-change", h4Script(
			A("HSET h f v", "WATCH h"), B("DEL h", "HSET h f v"), A("MULTI", "HGET h f", "EXEC"),
		)},
	}
	h4RunCases(t, newDiffPair(t, ""), cases)
}
