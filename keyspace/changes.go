package keyspace

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Change notification and replay: what replication needs from the
// keyspace (doc.go). Every committed
// write transaction's physical effect is a ChangeBatch: the stored bytes
// of each key it wrote, the keys it deleted, the databases it flushed or
// swapped, the function libraries it stored, the opaque state an upper
// layer recorded (RecordState), the fencing-token counter and the
// transaction's time. A ChangeListener receives the batches in commit
// order; Apply reproduces a batch on another store byte for byte,
// without clock, randomness or Lua, so a follower that applies the
// leader's batches in order holds the leader's keyspace.

// ChangeKind says what a Change does.
type ChangeKind uint8

const (
	// ChangePut stores Raw (the encoded value: type, expiry, token,
	// payload) under Key in DB.
	ChangePut ChangeKind = iota + 1
	// ChangeDelete removes Key from DB.
	ChangeDelete
	// ChangeFlushDB removes every key of DB.
	ChangeFlushDB
	// ChangeFlushAll removes every key of every database (the function
	// libraries stay, as FLUSHALL keeps them).
	ChangeFlushAll
	// ChangeSwapDB exchanges the contents of DB and DB2 (SWAPDB).
	ChangeSwapDB
	// ChangeFunctions stores Raw as the function libraries (FUNCTION
	// DUMP's payload; empty: none).
	ChangeFunctions
	// ChangeState is state an upper layer keeps outside the keyspace
	// (the script cache, named sessions): Raw for the StateHandler
	// registered under Key (RegisterState).
	ChangeState
	changeKinds // the first unknown kind
)

// Change is one physical change of a write transaction.
type Change struct {
	Kind ChangeKind
	DB   int    // ChangePut, ChangeDelete, ChangeFlushDB, ChangeSwapDB
	DB2  int    // ChangeSwapDB
	Key  string // ChangePut, ChangeDelete; ChangeState: the state's name
	Raw  string // ChangePut: the stored bytes; ChangeFunctions, ChangeState: the payload
}

// ChangeBatch is what one committed write transaction changed.
type ChangeBatch struct {
	// Seq numbers the batches of one store in commit order: it only
	// grows (a gap is a transaction whose commit failed).
	Seq uint64
	// Time is the transaction's frozen time, unix ms: Apply runs at this
	// time, so what listeners see of expiry is what the leader saw.
	Time int64
	// NextToken is the fencing-token counter after the transaction: the
	// next token the store hands out. Apply raises its own to it.
	NextToken uint64
	Changes   []Change
}

// ChangeListener receives every committed write transaction's changes.
type ChangeListener interface {
	// Committed is called once for every write transaction that changed
	// the keyspace, the function libraries or recorded state, after it
	// committed, outside the keyspace lock, in commit order: the next
	// call waits for this one to return, so it should only queue the
	// batch. The listener owns b. Committed runs in the goroutine of
	// whoever ran the transaction, before the transaction's after-commit
	// effects (PUBLISH deliveries, keyspace events) and before
	// Store.Run returns, so before the command's reply leaves. The
	// returned func, when not nil, is called right after, without
	// holding up the next transaction's Committed: a replicated server
	// waits there for the batch to be committed by a majority, which
	// holds back the reply and the after-commit effects (these still
	// run in commit order).
	Committed(b *ChangeBatch) (wait func())
}

// StateHandler owns a kind of state that lives outside the keyspace but
// must be replicated and snapshotted with it (RegisterState).
type StateHandler interface {
	// ApplyState applies a payload recorded with Tx.RecordState, inside
	// Apply's write transaction (tx), on the store that applies it.
	ApplyState(tx *Tx, payload []byte) error
	// SaveState returns the whole state, for a snapshot.
	SaveState() ([]byte, error)
	// RestoreState replaces the whole state with what SaveState returned
	// (nil: empty), inside the restoring write transaction.
	RestoreState(tx *Tx, payload []byte) error
}

// changeState is the store's share of change notification.
type changeState struct {
	listener atomic.Pointer[ChangeListener]
	seq      atomic.Uint64 // the last batch's Seq (under the write lock)

	// Ordering of the listener's calls (commit): listenDone is the last
	// transaction sequence (Tx.seq) that passed the listener stage.
	listenDone uint64 // under Store.afterMu

	statesMu sync.Mutex
	states   map[string]StateHandler

	// follower: the store applies another's changes and expires or
	// hands over nothing by itself (SetFollower).
	follower atomic.Bool
}

