package replication

import (
	"bufio"
	"errors"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/lockredis/lockredis/engine"
	"github.com/lockredis/lockredis/resp"
)

// The router sees every client command first (resp.Router).
//
// On the leader a command runs here; its reply is held (Hold) until the
// changes it could have seen are committed and, for a command that wrote
// nothing, until a quorum confirmed this node still leads.
//
// On a follower a command is forwarded to the leader over a connection of
// its own per client (an upstream), and the leader's reply is relayed
// unchanged: MULTI/WATCH, blocking commands, pub/sub and session locks
// all live on the leader, as if the client were connected there. A few
// commands answer for this node itself (ROLE, INFO, SENTINEL, CLUSTER,
// RAFT.*, READONLY...); with READONLY, read-only commands are served here
// from this node's possibly stale state. A connection that subscribes,
// MONITORs or turns client tracking or CLIENT REPLY OFF on is switched to
// streaming: from then on the leader's frames are relayed as they come.
//
// When the leader changes, every forwarded connection closes, as the
// connection to a failed server would; so do the connections that used
// state on this node while it led. A leader lost without another one
// heard of closes them only after half the session timeout (session.go).
type router struct {
	n *Node

	mu    sync.Mutex
	conns map[*resp.Conn]*connState
}

// connState is the router's state of one client connection.
type connState struct {
	// startSeq is the last captured change when the current command
	// started on the leader; hold reports whether its reply waits.
	startSeq uint64
	hold     bool
	verify   bool
	// local: the connection used state on this node while it led.
	local    bool
	readonly bool // READONLY: read-only commands served here
	// via is the node that forwards this connection (RAFT.VIA), on the
	// leader: its session locks end when that node is out of the group
	// for the session timeout (session.go).
	via    string
	cutOff bool // closed by the session watch already
	// up is the forwarded connection, on a follower. Only the
	// connection's own goroutine sets it, under the router's mu; it reads
	// it without (no other writer), other goroutines read it under mu.
	up *upstream
}

func newRouter(n *Node) *router {
	return &router{n: n, conns: map[*resp.Conn]*connState{}}
}

func (rt *router) state(c *resp.Conn) *connState {
	if st, ok := c.State.(*connState); ok {
		return st
	}
	st := &connState{}
	c.State = st
	rt.mu.Lock()
	rt.conns[c] = st
	rt.mu.Unlock()
	return st
}

// Commands a node answers for itself, leader or follower.
var localCommands = map[string]bool{
	"role": true, "info": true, "sentinel": true, "cluster": true,
	"raft.info": true, "raft.node": true, "raft.transfer_leader": true, "raft.report": true,
	"readonly": true, "readwrite": true, "quit": true, "command": true, "ping": true, "echo": true,
	"time": true, "lastsave": true, "config": true, "debug": true, "latency": true, "slowlog": true,
	"memory": true, "module": true, "lolwut": true, "acl": true, "shutdown": true,
}

// Commands that change the connection's own state: forwarded, and run
// here too once the leader accepted them, so that this node's answers
// (ROLE, stale reads) speak the same protocol, database and user.
var mirroredCommands = map[string]bool{
	"auth": true, "hello": true, "select": true, "reset": true,
}

func (rt *router) Route(c *resp.Conn, args [][]byte) bool {
	st := rt.state(c)
	if st.up != nil && st.up.streaming.Load() {
		return st.up.send(c, args)
	}
	name := strings.ToLower(string(args[0]))
	cmd := rt.n.eng.Table.Lookup(args)
	st.hold, st.verify = false, false
	switch name {
	case "raft.via":
		// Internal: the first command of a follower's forwarded
		// connection names the follower. Answered here, before any
		// authentication (the client's own AUTH comes after it): it
		// only makes this connection end sooner.
		if len(args) == 2 {
			rt.mu.Lock()
			st.via = string(args[1])
			rt.mu.Unlock()
		}
		c.Writer().Status("OK")
		return true
	case "readonly", "readwrite":
		if !rt.n.eng.ClusterEnabled() {
			// Outside cluster mode READONLY is ours: this connection's
			// reads are served from this node's state, possibly stale.
			st.readonly = name == "readonly"
			c.Writer().Status("OK")
			return true
		}
		st.readonly = name == "readonly"
		return false
	}
	if localCommands[name] || name == "subscribe" && sentinelChannels(args[1:]) || name == "psubscribe" && sentinelChannels(args[1:]) {
		return false
	}
	if rt.n.awaitServing() {
		// The leader: run it here and hold the reply.
		st.local = true
		st.hold = true
		st.verify = cmd != nil && !cmd.Flags.Has(engine.FlagNoKeyspace)
		st.startSeq = rt.n.eng.LastChangeSeq()
		return false
	}
	if rt.n.r.Load() == nil {
		c.Writer().Error(errShutdown.Error())
		return true
	}
	if st.readonly && cmd != nil && cmd.Flags.Has(engine.FlagReadonly) && !c.Session().InMulti() {
		return false // a stale read, opted in
	}
	if rt.n.eng.ClusterEnabled() && cmd != nil && st.up == nil && !c.Session().InMulti() {
		if slot := engine.CommandSlot(cmd, args); slot >= 0 {
			_, addr := rt.n.waitLeaderAddr()
			if addr != "" {
				c.Writer().Error("MOVED " + strconv.Itoa(slot) + " " + addr)
				return true
			}
		}
	}
	rt.forward(c, st, name, cmd, args)
	return true
}

