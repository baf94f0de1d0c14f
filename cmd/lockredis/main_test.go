package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/lockredis/lockredis"
	"github.com/lockredis/lockredis/config"
	"github.com/spf13/pflag"
)

// runOnce runs the CLI with args on a free port in its own directory and
// stops it as soon as it is up. It returns the exit status and the output.
func runOnce(t *testing.T, args ...string) (int, string) {
	t.Helper()
	stop := make(chan os.Signal, 1)
	stop <- syscall.SIGTERM // read only once the server is up
	var out bytes.Buffer
	args = append([]string{"--port", "0", "--dir", t.TempDir()}, args...)
	code := run(args, &out, &out, stop)
	return code, out.String()
}

// fromFile reads a config file holding lines, as the binary does.
func fromFile(t *testing.T, lines ...string) (map[string]string, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "redis.conf")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := newCLI(io.Discard).settings(path)
	if err != nil {
		return nil, err
	}
	return s.Map(), nil
}

// fromFlags parses args as the command line does (no config file).
func fromFlags(args ...string) (map[string]string, error) {
	c := newCLI(io.Discard)
	if err := c.fs.Parse(args); err != nil {
		return nil, err
	}
	s, err := c.settings("")
	if err != nil {
		return nil, err
	}
	return s.Map(), nil
}

// TestFlagsAreTheSpec: the flags are the spec's parameters, under each of
// their names, and --help shows a line for each one with a usage and for
// no other.
func TestFlagsAreTheSpec(t *testing.T) {
	c := newCLI(io.Discard)
	want := map[string]*config.Param{}
	for i := range config.Params {
		for _, n := range config.Params[i].Names() {
			want[n] = &config.Params[i]
		}
	}
	var help bytes.Buffer
	c.fs.SetOutput(&help)
	c.fs.PrintDefaults()
	c.fs.VisitAll(func(f *pflag.Flag) {
		if f.Name == "help" || f.Name == "version" {
			return
		}
		p, ok := want[f.Name]
		if !ok {
			t.Errorf("--%s is not in the spec", f.Name)
			return
		}
		delete(want, f.Name)
		shown := strings.Contains(help.String(), "--"+f.Name+" ")
		if shown != (p.Usage != "") {
			t.Errorf("--%s: in --help %v, has a usage %v", f.Name, shown, p.Usage != "")
		}
		if f.DefValue != p.BinaryDefault() {
			t.Errorf("--%s: default %q, spec %q", f.Name, f.DefValue, p.BinaryDefault())
		}
	})
	for n := range want {
		t.Errorf("%s has no flag", n)
	}
	for _, line := range strings.Split(strings.TrimSpace(help.String()), "\n") {
		name := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "-p, "))[0]
		if _, ok := config.Lookup(strings.TrimPrefix(name, "--")); !ok && name != "-v," && name != "-h," {
			t.Errorf("--help line of no parameter: %s", line)
		}
	}
}

// TestDirectivesAreFlags: every parameter, under each of its names, given
// in the config file ("name value") or on the command line (--name
// value), gives the same settings; a value refused in one form is refused
// in the other; and a name the spec does not know is neither.
func TestDirectivesAreFlags(t *testing.T) {
	start, _ := fromFlags()
	type directive struct{ name, value string }
	var cases []directive
	for i := range config.Params {
		p := &config.Params[i]
		for _, n := range p.Names() {
			cases = append(cases, directive{n, p.Sample()}, directive{n, p.Default})
		}
	}
	cases = append(cases,
		directive{"bind", "127.0.0.1 -::1"},
		directive{"client-output-buffer-limit", "normal 1mb 0 0"},
		directive{"save", "900 1 300 10"},
		directive{"appendonly", "YES"},
		directive{"no-such-directive", "1"})
	for _, tc := range cases {
		t.Run(tc.name+" "+tc.value, func(t *testing.T) {
			p, known := config.Lookup(tc.name)
			v := tc.value
			if v == "" || (strings.ContainsAny(v, " ") && !p.Multi) {
				v = config.Quote(v)
			}
			file, ferr := fromFile(t, tc.name+" "+v)
			flags, cerr := fromFlags("--"+tc.name, tc.value)
			refused := !known || p.Refuses(tc.value) != ""
			if refused {
				if ferr == nil || cerr == nil {
					t.Fatalf("accepted: file error %v, flag error %v", ferr, cerr)
				}
				return
			}
			if ferr != nil || cerr != nil {
				t.Fatalf("file error %v, flag error %v", ferr, cerr)
			}
			if !reflect.DeepEqual(file, flags) {
				t.Errorf("file and flag differ:\nfile %v\nflag %v", file, flags)
			}
			if tc.value != p.BinaryDefault() && tc.value != p.Default && reflect.DeepEqual(file, start) {
				t.Errorf("no effect on the settings")
			}
		})
	}
}

