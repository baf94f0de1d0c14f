// A program in another module that embeds lockredis: docs/embedding.md
// shows this file, and compat_test's TestDocsUseModule builds and runs it
// the way the page says.

// snippet: usemodule
package main

import (
	"fmt"
	"log"

	"github.com/lockredis/lockredis"
)

func main() {
	srv, err := lockredis.Run() // a free port on 127.0.0.1
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	srv.Set("lock:job", "worker-1")
	v, _ := srv.Get("lock:job")
	fmt.Println("lockredis on", srv.Addr(), "lock:job =", v)
}

// end snippet
