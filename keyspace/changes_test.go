package keyspace

import (
	"bytes"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/buntdb"
)

// The keyspace's side of replication (changes.go, snapshot.go). Command
// streams applied from a leader to a follower are tested with the engine
// above (engine/changes_test.go); these drive the store directly.

// applier is a ChangeListener that applies every batch to another engine,
// after a round trip through the binary form.
type applier struct {
	t       *testing.T
	to      *Store
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
func storedState(t *testing.T, e *Store) (map[string]string, uint64) {
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
func sameState(t *testing.T, what string, a, b *Store) {
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
	if x, y := a.dataset.Load(), b.dataset.Load(); x != y {
		t.Errorf("%s: dataset memory %d, want %d", what, y, x)
	}
}

// TestChangeBatchesConcurrent: batches from concurrent writers reach the
// listener in commit order; applying them in that order reproduces the
// keyspace and the token counter.
func TestChangeBatchesConcurrent(t *testing.T) {
	leader, follower := openStore(t), openStore(t)
	follower.SetFollower(true)
	leader.SetChangeListener(&applier{t: t, to: follower})
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				k := []byte("k" + strconv.Itoa(i%7))
				leader.Do(true, 0, func(tx *Tx) {
					switch i % 3 {
					case 0:
						v, _ := tx.Get(k)
						tx.Put(k, Value{Type: TypeString, Payload: v.Payload + "x"})
					case 1:
						if !tx.Exists(k) {
							tx.Put(k, Value{Type: TypeString, Payload: strconv.Itoa(g), ExpireAt: tx.Ms + 1000})
						}
					default:
						tx.Delete(k)
					}
				})
			}
		}(g)
	}
	wg.Wait()
	sameState(t, "after concurrent writers", leader, follower)
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
// transaction's Do (so the command's reply) and its after-commit effects,
// but not the keyspace: another transaction runs meanwhile.
func TestChangeListenerWaitHoldsReply(t *testing.T) {
	s := openStore(t)
	wl := &waitListener{committed: make(chan uint64, 10), release: make(chan struct{})}
	s.SetChangeListener(wl)
	done := make(chan bool)
	go func() {
		published := false
		s.Do(true, 0, func(tx *Tx) {
			tx.Put([]byte("a"), Value{Type: TypeString, Payload: "1"})
			tx.After(func() { published = true })
		})
		done <- published
	}()
	<-wl.committed
	select {
	case <-done:
		t.Fatal("Do returned before the wait ended")
	default:
	}
	// Reads run while the batch waits; they see the write (it is the
	// replicated layer's job to hold read replies too).
	s.Do(false, 0, func(tx *Tx) {
		if v, ok := tx.Get([]byte("a")); !ok || v.Payload != "1" {
			t.Errorf("read while held: %q %v", v.Payload, ok)
		}
	})
	close(wl.release)
	if !<-done {
		t.Fatal("the after-commit effect had not run when Do returned")
	}
}

// TestFollowerExpiresNothing: a follower reads an expired key as missing
// but keeps it stored, and its sweeper does nothing, until it stops
// following.
func TestFollowerExpiresNothing(t *testing.T) {
	s := openStore(t)
	k := []byte("k")
	s.Do(true, 0, func(tx *Tx) { tx.Put(k, Value{Type: TypeString, Payload: "v", ExpireAt: tx.Ms + 100}) })
	s.SetFollower(true)
	s.Clock.FastForward(time.Second)
	read := func() (ok bool) {
		s.Do(false, 0, func(tx *Tx) { _, ok = tx.Get(k) })
		return ok
	}
	if read() || s.Keys(0) != 1 {
		t.Fatalf("a follower's read: found %v, %d keys stored", read(), s.Keys(0))
	}
	if n := s.Sweep(0); n != 0 {
		t.Fatalf("a follower's sweep deleted %d keys", n)
	}
	s.SetFollower(false)
	if read() || s.Keys(0) != 0 {
		t.Fatalf("after following: found %v, %d keys stored", read(), s.Keys(0))
	}
}

// TestApplyRefusesBadBatches: a batch Apply cannot apply whole changes
// nothing.
func TestApplyRefusesBadBatches(t *testing.T) {
	s := openStore(t)
	good := Change{Kind: ChangePut, DB: 0, Key: "a", Raw: EncodeValue(Value{Type: TypeString, Payload: "x", Token: 1})}
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
			if err := s.Apply(&ChangeBatch{Changes: []Change{good, tc.c}}); err == nil {
				t.Fatal("applied")
			}
			if n := s.Keys(0); n != 0 {
				t.Fatalf("%d keys after a refused batch", n)
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
		defer fuzzWatch(p)()
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
	leader, follower := openStore(t), openStore(t)
	ls, fs := &countState{}, &countState{}
	leader.RegisterState("count", ls)
	follower.RegisterState("count", fs)
	leader.SetChangeListener(&applier{t: t, to: follower})
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
	sameState(t, "after the batch", leader, follower)

	var buf bytes.Buffer
	if err := leader.WriteSnapshot(&buf); err != nil {
		t.Fatal(err)
	}
	third := openStore(t)
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
	third.Do(false, 0, func(tx *Tx) {
		if v, ok := tx.Get([]byte("k")); !ok || v.Payload != "v" {
			t.Fatalf("after refused snapshots: k holds %q %v", v.Payload, ok)
		}
	})
}

// FuzzRestoreSnapshot: restoring arbitrary bytes never panics, and a
// snapshot that restores leaves the counters kept beside the keyspace in
// step with it (a second engine restoring the same bytes agrees).
func FuzzRestoreSnapshot(f *testing.F) {
	e := openLoaded(f)
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
		defer fuzzWatch(p)()
		a := openLoaded(t)
		defer a.Close()
		if a.RestoreSnapshot(bytes.NewReader(p)) != nil {
			return
		}
		var again bytes.Buffer
		if err := a.WriteSnapshot(&again); err != nil {
			t.Fatal(err)
		}
		b := openLoaded(t)
		defer b.Close()
		if err := b.RestoreSnapshot(bytes.NewReader(again.Bytes())); err != nil {
			t.Fatalf("a snapshot written after a restore does not restore: %v", err)
		}
		sameState(t, "restored twice", a, b)
	})
}
