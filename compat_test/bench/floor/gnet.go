package main

import (
	"fmt"

	"github.com/panjf2000/gnet/v2"
	"github.com/tidwall/redcon"
)

// gnetFloor answers +OK to every command like the redcon no-op, but on
// gnet's event loops (epoll, one loop per core, each serving many
// connections) instead of the runtime's netpoller with a goroutine per
// connection. redcon still parses the commands (ReadNextCommand over what
// the loop buffered), so the two floors differ only in the loop. Each
// traffic event answers everything the read brought with one write.
type gnetFloor struct {
	gnet.BuiltinEventEngine
}

// gnetConn is one connection's parser scratch: the loops run in parallel.
type gnetConn struct {
	args [][]byte
	out  []byte
}

func (*gnetFloor) OnOpen(c gnet.Conn) ([]byte, gnet.Action) {
	c.SetContext(&gnetConn{})
	return nil, gnet.None
}

func (*gnetFloor) OnTraffic(c gnet.Conn) gnet.Action {
	st := c.Context().(*gnetConn)
	buf, _ := c.Peek(-1)
	out := st.out[:0]
	used := 0
	for used < len(buf) {
		complete, args, _, left, err := redcon.ReadNextCommand(buf[used:], st.args[:0])
		if err != nil {
			c.Write(redcon.AppendError(out, "ERR "+err.Error()))
			return gnet.Close
		}
		if !complete {
			break
		}
		st.args = args
		used = len(buf) - len(left)
		out = redcon.AppendOK(out)
	}
	c.Discard(used)
	if len(out) > 0 {
		c.Write(out) // copied into the connection's buffer or written at once
	}
	st.out = out
	return gnet.None
}

// serveGnet runs the floor on gnet with loops event loops (0: one per
// core, gnet's multicore mode).
func serveGnet(port, loops int) error {
	opts := []gnet.Option{gnet.WithTCPNoDelay(gnet.TCPNoDelay)}
	if loops > 0 {
		opts = append(opts, gnet.WithNumEventLoop(loops))
	} else {
		opts = append(opts, gnet.WithMulticore(true))
	}
	return gnet.Run(&gnetFloor{}, fmt.Sprintf("tcp://127.0.0.1:%d", port), opts...)
}
