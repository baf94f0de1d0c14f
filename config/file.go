package config

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
)

// A redis.conf-style file: one "directive args..." per line, '#'
// comments, arguments quoted with "..." (with \n, \t, \r, \\ and \"
// escapes) or '...'. CONFIG REWRITE writes it back (engine's
// config_runtime.go) with Quote.

// SplitLine splits a config line into words.
func SplitLine(line string) ([]string, error) {
	var words []string
	i := 0
	for i < len(line) {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		if i >= len(line) {
			break
		}
		var w strings.Builder
		if q := line[i]; q == '"' || q == '\'' {
			i++
			closed := false
			for i < len(line) {
				c := line[i]
				if c == '\\' && q == '"' && i+1 < len(line) {
					i++
					switch line[i] {
					case 'n':
						w.WriteByte('\n')
					case 't':
						w.WriteByte('\t')
					case 'r':
						w.WriteByte('\r')
					default:
						w.WriteByte(line[i])
					}
					i++
					continue
				}
				if c == q {
					closed = true
					i++
					break
				}
				w.WriteByte(c)
				i++
			}
			if !closed {
				return nil, errors.New("unbalanced quotes in configuration line")
			}
			words = append(words, w.String())
			continue
		}
		for i < len(line) && line[i] != ' ' && line[i] != '\t' {
			w.WriteByte(line[i])
			i++
		}
		words = append(words, w.String())
	}
	return words, nil
}

// Quote writes a value so that SplitLine reads it back as one word: bare
// when it can, else in double quotes with \ and " escaped.
func Quote(v string) string {
	if v != "" && !strings.ContainsAny(v, " \t\r\n\"'\\#") {
		return v
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(v); i++ {
		switch c := v[i]; c {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// DirectiveOf is the directive a config line sets, lower case, or "" for
// a blank or comment line.
func DirectiveOf(line string) string {
	f := strings.Fields(line)
	if len(f) == 0 || strings.HasPrefix(f[0], "#") {
		return ""
	}
	return strings.ToLower(f[0])
}

// LineError is a config file line that could not be read, as
// redis-server reports it.
type LineError struct {
	Line int    // 1-based
	Text string // the line
	Err  error
}

// Error says the line as redis-server reports a bad config line: the
// line number, the line, then why.
func (e *LineError) Error() string {
	return fmt.Sprintf("line %d: >>> '%s'\n%v", e.Line, e.Text, e.Err)
}

// Unwrap gives the reason, so errors.As finds a *ValueError under it.
func (e *LineError) Unwrap() error { return e.Err }

// ReadFile reads a config file into s, line by line, as Settings.Set
// reads each directive.
func (s *Settings) ReadFile(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		words, err := SplitLine(line)
		if err == nil && len(words) > 0 {
			err = s.Set(words[0], words[1:])
		}
		if err != nil {
			return &LineError{Line: n, Text: line, Err: err}
		}
	}
	return sc.Err()
}
