// Command mem measures what one held lock costs in memory, lockredis beside
// redis-server in the same run, counting what the OS sees: the growth of
// the server's resident set (VmRSS) over loading the locks, garbage and
// allocator slack included, next to the growth of what the server says it
// holds after MEMORY PURGE (redis-server's used_memory, lockredis's live
// Go heap). It also reports the server CPU the load took. Two layouts:
//
//	string  SET lock:N owner-N%1000 NX PX 300000 (redsync, the Redis docs)
//	hash    HINCRBY lock:h:N <uuid>:N%64 1 + PEXPIRE lock:h:N 300000 (Redisson)
//
// Each server should be fresh (RSS never shrinks back by much):
// compat_test/bench/mem.sh starts a new pair per layout.
//
// With -profile FILE it instead runs a lockredis server in this process,
// loads the locks into it, collects the garbage and writes a heap profile
// (inuse_space, every allocation sampled) to FILE: where the bytes of a
// lock go (go tool pprof -sample_index=inuse_space -top FILE).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/lockredis/lockredis"
	"github.com/lockredis/lockredis/compat_test/bench/serverstat"
	"github.com/redis/go-redis/v9"
)

func main() {
	redisAddr := flag.String("redis", "", "redis-server address")
	redisPid := flag.Int("redis-pid", 0, "redis-server process id")
	lockAddr := flag.String("lock", "", "lockredis address")
	lockPid := flag.Int("lock-pid", 0, "lockredis process id")
	layout := flag.String("layout", "string", "string (SET NX PX) or hash (Redisson HINCRBY + PEXPIRE)")
	keys := flag.Int("keys", 1000000, "locks to load")
	profile := flag.String("profile", "", "load an in-process lockredis and write its heap profile here")
	flag.Parse()
	load := loadStringLocks
	if *layout == "hash" {
		load = loadHashLocks
	} else if *layout != "string" {
		fmt.Fprintln(os.Stderr, "mem: -layout is string or hash")
		os.Exit(2)
	}
	if *profile != "" {
		if err := writeProfile(*profile, *keys, load); err != nil {
			fmt.Fprintln(os.Stderr, "mem:", err)
			os.Exit(1)
		}
		return
	}
	if *redisAddr == "" || *lockAddr == "" || *redisPid == 0 || *lockPid == 0 {
		flag.Usage()
		os.Exit(2)
	}
	var res [2]result
	for i, s := range []struct {
		addr string
		pid  int
	}{{*redisAddr, *redisPid}, {*lockAddr, *lockPid}} {
		c := redis.NewClient(&redis.Options{Addr: s.addr, Protocol: 2, DisableIdentity: true})
		r, err := measure(c, s.pid, *keys, load)
		c.Close()
		if err != nil {
			fmt.Fprintln(os.Stderr, "mem:", err)
			os.Exit(1)
		}
		res[i] = r
	}
	r, l := res[0], res[1]
	fmt.Printf("%s locks (%d): RSS per lock redis-server %.0f B, lockredis %.0f B, ratio %.2f; "+
		"held (after MEMORY PURGE) %.0f B / %.0f B, ratio %.2f; load CPU %v / %v\n",
		*layout, *keys, r.rss, l.rss, l.rss/r.rss, r.held, l.held, l.held/r.held,
		r.cpu.Round(time.Millisecond), l.cpu.Round(time.Millisecond))
}

type result struct {
	rss, held float64 // bytes per lock
	cpu       time.Duration
}

// measure loads the locks into one server and reports its growth.
func measure(c *redis.Client, pid, keys int, load func(c *redis.Client, count int) error) (result, error) {
	ctx := context.Background()
	heldBefore := serverstat.HeldMemory(c)
	rssBefore, err := rss(pid)
	if err != nil {
		return result{}, err
	}
	cpuBefore := serverstat.CPUTime(pid)
	if err := load(c, keys); err != nil {
		return result{}, err
	}
	// What the OS sees right after the load, garbage included.
	rssAfter, err := rss(pid)
	if err != nil {
		return result{}, err
	}
	cpu := serverstat.CPUTime(pid) - cpuBefore
	n, err := c.DBSize(ctx).Result()
	if err != nil || n == 0 {
		return result{}, fmt.Errorf("DBSIZE %d %v", n, err)
	}
	heldAfter := serverstat.HeldMemory(c)
	return result{
		rss:  float64(rssAfter-rssBefore) / float64(n),
		held: float64(heldAfter-heldBefore) / float64(n),
		cpu:  cpu,
	}, nil
}

// rss is the process's resident set in bytes (/proc/PID/status VmRSS).
func rss(pid int) (int64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb * 1024, err
		}
	}
	return 0, fmt.Errorf("no VmRSS for pid %d", pid)
}

func loadStringLocks(c *redis.Client, count int) error {
	return pipelined(c, count, func(p redis.Pipeliner, i int) {
		p.SetNX(context.Background(), "lock:"+strconv.Itoa(i), "owner-"+strconv.Itoa(i%1000), 5*time.Minute)
	})
}

func loadHashLocks(c *redis.Client, count int) error {
	return pipelined(c, count, func(p redis.Pipeliner, i int) {
		ctx := context.Background()
		key := "lock:h:" + strconv.Itoa(i)
		p.HIncrBy(ctx, key, "8f14e45f-ceea-467f-a0e6-6f7a8e9b1c2d:"+strconv.Itoa(i%64), 1)
		p.PExpire(ctx, key, 5*time.Minute)
	})
}

// pipelined runs add for 0..count-1 in pipelines of 1,000 commands.
func pipelined(c *redis.Client, count int, add func(p redis.Pipeliner, i int)) error {
	ctx := context.Background()
	for start := 0; start < count; start += 1000 {
		p := c.Pipeline()
		for i := start; i < min(start+1000, count); i++ {
			add(p, i)
		}
		if _, err := p.Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}

// writeProfile loads the locks into a lockredis server in this process and
// writes the heap profile of what is live afterwards.
func writeProfile(path string, keys int, load func(c *redis.Client, count int) error) error {
	runtime.MemProfileRate = 1
	srv := lockredis.NewServer(lockredis.Options{Params: map[string]string{"port": "0", "bind": "127.0.0.1", "restart-fence": "off"}})
	if err := srv.Start(); err != nil {
		return err
	}
	defer srv.Close()
	c := redis.NewClient(&redis.Options{Addr: srv.Addr(), Protocol: 2, DisableIdentity: true})
	defer c.Close()
	if err := load(c, keys); err != nil {
		return err
	}
	runtime.GC()
	runtime.GC()
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return pprof.Lookup("heap").WriteTo(f, 0)
}
