package lockredis_test

import (
	"fmt"
	"time"

	"github.com/lockredis/lockredis"
)

// A Redlock-style acquisition across five servers: a lock is held when a
// majority granted it. One node is down and one is hung; the other three
// still make a majority. Real clients (redsync, node-redlock...) do the same
// over the network against Cluster.Addrs().
//
// In a test, lockredis.RunCluster(t, 5) does the same and closes the
// servers when the test ends.
func ExampleStartCluster() {
	nodes, err := lockredis.StartCluster(5)
	if err != nil {
		panic(err)
	}
	defer nodes.Close()
	nodes[3].Close() // down
	nodes[4].Pause() // hung: it would never answer
	defer nodes[4].Resume()

	granted := 0
	for _, n := range nodes[:3] {
		if r := n.Do("SET", "lock:order:42", "token-1", "NX", "PX", "30000"); r.Str == "OK" {
			granted++
		}
	}
	fmt.Println("majority:", granted >= len(nodes)/2+1)

	// One node's clock jumps past the lease: it forgets the lock, the
	// others still hold it.
	nodes[0].FastForward(31 * time.Second)
	fmt.Println("node 0 still holds it:", nodes[0].Exists("lock:order:42"))
	fmt.Println("node 1 still holds it:", nodes[1].Exists("lock:order:42"))
	// Output:
	// majority: true
	// node 0 still holds it: false
	// node 1 still holds it: true
}
