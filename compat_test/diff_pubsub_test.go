package compat

// Differential tests of pub/sub: unlike the other diff cases, a pub/sub
// case drives two or three connections per server (a subscriber S, a
// publisher P, a third client T). Every step sends one frame on one
// connection and then reads a given number of frames from given
// connections; the raw frames each connection received must match
// redis-server's. After the last step every live connection gets a PING,
// whose reply must match too: a frame one server sent and the other did
// not shows up there.
//
// Where Redis answers in its dict order (UNSUBSCRIBE with no arguments
// over several channels, several patterns matching one message, PUBSUB
// CHANNELS), the frames of that read are compared as a multiset.

import (
	"errors"
	"fmt"
	"io"
	"net"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The connections of a case.
const (
	p5S = 0 // the subscriber
	p5P = 1 // the publisher
	p5T = 2 // a third client
)

var p5ConnName = [...]string{"S", "P", "T"}

type p5Mode int

const (
	p5Exact         p5Mode = iota // frames byte for byte, in order
	p5Unordered                   // each frame's arrays as multisets (PUBSUB CHANNELS)
	p5AnyOrder                    // the frames as a multiset (pmessages of several patterns)
	p5NamesAnyOrder               // (un)subscribe confirmations: names as a multiset, counts in order
	p5Shape                       // HELLO: integers may differ
	p5Kind                        // only the reply's type (INFO)
)

// p5Read reads n frames from connection conn. With fromReply, n is
// instead the integer reply of the step's first read (PUBLISH's count of
// receivers), taken on each server from its own reply.
type p5Read struct {
	conn      int
	n         int
	fromReply bool
	mode      p5Mode
}

// p5Step sends one frame on conn (none if frame is nil), then reads.
type p5Step struct {
	conn  int
	frame []byte
	desc  string
	reads []p5Read
	// withIDs, when set, replaces frame: the command is built on each
	// server from these arguments, "{S}", "{P}" and "{T}" replaced by the
	// id a saveID step read for that connection (CLIENT TRACKING
	// REDIRECT: the ids differ between the servers).
	withIDs []string
	// saveID: the step's first reply is conn's CLIENT ID.
	saveID bool
	// sleep before sending (keys left to expire).
	sleep time.Duration
}

type p5Case struct {
	name  string
	conns int // 2 unless set
	// resp2Only, when set, says why the case means nothing in RESP3 (it
	// is about RESP2's subscribed mode); its RESP3 run is skipped.
	resp2Only string
	steps     []p5Step
}

// p5Args turns a step's command (a string split like diff steps, or the
// arguments themselves) into arguments.
func p5Args(cmd any) []string {
	switch v := cmd.(type) {
	case string:
		return splitCommand(v)
	case []string:
		return v
	}
	panic(fmt.Sprintf("p5Args: unexpected %T", cmd))
}

// p5On sends cmd on conn and reads n frames from conn.
func p5On(conn int, cmd any, n int) p5Step {
	a := p5Args(cmd)
	return p5Step{conn: conn, frame: encodeCommand(a), desc: p5ConnName[conn] + ": " + diffStep{args: a}.String(),
		reads: []p5Read{{conn: conn, n: n}}}
}

// p5Do sends cmd on conn and reads its one reply.
func p5Do(conn int, cmd any) p5Step { return p5On(conn, cmd, 1) }

// p5Raw sends bytes as they are on conn and reads n frames from it.
func p5Raw(conn int, b string, n int) p5Step {
	return p5Step{conn: conn, frame: []byte(b), desc: fmt.Sprintf("%s: raw %q", p5ConnName[conn], b), reads: []p5Read{{conn: conn, n: n}}}
}

// p5Recv only reads n frames from conn.
func p5Recv(conn, n int) p5Step {
	return p5Step{conn: conn, desc: p5ConnName[conn] + ": (read only)", reads: []p5Read{{conn: conn, n: n}}}
}

// as sets the mode of the step's first read.
func (s p5Step) as(m p5Mode) p5Step {
	s.reads = append([]p5Read(nil), s.reads...)
	s.reads[0].mode = m
	return s
}

// then adds a read of n frames from conn, in order.
func (s p5Step) then(conn, n int) p5Step {
	s.reads = append(append([]p5Read(nil), s.reads...), p5Read{conn: conn, n: n})
	return s
}

// thenAs adds a read of n frames from conn compared as mode says.
func (s p5Step) thenAs(conn, n int, mode p5Mode) p5Step {
	s.reads = append(append([]p5Read(nil), s.reads...), p5Read{conn: conn, n: n, mode: mode})
	return s
}

// thenAny adds a read of n frames from conn, in any order.
func (s p5Step) thenAny(conn, n int) p5Step {
	s.reads = append(append([]p5Read(nil), s.reads...), p5Read{conn: conn, n: n, mode: p5AnyOrder})
	return s
}

// thenCounted adds a read from conn of as many frames, in any order, as
// the step's first reply says (PUBLISH's receivers).
func (s p5Step) thenCounted(conn int) p5Step {
	s.reads = append(append([]p5Read(nil), s.reads...), p5Read{conn: conn, fromReply: true, mode: p5AnyOrder})
	return s
}

// p5Conn is one connection of a case; like stepConn it turns failures
// into pseudo-frames and stays dead after one.
type p5Conn struct {
	raw  *rawConn
	dead string
	id   string // its CLIENT ID, once a saveID step read it
}

func (c *p5Conn) fail(err error) string {
	var ne net.Error
	switch {
	case errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) || isReset(err):
		c.dead = "<connection closed>"
	case errors.As(err, &ne) && ne.Timeout():
		c.dead = "<no reply within " + replyTimeout.String() + ">"
	default:
		c.dead = "<" + err.Error() + ">"
	}
	return c.dead
}

