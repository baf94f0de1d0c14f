package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lockredis/lockredis/config"
	"github.com/spf13/pflag"
)

// exampleConfig is the commented example configuration of contrib/.
const exampleConfig = "../../contrib/lockredis.conf"

// TestExampleConfigStarts: the example configuration starts the server
// as it is (the command line moves the port and directory away from the
// system's).
func TestExampleConfigStarts(t *testing.T) {
	code, out := runOnce(t, "--bind", "127.0.0.1", exampleConfig)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if !strings.Contains(out, "append-only file") {
		t.Errorf("the example's appendonly yes was not applied:\n%s", out)
	}
}

// commentedDirective is an example line of a directive left at its
// default: "# name value".
var commentedDirective = regexp.MustCompile(`^# ([a-z][a-z0-9-]*)( .*)?$`)

// TestExampleConfigHasEveryDirective: every directive the binary takes is
// in the example configuration, set or commented out with an example
// value; the accepted-and-ignored and refused ones are named in its
// lists. The commented examples are valid lines too.
func TestExampleConfigHasEveryDirective(t *testing.T) {
	body, err := os.ReadFile(exampleConfig)
	if err != nil {
		t.Fatal(err)
	}
	fs := newCLI(io.Discard).fs
	lines := map[string]bool{}   // directives given or shown commented
	words := map[string]bool{}   // every word of the file
	var uncommented bytes.Buffer // the file with every example enabled
	for _, line := range strings.Split(string(body), "\n") {
		for _, w := range strings.FieldsFunc(line, func(r rune) bool { return r == ' ' || r == ',' || r == '(' || r == ')' || r == ':' }) {
			words[w] = true
		}
		if m := commentedDirective.FindStringSubmatch(line); m != nil && fs.Lookup(m[1]) != nil {
			lines[m[1]] = true
			line = line[2:]
		} else if f := strings.Fields(line); len(f) > 0 && f[0][0] != '#' {
			lines[f[0]] = true
		}
		uncommented.WriteString(line + "\n")
	}
	fs.VisitAll(func(f *pflag.Flag) {
		switch {
		case f.Name == "help" || f.Name == "version":
		case f.Hidden && !words[f.Name]:
			t.Errorf("%s (accepted and ignored, or refused) is not named in %s", f.Name, exampleConfig)
		case !f.Hidden && !lines[f.Name]:
			t.Errorf("directive %s has no line in %s", f.Name, exampleConfig)
		}
	})
	all := filepath.Join(t.TempDir(), "all.conf")
	if err := os.WriteFile(all, uncommented.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := readConfigFile(config.NewSettings(), all); err != nil {
		t.Errorf("an example line is not a valid directive: %v", err)
	}
}

// TestLogFileCopyTruncate: the log file is opened in append mode, so a
// rotation by copy and truncate (contrib/logrotate/lockredis: the server
// does not reopen its log) leaves no hole: the next lines start the
// emptied file.
func TestLogFileCopyTruncate(t *testing.T) {
	logfile := filepath.Join(t.TempDir(), "lockredis.log")
	_, srv := runBackground(t, `()`, "--logfile", logfile)
	deadline := time.Now().Add(10 * time.Second)
	for {
		if b, _ := os.ReadFile(logfile); bytes.Contains(b, []byte("Ready to accept connections")) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the server did not start")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := os.Truncate(logfile, 0); err != nil {
		t.Fatal(err)
	}
	if code := srv.exit(); code != 0 {
		t.Fatalf("exit status %d", code)
	}
	b, err := os.ReadFile(logfile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte(strconv.Itoa(os.Getpid())+":M ")) || bytes.IndexByte(b, 0) >= 0 || !bytes.Contains(b, []byte("bye bye")) {
		t.Errorf("log after truncation: %q", b)
	}
}
