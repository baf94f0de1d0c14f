package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
		{cmd("CONFIG", "SET", "notify-keyspace-events", "Ex"), "OK"},
		{cmd("CONFIG", "GET", "notify-keyspace-events"), `["notify-keyspace-events" "xE"]`},
		{cmd("CONFIG", "SET", "notify-keyspace-events", "KEAnm"), "OK"},
		{cmd("CONFIG", "GET", "notify-keyspace-events"), `["notify-keyspace-events" "AKEm"]`},
		{cmd("CONFIG", "SET", "notify-keyspace-events", "Eq"), failed("notify-keyspace-events", "Invalid event class character. Use 'Ag$lshzxeKEtmdn'.")},
		{cmd("CONFIG", "SET", "notify-keyspace-events", ""), "OK"},
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
	path := filepath.Join(t.TempDir(), "lr.conf")
	orig := "# a comment that stays\n" +
		"port 7000\n" +
		"timeout 0\n" +
		"\n" +
		"lua-time-limit 5000\n" +
		"client-output-buffer-limit normal 0 0 0\n" +
		"  # indented comment\n" +
		"client-output-buffer-limit pubsub 32mb 8mb 60\n" +
		"timeout 9\n" + // a later line of a changed directive goes
		"hz 10\n"
	if err := os.WriteFile(path, []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	withFile := newTestEngineConfig(t, Config{Params: map[string]string{"config_file": path}})
	withFile.run([]step{
		// nothing changed: the file stays as it was
		{cmd("CONFIG", "REWRITE"), "OK"},
	})
	if got, _ := os.ReadFile(path); string(got) != orig {
		t.Fatalf("unchanged rewrite:\n%s", got)
	}
	withFile.run([]step{
		{cmd("CONFIG", "SET", "timeout", "7", "busy-reply-threshold", "100", "maxmemory", "2mb"), "OK"},
		{cmd("CONFIG", "SET", "client-output-buffer-limit", "normal 1mb 0 0", "save", "", "notify-keyspace-events", ""), "OK"},
		{cmd("CONFIG", "SET", "tracking-table-max-keys", "10", "loglevel", "warning"), "OK"},
		{cmd("CONFIG", "REWRITE"), "OK"},
	})
	want := "# a comment that stays\n" +
		"port 7000\n" +
		"timeout 7\n" +
		"\n" +
		"busy-reply-threshold 100\n" + // Redis writes the name, not the alias
		"client-output-buffer-limit normal 1mb 0 0\n" +
		"client-output-buffer-limit replica 256mb 64mb 60\n" +
		"client-output-buffer-limit pubsub 32mb 8mb 60\n" +
		"  # indented comment\n" +
		"hz 10\n" +
		"# Generated by CONFIG REWRITE\n" +
		"save \"\"\n" +
		"maxmemory 2mb\n" +
		"loglevel warning\n" +
		"tracking-table-max-keys 10\n"
	got, _ := os.ReadFile(path)
	if string(got) != want {
		t.Errorf("rewritten file:\n%s\nwant:\n%s", got, want)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode().Perm())
	}
	// A second rewrite finds its own lines and the signature.
	withFile.run([]step{
		{cmd("CONFIG", "SET", "maxmemory", "100"), "OK"},
		{cmd("CONFIG", "REWRITE"), "OK"},
	})
	got, _ = os.ReadFile(path)
	if want2 := strings.Replace(want, "maxmemory 2mb", "maxmemory 100", 1); string(got) != want2 {
		t.Errorf("second rewrite:\n%s\nwant:\n%s", got, want2)
	}
	// A file that cannot be written: Redis's error.
	bad := newTestEngineConfig(t, Config{Params: map[string]string{"config_file": filepath.Join(path, "x", "y.conf")}})
	if r := bad.do("CONFIG", "REWRITE"); !strings.HasPrefix(r.String(), "(error) ERR Rewriting config file: ") {
		t.Errorf("unwritable file: %s", r)
	}
}

