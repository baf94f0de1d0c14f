package keyspace

import (
	"github.com/tidwall/buntdb"
)

// The stored Redis 7 function libraries (luasvc owns the libraries and
// runs them).
//
// The libraries are persisted as one buntdb item holding FUNCTION DUMP's
// payload, under the empty key: every key of a database starts with the
// database's byte, so "" belongs to none of them and SCAN, KEYS, DBSIZE,
// RANDOMKEY, FLUSHDB and SWAPDB never meet it. It is written by the
// transaction of the command that changed the libraries, so it lands in
// the AOF with the same fsync policy as keys, and BGREWRITEAOF keeps it.
// FLUSHALL keeps it too: in Redis it empties the keyspace, not the
// functions.
const functionsKey = ""

// SetFunctionsLoader registers what loads the function libraries anew
// when Apply or RestoreSnapshot stored others (changes.go): luasvc's
// loader of the stored payload (nil or empty: no libraries).
func (s *Store) SetFunctionsLoader(fn func(payload []byte)) {
	s.funcLoad.Store(&fn)
}

// functionsApplied tells the loader that the stored libraries changed.
func (s *Store) functionsApplied() {
	if fn := s.funcLoad.Load(); fn != nil {
		payload, _ := s.StoredFunctions()
		(*fn)(payload)
	}
}

// StoredFunctions returns the payload PutFunctions stored, as loaded from
// the AOF at startup.
func (s *Store) StoredFunctions() (payload []byte, ok bool) {
	s.db.View(func(bt *buntdb.Tx) error {
		v, err := bt.Get(functionsKey)
		if err == nil {
			payload, ok = []byte(v), true
		}
		return nil
	})
	return payload, ok
}

// PutFunctions stores the libraries' payload (FUNCTION DUMP's bytes) in
// this write transaction; an empty payload removes it.
func (tx *Tx) PutFunctions(payload []byte) {
	tx.record(Change{Kind: ChangeFunctions, Raw: string(payload)})
	if len(payload) == 0 {
		if _, err := tx.bt.Delete(functionsKey); err == nil {
			tx.wroteAOF = true
		}
		return
	}
	if _, _, err := tx.bt.Set(functionsKey, string(payload), nil); err != nil {
		panic(err) // only possible on a closed or read-only tx: a bug
	}
	tx.wroteAOF = true
}

// keepFunctions is called by FlushAll before it deletes everything: the
// returned func puts the functions back.
func (tx *Tx) keepFunctions() func() {
	v, err := tx.bt.Get(functionsKey)
	if err != nil {
		return func() {}
	}
	return func() { tx.bt.Set(functionsKey, v, nil) }
}
