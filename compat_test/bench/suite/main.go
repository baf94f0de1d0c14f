// Command suite measures lockredis beside redis-server on the same machine,
// in the same run: the lock workloads of the cost-per-command issue, each
// run on both servers in alternating rounds, medians reported as ratios
// lockredis / redis-server, with the server CPU each spent per 100,000
// operations (from /proc/PID/stat) and the memory each lock costs; then
// pub/sub fan-out (compat_test/bench/fanout) and a subscriber that never
// reads (compat_test/bench/stall).
//
//	compat_test/bench/run.sh      # builds lockredis and this, starts both servers
//
// It exits non-zero when a workload makes a server reply an error
// (total_error_replies moved) or a client sees one.
package main

import (
	"context"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lockredis/lockredis/compat_test/bench/serverstat"
	"github.com/redis/go-redis/v9"
)

// server is one of the two servers under test.
type server struct {
	name string
	addr string
	pid  int
	c    *redis.Client
}

// result is one workload's numbers on one server in one round.
type result struct {
	opsPerSec  float64
	cpuPer100k time.Duration // server CPU per 100,000 operations
	p99        float64       // milliseconds, when measured
}

const (
	releaseScript = `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) else return 0 end`
	acquireScript = "if ((redis.call('exists', KEYS[1]) == 0) or (redis.call('hexists', KEYS[1], ARGV[2]) == 1)) then redis.call('hincrby', KEYS[1], ARGV[2], 1); redis.call('pexpire', KEYS[1], ARGV[1]); return nil; end; return redis.call('pttl', KEYS[1]);"
)

