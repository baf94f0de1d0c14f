package engine

import (
	"bytes"
	"fmt"
	"math/rand"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/buntdb"
)

// applier is a ChangeListener that applies every batch to another engine,
// after a round trip through the binary form.
type applier struct {
	t       *testing.T
	to      *Engine
	mu      sync.Mutex
	lastSeq uint64
	batches int
}

func (a *applier) Committed(b *ChangeBatch) func() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if b.Seq <= a.lastSeq {
		a.t.Errorf("batch %d after batch %d", b.Seq, a.lastSeq)
	}
	a.lastSeq = b.Seq
	a.batches++
	p, err := b.MarshalBinary()
	if err != nil {
		a.t.Fatal(err)
	}
	var got ChangeBatch
	if err := got.UnmarshalBinary(p); err != nil {
		a.t.Fatalf("batch %d: %v", b.Seq, err)
	}
	if err := a.to.Apply(&got); err != nil {
		a.t.Errorf("apply batch %d: %v", b.Seq, err)
	}
	return nil
}

// storedState is everything a keyspace holds, as buntdb stores it, and
// the token counter.
func storedState(t *testing.T, e *Engine) (map[string]string, uint64) {
	t.Helper()
	items := map[string]string{}
	var next uint64
	e.db.View(func(bt *buntdb.Tx) error {
		bt.Ascend("", func(k, v string) bool {
			items[k] = v
			return true
		})
		next = e.tokens.next
		return nil
	})
	return items, next
}

// sameState fails the test where b's keyspace differs from a's: every
// database, every key's stored bytes (type, expiry, token, payload), the
// function libraries, the token counter, and the counters kept beside the
// keyspace (keys, keys with an expiry, the expiry queue).
func sameState(t *testing.T, what string, a, b *Engine) {
	t.Helper()
	ia, na := storedState(t, a)
	ib, nb := storedState(t, b)
	if na != nb {
		t.Errorf("%s: next token %d, want %d", what, nb, na)
	}
	for k, v := range ia {
		if w, ok := ib[k]; !ok {
			t.Errorf("%s: key %q missing", what, k)
		} else if w != v {
			t.Errorf("%s: key %q holds %q, want %q", what, k, w, v)
		}
	}
	for k := range ib {
		if _, ok := ia[k]; !ok {
			t.Errorf("%s: extra key %q", what, k)
		}
	}
	for db := 0; db < a.Databases(); db++ {
		if x, y := a.keys[db].Load(), b.keys[db].Load(); x != y {
			t.Errorf("%s: db %d counts %d keys, want %d", what, db, y, x)
		}
		if x, y := a.volatile[db].Load(), b.volatile[db].Load(); x != y {
			t.Errorf("%s: db %d counts %d volatile keys, want %d", what, db, y, x)
		}
	}
	if x, y := a.guards.dataset.Load(), b.guards.dataset.Load(); x != y {
		t.Errorf("%s: dataset memory %d, want %d", what, y, x)
	}
}

