package compat

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lockredis/lockredis/compat_test/recipes"
	"github.com/redis/go-redis/v9"
)

// A Redisson client as far as its locks go, for the tests that need what
// the Go ports do not send: Redisson 4.x's own scripts (the unlock latch
// key, the publish command name in ARGV), its own channel names
// (redisson_lock__channel:{name}, redisson_rwlock:{name}) and its own way
// of waiting (RedissonLock.lock: try, subscribe, and on every refusal wait
// for an unlock message or the returned TTL, then try again). It speaks
// RESP2 (Redisson's default) and sends EVALSHA, loading the script with
// SCRIPT LOAD on NOSCRIPT, as Redisson does since 3.46. The RReadWriteLock
// scripts, RedissonReadLock's and RedissonWriteLock's, are in package
// recipes, which the lockwait benchmark sends too.

// Redisson's lock kinds: the scripts, the channel and the names they use.
type redissonKind int

const (
	redissonPlain redissonKind = iota // RLock
	redissonRead                      // RReadWriteLock.readLock()
	redissonWrite                     // RReadWriteLock.writeLock()
)

// redissonSuffix and redissonPrefix are RedissonObject's suffixName and
// prefixName.
func redissonSuffix(name, suffix string) string {
	if strings.Contains(name, "{") {
		return name + ":" + suffix
	}
	return "{" + name + "}:" + suffix
}

func redissonPrefix(prefix, name string) string {
	if strings.Contains(name, "{") {
		return prefix + ":" + name
	}
	return prefix + ":{" + name + "}"
}

// redissonChannel is where the unlock of name by a kind is published.
func redissonChannel(kind redissonKind, name string) string {
	if kind == redissonPlain {
		return redissonPrefix("redisson_lock__channel", name)
	}
	return redissonPrefix("redisson_rwlock", name)
}

// redissonClient is one Redisson instance: a UUID, a command connection
// pool and one pub/sub connection shared by its waiting threads.
type redissonClient struct {
	t    *testing.T
	id   string
	cmd  *redis.Client
	sub  *redis.PubSub
	subs sync.Mutex
	// latches are RedissonLockEntry's semaphores, one per channel: each
	// unlock message releases one permit (READ_UNLOCK_MESSAGE all of
	// them; one waiter per channel here, so one).
	latches map[string]chan struct{}
	// confirms get each SUBSCRIBE's confirmation.
	confirms map[string]chan struct{}
	// requests numbers unlock requests (the latch key's requestId).
	requests int
}

// receive reads the pub/sub connection: confirmations and messages.
func (r *redissonClient) receive() {
	for {
		m, err := r.sub.Receive(context.Background())
		if err != nil {
			return // closed
		}
		r.subs.Lock()
		switch m := m.(type) {
		case *redis.Subscription:
			if c := r.confirms[m.Channel]; c != nil && m.Kind == "subscribe" {
				close(c)
				delete(r.confirms, m.Channel)
			}
		case *redis.Message:
			if l := r.latches[m.Channel]; l != nil {
				select {
				case l <- struct{}{}:
				default:
				}
			}
		}
		r.subs.Unlock()
	}
}

func newRedissonClient(t *testing.T, addr string) *redissonClient {
	c := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, ReadTimeout: 10 * time.Second, MaxRetries: -1})
	r := &redissonClient{t: t, id: token(t)[:8] + "-0795-4907-87fd-" + token(t)[:12], cmd: c,
		latches: map[string]chan struct{}{}, confirms: map[string]chan struct{}{}}
	r.sub = c.Subscribe(context.Background())
	go r.receive()
	t.Cleanup(func() { r.sub.Close(); c.Close() })
	return r
}

// lockName is RedissonBaseLock.getLockName: uuid:threadId (a write lock
// adds ":write").
func (r *redissonClient) lockName(thread int) string { return r.id + ":" + strconv.Itoa(thread) }

// eval is CommandAsyncService.evalAsync with useScriptCache: EVALSHA, and
// on NOSCRIPT, SCRIPT LOAD and EVALSHA again.
func (r *redissonClient) eval(ctx context.Context, script string, keys []string, args ...any) (any, error) {
	sum := sha1.Sum([]byte(script))
	sha := hex.EncodeToString(sum[:])
	v, err := r.cmd.EvalSha(ctx, sha, keys, args...).Result()
	if err != nil && strings.HasPrefix(err.Error(), "NOSCRIPT") {
		if err := r.cmd.ScriptLoad(ctx, script).Err(); err != nil {
			return nil, err
		}
		v, err = r.cmd.EvalSha(ctx, sha, keys, args...).Result()
	}
	return v, err
}

