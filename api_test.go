package lockredis

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"
)

const wrongType = "WRONGTYPE Operation against a key holding the wrong kind of value"

// TestTypedHelpers runs every typed helper, on database 0 and through
// DB(n), against what the same commands answer through Do.
func TestTypedHelpers(t *testing.T) {
	srv := RunT(t)
	for _, db := range []int{0, 5} {
		d := srv.DB(db)
		srv.Do("SELECT", fmt.Sprint(db))
		for _, c := range []struct {
			name string
			run  func() (any, error)
			want any
			err  string
		}{
			{"Incr new", func() (any, error) { return d.Incr("n", 5) }, 5, ""},
			{"Incr", func() (any, error) { return d.Incr("n", -7) }, -2, ""},
			{"IncrByFloat", func() (any, error) { return d.IncrByFloat("f", 1.5) }, 1.5, ""},
			{"IncrByFloat again", func() (any, error) { return d.IncrByFloat("f", 0.25) }, 1.75, ""},
			{"Incr not a number", func() (any, error) { d.Set("s", "x"); return d.Incr("s", 1) }, 0, "ERR value is not an integer or out of range"},
			{"Type string", func() (any, error) { return d.Type("s"), nil }, "string", ""},
			{"Type none", func() (any, error) { return d.Type("nope"), nil }, "none", ""},

			{"HSet", func() (any, error) { return d.HSet("h", "a", "1", "b", "2") }, 2, ""},
			{"HSet update", func() (any, error) { return d.HSet("h", "a", "10", "c", "3") }, 1, ""},
			{"HSet odd", func() (any, error) { return d.HSet("h", "a") }, 0, "ERR wrong number of arguments for 'hset' command"},
			{"HGet", func() (any, error) { return d.HGet("h", "a") }, "10", ""},
			{"HGet missing field", func() (any, error) { return d.HGet("h", "zz") }, "", ErrKeyNotFound.Error()},
			{"HGet wrong type", func() (any, error) { return d.HGet("s", "a") }, "", wrongType},
			{"HKeys", func() (any, error) { return d.HKeys("h") }, []string{"a", "b", "c"}, ""},
			{"HKeys missing", func() (any, error) { return d.HKeys("nope") }, []string(nil), ErrKeyNotFound.Error()},
			{"Hash", func() (any, error) { return d.Hash("h") }, map[string]string{"a": "10", "b": "2", "c": "3"}, ""},
			{"HIncr", func() (any, error) { return d.HIncr("h", "b", 40) }, 42, ""},
			{"HIncrFloat", func() (any, error) { return d.HIncrFloat("h", "c", 0.5) }, 3.5, ""},
			{"HDel", func() (any, error) { return d.HDel("h", "a", "zz") }, 1, ""},
			{"Type hash", func() (any, error) { return d.Type("h"), nil }, "hash", ""},

			{"Lpush", func() (any, error) { return d.Lpush("l", "b", "a") }, 2, ""},
			{"Rpush", func() (any, error) { return d.Rpush("l", "c", "d") }, 4, ""},
			{"List", func() (any, error) { return d.List("l") }, []string{"a", "b", "c", "d"}, ""},
			{"Lpop", func() (any, error) { return d.Lpop("l") }, "a", ""},
			{"Rpop", func() (any, error) { return d.Rpop("l") }, "d", ""},
			{"List missing", func() (any, error) { return d.List("nope") }, []string(nil), ErrKeyNotFound.Error()},
			{"Lpop missing", func() (any, error) { return d.Lpop("nope") }, "", ErrKeyNotFound.Error()},
			{"Lpush wrong type", func() (any, error) { return d.Lpush("h", "x") }, 0, wrongType},

			{"SetAdd", func() (any, error) { return d.SetAdd("set", "b", "a", "c", "a") }, 3, ""},
			{"Members", func() (any, error) { return d.Members("set") }, []string{"a", "b", "c"}, ""},
			{"IsMember", func() (any, error) { return d.IsMember("set", "b") }, true, ""},
			{"IsMember not", func() (any, error) { return d.IsMember("set", "z") }, false, ""},
			{"SRem", func() (any, error) { return d.SRem("set", "b", "z") }, 1, ""},
			{"Members missing", func() (any, error) { return d.Members("nope") }, []string(nil), ErrKeyNotFound.Error()},
			{"IsMember wrong type", func() (any, error) { return d.IsMember("l", "b") }, false, wrongType},

			{"ZAdd", func() (any, error) { return d.ZAdd("z", 2, "two") }, true, ""},
			{"ZAdd more", func() (any, error) { d.ZAdd("z", 1, "one"); return d.ZAdd("z", 3.5, "three") }, true, ""},
			{"ZAdd update", func() (any, error) { return d.ZAdd("z", 3, "three") }, false, ""},
			{"ZMembers", func() (any, error) { return d.ZMembers("z") }, []string{"one", "two", "three"}, ""},
			{"ZScore", func() (any, error) { return d.ZScore("z", "three") }, 3.0, ""},
			{"ZScore missing", func() (any, error) { return d.ZScore("z", "four") }, 0.0, ErrKeyNotFound.Error()},
			{"SortedSet", func() (any, error) { return d.SortedSet("z") }, map[string]float64{"one": 1, "two": 2, "three": 3}, ""},
			{"ZRem", func() (any, error) { return d.ZRem("z", "two") }, true, ""},
			{"ZRem again", func() (any, error) { return d.ZRem("z", "two") }, false, ""},
			{"ZAdd NaN", func() (any, error) { return d.ZAdd("z", nan(), "x") }, false, "ERR value is not a valid float"},
			{"ZMembers wrong type", func() (any, error) { return d.ZMembers("set") }, []string(nil), wrongType},
			{"Type zset", func() (any, error) { return d.Type("z"), nil }, "zset", ""},
		} {
			got, err := c.run()
			if (err == nil) != (c.err == "") || (err != nil && err.Error() != c.err) {
				t.Errorf("db %d %s: error %v, want %q", db, c.name, err, c.err)
			}
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("db %d %s = %v, want %v", db, c.name, got, c.want)
			}
		}
		if _, err := d.HGet("l", "x"); err != ErrWrongType {
			t.Errorf("db %d: HGet of a list: %v, want ErrWrongType", db, err)
		}
		// The helpers wrote what the commands read.
		if got := srv.Do("HGET", "h", "b").String(); got != `"42"` {
			t.Errorf("db %d: HGET h b = %s", db, got)
		}
		if got := srv.Do("LRANGE", "l", "0", "-1").String(); got != `["b" "c"]` {
			t.Errorf("db %d: LRANGE = %s", db, got)
		}
		d.Set("flushed", "x")
		d.FlushDB()
		if d.Exists("flushed") || len(d.Keys()) != 0 {
			t.Errorf("db %d: FlushDB left %q", db, d.Keys())
		}
	}
	if _, err := srv.DB(99).SetAdd("s", "x"); err == nil || err.Error() != "ERR DB index is out of range" {
		t.Errorf("DB(99).SetAdd: %v", err)
	}
}

