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
	// snippet: start-cluster
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
	// end snippet

	// Output:
	// majority: true
	// node 0 still holds it: false
	// node 1 still holds it: true
}

// Waiting for a key to expire: subscribe to the "expired" keyspace event,
// then move the server's clock past the key's TTL. In a test,
// lockredis.RunT(t) starts the server and closes it when the test ends.
func ExampleServer_Subscribe() {
	srv, err := lockredis.Run()
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	// As in Redis, no event is published until notify-keyspace-events
	// asks for it: E (keyevent channels), x (expired).
	srv.Do("CONFIG", "SET", "notify-keyspace-events", "Ex")
	sub := srv.Subscribe("__keyevent@0__:expired")
	defer sub.Close()

	srv.Do("SET", "session:42", "alice", "PX", "30000")
	srv.FastForward(31 * time.Second)

	msg := <-sub.C
	fmt.Println(msg.Channel, msg.Message)
	// Output:
	// __keyevent@0__:expired session:42
}

// The lock commands through Do: LOCK.ACQUIRE answers the lock's fencing
// token, a second owner is refused, and after the first owner's lease ran
// out the next owner gets a larger token; LOCK.CHECK tells the resource the
// lock protects that the first owner's token no longer holds it.
func Example() {
	srv, err := lockredis.Run()
	if err != nil {
		panic(err)
	}
	defer srv.Close()

	first := srv.Do("LOCK.ACQUIRE", "lock:report", "worker-1", "30000")
	fmt.Println("worker-1:", first)
	fmt.Println("worker-2:", srv.Do("LOCK.ACQUIRE", "lock:report", "worker-2", "30000"))
	srv.FastForward(31 * time.Second) // worker-1 stalls past its lease
	fmt.Println("worker-2:", srv.Do("LOCK.ACQUIRE", "lock:report", "worker-2", "30000"))
	fmt.Println("worker-1's token holds it:", srv.Do("LOCK.CHECK", "lock:report", fmt.Sprint(first.Int)))
	// Output:
	// worker-1: (integer) 1
	// worker-2: (nil)
	// worker-2: (integer) 2
	// worker-1's token holds it: (integer) 0
}
