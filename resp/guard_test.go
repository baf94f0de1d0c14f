package resp

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"strconv"
	"strings"
	"testing"

	"github.com/lockredis/lockredis/engine"
)

// scriptConn is a net.Conn whose reads return the scripted chunks in order
// (never more than asked for), then io.EOF. It records the size of every
// read, which are the points where Redis would look at its query buffer.
type scriptConn struct {
	net.Conn // nil: methods not listed here are not used by the guard
	chunks   [][]byte
	reads    []int
	written  bytes.Buffer
}

func (c *scriptConn) Read(p []byte) (int, error) {
	for len(c.chunks) > 0 && len(c.chunks[0]) == 0 {
		c.chunks = c.chunks[1:]
	}
	if len(c.chunks) == 0 {
		return 0, io.EOF
	}
	n := copy(p, c.chunks[0])
	c.chunks[0] = c.chunks[0][n:]
	c.reads = append(c.reads, n)
	return n, nil
}

func (c *scriptConn) Write(p []byte) (int, error) { return c.written.Write(p) }
func (c *scriptConn) Close() error                { return nil }
func (c *scriptConn) RemoteAddr() net.Addr        { return &net.TCPAddr{} }

// guardResult is what a guard gave its reader.
type guardResult struct {
	out     []byte // what redcon would have read
	written string // what the guard wrote to the socket itself
	err     error  // the error that ended the reads
	reads   []int  // the socket reads the guard made
	maxBuf  int    // the guard's largest buffer
}

// runGuard feeds chunks through a guard and reads everything it releases
// with reads of readSize bytes (0: random sizes).
func runGuard(chunks [][]byte, limits Limits, readSize int) guardResult {
	sc := &scriptConn{chunks: chunks}
	g := newGuardConn(sc, limits, nil, nil)
	rng := rand.New(rand.NewPCG(1, 2))
	var res guardResult
	p := make([]byte, 1<<16)
	for {
		size := readSize
		if size == 0 {
			size = 1 + rng.IntN(len(p))
		}
		n, err := g.Read(p[:size])
		res.out = append(res.out, p[:n]...)
		res.maxBuf = max(res.maxBuf, len(g.buf))
		if err != nil {
			res.err = err
			break
		}
		if n == 0 {
			res.err = errors.New("Read returned 0, nil")
			break
		}
	}
	res.written = sc.written.String()
	res.reads = sc.reads
	return res
}

func oneChunk(s string) [][]byte { return [][]byte{[]byte(s)} }

// frame encodes args as a multibulk frame.
func frame(args ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	return b.String()
}

func TestGuardPassesValidFramesUnchanged(t *testing.T) {
	big := strings.Repeat("v", 300<<10)
	many := make([]string, 20000)
	for i := range many {
		many[i] = strconv.Itoa(i)
	}
	tests := []struct {
		name string
		in   string
	}{
		{"ping", frame("PING")},
		{"pipeline", frame("SET", "k", "v") + frame("GET", "k") + frame("PING")},
		{"binary", frame("SET", "k\x00\r\n", "\x00\xff\r\n*$")},
		{"empty args", frame("", "", "")},
		{"big value", frame("SET", "k", big) + frame("PING")},
		{"many args", frame(many...) + frame("PING")},
	}
	for _, tt := range tests {
		for _, readSize := range []int{0, 1, 7, 4096, 1 << 16} {
			t.Run(fmt.Sprintf("%s/read%d", tt.name, readSize), func(t *testing.T) {
				res := runGuard(oneChunk(tt.in), Limits{}, readSize)
				if !errors.Is(res.err, io.EOF) || res.written != "" {
					t.Fatalf("err %v, written %q", res.err, res.written)
				}
				if !bytes.Equal(res.out, []byte(tt.in)) {
					t.Fatalf("output differs from input (%d vs %d bytes)", len(res.out), len(tt.in))
				}
			})
		}
	}
}