func (c *p5Conn) send(frame []byte) {
	if c.dead != "" {
		return
	}
	c.raw.c.SetDeadline(time.Now().Add(replyTimeout))
	if _, err := c.raw.c.Write(frame); err != nil {
		c.fail(err)
	}
}

func (c *p5Conn) read() string {
	if c.dead != "" {
		return c.dead
	}
	c.raw.c.SetDeadline(time.Now().Add(replyTimeout))
	b, err := readReply(c.raw.r)
	var ne net.Error
	if err != nil && len(b) == 0 && errors.As(err, &ne) && ne.Timeout() {
		// Nothing came: a missing frame. The connection is still in
		// step, so it stays usable.
		return "<no reply within " + replyTimeout.String() + ">"
	}
	if err != nil {
		return string(b) + c.fail(err)
	}
	return string(b)
}

// resync sends PING token and drops every frame up to its reply, so that
// a frame too many or too few does not shift every later comparison.
func (c *p5Conn) resync(token string) {
	if c.dead != "" {
		return
	}
	c.send(encodeCommand([]string{"PING", token}))
	for i := 0; i < 10000 && c.dead == ""; i++ {
		f := c.read()
		if strings.Contains(f, token) {
			return
		}
		if strings.HasPrefix(f, "<") {
			c.dead = "<lost sync>"
		}
	}
}

// p5Side is one server's connections in a case.
type p5Side []*p5Conn

// p5Dial opens n connections to addr speaking protocol proto.
func p5Dial(t *testing.T, addr string, n, proto int) p5Side {
	side := make(p5Side, n)
	for i := range side {
		side[i] = &p5Conn{raw: newStepConn(t, addr, proto, "").raw}
	}
	return side
}

// run performs a step on one server and returns, per read, the frames.
func (side p5Side) run(st p5Step) [][]string {
	time.Sleep(st.sleep)
	if st.withIDs != nil {
		a := make([]string, len(st.withIDs))
		for i, s := range st.withIDs {
			for c, name := range p5ConnName[:len(side)] {
				s = strings.ReplaceAll(s, "{"+name+"}", side[c].id)
			}
			a[i] = s
		}
		side[st.conn].send(encodeCommand(a))
	} else if st.frame != nil {
		side[st.conn].send(st.frame)
	}
	out := make([][]string, len(st.reads))
	for i, rd := range st.reads {
		n := rd.n
		if rd.fromReply {
			n = 0
			if len(out) > 0 && len(out[0]) == 1 && strings.HasPrefix(out[0][0], ":") {
				n, _ = strconv.Atoi(strings.TrimSpace(out[0][0][1:]))
			}
		}
		for j := 0; j < n; j++ {
			out[i] = append(out[i], side[rd.conn].read())
		}
	}
	if st.saveID && len(out) > 0 && len(out[0]) == 1 {
		side[st.conn].id = strings.TrimSpace(strings.TrimPrefix(out[0][0], ":"))
	}
	return out
}

// p5Same compares the frames of one read.
func p5Same(mode p5Mode, a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	switch mode {
	case p5AnyOrder:
		x, y := append([]string(nil), a...), append([]string(nil), b...)
		sort.Strings(x)
		sort.Strings(y)
		return strings.Join(x, "") == strings.Join(y, "")
	case p5NamesAnyOrder:
		return p5SameNames(a, b)
	}
	st := diffStep{}
	switch mode {
	case p5Unordered:
		st.mode = modeUnordered
	case p5Shape:
		st.mode = modeShape
	case p5Kind:
		st.mode = modeKind
	}
	for i := range a {
		if !sameReply(st, a[i], b[i]) {
			return false
		}
	}
	return true
}

