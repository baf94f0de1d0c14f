package resp

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// CheckReply parses one reply from b as a strict client would and returns
// what follows it: tests and fuzz targets use it to check that what a
// server wrote is well-formed RESP. resp3 allows the RESP3 types.
func CheckReply(b []byte, resp3 bool) ([]byte, error) { return checkReplyDepth(b, resp3, 0) }

func checkReplyDepth(b []byte, resp3 bool, depth int) ([]byte, error) {
	if depth > 2000 {
		return nil, errors.New("reply nested too deep")
	}
	if len(b) == 0 {
		return nil, errors.New("missing reply")
	}
	i := bytes.Index(b, []byte("\r\n"))
	if i < 0 {
		return nil, fmt.Errorf("unterminated line %q", b)
	}
	typ, line, rest := b[0], string(b[1:i]), b[i+2:]
	if strings.ContainsAny(line, "\r\n") {
		return nil, fmt.Errorf("CR or LF inside the line %q", line)
	}
	count := func() (int64, error) {
		n, err := strconv.ParseInt(line, 10, 64)
		if err != nil || n < -1 || strconv.FormatInt(n, 10) != line {
			return 0, fmt.Errorf("bad length %q after %q", line, typ)
		}
		return n, nil
	}
	bulk := func() ([]byte, error) {
		n, err := count()
		if err != nil {
			return nil, err
		}
		if n < 0 {
			if typ != '$' {
				return nil, fmt.Errorf("negative length after %q", typ)
			}
			return rest, nil
		}
		if int64(len(rest)) < n+2 || string(rest[n:n+2]) != "\r\n" {
			return nil, fmt.Errorf("bulk of %d bytes not followed by CRLF in %q", n, rest)
		}
		if typ == '=' && (n < 4 || rest[3] != ':') {
			return nil, fmt.Errorf("verbatim string without its format: %q", rest[:n])
		}
		return rest[n+2:], nil
	}
	aggregate := func(per int64) ([]byte, error) {
		n, err := count()
		if err != nil {
			return nil, err
		}
		if n < 0 && typ != '*' {
			return nil, fmt.Errorf("negative count after %q", typ)
		}
		for j := int64(0); j < n*per; j++ {
			if rest, err = checkReplyDepth(rest, resp3, depth+1); err != nil {
				return nil, err
			}
		}
		return rest, nil
	}
	if !resp3 && strings.IndexByte("+-:$*", typ) < 0 {
		return nil, fmt.Errorf("type %q in RESP2", typ)
	}
	switch typ {
	case '+', '-':
		return rest, nil
	case ':':
		if _, err := strconv.ParseInt(line, 10, 64); err != nil {
			return nil, fmt.Errorf("bad integer %q", line)
		}
		return rest, nil
	case '$', '=', '!':
		return bulk()
	case '*', '~', '>':
		return aggregate(1)
	case '%', '|':
		return aggregate(2)
	case '_':
		if line != "" {
			return nil, fmt.Errorf("bad null %q", line)
		}
		return rest, nil
	case ',':
		if _, err := strconv.ParseFloat(line, 64); err != nil || strings.ContainsAny(line, "xX_pP") {
			return nil, fmt.Errorf("bad double %q", line)
		}
		return rest, nil
	case '#':
		if line != "t" && line != "f" {
			return nil, fmt.Errorf("bad boolean %q", line)
		}
		return rest, nil
	case '(':
		return rest, nil // a script's big number: any one line
	}
	return nil, fmt.Errorf("unknown reply type %q", typ)
}
