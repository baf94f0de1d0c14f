package engine

import (
	"bytes"
	"errors"
	"math"
	"strings"
)

// Key commands.

// Error replies of this file's commands (errors.go has the shared ones).
var (
	errCopyDBInCluster = errors.New("ERR Copying to another database is not allowed in cluster mode")
	errMoveInCluster   = errors.New("ERR MOVE is not allowed in cluster mode")
	errSameObject      = replyError("ERR source and destination objects are the same")
)

func keyCommands() []*Command {
	return []*Command{
		{Name: "del", Handler: cmdDel},
		{Name: "unlink", Handler: cmdDel},
		{Name: "exists", Handler: cmdExists},
		{Name: "touch", Handler: cmdExists},
		{Name: "type", Handler: cmdType},
		{Name: "keys", Handler: cmdKeys},
		{Name: "scan", Handler: cmdScan},
		{Name: "randomkey", Handler: cmdRandomKey},
		{Name: "rename", Handler: cmdRename},
		{Name: "renamenx", Handler: cmdRenameNX},
		{Name: "copy", Handler: cmdCopy},
		{Name: "move", Handler: cmdMove},
	}
}

// lookupRead is Redis's lookupKeyRead: a read of key by a read command,
// counted as a keyspace hit or miss. Commands that read in order to write
// (INCR, APPEND, EXPIRE...) use c.Tx.Get, which Redis does not count.
func lookupRead(c *Call, key []byte) (Value, bool) {
	v, ok := c.Tx.Get(key)
	if ok {
		c.E.Stats.KeyspaceHits.Add(1)
	} else {
		c.E.Stats.KeyspaceMisses.Add(1)
		c.Tx.notifyKeyMiss(key)
	}
	return v, ok
}

// cmdDel is DEL and UNLINK: a key named twice is deleted (and counted) once.
func cmdDel(c *Call) {
	var n int64
	for _, k := range c.Args[1:] {
		if c.Tx.Delete(k) {
			c.Tx.Notify(NotifyGeneric, "del", k)
			n++
		}
	}
	c.W.Int(n)
}

// cmdExists is EXISTS and TOUCH: a key named twice is counted twice.
func cmdExists(c *Call) {
	var n int64
	for _, k := range c.Args[1:] {
		if _, ok := lookupRead(c, k); ok {
			n++
		}
	}
	c.W.Int(n)
}

func cmdType(c *Call) {
	v, ok := lookupRead(c, c.Args[1])
	if !ok {
		c.W.Status("none")
		return
	}
	c.W.Status(v.Type.Name())
}

// cmdKeys visits only the keys that start with the pattern's literal
// prefix; "*" matches every key, the empty one included, without the
// matcher (as in Redis, where Glob("*", "") is false).
func cmdKeys(c *Call) {
	pattern := c.Args[1]
	all := len(pattern) == 1 && pattern[0] == '*'
	prefix := b2s(globPrefix(pattern))
	var found []string
	c.Tx.Scan(c.Tx.DB, globPrefix(pattern), func(key string, _ Value) bool {
		if !strings.HasPrefix(key, prefix) {
			return false
		}
		if all || globString(pattern, key, false) {
			found = append(found, key)
		}
		return true
	})
	c.W.Array(len(found))
	for _, k := range found {
		c.W.BulkString(k)
	}
}

func cmdRandomKey(c *Call) {
	key, ok := c.Tx.RandomKey(c.Tx.DB)
	if !ok {
		c.W.Null()
		return
	}
	c.W.BulkString(key)
}

func cmdRename(c *Call)   { renameGeneric(c, false) }
func cmdRenameNX(c *Call) { renameGeneric(c, true) }

