// Command lockwait measures contention for ONE lock: CLIENTS clients loop
// acquire, a critical section of about 0.1 ms, release, for DURATION, in
// three ways:
//
//   - queue:  lockredis's LOCK.ACQUIRE key owner ttl WAIT ms; the server
//     hands the lock to the next waiter when it is released;
//   - setnx:  SET key owner NX PX ttl, and on failure a 10 ms jittered
//     sleep (5-15 ms) before retrying, as redsync and redis-py do (with
//     their own delays); released by a compare-and-delete script;
//   - setnx1: the same with a 1 ms jittered sleep (0.5-1.5 ms): a client
//     tuned for latency, which pays for it in attempts;
//   - pubsub: Redisson's way: a Lua acquire, and on failure wait for an
//     unlock message on the lock's channel (or the lock's TTL) and retry;
//     the release script deletes the key and PUBLISHes.
//
// lockwait.sh starts redis-server and lockredis on loopback and runs this
// with both; the modes take turns ROUNDS times and the median round of
// each is reported: acquisitions/s, p50/p99 wait (acquire call to grant),
// server CPU per acquisition (utime+stime of the server's /proc/PID/stat),
// and wake-ups per release (for queue: grants from INFO locks, 1 each;
// setnx: acquire attempts; pubsub: unlock messages delivered).
//
// -base names a second lockredis (another build, e.g. main's, started by
// lockwait.sh from BASE_BIN): it runs the queue and the SET NX loops too,
// taking turns with the others, so a change is measured against the
// binary before it in the same run.
//
// That is the "mutex" workload; kinds.go has "rw" (readers/writer) and
// "sem" (a semaphore), run after it in the same process (-workloads).
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lockredis/lockredis/compat_test/bench/serverstat"
	"github.com/redis/go-redis/v9"
)

const (
	key     = "bench:lock"
	channel = "redisson_lock__channel:{bench:lock}"
	ttlMs   = 10000
)

var releaseScript = redis.NewScript(`if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0`)

// Redisson-style: acquire returns nil when granted, else the PTTL; unlock
// deletes and publishes.
var (
	rAcquire = redis.NewScript(`if redis.call('set', KEYS[1], ARGV[1], 'nx', 'px', ARGV[2]) then return nil end
return redis.call('pttl', KEYS[1])`)
	rUnlock = redis.NewScript(`if redis.call('get', KEYS[1]) == ARGV[1] then redis.call('del', KEYS[1]); redis.call('publish', KEYS[2], 0); return 1 end return 0`)
)

type server struct {
	name string
	addr string
	pid  int
}

type result struct {
	mode, server string
	acqs         int64
	perSec       float64
	p50, p99     time.Duration
	cpuPerAcq    time.Duration
	wakePerRel   float64
}

func main() {
	lockAddr := flag.String("lockredis", "", "lockredis address")
	lockPid := flag.Int("lockredis-pid", 0, "lockredis pid (CPU)")
	redisAddr := flag.String("redis", "", "redis-server address")
	redisPid := flag.Int("redis-pid", 0, "redis-server pid (CPU)")
	clients := flag.Int("clients", 64, "contending clients")
	dur := flag.Duration("duration", 3*time.Second, "length of one round")
	rounds := flag.Int("rounds", 3, "rounds; the median is reported")
	cs := flag.Duration("cs", 100*time.Microsecond, "critical section")
	workloads := flag.String("workloads", "mutex,rw,sem", "what to run: mutex (this file), rw and sem (kinds.go)")
	kindClients := flag.Int("kind-clients", 64, "rw and sem: clients")
	hold := flag.Duration("hold", time.Millisecond, "rw and sem: how long each grant is held")
	permits := flag.Int("permits", 4, "sem: permits")
	baseAddr := flag.String("base", "", "a second lockredis (another build) to compare in the same run")
	basePid := flag.Int("base-pid", 0, "its pid (CPU)")
	modes := flag.String("modes", "queue,setnx,setnx1,pubsub", "mutex: the methods to run")
	only := flag.String("only", "", `rw and sem: run only this method on this server, e.g. "queue lockredis" (to profile it)`)
	flag.Parse()
	lr := server{"lockredis", *lockAddr, *lockPid}
	rs := server{"redis-server", *redisAddr, *redisPid}
	kp := kindParams{clients: *kindClients, dur: *dur, hold: *hold, permits: *permits, only: *only}
	for _, w := range strings.Split(*workloads, ",") {
		switch w {
		case "mutex":
			var base *server
			if *baseAddr != "" {
				base = &server{"lockredis-base", *baseAddr, *basePid}
			}
			runMutex(lr, rs, base, strings.Split(*modes, ","), *clients, *dur, *cs, *rounds)
		case "rw", "sem":
			runKinds(w, lr, rs, kp, *rounds)
		default:
			log.Fatalf("unknown workload %q", w)
		}
	}
}

