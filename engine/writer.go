package engine

import (
	"fmt"
)

// Writer receives a command's reply. Handlers never produce protocol bytes:
// resp/ encodes these calls as RESP2 or RESP3, luasvc turns them into Lua
// values, and Recorder keeps them as a Reply tree. Aggregates are announced
// by a length and followed by exactly that many elements (pairs for Map).
type Writer interface {
	Status(s string)
	Error(msg string) // msg starts with its Redis prefix: "ERR ...", "WRONGTYPE ..."
	Int(n int64)
	Bulk(b []byte)
	BulkString(s string)
	Null()      // missing value: $-1 in RESP2, _ in RESP3
	NullArray() // missing aggregate: *-1 in RESP2, _ in RESP3
	Array(n int)
	Map(n int) // n key/value pairs; a flat array of 2n in RESP2
	Set(n int) // an array in RESP2
	Double(f float64)
	Bool(b bool)
	Verbatim(format, s string) // a bulk string in RESP2
	BigNumber(s string)        // decimal digits; a bulk string in RESP2 (only scripts make one)
	Push(n int)                // out-of-band message; an array in RESP2
}

// Flusher is implemented by a Writer whose pending bytes can be handed on
// before a command pushes something out of band: a SUBSCRIBE inside EXEC
// confirms after the "*n" of EXEC's reply, not before it.
type Flusher interface {
	FlushPending()
}

// ReplyKind tells what a recorded Reply is.
type ReplyKind uint8

// The kinds of reply, one per Writer method.
const (
	KindStatus ReplyKind = iota
	KindError
	KindInt
	KindBulk
	KindNull
	KindNullArray
	KindArray
	KindMap
	KindSet
	KindDouble
	KindBool
	KindVerbatim
	KindPush
	KindBigNumber
)

// Reply is one recorded reply. Str holds status, error, bulk, verbatim and
// big number text; Int holds integers and booleans (0/1); Elems holds aggregate
// elements (maps flattened to key, value, key, value...).
type Reply struct {
	Kind   ReplyKind
	Str    string
	Int    int64
	Double float64
	Elems  []Reply
}

// Recorder is a Writer that keeps replies as Reply values. Scripts and the
// Go API run commands through it; tests read replies back from it.
type Recorder struct {
	Replies []Reply
	stack   []pending
}

type pending struct {
	r    Reply
	left int
}

// Reset empties the recorder for reuse.
func (r *Recorder) Reset() {
	r.Replies = r.Replies[:0]
	r.stack = r.stack[:0]
}

// Last returns the last complete top-level reply.
func (r *Recorder) Last() Reply {
	if len(r.Replies) == 0 {
		return Reply{Kind: KindNull}
	}
	return r.Replies[len(r.Replies)-1]
}

func (r *Recorder) add(rep Reply) {
	for {
		if len(r.stack) == 0 {
			r.Replies = append(r.Replies, rep)
			return
		}
		top := &r.stack[len(r.stack)-1]
		top.r.Elems = append(top.r.Elems, rep)
		top.left--
		if top.left > 0 {
			return
		}
		rep = top.r
		r.stack = r.stack[:len(r.stack)-1]
	}
}

func (r *Recorder) open(kind ReplyKind, n int) {
	if n <= 0 {
		r.add(Reply{Kind: kind, Elems: []Reply{}})
		return
	}
	r.stack = append(r.stack, pending{r: Reply{Kind: kind, Elems: make([]Reply, 0, n)}, left: n})
}

// Status records a status reply. Like it, Error, Int... record one reply
// each; Array, Map, Set and Push open an aggregate that the replies
// recorded next fill.
func (r *Recorder) Status(s string) { r.add(Reply{Kind: KindStatus, Str: s}) }

// Error records an error reply.
func (r *Recorder) Error(msg string) { r.add(Reply{Kind: KindError, Str: msg}) }

