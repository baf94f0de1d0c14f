package compat

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lockredis/lockredis"
	"github.com/redis/go-redis/v9"
)

// teamRules are docs/commands.md's example (Access control): a team's own key and channel
// prefix, every command but the dangerous ones.
var teamRules = []string{"on", ">secret", "~lock:team-a:*", "&lock:team-a:*", "+@all", "-@dangerous"}

// TestGoRedisTeamUser: a go-redis client logged in as a team user takes
// and releases locks under its prefix and gets NOPERM elsewhere, against
// the embedded server and redis-server (which shows the assertions are
// Redis's behaviour), over RESP3 (HELLO 3 AUTH user pass) and RESP2 (AUTH
// user pass).
func TestGoRedisTeamUser(t *testing.T) {
	srv := startEmbedded(t, lockredis.Options{})
	targets := map[string]string{"lockredis": srv.Addr(), "redis-server": startRedis(t)}
	for name, addr := range targets {
		admin := dialRaw(t, addr)
		if r := admin.do(t, append([]string{"ACL", "SETUSER", "team-a"}, teamRules...)...); r != "+OK\r\n" {
			t.Fatalf("%s: ACL SETUSER: %q", name, r)
		}
		for _, proto := range []int{3, 2} {
			t.Run(name+"/resp"+strconv.Itoa(proto), func(t *testing.T) {
				ctx := context.Background()
				rdb := redis.NewClient(&redis.Options{Addr: addr, Username: "team-a", Password: "secret", Protocol: proto})
				defer rdb.Close()
				if who, err := rdb.Do(ctx, "ACL", "WHOAMI").Text(); err != nil || who != "team-a" {
					t.Fatalf("ACL WHOAMI = %q, %v", who, err)
				}
				key := "lock:team-a:job:" + strconv.Itoa(proto)
				ok, err := rdb.SetNX(ctx, key, "token-1", 30*time.Second).Result()
				if err != nil || !ok {
					t.Fatalf("first SET NX = %v, %v; want true", ok, err)
				}
				ok, err = rdb.SetNX(ctx, key, "token-2", 30*time.Second).Result()
				if err != nil || ok {
					t.Fatalf("second SET NX = %v, %v; want false (held)", ok, err)
				}
				release := redis.NewScript(`if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end`)
				if n, err := release.Run(ctx, rdb, []string{key}, "token-2").Int(); err != nil || n != 0 {
					t.Fatalf("release with the wrong token = %d, %v; want 0", n, err)
				}
				if n, err := release.Run(ctx, rdb, []string{key}, "token-1").Int(); err != nil || n != 1 {
					t.Fatalf("release = %d, %v; want 1", n, err)
				}
				if ok, err := rdb.SetNX(ctx, key, "token-3", 30*time.Second).Result(); err != nil || !ok {
					t.Fatalf("SET NX after release = %v, %v; want true", ok, err)
				}
				for _, tc := range []struct {
					name string
					err  error
					want string
				}{
					{"SET NX outside the prefix", rdb.SetNX(ctx, "lock:team-b:job", "x", time.Second).Err(),
						"NOPERM this user has no permissions to access one of the keys used as arguments"},
					{"script on a key outside the prefix", release.Run(ctx, rdb, []string{"lock:team-b:job"}, "x").Err(),
						"NOPERM this user has no permissions to access one of the keys used as arguments"},
					{"script calling outside the prefix", rdb.Eval(ctx, `return redis.call("get", "lock:team-b:job")`, nil).Err(),
						"ERR The user executing the script can't access at least one of the keys mentioned in the command arguments"},
					{"PUBLISH elsewhere", rdb.Publish(ctx, "lock:team-b:events", "x").Err(),
						"NOPERM this user has no permissions to access one of the channels used as arguments"},
					{"FLUSHALL", rdb.FlushAll(ctx).Err(), "NOPERM this user has no permissions to run the 'flushall' command"},
					{"KEYS", rdb.Keys(ctx, "*").Err(), "NOPERM this user has no permissions to run the 'keys' command"},
				} {
					if tc.err == nil || !strings.HasPrefix(tc.err.Error(), tc.want) {
						t.Errorf("%s: error %v, want %q", tc.name, tc.err, tc.want)
					}
				}
				if err := rdb.Publish(ctx, "lock:team-a:events", "released").Err(); err != nil {
					t.Errorf("PUBLISH under the prefix: %v", err)
				}
				bad := redis.NewClient(&redis.Options{Addr: addr, Username: "team-a", Password: "wrong", Protocol: proto})
				defer bad.Close()
				if err := bad.Ping(ctx).Err(); err == nil || !strings.HasPrefix(err.Error(), "WRONGPASS") {
					t.Errorf("wrong password: %v, want WRONGPASS", err)
				}
			})
		}
	}
}

