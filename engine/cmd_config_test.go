package engine

import (
	"os"
	"strings"
	"testing"
)

func TestConfigGet(t *testing.T) {
	te := newTestEngineConfig(t, Config{RequirePass: "pw", Databases: 4, Params: map[string]string{
		"port": "7000", "appendonly": "yes", "save": "", "lua-time-limit": "200",
		"custom-param": "x", "config_file": "/etc/lr.conf",
	}})
	wd, _ := os.Getwd()
	te.run([]step{
		{cmd("CONFIG"), "(error) ERR wrong number of arguments for 'config' command"},
		{cmd("CONFIG", "FOO"), "(error) ERR unknown subcommand 'FOO'. Try CONFIG HELP."},
		{cmd("CONFIG", "GET"), "(error) ERR wrong number of arguments for 'config|get' command"},
		{cmd("CONFIG", "GET", "nosuch"), "[]"},
		{cmd("CONFIG", "GET", "save"), `["save" ""]`},
		{cmd("CONFIG", "GET", "SAVE"), `["SAVE" ""]`},
		{cmd("CONFIG", "GET", "save", "save"), `["save" ""]`},
		{cmd("CONFIG", "GET", "appendonly", "save"), `["appendonly" "yes" "save" ""]`},
		{cmd("CONFIG", "GET", "port", "databases", "requirepass"), `["port" "7000" "databases" "4" "requirepass" "pw"]`},
		// aliases share one value
		{cmd("CONFIG", "GET", "busy-reply-threshold", "lua-time-limit"), `["busy-reply-threshold" "200" "lua-time-limit" "200"]`},
		// defaults as redis-server 7.0 reports them
		{cmd("CONFIG", "GET", "maxmemory", "maxmemory-policy", "timeout", "appendfsync", "notify-keyspace-events", "bind", "maxclients"),
			`["maxmemory" "0" "maxmemory-policy" "noeviction" "timeout" "0" "appendfsync" "everysec" "notify-keyspace-events" "" "bind" "* -::*" "maxclients" "10000"]`},
		{cmd("CONFIG", "GET", "hz", "tcp-keepalive", "proto-max-bulk-len", "client-query-buffer-limit", "loglevel", "logfile", "protected-mode"),
			`["hz" "10" "tcp-keepalive" "300" "proto-max-bulk-len" "536870912" "client-query-buffer-limit" "1073741824" "loglevel" "notice" "logfile" "" "protected-mode" "yes"]`},
		{cmd("CONFIG", "GET", "dir"), `["dir" "` + wd + `"]`},
		// patterns match case-insensitively, each parameter once
		{cmd("CONFIG", "GET", "maxmemory*"), `["maxmemory" "0" "maxmemory-policy" "noeviction" "maxmemory-samples" "5"]`},
		{cmd("CONFIG", "GET", "s?ve"), `["save" ""]`},
		{cmd("CONFIG", "GET", "*VE", "save"), `["save" "" "tcp-keepalive" "300"]`},
		{cmd("CONFIG", "GET", "appendf[is]*"), `["appendfsync" "everysec" "appendfilename" "appendonly.aof"]`},
		// extra params from the assembler; INFO fields are not parameters
		{cmd("CONFIG", "GET", "custom-param"), `["custom-param" "x"]`},
		{cmd("CONFIG", "GET", "config_file"), "[]"},
	})
	all := te.do("CONFIG", "GET", "*")
	if all.Kind != KindMap || len(all.Elems) != 2*(len(configParams)+1) {
		t.Errorf("CONFIG GET * has %d elements, want %d", len(all.Elems), 2*(len(configParams)+1))
	}
	for i := 0; i < len(all.Elems); i += 2 {
		if strings.Contains(all.Elems[i].Str, "_") {
			t.Errorf("CONFIG GET * lists %s", all.Elems[i].Str)
		}
	}
	help := te.do("CONFIG", "HELP")
	if len(help.Elems) != 11 || help.Elems[1].Str != "GET <pattern>" {
		t.Errorf("CONFIG HELP: %s", help)
	}
}

