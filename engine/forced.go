package engine

import "strings"

// SetForcedError makes every command answer msg as its error reply until
// SetForcedError(""): the Go API's SetError, to test how a client copes
// with a failing server. Sockets, MULTI, scripts' redis.call and Server.Do
// all see it, since Dispatch checks it; the direct helpers (sessions with
// Direct set) do not, so a test can still look at its data. msg is sent
// as given (line breaks become spaces, as Redis's addReplyError does), so
// it should start with an error code such as "ERR" or "LOADING".
func (e *Engine) SetForcedError(msg string) {
	if msg == "" {
		e.forcedErr.Store(nil)
		return
	}
	msg = strings.NewReplacer("\r", " ", "\n", " ").Replace(msg)
	e.forcedErr.Store(&msg)
}

// ForcedError is the error SetForcedError set, "" when none.
func (e *Engine) ForcedError() string {
	if p := e.forcedErr.Load(); p != nil {
		return *p
	}
	return ""
}

// forcedRefusal answers the command with the forced error, when one is
// set, and reports whether it did. Inside MULTI the refused command dooms
// the transaction, as any refusal does, and a refused EXEC or DISCARD
// ends it: otherwise the client could never leave MULTI while the error
// is set.
func (e *Engine) forcedRefusal(s *Session, args [][]byte, w Writer) bool {
	p := e.forcedErr.Load()
	if p == nil || s.Direct {
		return false
	}
	if s.InMulti() {
		if name := string(args[0]); strings.EqualFold(name, "exec") || strings.EqualFold(name, "discard") {
			e.ResetTransaction(s)
		} else {
			s.FailMulti()
		}
	}
	e.CountError(*p)
	w.Error(*p)
	return true
}