func main() {
	redisAddr := flag.String("redis", "", "redis-server address")
	redisPid := flag.Int("redis-pid", 0, "redis-server process id (for its CPU time)")
	lockAddr := flag.String("lock", "", "lockredis address")
	lockPid := flag.Int("lock-pid", 0, "lockredis process id")
	n := flag.Int("n", 200000, "requests per redis-benchmark run")
	rounds := flag.Int("rounds", 3, "rounds; the servers take turns in each")
	fanout := flag.String("fanout", "", "the fanout benchmark binary (compat_test/bench/fanout); empty skips pub/sub")
	stall := flag.String("stall", "", "the stalled-subscriber benchmark binary (compat_test/bench/stall); empty skips it")
	stallMB := flag.Int("stall-mb", 300, "megabytes published to the stalled subscriber per run")
	memKeys := flag.Int("mem-keys", 1000000, "locks created to measure memory per SET NX PX lock (a tenth for hash locks)")
	flag.Parse()
	if *redisAddr == "" || *lockAddr == "" || *redisPid == 0 || *lockPid == 0 {
		flag.Usage()
		os.Exit(2)
	}
	servers := []*server{
		{name: "redis-server", addr: *redisAddr, pid: *redisPid},
		{name: "lockredis", addr: *lockAddr, pid: *lockPid},
	}
	for _, s := range servers {
		// No CLIENT SETINFO on connect: redis-server 7.0 answers it with
		// an error, which the workloads count as a failure.
		s.c = redis.NewClient(&redis.Options{Addr: s.addr, Protocol: 2, PoolSize: 128, DisableIdentity: true})
	}
	N := strconv.Itoa(*n)
	workloads := []struct {
		name string
		run  func(s *server) (result, error)
	}{
		{"SET NX PX, c50", bench("-c", "50", "-n", N, "-r", "100000", "SET", "lock:__rand_int__", "tok", "NX", "PX", "30000")},
		{"SET NX PX, c50 -P16", bench("-c", "50", "-P", "16", "-n", N, "-r", "100000", "SET", "lock:__rand_int__", "tok", "NX", "PX", "30000")},
		{"EVALSHA compare-and-delete release", evalsha(releaseScript, "-c", "50", "-n", N, "-r", "100000", "1", "lock:__rand_int__", "tok")},
		{"EVALSHA Redisson reentrant acquire", evalsha(acquireScript, "-c", "50", "-n", N, "-r", "100000", "1", "lock:__rand_int__", "30000", "uuid-1:1")},
		{"acquire+release cycles, 64 clients", cycles(64, *n/2)},
		{"SET NX PX single client (p99)", bench("-c", "1", "-n", strconv.Itoa(*n/4), "-r", "100000", "SET", "lock:__rand_int__", "tok", "NX", "PX", "30000")},
	}
	type cell struct{ results []result }
	table := make([][2]cell, len(workloads))
	failed := false
	for round := 0; round < *rounds; round++ {
		for wi, w := range workloads {
			order := []int{0, 1}
			if (round+wi)%2 == 1 {
				order = []int{1, 0}
			}
			for _, si := range order {
				s := servers[si]
				s.c.FlushAll(context.Background())
				errsBefore := errorReplies(s)
				r, err := w.run(s)
				if err != nil {
					fmt.Fprintf(os.Stderr, "%s on %s: %v\n", w.name, s.name, err)
					failed = true
					continue
				}
				if d := errorReplies(s) - errsBefore; d != 0 {
					fmt.Fprintf(os.Stderr, "%s on %s: %d error replies\n", w.name, s.name, d)
					failed = true
				}
				table[wi][si].results = append(table[wi][si].results, r)
			}
		}
	}
	fmt.Printf("| workload | redis-server ops/s | lockredis ops/s | ratio | CPU/100k ops redis-server | lockredis | ratio | p99 ms redis / lock |\n")
	fmt.Printf("| --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for wi, w := range workloads {
		r, l := median(table[wi][0].results), median(table[wi][1].results)
		p99 := ""
		if r.p99 > 0 {
			p99 = fmt.Sprintf("%.3f / %.3f (%.2fx)", r.p99, l.p99, l.p99/r.p99)
		}
		fmt.Printf("| %s | %.0f | %.0f | %.2f | %s | %s | %.2f | %s |\n", w.name,
			r.opsPerSec, l.opsPerSec, l.opsPerSec/r.opsPerSec,
			ms(r.cpuPer100k), ms(l.cpuPer100k), float64(l.cpuPer100k)/float64(r.cpuPer100k), p99)
	}
	if *fanout != "" {
		out, err := exec.Command(*fanout, "-redis", *redisAddr, "-lock", *lockAddr, "-subs", "100", "-n", "5000",
			"-rounds", strconv.Itoa(*rounds)).CombinedOutput()
		fmt.Printf("\npub/sub 1 -> 100 (compat_test/bench/fanout):\n%s", out)
		if err != nil {
			failed = true
		}
	}
	if *stall != "" {
		cmd := exec.Command(*stall, "-redis", *redisAddr, "-redis-pid", strconv.Itoa(*redisPid),
			"-lock", *lockAddr, "-lock-pid", strconv.Itoa(*lockPid), "-mb", strconv.Itoa(*stallMB), "-rounds", strconv.Itoa(*rounds))
		cmd.Stderr = os.Stderr
		out, err := cmd.Output()
		fmt.Printf("\nA subscriber that never reads (compat_test/bench/stall):\n%s", out)
		if err != nil {
			failed = true
		}
	}
	fmt.Println()
	for _, m := range []struct {
		name  string
		count int
		load  func(s *server, count int) error
	}{
		{"memory per SET NX PX lock", *memKeys, loadStringLocks},
		{"memory per Redisson hash lock", *memKeys / 10, loadHashLocks},
	} {
		var per [2]float64
		for si, s := range servers {
			b, err := bytesPerKey(s, m.count, m.load)
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s on %s: %v\n", m.name, s.name, err)
				failed = true
			}
			per[si] = b
		}
		fmt.Printf("%s (%d locks): redis-server %.0f B, lockredis %.0f B, ratio %.2f\n", m.name, m.count, per[0], per[1], per[1]/per[0])
	}
	if failed {
		os.Exit(1)
	}
}

func ms(d time.Duration) string { return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond)) }

// median takes the result with the median throughput, the median CPU and
// the median p99 separately.
func median(rs []result) result {
	if len(rs) == 0 {
		return result{}
	}
	pick := func(f func(r result) float64) float64 {
		v := make([]float64, len(rs))
		for i, r := range rs {
			v[i] = f(r)
		}
		sort.Float64s(v)
		return v[len(v)/2]
	}
	return result{
		opsPerSec:  pick(func(r result) float64 { return r.opsPerSec }),
		cpuPer100k: time.Duration(pick(func(r result) float64 { return float64(r.cpuPer100k) })),
		p99:        pick(func(r result) float64 { return r.p99 }),
	}
}

func errorReplies(s *server) int64 {
	info, _ := s.c.Info(context.Background(), "stats").Result()
	for _, line := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, "total_error_replies:"); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	return 0
}

// bench runs redis-benchmark with args against a server.
func bench(args ...string) func(s *server) (result, error) {
	return func(s *server) (result, error) { return redisBenchmark(s, args) }
}

// evalsha loads script and benchmarks EVALSHA of it with args (after the
// client options and before the script's numkeys).
func evalsha(script string, args ...string) func(s *server) (result, error) {
	return func(s *server) (result, error) {
		sha, err := s.c.ScriptLoad(context.Background(), script).Result()
		if err != nil {
			return result{}, err
		}
		i := 0
		for i < len(args) && strings.HasPrefix(args[i], "-") {
			i += 2
		}
		full := append(append(append([]string{}, args[:i]...), "EVALSHA", sha), args[i:]...)
		return redisBenchmark(s, full)
	}
}