func TestConfigSet(t *testing.T) {
	te := newTestEngine(t)
	failed := func(name, why string) string {
		return "(error) ERR CONFIG SET failed (possibly related to argument '" + name + "') - " + why
	}
	te.run([]step{
		{cmd("CONFIG", "GET", "save"), `["save" ""]`}, // lockredis takes no snapshots
		{cmd("CONFIG", "SET"), "(error) ERR wrong number of arguments for 'config|set' command"},
		{cmd("CONFIG", "SET", "maxmemory"), "(error) ERR wrong number of arguments for 'config|set' command"},
		{cmd("CONFIG", "SET", "hz", "10", "timeout"), "(error) ERR syntax error"},
		{cmd("CONFIG", "SET", "foo", "bar"), "(error) ERR Unknown option or number of arguments for CONFIG SET - 'foo'"},
		{cmd("CONFIG", "SET", "hz", "10", "foo", "11"), "(error) ERR Unknown option or number of arguments for CONFIG SET - 'foo'"},
		{cmd("CONFIG", "SET", "foo", "1", "databases", "2"), "(error) ERR Unknown option or number of arguments for CONFIG SET - 'foo'"},
		{cmd("CONFIG", "SET", "databases", "2", "foo", "1"), failed("databases", "can't set immutable config")},
		{cmd("CONFIG", "SET", "databases", "16"), failed("databases", "can't set immutable config")},
		{cmd("CONFIG", "SET", "logfile", "x"), failed("logfile", "can't set immutable config")},
		{cmd("CONFIG", "SET", "appendfilename", "x"), failed("appendfilename", "can't set immutable config")},
		{cmd("CONFIG", "SET", "dir", "/tmp"), failed("dir", "can't set protected config")},
		{cmd("CONFIG", "SET", "dbfilename", "x.rdb"), failed("dbfilename", "can't set protected config")},
		{cmd("CONFIG", "SET", "timeout", "1", "timeout", "2"), failed("timeout", "duplicate parameter")},
		{cmd("CONFIG", "SET", "save", "1 2", "SAVE", ""), failed("SAVE", "duplicate parameter")},
		{cmd("CONFIG", "SET", "timeout", "abc"), failed("timeout", "argument couldn't be parsed into an integer")},
		{cmd("CONFIG", "SET", "timeout", "+5"), failed("timeout", "argument couldn't be parsed into an integer")},
		{cmd("CONFIG", "SET", "timeout", "05"), failed("timeout", "argument couldn't be parsed into an integer")},
		{cmd("CONFIG", "SET", "timeout", "-1"), failed("timeout", "argument must be between 0 and 2147483647 inclusive")},
		{cmd("CONFIG", "SET", "timeout", "0", "hz", "xyz"), failed("hz", "argument couldn't be parsed into an integer")},
		{cmd("CONFIG", "SET", "maxmemory-samples", "0"), failed("maxmemory-samples", "argument must be between 1 and 2147483647 inclusive")},
		{cmd("CONFIG", "SET", "slowlog-log-slower-than", "-2"), failed("slowlog-log-slower-than", "argument must be between -1 and 9223372036854775807 inclusive")},
		{cmd("CONFIG", "SET", "save", "1 2 3"), failed("save", "Invalid save parameters")},
		{cmd("CONFIG", "SET", "save", "a b"), failed("save", "Invalid save parameters")},
		{cmd("CONFIG", "SET", "loglevel", "foo"), failed("loglevel", "argument(s) must be one of the following: debug, verbose, notice, warning")},
		{cmd("CONFIG", "SET", "protected-mode", "maybe"), failed("protected-mode", "argument must be 'yes' or 'no'")},
		{cmd("CONFIG", "SET", "appendonly", "maybe"), failed("appendonly", "argument must be 'yes' or 'no'")},
		{cmd("CONFIG", "SET", "maxmemory", "foo"), failed("maxmemory", "argument must be a memory value")},
		{cmd("CONFIG", "SET", "proto-max-bulk-len", "1"), failed("proto-max-bulk-len", "argument must be between 1048576 and 9223372036854775807 inclusive")},
		{cmd("CONFIG", "SET", "maxmemory-policy", "foo"), failed("maxmemory-policy", "argument(s) must be one of the following: volatile-lru, volatile-lfu, volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, allkeys-random, noeviction")},
		{cmd("CONFIG", "SET", "appendfsync", "foo"), failed("appendfsync", "argument(s) must be one of the following: everysec, always, no")},
		{cmd("CONFIG", "SET", "port", "abc"), failed("port", "argument couldn't be parsed into an integer")},
		// Harmless tuning knobs are accepted (and have no effect).
		{cmd("CONFIG", "SET", "save", ""), "OK"},
		{cmd("CONFIG", "SET", "save", "900 1"), "OK"},
		{cmd("CONFIG", "SET", "hz", "100", "loglevel", "WARNING", "timeout", "300", "tcp-keepalive", "60"), "OK"},
		// The current value is accepted, in any spelling.
		{cmd("CONFIG", "SET", "appendonly", "NO", "maxmemory-policy", "noeviction", "maxmemory", "0kb"), "OK"},
		{cmd("CONFIG", "SET", "notify-keyspace-events", ""), "OK"},
		{cmd("config", "set", "lua-time-limit", "5000", "busy-reply-threshold", "5000"), "OK"},
		// Anything else would need a runtime change lockredis cannot make.
		{cmd("CONFIG", "SET", "appendonly", "yes"), failed("appendonly", "lockredis cannot change this parameter at runtime")},
		{cmd("CONFIG", "SET", "requirepass", "x"), failed("requirepass", "lockredis cannot change this parameter at runtime")},
		{cmd("CONFIG", "SET", "notify-keyspace-events", "Ex"), failed("notify-keyspace-events", "lockredis cannot change this parameter at runtime")},
		{cmd("CONFIG", "GET", "maxmemory", "requirepass"), `["maxmemory" "0" "requirepass" ""]`},
		// The guards' parameters change at once (guards.go).
		{cmd("CONFIG", "SET", "maxmemory", "1kb"), "OK"},
		{cmd("CONFIG", "GET", "maxmemory"), `["maxmemory" "1024"]`},
		{cmd("CONFIG", "SET", "maxmemory", "0"), "OK"},
		{cmd("CONFIG", "SET", "maxmemory-policy", "allkeys-lru"), failed("maxmemory-policy", errPolicyWhy)},
		{cmd("CONFIG", "SET", "maxmemory-policy", "NoEviction"), "OK"},
		{cmd("CONFIG", "SET", "lua-time-limit", "10"), "OK"},
		{cmd("CONFIG", "GET", "busy-reply-threshold", "lua-hard-time-limit"), `["busy-reply-threshold" "10" "lua-hard-time-limit" "60000"]`},
		{cmd("CONFIG", "SET", "lua-hard-time-limit", "0", "busy-reply-threshold", "5000"), "OK"},
		{cmd("CONFIG", "GET", "lua-time-limit", "lua-hard-time-limit"), `["lua-time-limit" "5000" "lua-hard-time-limit" "0"]`},
		{cmd("CONFIG", "SET", "lua-hard-time-limit", "-1"), failed("lua-hard-time-limit", "argument must be between 0 and 9223372036854775807 inclusive")},
	})
}

func TestConfigRewrite(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("CONFIG", "REWRITE"), "(error) ERR The server is running without a config file"},
		{cmd("CONFIG", "REWRITE", "x"), "(error) ERR wrong number of arguments for 'config|rewrite' command"},
	})
	withFile := newTestEngineConfig(t, Config{Params: map[string]string{"config_file": "/etc/lr.conf"}})
	withFile.run([]step{{cmd("CONFIG", "REWRITE"), "(error) ERR Rewriting config file: not supported by lockredis"}})
}

func TestParseMemory(t *testing.T) {
	for in, want := range map[string]int64{
		"0": 0, "100": 100, "1b": 1, "1k": 1000, "1kb": 1024, "1KB": 1024, "2m": 2000000, "2mb": 2 << 20,
		"1g": 1000000000, "1Gb": 1 << 30,
	} {
		if got, ok := parseMemory([]byte(in)); !ok || got != want {
			t.Errorf("parseMemory(%q) = %d, %v; want %d", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "k", "1x", "-1", "1.5m", "99999999999999999999", "9999999999999gb"} {
		if _, ok := parseMemory([]byte(in)); ok {
			t.Errorf("parseMemory(%q) accepted", in)
		}
	}
}
