package engine

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/lockredis/lockredis/keyspace"
)

// The ACL file (Config.ACLFile, redis.conf's aclfile): one
// "user <name> <rules...>" line per user, as ACL LIST prints them. It is
// loaded when the server starts (LoadACLFile, once every command is
// registered) and by ACL LOAD, written by ACL SAVE.

// LoadACLFile loads Config.ACLFile, when there is one. The server calls it
// once every package registered its commands; an error stops the start,
// as redis-server aborts.
func (e *Engine) LoadACLFile() error {
	if e.cfg.ACLFile == "" {
		return nil
	}
	if msg := e.acl.loadFromFile(nil, e.cfg.ACLFile); msg != "" {
		return errors.New("Aborting Redis startup because of ACL errors: " + msg)
	}
	return nil
}

// aclLoadFromFile is Redis's ACLLoadFromFile: every line is checked, and
// only a file without errors replaces the users. It returns the errors,
// "" on success.
func (a *aclState) loadFromFile(self *Session, filename string) string {
	data, err := os.ReadFile(filename)
	if err != nil {
		return fmt.Sprintf("Error loading ACLs, opening file '%s': %s", filename, keyspace.Strerror(err))
	}
	users := map[string]*User{}
	var errs strings.Builder
	for i, line := range strings.Split(string(data), "\n") {
		linenum := i + 1
		line = strings.Trim(line, " \t\r\n")
		if line == "" {
			continue
		}
		argv := strings.Split(line, " ")
		if argv[0] != "user" || len(argv) < 2 {
			fmt.Fprintf(&errs, "%s:%d should start with user keyword followed by the username. ", filename, linenum)
			continue
		}
		if hasSpaces(argv[1]) {
			fmt.Fprintf(&errs, "'%s:%d: username '%s' contains invalid characters. ", filename, linenum, argv[1])
			continue
		}
		if users[argv[1]] != nil {
			fmt.Fprintf(&errs, "WARNING: Duplicate user '%s' found on line %d. ", argv[1], linenum)
			continue
		}
		u := &User{name: argv[1]}
		users[argv[1]] = u
		r := newUserRules()
		merged, bad := mergeSelectorArgs(argv[2:])
		if bad >= 0 {
			fmt.Fprintf(&errs, "%s:%d: Unmatched parenthesis in selector definition.", filename, linenum)
		}
		syntaxErr := false
		for _, op := range merged {
			op = strings.Trim(op, "\t\r\n")
			err := a.setUser(r, op)
			if err == nil {
				continue
			}
			if err == aclErrUnknown {
				fmt.Fprintf(&errs, "%s:%d: Error in applying operation '%s': %s. ", filename, linenum, op, err)
			} else if !syntaxErr {
				fmt.Fprintf(&errs, "%s:%d: %s. ", filename, linenum, err)
				syntaxErr = true
			}
		}
		u.rules.Store(r.seal())
	}
	if errs.Len() > 0 {
		return errs.String() + "WARNING: ACL errors detected, no change to the previously active ACL rules was performed"
	}
	a.mu.Lock()
	old := a.users
	// The default user stays the same object (sessions point at it); it
	// takes the file's rules, or a new default user's.
	def := a.def
	if nd := users["default"]; nd != nil {
		def.rules.Store(nd.load())
	} else {
		def.rules.Store(a.newDefaultUser().load())
	}
	users["default"] = def
	a.users = users
	a.mu.Unlock()
	var gone []*User
	for _, u := range old {
		if u != def {
			u.deleted.Store(true)
			gone = append(gone, u)
		}
	}
	if len(gone) > 0 {
		a.killUserClients(self, gone)
	}
	return ""
}

// aclSaveToFile is Redis's ACLSaveToFile: every user as ACL LIST shows
// it, written to a temporary file renamed over the old one.
func (a *aclState) saveToFile(filename string) error {
	var b strings.Builder
	for _, u := range a.sortedUsers() {
		b.WriteString("user " + u.name + " " + a.describeUser(u.load()) + "\n")
	}
	tmp := filename + ".tmp-" + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatInt(time.Now().UnixMilli(), 10)
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		a.logf("warning", "Opening temp ACL file for ACL SAVE: %v", err)
		return err
	}
	if _, err := f.WriteString(b.String()); err != nil {
		f.Close()
		os.Remove(tmp)
		a.logf("warning", "Writing ACL file for ACL SAVE: %v", err)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, filename); err != nil {
		os.Remove(tmp)
		a.logf("warning", "Renaming ACL file for ACL SAVE: %v", err)
		return err
	}
	return nil
}
