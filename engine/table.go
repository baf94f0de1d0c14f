package engine

import (
	"sort"
	"strings"
)

// Flags describe a command the way Redis's command table does.
type Flags uint32

const (
	FlagWrite        Flags = 1 << iota // modifies the keyspace
	FlagReadonly                       // reads the keyspace only
	FlagAdmin                          // server administration
	FlagNoScript                       // refused inside EVAL
	FlagPubSub                         // a pub/sub command (COMMAND INFO's "pubsub")
	FlagLoading                        // allowed while loading
	FlagStale                          // allowed on a stale replica
	FlagFast                           // O(1) or O(log n)
	FlagNoAuth                         // allowed before AUTH
	FlagNoMulti                        // refused inside MULTI
	FlagDenyOOM                        // may grow memory
	FlagBlocking                       // may block the client
	FlagMayReplicate                   // may replicate (PUBLISH)
	FlagNoKeyspace                     // touches no key: runs without a keyspace transaction
	FlagAllowBusy                      // allowed while a script runs too long
	FlagWriteTx                        // needs an exclusive transaction without being a write command (EVAL, EXEC)
	FlagSubscribedOK                   // allowed while subscribed in RESP2 (not a Redis flag)
	FlagMultiControl                   // runs at once inside MULTI instead of being queued (not a Redis flag)
)

var flagNames = []struct {
	f    Flags
	name string
}{
	{FlagWrite, "write"},
	{FlagReadonly, "readonly"},
	{FlagDenyOOM, "denyoom"},
	{FlagAdmin, "admin"},
	{FlagPubSub, "pubsub"},
	{FlagNoScript, "noscript"},
	{FlagBlocking, "blocking"},
	{FlagLoading, "loading"},
	{FlagStale, "stale"},
	{FlagNoMulti, "no_multi"},
	{FlagFast, "fast"},
	{FlagNoAuth, "no_auth"},
	{FlagMayReplicate, "may_replicate"},
	{FlagAllowBusy, "allow_busy"},
}

// Has reports whether all of f's bits are set.
func (fl Flags) Has(f Flags) bool { return fl&f == f }

// Names lists the flags as COMMAND INFO prints them.
func (fl Flags) Names() []string {
	var out []string
	for _, n := range flagNames {
		if fl.Has(n.f) {
			out = append(out, n.name)
		}
	}
	return out
}

// Handler runs one command. It writes exactly one reply to c.W.
type Handler func(c *Call)

// Command is one entry of the command table: written once, it runs the
// same from a socket, inside MULTI/EXEC and from redis.call.
type Command struct {
	Name     string // lower case; for a subcommand the part after '|'
	Arity    int    // Redis convention: n exact, -n at least n (name included)
	Flags    Flags
	FirstKey int // key positions for COMMAND INFO / GETKEYS
	LastKey  int
	Step     int
	Handler  Handler

	// Subcommands makes this a container (CLIENT, CONFIG, ...). The
	// container's own Handler is unused.
	Subcommands []*Command

	FullName string // "get", "client|setname"
	parent   *Command
	subs     map[string]*Command

	stats commandStats // INFO commandstats (stats.go)
}

// keys sets a command's key positions (first, last, step) for COMMAND
// INFO and GETKEYS, and returns it.
func keys(first, last, step int, c *Command) *Command {
	c.FirstKey, c.LastKey, c.Step = first, last, step
	return c
}

// oneKey marks the usual single key at position 1.
func oneKey(c *Command) *Command { return keys(1, 1, 1, c) }

// Table is the command table.
type Table struct {
	cmds map[string]*Command
}

func newTable() *Table { return &Table{cmds: make(map[string]*Command)} }

// Register adds commands, replacing any of the same name. Other packages
// register theirs here (luasvc the EVAL family, pubsub SUBSCRIBE...).
func (t *Table) Register(cmds ...*Command) {
	for _, c := range cmds {
		c.Name = strings.ToLower(c.Name)
		c.FullName = c.Name
		if len(c.Subcommands) > 0 {
			c.subs = make(map[string]*Command, len(c.Subcommands))
			for _, sc := range c.Subcommands {
				sc.Name = strings.ToLower(sc.Name)
				sc.FullName = c.Name + "|" + sc.Name
				sc.parent = c
				c.subs[sc.Name] = sc
			}
		}
		t.cmds[c.Name] = c
	}
}

// Get returns the top-level command named name (any case), or nil.
func (t *Table) Get(name []byte) *Command {
	var buf [32]byte
	if len(name) <= len(buf) {
		return t.cmds[b2s(lower(buf[:0], name))]
	}
	return t.cmds[strings.ToLower(string(name))]
}

// Sub returns the subcommand of a container, or nil.
func (c *Command) Sub(name []byte) *Command {
	var buf [32]byte
	if len(name) <= len(buf) {
		return c.subs[b2s(lower(buf[:0], name))]
	}
	return c.subs[strings.ToLower(string(name))]
}

// Parent is the container of a subcommand, nil for a top-level command.
func (c *Command) Parent() *Command { return c.parent }

// All returns the top-level commands sorted by name.
func (t *Table) All() []*Command {
	out := make([]*Command, 0, len(t.cmds))
	for _, c := range t.cmds {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Lookup finds the command for args as Redis's lookupCommand does: a
// subcommand when the command is a container and a second argument is
// given (nil when that subcommand does not exist), else the command.
func (t *Table) Lookup(args [][]byte) *Command {
	cmd := t.Get(args[0])
	if cmd != nil && cmd.subs != nil && len(args) >= 2 {
		return cmd.Sub(args[1])
	}
	return cmd
}

// ArityOK reports whether n arguments (the name included) suit cmd.
func (c *Command) ArityOK(n int) bool { return arityOK(c.Arity, n) }

func arityOK(arity, n int) bool {
	if arity >= 0 {
		return n == arity
	}
	return n >= -arity
}

// unknownCommand builds Redis's "unknown command" error: the name cut at
// 128 bytes and the first arguments quoted, until 128 bytes are used.
func unknownCommand(args [][]byte) error {
	var sb strings.Builder
	for i := 1; i < len(args) && sb.Len() < 128; i++ {
		a := args[i]
		if room := 128 - sb.Len(); len(a) > room {
			a = a[:room]
		}
		sb.WriteByte('\'')
		sb.Write(a)
		sb.WriteString("' ")
	}
	return replyError(sanitizeLine("ERR unknown command '" + truncateArg(string(args[0])) +
		"', with args beginning with: " + sb.String()))
}