func nan() float64 { var z float64; return z / z }

// The helpers behave as the commands: expiry applies to them.
func TestHelpersExpire(t *testing.T) {
	srv := RunT(t)
	srv.HSet("h", "f", "v")
	if !srv.Expire("h", time.Second) {
		t.Fatal("Expire of an existing key")
	}
	if ttl := srv.TTL("h"); ttl <= 900*time.Millisecond || ttl > time.Second {
		t.Fatalf("Expire: TTL %v", ttl)
	}
	if srv.Expire("nope", time.Second) {
		t.Error("Expire of a missing key")
	}
	srv.FastForward(2 * time.Second)
	if _, err := srv.Hash("h"); err != ErrKeyNotFound {
		t.Errorf("Hash after expiry: %v", err)
	}
	srv.Rpush("l", "a")
	srv.Expire("l", time.Second)
	if !srv.Persist("l") || srv.Persist("l") {
		t.Error("Persist")
	}
	srv.FastForward(2 * time.Second)
	if _, err := srv.List("l"); err != nil {
		t.Errorf("persisted list: %v", err)
	}
}

// fakeTB records what the Check helpers report.
type fakeTB struct {
	errs []string
}

func (f *fakeTB) Helper()        {}
func (f *fakeTB) Cleanup(func()) {}
func (f *fakeTB) Errorf(format string, args ...any) {
	f.errs = append(f.errs, fmt.Sprintf(format, args...))
}
func (f *fakeTB) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }

