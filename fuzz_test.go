package lockredis

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lockredis/lockredis/engine"
	"github.com/lockredis/lockredis/luasvc"
	"github.com/lockredis/lockredis/pubsub"
	"github.com/lockredis/lockredis/resp"
)

// FuzzDispatch runs fuzz-made command sequences through engine.Dispatch,
// the one door of every command, on a fresh in-memory engine with the
// scripting and pub/sub commands registered and keys of every type and
// encoding already there. Each command is chosen from the command table
// (subcommands included) by a byte, for one of two clients, with
// arguments drawn from the keys, option words, numbers and raw bytes;
// scripts come from a small dictionary (some run the fuzzed arguments
// through redis.call) or from raw bytes. No command may panic (a panic
// leaves Dispatch) or answer with engine.ErrPanic's text, and each writes
// one well-formed reply in its client's protocol (pub/sub commands and
// EXEC may write several pushes). Blocking commands that block are
// cancelled at once, as on a time-out; pauses never hold (the sessions'
// Done is closed).
//
//	go test -run '^$' -fuzz '^FuzzDispatch$' -fuzztime 5m .
func FuzzDispatch(f *testing.F) {
	names := dispatchCommandNames(f)
	index := func(name string) byte {
		for i, n := range names {
			if n == name {
				return byte(i)
			}
		}
		f.Fatalf("no command %s", name)
		return 0
	}
	// A seed is a program: per command its index (bit 7 of... see
	// decodeProgram), the argument count and tagged arguments.
	prog := func(cmds ...[]byte) []byte { return bytes.Join(cmds, nil) }
	c := func(name string, args ...byte) []byte {
		return append([]byte{index(name), byte(len(args) / 2)}, args...)
	}
	const key, word, num, raw = 1, 2, 3, 0
	f.Add(prog(c("set", key, 0, raw, 'v', word, 0, num, 3)))
	f.Add(prog(c("multi"), c("hset", key, 2, word, 1, num, 4), c("exec")))
	f.Add(prog(c("hello", num, 5), c("zrange", key, 8, num, 0, num, 2, word, 6)))
	f.Add(prog(c("eval", raw, 0, num, 1, key, 3), c("evalsha", raw, 1, num, 0)))
	f.Add(prog(c("eval", raw, 3, num, 0, word, 3, key, 1)))
	f.Add(prog(c("blpop", key, 4, num, 0), c("client|pause", num, 6)))
	f.Add(prog(c("publish", key, 0, raw, 'm'), c("subscribe", key, 0), c("unsubscribe")))
	f.Add(prog(c("watch", key, 0), c("set", key, 0, num, 1), c("multi"), c("get", key, 0), c("exec")))
	f.Add(prog(c("object|encoding", key, 9), c("srandmember", key, 6, num, 2), c("spop", key, 7)))
	f.Fuzz(func(t *testing.T, data []byte) {
		runProgram(t, names, data)
	})
}

// dispatchCommandNames lists the full names of every command a server
// has, sorted: "get", "client|pause".
func dispatchCommandNames(tb testing.TB) []string {
	eng, _, _ := dispatchEngine(tb, true)
	defer eng.Close()
	var names []string
	for _, c := range eng.Table.All() {
		if len(c.Subcommands) == 0 {
			names = append(names, c.Name)
		}
		for _, sc := range c.Subcommands {
			names = append(names, c.Name+"|"+sc.Name)
		}
	}
	return names
}

