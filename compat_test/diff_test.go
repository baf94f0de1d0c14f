package compat

// The differential harness: every case runs the same steps on a fresh
// connection to a FLUSHALL'd redis-server (the oracle, Redis 7.0) and to a
// FLUSHALL'd embedded lockredis, and every step's raw reply bytes must
// match. To add cases, write a file diff_<family>_test.go with a test that
// calls runDiffCases(t, []diffCase{...}).
//
// A case is a name and steps. steps(...) takes strings (one command each,
// split on spaces, "..." or '...' quote an argument) and diffSteps made by
// the helpers below, which choose how the replies are compared:
//
//	exact (a plain string)  byte for byte, errors included (the default)
//	unordered("KEYS *")     arrays at any depth compared as multisets:
//	                        KEYS, SMEMBERS, HKEYS, SCAN with a large COUNT
//	within(tol, "PTTL k")   integers may differ by up to tol (TTL, PTTL,
//	                        EXPIRETIME...: the two servers run the command
//	                        a moment apart); negative answers (-1, -2) and
//	                        anything but two integers must match exactly
//	kind("TIME")            only the RESP type must match: TIME, CLIENT ID,
//	                        INFO
//	shape("HELLO 2")        same types, lengths and strings, but integers may
//	                        differ: HELLO (the client id)
//	masked("SLOWLOG GET")   as shape, and strings compared with client
//	                        addresses and MONITOR timestamps masked
//	                        (diff_ops_test.go)
//	errPrefix("...")        both are errors with the same first word; only
//	                        where the text cannot be the same
//	raw("PING\r\n")         bytes sent as they are (inline commands,
//	                        hand-made frames); compared exactly
//
// Setup that a case needs goes into its steps like anything else: the
// replies to setup commands are compared too. A case whose commands need a
// data type lockredis may not have yet names it in needs; it is skipped
// until lockredis knows that command.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/lockredis/lockredis"
)

type diffMode int

const (
	modeExact diffMode = iota
	modeUnordered
	modeWithin
	modeKind
	modeShape
	modeErrPrefix
	modeMasked
)

type diffStep struct {
	args []string // the command; nil when raw is used
	raw  []byte   // bytes sent as they are
	mode diffMode
	tol  int64 // modeWithin
	// cmp, when set, compares the parsed replies instead of mode (ACL
	// LOG without its timestamps and client details).
	cmp func(redis, lock node) bool
}

type diffCase struct {
	name  string
	steps []diffStep
	// needs names commands the case relies on that lockredis may not have
	// yet ("hset"); the case is skipped while lockredis answers
	// "unknown command" to any of them.
	needs []string
}

func (s diffStep) String() string {
	if s.args == nil {
		return fmt.Sprintf("raw %q", s.raw)
	}
	var b strings.Builder
	for i, a := range s.args {
		if i > 0 {
			b.WriteByte(' ')
		}
		if a == "" || strings.ContainsAny(a, " \t\r\n\"'") {
			b.WriteString(strconv.Quote(a))
		} else {
			b.WriteString(a)
		}
	}
	return b.String()
}

// steps turns strings (exact steps) and diffSteps into a step list.
func steps(items ...any) []diffStep {
	out := make([]diffStep, 0, len(items))
	for _, it := range items {
		switch v := it.(type) {
		case string:
			out = append(out, diffStep{args: splitCommand(v)})
		case []string:
			out = append(out, diffStep{args: v})
		case diffStep:
			out = append(out, v)
		case []diffStep:
			out = append(out, v...)
		default:
			panic(fmt.Sprintf("steps: unexpected %T", it))
		}
	}
	return out
}

func unordered(cmd string) diffStep { return diffStep{args: splitCommand(cmd), mode: modeUnordered} }
func within(tol int64, cmd string) diffStep {
	return diffStep{args: splitCommand(cmd), mode: modeWithin, tol: tol}
}
func kind(cmd string) diffStep      { return diffStep{args: splitCommand(cmd), mode: modeKind} }
func shape(cmd string) diffStep     { return diffStep{args: splitCommand(cmd), mode: modeShape} }
func errPrefix(cmd string) diffStep { return diffStep{args: splitCommand(cmd), mode: modeErrPrefix} }
func raw(b string) diffStep         { return diffStep{raw: []byte(b)} }

// args is an exact step given as separate arguments (for values that
// splitCommand cannot express, such as ones with both kinds of quote).
func args(a ...string) diffStep { return diffStep{args: a} }

