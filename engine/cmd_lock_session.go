package engine

import "strings"

// LOCK.SESSION: named lock sessions (lock_session.go has what a session
// is, how it is stored and how its end releases its locks).

// lockSessionCommand is LOCK.SESSION CREATE ttl-ms [LOCKDELAY ms] |
// RENEW id | DESTROY id | INFO id | LIST.
func lockSessionCommand() *Command {
	return &Command{Name: "lock.session", Subcommands: []*Command{
		{Name: "create", Handler: cmdLockSessionCreate},
		{Name: "renew", Handler: cmdLockSessionRenew},
		{Name: "destroy", Handler: cmdLockSessionDestroy},
		{Name: "info", Handler: cmdLockSessionInfo},
		{Name: "list", Handler: cmdLockSessionList},
		{Name: "help", Handler: cmdLockSessionHelp},
	}}
}

var lockSessionHelp = []string{
	"LOCK.SESSION <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"CREATE <ttl-ms> [LOCKDELAY <ms>]",
	"    Create a session that lives ttl-ms unless renewed; returns its id.",
	"RENEW <id>",
	"    Restore the session's TTL and the TTL of every lock it holds; returns the TTL, nil if the session is gone.",
	"DESTROY <id>",
	"    End the session: its locks are released (after their lock-delay). Returns 1, or 0 if it was gone.",
	"INFO <id>",
	"    The session's TTL, lock-delay and locks; nil if it is gone.",
	"LIST",
	"    The ids of the live sessions.",
	"HELP",
	"    Prints this help.",
}

func cmdLockSessionHelp(c *Call) { WriteHelp(c.W, lockSessionHelp) }

func cmdLockSessionCreate(c *Call) {
	ttl, err := parseLockTTL(c, c.Args[2])
	if err != nil {
		c.Err(err)
		return
	}
	delay := c.E.locks.delayMs.Load()
	switch {
	case len(c.Args) == 5 && EqualFold(c.Args[3], "lockdelay"):
		if delay, err = parseLockMs(c, c.Args[4], "LOCKDELAY"); err != nil {
			c.Err(err)
			return
		}
	case len(c.Args) != 3:
		c.Err(ErrSyntax)
		return
	}
	c.W.BulkString(createSession(c.Tx, ttl, delay, 0))
}

// namedSession returns the live named session id's value and index.
func namedSession(c *Call, id []byte) (Value, *lockSession, bool) {
	v, ok := c.Tx.GetIn(0, sessionKey(string(id)))
	if !ok || v.Type != TypeHash {
		return Value{}, nil, false
	}
	return v, decodeSession(string(id), v), true
}

// cmdLockSessionRenew restores the session's TTL and its locks' TTLs
// (forgetting the locks it no longer holds) and answers the TTL.
func cmdLockSessionRenew(c *Call) {
	_, s, ok := namedSession(c, c.Args[2])
	if !ok {
		c.W.Null()
		return
	}
	tx := c.Tx
	key := sessionKey(s.id)
	var gone []holderKey
	saved := tx.DB
	for _, hk := range sortedLocks(s.locks) {
		l := s.locks[hk]
		tx.DB = hk.db
		if !stillHeld(tx, hk, l.token) {
			gone = append(gone, hk)
			continue
		}
		if s.client == 0 {
			extendHolder(tx, []byte(hk.key), hk.owner, l.ttl)
		}
	}
	tx.DB = saved
	sessionDropLocks(tx, s.id, gone)
	if s.ttl <= 0 {
		c.W.Int(-1) // a connection's session lives as long as it
		return
	}
	v, _ := tx.GetIn(0, key)
	setExpiryIn(tx, 0, key, v, tx.Ms+s.ttl)
	c.W.Int(s.ttl)
}

// setExpiryIn is setExpiry in database db.
func setExpiryIn(tx *Tx, db int, key []byte, v Value, at int64) {
	v.ExpireAt = at
	tx.PutIn(db, key, v)
	tx.NotifyDB(db, NotifyGeneric, "expire", key)
}

func cmdLockSessionDestroy(c *Call) {
	key := sessionKey(string(c.Args[2]))
	v, ok := c.Tx.GetIn(0, key)
	if !ok || v.Type != TypeHash {
		c.W.Int(0)
		return
	}
	c.Tx.DeleteIn(0, key)
	c.Tx.NotifyDB(0, NotifyGeneric, "del", key)
	c.W.Int(1)
}

// cmdLockSessionInfo answers a map: id, ttl (ms left, -1 for a
// connection's session), lockdelay, client (the connection's id, or nil),
// locks: [[key, owner, token, db], ...] for the locks it still holds.
func cmdLockSessionInfo(c *Call) {
	v, s, ok := namedSession(c, c.Args[2])
	if !ok {
		c.W.Null()
		return
	}
	tx := c.Tx
	var live []holderKey
	for _, hk := range sortedLocks(s.locks) {
		if stillHeld(tx, hk, s.locks[hk].token) {
			live = append(live, hk)
		}
	}
	w := c.W
	w.Map(5)
	w.BulkString("id")
	w.BulkString(s.id)
	w.BulkString("ttl")
	w.Int(ttlAt(tx, v.ExpireAt))
	w.BulkString("lockdelay")
	w.Int(s.delay)
	w.BulkString("client")
	if s.client != 0 {
		w.Int(s.client)
	} else {
		w.Null()
	}
	w.BulkString("locks")
	w.Array(len(live))
	for _, hk := range live {
		w.Array(4)
		w.BulkString(hk.key)
		w.BulkString(hk.owner)
		w.Int(int64(s.locks[hk].token))
		w.Int(int64(hk.db))
	}
}

// cmdLockSessionList answers the ids of the live sessions, sorted.
func cmdLockSessionList(c *Call) {
	var ids []string
	c.Tx.Scan(0, []byte(sessionKeyPrefix), func(key string, v Value) bool {
		if !strings.HasPrefix(key, sessionKeyPrefix) {
			return false
		}
		if v.Type == TypeHash {
			ids = append(ids, key[len(sessionKeyPrefix):])
		}
		return true
	})
	c.W.Array(len(ids))
	for _, id := range ids {
		c.W.BulkString(id)
	}
}
