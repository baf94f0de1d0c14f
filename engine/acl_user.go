package engine

import (
	"sync/atomic"
	"time"
)

// ACL users, Redis 7.0's acl.c: users with passwords and flags, and
// selectors (the root one, plus any "(...)" ones) holding a bitmap of the
// commands they may run, key patterns with read/write permissions and
// channel patterns. The rules a user is described with (ACL LIST, ACL
// GETUSER, ACL SAVE) are computed from the bitmap as Redis computes them,
// over lockredis's command table: a command lockredis does not have cannot
// be named in a rule.
//
// Rules are immutable once published: ACL SETUSER builds a new userRules
// and swaps the user's pointer, so that a permission check (acl_check.go)
// is an atomic load and, for a user allowed everything, one flag test.

// cmdBits is a selector's command bitmap, indexed by Command.aclID. As in
// Redis, the last bit is never a command's: +@all sets it, so it tells a
// user that may run commands added later from one that was given them one
// by one.
type cmdBits [1024 / 64]uint64

func (b *cmdBits) get(id int) bool { return b[id/64]&(1<<(id%64)) != 0 }
func (b *cmdBits) set(id int, v bool) {
	if v {
		b[id/64] |= 1 << (id % 64)
	} else {
		b[id/64] &^= 1 << (id % 64)
	}
}

// Key pattern permissions (%R~, %W~, ~ is both).
const (
	aclPermRead  = 1
	aclPermWrite = 2
	aclPermAll   = aclPermRead | aclPermWrite
)

type keyPattern struct {
	pattern string
	perm    uint8
}

func (p keyPattern) String() string {
	switch p.perm {
	case aclPermAll:
		return "~" + p.pattern
	case aclPermRead:
		return "%R~" + p.pattern
	case aclPermWrite:
		return "%W~" + p.pattern
	}
	return "%~" + p.pattern // no permission: only reachable through "%~" forms
}

// aclSelector is one set of permissions; a command runs when one of its
// user's selectors allows it all.
type aclSelector struct {
	root                              bool
	allKeys, allChannels, allCommands bool
	allowed                           cmdBits
	firstArgs                         map[int][]string // command id: allowed first arguments
	keys                              []keyPattern
	channels                          []string
}

func (s *aclSelector) clone() *aclSelector {
	c := *s
	c.keys = append([]keyPattern(nil), s.keys...)
	c.channels = append([]string(nil), s.channels...)
	if s.firstArgs != nil {
		c.firstArgs = make(map[int][]string, len(s.firstArgs))
		for id, a := range s.firstArgs {
			c.firstArgs[id] = append([]string(nil), a...)
		}
	}
	return &c
}

// unrestricted: every command, key and channel.
func (s *aclSelector) unrestricted() bool { return s.allKeys && s.allChannels && s.allCommands }

// User flags, in the order ACL LIST and GETUSER print them.
const (
	userOn uint8 = 1 << iota
	userOff
	userNopass
	userSkipSanitize
	userSanitize
)

var userFlagNames = []struct {
	f    uint8
	name string
}{
	{userOn, "on"}, {userOff, "off"}, {userNopass, "nopass"},
	{userSkipSanitize, "skip-sanitize-payload"}, {userSanitize, "sanitize-payload"},
}

// userRules are a user's flags, password hashes and selectors, the root
// selector first. Published rules are never changed.
type userRules struct {
	flags     uint8
	passwords []string // lowercase hex SHA-256
	selectors []*aclSelector
	// all: some selector allows every command, key and channel, the fast
	// path of the permission check.
	all bool
}

func (r *userRules) clone() *userRules {
	c := &userRules{flags: r.flags, passwords: append([]string(nil), r.passwords...)}
	for _, s := range r.selectors {
		c.selectors = append(c.selectors, s.clone())
	}
	return c
}

func (r *userRules) root() *aclSelector { return r.selectors[0] }

// seal computes the derived fields before the rules are published.
func (r *userRules) seal() *userRules {
	r.all = false
	for _, s := range r.selectors {
		if s.unrestricted() {
			r.all = true
		}
	}
	return r
}

// User is an ACL user. Sessions point at their user; ACL SETUSER changes
// the rules in place, as Redis changes the user its clients point to.
type User struct {
	name    string
	rules   atomic.Pointer[userRules]
	deleted atomic.Bool // ACL DELUSER: its sessions are being closed
}

// Name is the user's name.
func (u *User) Name() string { return u.name }

func (u *User) load() *userRules { return u.rules.Load() }

func newUserRules() *userRules {
	return &userRules{flags: userOff, selectors: []*aclSelector{{root: true}}}
}

// aclLogEntry is one entry of ACL LOG.
type aclLogEntry struct {
	count    int64
	reason   aclResult
	context  string
	object   string
	username string
	ctime    time.Time
	cinfo    string
}

// aclResult is Redis's ACL_OK / ACL_DENIED_*, in its order (a larger
// value is the more relevant error when selectors disagree).
type aclResult int

const (
	aclOK aclResult = iota
	aclDeniedCmd
	aclDeniedKey
	aclDeniedAuth
	aclDeniedChannel
)
