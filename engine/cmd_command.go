package engine

import (
	"strings"
)

// COMMAND and its subcommands, read from the command table. Redis's ACL
// categories and documentation groups, which the table does not carry,
// come from redisCommandMeta below.

func commandCommands() []*Command {
	const sub = FlagNoKeyspace | FlagLoading | FlagStale
	return []*Command{{
		Name: "command", Arity: -1, Flags: sub, Handler: cmdCommand,
		Subcommands: []*Command{
			{Name: "count", Arity: 2, Flags: sub, Handler: cmdCommandCount},
			{Name: "docs", Arity: -2, Flags: sub, Handler: cmdCommandDocs},
			{Name: "getkeys", Arity: -4, Flags: sub, Handler: cmdCommandGetkeys},
			{Name: "getkeysandflags", Arity: -4, Flags: sub, Handler: cmdCommandGetkeys},
			{Name: "help", Arity: 2, Flags: sub, Handler: cmdCommandHelp},
			{Name: "info", Arity: -2, Flags: sub, Handler: cmdCommandInfo},
			{Name: "list", Arity: -2, Flags: sub, Handler: cmdCommandList},
		},
	}}
}

var commandHelp = []string{
	"COMMAND <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"(no subcommand)",
	"    Return details about all Redis commands.",
	"COUNT",
	"    Return the total number of commands in this Redis server.",
	"LIST",
	"    Return a list of all commands in this Redis server.",
	"INFO [<command-name> ...]",
	"    Return details about multiple Redis commands.",
	"    If no command names are given, documentation details for all",
	"    commands are returned.",
	"DOCS [<command-name> ...]",
	"    Return documentation details about multiple Redis commands.",
	"    If no command names are given, documentation details for all",
	"    commands are returned.",
	"GETKEYS <full-command>",
	"    Return the keys from a full Redis command.",
	"GETKEYSANDFLAGS <full-command>",
	"    Return the keys and the access flags from a full Redis command.",
	"HELP",
	"    Prints this help.",
}

func cmdCommandHelp(c *Call) { WriteHelp(c.W, commandHelp) }

// cmdCommand answers COMMAND: every top-level command as COMMAND INFO
// renders it.
func cmdCommand(c *Call) {
	all := c.E.Table.All()
	c.W.Array(len(all))
	for _, cmd := range all {
		writeCommandInfo(c.W, cmd)
	}
}

func cmdCommandCount(c *Call) { c.W.Int(int64(len(c.E.Table.All()))) }

// lookupCommandName finds "get" or "client|setname" (any case).
func (t *Table) lookupCommandName(name []byte) *Command {
	parent, sub, isSub := strings.Cut(string(name), "|")
	cmd := t.Get([]byte(parent))
	if cmd == nil || !isSub {
		return cmd
	}
	if cmd.subs == nil {
		return nil
	}
	return cmd.Sub([]byte(sub))
}

func cmdCommandInfo(c *Call) {
	if len(c.Args) == 2 {
		cmdCommand(c)
		return
	}
	c.W.Array(len(c.Args) - 2)
	for _, name := range c.Args[2:] {
		if cmd := c.E.Table.lookupCommandName(name); cmd != nil {
			writeCommandInfo(c.W, cmd)
		} else {
			c.W.Null()
		}
	}
}

// movableKeys are the commands whose keys follow a key count (EVAL's
// numkeys) instead of fixed positions.
func movableKeys(cmd *Command) bool {
	switch cmd.FullName {
	case "eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro":
		return true
	}
	return false
}

// hasKeys reports whether a command takes key arguments.
func hasKeys(cmd *Command) bool { return cmd.FirstKey > 0 || movableKeys(cmd) }

// writeCommandInfo renders one command the way Redis 7.0's COMMAND INFO
// does: name, arity, flags, first key, last key, step, ACL categories,
// tips, key specs, subcommands.
func writeCommandInfo(w Writer, cmd *Command) {
	flags := cmd.Flags.Names()
	if movableKeys(cmd) {
		flags = append(flags, "movablekeys")
	}
	w.Array(10)
	w.BulkString(cmd.FullName)
	w.Int(int64(cmd.Arity))
	w.Set(len(flags))
	for _, f := range flags {
		w.Status(f)
	}
	if movableKeys(cmd) {
		// Redis reports 0 0 0 for commands whose keys move.
		w.Int(0)
		w.Int(0)
		w.Int(0)
	} else {
		w.Int(int64(cmd.FirstKey))
		w.Int(int64(cmd.LastKey))
		w.Int(int64(cmd.Step))
	}
	cats := commandCategories(cmd)
	w.Set(len(cats))
	for _, cat := range cats {
		w.Status("@" + cat)
	}
	var tips []string
	if m, ok := redisCommandMeta[cmd.FullName]; ok {
		tips = strings.Fields(m.tips)
	}
	w.Set(len(tips))
	for _, t := range tips {
		w.BulkString(t)
	}
	writeKeySpecs(w, cmd)
	w.Array(len(cmd.Subcommands))
	for _, sc := range cmd.Subcommands {
		writeCommandInfo(w, sc)
	}
}

