// Package keyspace is lockredis's keyspace core: Redis's databases as typed
// values with millisecond expiry and a fencing token, on buntdb. It owns
// transactions (Tx), the stored form of a value (value.go), expiry (lazy,
// the expiry queues and the active sweeper), fencing tokens, persistence
// (the append-only file, its fsync and rewrite) and the restart fence,
// snapshots, the clock, and change notification for replication. It
// imports nothing of lockredis: the command layer (package engine) sits on
// top and takes part through interfaces, never by name.
//
// # Opening
//
// Open checks the configuration and decides the restart fence; Load then
// reads the append-only file or Config.Restore, reporting its progress
// (Loading: what INFO's loading_* fields and the LOADING refusal above
// read), and starts persistence and the expiry sweeper. The layer above
// serves clients in between. Close writes the clean-stop marker only
// after a finished Load.
//
// # Transactions
//
// Every read and write goes through a Tx run by Store.Run or Store.Do: a
// shared one for reads, an exclusive one for writes, which buntdb runs one
// at a time. A Tx sees one frozen time (Tx.Now, Tx.Ms). Only a write Tx
// changes the keyspace (Put, Delete, FlushDB, FlushAll, SwapDBs, Rewrite,
// PutFunctions); the stored form of values stays inside this package.
//
// # The layer above: TxHooks
//
// Each pooled Tx carries a TxHooks made by Config.NewTxHooks: the command
// layer's context for the transaction. The core calls it, inside the
// transaction and under its lock, when a key changed (KeyTouched), before a
// flush (Flushing), around SWAPDB (Swapping, Swapped), when a key is found
// expired (KeyExpired) or created (KeyCreated), when a lookup in a write
// transaction has just deleted an expired key (HandOver: the lock queue may
// write it again, and the lookup then reads it again), at the sweeper's
// turn for hash fields (ExpireFields), and when the body is done and the
// transaction will commit (Committing: the last moment to change keys, where
// WATCH, blocked clients and the lock queue are served). After the lock is
// released it calls CommitFailed (the AOF write failed and buntdb rolled
// back), Finished (last, once the commit is durable: the layer above wakes
// the blocked clients it served there), and Reset. Store-wide hooks are Config's FieldExpiry,
// RandIntN, ExpiredKeys, OnSweep and OnFsync.
//
// # Files, bottom up
//
// No file refers to a name defined in a file above it, so the package
// reads from the bottom up and a part can be understood without the ones
// that use it:
//
//   - Parts that know no Store: the stored form (value.go, memory.go),
//     clock.go, errors.go, util.go, expiryqueue.go; batch.go (Change,
//     ChangeBatch, ChangeListener and their binary form); hooks.go
//     (TxHooks); memsnap.go (Snapshot); token.go (the token counter);
//     loading.go, persist.go and fence.go (Load's progress, the AOF
//     machinery, the restart fence), which get what they need of the store
//     as values (persistEnv, fenceConfig).
//   - store.go: Config, Store and Tx, the types that refer to each other,
//     and StateHandler.
//   - Over them, each on the ones before it: status.go (what the store
//     reports of its parts), record.go (a Tx's change recording),
//     functions.go, tx.go (reads and writes), run.go (running a Tx: Run,
//     commit, the expiry after a read), swap.go, changes.go (the listener,
//     Apply, followers), sweep.go, snapshot.go.
//   - open.go at the top: Open, Load and Close assemble the parts.
//
// # What the core guarantees
//
//   - Atomicity: a Tx's writes, and the counters kept beside the keyspace
//     (keys and volatile keys per database, memory, expired keys), become
//     visible together when it commits; a rolled-back or panicking Tx
//     changes nothing (the panic is re-raised after the lock is released).
//   - Order of effects: a committed write Tx's change batch goes to the
//     ChangeListener, then (after the listener's wait, if any) the
//     functions queued with Tx.After run, both in commit order, outside the
//     lock, before Run returns; a rolled-back Tx's are dropped. With
//     appendfsync always, Run returns only once an fsync covers the commit;
//     a TTL granted is written to the restart fence's state file first.
//   - Expiry: a key is live through its expiry millisecond. A lookup in a
//     write Tx deletes an expired key at once; one in a read Tx records it,
//     and Run deletes it in a write Tx of its own before returning, only if
//     it is still stored with the expiry that was found. The sweeper deletes
//     the keys nobody reads, a bounded batch per transaction.
//   - Tokens: a key created (or re-created after its time passed) takes the
//     next value of a counter that only grows, also across restarts with a
//     state file (ranges are reserved on disk before use); a changed key
//     keeps its token.
//   - Determinism of Apply: applying a ChangeBatch is a function of the
//     batch and the keyspace it is applied to: it runs at the batch's time,
//     stores the exact bytes the leader stored, and calls no clock, random
//     source or script; listeners above see the changes (KeyTouched,
//     Flushing) but the core raises no event and hands nothing over.
//     RestoreSnapshot is the same for a whole state.
//   - A follower (SetFollower) changes nothing of its own accord: no active
//     expiry, no deletion of expired keys a lookup meets, no hand-over.
package keyspace