// SetChangeListener starts (nil: stops) reporting the changes of write
// transactions to l. Transactions already running may or may not report.
func (s *Store) SetChangeListener(l ChangeListener) {
	if l == nil {
		s.changes.listener.Store(nil)
		return
	}
	s.changes.listener.Store(&l)
}

// RegisterState registers the handler of the state recorded as name
// (Tx.RecordState), which Apply, Snapshot and Restore use.
func (s *Store) RegisterState(name string, h StateHandler) {
	s.changes.statesMu.Lock()
	defer s.changes.statesMu.Unlock()
	if s.changes.states == nil {
		s.changes.states = make(map[string]StateHandler)
	}
	s.changes.states[name] = h
}

func (s *Store) stateHandler(name string) StateHandler {
	s.changes.statesMu.Lock()
	defer s.changes.statesMu.Unlock()
	return s.changes.states[name]
}

// stateNames returns the registered state names, sorted.
func (s *Store) stateNames() []string {
	s.changes.statesMu.Lock()
	defer s.changes.statesMu.Unlock()
	names := make([]string, 0, len(s.changes.states))
	for n := range s.changes.states {
		names = append(names, n)
	}
	for i := 1; i < len(names); i++ {
		for j := i; j > 0 && names[j] < names[j-1]; j-- {
			names[j], names[j-1] = names[j-1], names[j]
		}
	}
	return names
}

// RecordState records a change of the state registered as name in this
// write transaction's batch; it is applied on other stores by the
// handler registered there. Without a change listener it records nothing.
func (tx *Tx) RecordState(name string, payload []byte) {
	tx.record(Change{Kind: ChangeState, Key: name, Raw: string(payload)})
}

// Recording reports whether this write transaction records its changes
// for a ChangeListener (one is set, and the transaction is not an Apply):
// a layer above keeps state for the listener's followers only then.
func (tx *Tx) Recording() bool { return tx.recording }

// record adds a change to the transaction's batch when someone listens.
func (tx *Tx) record(c Change) {
	if tx.recording {
		tx.changes = append(tx.changes, c)
	}
}

// recordPut records the stored bytes of bkey.
func (tx *Tx) recordPut(bkey, raw string) {
	if tx.recording {
		tx.changes = append(tx.changes, Change{Kind: ChangePut, DB: int(bkey[0]), Key: bkey[1:], Raw: raw})
	}
}

// closeBatch turns what the transaction recorded into its batch, under
// the write lock, so that Seq follows commit order.
func (tx *Tx) closeBatch() {
	if len(tx.changes) == 0 {
		return
	}
	tx.batch = &ChangeBatch{
		Seq:       tx.s.changes.seq.Add(1),
		Time:      tx.Ms,
		NextToken: tx.s.tokens.next,
		Changes:   tx.changes,
	}
	tx.changes = nil // the listener owns them now
}

// Apply applies a batch of changes from another store (a leader's, or a
// log or snapshot being replayed) in one write transaction running at the
// batch's time: the stored bytes end up exactly as on the store that
// recorded them. Listeners of key changes above the core see the changes
// (WATCH, client tracking), but nothing is served or handed over, no
// keyspace event is raised, and the batch is not reported to this
// store's ChangeListener. A batch that names a database this store
// lacks, or state no handler is registered for, is refused whole.
func (s *Store) Apply(b *ChangeBatch) error {
	if err := s.checkBatch(b); err != nil {
		return err
	}
	var err error
	functions := false
	tx := s.Get()
	tx.applying = true
	if b.Time != 0 {
		tx.at = time.UnixMilli(b.Time)
	}
	s.Run(tx, true, 0, func(tx *Tx) {
		functions, err = tx.applyChanges(b)
		if err != nil {
			tx.Rollback()
		}
	})
	if err == nil && functions {
		s.functionsApplied()
	}
	return err
}

// checkBatch refuses what Apply could not apply whole.
func (s *Store) checkBatch(b *ChangeBatch) error {
	n := s.Databases()
	for i := range b.Changes {
		c := &b.Changes[i]
		switch c.Kind {
		case ChangePut, ChangeDelete, ChangeFlushDB:
			if c.DB < 0 || c.DB >= n {
				return fmt.Errorf("keyspace: change %d: database %d out of range", i, c.DB)
			}
			if c.Kind == ChangePut && len(c.Raw) < headerLen {
				return fmt.Errorf("keyspace: change %d: stored value too short", i)
			}
		case ChangeSwapDB:
			if c.DB < 0 || c.DB >= n || c.DB2 < 0 || c.DB2 >= n {
				return fmt.Errorf("keyspace: change %d: database out of range", i)
			}
		case ChangeFlushAll, ChangeFunctions:
		case ChangeState:
			if s.stateHandler(c.Key) == nil {
				return fmt.Errorf("keyspace: change %d: no handler for state %q", i, c.Key)
			}
		default:
			return fmt.Errorf("keyspace: change %d: unknown kind %d", i, c.Kind)
		}
	}
	return nil
}

