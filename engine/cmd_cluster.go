package engine

import (
	"errors"
	"net"
	"strconv"
	"strings"
)

// The single-node cluster emulation (cluster-enabled yes, Config.Cluster):
// one server answers the cluster commands as a Redis 7.0 cluster of one
// master that owns all 16384 slots, so that cluster clients (go-redis's
// ClusterClient, redis-cli -c) work against it. The topology never
// changes: subcommands that would change it answer an error. As in a real
// cluster, a command whose keys hash to different slots is refused with
// CROSSSLOT (clusterRefusal, called by the dispatcher), SELECT, MOVE,
// SWAPDB and COPY ... DB refuse other databases than 0, and INFO, HELLO and
// CONFIG GET cluster-enabled say cluster mode.
//
// Without the option the commands answer as a redis-server started
// without cluster-enabled: "This instance has cluster support disabled".

// ClusterMyID is the emulated node's id, as CLUSTER MYID answers it.
func (e *Engine) ClusterMyID() string { return e.cluster.myID }

var (
	errClusterDisabled   = errors.New("ERR This instance has cluster support disabled")
	errCrossSlot         = errors.New("CROSSSLOT Keys in request don't hash to the same slot")
	errInvalidSlot       = errors.New("ERR Invalid slot")
	errInvalidSlotOrKeys = errors.New("ERR Invalid slot or number of keys")
	errSlotOutOfRange    = errors.New("ERR Invalid or out of range slot")
	errNotReplica        = errors.New("ERR You should send CLUSTER FAILOVER to a replica")
	errForgetMyself      = errors.New("ERR I tried hard but I can't forget myself...")
	errReplicateMyself   = errors.New("ERR Can't replicate myself")
	// Redis's texts for a key a script's redis.call may not touch.
	errScriptNonLocalKey = errors.New("ERR Script attempted to access a non local key in a cluster node")
	errScriptCrossSlot   = errors.New("ERR Script attempted to access keys that do not hash to the same slot")
)

// ErrScriptNoCluster is what EVAL of a script with the no-cluster flag
// answers in cluster mode (luasvc).
var ErrScriptNoCluster = errors.New("ERR Can not run script on cluster, 'no-cluster' flag is set.")

func clusterCommands() []*Command {
	sub := func(name string, h Handler) *Command { return &Command{Name: name, Handler: clusterOnly(h)} }
	return []*Command{
		{Name: "cluster", Subcommands: []*Command{
			sub("help", func(c *Call) { WriteHelp(c.W, clusterHelp) }),
			sub("info", cmdClusterInfo),
			sub("myid", func(c *Call) { c.W.BulkString(c.E.cluster.myID) }),
			sub("nodes", cmdClusterNodes),
			sub("slots", cmdClusterSlots),
			sub("shards", cmdClusterShards),
			sub("keyslot", func(c *Call) { c.W.Int(int64(KeySlot(c.Args[2]))) }),
			sub("countkeysinslot", cmdClusterCountKeysInSlot),
			sub("getkeysinslot", cmdClusterGetKeysInSlot),
			sub("links", func(c *Call) { c.W.Array(0) }),
			sub("saveconfig", func(c *Call) { c.OK() }),
			sub("addslots", cmdClusterAddSlots),
			sub("addslotsrange", cmdClusterAddSlotsRange),
			sub("replicas", cmdClusterReplicas),
			sub("slaves", cmdClusterReplicas),
			sub("count-failure-reports", cmdClusterCountFailureReports),
			sub("forget", cmdClusterForget),
			sub("replicate", cmdClusterReplicate),
			sub("failover", cmdClusterFailover),
			sub("bumpepoch", cmdClusterFixed),
			sub("delslots", cmdClusterFixed),
			sub("delslotsrange", cmdClusterFixed),
			sub("flushslots", cmdClusterFixed),
			sub("meet", cmdClusterFixed),
			sub("reset", cmdClusterFixed),
			sub("set-config-epoch", cmdClusterFixed),
			sub("setslot", cmdClusterFixed),
		}},
		// READONLY and ASKING only matter for replicas and slots in
		// migration, which the emulation has not; READONLY shows in
		// CLIENT LIST (flag r) as in Redis.
		{Name: "readonly", Handler: clusterOnly(func(c *Call) { c.S.setReadOnly(true); c.OK() })},
		{Name: "readwrite", Handler: clusterOnly(func(c *Call) { c.S.setReadOnly(false); c.OK() })},
		{Name: "asking", Handler: clusterOnly(func(c *Call) { c.OK() })},
	}
}