// forward sends one command to the leader and relays its reply.
func (rt *router) forward(c *resp.Conn, st *connState, name string, cmd *engine.Command, args [][]byte) {
	up := st.up
	if up == nil {
		id, addr := rt.n.waitLeaderAddr()
		// The term once the leader is known: the leader's, or a later
		// one (then the session watch closes this connection as one of
		// an older leadership: safe, and rare).
		term := rt.n.term()
		if addr == rt.n.addr {
			// This node took over while the command waited.
			c.Writer().Error(errLeadershipLost.Error())
			return
		}
		if addr == "" {
			c.Writer().Error("CLUSTERDOWN no leader is known to this node; try again")
			return
		}
		var err error
		up, err = dialUpstream(rt.n, addr)
		if err != nil {
			c.Writer().Error("CLUSTERDOWN the leader at " + addr + " cannot be reached: " + err.Error())
			return
		}
		up.leaderID, up.term = id, term
		rt.mu.Lock()
		st.up = up
		rt.mu.Unlock()
		// The leader learns which node forwards this connection, so that
		// it ends the connection if this node is cut off (session.go). A
		// leader that does not know the command (an older version)
		// answers an error, which changes nothing.
		if _, err := up.roundTrip(nil, [][]byte{[]byte("RAFT.VIA"), []byte(rt.n.cfg.ID)}); err != nil {
			c.Close()
			return
		}
		// The leader must see the client's protocol, database and user:
		// they were set here before the first forwarded command.
		sess := c.Session()
		if sess.Proto == 3 || sess.DB != 0 {
			var pre [][][]byte
			if sess.Proto == 3 {
				pre = append(pre, [][]byte{[]byte("HELLO"), []byte("3")})
			}
			if sess.DB != 0 {
				pre = append(pre, [][]byte{[]byte("SELECT"), []byte(strconv.Itoa(sess.DB))})
			}
			for _, a := range pre {
				if _, err := up.roundTrip(nil, a); err != nil {
					c.Close()
					return
				}
			}
		}
	}
	if streams(name, args, cmd) {
		up.stream(c.Stream(), c.Close)
		up.send(c, args)
		return
	}
	var watch *resp.Conn
	if cmd != nil && cmd.Flags.Has(engine.FlagBlocking) {
		watch = c
	}
	reply, err := up.roundTrip(watch, args)
	if err != nil {
		// The leader went away mid-command: so does the client, which
		// cannot know whether the command ran.
		c.Close()
		return
	}
	c.Reply(reply)
	if mirroredCommands[name] && len(reply) > 0 && reply[0] != '-' {
		rt.n.eng.Dispatch(c.Session(), nil, args, &engine.Recorder{})
	}
}

// streams reports whether the connection receives frames outside
// request/reply order once the leader ran the command.
func streams(name string, args [][]byte, cmd *engine.Command) bool {
	switch {
	case cmd != nil && cmd.Flags.Has(engine.FlagReceivesPushes):
		return true
	case name == "monitor":
		return true
	case name == "client" && len(args) > 2 && strings.EqualFold(string(args[1]), "reply"):
		return !strings.EqualFold(string(args[2]), "on")
	}
	return false
}

// sentinelChannels reports whether every channel is one a Sentinel
// publishes on (+switch-master...): those subscriptions are served by
// the node itself, which publishes them, and survive the leader's death.
func sentinelChannels(chans [][]byte) bool {
	if len(chans) == 0 {
		return false
	}
	for _, ch := range chans {
		if len(ch) == 0 || ch[0] != '+' && ch[0] != '-' && !strings.HasPrefix(string(ch), "__sentinel__") {
			return false
		}
	}
	return true
}

