package main

import (
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// fromFile reads a config file holding lines.
func fromFile(t *testing.T, lines ...string) (config, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "redis.conf")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return readConfigFile(path, defaults())
}

// fromFlags parses args as the command line does (no config file).
func fromFlags(args ...string) (config, error) {
	cfg := defaults()
	fs, _, _ := newFlagSet(&cfg, io.Discard)
	err := fs.Parse(args)
	return cfg, err
}

// TestDirectivesAreFlags: each directive of the table, given in the
// config file ("name value") or on the command line (--name value),
// gives the same configuration; a directive refused in one form is
// refused in the other.
func TestDirectivesAreFlags(t *testing.T) {
	for _, tc := range []struct {
		name, value string
		refused     bool
	}{
		{"port", "7001", false},
		{"bind", "127.0.0.1 -::1", false},
		{"requirepass", "secret", false},
		{"aclfile", "/tmp/users.acl", false},
		{"maxclients", "50", false},
		{"databases", "4", false},
		{"dir", "/tmp", false},
		{"appendonly", "yes", false},
		{"appendfsync", "always", false},
		{"appendfilename", "locks.aof", false},
		{"loglevel", "warning", false},
		{"logfile", "/tmp/lr.log", false},
		{"save", "900 1", false},
		{"lua-time-limit", "100", false},
		{"busy-reply-threshold", "100", false},
		{"lua-hard-time-limit", "0", false},
		{"maxmemory", "1gb", false},
		{"maxmemory-policy", "noeviction", false},
		{"protected-mode", "no", false},
		{"timeout", "30", false},
		{"tcp-keepalive", "60", false},
		{"restart-fence", "30s", false},
		{"lock-delay", "250", false},
		{"max-lock-ttl", "10m", false},
		{"tls-port", "7002", false},
		{"tls-cert-file", "/tmp/cert.pem", false},
		{"tls-auth-clients", "optional", false},
		{"daemonize", "yes", false},
		{"daemonize", "no", false},
		{"daemonize", "maybe", true},
		{"supervised", "auto", false},
		{"supervised", "systemd", false},
		{"supervised", "upstart", true},
		{"pidfile", "/tmp/lr.pid", false},
		{"client-output-buffer-limit", "normal 1mb 0 0", false},
		{"client-output-buffer-limit", "normal 1mb 0 0 pubsub 32mb 8mb 60", false},
		{"client-output-buffer-limit", "normal 1mb 0", true},
		// accepted and ignored
		{"hash-max-listpack-entries", "512", false},
		{"tcp-backlog", "511", false},
		{"io-threads", "4", false},
		{"lazyfree-lazy-eviction", "no", false},
		{"repl-diskless-sync", "yes", false},
		{"appenddirname", "appendonlydir", false},
		{"oom-score-adj-values", "0 200 800", false},
		{"proc-title-template", `"{title} {listen-addr} {server-mode}"`, false},
		{"cluster-enabled", "no", false},
		{"cluster-enabled", "yes", false},
		{"cluster-enabled", "maybe", true},
		{"cluster-config-file", "nodes-6379.conf", false},
		{"cluster-node-timeout", "15000", false},
		{"notify-keyspace-events", "Ex", false},
		{"notify-keyspace-events", "KEA", false},
		// refused unless harmless
		{"replicaof", "127.0.0.1 6380", true},
		{"unixsocket", "/tmp/redis.sock", true},
		{"no-such-directive", "1", true},
	} {
		t.Run(tc.name+" "+tc.value, func(t *testing.T) {
			file, ferr := fromFile(t, tc.name+" "+tc.value)
			flags, cerr := fromFlags("--"+tc.name, tc.value)
			if tc.refused {
				if ferr == nil || cerr == nil {
					t.Fatalf("accepted: file error %v, flag error %v", ferr, cerr)
				}
				return
			}
			if ferr != nil || cerr != nil {
				t.Fatalf("file error %v, flag error %v", ferr, cerr)
			}
			if !reflect.DeepEqual(file, flags) {
				t.Errorf("file and flag differ:\nfile %+v\nflag %+v", file, flags)
			}
			if reflect.DeepEqual(file, defaults()) && tc.name != "maxmemory-policy" && tc.name != "daemonize" &&
				tc.name != "cluster-enabled" && tc.name != "notify-keyspace-events" {
				t.Errorf("no effect on the configuration")
			}
		})
	}
}

// TestEveryFlagIsADirective: every flag but --help and --version is
// accepted in the config file, with its default value (or, for flags
// without one, a sample); and every ignored or refused directive is a flag.
func TestEveryFlagIsADirective(t *testing.T) {
	cfg := defaults()
	fs, _, _ := newFlagSet(&cfg, io.Discard)
	samples := map[string]string{
		"client-output-buffer-limit": "normal 0 0 0", "bind": "127.0.0.1",
		"tls-ciphersuites": `""`, "tls-prefer-server-ciphers": `""`, "tls-key-file-pass": `""`,
		"tls-dh-params-file": `""`, "tls-session-cache-size": `""`, "tls-session-cache-timeout": `""`,
		"tls-client-cert-file": `""`, "tls-client-key-file": `""`, "tls-client-key-file-pass": `""`,
		"replicaof": `""`, "slaveof": `""`, "unixsocket": `""`,
		"daemonize": "no", "supervised": "no", "cluster-enabled": "no", "unixsocketperm": "0",
		"rename-command": `""`, "include": `""`, "loadmodule": `""`, "masterauth": `""`, "masteruser": `""`,
	}
	n := 0
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Name == "help" || f.Name == "version" {
			return
		}
		n++
		v, ok := samples[f.Name]
		if !ok {
			v = f.DefValue
			if v == "" {
				v = `""`
			}
		}
		if _, err := fromFile(t, f.Name+" "+v); err != nil {
			t.Errorf("--%s is not a directive: %v", f.Name, err)
		}
	})
	for name := range ignoredDirectives {
		if fs.Lookup(name) == nil {
			t.Errorf("ignored directive %s has no flag", name)
		}
	}
	for name := range refusedDirectives {
		if fs.Lookup(name) == nil {
			t.Errorf("refused directive %s has no flag", name)
		}
	}
	if n < 60 {
		t.Errorf("only %d flags", n)
	}
}

// TestIgnoredDirectivesLogged: the ignored directives of the file and of
// the command line are listed once, in one log line.
func TestIgnoredDirectivesLogged(t *testing.T) {
	path := filepath.Join(t.TempDir(), "redis.conf")
	os.WriteFile(path, []byte("hz 20\ntcp-backlog 511\ndaemonize yes\n"), 0o644)
	code, out := runOnce(t, path, "--io-threads", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	if c := strings.Count(out, "Accepted and ignored: hz io-threads tcp-backlog "); c != 1 {
		t.Errorf("%d ignored lines in:\n%s", c, out)
	}
	if c := strings.Count(out, "lockredis does not fork, it stays in the foreground"); c != 1 {
		t.Errorf("%d daemonize lines in:\n%s", c, out)
	}
}
