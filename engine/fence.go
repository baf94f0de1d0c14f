package engine

import (
	"errors"
	"math"
	"strconv"
	"time"
)

// The restart fence (keyspace/fence.go) seen from the commands.

// RestartFenceRemaining is how long the restart fence still refuses new keys (0 when
// there is none).
func (e *Engine) RestartFenceRemaining() time.Duration { return e.ks.RestartFenceRemaining() }

// fenceRefuses refuses, while the restart fence holds, a command that may
// create a key (FlagDenyOOM) when one of its keys does not exist. It runs
// inside the command's transaction, before the handler.
func (e *Engine) fenceRefuses(tx *Tx, cmd *Command, args [][]byte, w Writer) bool {
	if cmd.Flags&FlagDenyOOM == 0 {
		return false
	}
	err := e.fenceError()
	if err == nil {
		return false
	}
	last := cmd.LastKey
	if last < 0 {
		last += len(args)
	}
	step := max(cmd.Step, 1)
	for i := cmd.FirstKey; i > 0 && i <= last && i < len(args); i += step {
		if !tx.Exists(args[i]) {
			w.Error(err.Error())
			return true
		}
	}
	return false
}

// fenceError is the fence's TRYAGAIN while it refuses new keys, nil once
// it is lifted. The lock queue asks it before each grant that creates a
// key, whatever the command's key positions (LOCK.ACQUIREALL).
func (e *Engine) fenceError() error {
	left := e.ks.RestartFenceHolds()
	if left <= 0 {
		return nil
	}
	secs := int64(math.Ceil(left.Seconds()))
	return errors.New("TRYAGAIN restart fence: new keys refused for another " + strconv.FormatInt(secs, 10) + " s")
}
