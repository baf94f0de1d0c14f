package engine

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strings"
	"time"
)

// The ACL command (Redis 7.0's aclCommand); users and rules in acl.go,
// checks in acl_check.go, the file in acl_file.go.

var (
	errACLNoFile      = errors.New("ERR This Redis instance is not configured to use an ACL file. You may want to specify users via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a Redis configuration file set) in order to store users in the Redis configuration.")
	errACLSave        = errors.New("ERR There was an error trying to save the ACLs. Please check the server logs for more information")
	errACLUserSpaces  = errors.New("ERR Usernames can't contain spaces or null characters")
	errACLDelDefault  = errors.New("ERR The 'default' user cannot be removed")
	errACLGenpassBits = errors.New("ERR ACL GENPASS argument must be the number of bits for the output password, a positive number up to 4096")
)

func aclCommands() []*Command {
	return []*Command{{Name: "acl", Subcommands: []*Command{
		{Name: "cat", Handler: cmdACLCat},
		{Name: "deluser", Handler: cmdACLDelUser},
		{Name: "dryrun", Handler: cmdACLDryRun},
		{Name: "genpass", Handler: cmdACLGenPass},
		{Name: "getuser", Handler: cmdACLGetUser},
		{Name: "help", Handler: cmdACLHelp},
		{Name: "list", Handler: cmdACLList},
		{Name: "load", Handler: cmdACLLoad},
		{Name: "log", Handler: cmdACLLog},
		{Name: "save", Handler: cmdACLSave},
		{Name: "setuser", Handler: cmdACLSetUser},
		{Name: "users", Handler: cmdACLUsers},
		{Name: "whoami", Handler: cmdACLWhoAmI},
	}}}
}

var aclHelp = []string{
	"ACL <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"CAT [<category>]",
	"    List all commands that belong to <category>, or all command categories",
	"    when no category is specified.",
	"DELUSER <username> [<username> ...]",
	"    Delete a list of users.",
	"DRYRUN <username> <command> [<arg> ...]",
	"    Returns whether the user can execute the given command without executing the command.",
	"GETUSER <username>",
	"    Get the user's details.",
	"GENPASS [<bits>]",
	"    Generate a secure 256-bit user password. The optional `bits` argument can",
	"    be used to specify a different size.",
	"LIST",
	"    Show users details in config file format.",
	"LOAD",
	"    Reload users from the ACL file.",
	"LOG [<count> | RESET]",
	"    Show the ACL log entries.",
	"SAVE",
	"    Save the current config to the ACL file.",
	"SETUSER <username> <attribute> [<attribute> ...]",
	"    Create or modify a user with the specified attributes.",
	"USERS",
	"    List all the registered usernames.",
	"WHOAMI",
	"    Return the current connection username.",
	"HELP",
	"    Prints this help.",
}

func cmdACLHelp(c *Call) { WriteHelp(c.W, aclHelp) }

func cmdACLSetUser(c *Call) {
	name := string(c.Args[2])
	if hasSpaces(name) {
		c.Err(errACLUserSpaces)
		return
	}
	ops := make([]string, 0, len(c.Args)-3)
	for _, a := range c.Args[3:] {
		ops = append(ops, string(a))
	}
	if msg := c.E.acl.stringSetUser(name, ops); msg != "" {
		c.W.Error(sanitizeLine("ERR " + msg))
		return
	}
	c.OK()
}

func cmdACLDelUser(c *Call) {
	names := make([]string, 0, len(c.Args)-2)
	for _, a := range c.Args[2:] {
		if string(a) == "default" {
			c.Err(errACLDelDefault)
			return
		}
		names = append(names, string(a))
	}
	c.W.Int(int64(c.E.acl.delUsers(c.S, names)))
}

func cmdACLGetUser(c *Call) {
	u := c.E.LookupUser(string(c.Args[2]))
	if u == nil {
		c.W.Null()
		return
	}
	r := u.load()
	c.W.Map(6)
	c.W.BulkString("flags")
	var flags []string
	for _, f := range userFlagNames {
		if r.flags&f.f != 0 {
			flags = append(flags, f.name)
		}
	}
	c.W.Set(len(flags))
	for _, f := range flags {
		c.W.BulkString(f)
	}
	c.W.BulkString("passwords")
	c.W.Array(len(r.passwords))
	for _, p := range r.passwords {
		c.W.BulkString(p)
	}
	c.E.acl.writeSelector(c.W, r.root())
	c.W.BulkString("selectors")
	c.W.Array(len(r.selectors) - 1)
	for _, s := range r.selectors[1:] {
		c.W.Map(3)
		c.E.acl.writeSelector(c.W, s)
	}
}

// writeSelector is aclAddReplySelectorDescription: commands, keys and
// channels, three pairs.
func (a *aclState) writeSelector(w Writer, s *aclSelector) {
	w.BulkString("commands")
	w.BulkString(a.describeCommands(s))
	w.BulkString("keys")
	if s.allKeys {
		w.BulkString("~*")
	} else {
		parts := make([]string, len(s.keys))
		for i, k := range s.keys {
			parts[i] = k.String()
		}
		w.BulkString(strings.Join(parts, " "))
	}
	w.BulkString("channels")
	if s.allChannels {
		w.BulkString("&*")
	} else {
		parts := make([]string, len(s.channels))
		for i, ch := range s.channels {
			parts[i] = "&" + ch
		}
		w.BulkString(strings.Join(parts, " "))
	}
}

func cmdACLList(c *Call) {
	users := c.E.acl.sortedUsers()
	c.W.Array(len(users))
	for _, u := range users {
		c.W.BulkString("user " + u.name + " " + c.E.acl.describeUser(u.load()))
	}
}