func TestCheckHelpers(t *testing.T) {
	srv := RunT(t)
	srv.Set("s", "v")
	srv.Rpush("l", "a", "b")
	srv.SetAdd("set", "x", "y")
	srv.HSet("h", "f", "1", "g", "2")
	srv.ZAdd("z", 1.5, "m")
	srv.DB(2).Set("s", "two")
	for _, c := range []struct {
		name  string
		check func(t TB)
		want  string // the error reported, "" for none
	}{
		{"CheckGet", func(t TB) { srv.CheckGet(t, "s", "v") }, ""},
		{"CheckGet differs", func(t TB) { srv.CheckGet(t, "s", "w") }, `lockredis: GET "s" = "v", want "w"`},
		{"CheckGet missing", func(t TB) { srv.CheckGet(t, "nope", "v") }, `lockredis: GET "nope": lockredis: key not found`},
		{"CheckGet wrong type", func(t TB) { srv.CheckGet(t, "l", "v") }, `lockredis: GET "l": ` + wrongType},
		{"CheckGet DB", func(t TB) { srv.DB(2).CheckGet(t, "s", "two") }, ""},
		{"CheckList", func(t TB) { srv.CheckList(t, "l", "a", "b") }, ""},
		{"CheckList order", func(t TB) { srv.CheckList(t, "l", "b", "a") }, `lockredis: list "l" = ["a" "b"], want ["b" "a"]`},
		{"CheckList missing", func(t TB) { srv.CheckList(t, "nope") }, `lockredis: list "nope": lockredis: key not found`},
		{"CheckSet any order", func(t TB) { srv.CheckSet(t, "set", "y", "x") }, ""},
		{"CheckSet differs", func(t TB) { srv.CheckSet(t, "set", "x") }, `lockredis: set "set" = ["x" "y"], want ["x"]`},
		{"CheckHash", func(t TB) { srv.CheckHash(t, "h", map[string]string{"g": "2", "f": "1"}) }, ""},
		{"CheckHash differs", func(t TB) { srv.CheckHash(t, "h", map[string]string{"f": "1"}) }, `lockredis: hash "h" = map[f:1 g:2], want map[f:1]`},
		{"CheckSortedSet", func(t TB) { srv.CheckSortedSet(t, "z", map[string]float64{"m": 1.5}) }, ""},
		{"CheckSortedSet differs", func(t TB) { srv.CheckSortedSet(t, "z", map[string]float64{"m": 2}) }, `lockredis: sorted set "z" = map[m:1.5], want map[m:2]`},
	} {
		var f fakeTB
		c.check(&f)
		if got := strings.Join(f.errs, "\n"); got != c.want {
			t.Errorf("%s: reported %q, want %q", c.name, got, c.want)
		}
	}
}

