// Command loops measures what the network loop costs per request: several
// servers on the same machine, in the same run, taking turns on the same
// loads, with the server CPU each spends per operation (from
// /proc/PID/stat) and, with -perf, the syscalls and context switches each
// makes per operation (perf stat on the server's process during one more
// run). netloop.sh starts the servers: redis-server, lockredis with
// GOMAXPROCS 1 and 2, and the +OK floors of compat_test/bench/floor on
// redcon's goroutine-per-connection loop and on gnet's event loops.
//
//	compat_test/bench/netloop.sh
//	loops -server redis=127.0.0.1:6379=PID -server lockredis=127.0.0.1:7000=PID -load set,setP16 -turns 5
//
// Ratios are to the first server. It exits non-zero when a load fails.
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
	"syscall"
	"time"

	"github.com/lockredis/lockredis/compat_test/bench/serverstat"
	"github.com/redis/go-redis/v9"
)

type server struct {
	name, addr string
	pid        int
	c          *redis.Client
}

type result struct {
	opsPerSec float64
	cpuPerOp  time.Duration
}

const releaseScript = `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) else return 0 end`

// load runs n operations on s; ops is how many it did (a cycle is two).
type load struct {
	name string
	run  func(s *server, n int) (ops int, elapsed time.Duration, err error)
}

var loads = map[string]load{
	"set":    {"SET NX PX, c50", bench("-c", "50", "-r", "100000", "SET", "lock:__rand_int__", "tok", "NX", "PX", "30000")},
	"setP16": {"SET NX PX, c50 -P16", bench("-c", "50", "-P", "16", "-r", "100000", "SET", "lock:__rand_int__", "tok", "NX", "PX", "30000")},
	"cycles": {"acquire+release, 64 clients, own keys", cycles(64)},
}

// perfEvents are counted per operation with -perf.
var perfEvents = []struct{ event, filter, label string }{
	{"raw_syscalls:sys_enter", "", "syscalls"},
	{"syscalls:sys_enter_read", "", "read"},
	{"syscalls:sys_exit_read", "ret < 0", "read EAGAIN"},
	{"syscalls:sys_enter_write", "", "write"},
	{"syscalls:sys_enter_epoll_wait", "", "epoll_wait"},
	{"syscalls:sys_enter_epoll_pwait", "", "epoll_pwait"},
	{"syscalls:sys_enter_futex", "", "futex"},
	{"syscalls:sys_enter_nanosleep", "", "nanosleep"},
	{"syscalls:sys_enter_sched_yield", "", "sched_yield"},
	{"syscalls:sys_enter_recvfrom", "", "recvfrom"},
	{"context-switches", "", "ctx switches"},
}

type serverList []*server

func (l *serverList) String() string { return "" }
func (l *serverList) Set(v string) error {
	// From the right: a name may hold '=' (GOMAXPROCS=1).
	f := strings.Split(v, "=")
	if len(f) < 3 {
		return errors.New("want name=host:port=pid")
	}
	pid, err := strconv.Atoi(f[len(f)-1])
	if err != nil {
		return err
	}
	*l = append(*l, &server{name: strings.Join(f[:len(f)-2], "="), addr: f[len(f)-2], pid: pid})
	return nil
}

func main() {
	var servers serverList
	flag.Var(&servers, "server", "name=host:port=pid, repeated; the first is the reference")
	names := flag.String("load", "set,setP16", "loads: "+strings.Join(loadNames(), ","))
	n := flag.Int("n", 200000, "operations per run (-P16 runs 4 times as many)")
	turns := flag.Int("turns", 5, "turns; the servers take turns in each, the first in a turn rotating")
	withPerf := flag.Bool("perf", false, "then one run per server and load under perf stat: syscalls per operation")
	flag.Parse()
	if len(servers) == 0 {
		flag.Usage()
		os.Exit(2)
	}
	for _, s := range servers {
		s.c = redis.NewClient(&redis.Options{Addr: s.addr, Protocol: 2, PoolSize: 128, DisableIdentity: true})
	}
	failed := false
	for _, ln := range strings.Split(*names, ",") {
		l, ok := loads[ln]
		if !ok {
			fmt.Fprintf(os.Stderr, "unknown load %q\n", ln)
			os.Exit(2)
		}
		count := *n
		if ln == "setP16" {
			count *= 4
		}
		res := make([][]result, len(servers))
		for t := 0; t < *turns; t++ {
			for j := range servers {
				i := (t + j) % len(servers)
				r, err := measure(servers[i], l, count)
				if err != nil {
					fmt.Fprintf(os.Stderr, "%s on %s: %v\n", l.name, servers[i].name, err)
					failed = true
					continue
				}
				res[i] = append(res[i], r)
			}
		}
		fmt.Printf("\n%s, %d turns, medians (ratio to %s)\n\n", l.name, *turns, servers[0].name)
		fmt.Printf("| server | ops/s | ratio | CPU µs/op | ratio | turns ops/s |\n| --- | --- | --- | --- | --- | --- |\n")
		ref := median(res[0])
		for i, s := range servers {
			m := median(res[i])
			var each []string
			for _, r := range res[i] {
				each = append(each, strconv.Itoa(int(r.opsPerSec)))
			}
			fmt.Printf("| %s | %.0f | %.2f | %.2f | %.2f | %s |\n", s.name, m.opsPerSec, m.opsPerSec/ref.opsPerSec,
				us(m.cpuPerOp), float64(m.cpuPerOp)/float64(ref.cpuPerOp), strings.Join(each, " "))
		}
		if *withPerf {
			fmt.Printf("\nper operation, one run each under perf stat (which slows every syscall):\n\n| server |")
			for _, e := range perfEvents {
				fmt.Printf(" %s |", e.label)
			}
			fmt.Printf(" voluntary / involuntary switches |\n|%s\n", strings.Repeat(" --- |", len(perfEvents)+2))
			for _, s := range servers {
				row, err := perfRun(s, l, count)
				if err != nil {
					fmt.Fprintf(os.Stderr, "perf on %s: %v\n", s.name, err)
					failed = true
					continue
				}
				fmt.Printf("| %s | %s |\n", s.name, row)
			}
		}
	}
	if failed {
		os.Exit(1)
	}
}

