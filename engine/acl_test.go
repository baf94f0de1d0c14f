package engine

import (
	"strings"
	"testing"
)

// TestACLDescribeRoundTrip: for any rules, the description ACL LIST
// prints (the command part computed from the bitmap) rebuilds the same
// bitmap, key patterns and channels when applied to a new user, as
// Redis's ACLDescribeSelectorCommandRules asserts.
func TestACLDescribeRoundTrip(t *testing.T) {
	te := newTestEngine(t)
	for _, rules := range []string{
		"+@all",
		"-@all",
		"-@all +get",
		"+@all -@dangerous",
		"-@all +@read -get",
		"+@all -client",
		"-@all +client",
		"-@all +client|list +client|id",
		"+@all -@write +set",
		"-@all +@hash +@string -@write",
		"-@all +select|0 +select|1",
		"~a* %R~r* %W~w* &c1 &c2 -@all +@connection",
		"allkeys allchannels nocommands +@transaction -exec",
	} {
		r := newUserRules()
		for _, op := range strings.Fields(rules) {
			if err := te.acl.setUser(r, op); err != nil {
				t.Fatalf("%q: %s: %v", rules, op, err)
			}
		}
		descr := te.acl.describeUser(r)
		back := newUserRules()
		for _, op := range strings.Fields(descr) {
			if err := te.acl.setUser(back, op); err != nil {
				t.Fatalf("%q described as %q: %s: %v", rules, descr, op, err)
			}
		}
		got, want := back.root(), r.root()
		if got.allowed != want.allowed || got.allKeys != want.allKeys || got.allChannels != want.allChannels ||
			strings.Join(got.channels, " ") != strings.Join(want.channels, " ") ||
			len(got.keys) != len(want.keys) || len(got.firstArgs) != len(want.firstArgs) {
			t.Errorf("%q described as %q does not rebuild the same selector", rules, descr)
		}
		if again := te.acl.describeUser(back); again != descr {
			t.Errorf("%q: described %q, then %q", rules, descr, again)
		}
	}
}

// TestACLCheck is the permission check on its own: which commands, keys
// and channels a user's rules allow, and what the refusal is about.
func TestACLCheck(t *testing.T) {
	te := newTestEngine(t)
	// pubsub's commands, with their commands.json specs.
	nop := func(*Call) {}
	te.Table.RegisterWith(otherSpecs(t), &Command{Name: "publish", Handler: nop}, &Command{Name: "subscribe", Handler: nop},
		&Command{Name: "psubscribe", Handler: nop})
	if msg := te.acl.stringSetUser("u", strings.Fields(
		"on nopass ~a:* %R~r:* %W~w:* &ch:* -@all +get +set +copy +publish +subscribe +psubscribe +client|id +select|0 (~s:* +del)")); msg != "" {
		t.Fatal(msg)
	}
	r := te.LookupUser("u").load()
	if r.all {
		t.Fatal("a restricted user took the fast path")
	}
	if !te.DefaultUser().load().all {
		t.Fatal("the default user does not take the fast path")
	}
	for _, tc := range []struct {
		cmd  string
		want aclResult
		idx  int
	}{
		{"get a:1", aclOK, 0},
		{"get r:1", aclOK, 0},
		{"get w:1", aclDeniedKey, 1},
		{"set w:1 v", aclOK, 0},
		{"set r:1 v", aclDeniedKey, 1},
		{"set w:1 v get", aclDeniedKey, 1}, // GET makes it a read too
		{"copy r:1 w:1", aclOK, 0},
		{"copy w:1 r:1", aclDeniedKey, 1}, // the source is read
		{"copy a:1 r:1", aclDeniedKey, 2}, // the destination written
		// The root selector refuses the command, the second the key: the
		// key is the more relevant refusal.
		{"del a:1", aclDeniedKey, 1},
		{"incr a:1", aclDeniedCmd, 0},
		{"del s:1", aclOK, 0}, // the second selector
		{"del s:1 x", aclDeniedKey, 2},
		{"ping", aclDeniedCmd, 0},
		{"auth x y", aclOK, 0}, // no-auth commands are always allowed
		{"client id", aclOK, 0},
		{"client list", aclDeniedCmd, 0},
		{"select 0", aclOK, 0},
		{"select 1", aclDeniedCmd, 0},
		{"publish ch:1 m", aclOK, 0},
		{"publish other m", aclDeniedChannel, 1},
		{"subscribe ch:1 ch:2 x", aclDeniedChannel, 3},
		{"psubscribe ch:*", aclOK, 0}, // a pattern matches literally
		{"psubscribe ch:a*", aclDeniedChannel, 1},
	} {
		args := [][]byte{}
		for _, a := range strings.Fields(tc.cmd) {
			args = append(args, []byte(a))
		}
		cmd := te.Table.Lookup(args)
		if cmd == nil {
			t.Fatalf("%s: no command", tc.cmd)
		}
		got, idx := checkRules(r, cmd, args)
		if got != tc.want || idx != tc.idx {
			t.Errorf("%s: %d at %d, want %d at %d", tc.cmd, got, idx, tc.want, tc.idx)
		}
	}
}

// TestACLSetUserAtomic: a SETUSER with one bad rule changes nothing.
func TestACLSetUserAtomic(t *testing.T) {
	te := newTestEngine(t)
	for _, tc := range []struct {
		rules, err string
	}{
		{"on >a ~k +get", ""},
		{"off >b +nosuch", "Error in ACL SETUSER modifier '+nosuch': Unknown command or category name in ACL"},
		{"(~x +get", "Unmatched parenthesis in acl selector starting at '(~x'."},
		{"#zz", "Error in ACL SETUSER modifier '#zz': The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters"},
	} {
		if msg := te.acl.stringSetUser("t", strings.Fields(tc.rules)); msg != tc.err {
			t.Errorf("%q: %q, want %q", tc.rules, msg, tc.err)
		}
	}
	if got, want := te.acl.describeUser(te.LookupUser("t").load()),
		"on #ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb ~k resetchannels -@all +get"; got != want {
		t.Errorf("after failed changes: %q, want %q", got, want)
	}
}
