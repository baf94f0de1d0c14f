//go:build linux

package compat

import (
	"errors"
	"fmt"
	"math/rand"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The fault tests' cluster: nodes of the built binary on loopback, each
// in its own data directory, that the nemesis kills with SIGKILL, pauses
// with SIGSTOP, restarts and partitions. One node without Raft flags is a
// standalone server; three or five form a replicated group started with
// the exact flags:
//
//	lockredis --port P --dir D --raft-id ID --raft-bind HOST:RPORT --raft-peers 1=HOST:RPORT1,2=...
//
// Its methods return errors instead of failing the test, so the nemesis
// can call them from its own goroutine.

type jepsenNode struct {
	id       int // 1-based, the Raft id
	port     int
	raftPort int // 0 for a standalone node
	dir      string
	uid      uint32 // the node's own user id, 0 to run as ourselves
	args     []string
	bin      string
	out      lockedBuffer // the output of every incarnation

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{}
	paused bool
}

func (n *jepsenNode) addr() string { return "127.0.0.1:" + strconv.Itoa(n.port) }

func (n *jepsenNode) String() string { return fmt.Sprintf("n%d(%s)", n.id, n.addr()) }

// start launches the node and waits until it answers PING.
func (n *jepsenNode) start() error {
	n.mu.Lock()
	if n.cmd != nil {
		n.mu.Unlock()
		return fmt.Errorf("%s is already running", n)
	}
	all := append([]string{"--port", strconv.Itoa(n.port), "--bind", "127.0.0.1", "--dir", n.dir}, n.args...)
	cmd := exec.Command(n.bin, all...)
	cmd.Dir = n.dir
	dieWithTest(cmd)
	if n.uid != 0 {
		runAs(cmd, n.uid)
	}
	fmt.Fprintf(&n.out, "=== %s start: %s\n", time.Now().Format("15:04:05.000"), strings.Join(all, " "))
	cmd.Stdout = &n.out
	cmd.Stderr = &n.out
	if err := cmd.Start(); err != nil {
		n.mu.Unlock()
		return fmt.Errorf("start %s: %v", n, err)
	}
	exited := make(chan struct{})
	n.cmd, n.exited, n.paused = cmd, exited, false
	n.mu.Unlock()
	go func() {
		err := cmd.Wait()
		fmt.Fprintf(&n.out, "=== %s exit: %v\n", time.Now().Format("15:04:05.000"), err)
		close(exited)
	}()
	if _, err := waitPing(n.addr(), exited); err != nil {
		return fmt.Errorf("%s: %v", n, err)
	}
	return nil
}

func (n *jepsenNode) running() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.cmd != nil
}

func (n *jepsenNode) isPaused() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.paused
}

// kill9 kills the node as a crash would (a paused node too).
func (n *jepsenNode) kill9() error {
	n.mu.Lock()
	cmd, exited := n.cmd, n.exited
	n.cmd, n.paused = nil, false
	n.mu.Unlock()
	if cmd == nil {
		return fmt.Errorf("%s is not running", n)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	<-exited
	return nil
}

// stop asks the node to stop (SIGTERM: a planned restart; a group's
// leader hands its leadership over first) and waits for it to exit, at
// most 15 s; then it sends SIGQUIT, so that the Go runtime prints every
// goroutine's stack into the node's output (where it hangs), kills it and
// reports that.
func (n *jepsenNode) stop() error {
	n.mu.Lock()
	cmd, exited := n.cmd, n.exited
	n.cmd, n.paused = nil, false
	n.mu.Unlock()
	if cmd == nil {
		return fmt.Errorf("%s is not running", n)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
		return nil
	case <-time.After(15 * time.Second):
		cmd.Process.Signal(syscall.SIGQUIT)
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			cmd.Process.Signal(syscall.SIGKILL)
			<-exited
		}
		return fmt.Errorf("%s did not exit within 15 s of SIGTERM", n)
	}
}

// pause stops the process (SIGSTOP): it holds its sockets and state but
// answers nothing, as a node stalled by a long GC, swapping or a VM pause.
func (n *jepsenNode) pause() error { return n.signal(syscall.SIGSTOP, true) }

// resume continues a paused node (SIGCONT).
func (n *jepsenNode) resume() error { return n.signal(syscall.SIGCONT, false) }

func (n *jepsenNode) signal(sig syscall.Signal, paused bool) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.cmd == nil {
		return fmt.Errorf("%s is not running", n)
	}
	n.paused = paused
	return n.cmd.Process.Signal(sig)
}

