package compat

import (
	"bytes"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// TestRedisCLIHints runs interactive redis-cli against the built binary in
// a pseudo-terminal, as a person would: typing "SET " shows the argument
// hint, and HELP SET prints the syntax and our summary. redis-cli 7.0
// builds both from COMMAND DOCS.
func TestRedisCLIHints(t *testing.T) {
	cli := requireTool(t, "redis-cli")
	addr := startBinary(t)
	_, port, _ := strings.Cut(addr, ":")

	term, err := openPTY()
	if err != nil {
		t.Fatalf("pseudo-terminal: %v", err)
	}
	defer term.close()
	cmd := exec.Command(cli, "-p", port)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = term.tty, term.tty, term.tty
	cmd.Env = append(os.Environ(), "TERM=xterm")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	term.tty.Close() // the child has it

	term.until(t, "> ")
	term.write(t, "SET ")
	term.until(t, "key value [NX|XX]")
	term.write(t, "\x15HELP SET\r") // ^U clears the line
	screen := term.until(t, "group: string")
	for _, want := range []string{"SET key value [NX|XX] [GET]", "summary: ", "since: 1.0.0"} {
		if !strings.Contains(screen, want) {
			t.Errorf("HELP SET shows no %q:\n%s", want, screen)
		}
	}
}

// pty is the master side of a pseudo-terminal and its terminal (slave).
type pty struct {
	master, tty *os.File
	out         bytes.Buffer
}

// openPTY opens a pseudo-terminal with Linux's /dev/ptmx.
func openPTY() (*pty, error) {
	// Non-blocking, so that os.File reads through the poller and read
	// deadlines work.
	fd, err := syscall.Open("/dev/ptmx", syscall.O_RDWR|syscall.O_NOCTTY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	master := os.NewFile(uintptr(fd), "/dev/ptmx")
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, master.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		master.Close()
		return nil, e
	}
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, master.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		master.Close()
		return nil, e
	}
	tty, err := os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		master.Close()
		return nil, err
	}
	// A wide terminal, so that line editing never wraps the hint.
	ws := [4]uint16{50, 200, 0, 0} // rows, columns
	syscall.Syscall(syscall.SYS_IOCTL, tty.Fd(), syscall.TIOCSWINSZ, uintptr(unsafe.Pointer(&ws)))
	return &pty{master: master, tty: tty}, nil
}

func (p *pty) close() { p.master.Close() }

func (p *pty) write(t *testing.T, s string) {
	t.Helper()
	if _, err := p.master.WriteString(s); err != nil {
		t.Fatalf("typing %q: %v", s, err)
	}
}

// until reads the terminal until it has shown want (since the last call),
// and returns what it showed.
func (p *pty) until(t *testing.T, want string) string {
	t.Helper()
	start := p.out.Len()
	deadline := time.Now().Add(10 * time.Second)
	buf := make([]byte, 4096)
	for !strings.Contains(plain(p.out.Bytes()[start:]), want) {
		if time.Now().After(deadline) {
			t.Fatalf("the terminal never showed %q; it showed:\n%q", want, p.out.Bytes()[start:])
		}
		p.master.SetReadDeadline(deadline)
		n, err := p.master.Read(buf)
		p.out.Write(buf[:n])
		// Answer the terminal's cursor position queries as a terminal
		// would (line editing waits for the answer).
		for range bytes.Count(buf[:n], []byte("\x1b[6n")) {
			p.write(t, "\x1b[1;1R")
		}
		if err != nil && n == 0 {
			t.Fatalf("reading the terminal: %v (it showed %q)", err, p.out.Bytes()[start:])
		}
	}
	return plain(p.out.Bytes()[start:])
}

// ansi matches the terminal's escape sequences (colours, cursor moves).
var ansi = regexp.MustCompile("\x1b\\[[0-9;]*[A-Za-z]")

// plain is what the terminal shows, without its escape sequences.
func plain(b []byte) string { return ansi.ReplaceAllString(string(b), "") }