// keySpecFlags approximates Redis's key-spec flags from the command's:
// the table does not say whether a write inserts, updates or deletes.
func keySpecFlags(cmd *Command) []string {
	switch {
	case cmd.Flags.Has(FlagWrite) || movableKeys(cmd):
		return []string{"RW", "access", "update"}
	case cmd.Flags.Has(FlagReadonly):
		return []string{"RO", "access"}
	}
	return []string{"RO"}
}

// writeKeySpecs renders one key spec: a range from FirstKey for fixed
// positions, a key count at argument 2 for EVAL and friends.
func writeKeySpecs(w Writer, cmd *Command) {
	if !hasKeys(cmd) {
		w.Set(0)
		return
	}
	w.Set(1)
	w.Map(3)
	w.BulkString("flags")
	flags := keySpecFlags(cmd)
	w.Set(len(flags))
	for _, f := range flags {
		w.Status(f)
	}
	w.BulkString("begin_search")
	w.Map(2)
	w.BulkString("type")
	w.BulkString("index")
	w.BulkString("spec")
	w.Map(1)
	w.BulkString("index")
	if movableKeys(cmd) {
		w.Int(2)
	} else {
		w.Int(int64(cmd.FirstKey))
	}
	w.BulkString("find_keys")
	w.Map(2)
	w.BulkString("type")
	if movableKeys(cmd) {
		w.BulkString("keynum")
		w.BulkString("spec")
		w.Map(3)
		w.BulkString("keynumidx")
		w.Int(0)
		w.BulkString("firstkey")
		w.Int(1)
		w.BulkString("keystep")
		w.Int(1)
		return
	}
	// A range's last key counts from the first; negative ones from the end.
	last := int64(cmd.LastKey)
	if last >= 0 {
		last -= int64(cmd.FirstKey)
	}
	w.BulkString("range")
	w.BulkString("spec")
	w.Map(3)
	w.BulkString("lastkey")
	w.Int(last)
	w.BulkString("keystep")
	w.Int(int64(cmd.Step))
	w.BulkString("limit")
	w.Int(0)
}

// aclCategoryOrder is the order Redis lists ACL categories in.
var aclCategoryOrder = []string{"keyspace", "read", "write", "set", "sortedset", "list", "hash", "string",
	"bitmap", "hyperloglog", "geo", "stream", "pubsub", "admin", "fast", "slow", "blocking", "dangerous",
	"connection", "transaction", "scripting"}

// groupCategory is the ACL category a documentation group implies.
var groupCategory = map[string]string{
	"generic": "keyspace", "string": "string", "list": "list", "set": "set", "sorted-set": "sortedset",
	"hash": "hash", "pubsub": "pubsub", "transactions": "transaction", "connection": "connection",
	"scripting": "scripting", "bitmap": "bitmap", "hyperloglog": "hyperloglog", "geo": "geo", "stream": "stream",
}

// commandGroup is the documentation group of a command ("string",
// "connection"...), its container's for a subcommand.
func commandGroup(cmd *Command) string {
	if p := cmd.Parent(); p != nil {
		cmd = p
	}
	if m, ok := redisCommandMeta[cmd.FullName]; ok && m.group != "" {
		return m.group
	}
	return "server"
}

// commandCategories lists a command's ACL categories (without '@'):
// Redis's own for the commands Redis has, else derived from the flags and
// the group.
func commandCategories(cmd *Command) []string {
	if m, ok := redisCommandMeta[cmd.FullName]; ok {
		return strings.Fields(m.categories)
	}
	if len(cmd.Subcommands) > 0 {
		return []string{"slow"}
	}
	have := map[string]bool{groupCategory[commandGroup(cmd)]: true}
	have["write"] = cmd.Flags.Has(FlagWrite)
	have["read"] = cmd.Flags.Has(FlagReadonly)
	have["admin"] = cmd.Flags.Has(FlagAdmin)
	have["dangerous"] = cmd.Flags.Has(FlagAdmin)
	have["fast"] = cmd.Flags.Has(FlagFast)
	have["slow"] = !cmd.Flags.Has(FlagFast)
	have["blocking"] = cmd.Flags.Has(FlagBlocking)
	var out []string
	for _, cat := range aclCategoryOrder {
		if have[cat] {
			out = append(out, cat)
		}
	}
	return out
}

// cmdCommandDocs answers a map from command name to its documentation.
// Only the group is known; the summary, which redis-cli's help prints
// unconditionally, is an empty string.
func cmdCommandDocs(c *Call) {
	var cmds []*Command
	if len(c.Args) == 2 {
		cmds = c.E.Table.All()
	} else {
		for _, name := range c.Args[2:] {
			if cmd := c.E.Table.lookupCommandName(name); cmd != nil {
				cmds = append(cmds, cmd)
			}
		}
	}
	c.W.Map(len(cmds))
	for _, cmd := range cmds {
		c.W.BulkString(cmd.FullName)
		writeCommandDocs(c.W, cmd)
	}
}

