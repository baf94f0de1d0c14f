package resp

import (
	"math"
	"strconv"

	"github.com/lockredis/lockredis/engine"
)

// Encoder is an engine.Writer that appends RESP2 or RESP3 bytes to Buf.
// The same handler output becomes either protocol; only this file knows
// the difference.
type Encoder struct {
	Buf   []byte
	Proto int // 2 or 3
	// flush, when set, takes the pending bytes (a subscribed connection
	// queues them with its messages); see FlushPending.
	flush func([]byte)
	// flushes counts FlushPending hand-offs: a reply begun before one can
	// no longer be retracted.
	flushes uint32
}

// FlushPending hands the bytes encoded so far to the connection's queue,
// so that a push written next cannot overtake them.
func (e *Encoder) FlushPending() {
	if e.flush != nil && len(e.Buf) > 0 {
		e.flush(e.Buf)
		e.Buf = e.Buf[:0]
		e.flushes++
	}
}

// ReplyMark and RetractReply let the engine take back a reply still in
// Buf (engine.Retractor): a write that could not reach the disk answers
// MISCONF instead of what its handler wrote.
func (e *Encoder) ReplyMark() uint64 { return uint64(e.flushes)<<32 | uint64(len(e.Buf)) }

// RetractReply drops what was encoded since mark, if it is still in Buf.
func (e *Encoder) RetractReply(mark uint64) bool {
	n := int(mark & (1<<32 - 1))
	if uint32(mark>>32) != e.flushes || n > len(e.Buf) {
		return false
	}
	e.Buf = e.Buf[:n]
	return true
}

var _ engine.Writer = (*Encoder)(nil)

// SetProto switches the encoding mid-reply: HELLO answers in the protocol
// it selects.
func (e *Encoder) SetProto(p int) { e.Proto = p }

func (e *Encoder) line(prefix byte, s string) {
	e.Buf = append(e.Buf, prefix)
	// Status and error lines cannot carry CR or LF.
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\r' || c == '\n' {
			c = ' '
		}
		e.Buf = append(e.Buf, c)
	}
	e.Buf = append(e.Buf, '\r', '\n')
}

func (e *Encoder) header(prefix byte, n int64) {
	e.Buf = append(e.Buf, prefix)
	e.Buf = strconv.AppendInt(e.Buf, n, 10)
	e.Buf = append(e.Buf, '\r', '\n')
}

// Status writes a simple string: +s.
func (e *Encoder) Status(s string) { e.line('+', s) }

// Error writes an error line; msg starts with its Redis prefix (ERR,
// WRONGTYPE...), a leading "-" is not doubled.
func (e *Encoder) Error(msg string) {
	if len(msg) == 0 || msg[0] != '-' {
		e.line('-', msg)
		return
	}
	e.line('-', msg[1:])
}

// Int writes an integer: :n.
func (e *Encoder) Int(n int64) { e.header(':', n) }

// Bulk writes a bulk string.
func (e *Encoder) Bulk(b []byte) {
	e.header('$', int64(len(b)))
	e.Buf = append(e.Buf, b...)
	e.Buf = append(e.Buf, '\r', '\n')
}

// BulkString writes a bulk string.
func (e *Encoder) BulkString(s string) {
	e.header('$', int64(len(s)))
	e.Buf = append(e.Buf, s...)
	e.Buf = append(e.Buf, '\r', '\n')
}

// Null writes a missing value: $-1 in RESP2, _ in RESP3.
func (e *Encoder) Null() { e.NullOf(e.Proto) }

// NullOf writes the null of protocol proto (engine.NullWriter).
func (e *Encoder) NullOf(proto int) {
	if proto == 3 {
		e.Buf = append(e.Buf, "_\r\n"...)
		return
	}
	e.Buf = append(e.Buf, "$-1\r\n"...)
}

// NullArray writes a missing aggregate: *-1 in RESP2, _ in RESP3.
func (e *Encoder) NullArray() {
	if e.Proto == 3 {
		e.Buf = append(e.Buf, "_\r\n"...)
		return
	}
	e.Buf = append(e.Buf, "*-1\r\n"...)
}

// Array writes the header of an array of n elements.
func (e *Encoder) Array(n int) { e.header('*', int64(n)) }

// Map writes the header of a map of n pairs: a flat array of 2n in RESP2.
func (e *Encoder) Map(n int) {
	if e.Proto == 3 {
		e.header('%', int64(n))
		return
	}
	e.header('*', int64(2*n))
}

// Set writes the header of a set of n members: an array in RESP2.
func (e *Encoder) Set(n int) {
	if e.Proto == 3 {
		e.header('~', int64(n))
		return
	}
	e.header('*', int64(n))
}

// Push writes the header of an out-of-band message of n elements: an
// array in RESP2.
func (e *Encoder) Push(n int) {
	if e.Proto == 3 {
		e.header('>', int64(n))
		return
	}
	e.header('*', int64(n))
}

// Double writes a double in RESP3, a bulk string in Redis's float
// format in RESP2.
func (e *Encoder) Double(f float64) {
	if e.Proto == 3 {
		e.Buf = append(e.Buf, ',')
		switch {
		case math.IsInf(f, 1):
			e.Buf = append(e.Buf, "inf"...)
		case math.IsInf(f, -1):
			e.Buf = append(e.Buf, "-inf"...)
		default:
			e.Buf = engine.AppendFloat(e.Buf, f)
		}
		e.Buf = append(e.Buf, '\r', '\n')
		return
	}
	e.BulkString(engine.FormatFloat(f))
}

// DoubleText is Double with the number's text chosen by the command
// (engine.DoubleTexter): Redis writes coordinates with 17 decimals.
func (e *Encoder) DoubleText(f float64, text string) {
	if e.Proto == 3 {
		e.Buf = append(e.Buf, ',')
		e.Buf = append(e.Buf, text...)
		e.Buf = append(e.Buf, '\r', '\n')
		return
	}
	e.BulkString(text)
}

// Bool writes #t or #f in RESP3, the integer 1 or 0 in RESP2.
func (e *Encoder) Bool(b bool) {
	if e.Proto == 3 {
		if b {
			e.Buf = append(e.Buf, "#t\r\n"...)
		} else {
			e.Buf = append(e.Buf, "#f\r\n"...)
		}
		return
	}
	if b {
		e.Int(1)
	} else {
		e.Int(0)
	}
}

// Verbatim writes s as a RESP3 verbatim string (a bulk string in RESP2).
// The format is always three bytes on the wire: Redis's
// addReplyVerbatim cuts a longer one and pads a shorter one with spaces
// (a script may return any {verbatim_string={format=...}}).
func (e *Encoder) Verbatim(format, s string) {
	if e.Proto == 3 {
		e.header('=', int64(len(s)+4))
		for i := 0; i < 3; i++ {
			if i < len(format) {
				e.Buf = append(e.Buf, format[i])
			} else {
				e.Buf = append(e.Buf, ' ')
			}
		}
		e.Buf = append(e.Buf, ':')
		e.Buf = append(e.Buf, s...)
		e.Buf = append(e.Buf, '\r', '\n')
		return
	}
	e.BulkString(s)
}

// BigNumber writes s as it is: the caller (a script's {big_number=...})
// has already made it a single line.
func (e *Encoder) BigNumber(s string) {
	if e.Proto == 3 {
		e.Buf = append(e.Buf, '(')
		e.Buf = append(e.Buf, s...)
		e.Buf = append(e.Buf, '\r', '\n')
		return
	}
	e.BulkString(s)
}
