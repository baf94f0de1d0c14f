package engine

import (
	"net"
	"time"
)

// bindNetParams binds the connection settings.
func (e *Engine) bindNetParams() {
	e.bindParam("protected-mode", paramBinding{
		get:   func() string { return yesNo(e.net.protectedMode.Load()) },
		apply: func(v string) error { e.net.protectedMode.Store(v == "yes"); return nil },
	})
	e.bindParam("timeout", intParam(&e.net.idleTimeout))
	e.bindParam("tcp-keepalive", intParam(&e.net.keepAlive))
	e.bindParam("client-query-buffer-limit", intParam(&e.net.queryLimit))
}

// ProtectedModeRefuses reports whether a connection from remote (an
// "ip:port" or an IP) must be refused with ErrProtectedMode, as Redis
// 7.0's clientAcceptHandler decides: protected-mode is on, the default
// user has no password, and the peer is not local. Redis 7.0 looks
// neither at bind nor at the whole loopback network: "local" is exactly
// 127.0.0.1 or ::1 (a client from 127.0.0.2 is refused; checked against
// redis-server 7.0.15).
func (e *Engine) ProtectedModeRefuses(remote string) bool {
	if !e.net.protectedMode.Load() || e.cfg.RequirePass != "" {
		return false
	}
	return !IsLocalPeer(remote)
}

// IsLocalPeer is Redis's islocalClient for TCP peers: the textual address
// is 127.0.0.1 or ::1. An IPv4-mapped ::ffff:127.0.0.1 is how a dual-stack
// socket shows an IPv4 loopback peer, which Redis (listening on separate
// IPv4 and IPv6 sockets) sees as 127.0.0.1.
func IsLocalPeer(remote string) bool {
	host := remote
	if h, _, err := net.SplitHostPort(remote); err == nil {
		host = h
	}
	ip := net.ParseIP(host)
	if ip == nil {
		return false
	}
	if v4 := ip.To4(); v4 != nil {
		return v4.Equal(net.IPv4(127, 0, 0, 1))
	}
	return ip.Equal(net.IPv6loopback)
}

// IdleTimeout is the timeout parameter: how long a client may stay idle
// before the server closes it; 0 means never.
func (e *Engine) IdleTimeout() time.Duration {
	return time.Duration(e.net.idleTimeout.Load()) * time.Second
}

// TCPKeepAlive is the tcp-keepalive parameter, applied to connections
// accepted from then on (as in Redis); 0 turns keepalive off.
func (e *Engine) TCPKeepAlive() time.Duration {
	return time.Duration(e.net.keepAlive.Load()) * time.Second
}

// QueryBufferLimit is client-query-buffer-limit: the most bytes one
// command may take before its client is closed.
func (e *Engine) QueryBufferLimit() int64 { return e.net.queryLimit.Load() }

// isCrossProtocolCommand tells the command names Redis takes for an HTTP
// request sent to its port (processCommand): "POST" starts one, "Host:"
// is a header every HTTP/1.1 request carries.
func isCrossProtocolCommand(name []byte) bool {
	return EqualFold(name, "post") || EqualFold(name, "host:")
}

// crossProtocolAttack closes a client that sent an HTTP request, as
// Redis's securityWarningCommand: no reply, nothing after it runs, and a
// warning at most once a minute. The connection closes at once (Close),
// so that even the replies to the commands read with it ("GET / HTTP/1.1"
// just before "Host:") are never sent: Redis frees such a client before
// it writes them.
func (e *Engine) crossProtocolAttack(s *Session) {
	now := time.Now().Unix()
	last := e.net.lastAttackLog.Load()
	if (now-last > 60 || last-now > 60) && e.net.lastAttackLog.CompareAndSwap(last, now) {
		e.cfg.Logf("warning", "%s", crossProtocolWarning)
	}
	s.CloseAfterReply = true
	if s.Close != nil {
		s.Close()
	}
}

const crossProtocolWarning = "Possible SECURITY ATTACK detected. It looks like somebody is sending POST or Host: commands to Redis. This is likely due to an attacker attempting to use Cross Protocol Scripting to compromise your Redis instance. Connection aborted."
