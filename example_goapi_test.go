package lockredis_test

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"time"

	"github.com/lockredis/lockredis"
)

// A lock taken with SET NX PX expires when the server's clock passes its
// lease: FastForward moves the clock, nobody sleeps. In a test,
// lockredis.RunT(t) starts the server and closes it when the test ends.
func ExampleServer_FastForward() {
	srv, err := lockredis.Run()
	if err != nil {
		panic(err)
	}
	defer srv.Close()

	fmt.Println(srv.Do("SET", "lock:report", "worker-1", "NX", "PX", "30000"))
	fmt.Println(srv.Do("SET", "lock:report", "worker-2", "NX", "PX", "30000"))
	srv.FastForward(31 * time.Second) // worker-1 hung past its lease
	fmt.Println(srv.Do("SET", "lock:report", "worker-2", "NX", "PX", "30000"))
	fmt.Println(srv.Get("lock:report"))
	// Output:
	// OK
	// (nil)
	// OK
	// worker-2 <nil>
}

// With ManualClock the server's time stands still: it moves only by
// FastForward and SetTime, so TTLs and TIME are exact in a test.
func ExampleOptions_manualClock() {
	start := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	srv := lockredis.NewServer(lockredis.Options{ManualClock: true, StartTime: start})
	if err := srv.Start(); err != nil {
		panic(err)
	}
	defer srv.Close()

	srv.SetTTL("session", "alice", time.Hour)
	time.Sleep(10 * time.Millisecond) // real time passes; the server's does not
	fmt.Println(srv.TTL("session"))
	srv.SetTime(start.Add(59 * time.Minute))
	fmt.Println(srv.TTL("session"), srv.Do("TIME").Elems[0])
	srv.FastForward(time.Minute) // at its expiry millisecond it is still there
	fmt.Println(srv.Exists("session"))
	srv.FastForward(time.Millisecond)
	fmt.Println(srv.Exists("session"))
	// Output:
	// 1h0m0s
	// 1m0s "1893459540"
	// true
	// false
}

// SetError makes every command fail, to test how the code under test
// copes with a Redis that answers errors; SetError("") heals it. The
// direct helpers still read the data.
func ExampleServer_SetError() {
	srv, err := lockredis.Run()
	if err != nil {
		panic(err)
	}
	defer srv.Close()

	srv.Set("k", "v")
	srv.SetError("LOADING Redis is loading the dataset in memory")
	fmt.Println(srv.Do("GET", "k"))
	v, _ := srv.Get("k")
	fmt.Println(v)
	srv.SetError("")
	fmt.Println(srv.Do("GET", "k"))
	// Output:
	// (error) LOADING Redis is loading the dataset in memory
	// v
	// "v"
}

// Restart stops the server and starts it again on the same address, as a
// redis-server restarted with persistence: clients are disconnected, the
// keys, their expiry and the fencing tokens stay.
func ExampleServer_Restart() {
	srv, err := lockredis.Run()
	if err != nil {
		panic(err)
	}
	defer srv.Close()

	srv.SetTTL("lock:job", "worker-1", time.Minute)
	before := srv.Do("LOCK.TOKEN", "lock:job").Int
	addr := srv.Addr()
	if err := srv.Restart(); err != nil {
		panic(err)
	}
	v, _ := srv.Get("lock:job")
	fmt.Println(srv.Addr() == addr, v, srv.TTL("lock:job") > 59*time.Second)
	srv.Set("lock:other", "worker-2")
	fmt.Println(srv.Do("LOCK.TOKEN", "lock:other").Int > before)
	// Output:
	// true worker-1 true
	// true
}

// The typed helpers read and write each type directly, as the commands
// do; DB(n) picks a database. WRONGTYPE and other error replies come
// back as errors.
func ExampleDB() {
	srv, err := lockredis.Run()
	if err != nil {
		panic(err)
	}
	defer srv.Close()

	srv.HSet("user:1", "name", "alice", "visits", "1")
	srv.HIncr("user:1", "visits", 1)
	srv.Rpush("queue", "a", "b", "c")
	srv.SetAdd("tags", "red", "blue")
	srv.ZAdd("scores", 12.5, "alice")
	srv.DB(3).Set("k", "in db 3")

	h, _ := srv.Hash("user:1")
	head, _ := srv.Lpop("queue")
	rest, _ := srv.List("queue")
	tags, _ := srv.Members("tags")
	score, _ := srv.ZScore("scores", "alice")
	k, _ := srv.DB(3).Get("k")
	fmt.Println(h, head, rest, tags, score, k)
	_, err = srv.Lpush("user:1", "x")
	fmt.Println(err, srv.Type("user:1"))
	// Output:
	// map[name:alice visits:2] a [b c] [blue red] 12.5 in db 3
	// WRONGTYPE Operation against a key holding the wrong kind of value hash
}

// RunTLS serves TLS with a fresh self-signed certificate;
// ClientTLSConfig trusts it. Give both to the client under test.
func ExampleRunTLS() {
	srv, err := lockredis.RunTLS(nil)
	if err != nil {
		panic(err)
	}
	defer srv.Close()

	conn, err := tls.Dial("tcp", srv.Addr(), srv.ClientTLSConfig())
	if err != nil {
		panic(err)
	}
	defer conn.Close()
	conn.Write([]byte("PING\r\n"))
	line, _ := bufio.NewReader(conn).ReadString('\n')
	fmt.Printf("%q\n", line)
	// Output:
	// "+PONG\r\n"
}
