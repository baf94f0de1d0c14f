package engine

import (
	"errors"
	"time"
)

// Contexts of ACL log entries.
const (
	aclCtxToplevel = "toplevel"
	aclCtxMulti    = "multi"
	aclCtxLua      = "lua"
)

// keyCache holds a command's keys between selectors.
type keyCache struct {
	done bool
	keys []keyRef
}

func (kc *keyCache) get(cmd *Command, args [][]byte) []keyRef {
	if !kc.done {
		kc.done = true
		kc.keys, _ = commandKeys(cmd, args)
	}
	return kc.keys
}

// keyPerm is the access a key spec's flags ask for.
func keyPerm(flags []string) uint8 {
	var p uint8
	for _, f := range flags {
		switch f {
		case "access":
			p |= aclPermRead
		case "insert", "delete", "update":
			p |= aclPermWrite
		}
	}
	return p
}

// keyAllowed is ACLSelectorCheckKey.
func (s *aclSelector) keyAllowed(key []byte, perm uint8) bool {
	if s.allKeys {
		return true
	}
	for _, p := range s.keys {
		if p.perm&perm == perm && Glob(StringBytes(p.pattern), key, false) {
			return true
		}
	}
	return false
}

// check is ACLSelectorCheckCmd; idx is the argument a key or channel
// denial is about.
func (s *aclSelector) check(cmd *Command, args [][]byte, kc *keyCache) (aclResult, int) {
	if !s.allCommands && !cmd.Flags.Has(FlagNoAuth) && !s.allowed.get(cmd.aclID) {
		allowed := false
		if len(args) >= 2 {
			idx := 1
			if cmd.parent != nil {
				idx = 2
			}
			for _, a := range s.firstArgs[cmd.aclID] {
				if idx < len(args) && EqualFold(args[idx], a) {
					allowed = true
					break
				}
			}
		}
		if !allowed {
			return aclDeniedCmd, 0
		}
	}
	if !s.allKeys && cmd.HasKeys() || !s.allKeys && cmd.MovableKeys() {
		for _, k := range kc.get(cmd, args) {
			if !s.keyAllowed(args[k.pos], keyPerm(k.flags)) {
				return aclDeniedKey, k.pos
			}
		}
	}
	if !s.allChannels && cmd.Flags&(FlagChannelPublish|FlagChannelSubscribe) != 0 {
		last := len(args) - 1
		if cmd.Flags.Has(FlagChannelPublish) {
			last = min(1, last)
		}
		pattern := cmd.Flags.Has(FlagChannelPattern)
		for i := 1; i <= last; i++ {
			if !channelAllowed(s.channels, args[i], pattern) {
				return aclDeniedChannel, i
			}
		}
	}
	return aclOK, 0
}

// checkRules is ACLCheckAllUserCommandPerm.
func checkRules(r *userRules, cmd *Command, args [][]byte) (aclResult, int) {
	if r.all {
		return aclOK, 0
	}
	relevant, last := aclDeniedCmd, 0
	var kc keyCache
	for _, s := range r.selectors {
		res, idx := s.check(cmd, args, &kc)
		if res == aclOK {
			return aclOK, 0
		}
		if res > relevant || (res == relevant && idx > last) {
			relevant, last = res, idx
		}
	}
	return relevant, last
}

// sessionUser is the user whose permissions apply to s: a script's
// caller's for redis.call; nil (anything goes) for the Go API.
func sessionUser(s *Session) *User {
	if s.Kind == KindScript {
		if s.ScriptCaller == nil {
			return nil
		}
		s = s.ScriptCaller.S
	}
	return s.user.Load()
}

var (
	errNopermKey     = errors.New("NOPERM this user has no permissions to access one of the keys used as arguments")
	errNopermChannel = errors.New("NOPERM this user has no permissions to access one of the channels used as arguments")
)

// aclRefuses checks a client's command (Dispatch) or a script's
// redis.call; a refusal is logged (ACL LOG) and answered.
func (e *Engine) aclRefuses(s *Session, cmd *Command, args [][]byte, w Writer) bool {
	u := sessionUser(s)
	if u == nil {
		return false
	}
	r := u.load()
	if r.all {
		return false
	}
	res, idx := checkRules(r, cmd, args)
	if res == aclOK {
		return false
	}
	ctx := aclCtxToplevel
	switch {
	case s.Kind == KindScript:
		ctx = aclCtxLua
	case s.InMulti():
		ctx = aclCtxMulti
	}
	e.acl.logDenial(s, u, res, ctx, cmd, args, idx)
	var err error
	switch {
	case s.Kind == KindScript:
		err = errors.New("ERR The user executing the script " + aclScriptMessage(res))
	case res == aclDeniedCmd:
		err = errors.New("NOPERM this user has no permissions to run the '" + cmd.FullName + "' command")
	case res == aclDeniedKey:
		err = errNopermKey
	default:
		err = errNopermChannel
	}
	e.reject(s, cmd, args, w, err)
	return true
}

