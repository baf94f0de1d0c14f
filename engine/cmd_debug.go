package engine

import (
	"fmt"
	"net"
	"strings"
	"time"
)

// DEBUG HELP | SLEEP seconds | SET-ACTIVE-EXPIRE 0|1 | OBJECT key | LOG
// message | ERROR string: the DEBUG subcommands that mean something here.
// The others, JMAP (gone from Redis since 2.x) included, answer Redis's
// unknown-subcommand error.
//
// DEBUG is a protected command (lockredis flag "protected"): Dispatch
// refuses it unless enable-debug-command is "yes", or "local" and the
// client is on a loopback address or a unix socket (protectedAllowed);
// the Go API's own sessions count as local. The default is Redis's "no".
//
// DEBUG runs in an exclusive transaction (write_tx): DEBUG SLEEP stops
// every other command for its duration, as it stops redis-server.

func debugCommands() []*Command {
	return []*Command{{Name: "debug", Handler: cmdDebug}}
}

var debugHelp = []string{
	"DEBUG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"ERROR <string>",
	"    Return a Redis protocol error with <string> as message. Useful for clients",
	"    unit tests to simulate Redis errors.",
	"LOG <message>",
	"    Write <message> to the server log.",
	"OBJECT <key>",
	"    Show low level info about `key` and associated value.",
	"SET-ACTIVE-EXPIRE <0|1>",
	"    Setting it to 0 disables expiring keys in background when they are not",
	"    accessed (otherwise the Redis behavior). Setting it to 1 reenables back the",
	"    default.",
	"SLEEP <seconds>",
	"    Stop the server for <seconds>. Decimals allowed.",
	"HELP",
	"    Prints this help.",
}

func cmdDebug(c *Call) {
	sub, n := c.Args[1], len(c.Args)
	switch {
	case EqualFold(sub, "help") && n == 2:
		WriteHelp(c.W, debugHelp)
	case EqualFold(sub, "sleep") && n == 3:
		// strtod, as Redis: what does not parse sleeps 0.
		secs, _, _ := strtod(c.Args[2])
		if d := time.Duration(secs * 1e6); d > 0 {
			time.Sleep(d * time.Microsecond)
		}
		c.OK()
	case EqualFold(sub, "set-active-expire") && n == 3:
		c.E.SetActiveExpire(atoi(c.Args[2]) != 0)
		c.OK()
	case EqualFold(sub, "object") && n == 3:
		debugObject(c)
	case EqualFold(sub, "log") && n == 3:
		c.E.Logf("warning", "DEBUG LOG: %s", c.Args[2])
		c.OK()
	case EqualFold(sub, "error") && n == 3:
		c.W.Error(sanitizeLine(string(c.Args[2])))
	default:
		c.Errf("ERR unknown subcommand or wrong number of arguments for '%s'. Try DEBUG HELP.", truncateArg(string(sub)))
	}
}

// debugObject answers Redis's line for a key: the address is the key's
// position in nothing in particular (lockredis values have none), the
// refcount and encoding are OBJECT's, serializedlength is the size of the
// value as stored, lru and lru_seconds_idle are 0 (access times are not
// tracked), and lists add Redis's quicklist fields as one node.
func debugObject(c *Call) {
	v, ok := c.Tx.Get(c.Args[2])
	if !ok {
		c.Err(ErrNoSuchKey)
		return
	}
	refcount := 1
	if v.Type == TypeString {
		if n, isInt := stringIsInt(v.Payload); isInt && n >= 0 && n < 10000 {
			refcount = sharedRefcount
		}
	}
	enc := ObjectEncoding(v)
	extra := ""
	if enc == "quicklist" {
		extra = fmt.Sprintf(" ql_nodes:1 ql_avg_node:%.2f ql_listpack_max:-2 ql_compressed:0 ql_uncompressed_size:%d",
			float64(listLen(v)), len(v.Payload))
	}
	c.W.Status(fmt.Sprintf("Value at:0x%012x refcount:%d encoding:%s serializedlength:%d lru:0 lru_seconds_idle:0%s",
		tokenAddr(v), refcount, enc, len(v.Payload), extra))
}

// tokenAddr gives DEBUG OBJECT's "Value at" something stable per key: its
// fencing token.
func tokenAddr(v Value) uint64 { return v.Token }

// listLen is the number of elements of a list value.
func listLen(v Value) int {
	l := decodeList(v.Payload)
	return len(l.elems)
}

// protectedAllowed reports whether s may run the protected command cmd
// under its enable-<name>-command setting (DEBUG's or MODULE's), as
// Redis's allowProtectedAction.
func (e *Engine) protectedAllowed(s *Session, cmd *Command) bool {
	mode := e.ops.debugMode
	if protectedRoot(cmd).Name == "module" {
		mode = e.ops.moduleMode
	}
	switch mode {
	case "yes":
		return true
	case "local":
		return s.Kind != KindClient || isLocalAddr(s.Addr())
	}
	return false
}

// protectedRoot is the command whose name the refusal gives: MODULE for
// MODULE LOAD.
func protectedRoot(cmd *Command) *Command {
	if cmd.parent != nil {
		return cmd.parent
	}
	return cmd
}

// isLocalAddr is Redis's islocalClient: a unix socket, or a peer at
// 127.0.0.1 or ::1.
func isLocalAddr(addr string) bool {
	if strings.HasPrefix(addr, "/") || strings.HasPrefix(addr, "unix:") || addr == "@" {
		return true
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	return host == "127.0.0.1" || host == "::1"
}

// errProtected is Redis's refusal of a protected command.
func errProtected(cmd *Command) error {
	cmd = protectedRoot(cmd)
	return replyError(fmt.Sprintf("ERR %s command not allowed. If the enable-%s-command option is set to \"local\", "+
		"you can run it from a local connection, otherwise you need to set this option in the configuration file, "+
		"and then restart the server.", strings.ToUpper(cmd.Name), cmd.Name))
}
