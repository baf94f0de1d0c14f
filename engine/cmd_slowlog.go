package engine

// SLOWLOG GET [count] | LEN | RESET | HELP, fed by afterCall (ops.go)
// with every command that took slowlog-log-slower-than microseconds or
// more (-1: none, 0: all), except those flagged skip_slowlog. The log
// keeps the newest slowlog-max-len entries. An entry is Redis 7.0's: id,
// unix time, microseconds, the arguments (at most 32, each cut at 128
// bytes, with Redis's "... (N more ...)" markers), the client's address
// ("?:0" for a script) and name.

// Error replies of this file's commands (errors.go has the shared ones).
var (
	errSlowlogCount = replyError("ERR count should be greater than or equal to -1")
)

const (
	slowlogMaxArgc = 32
	slowlogMaxArg  = 128
)

func slowlogCommands() []*Command {
	return []*Command{{
		Name: "slowlog",
		Subcommands: []*Command{
			{Name: "get", Handler: cmdSlowlogGet},
			{Name: "len", Handler: cmdSlowlogLen},
			{Name: "reset", Handler: cmdSlowlogReset},
			{Name: "help", Handler: cmdSlowlogHelp},
		},
	}}
}

var slowlogHelp = []string{
	"SLOWLOG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"GET [<count>]",
	"    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
	"    Entries are made of:",
	"    id, timestamp, time in microseconds, arguments array, client IP and port,",
	"    client name",
	"LEN",
	"    Return the length of the slowlog.",
	"RESET",
	"    Reset the slowlog.",
	"HELP",
	"    Prints this help.",
}

func cmdSlowlogHelp(c *Call) { WriteHelp(c.W, slowlogHelp) }

// trimSlowlog drops the oldest entries past slowlog-max-len; slowMu held.
func (o *opsState) trimSlowlog() {
	if max := o.slowMax.Load(); int64(len(o.slowlog)) > max {
		drop := len(o.slowlog) - int(max)
		clear(o.slowlog[:drop])
		o.slowlog = append(o.slowlog[:0], o.slowlog[drop:]...)
	}
}

func cmdSlowlogGet(c *Call) {
	if len(c.Args) > 3 {
		subcommandSyntaxError(c)
		return
	}
	o := &c.E.ops
	count := int64(10)
	if len(c.Args) == 3 {
		n, ok := ParseInt(c.Args[2])
		if !ok || n < -1 {
			c.Err(errSlowlogCount)
			return
		}
		count = n
	}
	o.slowMu.Lock()
	if count == -1 || count > int64(len(o.slowlog)) {
		count = int64(len(o.slowlog))
	}
	ents := make([]slowEntry, 0, count)
	for i := len(o.slowlog) - 1; i >= 0 && int64(len(ents)) < count; i-- {
		ents = append(ents, o.slowlog[i])
	}
	o.slowMu.Unlock()
	c.W.Array(len(ents))
	for _, se := range ents {
		c.W.Array(6)
		c.W.Int(se.id)
		c.W.Int(se.time)
		c.W.Int(se.duration)
		c.W.Array(len(se.argv))
		for _, a := range se.argv {
			c.W.BulkString(a)
		}
		c.W.BulkString(se.peer)
		c.W.BulkString(se.name)
	}
}

func cmdSlowlogLen(c *Call) {
	o := &c.E.ops
	o.slowMu.Lock()
	n := len(o.slowlog)
	o.slowMu.Unlock()
	c.W.Int(int64(n))
}

func cmdSlowlogReset(c *Call) {
	o := &c.E.ops
	o.slowMu.Lock()
	o.slowlog = nil
	o.slowMu.Unlock()
	c.OK()
}

// SlowlogLen is the number of entries in the slow log.
func (e *Engine) SlowlogLen() int {
	e.ops.slowMu.Lock()
	defer e.ops.slowMu.Unlock()
	return len(e.ops.slowlog)
}