// aclScriptMessage is Redis's getAclErrorMessage.
func aclScriptMessage(res aclResult) string {
	switch res {
	case aclDeniedCmd:
		return "can't run this command or subcommand"
	case aclDeniedKey:
		return "can't access at least one of the keys mentioned in the command arguments"
	case aclDeniedChannel:
		return "can't publish to the channel mentioned in the command"
	}
	return "lacking the permissions for the command"
}

// aclExecRefuses checks a queued command again when EXEC runs it, in case
// the rules changed since it was queued (Redis's execCommand).
func (e *Engine) aclExecRefuses(s *Session, cmd *Command, args [][]byte, w Writer) bool {
	u := sessionUser(s)
	if u == nil {
		return false
	}
	r := u.load()
	if r.all {
		return false
	}
	res, idx := checkRules(r, cmd, args)
	if res == aclOK {
		return false
	}
	var reason string
	switch res {
	case aclDeniedCmd:
		reason = "no permission to execute the command or subcommand"
	case aclDeniedKey:
		reason = "no permission to touch the specified keys"
	default:
		reason = "no permission to access one of the channels used as arguments"
	}
	e.acl.logDenial(s, u, res, aclCtxMulti, cmd, args, idx)
	w.Error("NOPERM ACLs rules changed between the moment the transaction was accumulated and the EXEC call. This command is no longer allowed for the following reason: " + reason)
	return true
}

// UserCan reports whether the user of s (a script's caller for a
// script's session) may run args: redis.acl_check_cmd. ok is false when
// no command matches.
func (e *Engine) UserCan(s *Session, args [][]byte) (allowed, ok bool) {
	cmd := e.Table.Lookup(args)
	if cmd == nil {
		return false, false
	}
	u := sessionUser(s)
	if u == nil {
		return true, true
	}
	res, _ := checkRules(u.load(), cmd, args)
	return res == aclOK, true
}

// aclLogDenial records a refused command (addACLLogEntry).
func (a *aclState) logDenial(s *Session, u *User, res aclResult, ctx string, cmd *Command, args [][]byte, idx int) {
	obj := cmd.FullName
	if res == aclDeniedKey || res == aclDeniedChannel {
		obj = string(args[idx])
	}
	a.logEntry(s, res, ctx, obj, u.name)
}

// aclLog adds an entry, or counts it in a similar one of the last ten
// within a minute.
func (a *aclState) logEntry(s *Session, res aclResult, ctx, object, username string) {
	real := s
	if s.Kind == KindScript && s.ScriptCaller != nil {
		real = s.ScriptCaller.S
	}
	now := time.Now()
	cinfo := string(appendClientInfo(nil, real.Info(now)))
	a.logMu.Lock()
	defer a.logMu.Unlock()
	for i, le := range a.log {
		if i == 10 {
			break
		}
		d := now.Sub(le.ctime)
		if d < 0 {
			d = -d
		}
		if le.reason == res && le.context == ctx && d <= time.Minute && le.object == object && le.username == username {
			le.count++
			le.ctime, le.cinfo = now, cinfo
			copy(a.log[1:i+1], a.log[:i])
			a.log[0] = le
			return
		}
	}
	le := &aclLogEntry{count: 1, reason: res, context: ctx, object: object, username: username, ctime: now, cinfo: cinfo}
	a.log = append([]*aclLogEntry{le}, a.log...)
	if len(a.log) > a.logMax {
		a.log = a.log[:a.logMax]
	}
}

// NeedsAuth reports whether s must authenticate before running commands.
// As Redis's authRequired: a session must log in while the default user
// has a password or is off, and a session whose user was deleted must log
// in again (it is being closed).
func (e *Engine) NeedsAuth(s *Session) bool {
	if u := s.user.Load(); u != nil && u.deleted.Load() {
		return true
	}
	if s.Authenticated {
		return false
	}
	r := e.acl.def.load()
	return r.flags&userNopass == 0 || r.flags&userOff != 0
}