func loadNames() []string {
	var ns []string
	for n := range loads {
		ns = append(ns, n)
	}
	sort.Strings(ns)
	return ns
}

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

func measure(s *server, l load, n int) (result, error) {
	s.c.FlushAll(context.Background())
	before := serverstat.CPUTime(s.pid)
	ops, elapsed, err := l.run(s, n)
	cpu := serverstat.CPUTime(s.pid) - before
	if err != nil {
		return result{}, err
	}
	return result{opsPerSec: float64(ops) / elapsed.Seconds(), cpuPerOp: cpu / time.Duration(ops)}, nil
}

// perfRun runs l once on s with perf stat counting perfEvents in the
// server's process, and the context switches of its threads from /proc.
func perfRun(s *server, l load, n int) (string, error) {
	s.c.FlushAll(context.Background())
	out, err := os.CreateTemp("", "loops-perf")
	if err != nil {
		return "", err
	}
	defer os.Remove(out.Name())
	out.Close()
	args := []string{"stat", "-x", ",", "-o", out.Name(), "-p", strconv.Itoa(s.pid)}
	for _, e := range perfEvents {
		args = append(args, "-e", e.event)
		if e.filter != "" {
			args = append(args, "--filter", e.filter)
		}
	}
	cmd := exec.Command("perf", args...)
	if err := cmd.Start(); err != nil {
		return "", err
	}
	time.Sleep(300 * time.Millisecond) // perf attaches
	vol0, invol0 := switches(s.pid)
	ops, _, err := l.run(s, n)
	vol1, invol1 := switches(s.pid)
	cmd.Process.Signal(syscall.SIGINT)
	cmd.Wait()
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile(out.Name())
	if err != nil {
		return "", err
	}
	counts := map[string]float64{}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Split(line, ",")
		if len(f) < 3 {
			continue
		}
		if v, err := strconv.ParseFloat(f[0], 64); err == nil {
			counts[f[2]] += v
		}
	}
	var cells []string
	for _, e := range perfEvents {
		cells = append(cells, fmt.Sprintf("%.3f", counts[e.event]/float64(ops)))
	}
	cells = append(cells, fmt.Sprintf("%.3f / %.3f", float64(vol1-vol0)/float64(ops), float64(invol1-invol0)/float64(ops)))
	return strings.Join(cells, " | "), nil
}

// switches sums the voluntary and involuntary context switches of the
// process's threads.
func switches(pid int) (vol, invol int64) {
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	tasks, _ := os.ReadDir(dir)
	for _, t := range tasks {
		b, _ := os.ReadFile(dir + "/" + t.Name() + "/status")
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "voluntary_ctxt_switches:"); ok {
				n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				vol += n
			} else if v, ok := strings.CutPrefix(line, "nonvoluntary_ctxt_switches:"); ok {
				n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				invol += n
			}
		}
	}
	return vol, invol
}

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
		opsPerSec: pick(func(r result) float64 { return r.opsPerSec }),
		cpuPerOp:  time.Duration(pick(func(r result) float64 { return float64(r.cpuPerOp) })),
	}
}

// bench runs redis-benchmark -n n with args.
func bench(args ...string) func(s *server, n int) (int, time.Duration, error) {
	return func(s *server, n int) (int, time.Duration, error) {
		host, port, _ := strings.Cut(s.addr, ":")
		full := append([]string{"-h", host, "-p", port, "--csv", "-n", strconv.Itoa(n)}, args...)
		out, err := exec.Command("redis-benchmark", full...).Output()
		if err != nil {
			return 0, 0, fmt.Errorf("redis-benchmark: %v", err)
		}
		rows, err := csv.NewReader(strings.NewReader(string(out))).ReadAll()
		if err != nil || len(rows) < 2 || len(rows[1]) < 2 {
			return 0, 0, fmt.Errorf("redis-benchmark output %q", out)
		}
		rps, _ := strconv.ParseFloat(rows[1][1], 64)
		if rps <= 0 {
			return 0, 0, fmt.Errorf("redis-benchmark output %q", out)
		}
		return n, time.Duration(float64(n) / rps * float64(time.Second)), nil
	}
}

// cycles: clients goroutines each acquire (SET NX PX) and release (the
// compare-and-delete script) a lock of their own, n operations in all (a
// cycle is two), as compat_test/bench/suite's cycles load.
func cycles(clients int) func(s *server, n int) (int, time.Duration, error) {
	return func(s *server, n int) (int, time.Duration, error) {
		ctx := context.Background()
		release := redis.NewScript(releaseScript)
		if err := release.Load(ctx, s.c).Err(); err != nil {
			return 0, 0, err
		}
		total := int64(n / 2)
		var done atomic.Int64
		var firstErr atomic.Value
		start := time.Now()
		var wg sync.WaitGroup
		for w := 0; w < clients; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				key := "lock:cycle:" + strconv.Itoa(w)
				for done.Add(1) <= total {
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
		if err, _ := firstErr.Load().(error); err != nil {
			return 0, 0, err
		}
		return int(2 * total), elapsed, nil
	}
}