// clusterOnly refuses h as a redis-server without cluster-enabled does.
func clusterOnly(h Handler) Handler {
	return func(c *Call) {
		if !c.E.cluster.enabled {
			c.Err(errClusterDisabled)
			return
		}
		h(c)
	}
}

var clusterHelp = []string{
	"CLUSTER <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"ADDSLOTS <slot> [<slot> ...]",
	"    Assign slots to current node.",
	"ADDSLOTSRANGE <start slot> <end slot> [<start slot> <end slot> ...]",
	"    Assign slots which are between <start-slot> and <end-slot> to current node.",
	"BUMPEPOCH",
	"    Advance the cluster config epoch.",
	"COUNT-FAILURE-REPORTS <node-id>",
	"    Return number of failure reports for <node-id>.",
	"COUNTKEYSINSLOT <slot>",
	"    Return the number of keys in <slot>.",
	"DELSLOTS <slot> [<slot> ...]",
	"    Delete slots information from current node.",
	"DELSLOTSRANGE <start slot> <end slot> [<start slot> <end slot> ...]",
	"    Delete slots information which are between <start-slot> and <end-slot> from current node.",
	"FAILOVER [FORCE|TAKEOVER]",
	"    Promote current replica node to being a master.",
	"FORGET <node-id>",
	"    Remove a node from the cluster.",
	"GETKEYSINSLOT <slot> <count>",
	"    Return key names stored by current node in a slot.",
	"FLUSHSLOTS",
	"    Delete current node own slots information.",
	"INFO",
	"    Return information about the cluster.",
	"KEYSLOT <key>",
	"    Return the hash slot for <key>.",
	"MEET <ip> <port> [<bus-port>]",
	"    Connect nodes into a working cluster.",
	"MYID",
	"    Return the node id.",
	"NODES",
	"    Return cluster configuration seen by node. Output format:",
	"    <id> <ip:port> <flags> <master> <pings> <pongs> <epoch> <link> <slot> ...",
	"REPLICATE <node-id>",
	"    Configure current node as replica to <node-id>.",
	"RESET [HARD|SOFT]",
	"    Reset current node (default: soft).",
	"SET-CONFIG-EPOCH <epoch>",
	"    Set config epoch of current node.",
	"SETSLOT <slot> (IMPORTING <node-id>|MIGRATING <node-id>|STABLE|NODE <node-id>)",
	"    Set slot state.",
	"REPLICAS <node-id>",
	"    Return <node-id> replicas.",
	"SAVECONFIG",
	"    Force saving cluster configuration on disk.",
	"SLOTS",
	"    Return information about slots range mappings. Each range is made of:",
	"    start, end, master and replicas IP addresses, ports and ids",
	"SHARDS",
	"    Return information about slot range mappings and the nodes associated with them.",
	"LINKS",
	"    Return information about all network links between this node and its peers.",
	"    Output format is an array where each array element is a map containing attributes of a link",
	"HELP",
	"    Prints this help.",
}

// nodeAddr is the address the emulated node announces to c's client: the
// local address of its connection, the one the client dialed (what a
// Redis node started with cluster-announce-ip and cluster-announce-port
// reports). A script reports its caller's; the Go API, which has no
// connection, 127.0.0.1 and the server's port.
func nodeAddr(c *Call) (ip string, port int) {
	s := c.S
	if s.Kind == KindScript && s.ScriptCaller != nil {
		s = s.ScriptCaller.S
	}
	s.mu.Lock()
	laddr := s.laddr
	s.mu.Unlock()
	host, p, err := net.SplitHostPort(laddr)
	if err != nil {
		host, p = "127.0.0.1", c.E.configValue("port")
	}
	port, _ = strconv.Atoi(p)
	return host, port
}

