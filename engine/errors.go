package engine

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
)

// Error replies with Redis's exact wording. The rule: a text used by one
// file is declared in that file (a family's own errors sit with its
// commands, under its imports); a text used by several files, and every
// exported one (the packages above reply with them too), is declared
// here. Handlers reply with c.Err(err).
var (
	ErrSyntax          = errors.New("ERR syntax error")
	ErrWrongType       = errors.New("WRONGTYPE Operation against a key holding the wrong kind of value")
	ErrNotInteger      = errors.New("ERR value is not an integer or out of range")
	ErrNotFloat        = errors.New("ERR value is not a valid float")
	ErrOverflow        = errors.New("ERR increment or decrement would overflow")
	ErrNoSuchKey       = errors.New("ERR no such key")
	ErrDBIndex         = errors.New("ERR DB index is out of range")
	ErrInvalidDB       = errors.New("ERR invalid DB index") // not an integer
	ErrNoAuth          = errors.New("NOAUTH Authentication required.")
	ErrWrongPass       = errors.New("WRONGPASS invalid username-password pair or user is disabled.")
	ErrNoPasswordSet   = errors.New("ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?")
	ErrNoProto         = errors.New("NOPROTO unsupported protocol version")
	ErrMaxClients      = errors.New("ERR max number of clients reached")
	ErrStringTooLong   = errors.New("ERR string exceeds maximum allowed size (proto-max-bulk-len)")
	ErrNaNOrInfinity   = errors.New("ERR increment would produce NaN or Infinity")
	ErrIncrOverflow    = errors.New("ERR increment or decrement would overflow")
	ErrTimeoutNegative = errors.New("ERR timeout is negative")

	// MULTI/EXEC (cmd_multi.go; the dispatcher and the Go API too).
	ErrMultiNested   = errors.New("ERR MULTI calls can not be nested")
	ErrExecNoMulti   = errors.New("ERR EXEC without MULTI")
	ErrDiscardNoMult = errors.New("ERR DISCARD without MULTI")
	ErrWatchInMulti  = errors.New("ERR WATCH inside MULTI is not allowed")
	ErrExecAbort     = errors.New("EXECABORT Transaction discarded because of previous errors.")

	// ErrPanic is reported when a command panicked; its writes were discarded.
	ErrPanic = errors.New("ERR internal error while running the command (it was rolled back)")
)

// Texts several files share.
var (
	errNoSuchKey         = replyError("ERR no such key")
	errOutOfRange        = errors.New("ERR value is out of range")
	errIntRange          = errors.New("ERR value is out of range, value must between -2147483648 and 2147483647")
	errTimeoutNotInteger = errors.New("ERR timeout is not an integer or out of range")
	errScanCursor        = replyError("ERR invalid cursor")
	errStartInterval     = replyError("ERR invalid start ID for the interval") // XRANGE, XAUTOCLAIM
	errNumkeysPositive   = errors.New("ERR numkeys should be greater than 0")  // SINTERCARD, ZUNION..., *MPOP
	errLimitNegative     = errors.New("ERR LIMIT can't be negative")

	// errDumpStream: DUMP (and MIGRATE) of a stream, which lockredis
	// cannot serialize in Redis's format.
	errDumpStream = replyError("ERR lockredis cannot DUMP or MIGRATE a stream: Redis's RDB stream format is not implemented")
	// errDigestFormat: DELEX, DIGEST and SET's IFDEQ/IFDNE: the text of
	// Redis 8.4's check (redis/redis#14502), taken from its review
	// thread, not compared with a server.
	errDigestFormat = replyError("ERR must be exactly 16 hexadecimal characters")
)

// errSubscribedContext refuses a command on a RESP2 connection in
// subscribed mode.
func errSubscribedContext(name string) error {
	return fmt.Errorf("ERR Can't execute '%s': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context", name)
}

// replyError is an error reply that is a constant.
type replyError string

func (e replyError) Error() string { return string(e) }

// ErrArity is the reply for a wrong number of arguments. name is the
// command's full name in lower case ("get", "client|setname").
func ErrArity(name string) error {
	return fmt.Errorf("ERR wrong number of arguments for '%s' command", name)
}

// ErrInvalidExpire is the reply for an expire time that is out of range.
func ErrInvalidExpire(cmd string) error {
	return fmt.Errorf("ERR invalid expire time in '%s' command", cmd)
}

// ErrUnknownSubcommand is Redis's reply for "CLIENT FOO".
func ErrUnknownSubcommand(sub, cmd string) error {
	return fmt.Errorf("ERR unknown subcommand '%s'. Try %s HELP.", truncateArg(sub), cmd)
}

// ErrProtectedMode is what Redis 7.0's clientAcceptHandler writes to a
// non-local client in protected mode before closing it (byte for byte,
// typos included).
var ErrProtectedMode = errors.New("DENIED Redis is running in protected mode because protected " +
	"mode is enabled and no password is set for the default user. " +
	"In this mode connections are only accepted from the loopback interface. " +
	"If you want to connect from external computers to Redis you " +
	"may adopt one of the following solutions: " +
	"1) Just disable protected mode sending the command " +
	"'CONFIG SET protected-mode no' from the loopback interface " +
	"by connecting to Redis from the same host the server is " +
	"running, however MAKE SURE Redis is not publicly accessible " +
	"from internet if you do so. Use CONFIG REWRITE to make this " +
	"change permanent. " +
	"2) Alternatively you can just disable the protected mode by " +
	"editing the Redis configuration file, and setting the protected " +
	"mode option to 'no', and then restarting the server. " +
	"3) If you started the server manually just for testing, restart " +
	"it with the '--protected-mode no' option. " +
	"4) Setup a an authentication password for the default user. " +
	"NOTE: You only need to do one of the above things in order for " +
	"the server to start accepting connections from the outside.")

// truncateArg mirrors Redis's "%.128s" for argument echoes in errors, and
// its mapping of CR/LF to spaces so the reply stays one line.
func truncateArg(s string) string {
	s = cString(s)
	if len(s) > 128 {
		s = s[:128]
	}
	return sanitizeLine(s)
}

// cString is s as C's printf("%s") prints it: Redis formats command names
// and arguments into its errors with %.*s, which stops at the first NUL.
func cString(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}

// sanitizeLine keeps an error on one line: a reply error cannot hold CR
// or LF.
func sanitizeLine(s string) string {
	if strings.ContainsAny(s, "\r\n") {
		s = strings.NewReplacer("\r", " ", "\n", " ").Replace(s)
	}
	return s
}

// cArg is an argument as Redis puts it in an error message with %s: up
// to its first NUL byte, with newlines turned into spaces.
func cArg(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return sanitizeLine(string(b))
}
