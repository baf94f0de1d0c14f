package engine

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lockredis/lockredis/config"
)

func TestConfigGet(t *testing.T) {
	dir := t.TempDir()
	te := newTestEngineConfig(t, Config{Params: map[string]string{"requirepass": "pw", "databases": "4", "port": "7000",
		"appendonly": "yes", "dir": dir, "save": "", "lua-time-limit": "200"}})
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
		{cmd("CONFIG", "GET", "dir"), `["dir" "` + dir + `"]`},
		// patterns match case-insensitively, each parameter once, in the
		// spec's order
		{cmd("CONFIG", "GET", "maxmemory*"), `["maxmemory" "0" "maxmemory-policy" "noeviction" "maxmemory-samples" "5" "maxmemory-eviction-tenacity" "10" "maxmemory-clients" "0"]`},
		{cmd("CONFIG", "GET", "s?ve"), `["save" ""]`},
		{cmd("CONFIG", "GET", "*VE", "save"), `["tcp-keepalive" "300" "save" ""]`},
		{cmd("CONFIG", "GET", "appendf[is]*"), `["appendfilename" "appendonly.aof" "appendfsync" "everysec"]`},
		// several patterns and names, each name once (Redis's "CONFIG GET
		// multiple args"): a name and its alias are two names
		{cmd("CONFIG", "GET", "maxmemory", "maxmemory-p*", "timeout", "*of"),
			`["maxmemory" "0" "maxmemory-policy" "noeviction" "timeout" "0" "replicaof" "" "slaveof" ""]`},
		// hidden parameters answer by their exact name only
		{cmd("CONFIG", "GET", "key-load-delay"), `["key-load-delay" "0"]`},
		{cmd("CONFIG", "GET", "key-load*"), "[]"},
		// directives that are not parameters
		{cmd("CONFIG", "GET", "include"), "[]"},
	})
	all := te.do("CONFIG", "GET", "*")
	want := 0
	for i := range config.Params {
		if p := &config.Params[i]; p.Configurable() && !p.Hidden {
			want += len(p.Names())
		}
	}
	if all.Kind != KindMap || len(all.Elems) != 2*want {
		t.Errorf("CONFIG GET * has %d elements, want %d", len(all.Elems), 2*want)
	}
	// Without dir, Redis's answer: the working directory.
	wd, _ := os.Getwd()
	if got := newTestEngine(t).do("CONFIG", "GET", "dir").String(); got != `["dir" "`+wd+`"]` {
		t.Errorf("CONFIG GET dir: %s", got)
	}
	help := te.do("CONFIG", "HELP")
	if len(help.Elems) != 11 || help.Elems[1].Str != "GET <pattern>" {
		t.Errorf("CONFIG HELP: %s", help)
	}
}

// TestConfigStartErrors: New refuses what CONFIG SET refuses, with the
// parameter's name.
func TestConfigStartErrors(t *testing.T) {
	for params, want := range map[string]string{
		"no-such 1":                               `unknown parameter "no-such"`,
		"timeout x":                               `timeout: argument couldn't be parsed into an integer, got "x"`,
		"maxmemory-policy allkeys-lru":            "lockredis only supports noeviction",
		"notify-keyspace-events KEQ":              "notify-keyspace-events: Invalid event class character",
		"client-output-buffer-limit normal 1mb 0": "client-output-buffer-limit: Wrong number of arguments in buffer limit configuration.",
		"restart-fence soon":                      "restart fence must be auto, off or a duration such as 30s",
		"replicaof 127.0.0.1 6380":                "lockredis has no replication",
	} {
		name, value, _ := strings.Cut(params, " ")
		e, err := New(Config{Params: map[string]string{name: value}})
		if err == nil {
			e.Close()
			t.Errorf("%s: accepted", params)
			continue
		}
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", params, err, want)
		}
	}
}

