package keyspace

import (
	"encoding/binary"
	"errors"
)

// Change notification and replay: what replication needs from the
// keyspace (doc.go), as data; record.go makes it and changes.go applies
// it. Every committed write transaction's physical effect is a
// ChangeBatch: the stored bytes of each key it wrote, the keys it
// deleted, the databases it flushed or swapped, the function libraries it
// stored, the opaque state an upper layer recorded (RecordState), the
// fencing-token counter and the transaction's time. A ChangeListener
// receives the batches in commit order; Apply reproduces a batch on
// another store byte for byte, without clock, randomness or Lua, so a
// follower that applies the leader's batches in order holds the leader's
// keyspace.

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