// randomCommand is one command of a random stream over few keys, so that
// commands meet each other's keys, types and expiries.
func randomCommand(r *rand.Rand) []string {
	key := func() string { return "k" + strconv.Itoa(r.Intn(6)) }
	// A key of one type most of the time, of any other now and then.
	typed := func(prefix string) string {
		if r.Intn(4) == 0 {
			return key()
		}
		return prefix + strconv.Itoa(r.Intn(3))
	}
	n := func() string { return strconv.Itoa(r.Intn(20) - 5) }
	ms := func() string { return strconv.Itoa(1 + r.Intn(3000)) }
	cmds := [][]string{
		{"SET", key(), n()},
		{"SET", key(), n(), "PX", ms()},
		{"SET", key(), n(), "NX", "PX", ms()},
		{"SET", key(), n(), "XX", "KEEPTTL"},
		{"GETEX", key(), "PX", ms()},
		{"GETDEL", key()},
		{"GET", key()},
		{"EXISTS", key(), key()},
		{"APPEND", key(), "x"},
		{"SETRANGE", key(), "2", "yz"},
		{"INCR", key()},
		{"INCRBYFLOAT", key(), "1.5"},
		{"DEL", key(), key()},
		{"UNLINK", key()},
		{"PEXPIRE", typed("h"), ms()},
		{"PEXPIRE", key(), ms()},
		{"PERSIST", key()},
		{"RENAME", typed("z"), key()},
		{"COPY", key(), key(), "REPLACE"},
		{"COPY", key(), key(), "DB", "1"},
		{"MOVE", key(), "1"},
		{"HSET", typed("h"), "f" + n(), n(), "g", n()},
		{"HDEL", typed("h"), "g"},
		{"HINCRBY", typed("h"), "c", "1"},
		{"HPEXPIRE", typed("h"), ms(), "FIELDS", "1", "g"},
		{"LPUSH", typed("l"), n(), n()},
		{"RPOP", typed("l")},
		{"LMOVE", typed("l"), typed("l"), "LEFT", "RIGHT"},
		{"SADD", typed("s"), n(), n()},
		{"SREM", typed("s"), n()},
		{"SINTERSTORE", typed("s"), typed("s"), typed("s")},
		{"ZADD", typed("z"), n(), "m" + n()},
		{"ZINCRBY", typed("z"), "2", "m1"},
		{"ZPOPMIN", typed("z")},
		{"SORT", typed("l"), "STORE", typed("l")},
		{"XADD", typed("x"), "*", "f", n()},
		{"XTRIM", typed("x"), "MAXLEN", "2"},
		{"PFADD", typed("p"), n(), n()},
		{"SETBIT", key(), strconv.Itoa(r.Intn(40)), "1"},
		{"LOCK.ACQUIRE", "lock" + strconv.Itoa(r.Intn(2)), "o" + strconv.Itoa(r.Intn(3)), ms()},
		{"LOCK.RELEASE", "lock" + strconv.Itoa(r.Intn(2)), "o" + strconv.Itoa(r.Intn(3))},
		{"LOCK.EXTEND", "lock" + strconv.Itoa(r.Intn(2)), "o" + strconv.Itoa(r.Intn(3)), ms()},
		{"SELECT", strconv.Itoa(r.Intn(3))},
		{"SWAPDB", strconv.Itoa(r.Intn(3)), strconv.Itoa(r.Intn(3))},
		{"DBSIZE"},
		{"RANDOMKEY"},
		{"SCAN", "0", "COUNT", "100"},
	}
	if r.Intn(40) == 0 {
		return []string{"FLUSHDB"}
	}
	if r.Intn(80) == 0 {
		return []string{"FLUSHALL"}
	}
	return cmds[r.Intn(len(cmds))]
}

// TestApplyReproducesKeyspace runs random command streams on a leader
// whose change listener applies every batch to a follower, and checks that
// both hold the same bytes after every command, through expiry (lazy,
// active, hash fields), MULTI/EXEC, SWAPDB and flushes.
func TestApplyReproducesKeyspace(t *testing.T) {
	for seed := int64(1); seed <= 12; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewSource(seed))
			leader := newTestEngine(t)
			follower := newTestEngine(t)
			follower.SetFollower(true)
			ap := &applier{t: t, to: follower.Engine}
			leader.SetChangeListener(ap)
			for i := 0; i < 400; i++ {
				switch x := r.Intn(30); {
				case x == 0:
					leader.Clock.FastForward(time.Duration(r.Intn(2000)) * time.Millisecond)
				case x == 1:
					leader.Sweep(0)
				case x == 2:
					leader.do("MULTI")
					for j := r.Intn(4); j >= 0; j-- {
						args := randomCommand(r)
						bargs := make([][]byte, len(args))
						for i, a := range args {
							bargs[i] = []byte(a)
						}
						var rec Recorder
						leader.Dispatch(leader.s, nil, bargs, &rec)
					}
					leader.do("EXEC")
				default:
					leader.do(randomCommand(r)...)
				}
				if t.Failed() {
					t.Fatalf("after command %d", i)
				}
				sameState(t, fmt.Sprintf("after command %d", i), leader.Engine, follower.Engine)
			}
			if ap.batches == 0 {
				t.Fatal("no batch reported")
			}
			// The follower expired nothing by itself: its state only came
			// from the batches, even with its clock far ahead.
			follower.Clock.FastForward(time.Hour)
			follower.Sweep(0)
			follower.do("SELECT", "0")
			for k := 0; k < 6; k++ {
				follower.do("GET", "k"+strconv.Itoa(k))
			}
			leader.SetChangeListener(nil)
			sameState(t, "after the follower's reads", leader.Engine, follower.Engine)

			// A snapshot restores the same state on a third engine that
			// had other keys.
			third := newTestEngine(t)
			third.do("SET", "other", "x")
			third.do("SELECT", "4")
			third.do("SET", "other", "y", "PX", "100")
			var buf bytes.Buffer
			if err := leader.WriteSnapshot(&buf); err != nil {
				t.Fatal(err)
			}
			if err := third.RestoreSnapshot(bytes.NewReader(buf.Bytes())); err != nil {
				t.Fatal(err)
			}
			sameState(t, "restored", leader.Engine, third.Engine)
		})
	}
}