// TestGuardVersusRedis: inputs, the commands Redis 7.0.15 runs and the
// error it replies, checked against redis-server with a raw socket.
func TestGuardVersusRedis(t *testing.T) {
	tests := []struct {
		name string
		in   string
		cmds string // the frames redcon must get
		err  string // what the guard writes before closing; "" keeps the connection
	}{
		{"19-digit bulk length", "*1\r\n$9223372036854775806\r\nabc\r\n", "",
			"-ERR Protocol error: invalid bulk length\r\n"},
		{"19-digit count", "*9000000000000000000\r\n$4\r\nPING\r\n", "",
			"-ERR Protocol error: invalid multibulk length\r\n"},
		{"count above INT_MAX", "*2147483648\r\n", "",
			"-ERR Protocol error: invalid multibulk length\r\n"},
		{"count above our cap", "*1048577\r\n", "",
			"-ERR Protocol error: invalid multibulk length\r\n"},
		{"count at our cap waits", "*1048576\r\n", "", ""},
		{"bulk above 512MB", "*1\r\n$536870913\r\n", "",
			"-ERR Protocol error: invalid bulk length\r\n"},
		{"bulk of 512MB waits", "*1\r\n$536870912\r\n", "", ""},
		{"zero count dropped", "*0\r\n" + frame("PING"), frame("PING"), ""},
		{"negative count dropped", "*-1\r\n" + frame("PING"), frame("PING"), ""},
		{"very negative count dropped", "*-9223372036854775808\r\nPING\r\n", frame("PING"), ""},
		{"count below int64", "*-9223372036854775809\r\n", "",
			"-ERR Protocol error: invalid multibulk length\r\n"},
		{"count with plus", "*+1\r\n$4\r\nPING\r\n", "", "-ERR Protocol error: invalid multibulk length\r\n"},
		{"count leading zero", "*01\r\n$4\r\nPING\r\n", "", "-ERR Protocol error: invalid multibulk length\r\n"},
		{"count with space", "* 1\r\n$4\r\nPING\r\n", "", "-ERR Protocol error: invalid multibulk length\r\n"},
		{"empty count", "*\r\n$4\r\nPING\r\n", "", "-ERR Protocol error: invalid multibulk length\r\n"},
		{"minus zero count", "*-0\r\nPING\r\n", "", "-ERR Protocol error: invalid multibulk length\r\n"},
		{"plus instead of dollar", "*1\r\n+4\r\nPING\r\n", "", "-ERR Protocol error: expected '$', got '+'\r\n"},
		{"CR instead of dollar", "*1\r\n\r\n", "", "-ERR Protocol error: expected '$', got ' '\r\n"},
		{"LF instead of dollar", "*1\r\n\n\r\n", "", "-ERR Protocol error: expected '$', got ' '\r\n"},
		{"high byte instead of dollar", "*1\r\n\xff\r\n", "", "-ERR Protocol error: expected '$', got '\xff'\r\n"},
		{"negative bulk", "*1\r\n$-1\r\nPING\r\n", "", "-ERR Protocol error: invalid bulk length\r\n"},
		{"minus zero bulk", "*1\r\n$-0\r\nPING\r\n", "", "-ERR Protocol error: invalid bulk length\r\n"},
		{"bulk leading zeros", "*1\r\n$0004\r\nPING\r\n", "", "-ERR Protocol error: invalid bulk length\r\n"},
		{"bulk with space", "*1\r\n$ 4\r\nPING\r\n", "", "-ERR Protocol error: invalid bulk length\r\n"},
		{"bulk trailing space", "*1\r\n$4 \r\nPING\r\n", "", "-ERR Protocol error: invalid bulk length\r\n"},
		{"empty bulk length", "*1\r\n$\r\nPING\r\n", "", "-ERR Protocol error: invalid bulk length\r\n"},
		{"commands before the error are run", frame("PING") + "*2147483648\r\n", frame("PING"),
			"-ERR Protocol error: invalid multibulk length\r\n"},
		// Redis skips the byte after a header's '\r' and the two bytes
		// after a bulk's data without looking at them.
		{"bytes Redis skips", "*1\rX$4\rXPINGxy" + frame("PING"), frame("PING") + frame("PING"), ""},
		{"bulk without CRLF", "*2\r\n$4\r\nECHO\r\n$3\r\nabcXY" + frame("PING"), frame("ECHO", "abc") + frame("PING"), ""},
		// strchr stops at NUL: the line never ends.
		{"NUL in count line", "*1\x00\r\n$4\r\nPING\r\n", "", ""},
		{"NUL instead of dollar", "*1\r\n\x00\r\n", "", ""},
		{"NUL in inline", "PING\x00\r\n", "", ""},
		{"NUL starts inline", "PING\r\n\x00PING\r\n", frame("PING"), ""},
		{"binary in bulk", frame("ECHO", "\x00\r\n"), frame("ECHO", "\x00\r\n"), ""},
		{"inline", "PING\r\n", frame("PING"), ""},
		{"inline LF only", "ECHO a\n", frame("ECHO", "a"), ""},
		{"inline CR inside", "ECHO a\rb\r\n", frame("ECHO", "a", "b"), ""},
		{"empty lines ignored", "\r\n\n   \r\n\t\nPING\r\n", frame("PING"), ""},
		{"inline after multibulk", frame("PING") + "ECHO x\r\n" + frame("PING") + "PING\r\nPING\r\n",
			frame("PING") + frame("ECHO", "x") + frame("PING") + frame("PING") + frame("PING"), ""},
		{"unbalanced quotes", "PING\r\nECHO \"a\r\nPING\r\n", frame("PING"),
			"-ERR Protocol error: unbalanced quotes in request\r\n"},
	}
	for _, tt := range tests {
		for _, readSize := range []int{0, 1, 4096} {
			t.Run(fmt.Sprintf("%s/read%d", tt.name, readSize), func(t *testing.T) {
				for _, chunks := range [][][]byte{oneChunk(tt.in), byteChunks(tt.in)} {
					res := runGuard(chunks, Limits{}, readSize)
					if string(res.out) != tt.cmds {
						t.Errorf("released %q, want %q", res.out, tt.cmds)
					}
					if res.written != tt.err {
						t.Errorf("wrote %q, want %q", res.written, tt.err)
					}
					if wantClosed := tt.err != ""; wantClosed != errors.Is(res.err, errProtocolClose) {
						t.Errorf("ended with %v", res.err)
					}
				}
			})
		}
	}
}