// runMutex is contention for one exclusive lock.
func runMutex(lr, rs server, base *server, modes []string, clients int, dur, cs time.Duration, rounds int) {
	type run struct {
		mode string
		srv  server
	}
	want := map[string]bool{}
	for _, m := range modes {
		want[m] = true
	}
	var runs []run
	for _, rn := range []run{{"queue", lr}, {"setnx", rs}, {"setnx1", rs}, {"pubsub", rs}, {"setnx", lr}, {"setnx1", lr}, {"pubsub", lr}} {
		if !want[rn.mode] {
			continue
		}
		runs = append(runs, rn)
		if base != nil && rn.srv.name == lr.name && rn.mode != "pubsub" {
			runs = append(runs, run{rn.mode, *base}) // right after: the same load
		}
	}
	all := map[string][]result{}
	for r := 0; r < rounds; r++ {
		for _, rn := range runs {
			res := measure(rn.mode, rn.srv, clients, dur, cs)
			fmt.Fprintf(os.Stderr, "round %d: %s\n", r+1, res.line())
			id := rn.mode + " " + rn.srv.name
			all[id] = append(all[id], res)
		}
	}
	fmt.Printf("%d clients, one key, critical section %v, %d rounds of %v, medians:\n\n", clients, cs, rounds, dur)
	fmt.Println("| method | server | acquisitions/s | p50 wait | p99 wait | server CPU / acquisition | wake-ups / release |")
	fmt.Println("|---|---|---:|---:|---:|---:|---:|")
	for _, rn := range runs {
		m := median(all[rn.mode+" "+rn.srv.name])
		fmt.Printf("| %s | %s | %.0f | %s | %s | %s | %.2f |\n", describe(rn.mode), m.server, m.perSec,
			ms(m.p50), ms(m.p99), us(m.cpuPerAcq), m.wakePerRel)
	}
	fmt.Println()
	// Ratios per round (the methods of one round ran back to back under
	// the same load), then their median.
	ratio := func(a, b string) {
		ra, rb := all[a], all[b]
		if len(ra) == 0 || len(rb) == 0 {
			return
		}
		var cpu, p99, rate []float64
		for i := range min(len(ra), len(rb)) {
			cpu = append(cpu, float64(ra[i].cpuPerAcq)/float64(rb[i].cpuPerAcq))
			p99 = append(p99, float64(ra[i].p99)/float64(rb[i].p99))
			rate = append(rate, ra[i].perSec/rb[i].perSec)
		}
		fmt.Printf("%s vs %s: CPU/acquisition %.2fx, p99 wait %.2fx, acquisitions/s %.2fx (medians of per-round ratios)\n",
			a, b, medianF(cpu), medianF(p99), medianF(rate))
	}
	ratio("queue lockredis", "setnx1 redis-server")
	ratio("queue lockredis", "setnx redis-server")
	ratio("setnx1 lockredis", "setnx1 redis-server")
	ratio("setnx lockredis", "setnx redis-server")
	ratio("queue lockredis", "setnx1 lockredis")
	if base != nil {
		ratio("queue lockredis-base", "setnx1 redis-server")
		ratio("queue lockredis-base", "setnx redis-server")
		ratio("queue lockredis", "queue lockredis-base")
		ratio("setnx1 lockredis", "setnx1 lockredis-base")
	}
}

func medianF(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[len(s)/2]
}

func describe(mode string) string {
	switch mode {
	case "queue":
		return "LOCK.ACQUIRE ... WAIT"
	case "setnx":
		return "SET NX + 10 ms jittered retry"
	case "setnx1":
		return "SET NX + 1 ms jittered retry"
	}
	return "Lua + SUBSCRIBE/PUBLISH (Redisson-style)"
}

func ms(d time.Duration) string { return strconv.FormatFloat(float64(d)/1e6, 'f', 2, 64) + " ms" }
func us(d time.Duration) string { return strconv.FormatFloat(float64(d)/1e3, 'f', 1, 64) + " µs" }

func (r result) line() string {
	return fmt.Sprintf("%-6s %-12s %8.0f acq/s p50 %s p99 %s cpu/acq %s wake/release %.2f acqs %d",
		r.mode, r.server, r.perSec, ms(r.p50), ms(r.p99), us(r.cpuPerAcq), r.wakePerRel, r.acqs)
}

