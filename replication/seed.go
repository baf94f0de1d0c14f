package replication

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/lockredis/lockredis/engine"
)

// Seeding a new group from a standalone node's append-only file
// (Config.SeedAOF, --raft-seed-aof).
//
// The first leader of a group whose log has never carried data reads the
// file into a scratch engine (a copy of it: loading may cut a torn tail)
// and makes its whole state one kindSeed entry, before it serves clients.
// Every node applies that entry as a snapshot restore; the fencing-token
// counter comes with it, so tokens go on above the standalone node's.
// Whether the group has data is part of the replicated state (fsm.hasData,
// in snapshots too), so every node decides alike: a seed entry after data
// is ignored everywhere, and a later leader with the setting seeds
// nothing. Give the setting to every first member (with a copy of the
// file each), or start the seeding node as a one-node group and add the
// others (docs/replication.md).

// seedState reads the append-only file at path into a snapshot stream
// (keyspace.Store.WriteSnapshot's format).
func seedState(path string, databases int, logf func(level, format string, args ...any)) ([]byte, error) {
	src, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("raft-seed-aof: %v", err)
	}
	defer src.Close()
	dir, err := os.MkdirTemp("", "lockredis-seed-")
	if err != nil {
		return nil, fmt.Errorf("raft-seed-aof: %v", err)
	}
	defer os.RemoveAll(dir)
	dst, err := os.Create(filepath.Join(dir, "appendonly.aof"))
	if err != nil {
		return nil, fmt.Errorf("raft-seed-aof: %v", err)
	}
	_, err = io.Copy(dst, src)
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("raft-seed-aof: copying %s: %v", path, err)
	}
	eng, err := engine.New(engine.Config{
		Params: map[string]string{
			"databases": strconv.Itoa(databases), "dir": dir, "appendonly": "yes",
			"appendfilename": "appendonly.aof", "restart-fence": "off",
		},
		Logf: logf,
	})
	if err != nil {
		return nil, fmt.Errorf("raft-seed-aof: loading %s: %v", path, err)
	}
	defer eng.Close()
	var buf bytesBuffer
	if err := eng.Keyspace().WriteSnapshot(&buf); err != nil {
		return nil, fmt.Errorf("raft-seed-aof: %v", err)
	}
	return buf.b, nil
}

// seed makes the seed entry when the group has no data yet; a new leader
// calls it before it serves (takeOver).
func (n *Node) seed(term uint64) {
	if n.cfg.SeedAOF == "" || n.fsm.hasDataNow() {
		return
	}
	state, err := seedState(n.cfg.SeedAOF, n.eng.Databases(), n.cfg.Logf)
	if err != nil {
		n.cfg.Logf("warning", "Not seeding the group: %v", err)
		return
	}
	r := n.r.Load()
	if err := r.Apply(n.makeEntry(kindSeed, term, state), 0).Error(); err != nil {
		n.cfg.Logf("warning", "Seeding the group from %s failed: %v", n.cfg.SeedAOF, err)
		return
	}
	n.cfg.Logf("notice", "Seeded the group from %s (%d bytes of state)", n.cfg.SeedAOF, len(state))
}