// TestACLFileBinary runs ACL SAVE and ACL LOAD on the built binary and on
// redis-server, both started with an aclfile: the files they write must be
// the same, and a restarted lockredis must come back with the users.
func TestACLFileBinary(t *testing.T) {
	requireTool(t, "redis-server")
	const initial = "user default on nopass ~* &* +@all\nuser ops on #6b86b273ff34fce19d6b804eff5a3f5747ada4eaa22f1d49c01e52ddb7875b4b ~* &* +@all\n"
	redisFile := filepath.Join(t.TempDir(), "users.acl")
	lockFile := filepath.Join(t.TempDir(), "users.acl")
	for _, f := range []string{redisFile, lockFile} {
		if err := os.WriteFile(f, []byte(initial), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	redisAddr := startRedis(t, "--aclfile", redisFile)
	lockDir := t.TempDir()
	lockAddr := startBinary(t, "--dir", lockDir, "--aclfile", lockFile)
	rc, lc := dialRaw(t, redisAddr), dialRaw(t, lockAddr)
	same := func(args ...string) string {
		t.Helper()
		r, l := rc.do(t, args...), lc.do(t, args...)
		r2 := strings.ReplaceAll(r, redisFile, "FILE")
		l2 := strings.ReplaceAll(l, lockFile, "FILE")
		if r2 != l2 {
			t.Errorf("%q:\n\tredis:     %q\n\tlockredis: %q", args, r, l)
		}
		return l
	}
	same("ACL", "LIST")
	same("AUTH", "ops", "1")
	same("ACL", "WHOAMI")
	same("ACL", "SETUSER", "team-a", "on", ">secret", "~lock:team-a:*", "&lock:team-a:*", "+@all", "-@dangerous")
	same("ACL", "SETUSER", "reader", "on", "nopass", "%R~*", "-@all", "+@read", "(~x* +set)")
	same("ACL", "SETUSER", "default", ">pw")
	same("ACL", "SAVE")
	rb, _ := os.ReadFile(redisFile)
	lb, _ := os.ReadFile(lockFile)
	if string(rb) != string(lb) {
		t.Errorf("ACL SAVE wrote different files:\nredis:\n%s\nlockredis:\n%s", rb, lb)
	}
	// A broken file is refused as a whole, with Redis's messages.
	broken := "user ok on nopass +@all\nuser bad on +nosuch +alsonot\nnot a user line\nuser bad2 on #123\nuser ok\n"
	for _, f := range []string{redisFile, lockFile} {
		if err := os.WriteFile(f, []byte(broken), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	same("ACL", "LOAD")
	same("ACL", "USERS")
	// Back to the saved file: ACL LOAD replaces the users and disconnects
	// the clients of the old ones (this connection is ops's).
	for _, f := range []string{redisFile, lockFile} {
		if err := os.WriteFile(f, lb, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	same("ACL", "LOAD")
	if _, err := lc.roundTrip(encodeCommand([]string{"PING"})); err == nil {
		t.Errorf("the connection of a reloaded user is still open")
	}

	// Restart: the users come back from the file.
	again := startBinary(t, "--dir", t.TempDir(), "--aclfile", lockFile)
	c := dialRaw(t, again)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"AUTH", "team-a", "secret"}, "+OK\r\n"},
		{[]string{"SET", "lock:team-a:x", "1"}, "+OK\r\n"},
		{[]string{"SET", "other", "1"}, "-NOPERM this user has no permissions to access one of the keys used as arguments\r\n"},
		{[]string{"AUTH", "default", "pw"}, "+OK\r\n"},
		{[]string{"ACL", "USERS"}, "*4\r\n$7\r\ndefault\r\n$3\r\nops\r\n$6\r\nreader\r\n$6\r\nteam-a\r\n"},
	} {
		if got := c.do(t, tc.args...); got != tc.want {
			t.Errorf("after restart %q: %q, want %q", tc.args, got, tc.want)
		}
	}
}

// TestACLFileMissingStopsStart: as redis-server, a missing or broken
// aclfile stops the start with Redis's message.
func TestACLFileMissingStopsStart(t *testing.T) {
	bin := lockredisBinary(t)
	dir := t.TempDir()
	broken := filepath.Join(dir, "broken.acl")
	if err := os.WriteFile(broken, []byte("user x on +nosuch\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(dir, "lockredis.conf")
	if err := os.WriteFile(conf, []byte("aclfile "+filepath.Join(dir, "missing.acl")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--aclfile", filepath.Join(dir, "missing.acl")}, "Aborting Redis startup because of ACL errors: Error loading ACLs, opening file '" + filepath.Join(dir, "missing.acl") + "': No such file or directory"},
		{[]string{conf}, "opening file '" + filepath.Join(dir, "missing.acl") + "'"},
		{[]string{"--aclfile", broken}, broken + ":1: Error in applying operation '+nosuch': Unknown command or category name in ACL. WARNING: ACL errors detected"},
	} {
		cmd := exec.Command(bin, append(tc.args, "--port", strconv.Itoa(freePort(t)), "--dir", dir)...)
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), tc.want) {
			t.Errorf("%q: %v\n%s\nwant an exit with %q", tc.args, err, out, tc.want)
		}
	}
}

// TestACLChannelsRevokedDisconnects: taking a channel away from a user
// disconnects its clients subscribed to it, and only those, as Redis's
// ACLKillPubsubClientsIfNeeded does.
func TestACLChannelsRevokedDisconnects(t *testing.T) {
	srv := startEmbedded(t, lockredis.Options{})
	for name, addr := range map[string]string{"lockredis": srv.Addr(), "redis-server": startRedis(t)} {
		t.Run(name, func(t *testing.T) {
			admin := dialRaw(t, addr)
			admin.do(t, "ACL", "SETUSER", "sub", "on", "nopass", "~*", "+@all", "&a", "&b")
			subA, subB := dialRaw(t, addr), dialRaw(t, addr)
			for c, ch := range map[*rawConn]string{subA: "a", subB: "b"} {
				c.do(t, "AUTH", "sub", "x")
				if r := c.do(t, "SUBSCRIBE", ch); !strings.HasPrefix(r, "*3\r\n$9\r\nsubscribe\r\n") {
					t.Fatalf("SUBSCRIBE %s: %q", ch, r)
				}
			}
			if r := admin.do(t, "ACL", "SETUSER", "sub", "resetchannels", "&b"); r != "+OK\r\n" {
				t.Fatalf("ACL SETUSER: %q", r)
			}
			if r, err := subA.roundTrip(encodeCommand([]string{"PING"})); err == nil {
				t.Errorf("the subscriber of a revoked channel is still connected: %q", r)
			}
			if r, err := subB.roundTrip(encodeCommand([]string{"PING"})); err != nil {
				t.Errorf("the subscriber of a kept channel was disconnected: %q, %v", r, err)
			}
		})
	}
}
