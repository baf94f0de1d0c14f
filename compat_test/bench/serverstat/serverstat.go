// Package serverstat holds what the benchmark programs read off a server the
// same way: its process's CPU time and the memory it holds.
package serverstat

import (
	"bufio"
	"context"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// CPUTime is the CPU time process pid has used (user + system), from
// /proc/PID/stat; 0 when it cannot be read.
func CPUTime(pid int) time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// Fields after the command name, which is in parentheses.
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * time.Second / 100 // USER_HZ
}

// HeldMemory is what a server really holds, after MEMORY PURGE (which
// makes lockredis collect its garbage first): redis-server's used_memory
// (its allocator's count), lockredis's used_memory_go_heap (its
// used_memory is an estimate that maxmemory is checked against).
func HeldMemory(c *redis.Client) int64 {
	ctx := context.Background()
	c.Do(ctx, "MEMORY", "PURGE")
	info, _ := c.Info(ctx, "memory").Result()
	fields := map[string]int64{}
	sc := bufio.NewScanner(strings.NewReader(info))
	for sc.Scan() {
		if k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), ":"); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			fields[k] = n
		}
	}
	if n, ok := fields["used_memory_go_heap"]; ok {
		return n
	}
	return fields["used_memory"]
}
