package engine

import (
	"errors"
)

// REPLICAOF (SLAVEOF), FAILOVER, SYNC, PSYNC and REPLCONF (replication.c).
//
// lockredis has no replication: it is always a master without replicas
// (ROLE, INFO replication). Each command answers as Redis 7.0 answers on
// such a master where that answer is true here: REPLICAOF NO ONE is +OK,
// FAILOVER finds no replica, REPLCONF's settings are accepted. Where Redis
// would start replicating (REPLICAOF host port, SYNC, PSYNC) lockredis
// refuses with an error saying so, after the argument checks Redis makes
// first, rather than pretend; and REPLCONF ACK and GETACK, which Redis
// answers with nothing at all outside a replication link, get an error so
// that no client waits forever for a reply.

var (
	errReplicaofCluster  = errors.New("ERR REPLICAOF not allowed in cluster mode.")
	errMasterPort        = errors.New("ERR Invalid master port")
	errNoReplicaof       = errors.New("ERR lockredis has no replication: it cannot become a replica (only REPLICAOF NO ONE is accepted)")
	errFailoverCluster   = errors.New("ERR FAILOVER not allowed in cluster mode. Use CLUSTER FAILOVER command instead.")
	errNoFailover        = errors.New("ERR No failover in progress.")
	errFailoverTimeout   = errors.New("ERR FAILOVER timeout must be greater than 0")
	errFailoverReplicas  = errors.New("ERR FAILOVER requires connected replicas.")
	errPsyncFailover     = errors.New("ERR PSYNC FAILOVER can't be sent to a master.")
	errNoSync            = errors.New("ERR lockredis has no replication: SYNC and PSYNC are not supported")
	errReplconfAck       = errors.New("ERR lockredis has no replication: REPLCONF ACK and GETACK are for replication links only")
	errReplconfRdbOnly   = errors.New("ERR value is out of range, value must between 0 and 1")
	errReplconfNoFilters = errors.New("ERR Missing rdb-filter-only values")
)

func replicationCommands() []*Command {
	return []*Command{
		{Name: "replicaof", Handler: cmdReplicaof},
		{Name: "slaveof", Handler: cmdReplicaof},
		{Name: "failover", Handler: cmdFailover},
		{Name: "sync", Handler: cmdSync},
		{Name: "psync", Handler: cmdSync},
		{Name: "replconf", Handler: cmdReplconf},
	}
}

// cmdReplicaof is REPLICAOF host port and REPLICAOF NO ONE.
func cmdReplicaof(c *Call) {
	if c.E.ClusterEnabled() {
		c.Err(errReplicaofCluster)
		return
	}
	if EqualFold(c.Args[1], "no") && EqualFold(c.Args[2], "one") {
		c.OK() // already a master
		return
	}
	if port, ok := ParseInt(c.Args[2]); !ok || port < 0 || port > 65535 {
		c.Err(errMasterPort)
		return
	}
	c.E.Logf("warning", "REPLICAOF %s %s refused: lockredis has no replication", c.Args[1], c.Args[2])
	c.Err(errNoReplicaof)
}

// cmdFailover is FAILOVER [TO host port [FORCE]] [ABORT] [TIMEOUT ms]:
// after Redis's argument checks, a master without replicas has nothing to
// fail over to.
func cmdFailover(c *Call) {
	if c.E.ClusterEnabled() {
		c.Err(errFailoverCluster)
		return
	}
	if len(c.Args) == 2 && EqualFold(c.Args[1], "abort") {
		c.Err(errNoFailover)
		return
	}
	timeout, host, force := int64(0), false, false
	for j := 1; j < len(c.Args); j++ {
		a := c.Args[j]
		switch {
		case EqualFold(a, "timeout") && j+1 < len(c.Args) && timeout == 0:
			n, ok := ParseInt(c.Args[j+1])
			if !ok {
				c.Err(ErrNotInteger)
				return
			}
			if n <= 0 {
				c.Err(errFailoverTimeout)
				return
			}
			timeout = n
			j++
		case EqualFold(a, "to") && j+2 < len(c.Args) && !host:
			if _, ok := ParseInt(c.Args[j+2]); !ok {
				c.Err(ErrNotInteger)
				return
			}
			host = true
			j += 2
		case EqualFold(a, "force") && !force:
			force = true
		default:
			c.Err(ErrSyntax)
			return
		}
	}
	c.Err(errFailoverReplicas)
}

// cmdSync is SYNC and PSYNC replid offset: the checks Redis makes before it
// would start a full synchronization, then a refusal.
func cmdSync(c *Call) {
	psync := EqualFold(c.Args[0], "psync")
	if psync && len(c.Args) > 3 && EqualFold(c.Args[3], "failover") {
		c.Err(errPsyncFailover)
		return
	}
	if psync {
		if _, ok := ParseInt(c.Args[2]); !ok {
			c.Err(ErrNotInteger)
			return
		}
	}
	c.Err(errNoSync)
}

// cmdReplconf is REPLCONF option value [option value ...]: the options a
// replica sends before PSYNC are checked as Redis checks them and then have
// nothing to configure.
func cmdReplconf(c *Call) {
	if len(c.Args)%2 == 0 {
		c.Err(ErrSyntax)
		return
	}
	for j := 1; j < len(c.Args); j += 2 {
		opt, val := c.Args[j], c.Args[j+1]
		switch {
		case EqualFold(opt, "listening-port"):
			if _, ok := ParseInt(val); !ok {
				c.Err(ErrNotInteger)
				return
			}
		case EqualFold(opt, "ip-address"):
			if len(val) >= netHostStrLen {
				c.Errf("ERR REPLCONF ip-address provided by replica instance is too long: %d bytes", len(val))
				return
			}
		case EqualFold(opt, "capa"):
			// Capabilities are ignored, as Redis ignores those it does not know.
		case EqualFold(opt, "ack"), EqualFold(opt, "getack"):
			c.Err(errReplconfAck)
			return
		case EqualFold(opt, "rdb-only"):
			n, ok := ParseInt(val)
			if !ok {
				c.Err(ErrNotInteger)
				return
			}
			if n < 0 || n > 1 {
				c.Err(errReplconfRdbOnly)
				return
			}
		case EqualFold(opt, "rdb-filter-only"):
			filters, ok := SplitArgs(string(val))
			if !ok {
				c.Err(errReplconfNoFilters)
				return
			}
			for _, f := range filters {
				if !EqualFold([]byte(f), "functions") {
					c.W.Error(sanitizeLine("ERR Unsupported rdb-filter-only option: " + f))
					return
				}
			}
		default:
			c.W.Error(sanitizeLine("ERR Unrecognized REPLCONF option: " + string(opt)))
			return
		}
	}
	c.OK()
}

// netHostStrLen is Redis's NET_HOST_STR_LEN: the longest address a replica
// may announce, plus one.
const netHostStrLen = 256