// role asks the node ROLE and returns its first word ("master", "slave"),
// or an error when it does not answer within a second.
func (n *jepsenNode) role() (string, error) {
	rc, err := dial(n.addr())
	if err != nil {
		return "", err
	}
	defer rc.c.Close()
	rc.c.SetDeadline(time.Now().Add(time.Second))
	if _, err := rc.c.Write(encodeCommand([]string{"ROLE"})); err != nil {
		return "", err
	}
	reply, err := readReply(rc.r)
	if err != nil {
		return "", err
	}
	// *N\r\n$len\r\nword\r\n...
	parts := strings.SplitN(string(reply), "\r\n", 4)
	if len(parts) < 3 || !strings.HasPrefix(parts[0], "*") {
		return "", fmt.Errorf("ROLE answered %q", reply)
	}
	return parts[2], nil
}

type jepsenCluster struct {
	t     *testing.T
	nodes []*jepsenNode
	net   *partitioner // nil: no partitions here
	log   func(format string, args ...any)
}

// newJepsenCluster prepares n nodes (without group: standalone servers) with the extra flags, starts them and waits for a leader (for a
// group). They are killed and their directories removed when the test
// ends; each node's output is printed if the test failed.
func newJepsenCluster(t *testing.T, n int, group bool, extra ...string) *jepsenCluster {
	t.Helper()
	bin := jepsenBinary(t)
	c := &jepsenCluster{t: t, log: t.Logf}
	var uids []uint32
	var ports [][]int
	isolate := n > 1 && partitionsPossible() == ""
	if isolate {
		// The nodes run under their own user ids: they must reach the binary.
		if err := os.Chmod(filepath.Dir(bin), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	root, err := os.MkdirTemp("", "lockredis-jepsen-")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(root, 0o755)
	t.Cleanup(func() { os.RemoveAll(root) })
	for i := 1; i <= n; i++ {
		node := &jepsenNode{id: i, port: jepsenPort(t), dir: filepath.Join(root, fmt.Sprintf("n%d", i)), bin: bin}
		if group {
			node.raftPort = jepsenPort(t)
		}
		if err := os.Mkdir(node.dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if isolate {
			node.uid = nextUID()
			if err := os.Chown(node.dir, int(node.uid), int(node.uid)); err != nil {
				t.Fatal(err)
			}
			uids = append(uids, node.uid)
			ports = append(ports, []int{node.port})
			if node.raftPort != 0 {
				ports[len(ports)-1] = append(ports[len(ports)-1], node.raftPort)
			}
		}
		c.nodes = append(c.nodes, node)
	}
	var peers []string
	for _, node := range c.nodes {
		if group {
			peers = append(peers, fmt.Sprintf("%d=127.0.0.1:%d", node.id, node.raftPort))
		}
	}
	for _, node := range c.nodes {
		if group {
			node.args = []string{"--raft-id", strconv.Itoa(node.id), "--raft-bind", fmt.Sprintf("127.0.0.1:%d", node.raftPort), "--raft-peers", strings.Join(peers, ",")}
		}
		node.args = append(node.args, extra...)
	}
	if isolate {
		if c.net, err = newPartitioner(uids, ports); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := c.net.close(); err != nil {
				t.Error(err)
			}
		})
	}
	t.Cleanup(func() {
		for _, node := range c.nodes {
			if node.running() {
				node.kill9()
			}
		}
		if t.Failed() {
			// The last lines here, every line in a file that is kept.
			logs, err := os.MkdirTemp("", "lockredis-jepsen-logs-")
			for _, node := range c.nodes {
				t.Logf("output of %s:\n%s", node, tail(node.out.String(), 60))
				if err == nil {
					err = os.WriteFile(filepath.Join(logs, fmt.Sprintf("n%d.log", node.id)), []byte(node.out.String()), 0o644)
				}
			}
			if err != nil {
				t.Logf("nodes' output not kept: %v", err)
			} else {
				t.Logf("the nodes' whole output: %s", logs)
			}
		}
	})
	// Started together: a group's first election needs a majority up.
	errs := make(chan error, n)
	for _, node := range c.nodes {
		go func() { errs <- node.start() }()
	}
	for range c.nodes {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if group {
		if _, err := c.waitLeader(30 * time.Second); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// jepsenPort picks a port for a node, below the kernel's ephemeral range
// (ip_local_port_range starts at 32768 by default): a node is restarted on
// the same port after kill -9, and a port from the ephemeral range could
// have been taken meanwhile by some client's outgoing connection. Ports
// once handed out are never handed out again in this process (freePort can
// return one port twice, and a node's Raft port then collides with another
// node's client port).
func jepsenPort(t *testing.T) int {
	t.Helper()
	jepsenPorts.Lock()
	defer jepsenPorts.Unlock()
	if jepsenPorts.used == nil {
		jepsenPorts.used = map[int]bool{}
	}
	for range 1000 {
		port := 20000 + rand.Intn(12000)
		if jepsenPorts.used[port] {
			continue
		}
		ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err != nil {
			continue
		}
		ln.Close()
		jepsenPorts.used[port] = true
		return port
	}
	t.Fatal("no free port in 20000-31999")
	return 0
}

var jepsenPorts struct {
	sync.Mutex
	used map[int]bool
}

// jepsenBinary is the binary under test: LOCKREDIS_JEPSEN_BIN, or the
// checkout's own build.
func jepsenBinary(t *testing.T) string {
	if bin := os.Getenv("LOCKREDIS_JEPSEN_BIN"); bin != "" {
		return bin
	}
	return lockredisBinary(t)
}

func tail(s string, lines int) string {
	l := strings.Split(s, "\n")
	if len(l) > lines {
		l = append([]string{"..."}, l[len(l)-lines:]...)
	}
	return strings.Join(l, "\n")
}

func (c *jepsenCluster) addrs() []string {
	var a []string
	for _, n := range c.nodes {
		a = append(a, n.addr())
	}
	return a
}

// leader asks every running, unpaused node its ROLE and returns one that
// answers master (an old leader cut off may still say so for a moment).
func (c *jepsenCluster) leader() (*jepsenNode, error) {
	for _, n := range c.nodes {
		if !n.running() || n.isPaused() {
			continue
		}
		if r, err := n.role(); err == nil && r == "master" {
			return n, nil
		}
	}
	return nil, errors.New("no node answers ROLE with master")
}

func (c *jepsenCluster) waitLeader(timeout time.Duration) (*jepsenNode, error) {
	deadline := time.Now().Add(timeout)
	for {
		l, err := c.leader()
		if err == nil || time.Now().After(deadline) {
			return l, err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// partition cuts the cluster into the given sides (node indexes, 0-based);
// a node in no side is cut from every other.
func (c *jepsenCluster) partition(sides ...[]int) error {
	side := map[int]int{}
	for s, members := range sides {
		for _, m := range members {
			side[m] = s + 1
		}
	}
	var pairs [][2]int
	for a := range c.nodes {
		for b := a + 1; b < len(c.nodes); b++ {
			if sa, sb := side[a], side[b]; sa == 0 || sb == 0 || sa != sb {
				pairs = append(pairs, [2]int{a, b})
			}
		}
	}
	return c.net.cut(pairs)
}

func (c *jepsenCluster) heal() error { return c.net.cut(nil) }

// A fault is one thing the nemesis does: start breaks something and
// returns how to repair it.
type fault struct {
	name  string
	start func(c *jepsenCluster, rng *rand.Rand) (desc string, repair func() error, err error)
}

// The faults. "leader" means the node that answers ROLE with master when
// the fault starts (any node of a standalone server).
var (
	faultKillLeader = fault{"kill -9 leader", func(c *jepsenCluster, rng *rand.Rand) (string, func() error, error) {
		return killNode(c, true, rng)
	}}
	faultKillFollower = fault{"kill -9 follower", func(c *jepsenCluster, rng *rand.Rand) (string, func() error, error) {
		return killNode(c, false, rng)
	}}
	faultStopLeader = fault{"SIGTERM leader", func(c *jepsenCluster, rng *rand.Rand) (string, func() error, error) {
		n, err := pickNode(c, true, rng)
		if err != nil {
			return "", nil, err
		}
		return "SIGTERM " + n.String(), n.start, n.stop()
	}}
	faultPauseLeader = fault{"SIGSTOP leader", func(c *jepsenCluster, rng *rand.Rand) (string, func() error, error) {
		n, err := pickNode(c, true, rng)
		if err != nil {
			return "", nil, err
		}
		return "SIGSTOP " + n.String(), n.resume, n.pause()
	}}
	faultIsolateLeader = fault{"isolate leader", func(c *jepsenCluster, rng *rand.Rand) (string, func() error, error) {
		n, err := pickNode(c, true, rng)
		if err != nil {
			return "", nil, err
		}
		var rest []int
		for i := range c.nodes {
			if c.nodes[i] != n {
				rest = append(rest, i)
			}
		}
		return fmt.Sprintf("partition {%s} | the rest", n), c.heal, c.partition([]int{n.id - 1}, rest)
	}}
	// A majority, the leader with it, crashes at once and restarts: what
	// the group acknowledged must come back from the nodes' disks (the
	// Raft log and snapshots), since no live majority remembers it.
	faultKillMajority = fault{"kill -9 majority", func(c *jepsenCluster, rng *rand.Rand) (string, func() error, error) {
		l, err := c.leader()
		if err != nil {
			return "", nil, err
		}
		victims := []*jepsenNode{l}
		for _, i := range rng.Perm(len(c.nodes)) {
			if n := c.nodes[i]; n != l && n.running() && len(victims) < len(c.nodes)/2+1 {
				victims = append(victims, n)
			}
		}
		var names []string
		var killErr error
		for i, n := range victims {
			names = append(names, n.String())
			if killErr = n.kill9(); killErr != nil {
				victims = victims[:i] // restart those already killed
				break
			}
		}
		restart := func() error {
			errs := make(chan error, len(victims))
			for _, n := range victims {
				go func() { errs <- n.start() }()
			}
			var first error
			for range victims {
				if err := <-errs; err != nil && first == nil {
					first = err
				}
			}
			return first
		}
		return "kill -9 " + strings.Join(names, " "), restart, killErr
	}}
	faultRandomHalves = fault{"partition random halves", func(c *jepsenCluster, rng *rand.Rand) (string, func() error, error) {
		perm := rng.Perm(len(c.nodes))
		minority := perm[:len(perm)/2]
		majority := perm[len(perm)/2:]
		return fmt.Sprintf("partition %v | %v (0-based)", minority, majority), c.heal, c.partition(minority, majority)
	}}
	faultBridge = fault{"partition bridge", func(c *jepsenCluster, rng *rand.Rand) (string, func() error, error) {
		// Jepsen's bridge: two halves that do not see each other, and one
		// node that sees both (it is in both majorities).
		perm := rng.Perm(len(c.nodes))
		mid := len(perm) / 2
		var pairs [][2]int
		for _, a := range perm[:mid] {
			for _, b := range perm[mid+1:] {
				pairs = append(pairs, [2]int{a, b})
			}
		}
		return fmt.Sprintf("bridge %v - %d - %v (0-based)", perm[:mid], perm[mid], perm[mid+1:]), c.heal, c.net.cut(pairs)
	}}
)

func pickNode(c *jepsenCluster, leader bool, rng *rand.Rand) (*jepsenNode, error) {
	if leader {
		return c.leader()
	}
	l, _ := c.leader()
	var candidates []*jepsenNode
	for _, n := range c.nodes {
		if n != l && n.running() && !n.isPaused() {
			candidates = append(candidates, n)
		}
	}
	if len(candidates) == 0 {
		return nil, errors.New("no follower to pick")
	}
	return candidates[rng.Intn(len(candidates))], nil
}

func killNode(c *jepsenCluster, leader bool, rng *rand.Rand) (string, func() error, error) {
	n, err := pickNode(c, leader, rng)
	if err != nil {
		return "", nil, err
	}
	return "kill -9 " + n.String(), n.start, n.kill9()
}

// nemesis runs faults from the schedule until stop is closed: a quiet
// interval, a fault held for a while, its repair. Every step goes into
// the history (client -1), so a finding's excerpt shows what the cluster
// went through. The random choices come from seed, so a run's schedule
// can be replayed. It returns after the last repair.
type nemesis struct {
	faults []fault
	quiet  [2]time.Duration // the interval between faults, min and max
	hold   [2]time.Duration // how long a fault lasts, min and max
}

func (nm nemesis) run(c *jepsenCluster, h *history, seed int64, stop <-chan struct{}) []error {
	rng := rand.New(rand.NewSource(seed))
	between := func(r [2]time.Duration) time.Duration {
		return r[0] + time.Duration(rng.Int63n(int64(r[1]-r[0])+1))
	}
	var errs []error
	record := func(what string, start int64, err error) {
		o := op{client: -1, f: "nemesis", key: what, start: start, end: h.now(), result: opOK}
		if err != nil {
			o.result, o.err = opInfo, err.Error()
		}
		h.add(o)
		c.log("nemesis %.3fs: %s (err: %v)", float64(o.end)/1e9, what, err)
	}
	for {
		select {
		case <-stop:
			return errs
		case <-time.After(between(nm.quiet)):
		}
		f := nm.faults[rng.Intn(len(nm.faults))]
		start := h.now()
		desc, repair, err := f.start(c, rng)
		if desc == "" {
			desc = f.name
		}
		record(desc, start, err)
		if repair == nil {
			continue // nothing to do (e.g. no leader at this moment)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %v", desc, err))
		}
		select {
		case <-stop:
		case <-time.After(between(nm.hold)):
		}
		start = h.now()
		err = repair()
		record("repair: "+desc, start, err)
		if err != nil {
			errs = append(errs, fmt.Errorf("repair of %s: %v", desc, err))
		}
	}
}