// applyChanges is Apply's body; functions reports that it stored the
// function libraries.
func (tx *Tx) applyChanges(b *ChangeBatch) (functions bool, err error) {
	s := tx.s
	for i := range b.Changes {
		c := &b.Changes[i]
		switch c.Kind {
		case ChangePut:
			tx.putStored(storeKey(c.DB, s2b(c.Key)), c.Raw)
		case ChangeDelete:
			tx.remove(storeKey(c.DB, s2b(c.Key)), c.DB)
		case ChangeFlushDB:
			tx.FlushDB(c.DB)
		case ChangeFlushAll:
			tx.FlushAll()
		case ChangeSwapDB:
			if c.DB != c.DB2 {
				tx.SwapDBs(c.DB, c.DB2)
			}
		case ChangeFunctions:
			tx.PutFunctions([]byte(c.Raw))
			functions = true
		case ChangeState:
			if err := s.stateHandler(c.Key).ApplyState(tx, []byte(c.Raw)); err != nil {
				return false, fmt.Errorf("keyspace: state %q: %w", c.Key, err)
			}
		}
	}
	s.tokens.raise(b.NextToken)
	return functions, nil
}

// putStored stores raw under bkey as it is (Apply): the bookkeeping of
// PutIn (counters, memory, expiry queues, listeners) without choosing a
// token or raising events.
func (tx *Tx) putStored(bkey, raw string) {
	db := int(bkey[0])
	var before string
	var existed bool
	if tx.flushedAll {
		// After DeleteAll buntdb's Set no longer reports what it
		// replaced (see PutIn): look first.
		v, err := tx.bt.Get(bkey)
		before, existed = v, err == nil
	}
	prev, replaced, err := tx.bt.Set(bkey, raw, nil)
	if err != nil {
		panic(err) // only possible on a closed or read-only tx: a bug
	}
	if tx.flushedAll {
		prev, replaced = before, existed
	}
	tx.memoWrote(bkey, raw, true)
	tx.wroteAOF = true
	tx.touch(db, bkey[1:])
	tx.memDelta += itemMemory(bkey, raw)
	if replaced {
		tx.memDelta -= itemMemory(bkey, prev)
		if expireAtOf(prev) != 0 {
			tx.volDelta[db]--
		}
	} else {
		tx.keyDelta[db]++
	}
	if at := expireAtOf(raw); at != 0 {
		tx.volDelta[db]++
		tx.expiring = append(tx.expiring, expiryEntry{at, bkey})
	}
	if raw[0]&^hasToken == byte(TypeHash) {
		tx.queueFieldExpiry(bkey, DecodeValue(raw).Payload, prev)
	}
}

// raise moves the counter up to next (never down): a follower continues
// strictly above every token its leader handed out. Under the write lock.
func (tc *tokenCounter) raise(next uint64) {
	if next > tc.next {
		tc.next = next
	}
}

// SetFollower switches the store to follow another's changes (on) or
// back to acting on its own (off). A follower expires nothing by itself:
// no active expiry (keys and hash fields), no deletion of the expired
// keys a lookup meets (they read as missing), no hand-over on expiry
// (TxHooks.HandOver); the layer above reads Follower to stop its own
// (the engine's lock deadline timers and session-lock releases). Its
// keyspace changes only through Apply and RestoreSnapshot, at the times
// the batches carry. Its clock is the replication layer's to set
// (Clock.SetTime on a manual clock, Clock.Resume when it leads).
func (s *Store) SetFollower(on bool) { s.changes.follower.Store(on) }

// Follower reports whether SetFollower switched the store on.
func (s *Store) Follower() bool { return s.changes.follower.Load() }

// LastChangeSeq is the Seq of the last change batch this store made
// (0: none yet): a replicated leader compares it with what it has
// committed and applied.
func (s *Store) LastChangeSeq() uint64 { return s.changes.seq.Load() }

// passive reports whether the transaction must not change anything of its
// own accord (expire, hand over): it applies changes, or the store
// follows.
func (tx *Tx) passive() bool { return tx.applying || tx.s.changes.follower.Load() }

// The binary form of a batch (MarshalBinary), also the record of a
// snapshot (snapshot.go): integers are uvarints, strings a uvarint length
// and the bytes.
//
//	batch:  seq | time (zigzag varint) | nextToken | count | change...
//	change: kind (1 byte) | fields by kind:
//	        put: db key raw; delete: db key; flushdb: db; flushall: -;
//	        swapdb: db db2; functions: raw; state: name raw

