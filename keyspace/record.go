package keyspace

// A write transaction records its physical changes for the
// ChangeListener (batch.go) as it makes them; run.go closes the batch
// under the write lock, so that Seq follows commit order.

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

// passive reports whether the transaction must not change anything of its
// own accord (expire, hand over): it applies changes, or the store
// follows.
func (tx *Tx) passive() bool { return tx.applying || tx.s.changes.follower.Load() }

// Applying reports whether the transaction applies changes recorded
// elsewhere (Apply, RestoreSnapshot): the layer above must not change
// keys of its own accord in it (serve a blocked client, hand a lock over).
func (tx *Tx) Applying() bool { return tx.applying }
