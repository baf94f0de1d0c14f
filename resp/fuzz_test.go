package resp

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/lockredis/lockredis/engine"
)

// redisModel is Redis 7.0's processInputBuffer, processMultibulkBuffer and
// processInlineBuffer (networking.c) transcribed as directly as possible,
// plus lockredis's cap on the argument count. It is fed the same reads the
// guard made and is the reference the fuzz target compares the guard with.
type redisModel struct {
	limits    Limits
	q         []byte // c->querybuf from c->qb_pos on
	reqtype   byte   // 0, 'i' inline or 'm' multibulk
	multibulk int64  // c->multibulklen
	bulklen   int64  // c->bulklen
	argv      [][]byte
	out       []byte // the commands run, as canonical frames
	err       string // the protocol error replied, "" if none
}

// strchr finds c in the C string q: a NUL byte ends the search.
func strchr(q []byte, c byte) int {
	for i, b := range q {
		if b == c {
			return i
		}
		if b == 0 {
			return -1
		}
	}
	return -1
}

func (m *redisModel) protoErr(msg string) bool {
	m.err = "-ERR " + msg + "\r\n"
	return false
}

func (m *redisModel) feed(b []byte) {
	if m.err != "" {
		return
	}
	m.q = append(m.q, b...)
	for len(m.q) > 0 && m.err == "" {
		if m.reqtype == 0 {
			m.reqtype = 'i'
			if m.q[0] == '*' {
				m.reqtype = 'm'
			}
		}
		var ok bool
		if m.reqtype == 'i' {
			ok = m.inlineBuffer()
		} else {
			ok = m.multibulkBuffer()
		}
		if !ok {
			break
		}
		if len(m.argv) > 0 {
			m.out = append(m.out, '*')
			m.out = append(m.out, fmt.Sprint(len(m.argv))...)
			m.out = append(m.out, "\r\n"...)
			for _, a := range m.argv {
				m.out = append(m.out, fmt.Sprintf("$%d\r\n%s\r\n", len(a), a)...)
			}
		}
		m.argv = m.argv[:0]
		m.reqtype, m.multibulk, m.bulklen = 0, 0, -1
	}
}

func (m *redisModel) inlineBuffer() bool {
	nl := strchr(m.q, '\n')
	if nl < 0 {
		if len(m.q) > m.limits.MaxInlineLen {
			return m.protoErr("Protocol error: too big inline request")
		}
		return false
	}
	end, skip := nl, 1
	if nl != 0 && m.q[nl-1] == '\r' {
		end, skip = nl-1, 2
	}
	tokens, ends, ok := engine.AppendSplitArgs(m.q[:end], nil, nil)
	if !ok {
		return m.protoErr("Protocol error: unbalanced quotes in request")
	}
	start := 0
	for _, e := range ends {
		m.argv = append(m.argv, tokens[start:e])
		start = e
	}
	m.q = m.q[end+skip:]
	return true
}

func (m *redisModel) multibulkBuffer() bool {
	if m.multibulk == 0 {
		nl := strchr(m.q, '\r')
		if nl < 0 {
			if len(m.q) > m.limits.MaxInlineLen {
				return m.protoErr("Protocol error: too big mbulk count string")
			}
			return false
		}
		if nl > len(m.q)-2 {
			return false
		}
		ll, ok := engine.ParseInt(m.q[1:nl])
		if !ok || ll > math.MaxInt32 {
			return m.protoErr("Protocol error: invalid multibulk length")
		} else if ll > m.limits.MaxMultibulkLen {
			return m.protoErr("Protocol error: invalid multibulk length")
		}
		m.q = m.q[nl+2:]
		if ll <= 0 {
			return true
		}
		m.multibulk = ll
		m.bulklen = -1
	}
	for m.multibulk > 0 {
		if m.bulklen == -1 {
			nl := strchr(m.q, '\r')
			if nl < 0 {
				if len(m.q) > m.limits.MaxInlineLen {
					return m.protoErr("Protocol error: too big bulk count string")
				}
				break
			}
			if nl > len(m.q)-2 {
				break
			}
			if m.q[0] != '$' {
				c := m.q[0]
				if c == '\r' || c == '\n' {
					c = ' '
				}
				return m.protoErr("Protocol error: expected '$', got '" + string([]byte{c}) + "'")
			}
			ll, ok := engine.ParseInt(m.q[1:nl])
			if !ok || ll < 0 || ll > m.limits.MaxBulkLen {
				return m.protoErr("Protocol error: invalid bulk length")
			}
			m.q = m.q[nl+2:]
			m.bulklen = ll
		}
		if int64(len(m.q)) < m.bulklen+2 {
			break
		}
		m.argv = append(m.argv, bytes.Clone(m.q[:m.bulklen]))
		m.q = m.q[m.bulklen+2:]
		m.bulklen = -1
		m.multibulk--
	}
	return m.multibulk == 0
}

// fuzzLimits are small limits, so that short inputs reach every check.
var fuzzLimits = Limits{MaxBulkLen: 40, MaxMultibulkLen: 6, MaxInlineLen: 24}.withDefaults()

