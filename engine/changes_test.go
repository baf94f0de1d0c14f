package engine

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand"
	"strconv"
	"testing"
	"time"

	"github.com/lockredis/lockredis/keyspace"
)

// Replication's contract with the command layer: what commands change
// reaches a follower as change batches that reproduce the keyspace byte
// for byte (keyspace/changes.go has the store's own tests).

// applier is a ChangeListener that applies every batch to another engine,
// after a round trip through the binary form.
type applier struct {
	t       *testing.T
	to      *Engine
	batches int
}

func (a *applier) Committed(b *keyspace.ChangeBatch) func() {
	a.batches++
	p, err := b.MarshalBinary()
	if err != nil {
		a.t.Fatal(err)
	}
	var got keyspace.ChangeBatch
	if err := got.UnmarshalBinary(p); err != nil {
		a.t.Fatalf("batch %d: %v", b.Seq, err)
	}
	if err := a.to.Keyspace().Apply(&got); err != nil {
		a.t.Errorf("apply batch %d: %v", b.Seq, err)
	}
	return nil
}

// snapshotBody is a's snapshot without its time: every stored key's bytes
// (type, expiry, token, payload), the functions and the token counter.
func snapshotBody(t *testing.T, e *Engine) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := e.Keyspace().WriteSnapshot(&buf); err != nil {
		t.Fatal(err)
	}
	p := buf.Bytes()
	i := bytes.IndexByte(p, '\n') + 1
	next, n := binary.Uvarint(p[i:])
	_, m := binary.Varint(p[i+n:])
	return append(binary.AppendUvarint(nil, next), p[i+n+m:]...)
}

// sameKeyspace fails the test where b's keyspace differs from a's: the
// snapshot's bytes and the counters kept beside the keyspace.
func sameKeyspace(t *testing.T, what string, a, b *Engine) {
	t.Helper()
	if x, y := snapshotBody(t, a), snapshotBody(t, b); !bytes.Equal(x, y) {
		t.Errorf("%s: the keyspaces differ:\n%q\n%q", what, x, y)
	}
	ka, kb := a.Keyspace(), b.Keyspace()
	for db := 0; db < a.Databases(); db++ {
		if x, y := ka.Keys(db), kb.Keys(db); x != y {
			t.Errorf("%s: db %d counts %d keys, want %d", what, db, y, x)
		}
		if x, y := ka.Volatile(db), kb.Volatile(db); x != y {
			t.Errorf("%s: db %d counts %d volatile keys, want %d", what, db, y, x)
		}
	}
	if x, y := ka.Dataset(), kb.Dataset(); x != y {
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
			// Active expiry runs here as Sweep, between commands: the
			// background sweeper would commit on the leader while the
			// test compares, before its batch reached the follower.
			leader.SetActiveExpire(false)
			follower := newTestEngine(t)
			follower.Keyspace().SetFollower(true)
			ap := &applier{t: t, to: follower.Engine}
			leader.Keyspace().SetChangeListener(ap)
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
				sameKeyspace(t, fmt.Sprintf("after command %d", i), leader.Engine, follower.Engine)
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
			leader.Keyspace().SetChangeListener(nil)
			sameKeyspace(t, "after the follower's reads", leader.Engine, follower.Engine)

			// A snapshot restores the same state on a third engine that
			// had other keys.
			third := newTestEngine(t)
			third.do("SET", "other", "x")
			third.do("SELECT", "4")
			third.do("SET", "other", "y", "PX", "100")
			var buf bytes.Buffer
			if err := leader.Keyspace().WriteSnapshot(&buf); err != nil {
				t.Fatal(err)
			}
			if err := third.Keyspace().RestoreSnapshot(bytes.NewReader(buf.Bytes())); err != nil {
				t.Fatal(err)
			}
			sameKeyspace(t, "restored", leader.Engine, third.Engine)
		})
	}
}

// TestApplyTellsWatchers: a batch applied on a follower breaks the WATCH
// of a key it changes, and only of that key.
func TestApplyTellsWatchers(t *testing.T) {
	te := newTestEngine(t)
	te.Keyspace().SetFollower(true)
	te.run([]step{
		{cmd("WATCH", "w"), "OK"},
		{cmd("MULTI"), "OK"},
		{cmd("PING"), "QUEUED"},
	})
	err := te.Keyspace().Apply(&keyspace.ChangeBatch{Changes: []keyspace.Change{
		{Kind: keyspace.ChangePut, DB: 0, Key: "other", Raw: keyspace.EncodeValue(Value{Type: TypeString, Payload: "x", Token: 1})},
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
	err = te.Keyspace().Apply(&keyspace.ChangeBatch{Changes: []keyspace.Change{
		{Kind: keyspace.ChangePut, DB: 0, Key: "w", Raw: keyspace.EncodeValue(Value{Type: TypeString, Payload: "x", Token: 2})},
	}, NextToken: 3})
	if err != nil {
		t.Fatal(err)
	}
	te.run([]step{{cmd("EXEC"), "(nil)"}})
	te.run([]step{{cmd("SET", "new", "1"), "OK"}, {cmd("LOCK.TOKEN", "new"), "(integer) 3"}})
}