// TestConfigSetEveryParam audits the parameter table: every parameter
// has a case, and for each a CONFIG SET of a value other than the
// default is applied (CONFIG GET reports it, and where cheap its effect
// is observed) or refused with Redis's wording.
func TestConfigSetEveryParam(t *testing.T) {
	const runtimeWhy = "lockredis cannot change this parameter at runtime"
	type paramCase struct {
		value string // what CONFIG SET sends
		get   string // what CONFIG GET reports then; "" means value
		// refused, when set, is why CONFIG SET must fail.
		refused string
		effect  func(t *testing.T, e *Engine, hook map[string]string)
	}
	immutable := paramCase{value: "x", refused: "can't set immutable config"}
	protected := paramCase{value: "x", refused: "can't set protected config"}
	cases := map[string]paramCase{
		"save":              {value: "900 1"},
		"appendonly":        {value: "yes", refused: runtimeWhy},
		"appendfsync":       {value: "always", refused: runtimeWhy},
		"appendfilename":    immutable,
		"appenddirname":     immutable,
		"dbfilename":        protected,
		"dir":               protected,
		"databases":         immutable,
		"port":              {value: "7001", refused: runtimeWhy},
		"bind":              {value: "0.0.0.0", refused: runtimeWhy},
		"requirepass":       {value: "secret", refused: runtimeWhy},
		"maxclients":        {value: "5", refused: runtimeWhy},
		"maxmemory-samples": {value: "7"},
		"maxmemory": {value: "1", effect: func(t *testing.T, e *Engine, _ map[string]string) {
			if e.guards.maxMemory.Load() != 1 {
				t.Errorf("maxmemory not applied")
			}
		}},
		"maxmemory-policy": {value: "allkeys-lru", refused: errPolicyWhy},
		"timeout": {value: "5", effect: func(t *testing.T, e *Engine, _ map[string]string) {
			if e.IdleTimeout() != 5*time.Second {
				t.Errorf("IdleTimeout %v", e.IdleTimeout())
			}
		}},
		"busy-reply-threshold": {value: "123", effect: func(t *testing.T, e *Engine, _ map[string]string) {
			if busy, _ := e.ScriptLimits(); busy != 123*time.Millisecond {
				t.Errorf("busy threshold %v", busy)
			}
		}},
		"lua-time-limit": {value: "321", effect: func(t *testing.T, e *Engine, _ map[string]string) {
			if busy, _ := e.ScriptLimits(); busy != 321*time.Millisecond {
				t.Errorf("busy threshold %v", busy)
			}
		}},
		"lua-hard-time-limit": {value: "0", effect: func(t *testing.T, e *Engine, _ map[string]string) {
			if _, hard := e.ScriptLimits(); hard != 0 {
				t.Errorf("hard limit %v", hard)
			}
		}},
		"loglevel": {value: "WARNING", get: "warning", effect: func(t *testing.T, _ *Engine, hook map[string]string) {
			if hook["loglevel"] != "warning" {
				t.Errorf("OnConfigSet got %v", hook)
			}
		}},
		"logfile": immutable,
		"protected-mode": {value: "no", effect: func(t *testing.T, e *Engine, _ map[string]string) {
			if e.net.protectedMode.Load() {
				t.Errorf("protected-mode still on")
			}
		}},
		"tcp-keepalive": {value: "42", effect: func(t *testing.T, e *Engine, _ map[string]string) {
			if e.net.keepAlive.Load() != 42 {
				t.Errorf("keepalive %d", e.net.keepAlive.Load())
			}
		}},
		"tcp-backlog":               {value: "100", refused: "can't set immutable config"},
		"hz":                        {value: "50"},
		"dynamic-hz":                {value: "no"},
		"proto-max-bulk-len":        {value: "2mb", refused: runtimeWhy},
		"client-query-buffer-limit": {value: "2mb", refused: runtimeWhy},
		"notify-keyspace-events": {value: "xE", effect: func(t *testing.T, e *Engine, _ map[string]string) {
			if e.NotifyClasses() != NotifyExpired|NotifyKeyevent {
				t.Errorf("notify classes %v", e.NotifyClasses())
			}
		}},
		"cluster-enabled":           {value: "yes", refused: "can't set immutable config"},
		"daemonize":                 {value: "yes", refused: "can't set immutable config"},
		"supervised":                {value: "systemd", refused: "can't set immutable config"},
		"pidfile":                   immutable,
		"unixsocket":                immutable,
		"io-threads":                {value: "4", refused: "can't set immutable config"},
		"replicaof":                 {value: "127.0.0.1 6380", refused: "can't set immutable config"},
		"slaveof":                   {value: "127.0.0.1 6380", refused: "can't set immutable config"},
		"replica-read-only":         {value: "no", refused: runtimeWhy},
		"slave-read-only":           {value: "no", refused: runtimeWhy},
		"slowlog-log-slower-than":   {value: "5"},
		"slowlog-max-len":           {value: "5"},
		"latency-monitor-threshold": {value: "5"},
		"enable-debug-command":      {value: "yes", refused: "can't set immutable config"},
		"enable-module-command":     {value: "yes", refused: "can't set immutable config"},
		"tracking-table-max-keys": {value: "17", effect: func(t *testing.T, e *Engine, _ map[string]string) {
			if e.tracker.maxKeys.Load() != 17 {
				t.Errorf("tracking-table-max-keys %d", e.tracker.maxKeys.Load())
			}
		}},
		"lock-delay": {value: "250", effect: func(t *testing.T, e *Engine, _ map[string]string) {
			if e.locks.delayMs.Load() != 250 {
				t.Errorf("lock-delay %d", e.locks.delayMs.Load())
			}
		}},
		"client-output-buffer-limit": {value: "normal 1mb 2mb 3 pubsub 1kb 0 0",
			get: "normal 1048576 2097152 3 slave 268435456 67108864 60 pubsub 1024 0 0",
			effect: func(t *testing.T, e *Engine, _ map[string]string) {
				if l := e.OutputLimit(OutputNormal); l != (OutputLimit{1 << 20, 2 << 20, 3}) {
					t.Errorf("normal limit %+v", l)
				}
				if l := e.OutputLimit(OutputPubsub); l != (OutputLimit{Hard: 1024}) {
					t.Errorf("pubsub limit %+v", l)
				}
			}},
	}
	for _, p := range configParams {
		tc, ok := cases[p.name]
		if !ok {
			t.Errorf("parameter %s has no case: add one", p.name)
			continue
		}
		t.Run(p.name, func(t *testing.T) {
			hook := map[string]string{}
			te := newTestEngineConfig(t, Config{OnConfigSet: func(n, v string) { hook[n] = v }})
			before := te.do("CONFIG", "GET", p.name).String()
			r := te.do("CONFIG", "SET", p.name, tc.value).String()
			if tc.refused != "" {
				want := "(error) ERR CONFIG SET failed (possibly related to argument '" + p.name + "') - " + tc.refused
				if r != want {
					t.Errorf("SET %s %q: %s, want %s", p.name, tc.value, r, want)
				}
				if after := te.do("CONFIG", "GET", p.name).String(); after != before {
					t.Errorf("refused SET changed GET: %s -> %s", before, after)
				}
				if len(hook) != 0 {
					t.Errorf("refused SET called OnConfigSet: %v", hook)
				}
				return
			}
			if !p.settable && !p.ignorable {
				t.Errorf("%s is neither settable nor ignorable but its case expects SET to apply", p.name)
			}
			if r != "OK" {
				t.Fatalf("SET %s %q: %s", p.name, tc.value, r)
			}
			get := tc.get
			if get == "" {
				get = tc.value
			}
			if got, want := te.do("CONFIG", "GET", p.name).String(), `["`+p.name+`" "`+get+`"]`; got != want {
				t.Errorf("GET after SET: %s, want %s", got, want)
			}
			if p.alias != "" {
				if got, want := te.do("CONFIG", "GET", p.alias).String(), `["`+p.alias+`" "`+get+`"]`; got != want {
					t.Errorf("GET alias after SET: %s, want %s", got, want)
				}
			}
			if tc.effect != nil {
				tc.effect(t, te.Engine, hook)
			}
		})
	}
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
