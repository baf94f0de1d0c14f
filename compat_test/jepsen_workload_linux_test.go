//go:build linux

package compat

import (
	"context"
	"errors"
	"fmt"
	"log"
	"math/rand"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// The fault tests' clients and workloads. A workload runs its workers
// against the cluster while the nemesis breaks it, records every
// operation into the history, and then reads what it needs for its check.

// clientKind is how a worker reaches the cluster.
type clientKind string

const (
	// plainClient: a go-redis Client connected to one node for the whole
	// run (worker i to node i mod n); a follower forwards to the leader.
	plainClient clientKind = "plain"
	// clusterClient: a go-redis ClusterClient over every node (the nodes
	// run with --cluster-enabled yes), following -MOVED to the leader.
	clusterClient clientKind = "cluster"
	// sentinelClient: a go-redis FailoverClient asking the nodes SENTINEL
	// GET-MASTER-ADDR-BY-NAME mymaster.
	sentinelClient clientKind = "sentinel"
)

// opTimeout bounds every operation: past it the operation is
// indeterminate. A follower that knows no leader answers after 5 s.
const opTimeout = 3 * time.Second

// noRetry is an error that go-redis's ClusterClient does not retry: it
// wraps every error but redirections, so that a command that may have
// been executed is never sent twice (an INCR retried after a timeout
// would count twice). classify looks inside. Its text must not begin with
// the inner error's: go-redis also decides by the text's prefix
// ("TRYAGAIN ", "CLUSTERDOWN "...), and retried an INCR whose first try
// had answered -TRYAGAIN (leadership changed, outcome unknown) and
// committed, which the counter checker reported as writes from nowhere.
type noRetry struct{ err error }

func (e *noRetry) Error() string { return "not retried: " + e.err.Error() }

type noRetryHook struct{ reload func() }

func (noRetryHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h noRetryHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if err == nil || errors.Is(err, redis.Nil) {
			return err
		}
		var nr *noRetry
		if errors.As(err, &nr) {
			return err // a connection's set-up command, wrapped already
		}
		switch cmd.Name() {
		case "hello", "client", "auth", "select":
			// A new connection's set-up (the hooks see it too): go-redis
			// reads these errors by type (HELLO unknown: RESP2).
			return err
		}
		msg := err.Error()
		if strings.HasPrefix(msg, "MOVED ") || strings.HasPrefix(msg, "ASK ") || strings.HasPrefix(msg, "READONLY") {
			return err
		}
		h.reload() // the slots may have moved: the next command asks again
		return &noRetry{err}
	}
}

func (noRetryHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// quietFaultLog is go-redis's logger while fault tests run: a fault makes
// every client log each failed dial and each Sentinel lookup (thousands of
// lines per run, burying the findings); those are expected and dropped, the
// rest is printed as go-redis's default logger would.
type quietFaultLog struct{ out *log.Logger }

func (l quietFaultLog) Printf(ctx context.Context, format string, v ...any) {
	msg := fmt.Sprintf(format, v...)
	if strings.HasPrefix(msg, "sentinel: ") || strings.Contains(msg, "failed to dial") {
		return
	}
	l.out.Output(2, msg)
}

var quietFaultLogOnce sync.Once

// quietClientLogs installs quietFaultLog (once per test binary; go-redis
// has one logger).
func quietClientLogs() {
	quietFaultLogOnce.Do(func() {
		redis.SetLogger(quietFaultLog{log.New(os.Stderr, "redis: ", log.LstdFlags|log.Lshortfile)})
	})
}

// noMaint: lockredis has no CLIENT MAINT_NOTIFICATIONS (Redis Cloud's).
var noMaint = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}

