package engine

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"sort"
	"strconv"
	"strings"
)

// initACL sets up the engine's ACL (aclState.init).
func (e *Engine) initACL() {
	e.acl.init(func() *Table { return e.Table }, e.cfg.RequirePass, e.Sessions, func() Publisher { return e.publisher }, e.cfg.Logf)
}

// init creates the default user (+@all ~* &* on nopass, or with
// requirepass's password).
func (a *aclState) init(table func() *Table, requirePass string, sessions func() []*Session, publisher func() Publisher,
	logf func(level, format string, args ...any)) {
	a.table, a.sessions, a.publisher, a.logf = table, sessions, publisher, logf
	a.users = map[string]*User{}
	a.def = a.newDefaultUser()
	a.users["default"] = a.def
	if requirePass != "" {
		r := a.def.load().clone()
		r.flags &^= userNopass
		r.passwords = []string{hashPassword(requirePass)}
		a.def.rules.Store(r.seal())
	}
}

// bindACLParams binds acllog-max-len: a smaller value trims the log at
// once.
func (e *Engine) bindACLParams() {
	e.bindParam("acllog-max-len", paramBinding{
		get: func() string {
			e.acl.logMu.Lock()
			defer e.acl.logMu.Unlock()
			return strconv.Itoa(e.acl.logMax)
		},
		apply: func(v string) error {
			n, err := strconv.Atoi(v)
			e.acl.logMu.Lock()
			defer e.acl.logMu.Unlock()
			e.acl.logMax = n
			if len(e.acl.log) > n {
				e.acl.log = e.acl.log[:n]
			}
			return err
		},
	})
}

func (a *aclState) newDefaultUser() *User {
	u := &User{name: "default"}
	r := newUserRules()
	for _, op := range []string{"+@all", "~*", "&*", "on", "nopass"} {
		if err := a.setUser(r, op); err != nil {
			panic(err)
		}
	}
	u.rules.Store(r.seal())
	return u
}

// DefaultUser is the user every connection starts as.
func (e *Engine) DefaultUser() *User { return e.acl.def }

// LookupUser returns a user by name, or nil.
func (e *Engine) LookupUser(name string) *User { return e.acl.lookupUser(name) }

// lookupUser returns a user by name, or nil.
func (a *aclState) lookupUser(name string) *User {
	a.mu.RLock()
	defer a.mu.RUnlock()
	return a.users[name]
}

