package engine

// How the engine runs a function in a keyspace transaction (Do for the
// Go API and the lock timers, do and getTx for the dispatcher), below
// engine.go, which opens and closes the engine.

// Do runs fn in a transaction on database db: exclusive when write is set,
// shared otherwise. A panic in fn rolls the transaction back and is
// re-raised after the engine lock is released.
func (e *Engine) Do(write bool, db int, fn func(tx *Tx)) {
	e.do(e.getTx(), write, db, fn)
}

// getTx takes a transaction from the keyspace's pool, with its command
// context (tx.go).
func (e *Engine) getTx() *Tx { return e.ks.Get().Hooks().(*Tx) }

// do runs tx (from getTx) with the body fn (keyspace.Store.Run says in
// what order the hooks of tx.go run around it).
func (e *Engine) do(tx *Tx, write bool, db int, fn func(tx *Tx)) {
	tx.body = fn
	e.ks.Run(tx.Tx, write, db, nil)
}

// pushCall returns a Call for a command run inside this transaction, reused
// across transactions; popCall releases it. Handlers do not keep their Call.
func (tx *Tx) pushCall() *Call {
	if tx.depth == len(tx.nested) {
		tx.nested = append(tx.nested, new(Call))
	}
	c := tx.nested[tx.depth]
	tx.depth++
	return c
}

func (tx *Tx) popCall() {
	tx.depth--
	*tx.nested[tx.depth] = Call{}
}