// p5SameNames compares (un)subscribe confirmations [verb, name, count]
// given in dict order: the frames with the name blanked must match in
// order, and the names as a multiset.
func p5SameNames(a, b []string) bool {
	var namesA, namesB []string
	for i := range a {
		na, okA := parseRaw(a[i])
		nb, okB := parseRaw(b[i])
		if !okA || !okB || len(na.elems) != 3 || len(nb.elems) != 3 {
			return a[i] == b[i]
		}
		namesA = append(namesA, na.elems[1].canonical())
		namesB = append(namesB, nb.elems[1].canonical())
		na.elems[1], nb.elems[1] = node{}, node{}
		if na.canonical() != nb.canonical() || na.typ != nb.typ {
			return false
		}
	}
	sort.Strings(namesA)
	sort.Strings(namesB)
	return strings.Join(namesA, "") == strings.Join(namesB, "")
}

// p5WaitIdle waits until the server has no subscriptions left: the
// connections of the previous case close asynchronously.
func p5WaitIdle(t *testing.T, ctl *rawConn, name string) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for {
		if ctl.do(t, "PUBSUB", "NUMPAT") == ":0\r\n" && ctl.do(t, "PUBSUB", "CHANNELS") == "*0\r\n" &&
			ctl.do(t, "PUBSUB", "SHARDCHANNELS") == "*0\r\n" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s still has subscriptions from the previous case", name)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// p5RunCases runs each case in RESP2 and in RESP3 (forEachProto): a case
// written for RESP2 shows in RESP3 where Redis lets a subscribed client
// run any command and sends push frames.
func p5RunCases(t *testing.T, cases []p5Case) {
	p := newDiffPair(t, "")
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			forEachProto(t, func(t *testing.T, proto int) { p5RunCase(t, p, tc, proto) })
		})
	}
}

func p5RunCase(t *testing.T, p *diffPair, tc p5Case, proto int) {
	if proto == 3 && tc.resp2Only != "" {
		t.Skip(tc.resp2Only)
	}
	p.reset(t)
	p5WaitIdle(t, p.redisCtl, "redis-server")
	p5WaitIdle(t, p.lockCtl, "lockredis")
	n := tc.conns
	if n == 0 {
		n = 2
	}
	rs, ls := p5Dial(t, p.redisAddr, n, proto), p5Dial(t, p.lockAddr, n, proto)
	// The next run (this case in RESP3, or the next case) waits until
	// these connections' subscriptions are gone.
	defer func() {
		for _, c := range append(rs, ls...) {
			c.raw.c.Close()
		}
	}()
	fails := 0
	report := func(i int, desc string, rd p5Read, r, l []string) {
		fails++
		if fails > 30 {
			return
		}
		t.Errorf("step %d: %s; %d frame(s) read from %s\n\tredis:     %q\n\tlockredis: %q",
			i+1, desc, len(r), p5ConnName[rd.conn], strings.Join(r, ""), strings.Join(l, ""))
	}
	for i, st := range tc.steps {
		r, l := rs.run(st), ls.run(st)
		differ := false
		for j, rd := range st.reads {
			if !p5Same(rd.mode, r[j], l[j]) {
				report(i, st.desc, rd, r[j], l[j])
				differ = true
			} else if len(r[j]) > 0 && strings.HasPrefix(r[j][len(r[j])-1], "<no reply") {
				// Both agree that nothing came: the case expects a
				// frame too many.
				t.Errorf("step %d: %s: neither server sent the frame read from %s", i+1, st.desc, p5ConnName[rd.conn])
			}
		}
		if differ {
			token := fmt.Sprintf("p5-resync-%d", i)
			for c := 0; c < n; c++ {
				rs[c].resync(token)
				ls[c].resync(token)
			}
		}
	}
	// A final PING on every live connection: its reply must come
	// next, so no server sent a frame the other did not.
	for c := 0; c < n; c++ {
		if rs[c].dead != "" && ls[c].dead != "" {
			continue
		}
		st := p5Do(c, "PING")
		r, l := rs.run(st), ls.run(st)
		if !p5Same(p5Exact, r[0], l[0]) {
			report(len(tc.steps), "final PING", st.reads[0], r[0], l[0])
		}
	}
}