func cmdACLUsers(c *Call) {
	users := c.E.acl.sortedUsers()
	c.W.Array(len(users))
	for _, u := range users {
		c.W.BulkString(u.name)
	}
}

func cmdACLWhoAmI(c *Call) {
	u := sessionUser(c.S)
	if u == nil {
		u = c.E.acl.def // the Go API runs as the default user, unrestricted
	}
	c.W.BulkString(u.name)
}

func cmdACLLoad(c *Call) {
	if c.E.cfg.ACLFile == "" {
		c.Err(errACLNoFile)
		return
	}
	if msg := c.E.acl.loadFromFile(c.S, c.E.cfg.ACLFile); msg != "" {
		c.W.Error(sanitizeLine("ERR " + msg))
		return
	}
	c.OK()
}

func cmdACLSave(c *Call) {
	if c.E.cfg.ACLFile == "" {
		c.Err(errACLNoFile)
		return
	}
	if err := c.E.acl.saveToFile(c.E.cfg.ACLFile); err != nil {
		c.Err(errACLSave)
		return
	}
	c.OK()
}

func cmdACLCat(c *Call) {
	if len(c.Args) > 3 {
		subcommandSyntaxError(c)
		return
	}
	if len(c.Args) == 2 {
		c.W.Array(len(aclCategories))
		for _, cat := range aclCategories {
			c.W.BulkString(cat)
		}
		return
	}
	bit := aclCategoryBit(string(c.Args[2]))
	if bit == 0 {
		name := c.Args[2]
		if len(name) > 128 {
			name = name[:128]
		}
		c.Errf("ERR Unknown category '%s'", name)
		return
	}
	var names []string
	for _, cmd := range c.E.Table.aclCommands() {
		if cmd.aclCats&bit != 0 {
			names = append(names, cmd.FullName)
		}
	}
	c.W.Array(len(names))
	for _, n := range names {
		c.W.BulkString(n)
	}
}

func cmdACLGenPass(c *Call) {
	if len(c.Args) > 3 {
		subcommandSyntaxError(c)
		return
	}
	bits := int64(256)
	if len(c.Args) == 3 {
		n, ok := ParseInt(c.Args[2])
		if !ok {
			c.Err(ErrNotInteger)
			return
		}
		bits = n
	}
	if bits <= 0 || bits > 4096 {
		c.Err(errACLGenpassBits)
		return
	}
	chars := (bits + 3) / 4
	buf := make([]byte, (chars+1)/2)
	if _, err := rand.Read(buf); err != nil {
		panic(err)
	}
	c.W.BulkString(hex.EncodeToString(buf)[:chars])
}

func cmdACLLog(c *Call) {
	if len(c.Args) > 3 {
		subcommandSyntaxError(c)
		return
	}
	count := int64(10)
	if len(c.Args) == 3 {
		if EqualFold(c.Args[2], "reset") {
			c.E.acl.logMu.Lock()
			c.E.acl.log = nil
			c.E.acl.logMu.Unlock()
			c.OK()
			return
		}
		n, ok := ParseInt(c.Args[2])
		if !ok {
			c.Err(ErrNotInteger)
			return
		}
		count = max(n, 0)
	}
	c.E.acl.logMu.Lock()
	entries := make([]aclLogEntry, 0, min(int(count), len(c.E.acl.log)))
	for _, le := range c.E.acl.log {
		if int64(len(entries)) == count {
			break
		}
		entries = append(entries, *le)
	}
	c.E.acl.logMu.Unlock()
	now := time.Now()
	c.W.Array(len(entries))
	for _, le := range entries {
		c.W.Map(7)
		c.W.BulkString("count")
		c.W.Int(le.count)
		c.W.BulkString("reason")
		c.W.BulkString(aclReasonName(le.reason))
		c.W.BulkString("context")
		c.W.BulkString(le.context)
		c.W.BulkString("object")
		c.W.BulkString(le.object)
		c.W.BulkString("username")
		c.W.BulkString(le.username)
		c.W.BulkString("age-seconds")
		c.W.Double(float64(now.Sub(le.ctime).Milliseconds()) / 1000)
		c.W.BulkString("client-info")
		c.W.BulkString(le.cinfo)
	}
}

func aclReasonName(r aclResult) string {
	switch r {
	case aclDeniedCmd:
		return "command"
	case aclDeniedKey:
		return "key"
	case aclDeniedChannel:
		return "channel"
	case aclDeniedAuth:
		return "auth"
	}
	return "unknown"
}

func cmdACLDryRun(c *Call) {
	u := c.E.LookupUser(string(c.Args[2]))
	if u == nil {
		c.Errf("ERR User '%s' not found", c.Args[2])
		return
	}
	args := c.Args[3:]
	cmd := c.E.Table.Lookup(args)
	if cmd == nil {
		c.Errf("ERR Command '%s' not found", args[0])
		return
	}
	if (cmd.Arity > 0 && cmd.Arity != len(args)) || len(args) < -cmd.Arity {
		c.Errf("ERR wrong number of arguments for '%s' command", cmd.FullName)
		return
	}
	res, idx := checkRules(u.load(), cmd, args)
	switch res {
	case aclOK:
		c.OK()
	case aclDeniedCmd:
		c.W.BulkString("This user has no permissions to run the '" + cmd.FullName + "' command")
	case aclDeniedKey:
		c.W.BulkString("This user has no permissions to access the '" + string(args[idx]) + "' key")
	default:
		c.W.BulkString("This user has no permissions to access the '" + string(args[idx]) + "' channel")
	}
}