// newClient makes worker i's client of the given kind.
func (c *jepsenCluster) newClient(kind clientKind, i int) redis.UniversalClient {
	const dial, read = time.Second, opTimeout
	switch kind {
	case clusterClient:
		return newNoRetryClusterClient(c.addrs())
	case sentinelClient:
		return redis.NewFailoverClient(&redis.FailoverOptions{
			MasterName: "mymaster", SentinelAddrs: c.addrs(), MaxRetries: -1,
			DialTimeout: dial, ReadTimeout: read, WriteTimeout: dial, PoolSize: 2,
			ContextTimeoutEnabled: true,
		})
	}
	return redis.NewClient(&redis.Options{
		Addr: c.nodes[i%len(c.nodes)].addr(), MaxRetries: -1,
		DialTimeout: dial, ReadTimeout: read, WriteTimeout: dial, PoolSize: 2,
		ContextTimeoutEnabled: true, MaintNotificationsConfig: noMaint,
	})
}

// newNoRetryClusterClient is the fault tests' ClusterClient: it follows
// redirections and sends nothing twice (noRetryHook).
func newNoRetryClusterClient(addrs []string) *redis.ClusterClient {
	const dial, read = time.Second, opTimeout
	cc := redis.NewClusterClient(&redis.ClusterOptions{
		Addrs: addrs, MaxRedirects: 8, MaxRetries: -1,
		DialTimeout: dial, ReadTimeout: read, WriteTimeout: dial, PoolSize: 2,
		ContextTimeoutEnabled: true, MaintNotificationsConfig: noMaint,
	})
	cc.OnNewNode(func(rdb *redis.Client) {
		rdb.AddHook(noRetryHook{reload: func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			cc.ReloadState(ctx)
		}})
	})
	return cc
}

// outcomeOf classifies an error for the history: definite refusals and
// connections never made are failures, everything else that is not an
// answer is indeterminate.
func outcomeOf(err error) outcome {
	var nr *noRetry
	if errors.As(err, &nr) {
		err = nr.err
	}
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Op == "dial" {
		return opFail // the command was never sent
	}
	return classify(err)
}

// workload is one of the three: its workers run until ctx ends, then
// finish checks the history (reading the final state through c if it
// needs to) and returns findings.
type workload struct {
	name   string
	setup  func(ctx context.Context, rdb redis.UniversalClient) error
	worker func(ctx context.Context, w *worker)
	finish func(ctx context.Context, rdb redis.UniversalClient, ops []op) []string
}

// worker is one client of a workload run.
type worker struct {
	id   int
	rdb  redis.UniversalClient
	node string // the plain client's node, for the history
	h    *history
	rng  *rand.Rand
	seq  int
}

// do runs one command with the operation timeout and records it: o gets
// its times, outcome and error; fill reads the answer into o.
func (w *worker) do(ctx context.Context, o op, args []any, fill func(cmd *redis.Cmd, o *op)) op {
	o.client, o.node = w.id, w.node
	cctx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	o.start = w.h.now()
	cmd := w.rdb.Do(cctx, args...)
	o.end = w.h.now()
	err := cmd.Err()
	o.result = outcomeOf(err)
	switch {
	case err == nil:
		if fill != nil {
			fill(cmd, &o)
		}
	case errors.Is(err, redis.Nil):
		o.isNil = true
	default:
		var nr *noRetry
		if errors.As(err, &nr) {
			err = nr.err
		}
		o.err = err.Error()
	}
	w.h.add(o)
	return o
}

// pace keeps a worker from spinning on errors and the history small
// enough to check.
func (w *worker) pace(ctx context.Context, last op) {
	d := time.Duration(5+w.rng.Intn(10)) * time.Millisecond
	if last.result != opOK {
		d = 50 * time.Millisecond
	}
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

func fillString(cmd *redis.Cmd, o *op) { o.value = fmt.Sprint(cmd.Val()) }

// counterWorkload: INCR of one key, set to 0 first; afterwards a GET.
var counterWorkload = workload{
	name: "counter",
	setup: func(ctx context.Context, rdb redis.UniversalClient) error {
		return rdb.Set(ctx, "counter", 0, 0).Err()
	},
	worker: func(ctx context.Context, w *worker) {
		for ctx.Err() == nil {
			w.pace(ctx, w.do(ctx, op{f: "incr", key: "counter"}, []any{"INCR", "counter"}, fillString))
		}
	},
	finish: func(ctx context.Context, rdb redis.UniversalClient, ops []op) []string {
		v, err := finalRead(ctx, rdb, "counter")
		if err != nil {
			return []string{"final read of the counter: " + err.Error()}
		}
		final, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return []string{fmt.Sprintf("final read of the counter: %q", v)}
		}
		return checkCounter(ops, final)
	},
}