var errBadBatch = errors.New("keyspace: malformed change batch")

// MarshalBinary encodes the batch.
func (b *ChangeBatch) MarshalBinary() ([]byte, error) {
	n := 4 * binary.MaxVarintLen64
	for i := range b.Changes {
		n += 1 + 3*binary.MaxVarintLen64 + len(b.Changes[i].Key) + len(b.Changes[i].Raw)
	}
	p := make([]byte, 0, n)
	p = binary.AppendUvarint(p, b.Seq)
	p = binary.AppendVarint(p, b.Time)
	p = binary.AppendUvarint(p, b.NextToken)
	p = binary.AppendUvarint(p, uint64(len(b.Changes)))
	for i := range b.Changes {
		p = appendChange(p, &b.Changes[i])
	}
	return p, nil
}

// UnmarshalBinary decodes what MarshalBinary encoded.
func (b *ChangeBatch) UnmarshalBinary(p []byte) error {
	d := decoder{p: p}
	b.Seq = d.uvarint()
	b.Time = d.varint()
	b.NextToken = d.uvarint()
	count := d.uvarint()
	if d.err != nil || count > uint64(len(d.p)) {
		return errBadBatch
	}
	b.Changes = make([]Change, 0, count)
	for i := uint64(0); i < count; i++ {
		c, ok := d.change()
		if !ok {
			return errBadBatch
		}
		b.Changes = append(b.Changes, c)
	}
	if d.err != nil || len(d.p) != 0 {
		return errBadBatch
	}
	return nil
}

func appendString(p []byte, s string) []byte {
	return append(binary.AppendUvarint(p, uint64(len(s))), s...)
}

func appendChange(p []byte, c *Change) []byte {
	p = append(p, byte(c.Kind))
	switch c.Kind {
	case ChangePut:
		p = binary.AppendUvarint(p, uint64(c.DB))
		p = appendString(p, c.Key)
		p = appendString(p, c.Raw)
	case ChangeDelete:
		p = binary.AppendUvarint(p, uint64(c.DB))
		p = appendString(p, c.Key)
	case ChangeFlushDB:
		p = binary.AppendUvarint(p, uint64(c.DB))
	case ChangeSwapDB:
		p = binary.AppendUvarint(p, uint64(c.DB))
		p = binary.AppendUvarint(p, uint64(c.DB2))
	case ChangeFunctions:
		p = appendString(p, c.Raw)
	case ChangeState:
		p = appendString(p, c.Key)
		p = appendString(p, c.Raw)
	}
	return p
}

// decoder reads the binary form; the first error sticks.
type decoder struct {
	p   []byte
	err error
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.p)
	if n <= 0 {
		d.err = errBadBatch
		return 0
	}
	d.p = d.p[n:]
	return v
}

func (d *decoder) varint() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.p)
	if n <= 0 {
		d.err = errBadBatch
		return 0
	}
	d.p = d.p[n:]
	return v
}

func (d *decoder) db() int {
	v := d.uvarint()
	if v > 255 {
		d.err = errBadBatch
	}
	return int(v)
}

func (d *decoder) string() string {
	n := d.uvarint()
	if d.err != nil || n > uint64(len(d.p)) {
		d.err = errBadBatch
		return ""
	}
	s := string(d.p[:n])
	d.p = d.p[n:]
	return s
}

// change decodes one change; false when malformed.
func (d *decoder) change() (Change, bool) {
	if d.err != nil || len(d.p) == 0 {
		return Change{}, false
	}
	c := Change{Kind: ChangeKind(d.p[0])}
	d.p = d.p[1:]
	switch c.Kind {
	case ChangePut:
		c.DB, c.Key, c.Raw = d.db(), d.string(), d.string()
	case ChangeDelete:
		c.DB, c.Key = d.db(), d.string()
	case ChangeFlushDB:
		c.DB = d.db()
	case ChangeFlushAll:
	case ChangeSwapDB:
		c.DB, c.DB2 = d.db(), d.db()
	case ChangeFunctions:
		c.Raw = d.string()
	case ChangeState:
		c.Key, c.Raw = d.string(), d.string()
	default:
		return Change{}, false
	}
	return c, d.err == nil
}

// Applying reports whether the transaction applies changes recorded
// elsewhere (Apply, RestoreSnapshot): the layer above must not change
// keys of its own accord in it (serve a blocked client, hand a lock over).
func (tx *Tx) Applying() bool { return tx.applying }
