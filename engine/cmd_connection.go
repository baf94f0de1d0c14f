package engine

import (
	"errors"
	"math"
)

// Connection commands: they change or read the session, never the keyspace.

// Error replies of this file's commands (errors.go has the shared ones).
var (
	errSelectInCluster = errors.New("ERR SELECT is not allowed in cluster mode")
)

// helloMaxProto is the highest protocol version HELLO accepts: RESP3, which
// every reply speaks through the Writer (compat_test runs every differential
// case in both protocols).
const helloMaxProto = 3

var (
	errHelloProto  = errors.New("ERR Protocol version is not an integer or out of range")
	errHelloNoAuth = errors.New("NOAUTH HELLO must be called with the client already authenticated, " +
		"otherwise the HELLO AUTH <user> <pass> option can be used to authenticate the client and " +
		"select the RESP protocol version at the same time")
)

func connectionCommands() []*Command {
	// AUTH, HELLO, QUIT and RESET run before authentication and while a
	// script is busy, never from a script.
	return []*Command{
		// Redis 7.0 lists PING as only "fast"; FlagSubscribedOK lets it run
		// while subscribed, and loading/stale are Redis's runtime checks.
		{Name: "ping", Handler: cmdPing},
		{Name: "echo", Handler: cmdEcho},
		{Name: "select", Handler: cmdSelect},
		{Name: "quit", Handler: cmdQuit},
		{Name: "auth", Handler: cmdAuth},
		{Name: "hello", Handler: cmdHello},
		{Name: "reset", Handler: cmdReset},
	}
}

func cmdPing(c *Call) {
	if len(c.Args) > 2 {
		c.Err(ErrArity("ping"))
		return
	}
	if c.S.Sub.Load()+c.S.PSub.Load()+c.S.SSub.Load() > 0 && c.S.Proto == 2 {
		// RESP2 subscribers get ["pong", message].
		c.W.Array(2)
		c.W.BulkString("pong")
		if len(c.Args) == 2 {
			c.W.Bulk(c.Args[1])
		} else {
			c.W.BulkString("")
		}
		return
	}
	if len(c.Args) == 2 {
		c.W.Bulk(c.Args[1])
		return
	}
	c.W.Status("PONG")
}

func cmdEcho(c *Call) { c.W.Bulk(c.Args[1]) }

func cmdSelect(c *Call) {
	// Redis 7.0 parses the index with getIntFromObjectOrReply.
	n, ok := ParseInt(c.Args[1])
	if !ok {
		c.Err(ErrNotInteger)
		return
	}
	if n < math.MinInt32 || n > math.MaxInt32 {
		c.Err(errIntRange)
		return
	}
	if c.E.cluster.enabled && n != 0 {
		c.Err(errSelectInCluster)
		return
	}
	if n < 0 || n >= int64(c.E.Databases()) {
		c.Err(ErrDBIndex)
		return
	}
	c.S.SelectDB(int(n))
	c.OK()
}

func cmdQuit(c *Call) {
	c.S.CloseAfterReply = true
	c.OK()
}

// authenticate is Redis's ACLAuthenticateUser: a session whose user and
// password match logs in as that user; a failure is logged (ACL LOG,
// reason auth, the command's name as typed).
func (e *Engine) authenticate(c *Call, user, pass []byte) bool {
	u := e.acl.checkUserCredentials(user, pass)
	if u == nil {
		ctx := aclCtxToplevel
		if c.S.InMulti() {
			ctx = aclCtxMulti
		}
		e.acl.logEntry(c.S, aclDeniedAuth, ctx, string(c.Args[0]), string(user))
		return false
	}
	c.S.Authenticated = true
	c.S.user.Store(u)
	return true
}

func cmdAuth(c *Call) {
	if len(c.Args) > 3 {
		c.Err(ErrSyntax)
		return
	}
	// Passwords never reach MONITOR or the slow log, as in Redis.
	c.Redact(1)
	c.Redact(2)
	user, pass := []byte("default"), c.Args[1]
	if len(c.Args) == 2 {
		if c.E.acl.def.load().flags&userNopass != 0 {
			c.Err(ErrNoPasswordSet)
			return
		}
	} else {
		user, pass = c.Args[1], c.Args[2]
	}
	// A failed AUTH leaves an authenticated client authenticated, as in
	// Redis.
	if !c.E.authenticate(c, user, pass) {
		c.Err(ErrWrongPass)
		return
	}
	c.OK()
}

// cmdHello handles HELLO [protover [AUTH user pass] [SETNAME name]]. As in
// Redis 7.0, options take effect one by one, so a failing option leaves
// the earlier ones applied.
func cmdHello(c *Call) {
	var ver int64
	next := 1
	if len(c.Args) >= 2 {
		v, ok := ParseInt(c.Args[1])
		if !ok {
			c.Err(errHelloProto)
			return
		}
		if v < 2 || v > helloMaxProto {
			c.Err(ErrNoProto)
			return
		}
		ver = v
		next = 2
	}
	for j := next; j < len(c.Args); j++ {
		more := len(c.Args) - 1 - j
		opt := c.Args[j]
		switch {
		case EqualFold(opt, "auth") && more >= 2:
			c.Redact(j + 1)
			c.Redact(j + 2)
			if !c.E.authenticate(c, c.Args[j+1], c.Args[j+2]) {
				c.Err(ErrWrongPass)
				return
			}
			j += 2
		case EqualFold(opt, "setname") && more >= 1:
			if err := validClientName(c.Args[j+1]); err != nil {
				c.Err(err)
				return
			}
			c.S.SetName(string(c.Args[j+1]))
			j++
		default:
			c.Errf("ERR Syntax error in HELLO option '%s'", opt)
			return
		}
	}
	if c.E.NeedsAuth(c.S) {
		c.Err(errHelloNoAuth)
		return
	}
	if ver != 0 {
		c.S.SetProto(int(ver))
		// HELLO answers in the protocol it switches to.
		if pw, ok := c.W.(interface{ SetProto(int) }); ok {
			pw.SetProto(int(ver))
		}
	}
	c.W.Map(7)
	c.W.BulkString("server")
	c.W.BulkString("redis")
	c.W.BulkString("version")
	c.W.BulkString(Version)
	c.W.BulkString("proto")
	c.W.Int(int64(c.S.Proto))
	c.W.BulkString("id")
	c.W.Int(c.S.ID)
	c.W.BulkString("mode")
	c.W.BulkString(c.E.cluster.mode())
	c.W.BulkString("role")
	c.W.BulkString("master")
	c.W.BulkString("modules")
	c.W.Array(0)
}

// cmdReset puts the connection back in its initial state: no MULTI, no
// WATCH, no subscriptions, database 0, RESP2, no name, and logged out when
// a password is required.
func cmdReset(c *Call) {
	s := c.S
	c.E.ResetTransaction(s)
	c.E.tracker.disable(s)
	c.E.ops.stopMonitor(s) // RESET ends MONITOR (monitor.go)
	// Redis clears OFF and a pending SKIP; a SKIP already in force drops
	// this reply.
	s.replyOff, s.replySkipNext = false, false
	if s.OnReset != nil {
		s.OnReset()
	}
	s.SelectDB(0)
	s.SetProto(2)
	s.SetName("")
	// READONLY ends too (cmd_cluster.go).
	s.setReadOnly(false)
	// Back to the default user; a Go API session too, which then obeys
	// the default user's rules and password like a connection.
	c.E.acl.setDefaultAuth(s)
	c.W.Status("RESET")
}