// diffPair is a redis-server and an embedded lockredis configured alike.
// It lives as long as the test that made it (owner), across subtests.
//
// With DIFF_SELFTEST=1 the lockredis side is a second redis-server: every
// case must then pass, which shows that a case is deterministic (no
// timing, no server-specific values) before it is blamed on lockredis.
type diffPair struct {
	owner     *testing.T
	password  string
	redisAddr string
	lockOpts  lockredis.Options
	lock      *lockredis.Server // nil with DIFF_SELFTEST
	lockAddr  string
	redisCtl  *rawConn // admin connections for FLUSHALL
	lockCtl   *rawConn
	supported map[string]bool // lockredis answers to "needs" probes
	// lazyExpiry: neither server expires keys in the background (see
	// newLazyExpiryPair).
	lazyExpiry bool

	flushWarned bool
}

func newDiffPair(t *testing.T, password string) *diffPair {
	t.Helper()
	return startDiffPair(t, &diffPair{password: password})
}

// newLazyExpiryPair is a diffPair whose servers expire keys only when a
// command meets them: redis-server after DEBUG SET-ACTIVE-EXPIRE 0,
// lockredis with its sweeper off. What DBSIZE counts once a key's time has
// passed then depends on the commands alone, not on when a background
// cycle happened to run.
func newLazyExpiryPair(t *testing.T) *diffPair {
	t.Helper()
	return startDiffPair(t, &diffPair{lazyExpiry: true})
}

func startDiffPair(t *testing.T, p *diffPair) *diffPair {
	t.Helper()
	p.owner = t
	p.lockOpts = lockredis.Options{Password: p.password}
	p.supported = map[string]bool{}
	p.redisAddr = startRedis(t, p.redisArgs()...)
	p.redisCtl = p.admin(t, p.redisAddr)
	p.stopActiveExpiry(t, p.redisCtl)
	if os.Getenv("DIFF_SELFTEST") != "" {
		p.lockAddr = startRedis(t, p.redisArgs()...)
		p.lockCtl = p.admin(t, p.lockAddr)
		p.stopActiveExpiry(t, p.lockCtl)
	} else {
		p.startLock(t)
	}
	return p
}

func (p *diffPair) redisArgs() []string {
	var args []string
	if p.password != "" {
		args = append(args, "--requirepass", p.password)
	}
	if p.lazyExpiry {
		args = append(args, "--enable-debug-command", "local")
	}
	return args
}

// stopActiveExpiry turns a redis-server's active expiry off when the pair
// wants lazy expiry only.
func (p *diffPair) stopActiveExpiry(t *testing.T, c *rawConn) {
	t.Helper()
	if !p.lazyExpiry {
		return
	}
	if r := c.do(t, "DEBUG", "SET-ACTIVE-EXPIRE", "0"); r != "+OK\r\n" {
		t.Fatalf("DEBUG SET-ACTIVE-EXPIRE 0: %q", r)
	}
}

// startLock starts a new embedded lockredis. t is the (sub)test that
// needs it; it is closed when the pair's owner ends.
func (p *diffPair) startLock(t *testing.T) {
	t.Helper()
	srv := lockredis.NewServer(p.lockOpts)
	if err := srv.Start(); err != nil {
		t.Fatalf("lockredis: %v", err)
	}
	p.owner.Cleanup(func() { srv.Close() })
	if p.lazyExpiry {
		srv.Engine().SetActiveExpire(false)
	}
	p.lock = srv
	p.lockAddr = srv.Addr()
	p.lockCtl = p.admin(t, p.lockAddr)
}

// admin opens a connection for setup, authenticated, that lasts as long
// as the pair.
func (p *diffPair) admin(t *testing.T, addr string) *rawConn {
	t.Helper()
	c, err := dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	p.owner.Cleanup(func() { c.c.Close() })
	if p.password != "" {
		if r := c.do(t, "AUTH", p.password); r != "+OK\r\n" {
			t.Fatalf("AUTH on %s: %q", addr, r)
		}
	}
	return c
}

// reset empties both servers. If lockredis cannot FLUSHALL (not written
// yet, or broken) it gets a brand new embedded server instead, so one bug
// does not leak keys into every later case.
func (p *diffPair) reset(t *testing.T) {
	t.Helper()
	if r := p.redisCtl.do(t, "FLUSHALL"); r != "+OK\r\n" {
		t.Fatalf("redis-server FLUSHALL: %q", r)
	}
	reply, err := p.lockCtl.roundTrip(encodeCommand([]string{"FLUSHALL"}))
	if err == nil && string(reply) == "+OK\r\n" {
		return
	}
	if p.lock == nil {
		t.Fatalf("second redis-server FLUSHALL: %q, %v", reply, err)
	}
	if !p.flushWarned {
		t.Logf("lockredis FLUSHALL answered %q (%v): each case gets a new server", reply, err)
		p.flushWarned = true
	}
	p.lock.Close()
	p.startLock(t)
}

