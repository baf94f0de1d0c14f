package engine

import (
	"bytes"
	"math"
)

// What the stream commands (cmd_stream.go) and the consumer-group ones
// (cmd_stream_group.go) share: entry IDs and ranges read from arguments,
// and an entry written as a reply.

var (
	errStreamID    = replyError("ERR Invalid stream ID specified as stream command argument")
	errEndInterval = replyError("ERR invalid end ID for the interval")
)

// parseStreamID is streamGenericParseIDOrReply: "-", "+" (not when strict),
// <ms> (seq = missingSeq) or <ms>-<seq>; with seqStar, <ms>-* leaves the
// sequence to be generated (seqGiven false).
func parseStreamID(b []byte, missingSeq uint64, strict, seqStar bool) (id streamID, seqGiven bool, err error) {
	if len(b) > 127 {
		return id, false, errStreamID
	}
	s := string(b)
	if i := bytes.IndexByte(b, 0); i >= 0 {
		s = s[:i] // Redis reads the argument as a C string
	}
	if strict && (s == "-" || s == "+") {
		return id, false, errStreamID
	}
	switch s {
	case "-":
		return streamID{}, true, nil
	case "+":
		return maxStreamID, true, nil
	}
	msPart, seqPart, hasSeq := s, "", false
	if i := bytes.IndexByte([]byte(s), '-'); i >= 0 {
		msPart, seqPart, hasSeq = s[:i], s[i+1:], true
	}
	ms, ok := parseUllC(msPart)
	if !ok {
		return id, false, errStreamID
	}
	seq, seqGiven := missingSeq, true
	if hasSeq {
		if seqStar && seqPart == "*" {
			seq, seqGiven = 0, false
		} else if seq, ok = parseUllC(seqPart); !ok {
			return id, false, errStreamID
		}
	}
	return streamID{ms, seq}, seqGiven, nil
}

func parseStrictID(b []byte) (streamID, error) {
	id, _, err := parseStreamID(b, 0, true, false)
	return id, err
}

// parseIntervalID is streamParseIntervalIDOrReply: a "(" prefix makes the
// bound exclusive, and the ID after it strict.
func parseIntervalID(b []byte, missingSeq uint64) (streamID, bool, error) {
	if len(b) > 1 && b[0] == '(' {
		id, _, err := parseStreamID(b[1:], missingSeq, true, false)
		return id, true, err
	}
	id, _, err := parseStreamID(b, missingSeq, false, false)
	return id, false, err
}

// parseRange reads a [start, end] interval; exclusive bounds move inward.
func parseRange(startArg, endArg []byte) (streamID, streamID, error) {
	start, ex, err := parseIntervalID(startArg, 0)
	if err != nil {
		return start, start, err
	}
	if ex {
		var ok bool
		if start, ok = start.incr(); !ok {
			return start, start, errStartInterval
		}
	}
	end, ex, err := parseIntervalID(endArg, math.MaxUint64)
	if err != nil {
		return start, end, err
	}
	if ex {
		var ok bool
		if end, ok = end.decr(); !ok {
			return start, end, errEndInterval
		}
	}
	return start, end, nil
}

func parseLongLong(b []byte) (int64, error) {
	n, ok := ParseInt(b)
	if !ok {
		return 0, ErrNotInteger
	}
	return n, nil
}

// ------------------------------------------------------------ replies

func writeStreamEntry(w Writer, e *streamEntry) {
	w.Array(2)
	w.BulkString(e.id.String())
	w.Array(len(e.fields))
	for _, f := range e.fields {
		w.BulkString(f)
	}
}

// ------------------------------------------------------------ parsing IDs

// parseUllC is Redis's string2ull on a C string: canonical integers, and
// otherwise what strtoull accepts (leading spaces, a sign, zeros; a minus
// wraps around).
func parseUllC(s string) (uint64, bool) {
	if v, ok := ParseInt([]byte(s)); ok {
		return uint64(v), v >= 0
	}
	i := 0
	for i < len(s) && (s[i] == ' ' || (s[i] >= '\t' && s[i] <= '\r')) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	if i == len(s) {
		return 0, false
	}
	var v uint64
	for ; i < len(s); i++ {
		d := s[i]
		if d < '0' || d > '9' {
			return 0, false
		}
		if v > (math.MaxUint64-uint64(d-'0'))/10 {
			return 0, false // ERANGE
		}
		v = v*10 + uint64(d-'0')
	}
	if neg {
		v = -v
	}
	return v, true
}
