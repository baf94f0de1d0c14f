// Command fanout measures pub/sub fan-out: one publisher, many subscribers
// on one channel, N messages of a small payload, against redis-server and
// lockredis on this machine in the same run. It prints publishes per
// second, messages delivered per second and the ratio lockredis /
// redis-server. compat_test/bench/fanout.sh starts both servers and runs it.
//
// Every subscriber checks every message it gets: the payload carries the
// message's sequence number, so a lost, duplicated, reordered or torn
// frame fails the run.
package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"sort"
	"strconv"
	"sync"
	"time"
)

const channel = "bench:fanout"

type config struct {
	subs, n, size, pipeline int
}

type result struct {
	publishes, delivered float64 // per second
	bad                  int     // subscribers that got a wrong frame
	firstBad             error
}

func main() {
	redisAddr := flag.String("redis", "", "redis-server address (host:port)")
	lockAddr := flag.String("lock", "", "lockredis address (host:port)")
	var cfg config
	flag.IntVar(&cfg.subs, "subs", 100, "subscribers on the channel")
	flag.IntVar(&cfg.n, "n", 5000, "messages published per round")
	flag.IntVar(&cfg.size, "size", 16, "payload size in bytes (at least 10)")
	flag.IntVar(&cfg.pipeline, "P", 1, "PUBLISH commands in flight (pipeline depth)")
	var rounds int
	flag.IntVar(&rounds, "rounds", 3, "runs per server, taking turns; the median is reported")
	flag.Parse()
	if *redisAddr == "" || *lockAddr == "" || cfg.size < 10 || cfg.pipeline < 1 || cfg.n < 1 || cfg.subs < 1 || rounds < 1 {
		flag.Usage()
		os.Exit(2)
	}
	// The servers take turns, rounds times, and each one's median round
	// counts: a busy moment on a small machine then skews neither.
	var rs, ls []result
	for i := 0; i < rounds; i++ {
		r, err := run(*redisAddr, cfg)
		if err != nil {
			fmt.Fprintln(os.Stderr, "fanout: redis-server:", err)
			os.Exit(1)
		}
		l, err := run(*lockAddr, cfg)
		if err != nil {
			fmt.Fprintln(os.Stderr, "fanout: lockredis:", err)
			os.Exit(1)
		}
		rs, ls = append(rs, r), append(ls, l)
	}
	r, l := median(rs), median(ls)
	fmt.Printf("fan-out: 1 publisher, %d subscribers, %d messages of %d bytes, pipeline %d, median of %d rounds\n",
		cfg.subs, cfg.n, cfg.size, cfg.pipeline, rounds)
	fmt.Printf("%-22s %14s %14s %8s\n", "", "redis-server", "lockredis", "ratio")
	fmt.Printf("%-22s %14.0f %14.0f %8.2f\n", "publishes/s", r.publishes, l.publishes, l.publishes/r.publishes)
	fmt.Printf("%-22s %14.0f %14.0f %8.2f\n", "messages delivered/s", r.delivered, l.delivered, l.delivered/r.delivered)
	status := 0
	for _, s := range []struct {
		name string
		res  result
	}{{"redis-server", r}, {"lockredis", l}} {
		if s.res.bad > 0 {
			fmt.Printf("WRONG FRAMES: %s: %d of %d subscribers got a lost, reordered or torn message; first: %v\n",
				s.name, s.res.bad, cfg.subs, s.res.firstBad)
			status = 1
		}
	}
	os.Exit(status)
}

// median is the round with the median delivery rate; wrong frames of any
// round are kept.
func median(rs []result) result {
	sorted := append([]result(nil), rs...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].delivered < sorted[j].delivered })
	m := sorted[len(sorted)/2]
	m.bad, m.firstBad = 0, nil
	for _, r := range rs {
		if r.bad > m.bad {
			m.bad, m.firstBad = r.bad, r.firstBad
		}
	}
	return m
}

// payload writes message i's payload: its number in decimal, zero padded.
func payload(b []byte, i int) {
	for j := len(b) - 1; j >= 0; j-- {
		b[j] = byte('0' + i%10)
		i /= 10
	}
}

func command(args ...string) []byte {
	var b []byte
	b = fmt.Appendf(b, "*%d\r\n", len(args))
	for _, a := range args {
		b = fmt.Appendf(b, "$%d\r\n%s\r\n", len(a), a)
	}
	return b
}

