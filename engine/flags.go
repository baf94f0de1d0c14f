package engine

// Flags describe a command: Redis's flags (COMMAND INFO) and lockredis's
// internal ones, read from the spec files (spec.go).
type Flags uint64

const (
	FlagWrite           Flags = 1 << iota // modifies the keyspace
	FlagReadonly                          // reads the keyspace only
	FlagDenyOOM                           // may grow memory
	FlagModule                            // comes from a module (never here)
	FlagAdmin                             // server administration
	FlagPubSub                            // a pub/sub command
	FlagNoScript                          // refused inside EVAL
	FlagBlocking                          // may block the client
	FlagLoading                           // allowed while loading
	FlagStale                             // allowed on a stale replica
	FlagSkipMonitor                       // not shown to MONITOR
	FlagSkipSlowlog                       // not logged by SLOWLOG
	FlagAsking                            // cluster ASKING
	FlagFast                              // O(1) or O(log n)
	FlagNoAuth                            // allowed before AUTH
	FlagNoMandatoryKeys                   // may take no key at all (EVAL with numkeys 0)
	FlagNoAsyncLoading                    // refused during async loading
	FlagNoMulti                           // refused inside MULTI
	FlagMovableKeys                       // keys found by a key count, not fixed positions
	FlagAllowBusy                         // allowed while a script runs too long

	// lockredis's own flags (the specs' lockredis_flags).
	FlagMayReplicate   // may replicate although not a write (PUBLISH, EVAL): Redis has it, COMMAND INFO hides it
	FlagNoKeyspace     // touches no key: runs without a keyspace transaction
	FlagWriteTx        // needs an exclusive transaction without being a write command (EVAL, EXEC)
	FlagSubscribedOK   // allowed while subscribed in RESP2
	FlagMultiControl   // runs at once inside MULTI instead of being queued
	FlagReceivesPushes // the connection may receive pushes after it: SUBSCRIBE, PSUBSCRIBE, SSUBSCRIBE, CLIENT TRACKING
	FlagRunsScript     // runs a script (EVAL...): the commands it calls are what it reads
	FlagEndsMulti      // ends a MULTI (EXEC, DISCARD, QUIT, RESET): not refused for memory while queuing (guards.go)
	FlagDiskCheck      // refused with MISCONF on a failing disk although not a write (PING, as Redis's processCommand)

	// Channels for ACL checks (Redis keeps them in a table of its own,
	// commands_with_channels).
	FlagChannelPublish   // the first argument is a channel published to
	FlagChannelSubscribe // every argument is a channel subscribed to
	FlagChannelPattern   // with FlagChannelSubscribe: every argument is a pattern
	FlagProtected        // refused unless enable-<name>-command allows the client (DEBUG): Redis's CMD_PROTECTED
)

type flagName struct {
	f    Flags
	name string
}

// flagNames are Redis's flags in the order COMMAND INFO prints them.
var flagNames = []flagName{
	{FlagWrite, "write"},
	{FlagReadonly, "readonly"},
	{FlagDenyOOM, "denyoom"},
	{FlagModule, "module"},
	{FlagAdmin, "admin"},
	{FlagPubSub, "pubsub"},
	{FlagNoScript, "noscript"},
	{FlagBlocking, "blocking"},
	{FlagLoading, "loading"},
	{FlagStale, "stale"},
	{FlagSkipMonitor, "skip_monitor"},
	{FlagSkipSlowlog, "skip_slowlog"},
	{FlagAsking, "asking"},
	{FlagFast, "fast"},
	{FlagNoAuth, "no_auth"},
	{FlagNoMandatoryKeys, "no_mandatory_keys"},
	{FlagNoAsyncLoading, "no_async_loading"},
	{FlagNoMulti, "no_multi"},
	{FlagMovableKeys, "movablekeys"},
	{FlagAllowBusy, "allow_busy"},
}

// lockredisFlagNames name our internal flags in the spec files.
var lockredisFlagNames = []flagName{
	{FlagMayReplicate, "may_replicate"},
	{FlagNoKeyspace, "nokeyspace"},
	{FlagWriteTx, "write_tx"},
	{FlagSubscribedOK, "subscribed_ok"},
	{FlagMultiControl, "multi_control"},
	{FlagReceivesPushes, "receives_pushes"},
	{FlagEndsMulti, "ends_multi"},
	{FlagDiskCheck, "disk_check"},
	{FlagRunsScript, "runs_script"},
	{FlagChannelPublish, "channel_publish"},
	{FlagChannelSubscribe, "channel_subscribe"},
	{FlagChannelPattern, "channel_pattern"},
	{FlagProtected, "protected"},
}

// Has reports whether all of f's bits are set.
func (fl Flags) Has(f Flags) bool { return fl&f == f }

// Names lists Redis's flags as COMMAND INFO prints them.
func (fl Flags) Names() []string {
	var out []string
	for _, n := range flagNames {
		if fl.Has(n.f) {
			out = append(out, n.name)
		}
	}
	return out
}