// has reports whether lockredis knows command name.
func (p *diffPair) has(t *testing.T, name string) bool {
	ok, seen := p.supported[name]
	if !seen {
		r := p.lockCtl.do(t, name)
		ok = !strings.HasPrefix(r, "-ERR unknown command")
		p.supported[name] = ok
	}
	return ok
}

// runDiffCases runs cases against a fresh pair of servers without a
// password; each case is a subtest.
func runDiffCases(t *testing.T, cases []diffCase) {
	t.Helper()
	runDiffCasesOn(t, newDiffPair(t, ""), cases)
}

func runDiffCasesOn(t *testing.T, p *diffPair, cases []diffCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, name := range tc.needs {
				if !p.has(t, name) {
					t.Skipf("lockredis has no %s yet", strings.ToUpper(name))
				}
			}
			forEachProto(t, func(t *testing.T, proto int) {
				p.reset(t)
				reportDiffs(t, runSteps(t, p, proto, tc.steps))
			})
		})
	}
}

// forEachProto runs a differential case once per protocol: as RESP2 in t
// itself, then as RESP3 in its subtest "resp3", where every connection of
// both servers first sends HELLO 3 (see newStepConn). The steps are the
// same; only the encoding of the replies, and what Redis lets a RESP3
// client do (commands while subscribed), differ. With a password, HELLO 3
// must log in at the same time (HELLO 3 AUTH), so the RESP3 run of a case
// starts authenticated.
func forEachProto(t *testing.T, body func(t *testing.T, proto int)) {
	t.Helper()
	body(t, 2)
	t.Run("resp3", func(t *testing.T) { body(t, 3) })
}

// stepDiff is one step whose replies differ.
type stepDiff struct {
	index       int
	step        diffStep
	redis, lock string
}

// reportDiffs fails the test with every differing step, both raw replies
// quoted.
func reportDiffs(t *testing.T, diffs []stepDiff) {
	t.Helper()
	const maxShown = 40
	for i, d := range diffs {
		if i == maxShown {
			t.Errorf("... and %d more differing steps", len(diffs)-maxShown)
			break
		}
		t.Errorf("step %d: %s\n\tredis:     %q\n\tlockredis: %q", d.index+1, d.step, d.redis, d.lock)
	}
}

// runSteps sends every step to both servers, each on its own new
// connection, and returns the steps whose replies differ.
func runSteps(t *testing.T, p *diffPair, proto int, steps []diffStep) []stepDiff {
	rc := newStepConn(t, p.redisAddr, proto, p.password)
	lc := newStepConn(t, p.lockAddr, proto, p.password)
	var diffs []stepDiff
	for i, st := range steps {
		frame := st.raw
		if st.args != nil {
			frame = encodeCommand(st.args)
		}
		r := rc.send(frame)
		l := lc.send(frame)
		if !sameReply(st, r, l) {
			diffs = append(diffs, stepDiff{index: i, step: st, redis: r, lock: l})
		}
	}
	return diffs
}

// stepConn is a connection that turns failures into pseudo-replies, so
// that "the server closed the connection" (QUIT) compares like any reply.
// After a failure nothing more is sent.
type stepConn struct {
	raw  *rawConn
	dead string
}

// newStepConn connects to addr speaking protocol proto (2 or 3). For 3 it
// sends HELLO 3 (HELLO 3 AUTH default password when the server has a
// password), whose reply must be a map: a server that refused would
// otherwise answer every step in RESP2 and the comparison would prove
// nothing.
func newStepConn(t *testing.T, addr string, proto int, password string) *stepConn {
	t.Helper()
	c := dialRaw(t, addr)
	if proto == 3 {
		helloResp3(t, c, password)
	}
	return &stepConn{raw: c}
}

// helloResp3 switches c to RESP3, logging in with password unless it is
// empty, and fails the test unless the server answered with its map.
func helloResp3(t testing.TB, c *rawConn, password string) {
	t.Helper()
	hello := []string{"HELLO", "3"}
	if password != "" {
		hello = append(hello, "AUTH", "default", password)
	}
	if r := c.do(t, hello...); !strings.HasPrefix(r, "%7\r\n") {
		t.Fatalf("%q: %q, want a map of 7", hello, r)
	}
}

func (c *stepConn) send(frame []byte) string {
	if c.dead != "" {
		return c.dead
	}
	reply, err := c.raw.roundTrip(frame)
	if err == nil {
		return string(reply)
	}
	var ne net.Error
	switch {
	case errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) || isReset(err):
		c.dead = "<connection closed>"
	case errors.As(err, &ne) && ne.Timeout():
		c.dead = "<no reply within " + replyTimeout.String() + ">"
	default:
		c.dead = "<" + err.Error() + ">"
	}
	if len(reply) > 0 {
		return string(reply) + c.dead
	}
	return c.dead
}