func redisBenchmark(s *server, args []string) (result, error) {
	host, port, _ := strings.Cut(s.addr, ":")
	cmd := exec.Command("redis-benchmark", append([]string{"-h", host, "-p", port, "--csv"}, args...)...)
	before := serverstat.CPUTime(s.pid)
	out, err := cmd.Output()
	cpu := serverstat.CPUTime(s.pid) - before
	if err != nil {
		return result{}, fmt.Errorf("redis-benchmark: %v", err)
	}
	rows, err := csv.NewReader(strings.NewReader(string(out))).ReadAll()
	if err != nil || len(rows) < 2 || len(rows[1]) < 7 {
		return result{}, fmt.Errorf("redis-benchmark output %q", out)
	}
	rps, _ := strconv.ParseFloat(rows[1][1], 64)
	p99, _ := strconv.ParseFloat(rows[1][6], 64)
	n := requests(args)
	return result{opsPerSec: rps, cpuPer100k: cpu * 100000 / time.Duration(n), p99: p99}, nil
}

func requests(args []string) int {
	for i := 0; i+1 < len(args); i++ {
		if args[i] == "-n" {
			n, _ := strconv.Atoi(args[i+1])
			return n
		}
	}
	return 100000
}

// cycles: clients goroutines each acquire (SET NX PX) and release (the
// compare-and-delete script) a lock of their own, total cycles in all.
func cycles(clients, total int) func(s *server) (result, error) {
	return func(s *server) (result, error) {
		ctx := context.Background()
		release := redis.NewScript(releaseScript)
		if err := release.Load(ctx, s.c).Err(); err != nil {
			return result{}, err
		}
		var done atomic.Int64
		var firstErr atomic.Value
		before := serverstat.CPUTime(s.pid)
		start := time.Now()
		var wg sync.WaitGroup
		for w := 0; w < clients; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				key := "lock:cycle:" + strconv.Itoa(w)
				for done.Add(1) <= int64(total) {
					ok, err := s.c.SetNX(ctx, key, "tok", 30*time.Second).Result()
					if err == nil && !ok {
						err = errors.New("SET NX refused a free lock")
					}
					if err == nil {
						err = release.EvalSha(ctx, s.c, []string{key}, "tok").Err()
					}
					if err != nil {
						firstErr.CompareAndSwap(nil, err)
						return
					}
				}
			}()
		}
		wg.Wait()
		elapsed := time.Since(start)
		cpu := serverstat.CPUTime(s.pid) - before
		if err, _ := firstErr.Load().(error); err != nil {
			return result{}, err
		}
		// A cycle is two operations.
		return result{opsPerSec: float64(total) / elapsed.Seconds(), cpuPer100k: cpu * 100000 / time.Duration(2*total)}, nil
	}
}

// bytesPerKey loads count locks and reports how much the server's used
// memory grew per lock, after asking it to give back what it can.
func bytesPerKey(s *server, count int, load func(s *server, count int) error) (float64, error) {
	ctx := context.Background()
	s.c.FlushAll(ctx)
	before := serverstat.HeldMemory(s.c)
	if err := load(s, count); err != nil {
		return 0, err
	}
	keys, err := s.c.DBSize(ctx).Result()
	if err != nil || keys == 0 {
		return 0, fmt.Errorf("DBSIZE %d %v", keys, err)
	}
	grown := serverstat.HeldMemory(s.c) - before
	s.c.FlushAll(ctx)
	return float64(grown) / float64(keys), nil
}

func loadStringLocks(s *server, count int) error {
	return pipelined(s, count, func(p redis.Pipeliner, i int) {
		p.SetNX(context.Background(), "lock:"+strconv.Itoa(i), "owner-"+strconv.Itoa(i%1000), 5*time.Minute)
	})
}

func loadHashLocks(s *server, count int) error {
	return pipelined(s, count, func(p redis.Pipeliner, i int) {
		ctx := context.Background()
		key := "lock:h:" + strconv.Itoa(i)
		p.HIncrBy(ctx, key, "8f14e45f-ceea-467f-a0e6-6f7a8e9b1c2d:"+strconv.Itoa(i%64), 1)
		p.PExpire(ctx, key, 5*time.Minute)
	})
}

// pipelined runs add for 0..count-1 in pipelines of 1,000 commands.
func pipelined(s *server, count int, add func(p redis.Pipeliner, i int)) error {
	ctx := context.Background()
	for start := 0; start < count; start += 1000 {
		p := s.c.Pipeline()
		for i := start; i < min(start+1000, count); i++ {
			add(p, i)
		}
		if _, err := p.Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}