func (rt *router) Hold(c *resp.Conn, args [][]byte) error {
	st := rt.state(c)
	if !st.hold {
		return nil
	}
	st.hold = false
	target := rt.n.eng.LastChangeSeq()
	if target == st.startSeq && st.verify {
		// Nothing was written since the command started: confirm with a
		// quorum that this node still leads, so that what it read is not
		// stale. A later commit would prove the same.
		if err := rt.n.verifier.verify(); err != nil {
			return err
		}
	}
	return rt.n.commits.wait(target)
}

func (rt *router) Closed(c *resp.Conn) {
	rt.mu.Lock()
	st := rt.conns[c]
	delete(rt.conns, c)
	var up *upstream
	if st != nil {
		up = st.up
	}
	rt.mu.Unlock()
	if up != nil {
		up.close()
	}
}

// closeForwarded closes the forwarded connections whose upstream drop
// selects, and returns how many.
func (rt *router) closeForwarded(drop func(up *upstream) bool) int {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	k := 0
	for c, st := range rt.conns {
		if st.up != nil && drop(st.up) {
			c.Close()
			k++
		}
	}
	return k
}

// closeVia closes, on the leader, the connections forwarded by a node
// that drop selects, and returns how many per node.
func (rt *router) closeVia(drop func(via string) bool) map[string]int {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	var out map[string]int
	for c, st := range rt.conns {
		if st.via != "" && !st.cutOff && drop(st.via) {
			st.cutOff = true
			c.Close()
			if out == nil {
				out = map[string]int{}
			}
			out[st.via]++
		}
	}
	return out
}

// vias lists the nodes this node's connections are forwarded by.
func (rt *router) vias() map[string]bool {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	var out map[string]bool
	for _, st := range rt.conns {
		if st.via != "" {
			if out == nil {
				out = map[string]bool{}
			}
			out[st.via] = true
		}
	}
	return out
}

// dropLocal closes the connections that used state on this node while it
// led: it leads no more, and that state is the group's only if committed.
func (rt *router) dropLocal() {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	for c, st := range rt.conns {
		if st.local {
			c.Close()
		}
	}
}

func (rt *router) closeAll() {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	for c, st := range rt.conns {
		if st.up != nil {
			st.up.close()
		}
		c.Close()
	}
}

// upstream is a follower's connection to the leader for one client.
type upstream struct {
	// leaderID and term: the leader it goes to, and this node's term
	// when it was dialed.
	leaderID  string
	term      uint64
	conn      net.Conn
	br        *bufio.Reader
	out       []byte
	streaming atomic.Bool
	closeOnce sync.Once
}

func dialUpstream(n *Node, addr string) (*upstream, error) {
	conn, err := n.dial(addr)
	if err != nil {
		return nil, err
	}
	return &upstream{conn: conn, br: bufio.NewReaderSize(conn, 64<<10)}, nil
}

// roundTrip sends one command and reads its reply (with any pushes before
// it). With watch set (a blocking command) the client's going away ends
// the wait and the upstream, so that the leader drops the waiter.
func (u *upstream) roundTrip(watch *resp.Conn, args [][]byte) ([]byte, error) {
	u.out = appendCommand(u.out[:0], args)
	if _, err := u.conn.Write(u.out); err != nil {
		u.close()
		return nil, err
	}
	if watch == nil {
		return u.readReply()
	}
	gone, stop := watch.WatchPeer()
	type result struct {
		b   []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		b, err := u.readReply()
		done <- result{b, err}
	}()
	select {
	case r := <-done:
		stop()
		return r.b, r.err
	case <-gone:
		u.close()
		<-done
		stop()
		return nil, errors.New("client gone")
	}
}

func (u *upstream) readReply() ([]byte, error) {
	var reply []byte
	for {
		var push bool
		var err error
		reply, push, err = readFrame(u.br, reply)
		if err != nil {
			u.close()
			return nil, err
		}
		if !push {
			return reply, nil
		}
	}
}

// stream relays every frame from the leader to the client as it comes,
// until either side closes.
func (u *upstream) stream(send func([]byte), closeClient func()) {
	if send == nil || u.streaming.Swap(true) {
		return
	}
	go func() {
		var buf []byte
		for {
			var err error
			buf, _, err = readFrame(u.br, buf[:0])
			if err != nil {
				u.close()
				closeClient()
				return
			}
			send(append([]byte(nil), buf...))
		}
	}()
}

// send forwards a command of a streaming connection.
func (u *upstream) send(c *resp.Conn, args [][]byte) bool {
	if _, err := u.conn.Write(appendCommand(nil, args)); err != nil {
		c.Close()
	}
	return true
}

func (u *upstream) close() { u.closeOnce.Do(func() { u.conn.Close() }) }