func isReset(err error) bool {
	var se *os.SyscallError
	return errors.As(err, &se) && (strings.Contains(se.Err.Error(), "reset") || strings.Contains(se.Err.Error(), "broken pipe"))
}

// sameReply compares two raw replies as the step's mode says.
func sameReply(st diffStep, a, b string) bool {
	if a == b {
		return true
	}
	ra, okA := parseRaw(a)
	rb, okB := parseRaw(b)
	if !okA || !okB {
		return false
	}
	if st.cmp != nil {
		return st.cmp(ra, rb)
	}
	switch st.mode {
	case modeUnordered:
		return ra.canonical() == rb.canonical()
	case modeWithin:
		if ra.typ != ':' || rb.typ != ':' {
			return false
		}
		x, errX := strconv.ParseInt(ra.line, 10, 64)
		y, errY := strconv.ParseInt(rb.line, 10, 64)
		if errX != nil || errY != nil || x < 0 || y < 0 {
			return false
		}
		d := x - y
		if d < 0 {
			d = -d
		}
		return d <= st.tol
	case modeKind:
		return ra.typ == rb.typ
	case modeShape:
		return sameShape(ra, rb)
	case modeMasked:
		return sameShape(maskNode(ra), maskNode(rb))
	case modeErrPrefix:
		if ra.typ != '-' || rb.typ != '-' {
			return false
		}
		wa, _, _ := strings.Cut(ra.line, " ")
		wb, _, _ := strings.Cut(rb.line, " ")
		return wa == wb
	}
	return false
}

// node is a parsed reply: its type byte, the rest of its first line, its
// blob (bulk strings) and its elements (aggregates).
type node struct {
	typ   byte
	line  string
	blob  string
	elems []node
}

// parseRaw parses one complete reply; ok is false for pseudo-replies and
// anything malformed or with trailing bytes.
func parseRaw(s string) (node, bool) {
	r := bufio.NewReader(strings.NewReader(s))
	n, err := parseNode(r)
	if err != nil {
		return node{}, false
	}
	if _, err := r.ReadByte(); err != io.EOF {
		return node{}, false
	}
	return n, true
}

func parseNode(r *bufio.Reader) (node, error) {
	var raw []byte
	if err := readValue(r, &raw); err != nil {
		return node{}, err
	}
	return splitNode(raw)
}

// splitNode builds the tree of one reply already known to be complete.
func splitNode(raw []byte) (node, error) {
	n, rest, err := nodeAt(raw)
	if err == nil && len(rest) > 0 {
		err = errors.New("trailing bytes")
	}
	return n, err
}

func nodeAt(b []byte) (node, []byte, error) {
	i := bytes.Index(b, []byte("\r\n"))
	if i < 1 {
		return node{}, nil, errors.New("no line")
	}
	n := node{typ: b[0], line: string(b[1:i])}
	b = b[i+2:]
	switch n.typ {
	case '$', '!', '=':
		size, _ := strconv.Atoi(n.line)
		if size >= 0 {
			n.blob = string(b[:size])
			b = b[size+2:]
		}
	case '*', '~', '>', '%', '|':
		count, _ := strconv.Atoi(n.line)
		if n.typ == '%' || n.typ == '|' {
			count *= 2
		}
		for j := 0; j < count; j++ {
			var e node
			var err error
			e, b, err = nodeAt(b)
			if err != nil {
				return node{}, nil, err
			}
			n.elems = append(n.elems, e)
		}
	}
	return n, b, nil
}

// canonical renders n with the elements of every aggregate sorted; a
// map's (or attribute's) pairs are sorted as pairs, keys kept with their
// values.
func (n node) canonical() string {
	if len(n.elems) == 0 {
		return string(n.typ) + n.line + "\r\n" + n.blob
	}
	step := 1
	if n.typ == '%' || n.typ == '|' {
		step = 2
	}
	parts := make([]string, 0, len(n.elems)/step)
	for i := 0; i+step <= len(n.elems); i += step {
		part := n.elems[i].canonical()
		if step == 2 {
			part += n.elems[i+1].canonical()
		}
		parts = append(parts, part)
	}
	sort.Strings(parts)
	return string(n.typ) + n.line + "\r\n" + strings.Join(parts, "")
}

func sameShape(a, b node) bool {
	if a.typ != b.typ || len(a.elems) != len(b.elems) {
		return false
	}
	if a.typ != ':' && (a.line != b.line || a.blob != b.blob) {
		return false
	}
	for i := range a.elems {
		if !sameShape(a.elems[i], b.elems[i]) {
			return false
		}
	}
	return true
}
