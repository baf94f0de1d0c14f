package engine

import (
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
	left := e.ks.RestartFenceHolds()
	if left <= 0 {
		return false
	}
	last := cmd.LastKey
	if last < 0 {
		last += len(args)
	}
	step := max(cmd.Step, 1)
	for i := cmd.FirstKey; i > 0 && i <= last && i < len(args); i += step {
		if !tx.Exists(args[i]) {
			secs := int64(math.Ceil(left.Seconds()))
			w.Error("TRYAGAIN restart fence: new keys refused for another " + strconv.FormatInt(secs, 10) + " s")
			return true
		}
	}
	return false
}