// busPort is the cluster bus port Redis derives from the port (port +
// 10000); 0 where that is no port (a client port above 55535).
func busPort(port int) int {
	if port+10000 > 65535 {
		return 0
	}
	return port + 10000
}

func cmdClusterInfo(c *Call) {
	c.W.Verbatim("txt", "cluster_state:ok\r\n"+
		"cluster_slots_assigned:16384\r\n"+
		"cluster_slots_ok:16384\r\n"+
		"cluster_slots_pfail:0\r\n"+
		"cluster_slots_fail:0\r\n"+
		"cluster_known_nodes:1\r\n"+
		"cluster_size:1\r\n"+
		"cluster_current_epoch:0\r\n"+
		"cluster_my_epoch:0\r\n"+
		"cluster_stats_messages_sent:0\r\n"+
		"cluster_stats_messages_received:0\r\n"+
		"total_cluster_links_buffer_limit_exceeded:0\r\n")
}

// cmdClusterNodes: "<id> <ip:port@cport> <flags> <master> <ping-sent>
// <pong-recv> <config-epoch> <link-state> <slot>...".
func cmdClusterNodes(c *Call) {
	ip, port := nodeAddr(c)
	c.W.Verbatim("txt", c.E.cluster.myID+" "+ip+":"+strconv.Itoa(port)+"@"+strconv.Itoa(busPort(port))+
		" myself,master - 0 0 0 connected 0-16383\n")
}

func cmdClusterSlots(c *Call) {
	ip, port := nodeAddr(c)
	c.W.Array(1)
	c.W.Array(3)
	c.W.Int(0)
	c.W.Int(ClusterSlots - 1)
	c.W.Array(4)
	c.W.BulkString(ip)
	c.W.Int(int64(port))
	c.W.BulkString(c.E.cluster.myID)
	c.W.Map(0) // no other endpoint (hostname) to report
}

func cmdClusterShards(c *Call) {
	ip, port := nodeAddr(c)
	c.W.Array(1)
	c.W.Map(2)
	c.W.BulkString("slots")
	c.W.Array(2)
	c.W.Int(0)
	c.W.Int(ClusterSlots - 1)
	c.W.BulkString("nodes")
	c.W.Array(1)
	c.W.Map(7)
	c.W.BulkString("id")
	c.W.BulkString(c.E.cluster.myID)
	c.W.BulkString("port")
	c.W.Int(int64(port))
	c.W.BulkString("ip")
	c.W.BulkString(ip)
	c.W.BulkString("endpoint")
	c.W.BulkString(ip)
	c.W.BulkString("role")
	c.W.BulkString("master")
	// A master without replicas keeps no replication offset.
	c.W.BulkString("replication-offset")
	c.W.Int(0)
	c.W.BulkString("health")
	c.W.BulkString("online")
}

// parseSlotArg reads a slot as Redis's CLUSTER COUNTKEYSINSLOT and
// GETKEYSINSLOT do: any 64-bit integer first, its range after.
func parseSlotArg(c *Call, b []byte) (int64, bool) {
	n, ok := ParseInt(b)
	if !ok {
		c.Err(ErrNotInteger)
	}
	return n, ok
}

// keysInSlot calls fn for every stored key of database 0 (the only one a
// cluster has) in slot, until fn returns false. Like Redis, which counts
// its slot's dictionary entries, it includes keys whose time has passed
// but that no command or expiry cycle has removed yet. The keyspace keeps
// no index by slot: this walks every key.
func keysInSlot(c *Call, slot int, fn func(key string) bool) {
	c.Tx.ScanStored(0, nil, func(key string, _ Value, _ bool) bool {
		if KeySlot(StringBytes(key)) != slot {
			return true
		}
		return fn(key)
	})
}

func cmdClusterCountKeysInSlot(c *Call) {
	slot, ok := parseSlotArg(c, c.Args[2])
	if !ok {
		return
	}
	if slot < 0 || slot >= ClusterSlots {
		c.Err(errInvalidSlot)
		return
	}
	n := 0
	keysInSlot(c, int(slot), func(string) bool { n++; return true })
	c.W.Int(int64(n))
}

