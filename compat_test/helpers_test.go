package compat

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/lockredis/lockredis"
)

// binDir holds the lockredis binary built for this test run (see
// lockredisBinary); TestMain removes it.
var binDir string

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// toolPackages are the Debian packages of the external programs tests
// need (compat_test/test.sh installs them), when not redis's.
var toolPackages = map[string]string{
	"promtool":        "prometheus",
	"systemd-analyze": "systemd",
	"logrotate":       "logrotate",
}

// requireTool finds an external program the test needs. Missing, it fails
// the test on CI (where compat_test/test.sh installs it) and skips it elsewhere.
func requireTool(t testing.TB, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err == nil {
		return path
	}
	pkg := toolPackages[name]
	if pkg == "" {
		pkg = "redis-server redis-tools"
	}
	msg := name + " not installed: apt-get install " + pkg
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// freePort asks the kernel for a free TCP port on the loopback interface.
// Another process may take it before we use it; startProcess retries.
func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("free port: %v", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// startRedis starts a throwaway redis-server with no persistence and
// returns its address. Extra arguments are passed on (e.g.
// "--requirepass", "pw"). It is killed when the test ends.
func startRedis(t testing.TB, extra ...string) string {
	t.Helper()
	bin := requireTool(t, "redis-server")
	dir := t.TempDir()
	return startProcess(t, "redis-server", func(port int) *exec.Cmd {
		args := append([]string{
			"--port", strconv.Itoa(port), "--bind", "127.0.0.1",
			"--save", "", "--appendonly", "no", "--dir", dir,
		}, extra...)
		return exec.Command(bin, args...)
	}, func(p *process) error {
		p.cmd.Process.Kill()
		<-p.exited
		return nil
	})
}

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

// lockredisBinary builds ../cmd/lockredis once per test run.
func lockredisBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "lockredis-compat-")
		if err != nil {
			buildErr = err
			return
		}
		binDir = dir
		bin := filepath.Join(dir, "lockredis")
		// Built in its own module (cmd/lockredis/go.mod), as a user
		// builds it: with that module's requirements, not this one's.
		build := exec.Command("go", "build", "-o", bin, ".")
		build.Dir = "../cmd/lockredis"
		out, err := build.CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build ../cmd/lockredis: %v\n%s", err, out)
			return
		}
		builtBin = bin
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtBin
}

// startBinary starts the built lockredis on a free port with the given
// flags and returns its address. When the test ends it is stopped with
// SIGTERM and must exit with status 0.
func startBinary(t testing.TB, args ...string) string {
	t.Helper()
	bin := lockredisBinary(t)
	if !slices.Contains(args, "--dir") {
		// The state file goes to --dir: keep it out of the tree, and keep
		// a killed test's "running" marker from fencing later tests.
		args = append([]string{"--dir", t.TempDir()}, args...)
	}
	return startProcess(t, "lockredis", func(port int) *exec.Cmd {
		all := append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1"}, args...)
		return exec.Command(bin, all...)
	}, stopBinary)
}

// stopBinary stops a started lockredis with SIGTERM; it must exit with
// status 0 within 10 s.
func stopBinary(p *process) error {
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
		if p.err != nil {
			return fmt.Errorf("lockredis did not exit cleanly after SIGTERM: %v\n%s", p.err, p.out.String())
		}
		return nil
	case <-time.After(10 * time.Second):
		p.cmd.Process.Kill()
		<-p.exited
		return fmt.Errorf("lockredis did not exit within 10s of SIGTERM")
	}
}

// process is a started server process. exited is closed once it has been
// waited for; err and out are valid from then on.
type process struct {
	cmd    *exec.Cmd
	out    lockedBuffer // read by startProcess while the process writes (persist_test.go)
	exited chan struct{}
	err    error
}

// startProcess runs the command made by mk on a free port until it answers
// PING (any reply but LOADING counts: NOAUTH means it is up), and registers stop as
// cleanup; an error from stop fails the test. The process's output is shown
// if it does not come up.
func startProcess(t testing.TB, name string, mk func(port int) *exec.Cmd, stop func(*process) error) string {
	t.Helper()
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		port := freePort(t)
		p := &process{cmd: mk(port), exited: make(chan struct{})}
		dieWithTest(p.cmd)
		p.cmd.Stdout = &p.out
		p.cmd.Stderr = &p.out
		if err := p.cmd.Start(); err != nil {
			t.Fatalf("start %s: %v", name, err)
		}
		go func() {
			p.err = p.cmd.Wait()
			close(p.exited)
		}()
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		noauth, err := waitPing(addr, p.exited)
		if err == nil && noauth {
			// NOAUTH comes before LOADING (as in Redis): wait for the
			// log line the server writes once loaded, when it logs here.
			for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
				if strings.Contains(p.out.String(), "Ready to accept connections") {
					break
				}
			}
		}
		if err != nil {
			stop(p)
			lastErr = fmt.Errorf("%s on %s: %v\n%s", name, addr, err, p.out.String())
			continue // most likely the port was taken meanwhile
		}
		t.Cleanup(func() {
			if err := stop(p); err != nil {
				t.Error(err)
			}
		})
		return addr
	}
	t.Fatal(lastErr)
	return ""
}