// SetError answers every command with the error, through the dispatcher:
// on sockets, inside MULTI and scripts, and Do; not the direct helpers.
func TestSetError(t *testing.T) {
	srv := RunT(t)
	c, rd := dialT(t, srv)
	srv.Set("k", "v")
	rawDo(t, c, rd, "MULTI")
	if got := rawDo(t, c, rd, "SET a 1"); got != "+QUEUED" {
		t.Fatal(got)
	}
	srv.SetError("LOADING Redis is loading\r\nthe dataset")
	for _, step := range []struct{ cmd, want string }{
		{"GET k", "-LOADING Redis is loading  the dataset"}, // refused, not queued
		{"EXEC", "-LOADING Redis is loading  the dataset"},
		{"NOSUCHCOMMAND", "-LOADING Redis is loading  the dataset"},
		{"PING", "-LOADING Redis is loading  the dataset"},
	} {
		if got := rawDo(t, c, rd, step.cmd); got != step.want {
			t.Errorf("%s = %q, want %q", step.cmd, got, step.want)
		}
	}
	if got := srv.Do("GET", "k").String(); got != "(error) LOADING Redis is loading  the dataset" {
		t.Errorf("Do = %s", got)
	}
	srv.CheckGet(t, "k", "v") // the direct helpers still see the data
	if n := srv.CommandCount(); n != 1 {
		t.Errorf("CommandCount = %d: refused commands ran", n) // only MULTI ran
	}
	srv.SetError("")
	// EXEC ended the transaction: SET a 1 never ran.
	for _, step := range []struct{ cmd, want string }{
		{"GET a", "$-1"},
		{"PING", "+PONG"},
	} {
		if got := rawDo(t, c, rd, step.cmd); got != step.want {
			t.Errorf("after SetError(\"\"): %s = %q, want %q", step.cmd, got, step.want)
		}
	}
	// A running script's redis.call sees it too.
	for try := 1; ; try++ {
		done := make(chan string)
		go func() {
			done <- srv.Do("EVAL", `while true do
				local r = redis.pcall('PING')
				if type(r) == 'table' and r.err then return r.err end
			end`, "0").String()
		}()
		time.Sleep(time.Duration(try) * 50 * time.Millisecond) // the script runs
		srv.SetError("ERR injected")
		got := <-done
		srv.SetError("")
		if got == `"ERR injected"` {
			break
		}
		if got != "(error) ERR injected" || try == 5 { // EVAL itself refused: it had not started
			t.Fatalf("EVAL = %s", got)
		}
	}
	if got := srv.Do("EVAL", "return redis.call('GET', 'k')", "0").String(); got != `"v"` {
		t.Errorf("EVAL after clearing = %s", got)
	}
}

// Seed makes random picks reproducible, per server.
func TestSeed(t *testing.T) {
	picks := func(seed int64) string {
		srv := RunT(t)
		srv.Seed(seed)
		for i := 0; i < 50; i++ {
			srv.SetAdd("s", fmt.Sprint(i))
			srv.HSet("h", fmt.Sprint(i), "v")
			srv.ZAdd("z", float64(i), fmt.Sprint(i))
			srv.Set(fmt.Sprint("k", i), "v")
		}
		var out []string
		for _, cmd := range [][]string{
			{"SRANDMEMBER", "s"}, {"SRANDMEMBER", "s", "5"}, {"SRANDMEMBER", "s", "-5"},
			{"HRANDFIELD", "h"}, {"HRANDFIELD", "h", "3", "WITHVALUES"},
			{"ZRANDMEMBER", "z"}, {"ZRANDMEMBER", "z", "-3"},
			{"RANDOMKEY"}, {"SPOP", "s"}, {"SPOP", "s", "3"}, {"SPOP", "s", "40"},
		} {
			out = append(out, srv.Do(cmd...).String())
		}
		return strings.Join(out, "\n")
	}
	a, b, c := picks(42), picks(42), picks(7)
	if a != b {
		t.Errorf("same seed, different picks:\n%s\n---\n%s", a, b)
	}
	if a == c {
		t.Errorf("different seeds, same picks:\n%s", a)
	}
}

