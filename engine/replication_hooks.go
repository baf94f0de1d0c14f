package engine

// What a replicated node (package replication, above this one) needs to
// answer for its group where a standalone server answers for itself. The
// engine calls up through these and never imports that package.

// SetReplicationInfo makes INFO's replication section fn's (appended to
// b); nil restores the standalone server's.
func (e *Engine) SetReplicationInfo(fn func(b []byte) []byte) {
	if fn == nil {
		e.replInfo.Store(nil)
		return
	}
	e.replInfo.Store(&fn)
}

// CommandSlot is the hash slot of a command's keys, -1 when it has none
// or they are in several slots (cluster mode's redirection needs it).
func CommandSlot(cmd *Command, args [][]byte) int {
	slot, err := commandSlot(cmd, args)
	if err != nil {
		return -1
	}
	return slot
}

// LastChangeSeq is the Seq of the last write transaction that changed
// something (ChangeBatch.Seq): a read that ran before it returned may have
// seen that transaction's changes.
func (e *Engine) LastChangeSeq() uint64 { return e.ks.LastChangeSeq() }