// TestDirectiveErrors: values the spec refuses, with Redis's words or
// lockredis's reason; a config file's error names its line.
func TestDirectiveErrors(t *testing.T) {
	for _, tc := range []struct{ line, err string }{
		{"tls-port six", "argument couldn't be parsed into an integer"},
		{"tls-port 70000", "argument must be between 0 and 65535 inclusive"},
		{"tls-auth-clients maybe", "argument(s) must be one of the following: no, yes, optional"},
		{"tls-session-caching sometimes", "argument must be 'yes' or 'no'"},
		{"tls-replication yes", "tls-replication is not supported: lockredis has no replication"},
		{"tls-ciphersuites TLS_AES_128_GCM_SHA256", "tls-ciphersuites is not supported"},
		{"tls-prefer-server-ciphers yes", "tls-prefer-server-ciphers is not supported"},
		{"tls-session-cache-size 100", "tls-session-cache-size is not supported"},
		{"tls-key-file-pass secret", "decrypt the key"},
		{"tls-cert-file a b", `wrong number of arguments for "tls-cert-file"`},
		{"tls-unknown x", "Bad directive or wrong number of arguments"},
		{"replicaof 127.0.0.1 6380", "replicaof is not supported: lockredis has no replication"},
		{"unixsocket /tmp/redis.sock", "unixsocket is not supported: lockredis listens on TCP only"},
		{"databases 0", "argument must be between 1 and 256 inclusive"},
		{"appendonly 1", "argument must be 'yes' or 'no'"},
		{"max-lock-ttl 0", "argument must be a positive duration"},
		{"raft-session-timeout 10", "argument must be a positive duration"},
		{`port "7000`, "unbalanced quotes in configuration line"},
	} {
		_, err := fromFile(t, "# a comment", tc.line)
		if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "redis.conf:2: >>> '"+tc.line+"'") {
			t.Errorf("%s: %v, want %q on line 2", tc.line, err, tc.err)
		}
	}
}

// TestCLIAgreesWithServer: the binary starts with exactly the values an
// embedded server accepts, and refuses the others with the server's
// error. (The parameters the server checks itself, such as the restart
// fence or the output buffer limits, reach it unchecked.)
func TestCLIAgreesWithServer(t *testing.T) {
	for _, tc := range []struct{ name, value string }{
		{"restart-fence", "auto"}, {"restart-fence", "AUTO"}, {"restart-fence", "off"}, {"restart-fence", "no"},
		{"restart-fence", "0"}, {"restart-fence", "30s"}, {"restart-fence", "-1s"}, {"restart-fence", "yes"},
		{"restart-fence", "soon"},
		{"appendfsync", "always"}, {"appendfsync", "ALWAYS"}, {"appendfsync", "sometimes"},
		{"appendfilename", "locks.aof"}, {"appendfilename", "sub/locks.aof"},
		{"databases", "1"}, {"databases", "256"}, {"databases", "257"}, {"databases", "-1"},
		{"maxmemory", "1gb"}, {"maxmemory", "100MB"}, {"maxmemory", "lots"}, {"maxmemory", "-1"},
		{"maxmemory-policy", "NOEVICTION"}, {"maxmemory-policy", "allkeys-lru"}, {"maxmemory-policy", "evict"},
		{"notify-keyspace-events", "KEA"}, {"notify-keyspace-events", ""}, {"notify-keyspace-events", "KEQ"},
		{"client-output-buffer-limit", "normal 1mb 0 0"}, {"client-output-buffer-limit", "normal 1mb 0"},
		{"client-output-buffer-limit", "friends 1mb 0 0"},
	} {
		t.Run(tc.name+"="+tc.value, func(t *testing.T) {
			srv := lockredis.NewServer(lockredis.Options{Params: map[string]string{
				tc.name: tc.value, "dir": t.TempDir(), "appendonly": "yes"}})
			srvErr := srv.Start()
			if srvErr == nil {
				srv.Close()
			}
			code, out := runOnce(t, "--appendonly", "yes", "--"+tc.name, tc.value)
			if srvErr == nil && code != 0 {
				t.Fatalf("the server accepts %s %q, the CLI refuses it (exit %d):\n%s", tc.name, tc.value, code, out)
			}
			if srvErr != nil && (code == 0 || !strings.Contains(out, srvErr.Error())) {
				t.Fatalf("the server refuses %s %q with %q; the CLI exited %d with:\n%s", tc.name, tc.value, srvErr, code, out)
			}
		})
	}
}

