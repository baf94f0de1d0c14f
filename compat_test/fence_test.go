package compat

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/go-redsync/redsync/v4"
	"github.com/go-redsync/redsync/v4/redis"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"
)

// The restart fence on the real binary (issue 7).

const fenced = "-TRYAGAIN restart fence: new keys refused for another "

// Persistence off, kill -9 while a lock is held: the restarted server does
// not know the lock, so it refuses to create keys for the lock's TTL.
func TestFenceAfterKill9WithoutPersistence(t *testing.T) {
	n := newNode(t, "")
	n.start()
	c := dialRaw(t, n.addr())
	if got := c.do(t, "SET", "lock", "tok", "NX", "PX", "10000"); got != "+OK\r\n" {
		t.Fatal(got)
	}
	n.kill9()
	n.start()
	c = dialRaw(t, n.addr())
	for _, args := range [][]string{
		{"SET", "lock", "tok2", "NX", "PX", "10000"},
		{"SETNX", "other", "x"},
		{"HINCRBY", "rlock", "owner", "1"},
	} {
		if got := c.do(t, args...); !strings.HasPrefix(got, fenced) {
			t.Errorf("%q: got %q, want the fence error", args, got)
		}
	}
	if got := c.do(t, "SET", "lock", "tok2", "NX", "PX", "10000"); got != fenced+"10 s\r\n" && got != fenced+"9 s\r\n" {
		t.Errorf("got %q", got)
	}
	if got := c.do(t, "GET", "lock"); got != "$-1\r\n" {
		t.Errorf("GET: %q", got)
	}
	if info := c.do(t, "INFO", "persistence"); strings.Contains(info, "restart_fence_remaining_sec:0\r\n") {
		t.Errorf("INFO shows no fence:\n%s", info)
	}
	if !strings.Contains(n.out.String(), "Restart fence: refusing new keys for") {
		t.Errorf("no fence in the log:\n%s", n.out.String())
	}
}

// While fenced, the holder of a lock that survived (AOF) can read, renew
// and release it.
func TestFenceLetsHoldersRenewAndRelease(t *testing.T) {
	n := newNode(t, "", "--appendonly", "yes", "--restart-fence", "10s")
	n.start()
	c := dialRaw(t, n.addr())
	c.do(t, "SET", "lock", "tok", "NX", "PX", "10000")
	n.kill9()
	n.start()
	c = dialRaw(t, n.addr())
	for _, tc := range []struct {
		args []string
		want string // "" = the fence error
	}{
		{[]string{"SET", "new", "x", "NX", "PX", "10000"}, ""},
		{[]string{"GET", "lock"}, "$3\r\ntok\r\n"},
		{[]string{"PEXPIRE", "lock", "10000"}, ":1\r\n"},
		{[]string{"SET", "lock", "tok", "XX", "PX", "10000"}, "+OK\r\n"},
		{[]string{"DEL", "lock"}, ":1\r\n"},
		{[]string{"SET", "lock", "tok", "NX", "PX", "10000"}, ""},
	} {
		got := c.do(t, tc.args...)
		if tc.want == "" && !strings.HasPrefix(got, fenced) || tc.want != "" && got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.args, got, tc.want)
		}
	}
}

// A clean stop (SIGTERM) is a planned restart: no fence, with or without
// persistence.
func TestNoFenceAfterSigterm(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"aof", []string{"--appendonly", "yes"}},
		{"memory", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := newNode(t, "", tc.args...)
			n.start()
			c := dialRaw(t, n.addr())
			c.do(t, "SET", "lock", "tok", "NX", "PX", "10000")
			n.term()
			n.start()
			c = dialRaw(t, n.addr())
			if got := c.do(t, "SET", "new", "x", "NX", "PX", "10000"); got != "+OK\r\n" {
				t.Fatalf("after a clean stop: %q", got)
			}
		})
	}
}

// The seeds' scenario, with redsync over five servers A..E: D and E are
// unreachable while client 1 locks (it gets A, B, C); D and E come back;
// C is killed -9 and restarted at once; client 2 tries the same lock.
// With the fence C refuses and client 2 fails; with the fence off and no
// persistence client 2 gets the lock too: two holders.
func TestRedsyncRestartScenario(t *testing.T) {
	for _, tc := range []struct {
		name       string
		args       []string
		twoHolders bool
	}{
		{"fence", nil, false},
		{"fence off", []string{"--restart-fence", "off"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nodes := make([]*restartable, 5)
			for i := range nodes {
				nodes[i] = newNode(t, "", tc.args...)
			}
			for _, n := range nodes[:3] {
				n.start()
			}
			pools := func() []redis.Pool {
				var ps []redis.Pool
				for _, n := range nodes {
					ps = append(ps, goredis.NewPool(n.client()))
				}
				return ps
			}
			opts := []redsync.Option{redsync.WithExpiry(10 * time.Second), redsync.WithTries(1)}
			m1 := redsync.New(pools()...).NewMutex("resource", opts...)
			if err := m1.LockContext(context.Background()); err != nil {
				t.Fatalf("client 1 with A, B, C up: %v", err)
			}
			nodes[3].start()
			nodes[4].start()
			nodes[2].kill9()
			nodes[2].start()
			m2 := redsync.New(pools()...).NewMutex("resource", opts...)
			err := m2.LockContext(context.Background())
			if tc.twoHolders && err != nil {
				t.Fatalf("without the fence client 2 should (wrongly) get the lock: %v", err)
			}
			if !tc.twoHolders && err == nil {
				t.Fatal("client 2 got a lock client 1 still holds")
			}
			t.Logf("client 2: %v", err)
		})
	}
}