func writeCommandDocs(w Writer, cmd *Command) {
	n := 2
	if len(cmd.Subcommands) > 0 {
		n++
	}
	w.Map(n)
	w.BulkString("summary")
	w.BulkString("")
	w.BulkString("group")
	w.BulkString(commandGroup(cmd))
	if len(cmd.Subcommands) > 0 {
		w.BulkString("subcommands")
		w.Map(len(cmd.Subcommands))
		for _, sc := range cmd.Subcommands {
			w.BulkString(sc.FullName)
			writeCommandDocs(w, sc)
		}
	}
}

// cmdCommandList handles COMMAND LIST [FILTERBY MODULE name | ACLCAT cat |
// PATTERN pattern]: the names of commands and subcommands. No command
// comes from a module.
func cmdCommandList(c *Call) {
	var filter func(cmd *Command) bool
	switch {
	case len(c.Args) == 2:
	case len(c.Args) == 5 && EqualFold(c.Args[2], "filterby"):
		arg := c.Args[4]
		switch kind := c.Args[3]; {
		case EqualFold(kind, "module"):
			filter = func(*Command) bool { return false }
		case EqualFold(kind, "aclcat"):
			filter = func(cmd *Command) bool {
				for _, cat := range commandCategories(cmd) {
					if EqualFold(arg, cat) {
						return true
					}
				}
				return false
			}
		case EqualFold(kind, "pattern"):
			filter = func(cmd *Command) bool { return globString(arg, cmd.FullName, true) }
		default:
			c.Err(ErrSyntax)
			return
		}
	default:
		c.Err(ErrSyntax)
		return
	}
	var names []string
	for _, cmd := range c.E.Table.All() {
		if filter == nil || filter(cmd) {
			names = append(names, cmd.FullName)
		}
		for _, sc := range cmd.Subcommands {
			if filter == nil || filter(sc) {
				names = append(names, sc.FullName)
			}
		}
	}
	c.W.Array(len(names))
	for _, n := range names {
		c.W.BulkString(n)
	}
}

// commandKeys returns the positions in args of the keys of cmd, or false
// when args do not hold valid key arguments.
func commandKeys(cmd *Command, args [][]byte) ([]int, bool) {
	if movableKeys(cmd) {
		n, ok := ParseInt(args[2])
		if !ok || n < 0 || n > int64(len(args)-3) {
			return nil, false
		}
		keys := make([]int, 0, n)
		for i := 3; i < 3+int(n); i++ {
			keys = append(keys, i)
		}
		return keys, true
	}
	last := cmd.LastKey
	if last < 0 {
		last += len(args)
	}
	step := cmd.Step
	if step < 1 {
		step = 1
	}
	var keys []int
	for i := cmd.FirstKey; i <= last && i < len(args); i += step {
		keys = append(keys, i)
	}
	return keys, len(keys) > 0
}

// cmdCommandGetkeys handles COMMAND GETKEYS and GETKEYSANDFLAGS
// command [arg ...].
func cmdCommandGetkeys(c *Call) {
	args := c.Args[2:]
	cmd := c.E.Table.Get(args[0])
	if cmd != nil && cmd.subs != nil && len(args) >= 2 {
		cmd = cmd.Sub(args[1])
	}
	switch {
	case cmd == nil:
		c.Err(errGetkeysInvalidCommand)
		return
	case !hasKeys(cmd):
		c.Err(errGetkeysNoKeys)
		return
	case !arityOK(cmd.Arity, len(args)):
		c.Err(errGetkeysArity)
		return
	}
	keys, ok := commandKeys(cmd, args)
	if !ok {
		if movableKeys(cmd) {
			// EVAL and friends may have no key at all.
			c.W.Array(0)
			return
		}
		c.Err(errGetkeysInvalidArgs)
		return
	}
	withFlags := c.Cmd.Name == "getkeysandflags"
	c.W.Array(len(keys))
	for _, i := range keys {
		if !withFlags {
			c.W.Bulk(args[i])
			continue
		}
		c.W.Array(2)
		c.W.Bulk(args[i])
		flags := keySpecFlags(cmd)
		c.W.Set(len(flags))
		for _, f := range flags {
			c.W.Status(f)
		}
	}
}

// commandMeta is what Redis 7.0 says of a command beyond the table: its
// documentation group (top-level commands only), ACL categories and tips,
// space separated.
type commandMeta struct {
	group, categories, tips string
}