// renameGeneric moves the value and its TTL. Renaming a key to itself is a
// no-op that still fails when the key is missing.
func renameGeneric(c *Call, nx bool) {
	src, dst := c.Args[1], c.Args[2]
	v, ok := c.Tx.Get(src)
	if !ok {
		c.Err(ErrNoSuchKey)
		return
	}
	if bytes.Equal(src, dst) {
		renameReply(c, nx, false)
		return
	}
	existed := c.Tx.Exists(dst)
	if nx && existed {
		renameReply(c, nx, false)
		return
	}
	c.Tx.Put(dst, v)
	if existed {
		// Redis deletes the destination and adds it anew.
		c.Tx.notifyNew(c.Tx.DB, dst)
	}
	c.Tx.Delete(src)
	c.Tx.Notify(NotifyGeneric, "rename_from", src)
	c.Tx.Notify(NotifyGeneric, "rename_to", dst)
	renameReply(c, nx, true)
}

func renameReply(c *Call, nx, done bool) {
	switch {
	case !nx:
		c.OK()
	case done:
		c.W.Int(1)
	default:
		c.W.Int(0)
	}
}

// parseDB parses a database index argument (COPY DB, MOVE).
func parseDB(c *Call, arg []byte) (int, error) {
	n, ok := ParseInt(arg)
	if !ok {
		return 0, ErrNotInteger
	}
	if n < math.MinInt32 || n > math.MaxInt32 { // getIntFromObjectOrReply
		return 0, errIntRange
	}
	if n < 0 || n >= int64(c.E.Databases()) {
		return 0, ErrDBIndex
	}
	return int(n), nil
}

// cmdCopy is COPY source destination [DB destination-db] [REPLACE]. The
// copy keeps the source's TTL.
func cmdCopy(c *Call) {
	src, dst := c.Args[1], c.Args[2]
	srcDB, dstDB := c.Tx.DB, c.Tx.DB
	replace := false
	for j := 3; j < len(c.Args); j++ {
		switch {
		case EqualFold(c.Args[j], "replace"):
			replace = true
		case EqualFold(c.Args[j], "db") && j+1 < len(c.Args):
			db, err := parseDB(c, c.Args[j+1])
			if err != nil {
				c.Err(err)
				return
			}
			dstDB = db
			j++
		default:
			c.Err(ErrSyntax)
			return
		}
	}
	if c.E.cluster.enabled && (srcDB != 0 || dstDB != 0) {
		c.Err(errCopyDBInCluster)
		return
	}
	if srcDB == dstDB && bytes.Equal(src, dst) {
		c.Err(errSameObject)
		return
	}
	v, ok := lookupRead(c, src)
	if !ok {
		c.W.Int(0)
		return
	}
	_, exists := c.Tx.GetIn(dstDB, dst)
	if exists && !replace {
		c.W.Int(0)
		return
	}
	c.Tx.PutIn(dstDB, dst, v)
	if exists {
		c.Tx.notifyNew(dstDB, dst) // deleted and added anew, as in Redis
	}
	c.Tx.NotifyDB(dstDB, NotifyGeneric, "copy_to", dst)
	c.W.Int(1)
}

// cmdMove is MOVE key db: the key and its TTL go to another database,
// unless the key already exists there.
func cmdMove(c *Call) {
	if c.E.cluster.enabled {
		c.Err(errMoveInCluster)
		return
	}
	key := c.Args[1]
	dstDB, err := parseDB(c, c.Args[2])
	if err != nil {
		c.Err(err)
		return
	}
	if dstDB == c.Tx.DB {
		c.Err(errSameObject)
		return
	}
	v, ok := c.Tx.Get(key)
	if !ok {
		c.W.Int(0)
		return
	}
	if _, exists := c.Tx.GetIn(dstDB, key); exists {
		c.W.Int(0)
		return
	}
	c.Tx.PutIn(dstDB, key, v)
	c.Tx.Delete(key)
	c.Tx.Notify(NotifyGeneric, "move_from", key)
	c.Tx.NotifyDB(dstDB, NotifyGeneric, "move_to", key)
	c.W.Int(1)
}
