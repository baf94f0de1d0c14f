package engine

import (
	"errors"
	"fmt"
)

// Error replies with Redis's exact wording, shared by the command handlers
// and the dispatcher. Handlers reply with c.Err(err).

// cmd_bitmap.go, cmd_lcs.go
// errDumpStream: DUMP (and MIGRATE) of a stream, which lockredis cannot
// serialize in Redis's format.
var errDumpStream = replyError("ERR lockredis cannot DUMP or MIGRATE a stream: Redis's RDB stream format is not implemented")

var (
	errBitOffset        = replyError("ERR bit offset is not an integer or out of range")
	errBitValue         = replyError("ERR bit is not an integer or out of range")
	errBitposBit        = replyError("ERR The bit argument must be 1 or 0.")
	errBitopNot         = replyError("ERR BITOP NOT must be called with a single source key.")
	errBitfieldType     = replyError("ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.")
	errBitfieldOverflow = replyError("ERR Invalid OVERFLOW type specified")
	errBitfieldRO       = replyError("ERR BITFIELD_RO only supports the GET subcommand")
	errLCSKeys          = replyError("ERR The specified keys must contain string values")
	errLCSLenAndIdx     = replyError("ERR If you want both the length and indexes, please just use IDX.")
	errLCSMemory        = replyError("ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len")
)

// cmd_client.go
var (
	errNoSuchClient    = errors.New("ERR No such client")
	errClientIDInvalid = errors.New("ERR Invalid client ID")
	errClientIDRange   = errors.New("ERR client-id should be greater than 0")
	errUnblockReason   = errors.New("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR")
	errPauseMode       = errors.New("ERR CLIENT PAUSE mode must be WRITE or ALL")
)

// tracking.go (CLIENT TRACKING, CLIENT CACHING)
var (
	errTrackingOneRedirect  = errors.New("ERR A client can only redirect to a single other client")
	errTrackingNoRedirect   = errors.New("ERR The client ID you want redirect to does not exist")
	errTrackingPrefixBcast  = errors.New("ERR PREFIX option requires BCAST mode to be enabled")
	errTrackingSwitchBcast  = errors.New("ERR You can't switch BCAST mode on/off before disabling tracking for this client, and then re-enabling it with a different mode.")
	errTrackingBcastOpt     = errors.New("ERR OPTIN and OPTOUT are not compatible with BCAST")
	errTrackingOptinOptout  = errors.New("ERR You can't specify both OPTIN mode and OPTOUT mode")
	errTrackingSwitchOpt    = errors.New("ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and then re-enabling it with a different mode.")
	errCachingNotTracking   = errors.New("ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode enabled")
	errCachingYesNeedsOptin = errors.New("ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.")
	errCachingNoNeedsOptout = errors.New("ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.")
)

// cmd_command.go
var (
	errGetkeysInvalidCommand = errors.New("ERR Invalid command specified")
	errGetkeysNoKeys         = errors.New("ERR The command has no key arguments")
	errGetkeysArity          = errors.New("ERR Invalid number of arguments specified for command")
	errGetkeysInvalidArgs    = errors.New("ERR Invalid arguments specified for command")
)

// Operations: monitor.go, cmd_slowlog.go, cmd_shutdown.go, swapdb.go.
var (
	errMonitorKeyspace     = replyError("ERR Replica can't interact with the keyspace")
	errMonitorDenyBlocking = replyError("ERR MONITOR isn't allowed for DENY BLOCKING client")
	errSlowlogCount        = replyError("ERR count should be greater than or equal to -1")
	errNoShutdown          = replyError("ERR No shutdown in progress.")
	errShutdownFailed      = replyError("ERR Errors trying to SHUTDOWN. Check logs.")
	errSwapDBFirst         = replyError("ERR invalid first DB index")
	errSwapDBSecond        = replyError("ERR invalid second DB index")
	errDBIndexRange        = replyError("ERR DB index is out of range")
)

// cmd_config.go
var (
	errNoConfigFile = errors.New("ERR The server is running without a config file")
)

// cmd_delex.go (DELEX, DIGEST; SET's IFDEQ/IFDNE in cmd_string.go): the
// text of Redis 8.4's check (redis/redis#14502), taken from its review
// thread, not compared with a server.
var (
	errDigestFormat = replyError("ERR must be exactly 16 hexadecimal characters")
)

// cmd_hash_ttl.go (hash field expiry): Redis 7.4/8.0's texts, from its
// t_hash.c; no redis-server that new is here to compare with.
var (
	errFieldsMissing     = replyError("ERR Mandatory argument FIELDS is missing or not at the right position")
	errNumFieldsMismatch = replyError("ERR The `numfields` parameter must match the number of arguments")
	errNumFieldsHexpire  = replyError("ERR Parameter `numFields` should be greater than 0")
	errNumFieldsPositive = replyError("ERR Number of fields must be a positive integer")
	errNumFieldsHsetex   = replyError("ERR invalid number of fields")
	errFieldExpireNeg    = replyError("ERR invalid expire time, must be >= 0")
	errHsetexMissingTime = replyError("ERR missing expire time")
	errHsetexCondition   = replyError("ERR Only one of FXX or FNX arguments can be specified")
	errHsetexExpiration  = replyError("ERR Only one of EX, PX, EXAT, PXAT or KEEPTTL arguments can be specified")
)

// cmd_expire.go
var (
	errExpireNXAndOthers = replyError("ERR NX and XX, GT or LT options at the same time are not compatible")
	errExpireGTAndLT     = replyError("ERR GT and LT options at the same time are not compatible")
)

