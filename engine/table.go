package engine

import (
	"bytes"
	"sort"
	"strings"
)

func newTable() *Table {
	return &Table{cmds: make(map[string]*Command), aclIDs: make(map[string]int)}
}

// clone is a table with t's commands, to which more can be registered
// without changing t, which it shares.
func (t *Table) clone() *Table {
	t.aclMu.Lock()
	defer t.aclMu.Unlock()
	return &Table{base: t, cmds: make(map[string]*Command, 32), aclIDs: make(map[string]int, 64),
		aclList: t.aclList, aclStale: t.aclStale}
}

// aclIDFor returns the ACL bit of a command's full name, assigning the
// next free one the first time; the last bit stays unassigned
// (aclFutureBit).
func (t *Table) aclIDFor(fullName string) int {
	first := 0 // ids after base's
	if t.base != nil {
		if id, ok := t.base.aclIDs[fullName]; ok {
			return id
		}
		first = len(t.base.aclIDs)
	}
	id, ok := t.aclIDs[fullName]
	if !ok {
		id = first + len(t.aclIDs)
		if id >= aclFutureBit {
			panic("engine: too many commands for the ACL bitmap")
		}
		t.aclIDs[fullName] = id
	}
	return id
}

// aclCommands lists every command and, after each container, its
// subcommands, sorted by name.
func (t *Table) aclCommands() []*Command {
	t.aclMu.Lock()
	defer t.aclMu.Unlock()
	if t.aclStale {
		// A new slice: callers may still range over the old one.
		var list []*Command
		for _, c := range t.All() {
			list = append(list, c)
			subs := append([]*Command(nil), c.Subcommands...)
			sort.Slice(subs, func(i, j int) bool { return subs[i].Name < subs[j].Name })
			list = append(list, subs...)
		}
		t.aclList, t.aclStale = list, false
	}
	return t.aclList
}

// aclLookup finds a command by name for an ACL rule, as Redis's
// ACLLookupCommand: "name" or "container|sub", any case.
func (t *Table) aclLookup(name string) *Command {
	base, sub, hasSub := strings.Cut(name, "|")
	cmd := t.Get([]byte(base))
	if cmd == nil || !hasSub {
		return cmd
	}
	if cmd.subs == nil || strings.Contains(sub, "|") {
		return nil
	}
	return cmd.Sub([]byte(sub))
}

// Register adds commands, replacing any of the same name, with their
// specs from the engine's spec files. A command without a spec is a
// programming error and panics; a test command may bring its own Spec
// instead.
func (t *Table) Register(cmds ...*Command) { t.RegisterWith(nil, cmds...) }

// RegisterWith is Register for commands whose specs are in own (another
// package's spec file: luasvc the EVAL family, pubsub SUBSCRIBE...) rather
// than the engine's.
func (t *Table) RegisterWith(own Specs, cmds ...*Command) {
	for _, c := range cmds {
		c.Name = strings.ToLower(c.Name)
		c.Spec = attachSpec(own, c.Spec, c.Name, c.Name)
		c.aclID, c.aclCats = t.aclIDFor(c.FullName), aclCategoryBits(c.ACLCategories)
		if len(c.Subcommands) > 0 {
			c.subs = make(map[string]*Command, len(c.Subcommands))
			for _, sc := range c.Subcommands {
				sc.Name = strings.ToLower(sc.Name)
				sc.Spec = attachSpec(own, sc.Spec, sc.Name, c.Name+"|"+sc.Name)
				sc.parent = c
				sc.aclID, sc.aclCats = t.aclIDFor(sc.FullName), aclCategoryBits(sc.ACLCategories)
				c.subs[sc.Name] = sc
			}
		}
		t.cmds[c.Name] = c
		if t.base != nil && t.base.cmds[c.Name] != nil {
			t.shadow = true
		}
	}
	t.aclMu.Lock()
	t.aclStale = true
	t.aclMu.Unlock()
}

// attachSpec returns the spec of fullName from own or else the engine's
// spec files, or given (a test's own) named after the command.
func attachSpec(own Specs, given *Spec, name, fullName string) *Spec {
	if given != nil {
		s := *given
		s.Name, s.FullName = name, fullName
		return &s
	}
	if s := own[fullName]; s != nil {
		return s
	}
	if s := LookupSpec(fullName); s != nil {
		return s
	}
	panic("engine: command " + fullName + " is registered but has no spec (add it to the spec file beside its registration with compat_test/gencommands -add)")
}

// Get returns the top-level command named name (any case), or nil.
func (t *Table) Get(name []byte) *Command {
	var buf [32]byte
	if len(name) <= len(buf) {
		return t.get(b2s(lower(buf[:0], name)))
	}
	return t.get(strings.ToLower(string(name)))
}

// get looks name (lower case) up here and in base.
func (t *Table) get(name string) *Command {
	if t.base == nil {
		return t.cmds[name]
	}
	if !t.shadow {
		if c := t.base.cmds[name]; c != nil {
			return c
		}
		return t.cmds[name]
	}
	if c := t.cmds[name]; c != nil {
		return c
	}
	return t.base.cmds[name]
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
	if t.base != nil {
		for name, c := range t.base.cmds {
			if t.cmds[name] == nil {
				out = append(out, c)
			}
		}
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
// Each is cut at its first NUL, as Redis's %.*s does; CR and LF become
// spaces (the reply is one line).
func unknownCommand(args [][]byte) error {
	var sb strings.Builder
	for i := 1; i < len(args) && sb.Len() < 128; i++ {
		a := args[i]
		if j := bytes.IndexByte(a, 0); j >= 0 {
			a = a[:j]
		}
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