var (
	fuzzKeys  = []string{"str", "int", "hash", "bighash", "list", "set", "intset", "bigset", "zset", "bigzset", "ttl", "missing", "{str}x"}
	fuzzWords = []string{"NX", "XX", "GT", "LT", "CH", "INCR", "EX", "PX", "EXAT", "PXAT", "KEEPTTL", "GET",
		"WITHSCORES", "LIMIT", "BYSCORE", "BYLEX", "REV", "COUNT", "MATCH", "TYPE", "WITHVALUES", "LEFT",
		"RIGHT", "BEFORE", "AFTER", "RANK", "MAXLEN", "ON", "OFF", "SKIP", "BCAST", "PREFIX", "REDIRECT",
		"OPTIN", "OPTOUT", "NOLOOP", "YES", "NO", "ALL", "WRITE", "ID", "ADDR", "LADDR", "USER", "SETNAME",
		"AUTH", "default", "FILTERBY", "MODULE", "ACLCAT", "PATTERN", "IFEQ", "IFNE", "IFDEQ", "IFDNE",
		"ABSTTL", "IDLETIME", "FREQ", "REPLACE", "DB", "ASYNC", "SYNC", "FLUSH", "LOAD", "EXISTS", "KILL",
		"maxmemory", "*", "lua-time-limit", "hash-max-listpack-entries", "appendonly", "m", "a", "f"}
	fuzzNums = []string{"0", "1", "-1", "2", "3", "10", "100", "-100", "1.5", "-0", "inf", "-inf", "+inf", "nan",
		"9223372036854775807", "-9223372036854775808", "18446744073709551616", "(1", "[a", "-", "+", "", "1e400",
		"0.000001", "4294967296", "600", "1000000000000", "0x10", " 1", "1 "}
	fuzzScripts = []string{
		"return redis.call('GET', KEYS[1])",
		"return redis.pcall(unpack(ARGV))",
		"redis.setresp(3) return redis.pcall(unpack(ARGV))",
		"return redis.call(unpack(ARGV))",
		"redis.setresp(3) return redis.call('HGETALL', KEYS[1])",
		"return {1, 'two', {3, false}, redis.status_reply('OK'), {double=1.5}}",
		"return ARGV",
		"redis.setresp(3) return {map={a=1}, set={b=true}, big_number='12', verbatim_string={format='txt', string='x'}}",
		"return redis.call('SET', KEYS[1], ARGV[1] or 'x', 'PX', 100000)",
		"local r = redis.pcall('PUBLISH', KEYS[1] or 'c', ARGV[1] or 'm') return r",
		"return redis.sha1hex(ARGV[1] or '')",
		"return cjson.encode(redis.pcall(unpack(ARGV)))",
	}
)

// dispatchEngine makes an engine as Server.Start assembles it, with the
// scripting commands when lua is set (registering them costs most of the
// setup, so programs without a script skip it).
func dispatchEngine(tb testing.TB, lua bool) (*engine.Engine, *pubsub.Hub, *luasvc.Service) {
	eng, err := engine.New(engine.Config{Clock: engine.NewManualClock(time.Unix(1700000000, 0))})
	if err != nil {
		tb.Fatal(err)
	}
	hub := pubsub.NewHub(pubsub.Limits{}, nil)
	pubsub.Register(eng, hub)
	var svc *luasvc.Service
	if lua {
		svc = luasvc.Register(eng, luasvc.Options{TimeLimit: 500 * time.Millisecond})
	}
	return eng, hub, svc
}

// fuzzStep is one decoded command.
type fuzzStep struct {
	second bool // run by the second client
	args   []string
}

// decodeProgram reads up to 12 commands from data: per command a byte
// choosing the command (and, by bit 7 of the next, the client), a byte
// whose low 3 bits are the argument count, then per argument a tag byte
// (0 raw bytes: a length byte and the bytes, 1 key, 2 word, 3 number, by
// the next byte). EVAL-like commands take their script from
// fuzzScripts when its tag is raw with a length above 15.
func decodeProgram(names []string, data []byte) (steps []fuzzStep, lua bool) {
	next := func() byte {
		if len(data) == 0 {
			return 0
		}
		b := data[0]
		data = data[1:]
		return b
	}
	for len(data) > 0 && len(steps) < 12 {
		name := names[int(next())%len(names)]
		n := next()
		st := fuzzStep{second: n&0x80 != 0}
		st.args = strings.Split(name, "|")
		for range n & 7 {
			var a string
			switch tag := next(); tag % 4 {
			case 0:
				l := int(next())
				if l >= 16 && len(st.args) == 1 && strings.HasPrefix(name, "eval") {
					s := fuzzScripts[l%len(fuzzScripts)]
					if strings.HasPrefix(name, "evalsha") {
						sum := sha1.Sum([]byte(s))
						s = hex.EncodeToString(sum[:])
					}
					a = s
					break
				}
				l = min(l%16, len(data))
				a, data = string(data[:l]), data[l:]
			case 1:
				a = fuzzKeys[int(next())%len(fuzzKeys)]
			case 2:
				a = fuzzWords[int(next())%len(fuzzWords)]
			default:
				a = fuzzNums[int(next())%len(fuzzNums)]
			}
			st.args = append(st.args, a)
		}
		if strings.HasPrefix(name, "eval") || strings.HasPrefix(name, "script") {
			lua = true
		}
		steps = append(steps, st)
	}
	return steps, lua
}

