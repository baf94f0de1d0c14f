package compat

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestBackupRestore follows docs/operations.md's "Back up and restore" on
// the binary: a backup copied from a running server (after BGREWRITEAOF
// and SAVE) restores its keys with their TTLs and fencing tokens into a
// new directory; the restored server fences new keys (the backup's state
// says "running"), tokens go on above every one the old server handed
// out, and a copy that ends inside a record loads all the records before.
func TestBackupRestore(t *testing.T) {
	ctx := context.Background()
	dirA := t.TempDir()
	a := redis.NewClient(&redis.Options{Addr: startBinary(t, "--dir", dirA, "--appendonly", "yes"), MaxRetries: -1})
	defer a.Close()
	token := func(c *redis.Client, key string) int64 {
		t.Helper()
		n, err := c.Do(ctx, "LOCK.TOKEN", key).Int64()
		if err != nil {
			t.Fatalf("LOCK.TOKEN %s: %v", key, err)
		}
		return n
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(a.Set(ctx, "lock:a", "w1", 10*time.Minute).Err())
	must(a.Do(ctx, "LOCK.ACQUIRE", "lock:b", "w2", 600000).Err())
	must(a.Set(ctx, "plain", "v", 0).Err())
	tokenB := token(a, "lock:b")

	// The backup: compact, wait for the rewrite, fsync, copy both files.
	must(a.BgRewriteAOF(ctx).Err())
	waitFor(t, func() bool {
		info := a.Info(ctx, "persistence").Val()
		return strings.Contains(info, "aof_rewrite_in_progress:0") && strings.Contains(info, "aof_rewrites:1")
	})
	must(a.Set(ctx, "after-rewrite", "v", 10*time.Minute).Err())
	must(a.Save(ctx).Err())
	backup := t.TempDir()
	for _, f := range []string{"appendonly.aof", "lockredis.state"} {
		copyFile(t, filepath.Join(dirA, f), filepath.Join(backup, f))
	}
	// Written after the backup: lost by a restore.
	must(a.Set(ctx, "late", "v", 0).Err())
	lastToken := token(a, "late")

	// Restore into a new directory, as a server of its own.
	dirB := t.TempDir()
	for _, f := range []string{"appendonly.aof", "lockredis.state"} {
		copyFile(t, filepath.Join(backup, f), filepath.Join(dirB, f))
	}
	b := redis.NewClient(&redis.Options{Addr: startBinary(t, "--dir", dirB, "--appendonly", "yes"), MaxRetries: -1})
	defer b.Close()
	if v, err := b.Get(ctx, "lock:a").Result(); err != nil || v != "w1" {
		t.Errorf("lock:a after the restore: %q %v", v, err)
	}
	if ttl := b.PTTL(ctx, "lock:a").Val(); ttl <= 0 || ttl > 10*time.Minute {
		t.Errorf("lock:a's TTL after the restore: %v", ttl)
	}
	if got := token(b, "lock:b"); got != tokenB {
		t.Errorf("lock:b's token %d, was %d", got, tokenB)
	}
	if n := b.Exists(ctx, "plain", "after-rewrite", "late").Val(); n != 2 {
		t.Errorf("%d of plain, after-rewrite (in the backup) and late (not) exist", n)
	}
	// The backup's state says the server was running: the restored one
	// fences, since locks granted after the backup may still be held.
	if err := b.SetNX(ctx, "new", "v", time.Minute).Err(); err == nil || !strings.HasPrefix(err.Error(), "TRYAGAIN") {
		t.Errorf("SET NX of a new key after the restore: %v", err)
	}
	if n, err := b.Do(ctx, "LOCK.RELEASE", "lock:b", "w2").Int64(); err != nil || n != 1 {
		t.Errorf("LOCK.RELEASE during the fence: %d %v", n, err)
	}

	// Fencing tokens go on above the old server's, whatever it handed out
	// after the backup (the state file reserves them ahead).
	dirC := t.TempDir()
	for _, f := range []string{"appendonly.aof", "lockredis.state"} {
		copyFile(t, filepath.Join(backup, f), filepath.Join(dirC, f))
	}
	c := redis.NewClient(&redis.Options{Addr: startBinary(t, "--dir", dirC, "--appendonly", "yes", "--restart-fence", "off")})
	defer c.Close()
	must(c.Set(ctx, "new", "v", 0).Err())
	if got := token(c, "new"); got <= lastToken {
		t.Errorf("a new key's token %d after the restore is not above %d, the old server's last", got, lastToken)
	}

	// A copy taken while a record was being written ends inside it: the
	// load cuts it off and keeps every record before it.
	dirD := t.TempDir()
	aof, err := os.ReadFile(filepath.Join(backup, "appendonly.aof"))
	must(err)
	must(os.WriteFile(filepath.Join(dirD, "appendonly.aof"), aof[:len(aof)-3], 0o600))
	d := redis.NewClient(&redis.Options{Addr: startBinary(t, "--dir", dirD, "--appendonly", "yes")})
	defer d.Close()
	if n := d.Exists(ctx, "lock:a", "lock:b", "plain", "after-rewrite").Val(); n != 3 {
		t.Errorf("%d keys from a torn copy, want the 3 before its last record", n)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o600); err != nil {
		t.Fatal(err)
	}
}