// Int records an integer.
func (r *Recorder) Int(n int64) { r.add(Reply{Kind: KindInt, Int: n}) }

// Bulk records a bulk string.
func (r *Recorder) Bulk(b []byte) { r.add(Reply{Kind: KindBulk, Str: string(b)}) }

// BulkString records a bulk string.
func (r *Recorder) BulkString(s string) { r.add(Reply{Kind: KindBulk, Str: s}) }

// Null records a missing value.
func (r *Recorder) Null() { r.add(Reply{Kind: KindNull}) }

// NullArray records a missing aggregate.
func (r *Recorder) NullArray() { r.add(Reply{Kind: KindNullArray}) }

// Array opens an array of n elements.
func (r *Recorder) Array(n int) { r.open(KindArray, n) }

// Map opens a map of n pairs (2n elements).
func (r *Recorder) Map(n int) { r.open(KindMap, 2*n) }

// Set opens a set of n members.
func (r *Recorder) Set(n int) { r.open(KindSet, n) }

// Push opens an out-of-band message of n elements.
func (r *Recorder) Push(n int) { r.open(KindPush, n) }

// Double records a double.
func (r *Recorder) Double(f float64) { r.add(Reply{Kind: KindDouble, Double: f}) }

// Verbatim records a verbatim string; the format is not kept.
func (r *Recorder) Verbatim(_, s string) { r.add(Reply{Kind: KindVerbatim, Str: s}) }

// BigNumber records a big number's digits.
func (r *Recorder) BigNumber(s string) { r.add(Reply{Kind: KindBigNumber, Str: s}) }

// Bool records a boolean (Int 1 or 0).
func (r *Recorder) Bool(b bool) {
	var n int64
	if b {
		n = 1
	}
	r.add(Reply{Kind: KindBool, Int: n})
}

// String renders a reply for test failures and Dump: RESP2-like and compact.
func (rep Reply) String() string {
	switch rep.Kind {
	case KindStatus:
		return rep.Str
	case KindError:
		return "(error) " + rep.Str
	case KindInt, KindBool:
		return fmt.Sprintf("(integer) %d", rep.Int)
	case KindBulk, KindVerbatim:
		return fmt.Sprintf("%q", rep.Str)
	case KindBigNumber:
		return "(big number) " + rep.Str
	case KindNull, KindNullArray:
		return "(nil)"
	case KindDouble:
		return FormatFloat(rep.Double)
	}
	s := "["
	for i, e := range rep.Elems {
		if i > 0 {
			s += " "
		}
		s += e.String()
	}
	return s + "]"
}

// Replay writes a recorded reply into another Writer.
func (rep Reply) Replay(w Writer) {
	switch rep.Kind {
	case KindStatus:
		w.Status(rep.Str)
	case KindError:
		w.Error(rep.Str)
	case KindInt:
		w.Int(rep.Int)
	case KindBulk:
		w.BulkString(rep.Str)
	case KindNull:
		w.Null()
	case KindNullArray:
		w.NullArray()
	case KindDouble:
		w.Double(rep.Double)
	case KindBool:
		w.Bool(rep.Int != 0)
	case KindVerbatim:
		w.Verbatim("txt", rep.Str)
	case KindBigNumber:
		w.BigNumber(rep.Str)
	case KindArray, KindSet, KindPush, KindMap:
		switch rep.Kind {
		case KindArray:
			w.Array(len(rep.Elems))
		case KindSet:
			w.Set(len(rep.Elems))
		case KindPush:
			w.Push(len(rep.Elems))
		case KindMap:
			w.Map(len(rep.Elems) / 2)
		}
		for _, e := range rep.Elems {
			e.Replay(w)
		}
	}
}

// WriteHelp replies a HELP text as Redis does: an array of status lines.
func WriteHelp(w Writer, lines []string) {
	w.Array(len(lines))
	for _, l := range lines {
		w.Status(l)
	}
}
