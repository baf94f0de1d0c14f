package luasvc

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/lockredis/lockredis/engine"
	"github.com/lockredis/lockredis/resp"
)

// FuzzLuaReply drives both directions of the Lua <-> reply conversion
// (reply.go) with fuzz-made values, in RESP2 and RESP3 (redis.setresp and
// the caller's HELLO): a reply tree written by a command (FUZZREPLY, every
// Writer method, nested, with errors inside aggregates, NaN and infinite
// doubles, CR and LF in status lines) becomes a Lua value through
// redis.call or redis.pcall and goes back to the caller; and scripts
// return fuzz-made Lua values (nested tables, {ok=}, {err=}, {map=},
// {set=}, {double=}, {big_number=}, {verbatim_string=}, booleans, NaN,
// cycles). Nothing may panic, and the caller gets exactly one well-formed
// reply in its protocol.
//
//	go test -run '^$' -fuzz '^FuzzLuaReply$' -fuzztime 5m ./luasvc
func FuzzLuaReply(f *testing.F) {
	f.Add(uint8(0), []byte("\x05\x03\x00\x01A\x02\x04"))            // array of status, int
	f.Add(uint8(1), []byte("\x06\x02\x01\x02a\r\x0a\x02\x01b"))     // map
	f.Add(uint8(2), []byte("\x0b\xff\xf8\x00\x00\x00\x00\x00\x01")) // NaN double
	f.Add(uint8(3), []byte("\x01\x08CODE x\r\n"))                   // error with CRLF
	f.Add(uint8(4), []byte("\x04\x03\x02\x05\x0d\x0e"))
	f.Add(uint8(5), []byte("\x0c\x03\x07\x05\x01\x02\x0d"))
	f.Add(uint8(6), []byte("\x0e\x02\x0a\x0c\x09"))
	f.Add(uint8(7), []byte("\x0f\x0f\x0f\x0f\x0f\x0f"))
	ts := newTestService(f)
	ts.e.Register(&engine.Command{Name: "fuzzreply", Spec: engine.NewSpec(2, engine.FlagReadonly),
		Handler: func(c *engine.Call) { writeTree(c.W, &byteSrc{b: c.Args[1]}, 0) }})
	f.Fuzz(func(t *testing.T, mode uint8, data []byte) {
		caller := 2 + int(mode>>7)
		scriptResp := 2 + int(mode>>6&1)
		var script string
		switch mode % 4 {
		case 0:
			script = "return redis.call('fuzzreply', ARGV[1])"
		case 1:
			script = "return redis.pcall('fuzzreply', ARGV[1])"
		case 2:
			script = "local r = redis.pcall('fuzzreply', ARGV[1]) return {r, type(r), r}"
		default:
			script = "return " + genLua(&byteSrc{b: data}, 0)
		}
		script = fmt.Sprintf("redis.setresp(%d) %s", scriptResp, script)
		s := ts.newSession()
		defer ts.e.RemoveSession(s)
		run := func(args ...string) []byte {
			bargs := make([][]byte, len(args))
			for i, a := range args {
				bargs[i] = []byte(a)
			}
			enc := resp.Encoder{Proto: s.Proto}
			ts.e.Dispatch(s, nil, bargs, &enc)
			return enc.Buf
		}
		if caller == 3 {
			run("HELLO", "3")
		}
		out := run("EVAL", script, "0", string(data))
		rest, err := resp.CheckReply(out, s.Proto == 3)
		if err != nil || len(rest) != 0 {
			t.Fatalf("script %q, data %q, caller RESP%d: reply %q: %v (left %q)", script, data, caller, out, err, rest)
		}
		if bytes.Contains(out, []byte(engine.ErrPanic.Error())) {
			t.Fatalf("script %q, data %q: %q", script, data, out)
		}
	})
}

// byteSrc hands out the fuzz bytes, then zeros.
type byteSrc struct{ b []byte }

func (s *byteSrc) next() byte {
	if len(s.b) == 0 {
		return 0
	}
	c := s.b[0]
	s.b = s.b[1:]
	return c
}

func (s *byteSrc) str() string {
	n := min(int(s.next()%16), len(s.b))
	out := string(s.b[:n])
	s.b = s.b[n:]
	return out
}