// redisCommandMeta was read from redis-server 7.0.15 (COMMAND and COMMAND
// DOCS), plus the 7.2 commands lockredis implements (WAITAOF, CLIENT
// SETINFO).
var redisCommandMeta = map[string]commandMeta{
	"acl":                           {"server", "slow", ""},
	"acl|cat":                       {"", "slow", ""},
	"acl|deluser":                   {"", "admin slow dangerous", ""},
	"acl|dryrun":                    {"", "admin slow dangerous", ""},
	"acl|genpass":                   {"", "slow", ""},
	"acl|getuser":                   {"", "admin slow dangerous", ""},
	"acl|help":                      {"", "slow", ""},
	"acl|list":                      {"", "admin slow dangerous", ""},
	"acl|load":                      {"", "admin slow dangerous", ""},
	"acl|log":                       {"", "admin slow dangerous", ""},
	"acl|save":                      {"", "admin slow dangerous", ""},
	"acl|setuser":                   {"", "admin slow dangerous", ""},
	"acl|users":                     {"", "admin slow dangerous", ""},
	"acl|whoami":                    {"", "slow", ""},
	"append":                        {"string", "write string fast", ""},
	"asking":                        {"cluster", "fast connection", ""},
	"auth":                          {"connection", "fast connection", ""},
	"bgrewriteaof":                  {"server", "admin slow dangerous", ""},
	"bgsave":                        {"server", "admin slow dangerous", ""},
	"bitcount":                      {"bitmap", "read bitmap slow", ""},
	"bitfield":                      {"bitmap", "write bitmap slow", ""},
	"bitfield_ro":                   {"bitmap", "read bitmap fast", ""},
	"bitop":                         {"bitmap", "write bitmap slow", ""},
	"bitpos":                        {"bitmap", "read bitmap slow", ""},
	"blmove":                        {"list", "write list slow blocking", ""},
	"blmpop":                        {"list", "write list slow blocking", ""},
	"blpop":                         {"list", "write list slow blocking", ""},
	"brpop":                         {"list", "write list slow blocking", ""},
	"brpoplpush":                    {"list", "write list slow blocking", ""},
	"bzmpop":                        {"sorted-set", "write sortedset slow blocking", ""},
	"bzpopmax":                      {"sorted-set", "write sortedset fast blocking", ""},
	"bzpopmin":                      {"sorted-set", "write sortedset fast blocking", ""},
	"client":                        {"connection", "slow", ""},
	"client|caching":                {"", "slow connection", ""},
	"client|getname":                {"", "slow connection", ""},
	"client|getredir":               {"", "slow connection", ""},
	"client|help":                   {"", "slow connection", ""},
	"client|id":                     {"", "slow connection", ""},
	"client|info":                   {"", "slow connection", "nondeterministic_output"},
	"client|kill":                   {"", "admin slow dangerous connection", ""},
	"client|list":                   {"", "admin slow dangerous connection", "nondeterministic_output"},
	"client|no-evict":               {"", "admin slow dangerous connection", ""},
	"client|pause":                  {"", "admin slow dangerous connection", ""},
	"client|reply":                  {"", "slow connection", ""},
	"client|setinfo":                {"", "slow connection", ""},
	"client|setname":                {"", "slow connection", ""},
	"client|tracking":               {"", "slow connection", ""},
	"client|trackinginfo":           {"", "slow connection", ""},
	"client|unblock":                {"", "admin slow dangerous connection", ""},
	"client|unpause":                {"", "admin slow dangerous connection", ""},
	"cluster":                       {"cluster", "slow", ""},
	"cluster|addslots":              {"", "admin slow dangerous", ""},
	"cluster|addslotsrange":         {"", "admin slow dangerous", ""},
	"cluster|bumpepoch":             {"", "admin slow dangerous", "nondeterministic_output"},
	"cluster|count-failure-reports": {"", "admin slow dangerous", "nondeterministic_output"},
	"cluster|countkeysinslot":       {"", "slow", ""},
	"cluster|delslots":              {"", "admin slow dangerous", ""},
	"cluster|delslotsrange":         {"", "admin slow dangerous", ""},
	"cluster|failover":              {"", "admin slow dangerous", ""},
	"cluster|flushslots":            {"", "admin slow dangerous", ""},
	"cluster|forget":                {"", "admin slow dangerous", ""},
	"cluster|getkeysinslot":         {"", "slow", "nondeterministic_output"},
	"cluster|help":                  {"", "slow", ""},
	"cluster|info":                  {"", "slow", "nondeterministic_output"},
	"cluster|keyslot":               {"", "slow", ""},
	"cluster|links":                 {"", "slow", "nondeterministic_output"},
	"cluster|meet":                  {"", "admin slow dangerous", ""},
	"cluster|myid":                  {"", "slow", ""},
	"cluster|nodes":                 {"", "slow", "nondeterministic_output"},
	"cluster|replicas":              {"", "admin slow dangerous", "nondeterministic_output"},
	"cluster|replicate":             {"", "admin slow dangerous", ""},
	"cluster|reset":                 {"", "admin slow dangerous", ""},
	"cluster|saveconfig":            {"", "admin slow dangerous", ""},
	"cluster|set-config-epoch":      {"", "admin slow dangerous", ""},
	"cluster|setslot":               {"", "admin slow dangerous", ""},
	"cluster|shards":                {"", "slow", "nondeterministic_output"},
	"cluster|slaves":                {"", "admin slow dangerous", "nondeterministic_output"},
	"cluster|slots":                 {"", "slow", "nondeterministic_output"},
	"command":                       {"server", "slow connection", "nondeterministic_output_order"},
	"command|count":                 {"", "slow connection", ""},
	"command|docs":                  {"", "slow connection", "nondeterministic_output_order"},
	"command|getkeys":               {"", "slow connection", ""},
	"command|getkeysandflags":       {"", "slow connection", ""},
	"command|help":                  {"", "slow connection", ""},
	"command|info":                  {"", "slow connection", "nondeterministic_output_order"},
	"command|list":                  {"", "slow connection", "nondeterministic_output_order"},
	"config":                        {"server", "slow", ""},
	"config|get":                    {"", "admin slow dangerous", ""},
	"config|help":                   {"", "slow", ""},
	"config|resetstat":              {"", "admin slow dangerous", ""},
	"config|rewrite":                {"", "admin slow dangerous", ""},
	"config|set":                    {"", "admin slow dangerous", "request_policy:all_nodes response_policy:all_succeeded"},
	"copy":                          {"generic", "keyspace write slow", ""},
	"dbsize":                        {"server", "keyspace read fast", "request_policy:all_shards response_policy:agg_sum"},
	"debug":                         {"server", "admin slow dangerous", ""},
	"decr":                          {"string", "write string fast", ""},
	"decrby":                        {"string", "write string fast", ""},
	"del":                           {"generic", "keyspace write slow", "request_policy:multi_shard response_policy:agg_sum"},
	"discard":                       {"transactions", "fast transaction", ""},
	"dump":                          {"generic", "keyspace read slow", "nondeterministic_output"},
	"echo":                          {"connection", "fast connection", ""},
	"eval":                          {"scripting", "slow scripting", ""},
	"eval_ro":                       {"scripting", "slow scripting", ""},
	"evalsha":                       {"scripting", "slow scripting", ""},
	"evalsha_ro":                    {"scripting", "slow scripting", ""},
	"exec":                          {"transactions", "slow transaction", ""},
	"exists":                        {"generic", "keyspace read fast", "request_policy:multi_shard response_policy:agg_sum"},
	"expire":                        {"generic", "keyspace write fast", ""},
	"expireat":                      {"generic", "keyspace write fast", ""},
	"expiretime":                    {"generic", "keyspace read fast", ""},
	"failover":                      {"server", "admin slow dangerous", ""},
	"fcall":                         {"scripting", "slow scripting", ""},
	"fcall_ro":                      {"scripting", "slow scripting", ""},
	"flushall":                      {"server", "keyspace write slow dangerous", "request_policy:all_shards response_policy:all_succeeded"},
	"flushdb":                       {"server", "keyspace write slow dangerous", "request_policy:all_shards response_policy:all_succeeded"},
	"function":                      {"scripting", "slow", ""},
	"function|delete":               {"", "write slow scripting", "request_policy:all_shards response_policy:all_succeeded"},
	"function|dump":                 {"", "slow scripting", ""},
	"function|flush":                {"", "write slow scripting", "request_policy:all_shards response_policy:all_succeeded"},
	"function|help":                 {"", "slow scripting", ""},
	"function|kill":                 {"", "slow scripting", "request_policy:all_shards response_policy:one_succeeded"},
	"function|list":                 {"", "slow scripting", "nondeterministic_output_order"},
	"function|load":                 {"", "write slow scripting", "request_policy:all_shards response_policy:all_succeeded"},
	"function|restore":              {"", "write slow scripting", "request_policy:all_shards response_policy:all_succeeded"},
	"function|stats":                {"", "slow scripting", "nondeterministic_output request_policy:all_shards response_policy:special"},
	"geoadd":                        {"geo", "write geo slow", ""},
	"geodist":                       {"geo", "read geo slow", ""},
	"geohash":                       {"geo", "read geo slow", ""},
	"geopos":                        {"geo", "read geo slow", ""},
	"georadius":                     {"geo", "write geo slow", ""},
	"georadius_ro":                  {"geo", "read geo slow", ""},
	"georadiusbymember":             {"geo", "write geo slow", ""},
	"georadiusbymember_ro":          {"geo", "read geo slow", ""},
	"geosearch":                     {"geo", "read geo slow", ""},
	"geosearchstore":                {"geo", "write geo slow", ""},
	"get":                           {"string", "read string fast", ""},
	"getbit":                        {"bitmap", "read bitmap fast", ""},
	"getdel":                        {"string", "write string fast", ""},
	"getex":                         {"string", "write string fast", ""},
	"getrange":                      {"string", "read string slow", ""},
	"getset":                        {"string", "write string fast", ""},
	"hdel":                          {"hash", "write hash fast", ""},
	"hello":                         {"connection", "fast connection", ""},
	"hexists":                       {"hash", "read hash fast", ""},
	"hget":                          {"hash", "read hash fast", ""},
	"hgetall":                       {"hash", "read hash slow", "nondeterministic_output_order"},
	"hincrby":                       {"hash", "write hash fast", ""},
	"hincrbyfloat":                  {"hash", "write hash fast", ""},
	"hkeys":                         {"hash", "read hash slow", "nondeterministic_output_order"},
	"hlen":                          {"hash", "read hash fast", ""},
	"hmget":                         {"hash", "read hash fast", ""},
	"hmset":                         {"hash", "write hash fast", ""},
	"hrandfield":                    {"hash", "read hash slow", "nondeterministic_output"},
	"hscan":                         {"hash", "read hash slow", "nondeterministic_output"},
	"hset":                          {"hash", "write hash fast", ""},
	"hsetnx":                        {"hash", "write hash fast", ""},
	"hstrlen":                       {"hash", "read hash fast", ""},
	"hvals":                         {"hash", "read hash slow", "nondeterministic_output_order"},
	"incr":                          {"string", "write string fast", ""},
	"incrby":                        {"string", "write string fast", ""},
	"incrbyfloat":                   {"string", "write string fast", ""},
	"info":                          {"server", "slow dangerous", "nondeterministic_output request_policy:all_shards response_policy:special"},
	"keys":                          {"generic", "keyspace read slow dangerous", "request_policy:all_shards nondeterministic_output_order"},
	"lastsave":                      {"server", "admin fast dangerous", "nondeterministic_output"},
	"latency":                       {"server", "slow", ""},
	"latency|doctor":                {"", "admin slow dangerous", "nondeterministic_output request_policy:all_nodes response_policy:special"},
	"latency|graph":                 {"", "admin slow dangerous", "nondeterministic_output request_policy:all_nodes response_policy:special"},
	"latency|help":                  {"", "slow", ""},
	"latency|histogram":             {"", "admin slow dangerous", "nondeterministic_output request_policy:all_nodes response_policy:special"},
	"latency|history":               {"", "admin slow dangerous", "nondeterministic_output request_policy:all_nodes response_policy:special"},
	"latency|latest":                {"", "admin slow dangerous", "nondeterministic_output request_policy:all_nodes response_policy:special"},
	"latency|reset":                 {"", "admin slow dangerous", "request_policy:all_nodes response_policy:all_succeeded"},
	"lcs":                           {"string", "read string slow", ""},
	"lindex":                        {"list", "read list slow", ""},
	"linsert":                       {"list", "write list slow", ""},
	"llen":                          {"list", "read list fast", ""},
	"lmove":                         {"list", "write list slow", ""},
	"lmpop":                         {"list", "write list slow", ""},
	"lolwut":                        {"server", "read fast", ""},
	"lpop":                          {"list", "write list fast", ""},
	"lpos":                          {"list", "read list slow", ""},
	"lpush":                         {"list", "write list fast", ""},
	"lpushx":                        {"list", "write list fast", ""},
	"lrange":                        {"list", "read list slow", ""},
	"lrem":                          {"list", "write list slow", ""},
	"lset":                          {"list", "write list slow", ""},
	"ltrim":                         {"list", "write list slow", ""},
	"memory":                        {"server", "slow", ""},
	"memory|doctor":                 {"", "slow", "nondeterministic_output request_policy:all_shards response_policy:special"},
	"memory|help":                   {"", "slow", ""},
	"memory|malloc-stats":           {"", "slow", "nondeterministic_output request_policy:all_shards response_policy:special"},
	"memory|purge":                  {"", "slow", "request_policy:all_shards response_policy:all_succeeded"},
	"memory|stats":                  {"", "slow", "nondeterministic_output request_policy:all_shards response_policy:special"},
	"memory|usage":                  {"", "read slow", ""},
	"mget":                          {"string", "read string fast", "request_policy:multi_shard"},
	"migrate":                       {"generic", "keyspace write slow dangerous", "nondeterministic_output"},
	"module":                        {"server", "slow", ""},
	"module|help":                   {"", "slow", ""},
	"module|list":                   {"", "admin slow dangerous", "nondeterministic_output_order"},
	"module|load":                   {"", "admin slow dangerous", ""},
	"module|loadex":                 {"", "admin slow dangerous", ""},
	"module|unload":                 {"", "admin slow dangerous", ""},
	"monitor":                       {"server", "admin slow dangerous", ""},
	"move":                          {"generic", "keyspace write fast", ""},
	"mset":                          {"string", "write string slow", "request_policy:multi_shard response_policy:all_succeeded"},
	"msetnx":                        {"string", "write string slow", "request_policy:multi_shard response_policy:agg_min"},
	"multi":                         {"transactions", "fast transaction", ""},
	"object":                        {"generic", "slow", ""},
	"object|encoding":               {"", "keyspace read slow", "nondeterministic_output"},
	"object|freq":                   {"", "keyspace read slow", "nondeterministic_output"},
	"object|help":                   {"", "keyspace slow", ""},
	"object|idletime":               {"", "keyspace read slow", "nondeterministic_output"},
	"object|refcount":               {"", "keyspace read slow", "nondeterministic_output"},
	"persist":                       {"generic", "keyspace write fast", ""},
	"pexpire":                       {"generic", "keyspace write fast", ""},
	"pexpireat":                     {"generic", "keyspace write fast", ""},
	"pexpiretime":                   {"generic", "keyspace read fast", ""},
	"pfadd":                         {"hyperloglog", "write hyperloglog fast", ""},
	"pfcount":                       {"hyperloglog", "read hyperloglog slow", ""},
	"pfdebug":                       {"hyperloglog", "write hyperloglog admin slow dangerous", ""},
	"pfmerge":                       {"hyperloglog", "write hyperloglog slow", ""},
	"pfselftest":                    {"hyperloglog", "hyperloglog admin slow dangerous", ""},
	"ping":                          {"connection", "fast connection", "request_policy:all_shards response_policy:all_succeeded"},
	"psetex":                        {"string", "write string slow", ""},
	"psubscribe":                    {"pubsub", "pubsub slow", ""},
	"psync":                         {"server", "admin slow dangerous", ""},
	"pttl":                          {"generic", "keyspace read fast", "nondeterministic_output"},
	"publish":                       {"pubsub", "pubsub fast", ""},
	"pubsub":                        {"pubsub", "slow", ""},
	"pubsub|channels":               {"", "pubsub slow", ""},
	"pubsub|help":                   {"", "slow", ""},
	"pubsub|numpat":                 {"", "pubsub slow", ""},
	"pubsub|numsub":                 {"", "pubsub slow", ""},
	"pubsub|shardchannels":          {"", "pubsub slow", ""},
	"pubsub|shardnumsub":            {"", "pubsub slow", ""},
	"punsubscribe":                  {"pubsub", "pubsub slow", ""},
	"quit":                          {"connection", "fast connection", ""},
	"randomkey":                     {"generic", "keyspace read slow", "request_policy:all_shards nondeterministic_output"},
	"readonly":                      {"cluster", "fast connection", ""},
	"readwrite":                     {"cluster", "fast connection", ""},
	"rename":                        {"generic", "keyspace write slow", ""},
	"renamenx":                      {"generic", "keyspace write fast", ""},
	"replconf":                      {"server", "admin slow dangerous", ""},
	"replicaof":                     {"server", "admin slow dangerous", ""},
	"reset":                         {"connection", "fast connection", ""},
	"restore":                       {"generic", "keyspace write slow dangerous", ""},
	"restore-asking":                {"server", "keyspace write slow dangerous", ""},
	"role":                          {"server", "admin fast dangerous", ""},
	"rpop":                          {"list", "write list fast", ""},
	"rpoplpush":                     {"list", "write list slow", ""},
	"rpush":                         {"list", "write list fast", ""},
	"rpushx":                        {"list", "write list fast", ""},
	"sadd":                          {"set", "write set fast", ""},
	"save":                          {"server", "admin slow dangerous", ""},
	"scan":                          {"generic", "keyspace read slow", "nondeterministic_output request_policy:special"},
	"scard":                         {"set", "read set fast", ""},
	"script":                        {"scripting", "slow", ""},
	"script|debug":                  {"", "slow scripting", ""},
	"script|exists":                 {"", "slow scripting", "request_policy:all_shards response_policy:agg_logical_and"},
	"script|flush":                  {"", "slow scripting", "request_policy:all_nodes response_policy:all_succeeded"},
	"script|help":                   {"", "slow scripting", ""},
	"script|kill":                   {"", "slow scripting", "request_policy:all_shards response_policy:one_succeeded"},
	"script|load":                   {"", "slow scripting", "request_policy:all_nodes response_policy:all_succeeded"},
	"sdiff":                         {"set", "read set slow", "nondeterministic_output_order"},
	"sdiffstore":                    {"set", "write set slow", ""},
	"select":                        {"connection", "fast connection", ""},
	"set":                           {"string", "write string slow", ""},
	"setbit":                        {"bitmap", "write bitmap slow", ""},
	"setex":                         {"string", "write string slow", ""},
	"setnx":                         {"string", "write string fast", ""},
	"setrange":                      {"string", "write string slow", ""},
	"shutdown":                      {"server", "admin slow dangerous", ""},
	"sinter":                        {"set", "read set slow", "nondeterministic_output_order"},
	"sintercard":                    {"set", "read set slow", ""},
	"sinterstore":                   {"set", "write set slow", ""},
	"sismember":                     {"set", "read set fast", ""},
	"slaveof":                       {"server", "admin slow dangerous", ""},
	"slowlog":                       {"server", "slow", ""},
	"slowlog|get":                   {"", "admin slow dangerous", "request_policy:all_nodes nondeterministic_output"},
	"slowlog|help":                  {"", "slow", ""},
	"slowlog|len":                   {"", "admin slow dangerous", "request_policy:all_nodes response_policy:agg_sum nondeterministic_output"},
	"slowlog|reset":                 {"", "admin slow dangerous", "request_policy:all_nodes response_policy:all_succeeded"},
	"smembers":                      {"set", "read set slow", "nondeterministic_output_order"},
	"smismember":                    {"set", "read set fast", ""},
	"smove":                         {"set", "write set fast", ""},
	"sort":                          {"generic", "write set sortedset list slow dangerous", ""},
	"sort_ro":                       {"generic", "read set sortedset list slow dangerous", ""},
	"spop":                          {"set", "write set fast", "nondeterministic_output"},
	"spublish":                      {"pubsub", "pubsub fast", ""},
	"srandmember":                   {"set", "read set slow", "nondeterministic_output"},
	"srem":                          {"set", "write set fast", ""},
	"sscan":                         {"set", "read set slow", "nondeterministic_output"},
	"ssubscribe":                    {"pubsub", "pubsub slow", ""},
	"strlen":                        {"string", "read string fast", ""},
	"subscribe":                     {"pubsub", "pubsub slow", ""},
	"substr":                        {"string", "read string slow", ""},
	"sunion":                        {"set", "read set slow", "nondeterministic_output_order"},
	"sunionstore":                   {"set", "write set slow", ""},
	"sunsubscribe":                  {"pubsub", "pubsub slow", ""},
	"swapdb":                        {"server", "keyspace write fast dangerous", ""},
	"sync":                          {"server", "admin slow dangerous", ""},
	"time":                          {"server", "fast", "nondeterministic_output"},
	"touch":                         {"generic", "keyspace read fast", "request_policy:multi_shard response_policy:agg_sum"},
	"ttl":                           {"generic", "keyspace read fast", "nondeterministic_output"},
	"type":                          {"generic", "keyspace read fast", ""},
	"unlink":                        {"generic", "keyspace write fast", "request_policy:multi_shard response_policy:agg_sum"},
	"unsubscribe":                   {"pubsub", "pubsub slow", ""},
	"unwatch":                       {"transactions", "fast transaction", ""},
	"wait":                          {"generic", "slow connection", "request_policy:all_shards response_policy:agg_min"},
	"waitaof":                       {"generic", "slow connection", "request_policy:all_shards response_policy:agg_min"},
	"watch":                         {"transactions", "fast transaction", ""},
	"xack":                          {"stream", "write stream fast", ""},
	"xadd":                          {"stream", "write stream fast", "nondeterministic_output"},
	"xautoclaim":                    {"stream", "write stream fast", "nondeterministic_output"},
	"xclaim":                        {"stream", "write stream fast", "nondeterministic_output"},
	"xdel":                          {"stream", "write stream fast", ""},
	"xgroup":                        {"stream", "slow", ""},
	"xgroup|create":                 {"", "write stream slow", ""},
	"xgroup|createconsumer":         {"", "write stream slow", ""},
	"xgroup|delconsumer":            {"", "write stream slow", ""},
	"xgroup|destroy":                {"", "write stream slow", ""},
	"xgroup|help":                   {"", "stream slow", ""},
	"xgroup|setid":                  {"", "write stream slow", ""},
	"xinfo":                         {"stream", "slow", ""},
	"xinfo|consumers":               {"", "read stream slow", "nondeterministic_output"},
	"xinfo|groups":                  {"", "read stream slow", ""},
	"xinfo|help":                    {"", "stream slow", ""},
	"xinfo|stream":                  {"", "read stream slow", ""},
	"xlen":                          {"stream", "read stream fast", ""},
	"xpending":                      {"stream", "read stream slow", "nondeterministic_output"},
	"xrange":                        {"stream", "read stream slow", ""},
	"xread":                         {"stream", "read stream slow blocking", ""},
	"xreadgroup":                    {"stream", "write stream slow blocking", ""},
	"xrevrange":                     {"stream", "read stream slow", ""},
	"xsetid":                        {"stream", "write stream fast", ""},
	"xtrim":                         {"stream", "write stream slow", "nondeterministic_output"},
	"zadd":                          {"sorted-set", "write sortedset fast", ""},
	"zcard":                         {"sorted-set", "read sortedset fast", ""},
	"zcount":                        {"sorted-set", "read sortedset fast", ""},
	"zdiff":                         {"sorted-set", "read sortedset slow", ""},
	"zdiffstore":                    {"sorted-set", "write sortedset slow", ""},
	"zincrby":                       {"sorted-set", "write sortedset fast", ""},
	"zinter":                        {"sorted-set", "read sortedset slow", ""},
	"zintercard":                    {"sorted-set", "read sortedset slow", ""},
	"zinterstore":                   {"sorted-set", "write sortedset slow", ""},
	"zlexcount":                     {"sorted-set", "read sortedset fast", ""},
	"zmpop":                         {"sorted-set", "write sortedset slow", ""},
	"zmscore":                       {"sorted-set", "read sortedset fast", ""},
	"zpopmax":                       {"sorted-set", "write sortedset fast", ""},
	"zpopmin":                       {"sorted-set", "write sortedset fast", ""},
	"zrandmember":                   {"sorted-set", "read sortedset slow", "nondeterministic_output"},
	"zrange":                        {"sorted-set", "read sortedset slow", ""},
	"zrangebylex":                   {"sorted-set", "read sortedset slow", ""},
	"zrangebyscore":                 {"sorted-set", "read sortedset slow", ""},
	"zrangestore":                   {"sorted-set", "write sortedset slow", ""},
	"zrank":                         {"sorted-set", "read sortedset fast", ""},
	"zrem":                          {"sorted-set", "write sortedset fast", ""},
	"zremrangebylex":                {"sorted-set", "write sortedset slow", ""},
	"zremrangebyrank":               {"sorted-set", "write sortedset slow", ""},
	"zremrangebyscore":              {"sorted-set", "write sortedset slow", ""},
	"zrevrange":                     {"sorted-set", "read sortedset slow", ""},
	"zrevrangebylex":                {"sorted-set", "read sortedset slow", ""},
	"zrevrangebyscore":              {"sorted-set", "read sortedset slow", ""},
	"zrevrank":                      {"sorted-set", "read sortedset fast", ""},
	"zscan":                         {"sorted-set", "read sortedset slow", "nondeterministic_output"},
	"zscore":                        {"sorted-set", "read sortedset fast", ""},
	"zunion":                        {"sorted-set", "read sortedset slow", ""},
	"zunionstore":                   {"sorted-set", "write sortedset slow", ""},
}