func cmdClusterGetKeysInSlot(c *Call) {
	slot, ok := parseSlotArg(c, c.Args[2])
	if !ok {
		return
	}
	count, ok := parseSlotArg(c, c.Args[3])
	if !ok {
		return
	}
	if slot < 0 || slot >= ClusterSlots || count < 0 {
		c.Err(errInvalidSlotOrKeys)
		return
	}
	var keys []string
	if count > 0 {
		keysInSlot(c, int(slot), func(key string) bool {
			keys = append(keys, key)
			return int64(len(keys)) < count
		})
	}
	c.W.Array(len(keys))
	for _, k := range keys {
		c.W.BulkString(k)
	}
}

// slotArg reads a slot of ADDSLOTS and ADDSLOTSRANGE.
func slotArg(b []byte) (int, error) {
	n, ok := ParseInt(b)
	if !ok || n < 0 || n >= ClusterSlots {
		return 0, errSlotOutOfRange
	}
	return int(n), nil
}

// cmdClusterAddSlots: every slot is this node's already, so after Redis's
// checks of the arguments the first slot is "already busy", as Redis
// answers for a slot it owns.
func cmdClusterAddSlots(c *Call) {
	for _, a := range c.Args[2:] {
		if _, err := slotArg(a); err != nil {
			c.Err(err)
			return
		}
	}
	slot, _ := slotArg(c.Args[2])
	c.Errf("ERR Slot %d is already busy", slot)
}

func cmdClusterAddSlotsRange(c *Call) {
	if len(c.Args)%2 == 1 {
		c.Err(ErrArity(c.Cmd.FullName))
		return
	}
	start, err := slotArg(c.Args[2])
	if err == nil {
		var end int
		if end, err = slotArg(c.Args[3]); err == nil && start > end {
			c.Errf("ERR start slot number %d is greater than end slot number %d", start, end)
			return
		}
	}
	if err != nil {
		c.Err(err)
		return
	}
	c.Errf("ERR Slot %d is already busy", start)
}

// isMyself reports whether id names this node; Redis answers "Unknown
// node" for any other.
func isMyself(c *Call, id []byte) bool {
	if string(id) == c.E.cluster.myID {
		return true
	}
	c.Errf("ERR Unknown node %s", id)
	return false
}

func cmdClusterReplicas(c *Call) {
	if isMyself(c, c.Args[2]) {
		c.W.Array(0)
	}
}

func cmdClusterCountFailureReports(c *Call) {
	if isMyself(c, c.Args[2]) {
		c.W.Int(0)
	}
}

func cmdClusterForget(c *Call) {
	if isMyself(c, c.Args[2]) {
		c.Err(errForgetMyself)
	}
}

func cmdClusterReplicate(c *Call) {
	if isMyself(c, c.Args[2]) {
		c.Err(errReplicateMyself)
	}
}

// subcommandSyntax is Redis's reply to a CLUSTER subcommand given more
// arguments than its variants take.
func subcommandSyntax(c *Call) {
	c.Errf("ERR unknown subcommand or wrong number of arguments for '%s'. Try CLUSTER HELP.", c.Args[1])
}

func cmdClusterFailover(c *Call) {
	if len(c.Args) > 3 {
		subcommandSyntax(c)
		return
	}
	if len(c.Args) == 3 && !EqualFold(c.Args[2], "force") && !EqualFold(c.Args[2], "takeover") {
		c.Err(ErrSyntax)
		return
	}
	c.Err(errNotReplica)
}

// cmdClusterFixed refuses the subcommands that would change the topology.
func cmdClusterFixed(c *Call) {
	if EqualFold(c.Args[1], "meet") && len(c.Args) > 5 || EqualFold(c.Args[1], "reset") && len(c.Args) > 3 {
		subcommandSyntax(c)
		return
	}
	c.Errf("ERR CLUSTER %s is not supported: lockredis emulates a single-node cluster whose node owns every slot",
		strings.ToUpper(c.Cmd.Name))
}

