package engine

import (
	"strconv"
	"time"
)

// MONITOR: a connection that runs it receives one line per command that
// ran, in Redis's format:
//
//	+1700000000.123456 [0 127.0.0.1:50000] "SET" "k" "v"
//
// (db, then the client's address, "lua" for a script's redis.call),
// arguments quoted as sdscatrepr, the same simple string in RESP2 and
// RESP3. Admin commands and those flagged skip_monitor are not shown;
// arguments a command redacts (AUTH's) read "(redacted)". A command that
// runs a script (runs_script) is shown before it runs, so that the
// commands of the script follow it, as Redis's evalCommand feeds itself.
//
// The lines leave through the session's push path (Session.SetPush): the
// command is flagged receives_pushes, so resp detaches the connection
// before it runs.

// Error replies of this file's commands (errors.go has the shared ones).
var (
	errMonitorDenyBlocking = replyError("ERR MONITOR isn't allowed for DENY BLOCKING client")
)

func monitorCommands() []*Command {
	return []*Command{{Name: "monitor", Handler: cmdMonitor}}
}

// cmdMonitor turns the connection into a monitor. A second MONITOR
// answers nothing, as in Redis (the client is already a "replica").
func cmdMonitor(c *Call) {
	if c.Tx != nil || c.S.Kind != KindClient {
		// Inside EXEC: Redis's DENY_BLOCKING client.
		c.Err(errMonitorDenyBlocking)
		return
	}
	if c.S.monitoring.Load() {
		return // no reply at all
	}
	if c.S.pushFn.Load() == nil {
		c.Errf("ERR MONITOR needs a connection that can receive pushes")
		return
	}
	c.S.monitoring.Store(true)
	c.E.ops.addMonitor(c.S)
}

// addMonitor queues MONITOR's +OK on s's push path and registers s, both
// under monMu: a command another client runs once the OK is read is
// always shown (as in Redis, where both happen in one event-loop turn),
// and no line can be queued before the OK. (Registering after the reply
// left a window in which a client that had read the OK could send a
// command the monitor never saw.)
//
// The count goes up before the OK is queued: feedMonitors skips the lock
// while it reads 0, so a count raised after the OK left a window in which
// a command sent by a client that had read the OK found no monitor (seen
// under load: FUNCTION FLUSH missing from TestDiffMonitorFunctions). A feed
// that sees the count takes monMu, so its line still follows the OK.
func (o *opsState) addMonitor(s *Session) {
	o.monMu.Lock()
	o.monitors = append(o.monitors, s)
	o.monCount.Add(1)
	if !s.ReplyMuted() {
		s.push(func(w Writer) { w.Status("OK") })
	}
	o.monMu.Unlock()
}

// stopMonitor ends MONITOR for s (RESET, disconnection).
func (o *opsState) stopMonitor(s *Session) {
	if !s.monitoring.Load() {
		return
	}
	o.monMu.Lock()
	s.monitoring.Store(false)
	for i, m := range o.monitors {
		if m == s {
			o.monitors = append(o.monitors[:i], o.monitors[i+1:]...)
			o.monCount.Add(-1)
			break
		}
	}
	o.monMu.Unlock()
}

// Monitoring reports whether s is a monitor (Dispatch refuses it keyspace
// commands, as Redis refuses a replica).
func (s *Session) Monitoring() bool { return s.monitoring.Load() }

// feedMonitors sends a command's line to every monitor.
func (o *opsState) feedMonitors(s *Session, db int, argv [][]byte) {
	if o.monCount.Load() == 0 {
		return
	}
	line := make([]byte, 0, 64)
	line = unixMicros(line, o.clock.Now())
	line = append(line, " ["...)
	line = strconv.AppendInt(line, int64(db), 10)
	line = append(line, ' ')
	switch s.Kind {
	case KindScript:
		line = append(line, "lua"...)
	case KindEmbed:
		line = append(line, "embed"...)
	default:
		line = append(line, peerID(s)...)
	}
	line = append(line, "] "...)
	for i, a := range argv {
		if i > 0 {
			line = append(line, ' ')
		}
		line = appendRepr(line, a)
	}
	text := string(line)
	o.monMu.Lock()
	mons := append([]*Session(nil), o.monitors...)
	o.monMu.Unlock()
	for _, m := range mons {
		write := func(w Writer) { w.Status(text) }
		if m == s {
			// A monitor's own command (PING): after its reply, as Redis
			// appends the line to the reply already buffered.
			s.afterReply = append(s.afterReply, func() { m.push(write) })
			continue
		}
		m.push(write)
	}
}

// appendRepr quotes b as Redis's sdscatrepr: "...", with \\ \" \n \r \t
// \a \b escaped, other bytes outside printable ASCII as \xhh.
func appendRepr(out, b []byte) []byte {
	const hex = "0123456789abcdef"
	out = append(out, '"')
	for _, c := range b {
		switch c {
		case '\\', '"':
			out = append(out, '\\', c)
		case '\n':
			out = append(out, '\\', 'n')
		case '\r':
			out = append(out, '\\', 'r')
		case '\t':
			out = append(out, '\\', 't')
		case '\a':
			out = append(out, '\\', 'a')
		case '\b':
			out = append(out, '\\', 'b')
		default:
			if c >= 0x20 && c < 0x7f {
				out = append(out, c)
			} else {
				out = append(out, '\\', 'x', hex[c>>4], hex[c&15])
			}
		}
	}
	return append(out, '"')
}

// feedMonitorsNow is for the paths outside call() that Redis feeds too: a
// command that runs a script (before it runs) and an EXEC refused when it
// was called (execCommandAbort).
func (o *opsState) feedMonitorsNow(s *Session, args [][]byte) {
	if o.monCount.Load() > 0 {
		o.feedMonitors(s, s.DB, args)
	}
}

// peerID is Redis's getClientPeerId: the address of a connection, "?:0"
// for a client without one (a script's).
func peerID(s *Session) string {
	if a := s.Addr(); a != "" {
		return a
	}
	return "?:0"
}

// unixMicros formats t as Redis's "%ld.%06ld" seconds.microseconds.
func unixMicros(buf []byte, t time.Time) []byte {
	us := t.UnixMicro()
	buf = strconv.AppendInt(buf, us/1e6, 10)
	buf = append(buf, '.')
	frac := strconv.AppendInt(nil, us%1e6, 10)
	for i := len(frac); i < 6; i++ {
		buf = append(buf, '0')
	}
	return append(buf, frac...)
}

// Redact hides argument i of the running command from MONITOR and the
// slow log, as Redis's redactClientCommandArgument (AUTH, HELLO AUTH).
func (c *Call) Redact(i int) {
	if i <= 0 || i >= len(c.Args) {
		return
	}
	if c.redacted == nil {
		c.redacted = make([][]byte, len(c.Args))
		copy(c.redacted, c.Args)
	}
	c.redacted[i] = redactedArg
}

var redactedArg = []byte("(redacted)")

// argv is the command as MONITOR and the slow log show it.
func (c *Call) argv() [][]byte {
	if c.redacted != nil {
		return c.redacted
	}
	return c.Args
}
