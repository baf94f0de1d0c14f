package engine

import (
	"fmt"
	"strings"
	"testing"
)

func TestCommandInfo(t *testing.T) {
	te := newTestEngine(t)
	const get = `["get" (integer) 2 [readonly fast] (integer) 1 (integer) 1 (integer) 1 [@read @string @fast] [] ` +
		`[["flags" [RO access] "begin_search" ["type" "index" "spec" ["index" (integer) 1]] ` +
		`"find_keys" ["type" "range" "spec" ["lastkey" (integer) 0 "keystep" (integer) 1 "limit" (integer) 0]]]] []]`
	const setname = `["client|setname" (integer) 3 [noscript loading stale] (integer) 0 (integer) 0 (integer) 0 [@slow @connection] [] [] []]`
	te.run([]step{
		{cmd("COMMAND", "INFO", "get"), "[" + get + "]"},
		{cmd("COMMAND", "INFO", "GET", "nosuch", "get|x", "client setname"), "[" + get + " (nil) (nil) (nil)]"},
		{cmd("COMMAND", "INFO", "echo"), `[["echo" (integer) 2 [loading stale fast] (integer) 0 (integer) 0 (integer) 0 [@fast @connection] [] [] []]]`},
		{cmd("COMMAND", "INFO", "hello"), `[["hello" (integer) -1 [noscript loading stale fast no_auth allow_busy] (integer) 0 (integer) 0 (integer) 0 [@fast @connection] [] [] []]]`},
		{cmd("COMMAND", "INFO", "time"), `[["time" (integer) 1 [loading stale fast] (integer) 0 (integer) 0 (integer) 0 [@fast] ["nondeterministic_output"] [] []]]`},
		{cmd("COMMAND", "INFO", "flushall"), `[["flushall" (integer) -1 [write] (integer) 0 (integer) 0 (integer) 0 [@keyspace @write @slow @dangerous] ["request_policy:all_shards" "response_policy:all_succeeded"] [] []]]`},
		{cmd("COMMAND", "INFO", "CLIENT|ID"), `[["client|id" (integer) 2 [noscript loading stale] (integer) 0 (integer) 0 (integer) 0 [@slow @connection] [] [] []]]`},
		{cmd("COMMAND", "COUNT", "x"), "(error) ERR wrong number of arguments for 'command|count' command"},
		{cmd("COMMAND", "FOO"), "(error) ERR unknown subcommand 'FOO'. Try COMMAND HELP."},
	})
	te.run([]step{{cmd("COMMAND", "INFO", "client|setname"), "[" + setname + "]"}})

	// A container lists its subcommands, rendered the same way.
	client := te.do("COMMAND", "INFO", "client").Elems[0]
	if client.Elems[0].Str != "client" || client.Elems[1].Int != -2 || len(client.Elems[9].Elems) != len(te.Table.Get([]byte("client")).Subcommands) {
		t.Errorf("COMMAND INFO client: %s", client)
	}
	if got := client.Elems[6].String(); got != "[@slow]" {
		t.Errorf("client categories %s, want [@slow]", got)
	}
}

func TestCommandAll(t *testing.T) {
	te := newTestEngine(t)
	n := len(te.Table.All())
	te.run([]step{{cmd("COMMAND", "COUNT"), fmt.Sprintf("(integer) %d", n)}})
	for _, args := range [][]string{cmd("COMMAND"), cmd("COMMAND", "INFO")} {
		all := te.do(args...)
		if len(all.Elems) != n {
			t.Fatalf("%q lists %d commands, want %d", args, len(all.Elems), n)
		}
		for _, c := range all.Elems {
			if c.Kind != KindArray || len(c.Elems) != 10 || c.Elems[0].Kind != KindBulk || c.Elems[1].Kind != KindInt ||
				c.Elems[2].Kind != KindSet || c.Elems[3].Kind != KindInt || c.Elems[6].Kind != KindSet {
				t.Fatalf("bad entry %s", c)
			}
		}
	}
	list := te.do("COMMAND", "LIST")
	subs := 0
	for _, c := range te.Table.All() {
		subs += len(c.Subcommands)
	}
	if len(list.Elems) != n+subs {
		t.Errorf("COMMAND LIST has %d names, want %d", len(list.Elems), n+subs)
	}
	help := te.do("COMMAND", "HELP")
	if len(help.Elems) != 21 || help.Elems[0].Kind != KindStatus {
		t.Errorf("COMMAND HELP: %s", help)
	}
}

func TestCommandList(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("COMMAND", "LIST", "x"), "(error) ERR syntax error"},
		{cmd("COMMAND", "LIST", "FILTERBY"), "(error) ERR syntax error"},
		{cmd("COMMAND", "LIST", "FILTERBY", "pattern"), "(error) ERR syntax error"},
		{cmd("COMMAND", "LIST", "FILTERBY", "pattern", "x", "y"), "(error) ERR syntax error"},
		{cmd("COMMAND", "LIST", "FILTERBY", "foo", "x"), "(error) ERR syntax error"},
		{cmd("COMMAND", "LIST", "FILTERBY", "module", "x"), "[]"},
		{cmd("COMMAND", "LIST", "FILTERBY", "aclcat", "nosuch"), "[]"},
		{cmd("COMMAND", "LIST", "FILTERBY", "pattern", "ec*"), `["echo"]`},
		{cmd("COMMAND", "LIST", "FILTERBY", "PATTERN", "CONFIG|G*"), `["config|get"]`},
		{cmd("COMMAND", "LIST", "filterby", "pattern", "config*"), `["config" "config|get" "config|set" "config|resetstat" "config|rewrite" "config|help"]`},
	})
	conn := te.do("COMMAND", "LIST", "FILTERBY", "aclcat", "CONNECTION")
	names := map[string]bool{}
	for _, e := range conn.Elems {
		names[e.Str] = true
	}
	for _, want := range []string{"ping", "echo", "auth", "hello", "client|setname", "command|info", "wait"} {
		if !names[want] {
			t.Errorf("aclcat connection misses %s: %s", want, conn)
		}
	}
	if names["get"] || names["client"] {
		t.Errorf("aclcat connection lists too much: %s", conn)
	}
}

