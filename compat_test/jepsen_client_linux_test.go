//go:build linux

package compat

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// The fault tests' ClusterClient sends a command once, whatever the error:
// a fake cluster node (master of every slot) answers INCR with an error
// go-redis would otherwise retry, and must see exactly one INCR.
func TestNoRetryClusterClient(t *testing.T) {
	for _, tc := range []struct {
		reply string
		want  outcome
	}{
		{"-TRYAGAIN leadership changed before the write was committed; the write may or may not have taken effect", opInfo},
		{"-CLUSTERDOWN no leader is known to this node; try again", opFail},
		{"-LOADING the dataset is being loaded", opInfo},
		{"-MASTERDOWN link with master is down", opInfo},
	} {
		t.Run(strings.Fields(tc.reply)[0][1:], func(t *testing.T) {
			var incrs atomic.Int32
			addr := fakeClusterNode(t, func(args []string) string {
				if strings.EqualFold(args[0], "incr") {
					incrs.Add(1)
					return tc.reply
				}
				return ""
			})
			cc := newNoRetryClusterClient([]string{addr})
			defer cc.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			err := cc.Do(ctx, "INCR", "counter").Err()
			if err == nil {
				t.Fatal("INCR succeeded")
			}
			if n := incrs.Load(); n != 1 {
				t.Errorf("the node received %d INCRs, want 1 (err %v)", n, err)
			}
			if got := outcomeOf(err); got != tc.want {
				t.Errorf("outcome of %v: %v, want %v", err, got, tc.want)
			}
		})
	}
}

// fakeClusterNode serves RESP2 on a free port: CLUSTER SLOTS names it the
// master of every slot, HELLO is unknown (the client falls back to RESP2),
// handle answers the rest ("" for +OK). It stops when the test ends.
func fakeClusterNode(t *testing.T, handle func(args []string) string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	port := ln.Addr().(*net.TCPAddr).Port
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					args, err := readCommand(r)
					if err != nil {
						return
					}
					var reply string
					switch strings.ToLower(args[0]) {
					case "hello":
						reply = "-ERR unknown command 'HELLO'"
					case "cluster":
						reply = fmt.Sprintf("*1\r\n*3\r\n:0\r\n:16383\r\n*2\r\n$9\r\n127.0.0.1\r\n:%d", port)
					case "ping":
						reply = "+PONG"
					default:
						if reply = handle(args); reply == "" {
							reply = "+OK"
						}
					}
					if _, err := io.WriteString(c, reply+"\r\n"); err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// readCommand reads one command: an array of bulk strings.
func readCommand(r *bufio.Reader) ([]string, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	if !strings.HasPrefix(line, "*") {
		return nil, fmt.Errorf("not an array: %q", line)
	}
	n, err := strconv.Atoi(strings.TrimSpace(line[1:]))
	if err != nil || n < 1 {
		return nil, fmt.Errorf("bad array header %q", line)
	}
	args := make([]string, n)
	for i := range args {
		line, err := r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		size, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "$")))
		if err != nil {
			return nil, fmt.Errorf("bad bulk header %q", line)
		}
		buf := make([]byte, size+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, err
		}
		args[i] = string(buf[:size])
	}
	return args, nil
}
