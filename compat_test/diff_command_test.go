package compat

// COMMAND against redis-server 7.0: every command lockredis registers must
// be described as Redis describes it. COMMAND INFO byte for byte;
// COMMAND DOCS with the summaries blanked (ours are our own words), both in
// RESP2 and in RESP3 (maps, sets, and ~0 for no subcommands). A
// container's subcommands are compared as a set
// restricted to the ones lockredis has: Redis has more, and lists them in
// its hash table's order, which changes from run to run.

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// respNode is a parsed reply that re-encodes to the same bytes.
type respNode struct {
	head  byte   // '*', '%', '$', '+', ':' ...
	line  string // what follows head on its line
	blob  string // a blob's bytes
	elems []*respNode
}

func parseReply(t *testing.T, raw string) *respNode {
	t.Helper()
	n, err := parseRespNode(bufio.NewReader(strings.NewReader(raw)))
	if err != nil {
		t.Fatalf("parsing %q: %v", raw, err)
	}
	return n
}

func parseRespNode(r *bufio.Reader) (*respNode, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	n := &respNode{head: line[0], line: strings.TrimSuffix(line[1:], "\r\n")}
	switch n.head {
	case '$', '=', '!':
		size, _ := strconv.Atoi(n.line)
		if size >= 0 {
			b := make([]byte, size+2)
			if _, err := io.ReadFull(r, b); err != nil {
				return nil, err
			}
			n.blob = string(b[:size])
		}
	case '*', '~', '%', '>':
		count, _ := strconv.Atoi(n.line)
		if n.head == '%' {
			count *= 2
		}
		for i := 0; i < count; i++ {
			e, err := parseRespNode(r)
			if err != nil {
				return nil, err
			}
			n.elems = append(n.elems, e)
		}
	}
	return n, nil
}

func (n *respNode) encode(b *bytes.Buffer) {
	b.WriteByte(n.head)
	switch n.head {
	case '*', '~', '>':
		b.WriteString(strconv.Itoa(len(n.elems)))
	case '%':
		b.WriteString(strconv.Itoa(len(n.elems) / 2))
	case '$':
		if n.line == "-1" {
			b.WriteString("-1\r\n")
			return
		}
		fmt.Fprintf(b, "%d\r\n%s", len(n.blob), n.blob)
	default:
		b.WriteString(n.line)
	}
	b.WriteString("\r\n")
	for _, e := range n.elems {
		e.encode(b)
	}
}

func (n *respNode) String() string {
	var b bytes.Buffer
	n.encode(&b)
	return b.String()
}

// pairs walks a map, RESP3 or RESP2's flat array.
func (n *respNode) pairs(f func(key string, value *respNode)) {
	for i := 0; i+1 < len(n.elems); i += 2 {
		f(n.elems[i].blob, n.elems[i+1])
	}
}

// keepSubcommands restricts a list of COMMAND INFO entries, or a map of
// COMMAND DOCS entries, to the full names lockredis registers, sorted.
func (n *respNode) keepSubcommands(registered map[string]bool, isMap bool) {
	type entry struct {
		name  string
		nodes []*respNode
	}
	var kept []entry
	if isMap {
		for i := 0; i+1 < len(n.elems); i += 2 {
			if name := n.elems[i].blob; registered[name] {
				kept = append(kept, entry{name, n.elems[i : i+2]})
			}
		}
	} else {
		for _, e := range n.elems {
			if registered[e.elems[0].blob] {
				kept = append(kept, entry{e.elems[0].blob, []*respNode{e}})
			}
		}
	}
	sort.Slice(kept, func(i, j int) bool { return kept[i].name < kept[j].name })
	n.elems = nil
	for _, e := range kept {
		n.elems = append(n.elems, e.nodes...)
	}
}

// blankDocs empties the summary of a COMMAND DOCS entry and its
// subcommands', and restricts the subcommands to registered ones.
func blankDocs(doc *respNode, registered map[string]bool) {
	doc.pairs(func(k string, v *respNode) {
		switch k {
		case "summary":
			v.blob = ""
		case "subcommands":
			v.keepSubcommands(registered, true)
			v.pairs(func(_ string, sub *respNode) { blankDocs(sub, registered) })
		}
	})
}

// commandPair connects to both servers in one protocol version and lists
// what lockredis registers.
func commandPair(t *testing.T, proto string) (redis, lock *rawConn, names []string, registered map[string]bool) {
	p := newDiffPair(t, "")
	redis, lock = dialRaw(t, p.redisAddr), dialRaw(t, p.lockAddr)
	if proto == "3" {
		redis.do(t, "HELLO", "3")
		lock.do(t, "HELLO", "3")
	}
	list := parseReply(t, lock.do(t, "COMMAND", "LIST"))
	registered = map[string]bool{}
	for _, e := range list.elems {
		names = append(names, e.blob)
		registered[e.blob] = !notInRedis70(e.blob)
	}
	sort.Strings(names)
	return redis, lock, names, registered
}

// newerThanRedis70 are the commands lockredis has from later versions:
// redis-server 7.0 does not know them. (SET's IFEQ/IFNE/IFDEQ/IFDNE are
// not in SET's COMMAND DOCS, which stays Redis 7.0's.)
var newerThanRedis70 = map[string]bool{
	"waitaof": true, "client|setinfo": true, "client|no-touch": true,
	"delex": true, "digest": true, "delifeq": true, // Redis 8.4, Valkey 9.0: see delex_test.go
	// Hash field expiry, Redis 7.4 and 8.0: see hashttl_test.go.
	"hexpire": true, "hpexpire": true, "hexpireat": true, "hpexpireat": true,
	"httl": true, "hpttl": true, "hexpiretime": true, "hpexpiretime": true,
	"hpersist": true, "hgetdel": true, "hgetex": true, "hsetex": true,
}