// fuzzSetup creates the keys the programs work on: every type, in its
// small and large encodings.
func fuzzSetup() [][]string {
	big := func(cmd, key string, n int, member func(i int) []string) []string {
		args := []string{cmd, key}
		for i := range n {
			args = append(args, member(i)...)
		}
		return args
	}
	setup := [][]string{
		{"SET", "str", "hello"}, {"SET", "int", "42"}, {"SET", "ttl", "v", "PX", "100000"}, {"SET", "{str}x", "v"},
		{"HSET", "hash", "f", "v", "n", "1", "x", "1.5"},
		big("HSET", "bighash", 600, func(i int) []string { return []string{"f" + strconv.Itoa(i), "v"} }),
		{"RPUSH", "list", "a", "b", "c", "a"},
		{"SADD", "set", "a", "b", "c"}, {"SADD", "intset", "1", "2", "-3"},
		big("SADD", "bigset", 600, func(i int) []string { return []string{strconv.Itoa(i)} }),
		{"ZADD", "zset", "1", "a", "2", "b", "2", "c", "inf", "d"},
		big("ZADD", "bigzset", 200, func(i int) []string { return []string{strconv.Itoa(i % 7), "m" + strconv.Itoa(i)} }),
	}
	for _, s := range fuzzScripts {
		setup = append(setup, []string{"SCRIPT", "LOAD", s})
	}
	return setup
}

var fuzzSetupCmds = fuzzSetup()

func runProgram(t *testing.T, names []string, data []byte) {
	steps, lua := decodeProgram(names, data)
	if len(steps) == 0 {
		return
	}
	eng, hub, _ := dispatchEngine(t, lua)
	defer eng.Close()
	defer hub.Close()
	done := make(chan struct{})
	close(done) // a pause never holds these clients
	newSession := func() *engine.Session {
		s := engine.NewSession(engine.KindClient)
		s.Done = done
		eng.AddSession(s)
		return s
	}
	clients := [2]*engine.Session{newSession(), newSession()}
	run := func(s *engine.Session, args []string) []byte {
		bargs := make([][]byte, len(args))
		for i, a := range args {
			bargs[i] = []byte(a)
		}
		enc := resp.Encoder{Proto: s.Proto}
		eng.Dispatch(s, nil, bargs, &enc)
		if b := s.Blocked; b != nil {
			s.Blocked = nil
			if b.Cancel() {
				b.TimeoutReply.Replay(&enc)
			} else {
				b.Reply().Replay(&enc)
			}
		}
		eng.Unpause()
		return enc.Buf
	}
	for _, args := range fuzzSetupCmds {
		if !lua && args[0] == "SCRIPT" {
			continue
		}
		if out := run(clients[0], args); bytes.HasPrefix(out, []byte("-")) {
			t.Fatalf("setup %q: %q", args, out)
		}
	}
	pushes := [2]bool{} // a pub/sub command was queued in MULTI
	for _, st := range steps {
		i := 0
		if st.second {
			i = 1
		}
		s := clients[i]
		cmd := eng.Table.Lookup([][]byte{[]byte(st.args[0]), []byte(strings.Join(st.args[1:min(2, len(st.args))], ""))})
		if len(st.args) == 1 {
			cmd = eng.Table.Get([]byte(st.args[0]))
		}
		several := cmd != nil && (cmd.Flags.Has(engine.FlagPubSub) || cmd.Name == "exec" && pushes[i])
		if cmd != nil && s.InMulti() && cmd.Flags.Has(engine.FlagPubSub) {
			pushes[i] = true
		}
		out := run(s, st.args)
		if !s.InMulti() {
			pushes[i] = false
		}
		resp3 := s.Proto == 3 || bytes.Contains(out, []byte("%")) // HELLO 3 answers in RESP3
		count := 0
		for rest := out; len(rest) > 0 || count == 0; count++ {
			next, err := resp.CheckReply(rest, resp3)
			if err != nil {
				t.Fatalf("program %q, command %q: reply %q: %v", data, st.args, out, err)
			}
			rest = next
		}
		if count > 1 && !several {
			t.Fatalf("program %q, command %q: %d replies %q", data, st.args, count, out)
		}
		if bytes.Contains(out, []byte(engine.ErrPanic.Error())) {
			t.Fatalf("program %q, command %q: %q", data, st.args, out)
		}
		if s.CloseAfterReply { // QUIT, CLIENT KILL of itself
			eng.RemoveSession(s)
			clients[i] = newSession()
		}
	}
}