// waitPing polls addr until a PING gets a reply other than LOADING, for
// up to 10 s; noauth: the reply was NOAUTH, which comes before LOADING.
func waitPing(addr string, exited <-chan struct{}) (noauth bool, err error) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		select {
		case <-exited:
			return false, errors.New("process exited")
		default:
		}
		var c net.Conn
		c, err = net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.SetDeadline(time.Now().Add(2 * time.Second))
			_, err = c.Write([]byte("*1\r\n$4\r\nPING\r\n"))
			var reply []byte
			if err == nil {
				reply, err = readReply(bufio.NewReader(c))
			}
			c.Close()
			if err == nil && bytes.HasPrefix(reply, []byte("-LOADING")) {
				// The listener is open while the keyspace loads,
				// as redis-server's is; the tests want it loaded.
				err = errors.New("still loading")
			}
			if err == nil {
				return bytes.HasPrefix(reply, []byte("-NOAUTH")), nil
			}
		}
		if time.Now().After(deadline) {
			return false, fmt.Errorf("no answer to PING: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// startEmbedded starts an in-process lockredis with opts, closed when the
// test ends.
func startEmbedded(t testing.TB, opts lockredis.Options) *lockredis.Server {
	t.Helper()
	srv := lockredis.NewServer(opts)
	if err := srv.Start(); err != nil {
		t.Fatalf("lockredis: %v", err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// rawConn is a minimal RESP client that hands back replies as raw bytes,
// so tests compare exactly what a server wrote.
type rawConn struct {
	c net.Conn
	r *bufio.Reader
}

// replyTimeout bounds every read: a server that never answers fails the
// step instead of hanging the test.
const replyTimeout = 15 * time.Second

// dialRaw connects to addr; the connection is closed when the test ends.
func dialRaw(t testing.TB, addr string) *rawConn {
	t.Helper()
	rc, err := dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rc.c.Close() })
	return rc
}

func dial(addr string) (*rawConn, error) {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %v", addr, err)
	}
	return &rawConn{c: c, r: bufio.NewReader(c)}, nil
}

// encodeCommand renders args as a RESP multibulk frame.
func encodeCommand(args []string) []byte {
	b := make([]byte, 0, 16+len(args)*16)
	b = append(b, '*')
	b = strconv.AppendInt(b, int64(len(args)), 10)
	b = append(b, '\r', '\n')
	for _, a := range args {
		b = append(b, '$')
		b = strconv.AppendInt(b, int64(len(a)), 10)
		b = append(b, '\r', '\n')
		b = append(b, a...)
		b = append(b, '\r', '\n')
	}
	return b
}

// roundTrip sends raw bytes and reads exactly one reply.
func (rc *rawConn) roundTrip(raw []byte) ([]byte, error) {
	rc.c.SetDeadline(time.Now().Add(replyTimeout))
	if _, err := rc.c.Write(raw); err != nil {
		return nil, err
	}
	return readReply(rc.r)
}

// do sends one command and returns its raw reply; it fails the test if no
// reply comes.
func (rc *rawConn) do(t testing.TB, args ...string) string {
	t.Helper()
	reply, err := rc.roundTrip(encodeCommand(args))
	if err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	return string(reply)
}

// readReply reads one complete RESP2 or RESP3 reply and returns its bytes.
func readReply(r *bufio.Reader) ([]byte, error) {
	var buf []byte
	err := readValue(r, &buf)
	return buf, err
}

func readValue(r *bufio.Reader, buf *[]byte) error {
	line, err := r.ReadBytes('\n')
	*buf = append(*buf, line...)
	if err != nil {
		if err == io.EOF && len(line) == 0 {
			return io.EOF
		}
		return fmt.Errorf("reading %q: %w", line, err)
	}
	if len(line) < 3 || line[len(line)-2] != '\r' {
		return fmt.Errorf("malformed line %q", line)
	}
	body := string(line[1 : len(line)-2])
	switch line[0] {
	case '+', '-', ':', '_', ',', '#', '(':
		return nil
	case '$', '!', '=': // blob: length, bytes, CRLF
		n, err := strconv.Atoi(body)
		if err != nil {
			return fmt.Errorf("bad length in %q", line)
		}
		if n < 0 {
			return nil
		}
		blob := make([]byte, n+2)
		if _, err := io.ReadFull(r, blob); err != nil {
			return err
		}
		*buf = append(*buf, blob...)
		return nil
	case '*', '~', '>', '%', '|':
		n, err := strconv.Atoi(body)
		if err != nil {
			return fmt.Errorf("bad count in %q", line)
		}
		if line[0] == '%' || line[0] == '|' {
			n *= 2
		}
		for i := 0; i < n; i++ {
			if err := readValue(r, buf); err != nil {
				return err
			}
		}
		if line[0] == '|' { // an attribute precedes the reply it describes
			return readValue(r, buf)
		}
		return nil
	}
	return fmt.Errorf("unknown reply type in %q", line)
}

// splitCommand splits a step written as one string into arguments:
// whitespace separates them; "..." and '...' quote (no escapes), so
// `SET k ""` has an empty value and `SET k "a b"` one with a space.
func splitCommand(s string) []string {
	var args []string
	i := 0
	for {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i == len(s) {
			return args
		}
		var arg strings.Builder
		for i < len(s) && s[i] != ' ' && s[i] != '\t' {
			if q := s[i]; q == '"' || q == '\'' {
				end := strings.IndexByte(s[i+1:], q)
				if end < 0 {
					panic("unbalanced quote in step " + s)
				}
				arg.WriteString(s[i+1 : i+1+end])
				i += end + 2
				continue
			}
			arg.WriteByte(s[i])
			i++
		}
		args = append(args, arg.String())
	}
}