// FuzzGuard: for any input, cut into any reads, the guard must not panic
// or hang, must hand out exactly the commands Redis would run and write
// exactly the error Redis would reply; and valid frames pass byte for byte.
func FuzzGuard(f *testing.F) {
	seeds := []string{
		"*1\r\n$9223372036854775806\r\nabc\r\n",
		"*9000000000000000000\r\n$4\r\nPING\r\n",
		"*0\r\n*1\r\n$4\r\nPING\r\n",
		"*-1\r\nPING\r\n",
		"*1\rX$4\rXPINGxy*1\r\n$4\r\nPING\r\n",
		"*2\r\n$4\r\nECHO\r\n$3\r\nabcXY",
		"*1\r\n+4\r\n",
		"*1\r\n\r\n",
		"*1\x00\r\n",
		"PING\x00\r\n",
		"ECHO \"a\\x41\\n\" 'b\\'c'\r\nPING\n\r\n",
		"ECHO \"a\"b\r\n",
		"SET k v\r\n*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n",
		"*7\r\n",
		"*1\r\n$41\r\n",
		"01234567890123456789012345",
		"*1\r\n$1234567890123456789012345",
		"\t\t  \r\n  x\ty\r\n",
	}
	for i, s := range seeds {
		f.Add([]byte(s), uint64(i))
	}
	f.Fuzz(func(t *testing.T, data []byte, seed uint64) {
		defer fuzzWatch(data, seed)()
		rng := rand.New(rand.NewPCG(seed, seed>>7))
		for _, limits := range []Limits{fuzzLimits, Limits{}.withDefaults()} {
			checkGuardAgainstModel(t, data, limits, false, rng)
			checkGuardAgainstModel(t, data, limits, true, rng)
		}
		checkPassThrough(t, data, rng)
	})
}

// unfinished returns the incomplete frame at the end of out (parseFrame
// panics on anything that is not a valid frame or the start of one).
func unfinished(out []byte) []byte {
	for {
		_, rest, ok := parseFrame(out)
		if !ok {
			return out
		}
		out = rest
	}
}

// randomChunks cuts data into reads of random sizes.
func randomChunks(data []byte, rng *rand.Rand) [][]byte {
	var chunks [][]byte
	maxChunk := 1 + rng.IntN(len(data)+1)
	for len(data) > 0 {
		n := min(len(data), 1+rng.IntN(maxChunk))
		chunks = append(chunks, data[:n])
		data = data[n:]
	}
	return chunks
}

func checkGuardAgainstModel(t *testing.T, data []byte, limits Limits, tiny bool, rng *rand.Rand) {
	res := runGuardRand(randomChunks(data, rng), limits, tiny, rng)
	m := redisModel{limits: limits, bulklen: -1}
	at := 0
	for _, n := range res.reads {
		m.feed(data[at : at+n])
		at += n
	}
	// A big unfinished command may have been handed on in part: redcon
	// drops it when the connection ends.
	whole := res.out[:len(res.out)-len(unfinished(res.out))]
	if !bytes.Equal(whole, m.out) || res.written != m.err {
		t.Fatalf("input %q, reads %v:\nguard released %q\nredis runs     %q\nguard wrote %q\nredis replies %q",
			data, res.reads, res.out, m.out, res.written, m.err)
	}
	if closed := errors.Is(res.err, errProtocolClose); closed != (m.err != "") {
		t.Fatalf("input %q: guard ended with %v, redis error %q", data, res.err, m.err)
	}
}

// checkPassThrough makes valid frames out of data and checks that they
// pass unchanged.
func checkPassThrough(t *testing.T, data []byte, rng *rand.Rand) {
	var in []byte
	for rest := data; len(rest) > 0; {
		args := bytes.Split(rest[:min(len(rest), 1+rng.IntN(len(rest)))], []byte{','})
		rest = rest[min(len(rest), 1+rng.IntN(len(rest))):]
		in = fmt.Appendf(in, "*%d\r\n", len(args))
		for _, a := range args {
			in = fmt.Appendf(in, "$%d\r\n%s\r\n", len(a), a)
		}
	}
	res := runGuardRand(randomChunks(in, rng), Limits{}, true, rng)
	if !bytes.Equal(res.out, in) || res.written != "" || !errors.Is(res.err, io.EOF) {
		t.Fatalf("frames %q: released %q, wrote %q, err %v", in, res.out, res.written, res.err)
	}
}

// runGuardRand is runGuard with reads of random sizes from rng, and a
// bound on the number of reads: every Read must make progress. tiny makes
// the guard's buffer and stream sizes a few bytes, so that short inputs
// reach its buffer management.
func runGuardRand(chunks [][]byte, limits Limits, tiny bool, rng *rand.Rand) guardResult {
	total := 0
	for _, c := range chunks {
		total += len(c)
	}
	sc := &scriptConn{chunks: chunks}
	g := newGuardConn(sc, limits, nil, nil)
	if tiny {
		g.firstBuf, g.minHold, g.maxHold = 1+rng.IntN(8), 1+rng.IntN(8), 1+rng.IntN(32)
	}
	var res guardResult
	p := make([]byte, 256)
	for range 8*total + 16 {
		n, err := g.Read(p[:1+rng.IntN(len(p))])
		res.out = append(res.out, p[:n]...)
		if err != nil {
			res.err = err
			break
		}
	}
	if res.err == nil {
		panic("the guard keeps returning data it was never given")
	}
	res.written = sc.written.String()
	res.reads = sc.reads
	return res
}