func TestConfigSet(t *testing.T) {
	te := newTestEngine(t)
	p, _ := config.Lookup("maxmemory-policy")
	policyWhy := p.Why
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
		{cmd("CONFIG", "SET", "maxmemory-policy", "allkeys-lru"), failed("maxmemory-policy", policyWhy)},
		{cmd("CONFIG", "SET", "maxmemory-policy", "NoEviction"), "OK"},
		{cmd("CONFIG", "SET", "lua-time-limit", "10"), "OK"},
		{cmd("CONFIG", "GET", "busy-reply-threshold", "lua-hard-time-limit"), `["busy-reply-threshold" "10" "lua-hard-time-limit" "60000"]`},
		{cmd("CONFIG", "SET", "lua-hard-time-limit", "0", "busy-reply-threshold", "5000"), "OK"},
		{cmd("CONFIG", "GET", "lua-time-limit", "lua-hard-time-limit"), `["lua-time-limit" "5000" "lua-hard-time-limit" "0"]`},
		{cmd("CONFIG", "SET", "lua-hard-time-limit", "-1"), failed("lua-hard-time-limit", "argument must be between 0 and 9223372036854775807 inclusive")},
		// A value error names the parameter as the spec spells it, in
		// lower case, as Redis does (an alias by its own name).
		{cmd("CONFIG", "SET", "TIMEOUT", "x"), failed("timeout", "argument couldn't be parsed into an integer")},
		{cmd("CONFIG", "SET", "LUA-time-limit", "x"), failed("lua-time-limit", "argument couldn't be parsed into an integer")},
		// A name and its alias are two parameters, set in order.
		{cmd("CONFIG", "SET", "lua-time-limit", "1", "busy-reply-threshold", "2"), "OK"},
		{cmd("CONFIG", "GET", "lua-time-limit"), `["lua-time-limit" "2"]`},
		// Fixed parameters take their default only.
		{cmd("CONFIG", "SET", "maxmemory-clients", "0"), "OK"},
		{cmd("CONFIG", "SET", "maxmemory-clients", "10%"), failed("maxmemory-clients", "lockredis does not evict clients")},
		{cmd("CONFIG", "SET", "maxmemory-clients", "200%"), failed("maxmemory-clients", "percentage argument must be less or equal to 100")},
	})
}

// TestConfigSetAtomic: CONFIG SET of several parameters is all or
// nothing, as Redis 7.0's (introspection.tcl "CONFIG SET rollback on set
// error" and "on apply error"): a value that is invalid leaves every
// parameter as it was; a value that cannot be applied puts back those
// applied before it.
func TestConfigSetAtomic(t *testing.T) {
	var applied []string
	portErr := errors.New("Unable to listen on this port. Check server logs.")
	port := "6379"
	te := newTestEngineConfig(t, Config{Hooks: map[string]ParamHook{"port": {
		Get: func() string { return port },
		Apply: func(v string) error {
			if v == port {
				return nil // as the server's: nothing to move
			}
			applied = append(applied, v)
			if v == "1" {
				return portErr
			}
			port = v
			return nil
		},
	}}})
	failed := func(name, why string) string {
		return "(error) ERR CONFIG SET failed (possibly related to argument '" + name + "') - " + why
	}
	te.run([]step{
		{cmd("CONFIG", "SET", "maxmemory", "10000002"), "OK"},
		{cmd("CONFIG", "SET", "maxmemory", "10000001", "maxmemory-clients", "200%", "client-query-buffer-limit", "invalid"),
			failed("maxmemory-clients", "percentage argument must be less or equal to 100")},
		{cmd("CONFIG", "GET", "maxmemory", "maxmemory-clients", "client-query-buffer-limit"),
			`["maxmemory" "10000002" "maxmemory-clients" "0" "client-query-buffer-limit" "1073741824"]`},
		// the apply error: maxmemory and timeout go back, the hook saw 1
		// and nothing after it
		{cmd("CONFIG", "SET", "maxmemory", "10000001", "timeout", "9", "port", "1", "client-query-buffer-limit", "10m"),
			failed("port", "Unable to listen on this port. Check server logs.")},
		{cmd("CONFIG", "GET", "maxmemory", "timeout", "port", "client-query-buffer-limit"),
			`["maxmemory" "10000002" "timeout" "0" "port" "6379" "client-query-buffer-limit" "1073741824"]`},
		// the hook applies a good value, once
		{cmd("CONFIG", "SET", "port", "7000", "client-query-buffer-limit", "10m"), "OK"},
		{cmd("CONFIG", "GET", "port", "client-query-buffer-limit"), `["port" "7000" "client-query-buffer-limit" "10000000"]`},
		{cmd("CONFIG", "SET", "port", "7000"), "OK"},
		// Redis's "duplicate configs" and "set immutable"
		{cmd("CONFIG", "SET", "maxmemory", "10000001", "maxmemory", "10000002"), failed("maxmemory", "duplicate parameter")},
		{cmd("CONFIG", "SET", "daemonize", "yes"), failed("daemonize", "can't set immutable config")},
	})
	if got := strings.Join(applied, " "); got != "1 7000" {
		t.Errorf("port hook applied %q, want 1 then 7000", got)
	}
	if te.net.queryLimit.Load() != 10000000 {
		t.Errorf("client-query-buffer-limit not applied: %d", te.net.queryLimit.Load())
	}
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
	withFile := newTestEngineConfig(t, Config{ConfigFile: path})
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
		"loglevel warning\n" +
		"save \"\"\n" +
		"tracking-table-max-keys 10\n" +
		"maxmemory 2mb\n"
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
	bad := newTestEngineConfig(t, Config{ConfigFile: filepath.Join(path, "x", "y.conf")})
	if r := bad.do("CONFIG", "REWRITE"); !strings.HasPrefix(r.String(), "(error) ERR Rewriting config file: ") {
		t.Errorf("unwritable file: %s", r)
	}
}