func byteChunks(s string) [][]byte {
	out := make([][]byte, len(s))
	for i := range s {
		out[i] = []byte{s[i]}
	}
	return out
}

// TestGuardInlineSplit: inline lines and the arguments Redis 7.0.15 makes
// of them (checked with RPUSH l <line> / LRANGE l 0 -1 on redis-server).
func TestGuardInlineSplit(t *testing.T) {
	const unbalanced = "-ERR Protocol error: unbalanced quotes in request\r\n"
	tests := []struct {
		line string
		args []string // nil: unbalanced quotes
	}{
		{`a b c`, []string{"a", "b", "c"}},
		{"a\tb\tc", []string{"a", "b", "c"}},
		{`"a b" c`, []string{"a b", "c"}},
		{`"\x41\x4a\x4" z`, []string{"AJx4", "z"}},
		{`"\x4A\x4a"`, []string{"JJ"}},
		{`"\n\r\t\b\a\\\"\q"`, []string{"\n\r\t\b\a\\\"q"}},
		{`'it\'s' 'a\nb'`, []string{"it's", `a\nb`}},
		{`foo"bar baz"`, []string{"foobar baz"}},
		{`"a"b`, nil},
		{`'a'b`, nil},
		{`"abc`, nil},
		{`'abc`, nil},
		{"a\vb", []string{"a\vb"}},
		{"\va", []string{"a"}},
		{`""`, []string{""}},
		{`'' ""`, []string{"", ""}},
		{"\"a\"\tb", []string{"a", "b"}},
		{"\"a\"\vb", []string{"a", "b"}},
		{"x\ry", []string{"x", "y"}},
		{`"\xZZ"`, []string{"xZZ"}},
		{`"\xff\x00"`, []string{"\xff\x00"}},
		{`'\\'`, nil},
		{`"trailing\`, nil},
		{"caf\xc3\xa9", []string{"caf\xc3\xa9"}},
		{`a"b"c`, nil},
		{`a'b c'd`, nil},
		{"  lead  trail  ", []string{"lead", "trail"}},
		{"a\fb", []string{"a\fb"}},
		{"\"a\"\f", []string{"a"}},
		{`"\`, nil},
		{`'\'`, nil},
		{`"a""b"`, nil},
		{`'a\''`, []string{"a'"}},
		{`"a\"b"`, []string{`a"b`}},
		{"x\x80y", []string{"x\x80y"}},
		{`"\X41"`, []string{"X41"}},
		{`'\x41'`, []string{`\x41`}},
	}
	for _, tt := range tests {
		t.Run(strconv.Quote(tt.line), func(t *testing.T) {
			in := "RPUSH l " + tt.line + "\r\n"
			res := runGuard(oneChunk(in), Limits{}, 0)
			if tt.args == nil {
				if len(res.out) != 0 || res.written != unbalanced {
					t.Fatalf("released %q, wrote %q; want unbalanced quotes", res.out, res.written)
				}
				return
			}
			want := frame(append([]string{"RPUSH", "l"}, tt.args...)...)
			if string(res.out) != want || res.written != "" {
				t.Fatalf("released %q, wrote %q; want %q", res.out, res.written, want)
			}
		})
	}
}

// TestGuardTooBig: lines without an end are refused once past 64 KB, with
// the buffer bounded.
func TestGuardTooBig(t *testing.T) {
	long := strings.Repeat("x", 100<<10)
	tests := []struct {
		name, in, err string
	}{
		{"inline", long, "-ERR Protocol error: too big inline request\r\n"},
		{"count", "*1" + long, "-ERR Protocol error: too big mbulk count string\r\n"},
		{"bulk length", "*1\r\n$1" + long, "-ERR Protocol error: too big bulk count string\r\n"},
		{"NUL in inline", "GET \x00" + long, "-ERR Protocol error: too big inline request\r\n"},
		{"NUL in count", "*1\x00\r\n" + long, "-ERR Protocol error: too big mbulk count string\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := runGuard(oneChunk(tt.in), Limits{}, 0)
			if len(res.out) != 0 || res.written != tt.err || !errors.Is(res.err, errProtocolClose) {
				t.Fatalf("released %d bytes, wrote %q, err %v", len(res.out), res.written, res.err)
			}
			if res.maxBuf > 128<<10 {
				t.Fatalf("buffer grew to %d", res.maxBuf)
			}
		})
	}
	// A line of exactly the limit is fine.
	line := "ECHO " + strings.Repeat("y", 64<<10-5)
	res := runGuard(oneChunk(line+"\r\n"), Limits{}, 0)
	if res.written != "" || string(res.out) != frame("ECHO", line[5:]) {
		t.Fatalf("64 KB line: wrote %q, released %d bytes", res.written, len(res.out))
	}
}

