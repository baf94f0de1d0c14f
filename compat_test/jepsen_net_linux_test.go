//go:build linux

package compat

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
)

// Partitions on loopback, with nftables: each node of a fault test runs
// under a user id of its own, and one table of rules in the output hook
// drops the packets a node sends to a node on the other side. A packet is
// told apart by who sends it (meta skuid, the sending socket's owner) and
// who is at the other end: for a connection the sender dialed, the
// destination port (a listening port of the other node: its client port
// or its Raft port); for a connection the other node dialed, the
// connection's mark, set to the dialer's user id by its first packet. So
// every byte between the two sides is dropped, Raft traffic and a
// follower's forwarded client connections alike, in both directions,
// while the test's clients (our own user id) keep talking to whichever
// node they are connected to: a client of the minority side stays there,
// as it would in a real partition. Dropped, not refused: a connection
// attempt across the cut hangs until its timeout, as across a dead link.

// uidBase spaces the user ids of concurrent test binaries apart; nextUID
// hands them out within one.
var (
	uidBase = uint32(200000 + (os.Getpid()%100000)*64)
	uidNext atomic.Uint32
)

func nextUID() uint32 { return uidBase + uidNext.Add(1) }

// runAs makes cmd run under uid (and a group id of the same number).
func runAs(cmd *exec.Cmd, uid uint32) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uid, Gid: uid}
}

// partitioner owns one nftables table. uids[i] and ports[i] are node i's
// user id and listening ports.
type partitioner struct {
	table string
	uids  []uint32
	ports [][]int
}

// partitionsPossible says why partitions cannot be made here, or "".
func partitionsPossible() string {
	if os.Geteuid() != 0 {
		return "partitions need root (nftables rules and a user id per node)"
	}
	if _, err := exec.LookPath("nft"); err != nil {
		return "partitions need nft: apt-get install nftables"
	}
	return ""
}

func newPartitioner(uids []uint32, ports [][]int) (*partitioner, error) {
	p := &partitioner{table: fmt.Sprintf("lockredis_jepsen_%d_%d", os.Getpid(), uids[0]), uids: uids, ports: ports}
	script := fmt.Sprintf("add table inet %s\nadd chain inet %s out { type filter hook output priority 0; policy accept; }\n", p.table, p.table)
	if err := nft(script); err != nil {
		return nil, err
	}
	return p, p.cut(nil)
}

// cut replaces the rules so that exactly the given pairs of nodes (by
// index) cannot reach each other; nil heals everything. The new rules
// take effect at once (one nft transaction).
func (p *partitioner) cut(pairs [][2]int) error {
	var b strings.Builder
	fmt.Fprintf(&b, "flush chain inet %s out\n", p.table)
	for _, uid := range p.uids {
		fmt.Fprintf(&b, "add rule inet %s out ct state new meta skuid %d ct mark set %d\n", p.table, uid, uid)
	}
	for _, pair := range pairs {
		for _, d := range [][2]int{pair, {pair[1], pair[0]}} {
			from, to := d[0], d[1]
			ports := make([]string, len(p.ports[to]))
			for i, port := range p.ports[to] {
				ports[i] = fmt.Sprint(port)
			}
			fromPorts := make([]string, len(p.ports[from]))
			for i, port := range p.ports[from] {
				fromPorts[i] = fmt.Sprint(port)
			}
			fmt.Fprintf(&b, "add rule inet %s out meta skuid %d tcp dport { %s } drop\n", p.table, p.uids[from], strings.Join(ports, ", "))
			fmt.Fprintf(&b, "add rule inet %s out meta skuid %d ct mark %d drop\n", p.table, p.uids[from], p.uids[to])
			// The same by the connection's mark alone: a socket its
			// process closed sends its FIN (and retransmissions) with no
			// owner, which meta skuid does not match; across a real cut
			// that FIN never arrives either.
			fmt.Fprintf(&b, "add rule inet %s out ct mark %d tcp dport { %s } drop\n", p.table, p.uids[from], strings.Join(ports, ", "))
			fmt.Fprintf(&b, "add rule inet %s out ct mark %d tcp sport { %s } drop\n", p.table, p.uids[to], strings.Join(fromPorts, ", "))
		}
	}
	return nft(b.String())
}

func (p *partitioner) close() error {
	return nft(fmt.Sprintf("delete table inet %s\n", p.table))
}

func nft(script string) error {
	cmd := exec.Command("nft", "-f", "-")
	cmd.Stdin = strings.NewReader(script)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("nft: %v: %s\nscript:\n%s", err, out, script)
	}
	return nil
}
