package replication

import (
	"errors"
	"testing"
)

// The committer hands each waiter its outcome once: nil when a commit
// covers its Seq, the term's error when the term ends first, and a waiter
// registered after either learns it at once.
func TestCommitterWaiters(t *testing.T) {
	errX := errors.New("x")
	type step struct {
		// "wait" seq; "advance" seq: an entry up to seq committed;
		// "lost" seq: it failed; "stale" seq: an entry of an earlier term
		// committed; "fail": the term ends; "reset" seq: a new term.
		op  string
		seq uint64
	}
	tests := []struct {
		name  string
		steps []step
		// want is each wait's outcome by its position among the waits:
		// "ok", "err" (fail's error), "lost" (a failed entry's) or
		// "pending".
		want []string
	}{
		{"a commit wakes only the waiters it covers",
			[]step{{"wait", 3}, {"wait", 5}, {"wait", 4}, {"advance", 4}},
			[]string{"ok", "pending", "ok"}},
		{"the committed mark never moves back",
			[]step{{"advance", 6}, {"advance", 2}, {"wait", 5}, {"wait", 7}},
			[]string{"ok", "pending"}},
		{"the end of the term fails every waiter not covered",
			[]step{{"wait", 2}, {"wait", 9}, {"advance", 2}, {"fail", 0}},
			[]string{"ok", "err"}},
		{"after the end of the term a waiter fails at once",
			[]step{{"fail", 0}, {"wait", 1}},
			[]string{"err"}},
		{"a new term starts from the engine's Seq",
			[]step{{"wait", 4}, {"fail", 0}, {"reset", 10}, {"wait", 10}, {"wait", 11}},
			[]string{"err", "ok", "pending"}},
		{"a commit after the end of the term is not believed",
			[]step{{"wait", 4}, {"fail", 0}, {"advance", 4}, {"wait", 3}},
			[]string{"err", "err"}},
		{"a failed entry fails every waiter of the term",
			[]step{{"wait", 2}, {"wait", 5}, {"advance", 2}, {"lost", 5}, {"wait", 6}},
			[]string{"ok", "lost", "lost"}},
		{"an entry of an earlier term commits nothing now",
			[]step{{"reset", 3}, {"wait", 5}, {"stale", 5}},
			[]string{"pending"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCommitter(nil)
			c.reset(1, 0)
			var waits []<-chan error
			for _, s := range tt.steps {
				switch s.op {
				case "wait":
					waits = append(waits, c.register(s.seq))
				case "advance":
					c.resolved(c.term, s.seq, nil)
				case "lost":
					c.resolved(c.term, s.seq, errX)
				case "stale":
					c.resolved(c.term-1, s.seq, nil)
				case "fail":
					c.fail(errX, 0)
				case "reset":
					c.reset(2, s.seq)
				}
			}
			for i, ch := range waits {
				got := "pending"
				select {
				case err := <-ch:
					switch {
					case err == nil:
						got = "ok"
					case errors.Is(err, errLeadershipLost):
						got = "lost"
					default:
						got = "err"
					}
				default:
				}
				if got != tt.want[i] {
					t.Errorf("wait %d: %s, want %s", i, got, tt.want[i])
				}
			}
		})
	}
}