func run(addr string, cfg config) (result, error) {
	prefix := []byte(fmt.Sprintf("*3\r\n$7\r\nmessage\r\n$%d\r\n%s\r\n$%d\r\n", len(channel), channel, cfg.size))
	frameLen := len(prefix) + cfg.size + 2

	// Subscribe everyone first.
	subs := make([]net.Conn, cfg.subs)
	defer func() {
		for _, c := range subs {
			if c != nil {
				c.Close()
			}
		}
	}()
	confirm := []byte(fmt.Sprintf("*3\r\n$9\r\nsubscribe\r\n$%d\r\n%s\r\n:1\r\n", len(channel), channel))
	for i := range subs {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			return result{}, err
		}
		subs[i] = c
		if _, err := c.Write(command("SUBSCRIBE", channel)); err != nil {
			return result{}, err
		}
		got := make([]byte, len(confirm))
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		if _, err := io.ReadFull(c, got); err != nil || !bytes.Equal(got, confirm) {
			return result{}, fmt.Errorf("SUBSCRIBE: %q, %v", got, err)
		}
		c.SetReadDeadline(time.Time{})
	}

	// Each subscriber reads and checks its N messages.
	var wg sync.WaitGroup
	errs := make(chan error, cfg.subs+1)
	for _, c := range subs {
		wg.Add(1)
		go func(c net.Conn) {
			defer wg.Done()
			errs <- receive(c, cfg, prefix, frameLen)
		}(c)
	}

	pub, err := net.Dial("tcp", addr)
	if err != nil {
		return result{}, err
	}
	defer pub.Close()
	start := time.Now()
	pubDone, err := publish(pub, cfg)
	if err != nil {
		return result{}, err
	}
	wg.Wait()
	end := time.Now()
	close(errs)
	res := result{
		publishes: float64(cfg.n) / pubDone.Sub(start).Seconds(),
		delivered: float64(cfg.n) * float64(cfg.subs) / end.Sub(start).Seconds(),
	}
	for err := range errs {
		if err != nil {
			res.bad++
			if res.firstBad == nil {
				res.firstBad = err
			}
		}
	}
	return res, nil
}

// publish sends the N PUBLISH commands, pipeline at a time, checks every
// reply (the number of subscribers) and returns when the last came back.
func publish(c net.Conn, cfg config) (time.Time, error) {
	want := []byte(":" + strconv.Itoa(cfg.subs) + "\r\n")
	r := bufio.NewReaderSize(c, 64<<10)
	msg := make([]byte, cfg.size)
	var batch []byte
	for sent := 0; sent < cfg.n; {
		batch = batch[:0]
		k := min(cfg.pipeline, cfg.n-sent)
		for j := 0; j < k; j++ {
			payload(msg, sent+j)
			batch = fmt.Appendf(batch, "*3\r\n$7\r\nPUBLISH\r\n$%d\r\n%s\r\n$%d\r\n", len(channel), channel, len(msg))
			batch = append(batch, msg...)
			batch = append(batch, '\r', '\n')
		}
		if _, err := c.Write(batch); err != nil {
			return time.Time{}, err
		}
		for j := 0; j < k; j++ {
			line, err := r.ReadSlice('\n')
			if err != nil {
				return time.Time{}, err
			}
			if !bytes.Equal(line, want) {
				return time.Time{}, fmt.Errorf("PUBLISH replied %q, want %q", line, want)
			}
		}
		sent += k
	}
	return time.Now(), nil
}

// receive reads N message frames from c and checks each one. After a
// wrong frame it keeps reading, so that the run still completes and is
// timed, and returns the first wrong frame.
func receive(c net.Conn, cfg config, prefix []byte, frameLen int) error {
	r := bufio.NewReaderSize(c, 256<<10)
	frame := make([]byte, frameLen)
	want := make([]byte, cfg.size)
	c.SetReadDeadline(time.Now().Add(5 * time.Minute))
	var first error
	for i := 0; i < cfg.n; i++ {
		if _, err := io.ReadFull(r, frame); err != nil {
			return fmt.Errorf("message %d: %w", i, err)
		}
		if first != nil {
			continue
		}
		payload(want, i)
		body := frame[len(prefix) : len(prefix)+cfg.size]
		if !bytes.Equal(frame[:len(prefix)], prefix) || !bytes.Equal(body, want) || string(frame[frameLen-2:]) != "\r\n" {
			first = errors.New("message " + strconv.Itoa(i) + " is " + strconv.Quote(string(frame)))
		}
	}
	return first
}