// TestGuardStreamsBigValues: a big value goes through in chunks, so the
// guard's buffer stays small while redcon gets the bytes as they come.
func TestGuardStreamsBigValues(t *testing.T) {
	in := frame("SET", "k", strings.Repeat("v", 8<<20)) + frame("PING")
	res := runGuard(oneChunk(in), Limits{}, 0)
	if string(res.out) != in {
		t.Fatal("output differs")
	}
	if res.maxBuf > 2*maxHold {
		t.Fatalf("buffer grew to %d", res.maxBuf)
	}
}

func TestGuardQueryBufferLimit(t *testing.T) {
	limits := Limits{MaxQueryBuffer: 1 << 20}
	in := frame("PING") + frame("SET", "k", strings.Repeat("v", 600<<10), strings.Repeat("w", 600<<10))
	res := runGuard(oneChunk(in), limits, 0)
	// Redis closes such a client without a reply.
	if res.written != "" || !errors.Is(res.err, errProtocolClose) {
		t.Fatalf("wrote %q, err %v", res.written, res.err)
	}
	if !strings.HasPrefix(string(res.out), frame("PING")) || len(res.out) > 1<<20+streamChunk {
		t.Fatalf("released %d bytes", len(res.out))
	}
	// Just under the limit passes.
	in = frame("SET", "k", strings.Repeat("v", 1<<20-100))
	if res := runGuard(oneChunk(in), limits, 0); string(res.out) != in {
		t.Fatalf("wrote %q, err %v", res.written, res.err)
	}
}