// notInRedis70 reports whether redis-server 7.0 lacks a command lockredis
// has: a newer Redis's, or lockredis's own (LOCK.*).
func notInRedis70(name string) bool {
	return newerThanRedis70[name] || strings.HasPrefix(name, "lock.")
}

func TestCommandInfoMatchesRedis(t *testing.T) {
	for _, proto := range []string{"2", "3"} {
		t.Run("RESP"+proto, func(t *testing.T) {
			redis, lock, names, registered := commandPair(t, proto)
			for _, name := range names {
				if notInRedis70(name) {
					continue
				}
				r := parseReply(t, redis.do(t, "COMMAND", "INFO", name))
				l := parseReply(t, lock.do(t, "COMMAND", "INFO", name))
				if len(r.elems) == 1 && len(r.elems[0].elems) == 10 {
					r.elems[0].elems[9].keepSubcommands(registered, false)
					l.elems[0].elems[9].keepSubcommands(registered, false)
				}
				if r.String() != l.String() {
					t.Errorf("COMMAND INFO %s\n\tredis:     %q\n\tlockredis: %q", name, r, l)
				}
			}
		})
	}
}

func TestCommandDocsMatchRedis(t *testing.T) {
	for _, proto := range []string{"2", "3"} {
		t.Run("RESP"+proto, func(t *testing.T) {
			redis, lock, names, registered := commandPair(t, proto)
			for _, name := range names {
				if notInRedis70(name) {
					continue
				}
				r := parseReply(t, redis.do(t, "COMMAND", "DOCS", name))
				l := parseReply(t, lock.do(t, "COMMAND", "DOCS", name))
				if len(r.elems) != 2 || len(l.elems) != 2 {
					t.Errorf("COMMAND DOCS %s\n\tredis:     %q\n\tlockredis: %q", name, r, l)
					continue
				}
				blankDocs(r.elems[1], registered)
				blankDocs(l.elems[1], registered)
				if r.String() != l.String() {
					t.Errorf("COMMAND DOCS %s (summaries blanked)\n\tredis:     %q\n\tlockredis: %q", name, r, l)
				}
			}
		})
	}
}

// TestCommandSummariesAreOurs: a summary copied from Redis is a mistake.
func TestCommandSummariesAreOurs(t *testing.T) {
	redis, lock, names, _ := commandPair(t, "3")
	summary := func(c *rawConn, name string) string {
		var s string
		reply := parseReply(t, c.do(t, "COMMAND", "DOCS", name))
		if len(reply.elems) == 2 {
			reply.elems[1].pairs(func(k string, v *respNode) {
				if k == "summary" {
					s = v.blob
				}
			})
		}
		return s
	}
	for _, name := range names {
		ours := summary(lock, name)
		if ours == "" {
			t.Errorf("%s has no summary", name)
		} else if ours == summary(redis, name) {
			t.Errorf("%s's summary is Redis's: %q", name, ours)
		}
	}
}

// TestCommandListByCategory: COMMAND LIST FILTERBY ACLCAT agrees with
// Redis on the commands lockredis has, for every category.
func TestCommandListByCategory(t *testing.T) {
	redis, lock, _, registered := commandPair(t, "2")
	cats := parseReply(t, redis.do(t, "ACL", "CAT"))
	if len(cats.elems) < 20 {
		t.Fatalf("ACL CAT: %s", cats)
	}
	for _, cat := range append(cats.elems, &respNode{blob: "nosuchcategory"}) {
		names := func(c *rawConn) []string {
			var out []string
			for _, e := range parseReply(t, c.do(t, "COMMAND", "LIST", "FILTERBY", "ACLCAT", cat.blob)).elems {
				if registered[e.blob] {
					out = append(out, e.blob)
				}
			}
			sort.Strings(out)
			return out
		}
		if r, l := strings.Join(names(redis), " "), strings.Join(names(lock), " "); r != l {
			t.Errorf("COMMAND LIST FILTERBY ACLCAT %s\n\tredis:     %s\n\tlockredis: %s", cat.blob, r, l)
		}
	}
}

func TestCommandGetkeysMatchesRedis(t *testing.T) {
	var lines []any
	for _, sub := range []string{"GETKEYS", "GETKEYSANDFLAGS"} {
		for _, line := range []string{
			"get k", "set k v", "set k v GET", "set k v ex 10 get", "mset a 1 b 2", "mset a 1 b",
			"msetnx a 1 b 2 c 3", "del a b c", "exists a b",
			"eval 'return 1' 2 a b c", "eval 'return 1' 0", "eval 'return 1' 0 x", "eval 'return 1' 5 a",
			"eval 'return 1' -1 a", "eval 'return 1' x a", "eval 'return 1' 2x a b c", "evalsha abc 1 k",
			"eval_ro 'return 1' 1 k", "evalsha_ro abc 1 k",
			"zadd z 1 m", "zrange z 0 -1", "lmove a b left right", "rpoplpush a b",
			"blpop a b 0", "brpop a 1", "blmove a b left left 0", "brpoplpush a b 0",
			"rename a b", "renamenx a b", "copy a b", "smove a b m", "move a 1",
			"object encoding k", "object freq k", "object help", "watch a b", "touch a",
			"expire k 10", "getex k persist", "hset h f v", "sadd s m", "lpush l a",
			"ssubscribe a b", "spublish a m", "sunsubscribe a",
			"ping", "ping x", "publish c m", "subscribe c", "nosuch k", "client list", "client setname x",
			"get", "get a b", "script load x", "config get x",
		} {
			lines = append(lines, "COMMAND "+sub+" "+line)
		}
	}
	runDiffCases(t, []diffCase{{name: "getkeys", steps: steps(lines...)}})
}
