package engine

import "sync"

// TEMPORARY STUB, superseded by fencing tokens (engine/tx.go on main): there
// Put gives every newly created key the next value of a durable
// server-wide counter, kept in the value header, and Token reads it. Until
// that lands, LOCK.ACQUIRE needs something with the same signature, so this
// stub hands out tokens from an in-memory counter per engine: a key gets a
// new token the first time Token sees it holding a value it has not seen
// it hold before. It does not survive a restart, and a key deleted and
// re-created with the same value keeps its old token. The merge with the
// fencing-token branch drops this file.

var tokenStub struct {
	mu   sync.Mutex
	next map[*Engine]uint64
	seen map[tokenStubKey]tokenStubEntry
}

type tokenStubKey struct {
	e   *Engine
	db  int
	key string
}

type tokenStubEntry struct {
	payload string
	token   uint64
}

// Token returns the fencing token of the live key in tx.DB, false when the
// key is missing.
func (tx *Tx) Token(key []byte) (uint64, bool) {
	v, ok := tx.Get(key)
	if !ok {
		return 0, false
	}
	tokenStub.mu.Lock()
	defer tokenStub.mu.Unlock()
	if tokenStub.seen == nil {
		tokenStub.next = make(map[*Engine]uint64)
		tokenStub.seen = make(map[tokenStubKey]tokenStubEntry)
	}
	k := tokenStubKey{tx.e, tx.DB, string(key)}
	if ent, ok := tokenStub.seen[k]; ok && ent.payload == v.Payload {
		return ent.token, true
	}
	tokenStub.next[tx.e]++
	ent := tokenStubEntry{v.Payload, tokenStub.next[tx.e]}
	tokenStub.seen[k] = ent
	return ent.token, true
}