// The glob cases: every pattern is subscribed at once, and each channel is
// published to; the receivers and the pmessages must match.
var (
	p5Patterns = []string{
		"h?llo", "h*llo", "h[ae]llo", "h[^e]llo", "h[a-c]llo", "h[c-a]llo", `x\*y`, `x\?`, `\h\e`,
		"[abc", "ab[", `a\`, "h[\\]]llo", "[^]", "*a*b*", "[a-]z", "[]]", "**", "?", "", "[!a]b",
		"a[b-]", "h[^a-e]llo", "\x00*", "é*",
	}
	p5Channels = []string{
		"hello", "hallo", "hillo", "hxllo", "hbllo", "hllo", "heello", "HELLO", "x*y", "xay", "x?", "xa",
		`a\`, "a", "", "[abc", "abc", "ab[", "ab", "h]llo", "aXb", "az", "-z", "]", "he", "!b", "bb",
		"a-", "ab-", "\x00x", "é!", "\xc3", "hdllo", "hfllo", "ba",
	}
)

func p5GlobSteps() []p5Step {
	out := []p5Step{p5On(p5S, append([]string{"PSUBSCRIBE"}, p5Patterns...), len(p5Patterns))}
	for _, ch := range p5Channels {
		out = append(out, p5Do(p5P, []string{"PUBLISH", ch, "m"}).thenCounted(p5S))
	}
	return out
}

// p5ChannelGlobSteps subscribes T to every channel and asks PUBSUB
// CHANNELS for each pattern.
func p5ChannelGlobSteps() []p5Step {
	out := []p5Step{p5On(p5T, append([]string{"SUBSCRIBE"}, p5Channels...), len(p5Channels))}
	for _, pat := range p5Patterns {
		out = append(out, p5Do(p5P, []string{"PUBSUB", "CHANNELS", pat}).as(p5Unordered))
	}
	return out
}

func TestDiffPubSub(t *testing.T) {
	S, P, T := p5S, p5P, p5T
	p5RunCases(t, []p5Case{
		{name: "subscribe-counts", steps: []p5Step{
			p5On(S, "SUBSCRIBE a b c", 3),
			p5On(S, "SUBSCRIBE a", 1),
			p5On(S, "SUBSCRIBE b d", 2),
			p5On(S, "PSUBSCRIBE p* a?", 2),
			p5On(S, "PSUBSCRIBE p*", 1),
			p5On(S, "SSUBSCRIBE s1 s2", 2),
			p5On(S, "SSUBSCRIBE s1", 1),
			p5On(S, "SUBSCRIBE e", 1),
			p5On(S, "UNSUBSCRIBE a zz", 2),
			p5On(S, "PUNSUBSCRIBE p* nope", 2),
			p5On(S, "SUNSUBSCRIBE s2 s9", 2),
			p5On(S, "UNSUBSCRIBE s1", 1),
			p5On(S, "PUNSUBSCRIBE b", 1),
			p5Do(P, "PUBSUB NUMSUB a b c d e zz s1"),
			p5Do(P, "PUBSUB NUMPAT"),
			p5Do(P, "PUBSUB CHANNELS").as(p5Unordered),
			p5Do(P, "PUBSUB SHARDCHANNELS").as(p5Unordered),
			p5Do(P, "PUBSUB SHARDNUMSUB s1 s2 b"),
			p5On(S, "UNSUBSCRIBE", 4).as(p5NamesAnyOrder),
			p5On(S, "UNSUBSCRIBE", 1),
			p5Do(S, "GET k"),
			p5On(S, "PUNSUBSCRIBE", 1),
			p5On(S, "PUNSUBSCRIBE", 1),
			p5Do(S, "GET k"),
			p5On(S, "SUNSUBSCRIBE", 1),
			p5On(S, "SUNSUBSCRIBE", 1),
			p5Do(S, "SET k v"),
			p5Do(S, "GET k"),
			p5Do(P, "PUBSUB NUMSUB b c d e"),
		}},
		{name: "shard-only-subscriber", steps: []p5Step{
			p5On(S, "SSUBSCRIBE s", 1),
			p5Do(S, "GET k"),
			p5On(S, "UNSUBSCRIBE", 1),
			p5On(S, "PUNSUBSCRIBE", 1),
			p5On(S, "SUBSCRIBE a", 1),
			p5On(S, "UNSUBSCRIBE a", 1),
			p5Do(S, "GET k"),
			p5On(S, "SUNSUBSCRIBE s", 1),
			p5Do(S, "GET k"),
			p5On(S, "SUBSCRIBE a", 1),
			p5On(S, "SSUBSCRIBE s", 1),
			p5On(S, "SUNSUBSCRIBE", 1),
			p5Do(S, "GET k"),
			p5On(S, "UNSUBSCRIBE", 1),
			p5Do(S, "GET k"),
		}},
		{name: "unsubscribe-when-not-subscribed", steps: []p5Step{
			p5On(S, "UNSUBSCRIBE", 1),
			p5On(S, "PUNSUBSCRIBE", 1),
			p5On(S, "SUNSUBSCRIBE", 1),
			p5On(S, "UNSUBSCRIBE x", 1),
			p5On(S, "UNSUBSCRIBE x y", 2),
			p5On(S, "PUNSUBSCRIBE x*", 1),
			p5On(S, "SUNSUBSCRIBE x", 1),
			p5On(S, "unsubscribe", 1),
			p5Do(S, "SET k v"),
			p5Do(S, "GET k"),
			p5Do(P, "PUBLISH x m"),
		}},
		{name: "arity", steps: []p5Step{
			p5Do(S, "SUBSCRIBE"), p5Do(S, "PSUBSCRIBE"), p5Do(S, "SSUBSCRIBE"),
			p5Do(S, "PUBLISH"), p5Do(S, "PUBLISH a"), p5Do(S, "PUBLISH a b c"),
			p5Do(S, "SPUBLISH a"), p5Do(S, "SPUBLISH a b c"), p5Do(S, "PUBSUB"),
			p5Do(S, "GET k"),
		}},
		{name: "message-frames", conns: 3, steps: []p5Step{
			p5On(S, "SUBSCRIBE news", 1),
			p5Do(P, "PUBLISH news hello").then(S, 1),
			p5Do(P, "PUBLISH other x"),
			p5Do(P, "PUBLISH news ''").then(S, 1),
			p5Do(P, []string{"PUBLISH", "news", "bin\r\n\x00\xff"}).then(S, 1),
			p5Do(P, []string{"PUBLISH", "news", strings.Repeat("x", 100000)}).then(S, 1),
			p5On(S, "PSUBSCRIBE n*", 1),
			p5Do(P, "PUBLISH news x").then(S, 2),
			p5Do(P, "PUBLISH nope y").then(S, 1),
			p5Do(P, "PUBLISH zz y"),
			p5On(T, "SUBSCRIBE news", 1),
			p5Do(P, "PUBLISH news y").then(S, 2).then(T, 1),
			p5On(T, "PSUBSCRIBE n*", 1),
			p5Do(P, "PUBLISH news z").then(S, 2).then(T, 2),
			p5On(S, "PSUBSCRIBE x* news?", 2),
			p5Do(P, "PUBLISH news w").then(S, 2).then(T, 2),
			p5Do(P, "PUBLISH news1 w").thenAny(S, 2).then(T, 1),
			p5Do(P, "PUBSUB NUMSUB news"),
			p5Do(P, "PUBSUB NUMPAT"),
			p5On(T, "UNSUBSCRIBE news", 1),
			p5Do(P, "PUBLISH news v").then(S, 2).then(T, 1),
			p5Do(P, "publish news lower").then(S, 2).then(T, 1),
		}},
		{name: "channel-and-pattern-same-client", steps: []p5Step{
			p5On(S, "PSUBSCRIBE *", 1),
			p5On(S, "SUBSCRIBE a", 1),
			p5Do(P, "PUBLISH a 1").then(S, 2),
			p5Do(P, "PUBLISH b 2").then(S, 1),
			p5On(S, "PSUBSCRIBE a", 1),
			p5Do(P, "PUBLISH a 3").then(S, 1).thenAny(S, 2),
		}},
		{name: "smessage", conns: 3, steps: []p5Step{
			p5On(S, "SSUBSCRIBE sc", 1),
			p5On(T, "SUBSCRIBE sc", 1),
			p5On(T, "PSUBSCRIBE s*", 1),
			p5Do(P, "SPUBLISH sc hi").then(S, 1),
			p5Do(P, "PUBLISH sc hi").then(T, 2),
			p5Do(P, "SPUBLISH nobody hi"),
			p5Do(P, "SPUBLISH s* hi"),
			p5On(S, "SSUBSCRIBE sd", 1),
			p5Do(P, "SPUBLISH sd x").then(S, 1),
			p5Do(P, "PUBSUB SHARDNUMSUB sc sd se"),
			p5Do(P, "PUBSUB SHARDCHANNELS").as(p5Unordered),
			p5Do(P, "PUBSUB SHARDCHANNELS *d").as(p5Unordered),
			p5Do(P, "PUBSUB CHANNELS").as(p5Unordered),
			p5On(S, "SUNSUBSCRIBE", 2).as(p5NamesAnyOrder),
			p5Do(P, "SPUBLISH sc hi"),
		}},
		{name: "glob-publish", steps: p5GlobSteps()},
		{name: "glob-pubsub-channels", conns: 3, steps: p5ChannelGlobSteps()},
		{name: "subscribed-mode-errors", resp2Only: "RESP3 has no subscribed mode: resp3-subscribed-runs-anything is this case for RESP3", steps: []p5Step{
			p5On(S, "SUBSCRIBE a", 1),
			p5Do(S, "GET k"), p5Do(S, "SET k v"), p5Do(S, "PUBLISH a x"), p5Do(S, "SPUBLISH a x"),
			p5Do(S, "PUBSUB NUMPAT"), p5Do(S, "PUBSUB CHANNELS"), p5Do(S, "CLIENT ID"), p5Do(S, "CLIENT SETNAME x"),
			p5Do(S, "MULTI"), p5Do(S, "EXEC"), p5Do(S, "DISCARD"), p5Do(S, "SELECT 1"), p5Do(S, "ECHO x"),
			p5Do(S, "AUTH x"), p5Do(S, "EVAL 'return 1' 0"), p5Do(S, "WATCH k"), p5Do(S, "COMMAND COUNT"),
			p5Do(S, "INFO"), p5Do(S, "DBSIZE"), p5Do(S, "get k"),
			p5Do(S, "FOO"), p5Do(S, "GET"), p5Do(S, "CLIENT NOSUCH"),
			p5Do(S, "PING"), p5Do(S, "PING hi"), p5Do(S, "ping ''"), p5Do(S, "PING a b"),
			p5Do(S, "SUBSCRIBE"), p5Do(S, "UNSUBSCRIBE nope"),
			p5Do(P, "PUBLISH a still").then(S, 1),
			p5Do(P, "GET k"),
			p5Do(S, "QUIT"),
			p5Recv(S, 1),
			p5Do(P, "PUBLISH a gone"),
			p5Do(P, "PUBSUB NUMSUB a"),
		}},
		{name: "resp3-subscribed-runs-anything", steps: []p5Step{
			p5Do(S, "HELLO 3").as(p5Shape),
			p5On(S, "SUBSCRIBE a", 1),
			p5Do(S, "GET k"), p5Do(S, "SET k v"), p5Do(S, "PUBLISH a x").then(S, 1), p5Do(S, "SPUBLISH a x"),
			p5Do(S, "PUBSUB NUMPAT"), p5Do(S, "PUBSUB CHANNELS"), p5Do(S, "CLIENT ID").as(p5Shape),
			p5Do(S, "CLIENT SETNAME x"), p5Do(S, "MULTI"), p5Do(S, "GET k"), p5Do(S, "PUBLISH a y"),
			p5Do(S, "HGETALL h"), p5Do(S, "EXEC").then(S, 1), p5Do(S, "DISCARD"), p5Do(S, "SELECT 1"),
			p5Do(S, "ECHO x"), p5Do(S, "AUTH x"), p5Do(S, "EVAL 'return 1' 0"), p5Do(S, "WATCH k"),
			p5Do(S, "INFO").as(p5Kind), p5Do(S, "DBSIZE"), p5Do(S, "SELECT 0"), p5Do(S, "get k"),
			p5Do(S, "FOO"), p5Do(S, "GET"), p5Do(S, "CLIENT NOSUCH"),
			p5Do(S, "PING"), p5Do(S, "PING hi"), p5Do(S, "ping ''"), p5Do(S, "PING a b"),
			p5Do(S, "SUBSCRIBE"), p5On(S, "UNSUBSCRIBE nope", 1),
			p5Do(P, "PUBLISH a still").then(S, 1),
			p5Do(S, "QUIT"),
			p5Recv(S, 1),
			p5Do(P, "PUBLISH a gone"),
			p5Do(P, "PUBSUB NUMSUB a"),
		}},
		{name: "resp3-pushes-between-replies", steps: []p5Step{
			p5Do(S, "HELLO 3").as(p5Shape),
			p5On(S, "SUBSCRIBE a", 1),
			p5On(S, "PSUBSCRIBE a*", 1),
			p5Do(S, "EVAL \"return redis.call('publish', 'a', 'x')\" 0").then(S, 2),
			p5Do(S, "MULTI"), p5Do(S, "EVAL \"return redis.call('publish', 'a', 'y')\" 0"),
			p5Do(S, "PUBLISH a z"), p5Do(S, "EXEC"),
			p5Raw(S, "*2\r\n$7\r\nPUBLISH\r\n$1\r\na\r\n*1\r\n$4\r\nPING\r\n", 2),
			p5Do(S, "PING").then(S, 2),
			p5On(S, "BLPOP l 0", 0),
			// Published once S is blocked: its frames then follow BLPOP.
			trAfter(100*time.Millisecond, p5Do(P, "PUBLISH a w").then(S, 2)),
			p5Do(P, "RPUSH l v").then(S, 1),
			p5Do(S, "LLEN l"),
		}},
		{name: "errors-while-pattern-subscribed", steps: []p5Step{
			p5On(S, "PSUBSCRIBE a*", 1),
			p5Do(S, "GET k"), p5Do(S, "PING"), p5Do(S, "HELLO 2").as(p5Shape),
			p5Do(P, "PUBLISH ab x").then(S, 1),
		}},
		{name: "quit-while-subscribed", steps: []p5Step{
			p5On(S, "SUBSCRIBE a b", 2),
			p5On(S, "PSUBSCRIBE a*", 1),
			p5On(S, "SSUBSCRIBE s", 1),
			p5Do(S, "QUIT extra args"),
			p5Recv(S, 1),
			p5Do(P, "PUBLISH a x"),
			p5Do(P, "SPUBLISH s x"),
			p5Do(P, "PUBSUB NUMPAT"),
			p5Do(P, "PUBSUB NUMSUB a b"),
			p5Do(P, "PUBSUB SHARDNUMSUB s"),
		}},
		{name: "reset-while-subscribed", steps: []p5Step{
			p5On(S, "SUBSCRIBE a", 1),
			p5On(S, "PSUBSCRIBE b*", 1),
			p5On(S, "SSUBSCRIBE s", 1),
			p5Do(S, "RESET"),
			p5Do(P, "PUBLISH a x"),
			p5Do(P, "PUBLISH bb x"),
			p5Do(P, "SPUBLISH s x"),
			p5Do(P, "PUBSUB NUMPAT"),
			p5Do(S, "GET k"),
			p5Do(S, "PING"),
			p5On(S, "UNSUBSCRIBE", 1),
			p5On(S, "SUBSCRIBE c", 1),
			p5Do(P, "PUBLISH c x").then(S, 1),
			p5Do(S, "RESET"),
			p5Do(S, "SET k v"),
		}},
		{name: "normal-after-last-unsubscribe", steps: []p5Step{
			p5On(S, "SUBSCRIBE a b", 2),
			p5On(S, "PSUBSCRIBE c*", 1),
			p5On(S, "UNSUBSCRIBE a b", 2),
			p5Do(S, "GET k"),
			p5On(S, "PUNSUBSCRIBE c*", 1),
			p5Do(S, "PING"),
			p5Do(S, "SET k v"),
			p5Do(S, "GET k"),
			p5Do(S, "MULTI"), p5Do(S, "INCR n"), p5Do(S, "EXEC"),
			p5Do(P, "PUBLISH a x"),
			p5On(S, "SUBSCRIBE a", 1),
			p5Do(P, "PUBLISH a y").then(S, 1),
			p5On(S, "UNSUBSCRIBE", 1),
			p5Do(S, "GET n"),
		}},
		{name: "publish-in-multi", steps: []p5Step{
			p5On(S, "SUBSCRIBE a b", 2),
			p5On(S, "PSUBSCRIBE a*", 1),
			p5Do(P, "MULTI"),
			p5Do(P, "PUBLISH a 1"),
			p5Do(P, "SET k v"),
			p5Do(P, "PUBLISH b 2"),
			p5Do(P, "PUBLISH a 3"),
			p5Do(P, "PUBLISH zz 4"),
			p5Do(P, "PUBLISH ax 5"),
			// Nothing is delivered before EXEC: the PING reply comes first.
			p5Do(S, "PING"),
			p5Do(P, "EXEC").then(S, 6),
			p5Do(P, "MULTI"), p5Do(P, "PUBLISH a never"), p5Do(P, "DISCARD"),
			p5Do(P, "MULTI"), p5Do(P, "PUBLISH a never"), p5Do(P, "NOSUCH"), p5Do(P, "EXEC"),
			p5Do(P, "MULTI"), p5Do(P, "PUBLISH a 6"), p5Do(P, "INCR k"), p5Do(P, "PUBLISH a 7"),
			p5Do(P, "EXEC").then(S, 4),
			p5Do(S, "PING"),
		}},
		{name: "publish-in-script", steps: []p5Step{
			p5On(S, "SUBSCRIBE a b", 2),
			p5Do(P, "EVAL \"redis.call('publish','a','x'); redis.call('set','k','y'); return redis.call('publish','b','y')\" 0").then(S, 2),
			p5Do(P, "EVAL \"redis.call('publish','a','1'); redis.call('publish','a','2'); return redis.call('spublish','a','3')\" 0").then(S, 2),
			p5Do(P, "EVAL \"return redis.call('subscribe','a')\" 0"),
			p5Do(P, "EVAL \"redis.call('publish','a','before-error'); return redis.call('incr','nope', 'x')\" 0").then(S, 1),
			p5Do(S, "PING"),
		}},
		{name: "subscribe-inside-multi", steps: []p5Step{
			p5Do(S, "MULTI"),
			p5Do(S, "SUBSCRIBE a"),
			p5Do(S, "EXEC"),
			p5Do(P, "PUBLISH a x").thenCounted(S),
		}},
		{name: "introspection", conns: 3, steps: []p5Step{
			p5On(S, "SUBSCRIBE a b", 2),
			p5On(S, "PSUBSCRIBE x* y*", 2),
			p5On(T, "SUBSCRIBE b c", 2),
			p5On(T, "PSUBSCRIBE x*", 1),
			p5On(T, "SSUBSCRIBE s1 s2", 2),
			p5On(S, "SSUBSCRIBE s2", 1),
			p5Do(P, "PUBSUB CHANNELS").as(p5Unordered),
			p5Do(P, "PUBSUB CHANNELS b*").as(p5Unordered),
			p5Do(P, "PUBSUB CHANNELS [ab]").as(p5Unordered),
			p5Do(P, "PUBSUB CHANNELS * extra"),
			p5Do(P, "PUBSUB NUMSUB"),
			p5Do(P, "PUBSUB NUMSUB a b c d x* s2 b"),
			p5Do(P, "PUBSUB NUMPAT"),
			p5Do(P, "PUBSUB NUMPAT x"),
			p5Do(P, "PUBSUB SHARDCHANNELS").as(p5Unordered),
			p5Do(P, "PUBSUB SHARDCHANNELS s1"),
			p5Do(P, "PUBSUB SHARDCHANNELS s1 x"),
			p5Do(P, "PUBSUB SHARDNUMSUB s1 s2 s3"),
			p5Do(P, "PUBSUB SHARDNUMSUB"),
			p5Do(P, "PUBSUB FOO"),
			p5Do(P, "PUBSUB HELP"),
			p5Do(P, "PUBSUB HELP x"),
			p5Do(P, "pubsub channels c").as(p5Unordered),
			p5Do(P, "PUBLISH b x").then(S, 1).then(T, 1),
			p5Do(P, "PUBLISH xb x").then(S, 1).then(T, 1),
			p5Do(P, "PUBSUB NUMPAT"),
			p5On(S, "PUNSUBSCRIBE", 2).as(p5NamesAnyOrder),
			p5Do(P, "PUBSUB NUMPAT"),
		}},
		{name: "empty-and-binary-names", steps: []p5Step{
			p5On(S, "SUBSCRIBE ''", 1),
			p5On(S, []string{"SUBSCRIBE", "a\r\nb", "\x00\xff", "sp ace"}, 3),
			p5On(S, []string{"PSUBSCRIBE", "\x00*"}, 1),
			p5Do(P, "PUBLISH '' x").then(S, 1),
			p5Do(P, []string{"PUBLISH", "a\r\nb", "y"}).then(S, 1),
			p5Do(P, []string{"PUBLISH", "\x00\xff", "z"}).then(S, 2),
			p5Do(P, []string{"PUBLISH", "sp ace", "w"}).then(S, 1),
			p5Do(P, "PUBSUB CHANNELS").as(p5Unordered),
			p5Do(P, []string{"PUBSUB", "NUMSUB", "", "a\r\nb"}),
			p5On(S, "UNSUBSCRIBE", 4).as(p5NamesAnyOrder),
			p5On(S, []string{"PUNSUBSCRIBE", "\x00*"}, 1),
		}},
		{name: "pipelined-subscribe", steps: []p5Step{
			p5Raw(S, "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n"+
				"*3\r\n$9\r\nSUBSCRIBE\r\n$1\r\na\r\n$1\r\nb\r\n"+
				"*1\r\n$4\r\nPING\r\n"+
				"*2\r\n$3\r\nGET\r\n$1\r\nk\r\n"+
				"*1\r\n$11\r\nUNSUBSCRIBE\r\n"+
				"*2\r\n$3\r\nGET\r\n$1\r\nk\r\n", 5).thenAs(S, 2, p5NamesAnyOrder).then(S, 1),
			p5Raw(S, "subscribe x y\r\nping\r\nunsubscribe x y\r\nget k\r\n", 6),
			p5Raw(S, "*2\r\n$9\r\nSUBSCRIBE\r\n$1\r\nc\r\n*3\r\n$7\r\nPUBLISH\r\n$1\r\nc\r\n$1\r\nm\r\n", 2),
			p5Do(P, "PUBLISH c n").then(S, 1),
			p5On(S, "UNSUBSCRIBE c", 1),
		}},
		{name: "many-subscribers", conns: 3, steps: []p5Step{
			p5On(S, "SUBSCRIBE lock:chan", 1),
			p5On(T, "SUBSCRIBE lock:chan", 1),
			p5On(P, "PSUBSCRIBE lock:*", 1),
			p5Do(S, "PING"),
			p5Do(T, "PING x"),
			p5On(S, "SUBSCRIBE lock:chan", 1),
			p5Do(T, "PUBLISH lock:chan 0"),
			p5On(T, "UNSUBSCRIBE lock:chan", 1),
			p5Do(T, "PUBLISH lock:chan 0").then(S, 1).then(P, 1),
			p5Do(T, "PUBSUB NUMSUB lock:chan"),
		}},
		{name: "resp3", steps: []p5Step{
			p5Do(S, "HELLO 3").as(p5Shape),
			p5On(S, "UNSUBSCRIBE", 1),
			p5On(S, "UNSUBSCRIBE x", 1),
			p5On(S, "SUBSCRIBE a b", 2),
			p5On(S, "PSUBSCRIBE a*", 1),
			p5On(S, "SSUBSCRIBE s", 1),
			p5Do(S, "SET k v"),
			p5Do(S, "GET k"),
			p5Do(S, "PING"),
			p5Do(S, "PING x"),
			p5Do(P, "PUBLISH a x").then(S, 2),
			p5Do(P, "SPUBLISH s x").then(S, 1),
			p5Do(S, "PUBLISH b self").then(S, 1),
			p5Do(S, "PUBSUB NUMSUB a b"),
			p5On(S, "UNSUBSCRIBE", 2).as(p5NamesAnyOrder),
			p5On(S, "PUNSUBSCRIBE", 1),
			p5On(S, "SUNSUBSCRIBE", 1),
			p5On(S, "UNSUBSCRIBE", 1),
			p5Do(S, "HELLO 2").as(p5Shape),
			p5On(S, "SUBSCRIBE c", 1),
			p5Do(S, "GET k"),
			p5Do(S, "HELLO 3").as(p5Shape),
			p5Do(P, "PUBLISH c y").then(S, 1),
			p5Do(S, "GET k"),
		}},
	})
}