// median picks the round with the median acquisitions/s.
func median(rs []result) result {
	s := append([]result(nil), rs...)
	sort.Slice(s, func(i, j int) bool { return s[i].perSec < s[j].perSec })
	return s[len(s)/2]
}

func infoInt(c *redis.Client, section, field string) int64 {
	s, _ := c.Info(context.Background(), section).Result()
	for _, line := range strings.Split(s, "\r\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	return 0
}

// criticalSection spins for d: time.Sleep rounds sub-millisecond sleeps
// up to about a millisecond, which would make the lock's hold time, not
// the hand-over, the limit. Only the holder spins.
func criticalSection(d time.Duration) {
	for end := time.Now().Add(d); time.Now().Before(end); {
	}
}

func measure(mode string, srv server, n int, dur, cs time.Duration) result {
	ctx := context.Background()
	admin := redis.NewClient(&redis.Options{Addr: srv.addr})
	defer admin.Close()
	admin.Del(ctx, key)
	var (
		acqs, attempts, msgs atomic.Int64
		mu                   sync.Mutex
		waits                []time.Duration
		wg                   sync.WaitGroup
	)
	grants0 := infoInt(admin, "locks", "queue_grants")
	stop := time.Now().Add(dur)
	cpu0 := serverstat.CPUTime(srv.pid)
	start := time.Now()
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := redis.NewClient(&redis.Options{Addr: srv.addr, PoolSize: 1, ReadTimeout: 30 * time.Second})
			defer c.Close()
			owner := "client-" + strconv.Itoa(i)
			var sub *redis.PubSub
			if mode == "pubsub" {
				sub = c.Subscribe(ctx, channel)
				defer sub.Close()
				if _, err := sub.Receive(ctx); err != nil {
					log.Fatal(err)
				}
			}
			var local []time.Duration
			for time.Now().Before(stop) {
				t0 := time.Now()
				switch mode {
				case "queue":
					attempts.Add(1)
					if err := c.Do(ctx, "LOCK.ACQUIRE", key, owner, ttlMs, "WAIT", 20000).Err(); err != nil {
						log.Fatal(err)
					}
				case "setnx", "setnx1":
					for {
						attempts.Add(1)
						ok, err := c.SetNX(ctx, key, owner, ttlMs*time.Millisecond).Result()
						if err != nil {
							log.Fatal(err)
						}
						if ok {
							break
						}
						if mode == "setnx1" {
							time.Sleep(500*time.Microsecond + rand.N(time.Millisecond))
						} else {
							time.Sleep(5*time.Millisecond + rand.N(10*time.Millisecond))
						}
					}
				case "pubsub":
					for {
						attempts.Add(1)
						pttl, err := rAcquire.Run(ctx, c, []string{key}, owner, ttlMs).Int64()
						if err == redis.Nil {
							break
						}
						if err != nil {
							log.Fatal(err)
						}
						select {
						case <-sub.Channel():
							msgs.Add(1)
						case <-time.After(time.Duration(pttl) * time.Millisecond):
						}
					}
				}
				local = append(local, time.Since(t0))
				acqs.Add(1)
				criticalSection(cs)
				var err error
				switch mode {
				case "queue":
					err = c.Do(ctx, "LOCK.RELEASE", key, owner).Err()
				case "setnx", "setnx1":
					err = releaseScript.Run(ctx, c, []string{key}, owner).Err()
				case "pubsub":
					err = rUnlock.Run(ctx, c, []string{key, channel}, owner).Err()
				}
				if err != nil {
					log.Fatal(err)
				}
			}
			mu.Lock()
			waits = append(waits, local...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	cpu := serverstat.CPUTime(srv.pid) - cpu0
	sort.Slice(waits, func(i, j int) bool { return waits[i] < waits[j] })
	q := func(p float64) time.Duration {
		if len(waits) == 0 {
			return 0
		}
		return waits[min(len(waits)-1, int(p*float64(len(waits))))]
	}
	res := result{mode: mode, server: srv.name, acqs: acqs.Load(), perSec: float64(acqs.Load()) / elapsed.Seconds(),
		p50: q(0.50), p99: q(0.99)}
	if res.acqs > 0 {
		res.cpuPerAcq = cpu / time.Duration(res.acqs)
		switch mode {
		case "queue":
			res.wakePerRel = float64(infoInt(admin, "locks", "queue_grants")-grants0) / float64(res.acqs)
		case "setnx", "setnx1":
			res.wakePerRel = float64(attempts.Load()) / float64(res.acqs)
		case "pubsub":
			res.wakePerRel = float64(msgs.Load()) / float64(res.acqs)
		}
	}
	return res
}