// TestConfigSetEveryParam goes through the spec: for every parameter
// (and alias) CONFIG SET of a value other than the default is applied
// (CONFIG GET reports it; for a Live parameter of the engine its effect
// is observed below) or refused with Redis's wording or lockredis's
// reason, as its mode says; and setting the value in force is accepted
// unless Redis refuses the name itself.
func TestConfigSetEveryParam(t *testing.T) {
	effects := paramEffects
	for i := range config.Params {
		p := &config.Params[i]
		if !p.Configurable() {
			continue
		}
		if p.Mode == config.Live && p.By == config.ByEngine && effects[p.Name] == nil {
			t.Errorf("%s: a Live parameter of the engine needs an effect here", p.Name)
		}
		for _, name := range p.Names() {
			t.Run(name, func(t *testing.T) {
				hook := map[string]string{}
				te := newTestEngineConfig(t, Config{OnConfigSet: func(n, v string) { hook[n] = v }})
				before := te.do("CONFIG", "GET", name).String()
				value := p.Sample()
				r := te.do("CONFIG", "SET", name, value).String()
				var refused string
				switch {
				case p.Immutable:
					refused = "can't set immutable config"
				case p.Protected:
					refused = "can't set protected config"
				case p.Mode == config.Fixed:
					refused = p.Why
				case p.Mode == config.Start:
					refused = "lockredis cannot change this parameter at runtime"
				}
				if refused != "" {
					want := "(error) ERR CONFIG SET failed (possibly related to argument '" + name + "') - " + refused
					if r != want {
						t.Errorf("SET %s %q: %s, want %s", name, value, r, want)
					}
					if after := te.do("CONFIG", "GET", name).String(); after != before {
						t.Errorf("refused SET changed GET: %s -> %s", before, after)
					}
					if len(hook) != 0 {
						t.Errorf("refused SET called OnConfigSet: %v", hook)
					}
					if !p.Immutable && !p.Protected {
						cur := te.do("CONFIG", "GET", name).Elems[1].Str
						if r := te.do("CONFIG", "SET", name, cur).String(); r != "OK" {
							t.Errorf("SET %s to its value %q: %s", name, cur, r)
						}
					}
					return
				}
				if r != "OK" {
					t.Fatalf("SET %s %q: %s", name, value, r)
				}
				for _, n := range p.Names() {
					if got, want := te.do("CONFIG", "GET", n).String(), `["`+n+`" "`+value+`"]`; got != want {
						t.Errorf("GET after SET: %s, want %s", got, want)
					}
				}
				if hook[p.Name] != value {
					t.Errorf("OnConfigSet got %v", hook)
				}
				if f := effects[p.Name]; f != nil {
					f(t, te.Engine, hook)
				}
			})
		}
	}
}