// TestChangeBatchesConcurrent: batches from concurrent writers reach the
// listener in commit order; applying them in that order reproduces the
// keyspace and the token counter.
func TestChangeBatchesConcurrent(t *testing.T) {
	leader := newTestEngine(t)
	follower := newTestEngine(t)
	follower.SetFollower(true)
	leader.SetChangeListener(&applier{t: t, to: follower.Engine})
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			s := NewSession("normal")
			s.Authenticated = true
			leader.AddSession(s)
			defer leader.RemoveSession(s)
			for i := 0; i < 200; i++ {
				var rec Recorder
				k := []byte("k" + strconv.Itoa(i%7))
				switch i % 3 {
				case 0:
					leader.Dispatch(s, nil, [][]byte{[]byte("INCR"), k}, &rec)
				case 1:
					leader.Dispatch(s, nil, [][]byte{[]byte("SET"), k, []byte(strconv.Itoa(g)), []byte("NX")}, &rec)
				default:
					leader.Dispatch(s, nil, [][]byte{[]byte("DEL"), k}, &rec)
				}
			}
		}(g)
	}
	wg.Wait()
	sameState(t, "after concurrent writers", leader.Engine, follower.Engine)
}

// waitListener holds every batch's after-commit effects until released.
type waitListener struct {
	committed chan uint64
	release   chan struct{}
}

func (w *waitListener) Committed(b *ChangeBatch) func() {
	w.committed <- b.Seq
	return func() { <-w.release }
}

// TestChangeListenerWaitHoldsReply: the wait a listener returns holds the
// command (so its reply) and its after-commit effects, but not the
// keyspace: another client's command runs meanwhile.
func TestChangeListenerWaitHoldsReply(t *testing.T) {
	te := newTestEngine(t)
	wl := &waitListener{committed: make(chan uint64, 10), release: make(chan struct{})}
	te.SetChangeListener(wl)
	done := make(chan Reply)
	go func() {
		s := NewSession("normal")
		s.Authenticated = true
		te.AddSession(s)
		var rec Recorder
		te.Dispatch(s, nil, [][]byte{[]byte("SET"), []byte("a"), []byte("1")}, &rec)
		done <- rec.Last()
	}()
	<-wl.committed
	select {
	case <-done:
		t.Fatal("the reply left before the wait ended")
	default:
	}
	// Reads run while the batch waits; they see the write (it is the
	// replicated layer's job to hold read replies too).
	if got := te.do("GET", "a").String(); got != `"1"` {
		t.Fatalf("GET while held: %s", got)
	}
	close(wl.release)
	if got := (<-done).String(); got != "OK" {
		t.Fatalf("SET replied %s", got)
	}
}

// TestApplyTellsWatchers: a batch applied on a follower breaks the WATCH
// of a key it changes, and only of that key.
func TestApplyTellsWatchers(t *testing.T) {
	te := newTestEngine(t)
	te.SetFollower(true)
	te.run([]step{
		{cmd("WATCH", "w"), "OK"},
		{cmd("MULTI"), "OK"},
		{cmd("PING"), "QUEUED"},
	})
	err := te.Apply(&ChangeBatch{Changes: []Change{
		{Kind: ChangePut, DB: 0, Key: "other", Raw: encodeValue(Value{Type: TypeString, Payload: "x", Token: 1})},
	}})
	if err != nil {
		t.Fatal(err)
	}
	te.run([]step{{cmd("EXEC"), "[PONG]"}})
	te.run([]step{
		{cmd("WATCH", "w"), "OK"},
		{cmd("MULTI"), "OK"},
		{cmd("PING"), "QUEUED"},
	})
	err = te.Apply(&ChangeBatch{Changes: []Change{
		{Kind: ChangePut, DB: 0, Key: "w", Raw: encodeValue(Value{Type: TypeString, Payload: "x", Token: 2})},
	}, NextToken: 3})
	if err != nil {
		t.Fatal(err)
	}
	te.run([]step{{cmd("EXEC"), "(nil)"}})
	if te.tokens.next != 3 {
		t.Fatalf("next token %d, want 3", te.tokens.next)
	}
}

