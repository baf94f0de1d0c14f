package raftgroup_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/lockredis/lockredis/raftgroup"
)

// eventually retries fn until it returns "" or the (generous) time is up.
func eventually(t *testing.T, what string, fn func() string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		msg := fn()
		if msg == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %s", what, msg)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestWritesThroughAnyNodeReachEveryNode(t *testing.T) {
	g := raftgroup.Run(t, 3)
	for i, addr := range g.Addrs() {
		c := dial(t, addr)
		if r := c.must("SET", "k"+strconv.Itoa(i), "v"+strconv.Itoa(i)); r != "OK" {
			t.Fatalf("SET through node %d: %v", i+1, r)
		}
	}
	for _, addr := range g.Addrs() {
		c := dial(t, addr)
		c.must("READONLY")
		eventually(t, "stale reads on "+addr, func() string {
			for i := range 3 {
				if r := c.must("GET", "k"+strconv.Itoa(i)); r != "v"+strconv.Itoa(i) {
					return "k" + strconv.Itoa(i) + " = " + r.(string)
				}
			}
			return ""
		})
	}
}
