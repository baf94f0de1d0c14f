package keyspace

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	recSet = "*3\r\n$3\r\nset\r\n$1\r\nk\r\n$1\r\nv\r\n"
	recDel = "*2\r\n$3\r\ndel\r\n$1\r\nk\r\n"
)

func TestScanAOF(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		good int
		err  error
	}{
		{"empty", "", 0, nil},
		{"records", recSet + recDel + "*1\r\n$7\r\nflushdb\r\n", len(recSet+recDel) + 17, nil},
		{"nul bytes between records", recSet + "\x00\x00" + recDel, len(recSet+recDel) + 2, nil},
		{"torn header", recSet + "*3\r", len(recSet), io.ErrUnexpectedEOF},
		{"torn argument", recSet + recSet[:20], len(recSet), io.ErrUnexpectedEOF},
		{"torn before CRLF", recSet + recSet[:len(recSet)-1], len(recSet), io.ErrUnexpectedEOF},
		{"bad header", recSet + "+OK\r\n" + recSet, len(recSet), errCorruptAOF},
		{"bad argument header", recSet + "*2\r\n:3\r\ndel\r\n", len(recSet), errCorruptAOF},
		{"no CRLF after argument", "*2\r\n$3\r\ndelXX$1\r\nk\r\n", 0, errCorruptAOF},
		{"unknown command", "*2\r\n$3\r\nget\r\n$1\r\nk\r\n" + recSet, 0, errCorruptAOF},
		{"set with 4 arguments", "*4\r\n$3\r\nset\r\n$1\r\nk\r\n$1\r\nv\r\n$1\r\nx\r\n", 0, errCorruptAOF},
	} {
		t.Run(tc.name, func(t *testing.T) {
			good, _, err := scanAOF(bufio.NewReader(strings.NewReader(tc.in)))
			if good != int64(tc.good) || !errors.Is(err, tc.err) && err != tc.err {
				t.Fatalf("got (%d, %v), want (%d, %v)", good, err, tc.good, tc.err)
			}
		})
	}
}

func writeAOF(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "appendonly.aof")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCheckAOFTornTailIsCutAndLogged(t *testing.T) {
	path := writeAOF(t, recSet+recDel[:10])
	var logged []string
	logf := func(_, format string, args ...any) { logged = append(logged, fmt.Sprintf(format, args...)) }
	if err := checkAOF(path, logf); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if string(b) != recSet {
		t.Fatalf("file after the check: %q", b)
	}
	if len(logged) != 1 || !strings.Contains(logged[0], fmt.Sprintf("dropping its 10 bytes at offset %d", len(recSet))) {
		t.Fatalf("log: %q", logged)
	}
}

func TestCheckAOFCorruptMiddleRefuses(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"garbage", recSet + "garbage\r\n" + recSet, "at byte offset 27"},
		// A length that runs past the end looks like a torn tail, but
		// whole records follow: it is corruption.
		{"inflated length", "*3\r\n$3\r\nset\r\n$1\r\nk\r\n$999\r\nv\r\n" + recSet + recDel, "at byte offset 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeAOF(t, tc.body)
			err := checkAOF(path, func(string, string, ...any) {})
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v", err)
			}
			if b, _ := os.ReadFile(path); string(b) != tc.body {
				t.Fatal("the file was changed")
			}
			s, err := Open(Config{Path: path})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Load(); err == nil {
				t.Fatal("Load loaded a corrupt file")
			}
			s.Close()
		})
	}
}
