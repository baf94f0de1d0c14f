package engine

import (
	"crypto/rand"
	"encoding/hex"
)

// The cluster emulation's state (cmd_cluster.go has its commands and
// the dispatcher's slot checks).

// clusterState is the emulated cluster's fixed state.
type clusterState struct {
	enabled bool
	myID    string // 40 hex digits, like a Redis node name
}

func newClusterState(cfg settings) clusterState {
	var id [20]byte
	rand.Read(id[:])
	return clusterState{enabled: cfg.Cluster, myID: hex.EncodeToString(id[:])}
}

// redisMode is INFO's redis_mode and HELLO's mode.
func (cs *clusterState) mode() string {
	if cs.enabled {
		return "cluster"
	}
	return "standalone"
}