// TestGuardAuthLimits: before AUTH, counts over 10 and bulks over 16 KB are
// refused; the limits lift as soon as the command before has run.
func TestGuardAuthLimits(t *testing.T) {
	tests := []struct {
		name string
		in   string
		cmds string
		err  string
	}{
		{"count", "*11\r\n", "", "-ERR Protocol error: unauthenticated multibulk length\r\n"},
		{"count 10 waits", "*10\r\n", "", ""},
		{"count over our cap", "*2000000\r\n", "", "-ERR Protocol error: unauthenticated multibulk length\r\n"},
		{"count over INT_MAX", "*2147483648\r\n", "", "-ERR Protocol error: invalid multibulk length\r\n"},
		{"bulk", "*1\r\n$16385\r\n", "", "-ERR Protocol error: unauthenticated bulk length\r\n"},
		{"bulk 16384 waits", "*1\r\n$16384\r\n", "", ""},
		{"bulk over 512MB", "*1\r\n$600000000\r\n", "", "-ERR Protocol error: invalid bulk length\r\n"},
		{"inline has no limit", "PING a b c d e f g h i j k l m\r\n", frame(strings.Fields("PING a b c d e f g h i j k l m")...), ""},
		{"after AUTH", frame("AUTH", "pw") + frame("MSET", "a", "1", "b", "2", "c", "3", "d", "4", "e", "5"),
			frame("AUTH", "pw") + frame("MSET", "a", "1", "b", "2", "c", "3", "d", "4", "e", "5"), ""},
		{"after inline AUTH", "AUTH pw\r\n*1\r\n$20000\r\n" + strings.Repeat("x", 20000) + "\r\n",
			frame("AUTH", "pw") + frame(strings.Repeat("x", 20000)), ""},
		{"after wrong AUTH", frame("AUTH", "bad") + "*11\r\n", frame("AUTH", "bad"),
			"-ERR Protocol error: unauthenticated multibulk length\r\n"},
		{"after RESET", frame("AUTH", "pw") + frame("reset") + "*11\r\n", frame("AUTH", "pw") + frame("reset"),
			"-ERR Protocol error: unauthenticated multibulk length\r\n"},
		{"after inline RESET", frame("AUTH", "pw") + "RESET\r\n*11\r\n", frame("AUTH", "pw") + frame("RESET"),
			"-ERR Protocol error: unauthenticated multibulk length\r\n"},
	}
	for _, tt := range tests {
		for _, readSize := range []int{0, 3, 1 << 16} {
			t.Run(fmt.Sprintf("%s/read%d", tt.name, readSize), func(t *testing.T) {
				res := runAuthGuard(tt.in, readSize)
				if string(res.out) != tt.cmds {
					t.Errorf("released %q, want %q", res.out, tt.cmds)
				}
				if res.written != tt.err {
					t.Errorf("wrote %q, want %q", res.written, tt.err)
				}
			})
		}
	}
}

// runAuthGuard plays a client that must authenticate with password "pw":
// the reader "runs" each whole command it gets, as redcon does, before
// reading more.
func runAuthGuard(in string, readSize int) guardResult {
	sc := &scriptConn{chunks: oneChunk(in)}
	g := newGuardConn(sc, Limits{}, nil, nil)
	authed := false
	g.needsAuth = func() bool { return !authed }
	var res guardResult
	var pending []byte
	p := make([]byte, readSize)
	if readSize == 0 {
		p = make([]byte, 1<<16)
	}
	for {
		n, err := g.Read(p)
		res.out = append(res.out, p[:n]...)
		pending = append(pending, p[:n]...)
		for {
			args, rest, ok := parseFrame(pending)
			if !ok {
				break
			}
			pending = rest
			switch strings.ToLower(args[0]) {
			case "auth":
				if args[len(args)-1] == "pw" {
					authed = true
				}
			case "reset":
				authed = false
			}
		}
		if err != nil {
			res.err = err
			break
		}
	}
	res.written = sc.written.String()
	return res
}