func TestCounters(t *testing.T) {
	srv := RunT(t)
	if srv.CommandCount() != 0 || srv.CurrentConnectionCount() != 0 || srv.TotalConnectionCount() != 0 {
		t.Fatalf("a new server: %d %d %d", srv.CommandCount(), srv.CurrentConnectionCount(), srv.TotalConnectionCount())
	}
	srv.Set("k", "v") // direct helpers do not count
	srv.Do("GET", "k")
	var conns []net.Conn
	for i := 0; i < 3; i++ {
		c, rd := dialT(t, srv)
		rawDo(t, c, rd, "PING")
		conns = append(conns, c)
	}
	if n := srv.CommandCount(); n != 4 {
		t.Errorf("CommandCount = %d, want 4", n)
	}
	if n := srv.CurrentConnectionCount(); n != 3 {
		t.Errorf("CurrentConnectionCount = %d, want 3", n)
	}
	conns[0].Close()
	waitUntil(t, "the close", func() bool { return srv.CurrentConnectionCount() == 2 })
	if n := srv.TotalConnectionCount(); n != 3 {
		t.Errorf("TotalConnectionCount = %d, want 3", n)
	}
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Restart keeps the data, the address, the clock and the fencing tokens;
// clients are disconnected; runtime state starts afresh.
func TestRestart(t *testing.T) {
	for _, c := range []struct {
		name string
		opts func(dir string) Options
	}{
		{"in memory", func(string) Options { return Options{ManualClock: true} }},
		{"in memory with a state file", func(dir string) Options { return Options{ManualClock: true, Dir: dir} }},
		{"append only", func(dir string) Options {
			return Options{ManualClock: true, Dir: dir, AppendOnly: true, AppendFsync: "always"}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := NewServer(c.opts(t.TempDir()))
			if err := srv.Start(); err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			addr := srv.Addr()
			srv.SetTTL("lock", "me", 10*time.Second)
			srv.DB(3).Rpush("l", "a", "b")
			srv.ZAdd("z", 1, "m")
			tok1 := srv.Do("LOCK.TOKEN", "lock")
			srv.Do("SET", "gone", "x")
			tok2 := srv.Do("LOCK.TOKEN", "gone")
			srv.Del("gone")
			srv.Do("CONFIG", "SET", "lock-delay", "5")
			srv.Do("MULTI")
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			rd := bufio.NewReader(conn)
			rawDo(t, conn, rd, "PING")
			srv.FastForward(4 * time.Second)

			if err := srv.Restart(); err != nil {
				t.Fatal(err)
			}
			if srv.Addr() != addr {
				t.Fatalf("Addr %s, was %s", srv.Addr(), addr)
			}
			conn.SetReadDeadline(time.Now().Add(5 * time.Second))
			if _, err := rd.ReadString('\n'); err == nil {
				t.Error("the client was not disconnected")
			}
			srv.CheckGet(t, "lock", "me")
			if ttl := srv.TTL("lock"); ttl != 6*time.Second {
				t.Errorf("TTL after restart %v, want 6s (the clock carries over)", ttl)
			}
			srv.DB(3).CheckList(t, "l", "a", "b")
			srv.CheckSortedSet(t, "z", map[string]float64{"m": 1})
			if got := srv.Do("LOCK.TOKEN", "lock"); got.String() != tok1.String() {
				t.Errorf("token %s, was %s", got, tok1)
			}
			srv.Do("SET", "new", "x")
			if got := srv.Do("LOCK.TOKEN", "new"); got.Int <= tok2.Int {
				t.Errorf("a token after the restart (%d) is not above one before (%d)", got.Int, tok2.Int)
			}
			if got := srv.Do("CONFIG", "GET", "lock-delay").String(); got != `["lock-delay" "0"]` {
				t.Errorf("CONFIG SET survived: %s", got)
			}
			if got := srv.Do("EXEC").String(); got != "(error) ERR EXEC without MULTI" {
				t.Errorf("Do's MULTI survived: %s", got)
			}
			conn2, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn2.Close()
			if got := rawDo(t, conn2, bufio.NewReader(conn2), "GET lock"); got != "$2" {
				t.Errorf("a new client: GET = %s", got)
			}
			// Close, then Restart, as miniredis's tests do.
			srv.Close()
			if err := srv.Restart(); err != nil {
				t.Fatal(err)
			}
			srv.CheckGet(t, "lock", "me")
			srv.CheckGet(t, "new", "x")
		})
	}
}

// SetError and Seed carry over a restart; Restart of a server never started fails.
func TestRestartKeepsSettings(t *testing.T) {
	early := NewServer(Options{})
	early.SetError("ERR early")
	early.Seed(1)
	if err := early.Start(); err != nil {
		t.Fatal(err)
	}
	defer early.Close()
	if got := early.Do("PING").String(); got != "(error) ERR early" {
		t.Errorf("SetError before Start: PING = %s", got)
	}

	if err := NewServer(Options{}).Restart(); err == nil {
		t.Error("Restart of a server never started")
	}
	srv := RunT(t)
	srv.SetError("ERR down")
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	if got := srv.Do("PING").String(); got != "(error) ERR down" {
		t.Errorf("PING = %s", got)
	}
	srv.SetError("")
	if got := srv.Do("PING").String(); got != "PONG" {
		t.Errorf("PING = %s", got)
	}
	// A paused server restarts unpaused. (The command it held runs as the
	// old server stops, its reply lost with the connection: the client
	// cannot tell, as with a redis-server that died after the write.)
	c, _ := dialT(t, srv)
	srv.Pause()
	c.Write([]byte("SET held 1\r\n"))
	time.Sleep(20 * time.Millisecond)
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	if got := srv.Do("PING").String(); got != "PONG" {
		t.Errorf("PING after restarting a paused server = %s", got)
	}
}

func TestRunTLS(t *testing.T) {
	srv := RunTLST(t)
	if srv.TLSAddr() != srv.Addr() || len(srv.Addrs()) != 0 {
		t.Fatalf("TLS only: Addr %s TLSAddr %s Addrs %q", srv.Addr(), srv.TLSAddr(), srv.Addrs())
	}
	for _, host := range []string{"127.0.0.1", "localhost"} {
		cfg := srv.ClientTLSConfig()
		if host == "localhost" {
			cfg.ServerName = host
		}
		c, err := tls.Dial("tcp", srv.Addr(), cfg)
		if err != nil {
			t.Fatalf("%s: %v", host, err)
		}
		if got := rawDo(t, c, bufio.NewReader(c), "PING"); got != "+PONG" {
			t.Errorf("PING = %s", got)
		}
		c.Close()
	}
	// A client that does not trust the certificate is refused.
	if c, err := tls.Dial("tcp", srv.Addr(), &tls.Config{ServerName: "127.0.0.1"}); err == nil {
		c.Close()
		t.Error("an untrusted certificate was accepted")
	}
	// Restart serves TLS again on the same address.
	addr := srv.Addr()
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	c, err := tls.Dial("tcp", addr, srv.ClientTLSConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if got := rawDo(t, c, bufio.NewReader(c), "PING"); got != "+PONG" {
		t.Errorf("after Restart: PING = %s", got)
	}
	// With a certificate of its own, there is no client configuration.
	serverCfg, _, err := SelfSignedTLS()
	if err != nil {
		t.Fatal(err)
	}
	own, err := RunTLS(serverCfg)
	if err != nil {
		t.Fatal(err)
	}
	defer own.Close()
	if own.ClientTLSConfig() != nil {
		t.Error("ClientTLSConfig for a server with its own certificate")
	}
	if err := own.StartTLS("", nil); err == nil {
		t.Error("StartTLS of a started server")
	}
}
