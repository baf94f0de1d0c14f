package resp

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/lockredis/lockredis/engine"
)

func TestScratchPerf(t *testing.T) {
	ts := startServer(t, engine.Config{}, Options{})
	ts.eng.Register(&engine.Command{Name: "nargs", Arity: -1, Flags: engine.FlagNoKeyspace, Handler: func(c *engine.Call) { c.W.Int(int64(len(c.Args))) }})
	for _, n := range []int{100000, 1 << 20 - 1} {
		var b strings.Builder
		fmt.Fprintf(&b, "*%d\r\n$5\r\nNARGS\r\n", n+1)
		for range n {
			b.WriteString("$1\r\nx\r\n")
		}
		s := b.String()
		for _, w := range []int{100, 1 << 20} {
			c := ts.dial(t)
			start := time.Now()
			for rest := s; rest != ""; {
				k := min(len(rest), w)
				c.send(rest[:k])
				rest = rest[k:]
			}
			got := c.reply()
			t.Logf("n=%d write=%d: %q in %v", n, w, got, time.Since(start))
		}
	}
	// big value
	c := ts.dial(t)
	v := strings.Repeat("v", 256<<20)
	start := time.Now()
	c.send(frame("SET", "k", v))
	t.Logf("256MB SET: %q in %v", c.reply(), time.Since(start))
	// pipelined pings
	p := strings.Repeat(frame("PING"), 100000)
	start = time.Now()
	go c.send(p)
	for range 100000 {
		c.reply()
	}
	t.Logf("100k pipelined PING in %v", time.Since(start))
	start = time.Now()
	for range 20000 {
		c.send(frame("PING"))
		c.reply()
	}
	t.Logf("20k PING round trips in %v", time.Since(start))
}
