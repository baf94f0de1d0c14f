// Command floor is the least a server built on the fixed stack can do per
// request: redcon's goroutine-per-connection server, and optionally one
// buntdb transaction per command; or, to compare loops, gnet's event loops
// with redcon's parser. floor.sh runs it beside redis-server and
// lockredis with the same redis-benchmark load, to show how much of the
// distance to redis-server is lockredis's own and how much is the stack's.
//
//	floor -port 16390 -mode noop    # +OK to every command, no work
//	floor -port 16391 -mode buntdb  # SET k v NX PX ms as a buntdb Get+Set
//	floor -port 16392 -mode gnet    # +OK to every command, on gnet's event loops (gnet.go)
package main

import (
	"flag"
	"fmt"
	"log"
	"strings"

	"github.com/tidwall/buntdb"
	"github.com/tidwall/redcon"
)

func main() {
	port := flag.Int("port", 16390, "TCP port")
	mode := flag.String("mode", "noop", "noop, buntdb or gnet")
	loops := flag.Int("loops", 0, "gnet: event loops (0: one per core)")
	flag.Parse()
	if *mode == "gnet" {
		log.Fatal(serveGnet(*port, *loops))
	}

	db, err := buntdb.Open(":memory:")
	if err != nil {
		log.Fatal(err)
	}
	var handler func(redcon.Conn, redcon.Command)
	switch *mode {
	case "noop":
		handler = func(c redcon.Conn, _ redcon.Command) { c.WriteString("OK") }
	case "buntdb":
		// Only the lock-acquire shape: SET key value NX PX ms. The expiry
		// is kept in the value, as lockredis does; buntdb's own TTL is in
		// whole seconds on disk and is not used.
		handler = func(c redcon.Conn, cmd redcon.Command) {
			if len(cmd.Args) < 3 || !strings.EqualFold(string(cmd.Args[0]), "set") {
				c.WriteString("OK") // PING, CONFIG GET from redis-benchmark
				return
			}
			key, val := string(cmd.Args[1]), string(cmd.Args[2])
			created := false
			err := db.Update(func(tx *buntdb.Tx) error {
				if _, err := tx.Get(key); err == nil {
					return nil
				}
				created = true
				_, _, err := tx.Set(key, val, nil)
				return err
			})
			switch {
			case err != nil:
				c.WriteError("ERR " + err.Error())
			case created:
				c.WriteString("OK")
			default:
				c.WriteNull()
			}
		}
	default:
		log.Fatalf("unknown mode %q", *mode)
	}
	log.Fatal(redcon.ListenAndServe(fmt.Sprintf("127.0.0.1:%d", *port), handler, nil, nil))
}