// tryAcquire runs the kind's tryLock script: ok when acquired, else the
// lock's PTTL.
func (r *redissonClient) tryAcquire(ctx context.Context, kind redissonKind, name string, thread int, leaseMs int64) (ttl int64, ok bool, err error) {
	id := r.lockName(thread)
	var v any
	switch kind {
	case redissonPlain:
		v, err = r.eval(ctx, redissonTryLock, []string{name}, leaseMs, id)
	case redissonRead:
		v, err = r.eval(ctx, recipes.RedissonReadTryLock, []string{name, redissonSuffix(name, id) + ":rwlock_timeout"},
			leaseMs, id, id+":write")
	case redissonWrite:
		v, err = r.eval(ctx, recipes.RedissonWriteTryLock, []string{name}, leaseMs, id+":write")
	}
	if errors.Is(err, redis.Nil) {
		return 0, true, nil
	}
	if err != nil {
		return 0, false, err
	}
	return v.(int64), false, nil
}

// subscribe adds the channel's latch and subscribes (PUBSUB.subscribe:
// the subscription is confirmed before the next tryLock).
func (r *redissonClient) subscribe(ctx context.Context, channel string) chan struct{} {
	r.subs.Lock()
	l := make(chan struct{}, 1)
	r.latches[channel] = l
	confirmed := make(chan struct{})
	r.confirms[channel] = confirmed
	r.subs.Unlock()
	if err := r.sub.Subscribe(ctx, channel); err != nil {
		r.t.Errorf("SUBSCRIBE %s: %v", channel, err)
	}
	select {
	case <-confirmed:
	case <-time.After(5 * time.Second):
		r.t.Errorf("SUBSCRIBE %s: no confirmation", channel)
	}
	return l
}

func (r *redissonClient) unsubscribe(ctx context.Context, channel string) {
	r.sub.Unsubscribe(ctx, channel)
	r.subs.Lock()
	delete(r.latches, channel)
	r.subs.Unlock()
}

// lock is RedissonLock.lock(leaseTime): try; if refused, subscribe to
// the unlock channel and, until acquired, wait for an unlock message or
// the TTL the refusal answered, and try again. It gives up at ctx's end.
func (r *redissonClient) lock(ctx context.Context, kind redissonKind, name string, thread int, leaseMs int64) error {
	if _, ok, err := r.tryAcquire(ctx, kind, name, thread, leaseMs); ok || err != nil {
		return err
	}
	channel := redissonChannel(kind, name)
	latch := r.subscribe(ctx, channel)
	defer r.unsubscribe(context.Background(), channel)
	for {
		ttl, ok, err := r.tryAcquire(ctx, kind, name, thread, leaseMs)
		if ok || err != nil {
			return err
		}
		wait := time.Hour
		if ttl >= 0 {
			wait = time.Duration(ttl) * time.Millisecond
		}
		select {
		case <-latch:
		case <-time.After(wait):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// unlock runs the kind's unlock script: 1 released, 0 still held (a
// reentry left), nil (-1 here) not held by this thread.
func (r *redissonClient) unlock(ctx context.Context, kind redissonKind, name string, thread int) (int64, error) {
	r.requests++
	id := r.lockName(thread)
	latch := redissonPrefix("redisson_unlock_latch", name) + ":" + r.id + "-" + strconv.Itoa(r.requests)
	channel := redissonChannel(kind, name)
	var v any
	var err error
	switch kind {
	case redissonPlain:
		v, err = r.eval(ctx, redissonUnlock, []string{name, channel, latch}, "0", 30000, id, "PUBLISH", 13000)
	case redissonRead:
		timeoutPrefix := redissonSuffix(name, id) + ":rwlock_timeout"
		keyPrefix := strings.Split(timeoutPrefix, ":"+id)[0]
		v, err = r.eval(ctx, recipes.RedissonReadUnlock, []string{name, channel, timeoutPrefix, keyPrefix, latch}, "0", id, "PUBLISH", 13000)
	case redissonWrite:
		v, err = r.eval(ctx, recipes.RedissonWriteUnlock, []string{name, channel, latch}, "1", 30000, id+":write", "PUBLISH", 13000)
	}
	if errors.Is(err, redis.Nil) {
		return -1, nil
	}
	if err != nil {
		return 0, err
	}
	// RedissonBaseLock.unlockAsync deletes the latch key afterwards.
	r.cmd.Del(ctx, latch)
	return v.(int64), nil
}