// TestCLIYesNo: appendonly reads yes|no in any case, as redis-server does
// (it refuses "1", "true" and "" with "argument must be 'yes' or 'no'").
func TestCLIYesNo(t *testing.T) {
	for _, tc := range []struct {
		value string
		ok    bool
	}{
		{"yes", true}, {"YES", true}, {"no", true}, {"No", true},
		{"1", false}, {"true", false}, {"", false},
	} {
		code, out := runOnce(t, "--appendonly", tc.value)
		if (code == 0) != tc.ok {
			t.Errorf("--appendonly %q: exit %d, want ok=%v:\n%s", tc.value, code, tc.ok, out)
		}
		if !tc.ok && !strings.Contains(out, "argument must be 'yes' or 'no'") {
			t.Errorf("--appendonly %q: want Redis's error text, got:\n%s", tc.value, out)
		}
	}
}

// TestCLIDatabasesZero: redis-server refuses databases 0, and so does the
// binary.
func TestCLIDatabasesZero(t *testing.T) {
	if code, out := runOnce(t, "--databases", "0"); code == 0 {
		t.Fatalf("--databases 0 accepted:\n%s", out)
	}
}

// TestIgnoredDirectivesLogged: the parameters with no effect given in the
// file and on the command line are listed once, in one log line.
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

// TestBinaryImports: the server binary carries the testing package
// through none of our code (lockredis.RunT and raftgroup take small
// interfaces instead of testing.TB); the one exception is
// github.com/hashicorp/raft, whose testing.go (cluster helpers for its
// users' tests) is part of its main package, and since Go 1.13 importing
// testing registers no flags (testing.Init does, in test binaries only).
// Nor does it reach into the engine: it configures the server through
// the public API and the spec.
func TestBinaryImports(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}} {{join .Imports " "}}`, ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		for _, imp := range fields[1:] {
			if imp == "testing" && fields[0] != "github.com/hashicorp/raft" {
				t.Errorf("%s imports the testing package", fields[0])
			}
		}
	}
	out, err = exec.Command("go", "list", "-f", "{{join .Imports \" \"}}", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if pkg == "github.com/lockredis/lockredis/engine" {
			t.Fatal("cmd/lockredis imports the engine")
		}
	}
}

// TestRaftSessionTimeoutReachesTheNode: --raft-session-timeout reaches the
// node, which refuses one too short for a follower to notice a lost
// leader (twice the heartbeat timeout), naming the setting.
func TestRaftSessionTimeoutReachesTheNode(t *testing.T) {
	raft := []string{"--raft-id", "1", "--raft-bind", "127.0.0.1:0", "--raft-peers", "1=127.0.0.1:0"}
	code, out := runOnce(t, append(raft, "--raft-session-timeout", "500ms")...)
	if code == 0 || !strings.Contains(out, "raft-session-timeout 500ms is below twice the heartbeat timeout (800ms)") {
		t.Fatalf("exit %d, output:\n%s", code, out)
	}
	if code, out := runOnce(t, append(raft, "--raft-session-timeout", "800ms")...); code != 0 {
		t.Fatalf("--raft-session-timeout 800ms: exit %d, output:\n%s", code, out)
	}
}