// commandSlot is the hash slot of a command's keys as Redis's
// getNodeByQuery finds them, -1 when it has none, or errCrossSlot. The
// keys are those of the legacy first/last/step range (which also covers
// the channels of SPUBLISH and SSUBSCRIBE), or, for commands whose keys
// move (EVAL's numkeys, ZUNIONSTORE...), those the key specs find.
func commandSlot(cmd *Command, args [][]byte) (int, error) {
	slot := -1
	check := func(key []byte) bool {
		s := KeySlot(key)
		if slot == -1 {
			slot = s
		}
		return s == slot
	}
	if cmd.MovableKeys() {
		keys, _ := commandKeys(cmd, args)
		for _, k := range keys {
			if k.pos < len(args) && !check(args[k.pos]) {
				return -1, errCrossSlot
			}
		}
		return slot, nil
	}
	if cmd.FirstKey <= 0 || cmd.FirstKey >= len(args) {
		return -1, nil
	}
	last := cmd.LastKey
	if last < 0 {
		last += len(args)
	}
	step := max(cmd.Step, 1)
	for i := cmd.FirstKey; i <= last && i < len(args); i += step {
		if !check(args[i]) {
			return -1, errCrossSlot
		}
	}
	return slot, nil
}

// clusterRefusal is the dispatcher's CROSSSLOT check of a client's
// command (Redis's processCommand calls getNodeByQuery there): the keys
// of one command, or of a whole MULTI queue at EXEC, must share a slot.
// The emulated node owns every slot, so there is never a redirection.
func (e *Engine) clusterRefusal(s *Session, cmd *Command, args [][]byte) error {
	if cmd != e.execCmd {
		_, err := commandSlot(cmd, args)
		return err
	}
	if !s.InMulti() {
		return nil
	}
	_, err := queueSlot(s)
	return err
}

// queueSlot is the slot of the keys of s's MULTI queue, -1 when it has
// none, or errCrossSlot.
func queueSlot(s *Session) (int, error) {
	slot := -1
	for _, q := range s.multi.queue {
		qs, err := commandSlot(q.cmd, q.args)
		if err != nil {
			return -1, err
		}
		if qs != -1 && slot != -1 && qs != slot {
			return -1, errCrossSlot
		}
		if slot == -1 {
			slot = qs
		}
	}
	return slot, nil
}

// ScriptSlot is the slot a script's redis.call keys are held to when it
// starts (Redis's slot of the calling client): that of its declared keys,
// or, inside EXEC, of the keys of the whole transaction; -1 when there
// are none.
func ScriptSlot(c *Call, keys [][]byte) int {
	if c.S.InMulti() { // the EVAL runs inside EXEC
		slot, _ := queueSlot(c.S)
		return slot
	}
	if len(keys) > 0 {
		return KeySlot(keys[0])
	}
	return -1
}

// scriptClusterRefusal is Redis's scriptVerifyClusterState for a
// script's redis.call: its keys must share a slot, and, unless the
// script allows cross-slot keys (no shebang, or allow-cross-slot-keys),
// the slot of the script's first keys (its declared ones, else the first
// it touched).
func scriptClusterRefusal(s *Session, cmd *Command, args [][]byte) error {
	slot, err := commandSlot(cmd, args)
	if err != nil {
		return errScriptNonLocalKey
	}
	if slot == -1 || s.ScriptCrossSlot {
		return nil
	}
	if s.ScriptSlot == -1 {
		s.ScriptSlot = slot
		return nil
	}
	if s.ScriptSlot != slot {
		return errScriptCrossSlot
	}
	return nil
}

// rejectExecCrossSlot refuses an EXEC whose queue spans slots as Redis
// does: the transaction is discarded and the reply is CROSSSLOT itself,
// not EXECABORT.
func (e *Engine) rejectExecCrossSlot(s *Session, cmd *Command, w Writer, err error) {
	e.tally.of(cmd).stats.rejected.Add(1)
	e.ResetTransaction(s)
	e.CountError(err.Error())
	w.Error(err.Error())
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// setReadOnly records READONLY for CLIENT LIST (flag r).
func (s *Session) setReadOnly(on bool) {
	s.mu.Lock()
	s.readOnly = on
	s.mu.Unlock()
}
