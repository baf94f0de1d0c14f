package engine

import (
	"errors"
	"strings"
)

// COMMAND and its subcommands, read from the command specs
// (the spec files): what COMMAND INFO and COMMAND DOCS print is Redis 7.0's
// own data, but for the summaries, which are ours.

// Error replies of this file's commands (errors.go has the shared ones).
var (
	errGetkeysArity          = errors.New("ERR Invalid number of arguments specified for command")
	errGetkeysInvalidArgs    = errors.New("ERR Invalid arguments specified for command")
	errGetkeysInvalidCommand = errors.New("ERR Invalid command specified")
	errGetkeysNoKeys         = errors.New("ERR The command has no key arguments")
)

func commandCommands() []*Command {
	return []*Command{{
		Name: "command", Handler: cmdCommand,
		Subcommands: []*Command{
			{Name: "count", Handler: cmdCommandCount},
			{Name: "docs", Handler: cmdCommandDocs},
			{Name: "getkeys", Handler: func(c *Call) { commandGetkeys(c, false) }},
			{Name: "getkeysandflags", Handler: func(c *Call) { commandGetkeys(c, true) }},
			{Name: "help", Handler: cmdCommandHelp},
			{Name: "info", Handler: cmdCommandInfo},
			{Name: "list", Handler: cmdCommandList},
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

// writeCommandInfo renders one command the way Redis 7.0's COMMAND INFO
// does: name, arity, flags, first key, last key, step, ACL categories,
// tips, key specs, subcommands.
func writeCommandInfo(w Writer, cmd *Command) {
	w.Array(10)
	w.BulkString(cmd.FullName)
	w.Int(int64(cmd.Arity))
	writeStatusSet(w, cmd.Flags.Names())
	w.Int(int64(cmd.FirstKey))
	w.Int(int64(cmd.LastKey))
	w.Int(int64(cmd.Step))
	writeStatusSet(w, cmd.ACLCategories)
	w.Set(len(cmd.Tips))
	for _, t := range cmd.Tips {
		w.BulkString(t)
	}
	w.Set(len(cmd.KeySpecs))
	for i := range cmd.KeySpecs {
		writeKeySpec(w, &cmd.KeySpecs[i])
	}
	if len(cmd.Subcommands) == 0 {
		w.Set(0) // Redis's addReplyCommandSubCommands: ~0 in RESP3
		return
	}
	w.Array(len(cmd.Subcommands))
	for _, sc := range cmd.Subcommands {
		writeCommandInfo(w, sc)
	}
}

func writeStatusSet(w Writer, names []string) {
	w.Set(len(names))
	for _, n := range names {
		w.Status(n)
	}
}

func writeKeySpec(w Writer, ks *KeySpec) {
	n := 3
	if ks.Notes != "" {
		n++
	}
	w.Map(n)
	if ks.Notes != "" {
		w.BulkString("notes")
		w.BulkString(ks.Notes)
	}
	w.BulkString("flags")
	writeStatusSet(w, ks.Flags)

	w.BulkString("begin_search")
	w.Map(2)
	w.BulkString("type")
	w.BulkString(ks.BeginSearch.Type)
	w.BulkString("spec")
	switch ks.BeginSearch.Type {
	case "index":
		writeIntMap(w, "index", ks.BeginSearch.Index)
	case "keyword":
		w.Map(2)
		w.BulkString("keyword")
		w.BulkString(ks.BeginSearch.Keyword)
		w.BulkString("startfrom")
		w.Int(int64(ks.BeginSearch.StartFrom))
	default:
		w.Map(0)
	}

	w.BulkString("find_keys")
	w.Map(2)
	w.BulkString("type")
	w.BulkString(ks.FindKeys.Type)
	w.BulkString("spec")
	switch fk := ks.FindKeys; fk.Type {
	case "range":
		writeIntMap(w, "lastkey", fk.LastKey, "keystep", fk.KeyStep, "limit", fk.Limit)
	case "keynum":
		writeIntMap(w, "keynumidx", fk.KeyNumIdx, "firstkey", fk.FirstKey, "keystep", fk.KeyStep)
	default:
		w.Map(0)
	}
}

// writeIntMap writes a map of names to integers: name, value, name, value...
func writeIntMap(w Writer, kv ...any) {
	w.Map(len(kv) / 2)
	for i := 0; i < len(kv); i += 2 {
		w.BulkString(kv[i].(string))
		w.Int(int64(kv[i+1].(int)))
	}
}

// cmdCommandDocs answers a map from command name to its documentation,
// as Redis 7.0 does, with our summaries.
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

// writeCommandDocs writes the fields Redis 7.0 has for the command, in
// its order; group is always there.
func writeCommandDocs(w Writer, cmd *Command) {
	d := &cmd.SpecData
	n := 1
	for _, present := range []bool{d.Summary != "", d.Since != "", d.Complexity != "", len(d.DocFlags) > 0,
		d.DeprecatedSince != "", d.ReplacedBy != "", len(d.History) > 0, len(d.Arguments) > 0, len(cmd.Subcommands) > 0} {
		if present {
			n++
		}
	}
	w.Map(n)
	writeDocString(w, "summary", d.Summary)
	writeDocString(w, "since", d.Since)
	w.BulkString("group")
	w.BulkString(d.Group)
	writeDocString(w, "complexity", d.Complexity)
	if len(d.DocFlags) > 0 {
		w.BulkString("doc_flags")
		writeStatusSet(w, d.DocFlags)
	}
	writeDocString(w, "deprecated_since", d.DeprecatedSince)
	writeDocString(w, "replaced_by", d.ReplacedBy)
	if len(d.History) > 0 {
		w.BulkString("history")
		w.Set(len(d.History))
		for _, h := range d.History {
			w.Array(2)
			w.BulkString(h[0])
			w.BulkString(h[1])
		}
	}
	if len(d.Arguments) > 0 {
		w.BulkString("arguments")
		writeDocArgs(w, d.Arguments)
	}
	if len(cmd.Subcommands) > 0 {
		w.BulkString("subcommands")
		w.Map(len(cmd.Subcommands))
		for _, sc := range cmd.Subcommands {
			w.BulkString(sc.FullName)
			writeCommandDocs(w, sc)
		}
	}
}

func writeDocString(w Writer, key, value string) {
	if value != "" {
		w.BulkString(key)
		w.BulkString(value)
	}
}

// writeDocArgs renders an argument tree; oneof and block nodes always
// carry their arguments, even none.
func writeDocArgs(w Writer, args []Arg) {
	w.Array(len(args))
	for i := range args {
		a := &args[i]
		nested := a.Type == "oneof" || a.Type == "block"
		n := 2
		for _, present := range []bool{a.KeySpecIndex != nil, a.Token != "" || a.EmptyToken, a.Summary != "", a.Since != "",
			a.DeprecatedSince != "", len(a.Flags) > 0, nested} {
			if present {
				n++
			}
		}
		w.Map(n)
		writeDocString(w, "name", a.Name)
		writeDocString(w, "type", a.Type)
		if a.KeySpecIndex != nil {
			w.BulkString("key_spec_index")
			w.Int(int64(*a.KeySpecIndex))
		}
		if a.EmptyToken {
			w.BulkString("token")
			w.BulkString("")
		} else {
			writeDocString(w, "token", a.Token)
		}
		writeDocString(w, "summary", a.Summary)
		writeDocString(w, "since", a.Since)
		writeDocString(w, "deprecated_since", a.DeprecatedSince)
		if len(a.Flags) > 0 {
			w.BulkString("flags")
			writeStatusSet(w, a.Flags)
		}
		if nested {
			w.BulkString("arguments")
			writeDocArgs(w, a.Arguments)
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
				for _, cat := range cmd.ACLCategories {
					if EqualFold(arg, cat[1:]) {
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

// commandKeys finds the keys of a command line (args[0] is the command)
// the way Redis 7.0 does: from the key specs, falling back, for the
// commands Redis gives a key-finding function, to what that function
// does. It returns the positions of the keys and their key-spec flags, or
// false when the arguments cannot hold the keys the specs describe.
func commandKeys(cmd *Command, args [][]byte) ([]keyRef, bool) {
	if cmd.keysProc != nil && cmd.keysFirst {
		if keys, ok := cmd.keysProc(cmd, args); ok {
			return keys, true
		}
	}
	keys, ok := keysFromSpecs(cmd, args)
	if ok {
		return keys, true
	}
	if cmd.keysProc != nil && !cmd.keysFirst {
		if keys, ok := cmd.keysProc(cmd, args); ok {
			return keys, true
		}
	}
	if cmd.MovableKeys() {
		return keysFromCount(cmd, args), true
	}
	return nil, false
}

// keysFromSpecs walks the key specs; false for a spec the arguments do not
// satisfy (a key count past the end, a range out of bounds) or an
// incomplete one.
func keysFromSpecs(cmd *Command, args [][]byte) ([]keyRef, bool) {
	var keys []keyRef
	for i := range cmd.KeySpecs {
		ks := &cmd.KeySpecs[i]
		if ks.hasFlag("not_key") {
			continue
		}
		first := 0
		switch ks.BeginSearch.Type {
		case "index":
			first = ks.BeginSearch.Index
		case "keyword":
			first = keywordPosition(ks.BeginSearch, args)
			if first == 0 {
				continue // no keyword, no keys from this spec
			}
		default:
			return nil, false
		}
		var last, step int
		switch fk := ks.FindKeys; fk.Type {
		case "range":
			step = fk.KeyStep
			switch {
			case fk.LastKey >= 0:
				last = first + fk.LastKey
			case fk.Limit == 0:
				last = len(args) + fk.LastKey
			default:
				last = first + (len(args)-first)/fk.Limit + fk.LastKey
			}
		case "keynum":
			step = fk.KeyStep
			if first+fk.KeyNumIdx >= len(args) {
				return nil, false
			}
			n, ok := ParseInt(args[first+fk.KeyNumIdx])
			if !ok || n < 0 || n > int64(len(args)) {
				return nil, false
			}
			first += fk.FirstKey
			last = first + int(n) - 1
		default:
			return nil, false
		}
		if last >= len(args) || last < first || first >= len(args) {
			return nil, false
		}
		for p := first; p <= last; p += step {
			keys = append(keys, keyRef{p, ks.Flags})
		}
		if ks.hasFlag("incomplete") {
			return nil, false
		}
	}
	return keys, true
}

// keywordPosition is the argument after the spec's keyword, searched from
// startfrom (backwards from the end when negative), or 0.
func keywordPosition(bs BeginSearch, args [][]byte) int {
	start, end := bs.StartFrom, len(args)-1
	if bs.StartFrom <= 0 {
		start, end = len(args)+bs.StartFrom, 1
	}
	// Like Redis, the search stops before end: a keyword there would have
	// no key after it.
	for i := start; i != end && i >= 1 && i < len(args); {
		// Specs spell keywords in upper case (GEORADIUS's STORE);
		// EqualFold wants its second argument in lower case.
		if EqualFold(args[i], strings.ToLower(bs.Keyword)) {
			return i + 1
		}
		if start <= end {
			i++
		} else {
			i--
		}
	}
	return 0
}

// keysFromCount is Redis's fallback for EVAL and its kin: the key count
// read as atoi would ("3x" is 3, garbage 0), no keys when it does not fit,
// and no flags.
func keysFromCount(cmd *Command, args [][]byte) []keyRef {
	for _, ks := range cmd.KeySpecs {
		if ks.FindKeys.Type != "keynum" || ks.BeginSearch.Type != "index" {
			continue
		}
		countAt := ks.BeginSearch.Index + ks.FindKeys.KeyNumIdx
		first, step := ks.BeginSearch.Index+ks.FindKeys.FirstKey, max(ks.FindKeys.KeyStep, 1)
		n := atoi(args[countAt])
		if n < 1 || n > (len(args)-first)/step {
			return nil
		}
		keys := make([]keyRef, n)
		for i := range keys {
			keys[i] = keyRef{pos: first + i*step}
		}
		return keys
	}
	return nil
}

// atoi reads a leading decimal integer as C's atoi does.
func atoi(b []byte) int {
	i, neg, n := 0, false, 0
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	if i < len(b) && (b[i] == '-' || b[i] == '+') {
		neg = b[i] == '-'
		i++
	}
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9' && n < 1<<30; i++ {
		n = n*10 + int(b[i]-'0')
	}
	if neg {
		return -n
	}
	return n
}

// commandGetkeys handles COMMAND GETKEYS and (withFlags) GETKEYSANDFLAGS
// command [arg ...].
func commandGetkeys(c *Call, withFlags bool) {
	args := c.Args[2:]
	cmd := c.E.Table.Get(args[0])
	if cmd != nil && cmd.subs != nil && len(args) >= 2 {
		cmd = cmd.Sub(args[1])
	}
	switch {
	case cmd == nil:
		c.Err(errGetkeysInvalidCommand)
		return
	case !cmd.HasKeys():
		c.Err(errGetkeysNoKeys)
		return
	case !arityOK(cmd.Arity, len(args)):
		c.Err(errGetkeysArity)
		return
	}
	keys, ok := commandKeys(cmd, args)
	if !ok || len(keys) == 0 {
		if cmd.Flags.Has(FlagNoMandatoryKeys) {
			c.W.Array(0)
		} else {
			c.Err(errGetkeysInvalidArgs)
		}
		return
	}
	c.W.Array(len(keys))
	for _, k := range keys {
		if !withFlags {
			c.W.Bulk(args[k.pos])
			continue
		}
		c.W.Array(2)
		c.W.Bulk(args[k.pos])
		writeStatusSet(c.W, k.flags)
	}
}