// parseFrame reads one canonical multibulk frame, as the guard hands them
// to redcon.
func parseFrame(b []byte) (args []string, rest []byte, ok bool) {
	line := func() (int64, bool) {
		i := bytes.Index(b, []byte("\r\n"))
		if i < 0 {
			return 0, false
		}
		n, err := strconv.ParseInt(string(b[1:i]), 10, 64)
		if err != nil {
			panic(fmt.Sprintf("bad header %q", b[:i]))
		}
		b = b[i+2:]
		return n, true
	}
	if len(b) == 0 || b[0] != '*' {
		if len(b) > 0 {
			panic(fmt.Sprintf("bad frame %q", b))
		}
		return nil, nil, false
	}
	n, ok := line()
	if !ok {
		return nil, nil, false
	}
	for ; n > 0; n-- {
		if len(b) == 0 {
			return nil, nil, false
		}
		if b[0] != '$' {
			panic(fmt.Sprintf("bad bulk %q", b))
		}
		size, ok := line()
		if !ok || int64(len(b)) < size+2 {
			return nil, nil, false
		}
		if string(b[size:size+2]) != "\r\n" {
			panic("bulk without CRLF")
		}
		args = append(args, string(b[:size]))
		b = b[size+2:]
	}
	return args, b, true
}

// TestGuardSplitReads: the same pipeline fed one byte per read, in random
// chunks and at once gives the same output.
func TestGuardSplitReads(t *testing.T) {
	in := frame("SET", "k", "v") + "ECHO \"a b\"\r\n" + "*0\r\n" + frame("GET", "k") + "\r\n" +
		frame("SET", "big", strings.Repeat("z", 100<<10)) + "PING\n" + frame("DEL", "k")
	want := runGuard(oneChunk(in), Limits{}, 1<<16).out
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 20 {
		var chunks [][]byte
		for rest := in; rest != ""; {
			n := min(len(rest), 1+rng.IntN(1+i*i*50))
			chunks = append(chunks, []byte(rest[:n]))
			rest = rest[n:]
		}
		res := runGuard(chunks, Limits{}, 0)
		if !bytes.Equal(res.out, want) || res.written != "" {
			t.Fatalf("chunking %d: output differs", i)
		}
	}
	if res := runGuard(byteChunks(in), Limits{}, 0); !bytes.Equal(res.out, want) {
		t.Fatal("byte by byte: output differs")
	}
}

// TestGuardReadAllocs: in the steady state Read does not allocate.
func TestGuardReadAllocs(t *testing.T) {
	pipeline := []byte(frame("SET", "key", "value") + "PING\r\n" + frame("GET", "key"))
	sc := &scriptConn{}
	g := newGuardConn(sc, Limits{}, nil, nil)
	p := make([]byte, 4096)
	run := func() {
		sc.chunks = append(sc.chunks[:0], pipeline)
		got := 0
		for got < len(pipeline)+8 { // PING becomes 14 bytes
			n, err := g.Read(p)
			if err != nil {
				t.Fatal(err)
			}
			got += n
		}
	}
	run()
	if allocs := testing.AllocsPerRun(100, run); allocs > 0 {
		t.Fatalf("%v allocations per pipeline", allocs)
	}
}

// TestGuardStats: protocol errors and bytes are counted.
func TestGuardStats(t *testing.T) {
	var st engine.Stats
	sc := &scriptConn{chunks: oneChunk(frame("PING") + "*x\r\n")}
	g := newGuardConn(sc, Limits{}, &st, nil)
	if _, err := io.ReadAll(g); err == nil {
		t.Fatal("no error")
	}
	if st.ProtocolErrors.Load() != 1 || st.NetInputBytes.Load() != int64(len(frame("PING"))+4) {
		t.Fatalf("protocol errors %d, input bytes %d", st.ProtocolErrors.Load(), st.NetInputBytes.Load())
	}
}

