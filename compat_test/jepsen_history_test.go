package compat

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// The history of a fault-test run, Jepsen's way: every operation a client
// invoked, with real-time bounds and how it ended. The checkers
// (jepsen_check_test.go) judge a history; they never look at the servers.

// outcome is how an operation ended, in Jepsen's three kinds.
type outcome int

const (
	// opOK: the server answered and the answer is the result.
	opOK outcome = iota
	// opFail: it certainly did not take effect (a refusal before execution,
	// such as -MOVED or the restart fence, or SET NX answering nil).
	opFail
	// opInfo: indeterminate; it may or may not have taken effect (a
	// timeout, a closed connection, an error after the write was sent).
	opInfo
)

func (o outcome) String() string {
	return [...]string{"ok", "fail", "info"}[o]
}

// op is one operation of a history. Times are nanoseconds since the run
// began, on the monotonic clock: start before the request was sent, end
// after its reply (or error) came back.
type op struct {
	client int
	node   string // the address the client talked to, for the reader
	f      string // "incr", "read", "get", "set", "cas", "acquire", "cs", "release", "lost"
	key    string
	arg    string // the value written (set), the expected value (cas), the owner (acquire)
	arg2   string // the new value (cas)
	start  int64
	end    int64
	result outcome
	value  string // the answer: a read's value ("" with isNil for nil), INCR's number, a token
	isNil  bool
	err    string
}

func (o op) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%7.3fs %7.3fs] c%d %s %s %s", float64(o.start)/1e9, float64(o.end)/1e9, o.client, o.result, o.f, o.key)
	if o.arg != "" {
		fmt.Fprintf(&b, " %s", o.arg)
	}
	if o.arg2 != "" {
		fmt.Fprintf(&b, " %s", o.arg2)
	}
	switch {
	case o.err != "":
		fmt.Fprintf(&b, " -> %s", o.err)
	case o.isNil:
		b.WriteString(" -> nil")
	case o.value != "":
		fmt.Fprintf(&b, " -> %s", o.value)
	}
	if o.node != "" {
		fmt.Fprintf(&b, " (via %s)", o.node)
	}
	return b.String()
}

// history collects the operations of a run from many goroutines.
type history struct {
	began time.Time
	mu    sync.Mutex
	ops   []op
}

func newHistory() *history { return &history{began: time.Now()} }

// now is the run's clock.
func (h *history) now() int64 { return int64(time.Since(h.began)) }

func (h *history) add(o op) {
	h.mu.Lock()
	h.ops = append(h.ops, o)
	h.mu.Unlock()
}

// all returns the operations ordered by start time.
func (h *history) all() []op {
	h.mu.Lock()
	ops := append([]op(nil), h.ops...)
	h.mu.Unlock()
	sort.SliceStable(ops, func(i, j int) bool { return ops[i].start < ops[j].start })
	return ops
}

// excerpt renders the operations that overlap [from, to] (ns), at most
// max of them, for a finding's report.
func excerpt(ops []op, from, to int64, max int) string {
	var b strings.Builder
	n := 0
	for _, o := range ops {
		if o.end < from || o.start > to {
			continue
		}
		if n == max {
			b.WriteString("    ...\n")
			break
		}
		fmt.Fprintf(&b, "    %s\n", o)
		n++
	}
	return b.String()
}

// definiteErrors are replies that say the command was not executed, so
// the operation certainly had no effect: a redirection, a refusal by the
// restart fence, a follower that knows no leader, a read-only replica.
// Every other error leaves the operation indeterminate: in a replicated
// group an error can come after the write reached the log (-TRYAGAIN
// leadership changed before the write was committed), and a write the
// leader appended before losing its connection may still commit.
var definiteErrors = []string{"MOVED ", "ASK ", "TRYAGAIN restart fence", "CLUSTERDOWN", "READONLY", "NOSCRIPT", "WRONGTYPE", "NOAUTH"}

// classify maps a client error to an outcome; nil and redis.Nil are
// answers (opOK), the caller decides what a nil means.
func classify(err error) outcome {
	if err == nil || errors.Is(err, redis.Nil) {
		return opOK
	}
	var re redis.Error
	if errors.As(err, &re) {
		msg := re.Error()
		for _, p := range definiteErrors {
			if strings.HasPrefix(msg, p) {
				return opFail
			}
		}
	}
	return opInfo
}