// cmd_hash.go
var (
	errHashNotInteger = errors.New("ERR hash value is not an integer")
	errHashNotFloat   = errors.New("ERR hash value is not a float")
	errIncrNaNOrInf   = errors.New("ERR value is NaN or Infinity")
	errOutOfRange     = errors.New("ERR value is out of range")
	errMustBePositive = errors.New("ERR value is out of range, must be positive")
	errRangeLong      = errors.New("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807")
)

// cmd_keys.go
var (
	errSameObject = replyError("ERR source and destination objects are the same")
)

// cmd_lock.go, lock_session.go: lockredis's own commands name the argument
// that is wrong, as Redis's newer commands do.
var (
	errLockNumkeys     = replyError("ERR numkeys should be greater than 0")
	errPermitsPositive = replyError("ERR PERMITS should be greater than 0")
	errNoSession       = replyError("ERR no such session")
)

// errLockArgNotInteger is the reply for an option of a lock command that is
// not an integer: "ERR <name> is not an integer or out of range".
func errLockArgNotInteger(name string) error {
	return errors.New("ERR " + name + " is not an integer or out of range")
}

// errLockArgNegative is the reply for an option that may not be negative.
func errLockArgNegative(name string) error { return errors.New("ERR " + name + " is negative") }

// errPermitsDiffer answers a request naming another count of permits than
// the semaphore's holders did.
func errPermitsDiffer(n int64) error {
	return fmt.Errorf("ERR PERMITS differs from the %d the holders of this semaphore named", n)
}

// cmd_list.go
var (
	errIndexOutOfRange = errors.New("ERR index out of range")
	errRankZero        = errors.New("ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list")
	errCountNegative   = errors.New("ERR COUNT can't be negative")
	errMaxlenNegative  = errors.New("ERR MAXLEN can't be negative")
	errTimeoutNotFloat = errors.New("ERR timeout is not a float or out of range")
	errTimeoutRange    = errors.New("ERR timeout is out of range")
)

// cmd_set_algebra.go, cmd_zset_algebra.go, cmd_mpop.go
var (
	errNumkeysPositive = errors.New("ERR numkeys should be greater than 0")
	errNumkeysTooMany  = errors.New("ERR Number of keys can't be greater than number of args")
	errLimitNegative   = errors.New("ERR LIMIT can't be negative")
	errWeightNotFloat  = errors.New("ERR weight value is not a float")
	errCountPositive   = errors.New("ERR count should be greater than 0")
)

// cmd_multi.go
var (
	ErrMultiNested   = errors.New("ERR MULTI calls can not be nested")
	ErrExecNoMulti   = errors.New("ERR EXEC without MULTI")
	ErrDiscardNoMult = errors.New("ERR DISCARD without MULTI")
	ErrWatchInMulti  = errors.New("ERR WATCH inside MULTI is not allowed")
	ErrExecAbort     = errors.New("EXECABORT Transaction discarded because of previous errors.")
)

// cmd_server.go
var (
	errTimeoutNotInteger = errors.New("ERR timeout is not an integer or out of range")
	errWaitAOFLocalRange = errors.New("ERR value is out of range, value must between 0 and 1")
	errNotPositive       = errors.New("ERR value is out of range, must be positive")
	errWaitAOFNoAOF      = errors.New("ERR WAITAOF cannot be used when numlocal is set but appendonly is disabled.")
)

// cmd_string.go
var (
	errDecrOverflow = replyError("ERR decrement would overflow")
	errOffsetRange  = replyError("ERR offset is out of range")
)

// cmd_zset.go
var (
	errScoreNaN        = errors.New("ERR resulting score is not a number (NaN)")
	errZaddXXNX        = errors.New("ERR XX and NX options at the same time are not compatible")
	errZaddGTLTNX      = errors.New("ERR GT, LT, and/or NX options at the same time are not compatible")
	errZaddIncrPairs   = errors.New("ERR INCR option supports a single increment-element pair")
	errMinMaxFloat     = errors.New("ERR min or max is not a float")
	errMinMaxLex       = errors.New("ERR min or max not valid string range item")
	errLimitNeedsBy    = errors.New("ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX")
	errWithscoresBylex = errors.New("ERR syntax error, WITHSCORES not supported in combination with BYLEX")
)

// engine.go
var (
	// ErrPanic is reported when a command panicked; its writes were discarded.
	ErrPanic = errors.New("ERR internal error while running the command (it was rolled back)")
)

// guards.go: Redis's shared.oomerr and shared.slowevalerr.
var (
	errOOM        = replyError("OOM command not allowed when used memory > 'maxmemory'.")
	errBusyScript = replyError("BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.")
)

// persist.go
var (
	errRewriteInProgress = errors.New("ERR Background append only file rewriting already in progress")
	errNoAOF             = errors.New("ERR no append only file: the keyspace is in memory")
	errCorruptAOF        = errors.New("corrupt")
)

// scan.go
var (
	errScanCursor = replyError("ERR invalid cursor")
)

// tx.go
var (
	// errRollback makes buntdb discard the transaction.
	errRollback = errors.New("rollback")
)

// writer.go
var (
	// Errors with Redis's exact wording. Handlers reply with c.Err(err).
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
)

// dispatch.go: refusals before a command runs.
var (
	errNotInMulti = errors.New("ERR Command not allowed inside a transaction")
	// A script's redis.call is refused with texts of its own (scriptCall).
	errScriptUnknownCommand    = errors.New("ERR Unknown Redis command called from script")
	errScriptWrongArity        = errors.New("ERR Wrong number of args calling Redis command from script")
	errScriptNotAllowed        = errors.New("ERR This Redis command is not allowed from script")
	errScriptWriteFromReadOnly = errors.New("ERR Write commands are not allowed from read-only scripts.")
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