// TestFollowerExpiresNothing: a follower reads an expired key as missing
// but keeps it stored, and its sweeper and lock timers do nothing, until
// it stops following.
func TestFollowerExpiresNothing(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{{cmd("SET", "k", "v", "PX", "100"), "OK"}})
	te.SetFollower(true)
	te.Clock.FastForward(time.Second)
	te.run([]step{
		{cmd("GET", "k"), "(nil)"},
		{cmd("DBSIZE"), "(integer) 1"},
	})
	if n := te.Sweep(0); n != 0 {
		t.Fatalf("a follower's sweep deleted %d keys", n)
	}
	te.SetFollower(false)
	te.run([]step{
		{cmd("GET", "k"), "(nil)"},
		{cmd("DBSIZE"), "(integer) 0"},
	})
}

// TestApplyRefusesBadBatches: a batch Apply cannot apply whole changes
// nothing.
func TestApplyRefusesBadBatches(t *testing.T) {
	te := newTestEngine(t)
	good := Change{Kind: ChangePut, DB: 0, Key: "a", Raw: encodeValue(Value{Type: TypeString, Payload: "x", Token: 1})}
	for _, tc := range []struct {
		name string
		c    Change
	}{
		{"database out of range", Change{Kind: ChangePut, DB: 16, Key: "a", Raw: good.Raw}},
		{"negative database", Change{Kind: ChangeDelete, DB: -1, Key: "a"}},
		{"swap out of range", Change{Kind: ChangeSwapDB, DB: 0, DB2: 99}},
		{"short value", Change{Kind: ChangePut, DB: 0, Key: "a", Raw: "s"}},
		{"unknown state", Change{Kind: ChangeState, Key: "nobody"}},
		{"unknown kind", Change{Kind: 99}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := te.Apply(&ChangeBatch{Changes: []Change{good, tc.c}}); err == nil {
				t.Fatal("applied")
			}
			if got := te.do("DBSIZE").String(); got != "(integer) 0" {
				t.Fatalf("DBSIZE %s after a refused batch", got)
			}
		})
	}
}

// TestChangeBatchBinary: every kind survives MarshalBinary, and truncated
// or garbled input is an error, never a panic.
func TestChangeBatchBinary(t *testing.T) {
	b := &ChangeBatch{Seq: 7, Time: -5, NextToken: 1 << 40, Changes: []Change{
		{Kind: ChangePut, DB: 3, Key: "k", Raw: "raw\x00bytes"},
		{Kind: ChangeDelete, DB: 255, Key: ""},
		{Kind: ChangeFlushDB, DB: 2},
		{Kind: ChangeFlushAll},
		{Kind: ChangeSwapDB, DB: 1, DB2: 4},
		{Kind: ChangeFunctions, Raw: "lib"},
		{Kind: ChangeState, Key: "scripts", Raw: "x"},
	}}
	p, err := b.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var got ChangeBatch
	if err := got.UnmarshalBinary(p); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != fmt.Sprint(*b) {
		t.Fatalf("got %+v, want %+v", got, *b)
	}
	for i := 0; i < len(p); i++ {
		if err := new(ChangeBatch).UnmarshalBinary(p[:i]); err == nil {
			t.Fatalf("truncated at %d: no error", i)
		}
	}
}

// FuzzChangeBatchUnmarshal: decoding arbitrary bytes never panics, and
// what decodes encodes back to the same bytes.
func FuzzChangeBatchUnmarshal(f *testing.F) {
	b := &ChangeBatch{Seq: 1, Time: 2, NextToken: 3, Changes: []Change{{Kind: ChangePut, DB: 1, Key: "k", Raw: "v"}}}
	p, _ := b.MarshalBinary()
	f.Add(p)
	f.Fuzz(func(t *testing.T, p []byte) {
		var b ChangeBatch
		if b.UnmarshalBinary(p) != nil {
			return
		}
		q, _ := b.MarshalBinary()
		var c ChangeBatch
		if err := c.UnmarshalBinary(q); err != nil || fmt.Sprint(b) != fmt.Sprint(c) {
			t.Fatalf("re-encoded batch differs: %v", err)
		}
	})
}