// TestMinReplicas: with min-replicas-to-write and min-replicas-max-lag
// both above 0, a master without good replicas (lockredis always) refuses
// every write with Redis's NOREPLICAS, reads go on, a queued write dooms
// the transaction; either at 0 lifts it (checkGoodReplicasStatus).
func TestMinReplicas(t *testing.T) {
	te := newTestEngine(t)
	const noReplicas = "(error) NOREPLICAS Not enough good replicas to write."
	te.run([]step{
		{cmd("SET", "k", "v"), "OK"},
		{cmd("CONFIG", "SET", "min-replicas-to-write", "1"), "OK"},
		{cmd("SET", "k", "w"), noReplicas},
		{cmd("DEL", "k"), noReplicas},
		{cmd("GET", "k"), `"v"`},
		{cmd("PING"), "PONG"},
		{cmd("MULTI"), "OK"},
		{cmd("SET", "k", "w"), noReplicas},
		{cmd("EXEC"), "(error) EXECABORT Transaction discarded because of previous errors."},
		{cmd("CONFIG", "SET", "min-slaves-max-lag", "0"), "OK"},
		{cmd("SET", "k", "w"), "OK"},
		{cmd("CONFIG", "SET", "min-replicas-max-lag", "10", "min-replicas-to-write", "0"), "OK"},
		{cmd("SET", "k", "x"), "OK"},
	})
}

// paramEffects observe the Live parameters the engine applies, once a
// parameter was given the spec's sample (by CONFIG SET or at start).
var paramEffects = map[string]func(t *testing.T, e *Engine, hook map[string]string){
	"maxmemory": func(t *testing.T, e *Engine, _ map[string]string) {
		if e.guards.maxMemory.Load() != 1 {
			t.Errorf("maxmemory not applied")
		}
	},
	"min-replicas-to-write": func(t *testing.T, e *Engine, _ map[string]string) {
		if !e.NoGoodReplicas() {
			t.Errorf("writes not refused with min-replicas-to-write %d", e.guards.minReplicas.Load())
		}
	},
	"min-replicas-max-lag": func(t *testing.T, e *Engine, _ map[string]string) {
		if e.guards.maxLag.Load() == 10 {
			t.Errorf("min-replicas-max-lag %d", e.guards.maxLag.Load())
		}
	},
	"timeout": func(t *testing.T, e *Engine, _ map[string]string) {
		if e.IdleTimeout() != time.Second {
			t.Errorf("IdleTimeout %v", e.IdleTimeout())
		}
	},
	"busy-reply-threshold": func(t *testing.T, e *Engine, _ map[string]string) {
		if busy, _ := e.ScriptLimits(); busy == 5*time.Second {
			t.Errorf("busy threshold %v", busy)
		}
	},
	"lua-hard-time-limit": func(t *testing.T, e *Engine, _ map[string]string) {
		if _, hard := e.ScriptLimits(); hard == time.Minute {
			t.Errorf("hard limit %v", hard)
		}
	},
	"loglevel": func(t *testing.T, _ *Engine, hook map[string]string) {
		if hook["loglevel"] == "" {
			t.Errorf("OnConfigSet got %v", hook)
		}
	},
	"protected-mode": func(t *testing.T, e *Engine, _ map[string]string) {
		if e.net.protectedMode.Load() {
			t.Errorf("protected-mode still on")
		}
	},
	"tcp-keepalive": func(t *testing.T, e *Engine, _ map[string]string) {
		if e.TCPKeepAlive() == 300*time.Second {
			t.Errorf("keepalive %v", e.TCPKeepAlive())
		}
	},
	"client-query-buffer-limit": func(t *testing.T, e *Engine, _ map[string]string) {
		if e.QueryBufferLimit() == 1<<30 {
			t.Errorf("query buffer limit %d", e.QueryBufferLimit())
		}
	},
	"notify-keyspace-events": func(t *testing.T, e *Engine, _ map[string]string) {
		if e.NotifyClasses() != NotifyExpired|NotifyKeyevent {
			t.Errorf("notify classes %v", e.NotifyClasses())
		}
	},
	"slowlog-log-slower-than": func(t *testing.T, e *Engine, _ map[string]string) {
		if e.ops.slowerThan.Load() == 10000 {
			t.Errorf("slowlog-log-slower-than %d", e.ops.slowerThan.Load())
		}
	},
	"slowlog-max-len": func(t *testing.T, e *Engine, _ map[string]string) {
		if e.ops.slowMax.Load() == 128 {
			t.Errorf("slowlog-max-len %d", e.ops.slowMax.Load())
		}
	},
	"latency-monitor-threshold": func(t *testing.T, e *Engine, _ map[string]string) {
		if e.ops.latThreshold.Load() == 0 {
			t.Errorf("latency-monitor-threshold %d", e.ops.latThreshold.Load())
		}
	},
	"tracking-table-max-keys": func(t *testing.T, e *Engine, _ map[string]string) {
		if e.tracker.maxKeys.Load() == 1000000 {
			t.Errorf("tracking-table-max-keys %d", e.tracker.maxKeys.Load())
		}
	},
	"acllog-max-len": func(t *testing.T, e *Engine, _ map[string]string) {
		if e.acl.logMax == 128 {
			t.Errorf("acllog-max-len %d", e.acl.logMax)
		}
	},
	"lock-delay": func(t *testing.T, e *Engine, _ map[string]string) {
		if e.locks.delayMs.Load() == 0 {
			t.Errorf("lock-delay %d", e.locks.delayMs.Load())
		}
	},
	"client-output-buffer-limit": func(t *testing.T, e *Engine, _ map[string]string) {
		if l := e.OutputLimit(OutputNormal); l != (OutputLimit{Hard: 1 << 20}) {
			t.Errorf("normal limit %+v", l)
		}
	},
}

