package replication

import (
	"bufio"
	"errors"
	"io"
	"strconv"
)

// readFrame reads one whole RESP2/RESP3 reply from br and appends its
// bytes, unchanged, to dst: a follower relays its leader's replies
// without decoding them. It reports whether the frame is a push ('>'),
// which may come between replies.
func readFrame(br *bufio.Reader, dst []byte) ([]byte, bool, error) {
	start := len(dst)
	dst, err := readValue(br, dst, 0)
	push := err == nil && len(dst) > start && dst[start] == '>'
	return dst, push, err
}

var errBadFrame = errors.New("replication: malformed reply from the leader")

const maxFrameDepth = 64

func readValue(br *bufio.Reader, dst []byte, depth int) ([]byte, error) {
	if depth > maxFrameDepth {
		return dst, errBadFrame
	}
	line, err := br.ReadSlice('\n')
	if err != nil {
		if errors.Is(err, bufio.ErrBufferFull) {
			return dst, errBadFrame
		}
		return dst, err
	}
	if len(line) < 3 || line[len(line)-2] != '\r' {
		return dst, errBadFrame
	}
	dst = append(dst, line...)
	kind, body := line[0], line[1:len(line)-2]
	switch kind {
	case '+', '-', ':', '_', '#', ',', '(':
		return dst, nil
	case '$', '=', '!':
		n, err := strconv.Atoi(string(body))
		if err != nil || n < -1 {
			return dst, errBadFrame
		}
		if n == -1 {
			return dst, nil
		}
		start := len(dst)
		dst = append(dst, make([]byte, n+2)...)
		if _, err := io.ReadFull(br, dst[start:]); err != nil {
			return dst, err
		}
		return dst, nil
	case '*', '~', '>', '%', '|':
		n, err := strconv.Atoi(string(body))
		if err != nil || n < -1 {
			return dst, errBadFrame
		}
		if kind == '%' || kind == '|' {
			n *= 2
		}
		for range n {
			if dst, err = readValue(br, dst, depth+1); err != nil {
				return dst, err
			}
		}
		if kind == '|' { // an attribute precedes the reply it describes
			return readValue(br, dst, depth+1)
		}
		return dst, nil
	}
	return dst, errBadFrame
}

// appendCommand encodes args as a RESP array of bulk strings.
func appendCommand(dst []byte, args [][]byte) []byte {
	dst = append(dst, '*')
	dst = strconv.AppendInt(dst, int64(len(args)), 10)
	dst = append(dst, '\r', '\n')
	for _, a := range args {
		dst = append(dst, '$')
		dst = strconv.AppendInt(dst, int64(len(a)), 10)
		dst = append(dst, '\r', '\n')
		dst = append(dst, a...)
		dst = append(dst, '\r', '\n')
	}
	return dst
}