// countState is a StateHandler for tests: a counter.
type countState struct{ n int }

func (c *countState) ApplyState(_ *Tx, p []byte) error {
	n, err := strconv.Atoi(string(p))
	c.n = n
	return err
}
func (c *countState) SaveState() ([]byte, error) { return []byte(strconv.Itoa(c.n)), nil }
func (c *countState) RestoreState(_ *Tx, p []byte) error {
	if p == nil {
		c.n = 0
		return nil
	}
	return c.ApplyState(nil, p)
}

// TestStateAndSnapshot: recorded state travels in batches and snapshots;
// a snapshot keeps the function libraries and raises, never lowers, the
// token counter; a malformed snapshot changes nothing.
func TestStateAndSnapshot(t *testing.T) {
	leader, follower := newTestEngine(t), newTestEngine(t)
	ls, fs := &countState{}, &countState{}
	leader.RegisterState("count", ls)
	follower.RegisterState("count", fs)
	leader.SetChangeListener(&applier{t: t, to: follower.Engine})
	var loaded []string
	follower.SetFunctionsLoader(func(p []byte) { loaded = append(loaded, string(p)) })
	leader.Do(true, 0, func(tx *Tx) {
		ls.n = 5
		tx.RecordState("count", []byte("5"))
		tx.PutFunctions([]byte("libs"))
		tx.Put([]byte("k"), Value{Type: TypeString, Payload: "v"})
	})
	if fs.n != 5 || fmt.Sprint(loaded) != "[libs]" {
		t.Fatalf("follower state %d, functions loaded %q", fs.n, loaded)
	}
	sameState(t, "after the batch", leader.Engine, follower.Engine)

	var buf bytes.Buffer
	if err := leader.WriteSnapshot(&buf); err != nil {
		t.Fatal(err)
	}
	third := newTestEngine(t)
	ts := &countState{n: 99}
	third.RegisterState("count", ts)
	third.tokens.next = 1 << 30
	if err := third.RestoreSnapshot(bytes.NewReader(buf.Bytes())); err != nil {
		t.Fatal(err)
	}
	if ts.n != 5 {
		t.Fatalf("restored state %d", ts.n)
	}
	if p, ok := third.StoredFunctions(); !ok || string(p) != "libs" {
		t.Fatalf("restored functions %q %v", p, ok)
	}
	if third.tokens.next != 1<<30 {
		t.Fatalf("the token counter went down to %d", third.tokens.next)
	}
	snap := buf.Bytes()
	for i := 0; i < len(snap); i++ {
		if err := third.RestoreSnapshot(bytes.NewReader(snap[:i])); err == nil {
			t.Fatalf("a snapshot cut at %d restored", i)
		}
	}
	if got := third.do("GET", "k").String(); got != `"v"` {
		t.Fatalf("after refused snapshots: GET k %s", got)
	}
}

// FuzzRestoreSnapshot: restoring arbitrary bytes never panics, and a
// snapshot that restores leaves the counters kept beside the keyspace in
// step with it (a second engine restoring the same bytes agrees).
func FuzzRestoreSnapshot(f *testing.F) {
	e, err := New(Config{Clock: NewManualClock(time.Unix(1700000000, 0))})
	if err != nil {
		f.Fatal(err)
	}
	defer e.Close()
	e.Do(true, 0, func(tx *Tx) {
		tx.Put([]byte("k"), Value{Type: TypeString, Payload: "v", ExpireAt: 1700000001000})
		tx.PutIn(2, []byte("h"), Value{Type: TypeHash, Payload: ""})
		tx.PutFunctions([]byte("libs"))
	})
	var buf bytes.Buffer
	if err := e.WriteSnapshot(&buf); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, p []byte) {
		a, err := New(Config{Clock: NewManualClock(time.Unix(1700000000, 0))})
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		if a.RestoreSnapshot(bytes.NewReader(p)) != nil {
			return
		}
		var again bytes.Buffer
		if err := a.WriteSnapshot(&again); err != nil {
			t.Fatal(err)
		}
		b, err := New(Config{Clock: NewManualClock(time.Unix(1700000000, 0))})
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		if err := b.RestoreSnapshot(bytes.NewReader(again.Bytes())); err != nil {
			t.Fatalf("a snapshot written after a restore does not restore: %v", err)
		}
		sameState(t, "restored twice", a, b)
	})
}