// finalRead reads key once the faults are over, retrying for up to 30 s
// while the cluster recovers.
func finalRead(ctx context.Context, rdb redis.UniversalClient, key string) (string, error) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		cctx, cancel := context.WithTimeout(ctx, opTimeout)
		v, err := rdb.Get(cctx, key).Result()
		cancel()
		if err == nil || time.Now().After(deadline) {
			return v, err
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// casScript is a compare-and-set in Lua, as clients write it.
const casScript = `if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('SET', KEYS[1], ARGV[2]) return 1 end return 0`

// registerKeys are the registers: few keys at a time, so operations
// collide. Every registerEpoch the workers move on to fresh keys (Jepsen's
// "independent" keys): porcupine checks each key on its own, and a write
// of unknown outcome may take effect anywhere after it began, so a key that
// collects many of them over a whole run (a kill of the majority can leave
// a hundred) makes the search explode; per epoch there are a few.
var registerKeys = []string{"r{0}", "r{1}", "r{2}"}

const registerEpoch = time.Second

// registerWorkload: GET, SET of unique values and CAS (a Lua script) on a
// few keys; checked for linearizability.
var registerWorkload = workload{
	name: "register",
	worker: func(ctx context.Context, w *worker) {
		seen := map[string]string{} // the last value this worker read or wrote, per key
		for ctx.Err() == nil {
			key := fmt.Sprintf("%s:%d", registerKeys[w.rng.Intn(len(registerKeys))], w.h.now()/int64(registerEpoch))
			w.seq++
			value := fmt.Sprintf("c%d-%d", w.id, w.seq)
			var last op
			switch r := w.rng.Intn(4); {
			case r < 2:
				last = w.do(ctx, op{f: "get", key: key}, []any{"GET", key}, fillString)
				if last.result == opOK && !last.isNil {
					seen[key] = last.value
				}
			case r == 2 || seen[key] == "":
				last = w.do(ctx, op{f: "set", key: key, arg: value}, []any{"SET", key, value}, nil)
				if last.result == opOK {
					seen[key] = value
				}
			default:
				last = w.do(ctx, op{f: "cas", key: key, arg: seen[key], arg2: value},
					[]any{"EVAL", casScript, 1, key, seen[key], value}, fillString)
				if last.result == opOK && last.value == "1" {
					seen[key] = value
				}
			}
			w.pace(ctx, last)
		}
	},
	finish: func(ctx context.Context, rdb redis.UniversalClient, ops []op) []string {
		return checkRegister(ops, 2*time.Minute)
	},
}

// The lock workload's locks: worker i takes lockKeys[i mod 3]; on the
// first with LOCK.ACQUIRE ... WAIT, on the second with SET NX PX (and the
// redsync release script), on the third half and half. (On a lock shared
// by both, the queue hands the lock from waiter to waiter inside the
// releasing transaction, so SET NX rarely finds it free: the second lock
// keeps that path busy.)
var lockKeys = []string{"lock{native}", "lock{setnx}", "lock{mixed}"}

func lockNative(worker int) bool {
	switch worker % len(lockKeys) {
	case 0:
		return true
	case 1:
		return false
	}
	return worker/len(lockKeys)%2 == 0
}

const (
	lockTTL  = 1000 * time.Millisecond
	lockWait = 500 // ms, LOCK.ACQUIRE's WAIT
	// A holder believes it holds the lock from the grant's reply until
	// TTL - drift after it sent the request, redsync's validity rule.
	lockDrift = lockTTL/100 + 2*time.Millisecond
)

// redsyncRelease is redsync's release script.
const redsyncRelease = `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) else return 0 end`

// lockWorkload; strict: a holder that finds its lock absent within its
// validity reports it lost (off for a standalone server without
// persistence, which forgets locks on a crash by design and is protected
// by the restart fence instead).
func lockWorkload(strict bool) workload {
	return workload{
		name: "lock",
		worker: func(ctx context.Context, w *worker) {
			key := lockKeys[w.id%len(lockKeys)]
			for ctx.Err() == nil {
				w.seq++
				owner := fmt.Sprintf("c%d-%d", w.id, w.seq)
				w.pace(ctx, lockOnce(ctx, w, key, owner, lockNative(w.id), strict))
			}
		},
		finish: func(ctx context.Context, rdb redis.UniversalClient, ops []op) []string {
			return checkLocks(ops)
		},
	}
}

// lockOnce acquires key as owner, runs a critical section within the
// validity, and releases; it returns the acquire's operation.
func lockOnce(ctx context.Context, w *worker, key, owner string, native, strict bool) op {
	ttl := strconv.FormatInt(lockTTL.Milliseconds(), 10)
	var acq op
	if native {
		acq = w.do(ctx, op{f: "acquire", key: key, arg: owner},
			[]any{"LOCK.ACQUIRE", key, owner, ttl, "WAIT", lockWait}, fillString)
	} else {
		acq = w.do(ctx, op{f: "setnx", key: key, arg: owner},
			[]any{"SET", key, owner, "NX", "PX", ttl}, nil)
	}
	if acq.result != opOK || acq.isNil {
		return acq
	}
	validUntil := acq.start + int64(lockTTL-lockDrift)
	// A correct server expires the lock no earlier than this: it granted
	// it after the request left. A read that ended before then must see it.
	mustHold := acq.start + int64(lockTTL)
	token := acq.value
	if !native {
		// SET NX PX answers OK: the token is the key's, read with
		// LOCK.INFO (owner and token in one answer).
		info := w.do(ctx, op{f: "info", key: key}, []any{"LOCK.INFO", key}, fillLockInfo)
		switch {
		case info.result != opOK:
			token = "?"
		case info.isNil || info.arg != owner:
			if info.end < mustHold && (strict || !info.isNil) {
				lostLock(w, key, owner, info)
			}
			return acq
		default:
			token = info.value
			// The grant, with its token, for the checker of token order.
			w.h.add(op{client: w.id, node: w.node, f: "acquire", key: key, arg: owner, start: acq.start, end: acq.end, result: opOK, value: token})
		}
	}
	// The critical section: mostly short (10-50 ms), one in four until
	// close to the end of the validity, so that locks are held across
	// faults; the holder checks with GET that the lock is still its own
	// every 100 ms and halfway.
	csStart := w.h.now()
	length := time.Duration(10+w.rng.Intn(40)) * time.Millisecond
	if w.rng.Intn(4) == 0 {
		length = time.Duration(validUntil-csStart) - 50*time.Millisecond
	}
	for steps := max(2, int(length/(100*time.Millisecond))); steps > 0 && ctx.Err() == nil; steps-- {
		time.Sleep(length / 2 / time.Duration(steps))
		check := w.do(ctx, op{f: "get", key: key}, []any{"GET", key}, fillString)
		if check.result == opOK && (check.isNil && strict || !check.isNil && check.value != owner) && check.end < mustHold {
			lostLock(w, key, owner, check)
		}
		if w.h.now() >= validUntil {
			break
		}
		time.Sleep(length / 2 / time.Duration(steps))
	}
	if csEnd := min(w.h.now(), validUntil); csEnd > csStart {
		w.h.add(op{client: w.id, node: w.node, f: "cs", key: key, arg: owner, start: csStart, end: csEnd, result: opOK, value: token})
	}
	if native {
		w.do(ctx, op{f: "release", key: key, arg: owner}, []any{"LOCK.RELEASE", key, owner}, fillString)
	} else {
		w.do(ctx, op{f: "release", key: key, arg: owner}, []any{"EVAL", redsyncRelease, 1, key, owner}, fillString)
	}
	return acq
}

// lostLock records that owner, within its validity, read its lock (seen:
// a GET or LOCK.INFO) as absent or held by another owner.
func lostLock(w *worker, key, owner string, seen op) {
	what := owner + " finds the lock absent"
	switch {
	case seen.f == "info" && !seen.isNil:
		what = owner + " finds the lock held by " + seen.arg
	case !seen.isNil:
		what = owner + " finds the lock held by " + seen.value
	}
	w.h.add(op{client: w.id, node: w.node, f: "lost", key: key, start: seen.start, end: seen.end, result: opOK, err: what})
}

// fillLockInfo reads LOCK.INFO's answer (a map in RESP3, pairs in RESP2):
// the first owner into arg, the token into value.
func fillLockInfo(cmd *redis.Cmd, o *op) {
	fields := map[string]any{}
	switch v := cmd.Val().(type) {
	case map[any]any:
		for k, x := range v {
			fields[fmt.Sprint(k)] = x
		}
	case []any:
		for i := 0; i+1 < len(v); i += 2 {
			fields[fmt.Sprint(v[i])] = v[i+1]
		}
	}
	if owners, ok := fields["owners"].([]any); ok && len(owners) > 0 {
		o.arg = fmt.Sprint(owners[0])
	}
	o.value = fmt.Sprint(fields["token"])
}

// runWorkload runs wl with workers clients of kind against c for d while
// nm runs its faults (seeded by seed), heals everything, waits for a
// leader and returns the findings, each with the seed.
func runWorkload(c *jepsenCluster, wl workload, kind clientKind, workers int, d time.Duration, nm nemesis, seed int64) []string {
	t := c.t
	quietClientLogs()
	h := newHistory()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	admin := c.newClient(kind, 0)
	defer admin.Close()
	if wl.setup != nil {
		sctx, scancel := context.WithTimeout(ctx, 30*time.Second)
		err := retry(sctx, func() error { return wl.setup(sctx, admin) })
		scancel()
		if err != nil {
			t.Fatalf("%s setup: %v", wl.name, err)
		}
	}
	wctx, wcancel := context.WithTimeout(ctx, d)
	defer wcancel()
	var wg sync.WaitGroup
	for i := 0; i < workers; i++ {
		w := &worker{id: i, rdb: c.newClient(kind, i), h: h, rng: rand.New(rand.NewSource(seed + int64(i) + 1))}
		if kind == plainClient {
			w.node = c.nodes[i%len(c.nodes)].addr()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer w.rdb.Close()
			wl.worker(wctx, w)
		}()
	}
	var nemesisErrs []error
	nemesisDone := make(chan struct{})
	go func() {
		nemesisErrs = nm.run(c, h, seed, wctx.Done())
		close(nemesisDone)
	}()
	wg.Wait()
	<-nemesisDone
	for _, err := range nemesisErrs {
		t.Errorf("nemesis (seed %d): %v", seed, err)
	}
	if len(c.nodes) > 1 {
		if _, err := c.waitLeader(30 * time.Second); err != nil {
			t.Errorf("after the faults (seed %d): %v", seed, err)
		}
	}
	ops := h.all()
	counts := map[string]int{}
	for _, o := range ops {
		counts[o.f+":"+o.result.String()]++
	}
	t.Logf("%s/%s seed %d: %d operations %v", wl.name, kind, seed, len(ops), counts)
	findings := wl.finish(ctx, admin, ops)
	for i := range findings {
		findings[i] = fmt.Sprintf("%s/%s seed %d: %s", wl.name, kind, seed, findings[i])
	}
	return findings
}

// retry runs f until it succeeds or ctx ends.
func retry(ctx context.Context, f func() error) error {
	for {
		err := f()
		if err == nil || ctx.Err() != nil {
			return err
		}
		time.Sleep(200 * time.Millisecond)
	}
}