// BenchmarkGuardPipeline: the guard's cost per command on a pipeline of
// small commands, multibulk and inline.
func BenchmarkGuardPipeline(b *testing.B) {
	for _, tc := range []struct{ name, cmd string }{
		{"multibulk", frame("SET", "key:000123", "value-value-value")},
		{"inline", "SET key:000123 value-value-value\r\n"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			pipeline := []byte(strings.Repeat(tc.cmd, 100))
			sc := &scriptConn{}
			g := newGuardConn(sc, Limits{}, nil, nil)
			p := make([]byte, 4096)
			want := len(strings.Repeat(frame("SET", "key:000123", "value-value-value"), 100))
			b.SetBytes(int64(len(pipeline)))
			b.ReportAllocs()
			for range b.N {
				sc.chunks = append(sc.chunks[:0], pipeline)
				for got := 0; got < want; {
					n, err := g.Read(p)
					if err != nil {
						b.Fatal(err)
					}
					got += n
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*100), "ns/cmd")
		})
	}
}

// TestGuardWorkLinear: the guard's work (guardConn.work: bytes looked at,
// copied or moved, parser steps) grows linearly with the input, for input
// that arrives one byte per socket read, the case where a parser that
// starts over at every read goes quadratic. Work is counted, not timed:
// per input byte it may not grow as the input does (16 times larger).
func TestGuardWorkLinear(t *testing.T) {
	repeat := func(s string) func(n int) []byte {
		return func(n int) []byte { return bytes.Repeat([]byte(s), n) }
	}
	families := []struct {
		name string
		gen  func(n int) []byte // input of about n units
	}{
		{"small-commands", repeat("*1\r\n$4\r\nPING\r\n")},
		{"inline-commands", repeat("SET k v\r\n")},
		{"quoted-inline", repeat("SET \"a\\x41\" 'b c'\r\n")},
		{"big-bulk", func(n int) []byte {
			return fmt.Appendf(nil, "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$%d\r\n%s\r\n", 16*n, bytes.Repeat([]byte{'v'}, 16*n))
		}},
		{"many-arguments", func(n int) []byte {
			return append(fmt.Appendf(nil, "*%d\r\n", n+1), append([]byte("$4\r\nECHO\r\n"), bytes.Repeat([]byte("$1\r\na\r\n"), n)...)...)
		}},
		{"long-inline-line", func(n int) []byte {
			return append(bytes.Repeat([]byte("x "), 8*n), '\r', '\n')
		}},
		{"unfinished-line-with-nul", func(n int) []byte {
			return append([]byte("PING\x00"), bytes.Repeat([]byte{'y'}, 16*n)...)
		}},
	}
	work := func(in []byte, tiny bool) int64 {
		chunks := make([][]byte, len(in))
		for i := range in {
			chunks[i] = in[i : i+1]
		}
		g := newGuardConn(&scriptConn{chunks: chunks}, Limits{}, nil, nil)
		if tiny {
			g.firstBuf, g.minHold, g.maxHold = 4, 4, 16
		}
		p := make([]byte, 7)
		for range 2*len(in) + 16 {
			if _, err := g.Read(p); err != nil {
				break
			}
		}
		return g.work
	}
	for _, f := range families {
		for _, tiny := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/tiny=%v", f.name, tiny), func(t *testing.T) {
				small, large := f.gen(200), f.gen(3200)
				ws, wl := work(small, tiny), work(large, tiny)
				perSmall := float64(ws) / float64(len(small))
				perLarge := float64(wl) / float64(len(large))
				if perLarge > 1.5*perSmall+1 {
					t.Errorf("work per byte %.2f for %d bytes, %.2f for %d bytes: not linear", perSmall, len(small), perLarge, len(large))
				}
				t.Logf("work per byte: %.2f (%d bytes), %.2f (%d bytes)", perSmall, len(small), perLarge, len(large))
			})
		}
	}
}