func (s *byteSrc) u64() uint64 {
	var b [8]byte
	for i := range b {
		b[i] = s.next()
	}
	return binary.BigEndian.Uint64(b[:])
}

// writeTree writes one reply made from src, using every Writer method.
func writeTree(w engine.Writer, src *byteSrc, depth int) {
	op := src.next() % 16
	if depth >= 6 && op >= 5 && op <= 8 {
		op = 3
	}
	switch op {
	case 0:
		w.Status(src.str())
	case 1:
		w.Error(src.str())
	case 2:
		w.Int(int64(src.u64()))
	case 3:
		w.BulkString(src.str())
	case 4:
		w.Null()
	case 5, 6, 7, 8:
		n := int(src.next() % 4)
		switch op {
		case 5:
			w.Array(n)
		case 6:
			w.Map(n)
			n *= 2
		case 7:
			w.Set(n)
		case 8:
			w.Push(n)
		}
		for range n {
			writeTree(w, src, depth+1)
		}
	case 9:
		w.NullArray()
	case 10:
		w.Bool(src.next()&1 == 1)
	case 11:
		w.Double(math.Float64frombits(src.u64()))
	case 12:
		w.Verbatim(src.str(), src.str())
	case 13:
		w.BigNumber(strconv.FormatUint(src.u64(), 10))
	case 14:
		w.Bulk([]byte(src.str()))
	default:
		w.Double([]float64{math.Inf(1), math.Inf(-1), math.NaN(), 0, math.Copysign(0, -1), 1e300}[src.next()%6])
	}
}

// luaString is s as a Lua literal.
func luaString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&b, "\\%03d", s[i])
	}
	b.WriteByte('"')
	return b.String()
}

// genLua makes a Lua expression from src: the values a script can return.
func genLua(src *byteSrc, depth int) string {
	op := src.next() % 20
	if depth >= 5 && op >= 6 {
		op %= 6
	}
	switch op {
	case 0:
		return luaString(src.str())
	case 1:
		return []string{"0", "-1", "1.5", "-2.5", "0/0", "1/0", "-1/0", "2^63", "-2^63", "2^53+1", "1e308*10"}[src.next()%11]
	case 2:
		return strconv.FormatInt(int64(src.u64()), 10)
	case 3:
		return []string{"true", "false", "nil"}[src.next()%3]
	case 4:
		return "redis.status_reply(" + luaString(src.str()) + ")"
	case 5:
		return "redis.error_reply(" + luaString(src.str()) + ")"
	case 6:
		return "{ok=" + genLua(src, depth+1) + "}"
	case 7:
		return "{err=" + genLua(src, depth+1) + "}"
	case 8:
		return "{double=" + genLua(src, depth+1) + "}"
	case 9:
		return "{big_number=" + genLua(src, depth+1) + "}"
	case 10:
		return "{verbatim_string={format=" + genLua(src, depth+1) + ", string=" + genLua(src, depth+1) + "}}"
	case 11, 12:
		key := "map"
		if op == 12 {
			key = "set"
		}
		var b strings.Builder
		b.WriteString("{" + key + "={")
		for range src.next() % 4 {
			fmt.Fprintf(&b, "[%s]=%s,", genLua(src, depth+1), genLua(src, depth+1))
		}
		b.WriteString("}}")
		// A nil or NaN key is a Lua error; wrap so the script still returns.
		return "(function() local ok, v = pcall(function() return " + b.String() + " end) if ok then return v end return v end)()"
	case 13, 14, 15:
		var parts []string
		for range src.next() % 5 {
			parts = append(parts, genLua(src, depth+1))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case 16:
		// A table that holds itself: converting it stops at the depth
		// limit. (Only once: a table holding itself twice, such as
		// t[2] = t t.map = t, doubles the work at every level, 2^1000
		// in all, in Redis too; see the report of the fuzzing work.)
		// Nor one nested in another (888 makes three, depth^3 work).
		return "(function() local t = {" + luaString(src.str()) + "} t[2] = t return t end)()"
	case 17:
		return "redis.pcall('fuzzreply', " + luaString(src.str()) + ")"
	case 18:
		return "redis.pcall(" + luaString(src.str()) + ")"
	default:
		return "{" + genLua(src, depth+1) + ", nil, " + genLua(src, depth+1) + "}"
	}
}