// TestConfigStartEveryParam: every parameter the engine accepts at start
// takes effect there: given the spec's sample in Params, CONFIG GET shows
// it under every name and, for a Live parameter of the engine, its
// effect is observed as after CONFIG SET; a Fixed one is refused with
// its reason.
func TestConfigStartEveryParam(t *testing.T) {
	// What needs more than itself to start: the files it points at.
	needs := map[string]bool{"aclfile": true, "dir": true, "appendonly": true, "appendfilename": true,
		"tls-cert-file": true, "tls-key-file": true, "tls-ca-cert-file": true, "tls-ca-cert-dir": true}
	for i := range config.Params {
		p := &config.Params[i]
		if !p.Configurable() || needs[p.Name] {
			continue
		}
		t.Run(p.Name, func(t *testing.T) {
			value := p.Sample()
			e, err := New(Config{Params: map[string]string{p.Name: value}})
			if p.Mode == config.Fixed {
				if err == nil {
					e.Close()
					t.Fatalf("%s %q accepted at start", p.Name, value)
				}
				if !strings.Contains(err.Error(), p.Why) {
					t.Errorf("%s %q: %v, want %q", p.Name, value, err, p.Why)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s %q: %v", p.Name, value, err)
			}
			t.Cleanup(func() { e.Close() })
			s := NewSession("normal")
			s.Authenticated = true
			e.AddSession(s)
			te := &testEngine{t: t, Engine: e, s: s}
			for _, n := range p.Names() {
				if got, want := te.do("CONFIG", "GET", n).String(), `["`+n+`" "`+value+`"]`; got != want {
					t.Errorf("GET: %s, want %s", got, want)
				}
			}
			if f := paramEffects[p.Name]; f != nil && p.Name != "loglevel" {
				f(t, e, nil)
			}
		})
	}
}