// sortedUsers lists the users by name, as Redis's radix tree orders them.
func (a *aclState) sortedUsers() []*User {
	a.mu.RLock()
	out := make([]*User, 0, len(a.users))
	for _, u := range a.users {
		out = append(out, u)
	}
	a.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

func hashPassword(p string) string {
	sum := sha256.Sum256([]byte(p))
	return hex.EncodeToString(sum[:])
}

// checkUserCredentials is Redis's ACLCheckUserCredentials: the user, or
// nil when it does not exist, is disabled or no password matches. The
// comparison of hashes takes the same time whatever they hold.
func (a *aclState) checkUserCredentials(name, pass []byte) *User {
	u := a.lookupUser(string(name))
	if u == nil {
		return nil
	}
	r := u.load()
	if r.flags&userOff != 0 {
		return nil
	}
	if r.flags&userNopass != 0 {
		return u
	}
	sum := sha256.Sum256(pass)
	var hexSum [64]byte
	hex.Encode(hexSum[:], sum[:])
	ok := 0
	for _, p := range r.passwords {
		ok |= subtle.ConstantTimeCompare(hexSum[:], []byte(p))
	}
	if ok == 1 {
		return u
	}
	return nil
}

// aclErr is why an ACL rule was refused (Redis's errno values and
// ACLSetUserStringError's texts).
type aclErr int

const (
	aclErrSyntax aclErr = iota + 1
	aclErrUnknown
	aclErrKeysAfterAll
	aclErrChannelsAfterAll
	aclErrNoSuchPassword
	aclErrBadHash
	aclErrDuplicateUser
	aclErrSubFirstArg
)

func (e aclErr) Error() string {
	switch e {
	case aclErrUnknown:
		return "Unknown command or category name in ACL"
	case aclErrSyntax:
		return "Syntax error"
	case aclErrKeysAfterAll:
		return "Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to start with an empty list of patterns"
	case aclErrChannelsAfterAll:
		return "Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not have any effect. Try 'resetchannels' to start with an empty list of channels"
	case aclErrNoSuchPassword:
		return "The password you are trying to remove from the user does not exist"
	case aclErrBadHash:
		return "The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters"
	case aclErrDuplicateUser:
		return "Duplicate user found. A user can only be defined once in config files"
	case aclErrSubFirstArg:
		return "Allowing first-arg of a subcommand is not supported"
	}
	return "Wrong format"
}

func validPasswordHash(h string) bool {
	if len(h) != 64 {
		return false
	}
	for i := 0; i < len(h); i++ {
		if c := h[i]; (c < 'a' || c > 'f') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// hasSpaces is ACLStringHasSpaces: C's isspace or a NUL.
func hasSpaces(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\n', '\v', '\f', '\r', 0:
			return true
		}
	}
	return false
}

// aclSetUser applies one rule to r, as Redis's ACLSetUser.
func (a *aclState) setUser(r *userRules, op string) error {
	if op == "" {
		return nil
	}
	switch {
	case strings.EqualFold(op, "on"):
		r.flags = r.flags&^userOff | userOn
	case strings.EqualFold(op, "off"):
		r.flags = r.flags&^userOn | userOff
	case strings.EqualFold(op, "skip-sanitize-payload"):
		r.flags = r.flags&^userSanitize | userSkipSanitize
	case strings.EqualFold(op, "sanitize-payload"):
		r.flags = r.flags&^userSkipSanitize | userSanitize
	case strings.EqualFold(op, "nopass"):
		r.flags |= userNopass
		r.passwords = nil
	case strings.EqualFold(op, "resetpass"):
		r.flags &^= userNopass
		r.passwords = nil
	case op[0] == '>' || op[0] == '#':
		var h string
		if op[0] == '>' {
			h = hashPassword(op[1:])
		} else {
			if !validPasswordHash(op[1:]) {
				return aclErrBadHash
			}
			h = op[1:]
		}
		if !containsString(r.passwords, h) {
			r.passwords = append(r.passwords, h)
		}
		r.flags &^= userNopass
	case op[0] == '<' || op[0] == '!':
		var h string
		if op[0] == '<' {
			h = hashPassword(op[1:])
		} else {
			if !validPasswordHash(op[1:]) {
				return aclErrBadHash
			}
			h = op[1:]
		}
		i := indexString(r.passwords, h)
		if i < 0 {
			return aclErrNoSuchPassword
		}
		r.passwords = append(r.passwords[:i:i], r.passwords[i+1:]...)
	case op[0] == '(' && op[len(op)-1] == ')':
		s := &aclSelector{}
		words, ok := SplitArgs(op[1 : len(op)-1])
		if !ok {
			words = nil // sdssplitargs failing yields no argument
		}
		for _, w := range words {
			if err := a.setSelector(s, w); err != nil {
				return err
			}
		}
		r.selectors = append(r.selectors, s)
	case strings.EqualFold(op, "clearselectors"):
		r.selectors = r.selectors[:1]
	case strings.EqualFold(op, "reset"):
		for _, o := range []string{"resetpass", "resetkeys", "resetchannels", "off", "sanitize-payload", "clearselectors", "-@all"} {
			if err := a.setUser(r, o); err != nil {
				return err
			}
		}
	default:
		return a.setSelector(r.root(), op)
	}
	return nil
}

func containsString(list []string, s string) bool { return indexString(list, s) >= 0 }

func indexString(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// aclSetSelector applies a selector rule, as Redis's ACLSetSelector.
func (a *aclState) setSelector(s *aclSelector, op string) error {
	at := func(i int) byte { // C's op[i] on a NUL-terminated string
		if i < len(op) {
			return op[i]
		}
		return 0
	}
	switch {
	case strings.EqualFold(op, "allkeys") || op == "~*":
		s.allKeys, s.keys = true, nil
	case strings.EqualFold(op, "resetkeys"):
		s.allKeys, s.keys = false, nil
	case strings.EqualFold(op, "allchannels") || op == "&*":
		s.allChannels, s.channels = true, nil
	case strings.EqualFold(op, "resetchannels"):
		s.allChannels, s.channels = false, nil
	case strings.EqualFold(op, "allcommands") || strings.EqualFold(op, "+@all"):
		for i := range s.allowed {
			s.allowed[i] = ^uint64(0)
		}
		s.allCommands, s.firstArgs = true, nil
	case strings.EqualFold(op, "nocommands") || strings.EqualFold(op, "-@all"):
		s.allowed = cmdBits{}
		s.allCommands, s.firstArgs = false, nil
	case op[0] == '~' || op[0] == '%':
		if s.allKeys {
			return aclErrKeysAfterAll
		}
		var perm uint8
		off := 1
		if op[0] == '%' {
		loop:
			for ; off < len(op); off++ {
				switch c := op[off]; {
				case (c == 'R' || c == 'r') && perm&aclPermRead == 0:
					perm |= aclPermRead
				case (c == 'W' || c == 'w') && perm&aclPermWrite == 0:
					perm |= aclPermWrite
				case c == '~':
					off++
					break loop
				default:
					return aclErrSyntax
				}
			}
		} else {
			perm = aclPermAll
		}
		pat := op[off:]
		if hasSpaces(pat) {
			return aclErrSyntax
		}
		found := false
		for i := range s.keys {
			if s.keys[i].pattern == pat {
				s.keys[i].perm |= perm
				found = true
				break
			}
		}
		if !found {
			s.keys = append(s.keys, keyPattern{pat, perm})
		}
		s.allKeys = false
	case op[0] == '&':
		if s.allChannels {
			return aclErrChannelsAfterAll
		}
		pat := op[1:]
		if hasSpaces(pat) {
			return aclErrSyntax
		}
		if !containsString(s.channels, pat) {
			s.channels = append(s.channels, pat)
		}
		s.allChannels = false
	case op[0] == '+' && at(1) != '@':
		name := op[1:]
		i := strings.LastIndexByte(name, '|')
		if i < 0 {
			cmd := a.table().aclLookup(name)
			if cmd == nil {
				return aclErrUnknown
			}
			s.changePerm(cmd, true)
			return nil
		}
		base, sub := name[:i], name[i+1:]
		cmd := a.table().aclLookup(base)
		if cmd == nil {
			return aclErrUnknown
		}
		if cmd.parent != nil {
			return aclErrSubFirstArg
		}
		if sub == "" {
			return aclErrSyntax
		}
		if cmd.subs != nil {
			sc := a.table().aclLookup(name)
			if sc == nil {
				return aclErrUnknown
			}
			s.changePerm(sc, true)
			return nil
		}
		a.logf("warning", "Deprecation warning: Allowing a first arg of an otherwise blocked command is a misuse of ACL and may get disabled in the future (offender: +%s)", name)
		if s.firstArgs == nil {
			s.firstArgs = map[int][]string{}
		}
		for _, a := range s.firstArgs[cmd.aclID] {
			if strings.EqualFold(a, sub) {
				return nil
			}
		}
		s.firstArgs[cmd.aclID] = append(s.firstArgs[cmd.aclID], sub)
	case op[0] == '-' && at(1) != '@':
		cmd := a.table().aclLookup(op[1:])
		if cmd == nil {
			return aclErrUnknown
		}
		s.changePerm(cmd, false)
	case (op[0] == '+' || op[0] == '-') && at(1) == '@':
		bit := aclCategoryBit(op[2:])
		if bit == 0 {
			return aclErrUnknown
		}
		s.setCategory(a.table(), bit, op[0] == '+')
	default:
		return aclErrSyntax
	}
	return nil
}

// setBit is ACLSetSelectorCommandBit: clearing a bit ends "allcommands".
func (s *aclSelector) setBit(id int, v bool) {
	s.allowed.set(id, v)
	if !v {
		s.allCommands = false
	}
}

// changePerm allows or denies a command, and a container's subcommands
// with it (ACLChangeSelectorPerm).
func (s *aclSelector) changePerm(cmd *Command, allow bool) {
	s.setBit(cmd.aclID, allow)
	delete(s.firstArgs, cmd.aclID)
	for _, sc := range cmd.Subcommands {
		s.setBit(sc.aclID, allow)
	}
}

// setCategory is ACLSetSelectorCommandBitsForCategory.
func (s *aclSelector) setCategory(t *Table, bit uint32, allow bool) {
	for _, cmd := range t.aclCommands() {
		if cmd.aclCats&bit != 0 {
			s.changePerm(cmd, allow)
		}
	}
}

// countCategory counts the commands of a category the selector allows
// (on) and denies (off).
func (s *aclSelector) countCategory(t *Table, bit uint32) (on, off int) {
	for _, cmd := range t.aclCommands() {
		if cmd.aclCats&bit != 0 {
			if s.allowed.get(cmd.aclID) {
				on++
			} else {
				off++
			}
		}
	}
	return on, off
}

// describeCommands is ACLDescribeSelectorCommandRules: +@all or -@all,
// then the categories that fit best, then single commands, so that
// applying the rules rebuilds the bitmap.
func (a *aclState) describeCommands(s *aclSelector) string {
	t := a.table()
	var rules []string
	fake := &aclSelector{}
	additive := !s.allowed.get(aclFutureBit)
	if additive {
		rules = append(rules, "-@all")
		_ = a.setSelector(fake, "-@all")
	} else {
		rules = append(rules, "+@all")
		_ = a.setSelector(fake, "+@all")
	}
	temp := &aclSelector{allowed: s.allowed}
	applied := make([]bool, len(aclCategories))
	for {
		best, minDiff, maxSame := -1, int(^uint(0)>>1), 0
		for j := range aclCategories {
			if applied[j] {
				continue
			}
			on, off := temp.countCategory(t, 1<<j)
			diff, same := on, off
			if additive {
				diff, same = off, on
			}
			if same > diff && (diff < minDiff || (diff == minDiff && same > maxSame)) {
				best, minDiff, maxSame = j, diff, same
			}
		}
		if best < 0 {
			break
		}
		sign, inv := "-@", "+@"
		if additive {
			sign, inv = "+@", "-@"
		}
		_ = a.setSelector(fake, sign+aclCategories[best])
		_ = a.setSelector(temp, inv+aclCategories[best])
		rules = append(rules, sign+aclCategories[best])
		applied[best] = true
	}
	for _, cmd := range t.aclCommands() {
		user, fk := s.allowed.get(cmd.aclID), fake.allowed.get(cmd.aclID)
		if user != fk {
			if user {
				rules = append(rules, "+"+cmd.FullName)
			} else {
				rules = append(rules, "-"+cmd.FullName)
			}
			fake.changePerm(cmd, user)
		}
		if !user {
			for _, a := range s.firstArgs[cmd.aclID] {
				rules = append(rules, "+"+cmd.FullName+"|"+a)
			}
		}
	}
	return strings.Join(rules, " ")
}

// describeSelector is ACLDescribeSelector: keys, channels, commands.
func (a *aclState) describeSelector(s *aclSelector) string {
	var b strings.Builder
	if s.allKeys {
		b.WriteString("~* ")
	} else {
		for _, k := range s.keys {
			b.WriteString(k.String())
			b.WriteByte(' ')
		}
	}
	if s.allChannels {
		b.WriteString("&* ")
	} else {
		b.WriteString("resetchannels ")
		for _, c := range s.channels {
			b.WriteString("&" + c + " ")
		}
	}
	b.WriteString(a.describeCommands(s))
	return b.String()
}

// describeUser is ACLDescribeUser: flags, password hashes, selectors.
func (a *aclState) describeUser(r *userRules) string {
	var b strings.Builder
	for _, f := range userFlagNames {
		if r.flags&f.f != 0 {
			b.WriteString(f.name + " ")
		}
	}
	for _, p := range r.passwords {
		b.WriteString("#" + p + " ")
	}
	for _, s := range r.selectors {
		if s.root {
			b.WriteString(a.describeSelector(s))
		} else {
			b.WriteString(" (" + a.describeSelector(s) + ")")
		}
	}
	return b.String()
}

// mergeSelectorArgs is ACLMergeSelectorArguments: a selector spread over
// several arguments ("(~a" "+get)") becomes one. bad is the index of an
// unclosed one, or -1.
func mergeSelectorArgs(args []string) (out []string, bad int) {
	open := -1
	var sel string
	for j, op := range args {
		if len(op) > 0 && op[0] == '(' && op[len(op)-1] != ')' {
			sel, open = op, j
			continue
		}
		if open != -1 {
			sel += " " + op
			if len(op) > 0 && op[len(op)-1] == ')' {
				open = -1
				out = append(out, sel)
			}
			continue
		}
		out = append(out, op)
	}
	if open != -1 {
		return nil, open
	}
	return out, -1
}

// aclStringSetUser is ACLStringSetUser: every rule is applied to a copy,
// which replaces the user's rules (or makes a new user) only when all of
// them were valid. It returns the error text, without "ERR ".
func (a *aclState) stringSetUser(name string, args []string) string {
	merged, bad := mergeSelectorArgs(args)
	if bad >= 0 {
		return "Unmatched parenthesis in acl selector starting at '" + args[bad] + "'."
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	u := a.users[name]
	var r *userRules
	if u != nil {
		r = u.load().clone()
	} else {
		r = newUserRules()
	}
	for _, op := range merged {
		if err := a.setUser(r, op); err != nil {
			return "Error in ACL SETUSER modifier '" + op + "': " + err.Error()
		}
	}
	if u == nil {
		u = &User{name: name}
		a.users[name] = u
	} else {
		a.killPubsubClientsIfNeeded(u, r)
	}
	u.rules.Store(r.seal())
	return ""
}

// killPubsubClientsIfNeeded is ACLKillPubsubClientsIfNeeded: the clients
// of u subscribed to a channel or pattern the new rules no longer allow
// are disconnected.
func (a *aclState) killPubsubClientsIfNeeded(u *User, next *userRules) {
	var upcoming []string
	for _, s := range next.selectors {
		if s.allChannels {
			return
		}
		upcoming = append(upcoming, s.channels...)
	}
	match := true
	for _, s := range u.load().selectors {
		if s.allChannels {
			match = false
			break
		}
		for _, c := range s.channels {
			if !containsString(upcoming, c) {
				match = false
			}
		}
	}
	if match {
		return
	}
	lister, ok := a.publisher().(subscriptionLister)
	if !ok {
		return
	}
	for _, sess := range a.sessions() {
		if sess.user.Load() != u || sess.Subscriptions() == 0 {
			continue
		}
		kill := false
		lister.SubscriptionsOf(sess, func(name string, pattern bool) bool {
			if channelAllowed(upcoming, StringBytes(name), pattern) {
				return true
			}
			kill = true
			return false
		})
		if kill && sess.Close != nil {
			sess.Close()
		}
	}
}

// subscriptionLister is implemented by the publisher (pubsub's hub).
type subscriptionLister interface {
	SubscriptionsOf(s *Session, fn func(name string, pattern bool) bool)
}

// channelAllowed is ACLCheckChannelAgainstList: a channel matches the
// patterns as a glob, a subscription pattern only literally.
func channelAllowed(list []string, ch []byte, isPattern bool) bool {
	for _, p := range list {
		if isPattern {
			if p == string(ch) {
				return true
			}
		} else if Glob(StringBytes(p), ch, false) {
			return true
		}
	}
	return false
}

// aclDelUsers is ACL DELUSER: the users are removed and their clients
// disconnected (the calling one after its reply).
func (a *aclState) delUsers(self *Session, names []string) int {
	a.mu.Lock()
	var gone []*User
	for _, n := range names {
		if u := a.users[n]; u != nil {
			delete(a.users, n)
			u.deleted.Store(true)
			gone = append(gone, u)
		}
	}
	a.mu.Unlock()
	if len(gone) > 0 {
		a.killUserClients(self, gone)
	}
	return len(gone)
}

func (a *aclState) killUserClients(self *Session, gone []*User) {
	for _, s := range a.sessions() {
		u := s.user.Load()
		for _, g := range gone {
			if u != g {
				continue
			}
			if s == self {
				s.CloseAfterReply = true
			} else if s.Close != nil {
				s.Close()
			}
		}
	}
}

// setDefaultAuth is Redis's clientSetDefaultAuth: a new (or RESET)
// connection runs as the default user, logged in when that user needs no
// password and is on.
func (a *aclState) setDefaultAuth(s *Session) {
	s.user.Store(a.def)
	r := a.def.load()
	s.Authenticated = r.flags&userNopass != 0 && r.flags&userOff == 0
}

// addSessionAuth is setDefaultAuth for a session being registered: one
// its owner already logged in stays so.
func (a *aclState) addSessionAuth(s *Session) {
	was := s.Authenticated
	a.setDefaultAuth(s)
	s.Authenticated = s.Authenticated || was
}

// The ACL permission check, Redis 7.0's ACLCheckAllPerm: a command runs
// when one of its user's selectors allows the command (or subcommand, or
// its first argument), every key it names with the access its key specs
// declare, and every channel it publishes or subscribes to. Dispatch
// calls aclRefuses at Redis's place in processCommand (after the MULTI
// check, before subscribed mode) and at scriptCall's (after noscript);
// EXEC checks its queue again when it runs.
//
// A user allowed every command, key and channel (the default user unless
// configured otherwise) costs two atomic loads and a flag test: no key is
// looked at.