func TestCommandDocs(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("COMMAND", "DOCS", "nosuch"), "[]"},
		{cmd("COMMAND", "DOCS", "get", "nosuch"), `["get" ["summary" "Reads the string stored at a key." "since" "1.0.0" "group" "string" "complexity" "O(1)" "arguments" [["name" "key" "type" "key" "key_spec_index" (integer) 0]]]]`},
		{cmd("COMMAND", "DOCS", "client|id"), `["client|id" ["summary" "Reports the unique id of the current connection." "since" "5.0.0" "group" "connection" "complexity" "O(1)"]]`},
	})
	cfg := te.do("COMMAND", "DOCS", "config")
	if cfg.Kind != KindMap || len(cfg.Elems) != 2 || len(cfg.Elems[1].Elems) != 10 || cfg.Elems[1].Elems[8].Str != "subcommands" {
		t.Fatalf("COMMAND DOCS config: %s", cfg)
	}
	if subs := cfg.Elems[1].Elems[9]; subs.Kind != KindMap || len(subs.Elems) != 10 || subs.Elems[0].Str != "config|get" {
		t.Errorf("config subcommands: %s", subs)
	}
	all := te.do("COMMAND", "DOCS")
	if all.Kind != KindMap || len(all.Elems) != 2*len(te.Table.All()) {
		t.Errorf("COMMAND DOCS lists %d entries", len(all.Elems)/2)
	}
}

func TestCommandGetkeys(t *testing.T) {
	te := newTestEngine(t)
	te.Table.RegisterWith(otherSpecs(t),
		&Command{Name: "eval", Handler: func(c *Call) { c.OK() }},
	)
	te.run([]step{
		{cmd("COMMAND", "GETKEYS"), "(error) ERR wrong number of arguments for 'command|getkeys' command"},
		{cmd("COMMAND", "GETKEYS", "get"), "(error) ERR wrong number of arguments for 'command|getkeys' command"},
		{cmd("COMMAND", "GETKEYS", "get", "k"), `["k"]`},
		{cmd("COMMAND", "GETKEYS", "GET", "k"), `["k"]`},
		{cmd("COMMAND", "GETKEYS", "set", "a", "b"), `["a"]`},
		{cmd("COMMAND", "GETKEYS", "del", "a", "b", "c"), `["a" "b" "c"]`},
		{cmd("COMMAND", "GETKEYS", "mset", "a", "b", "c"), `["a" "c"]`},
		{cmd("COMMAND", "GETKEYS", "mset", "a"), "(error) ERR Invalid number of arguments specified for command"},
		{cmd("COMMAND", "GETKEYS", "get", "a", "b"), "(error) ERR Invalid number of arguments specified for command"},
		{cmd("COMMAND", "GETKEYS", "nosuch", "k"), "(error) ERR Invalid command specified"},
		{cmd("COMMAND", "GETKEYS", "ping", "x"), "(error) ERR The command has no key arguments"},
		{cmd("COMMAND", "GETKEYS", "client", "x"), "(error) ERR Invalid command specified"},
		{cmd("COMMAND", "GETKEYS", "CLIENT", "setname"), "(error) ERR The command has no key arguments"},
		{cmd("COMMAND", "GETKEYS", "client", "list"), "(error) ERR The command has no key arguments"},
		{cmd("COMMAND", "GETKEYS", "eval", "return 1", "2", "a", "b", "c"), `["a" "b"]`},
		{cmd("COMMAND", "GETKEYS", "eval", "return 1", "0"), "[]"},
		{cmd("COMMAND", "GETKEYS", "eval", "return 1", "5", "a"), "[]"},
		{cmd("COMMAND", "GETKEYS", "eval", "return 1", "-1", "a"), "[]"},
		{cmd("COMMAND", "GETKEYS", "eval", "return 1", "x", "a"), "[]"},
		{cmd("COMMAND", "GETKEYSANDFLAGS", "get", "a"), `[["a" [RO access]]]`},
		{cmd("COMMAND", "GETKEYSANDFLAGS", "del", "a", "b"), `[["a" [RM delete]] ["b" [RM delete]]]`},
	})
	eval := te.do("COMMAND", "INFO", "eval").Elems[0]
	if got := eval.Elems[2].String(); !strings.Contains(got, "movablekeys") {
		t.Errorf("eval flags %s lack movablekeys", got)
	}
	if got := eval.Elems[8].String(); !strings.Contains(got, `"keynum"`) {
		t.Errorf("eval key specs %s", got)
	}
}
