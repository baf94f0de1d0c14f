package compat

// Differential tests of client-side caching (CLIENT TRACKING) and CLIENT
// REPLY, on the pub/sub harness (diff_pubsub_test.go): every frame each
// connection receives must match redis-server's, and a final PING on each
// connection shows that no server sent a frame too many.
//
// The connections: R, the REDIRECT target, subscribed to
// __redis__:invalidate in RESP2; K, the tracking client; W, a writer. The
// client ids differ between the servers: a saveID step reads R's CLIENT
// ID on each, and REDIRECT {S} uses it.

import (
	"testing"
	"time"
)

const (
	trR = p5S // redirect target
	trK = p5P // tracking client
	trW = p5T // writer
)

// trSaveID reads conn's CLIENT ID (the integers differ between servers).
func trSaveID(conn int) p5Step {
	st := p5Do(conn, "CLIENT ID").as(p5Shape)
	st.saveID = true
	return st
}

// trWithIDs sends cmd on conn, "{S}" (and "{P}", "{T}") replaced by the
// connection's id on each server, and reads n frames from conn.
func trWithIDs(conn int, cmd string, n int) p5Step {
	st := p5On(conn, cmd, n)
	st.withIDs = splitCommand(cmd)
	return st
}

// trAfter is a step that first waits d.
func trAfter(d time.Duration, st p5Step) p5Step {
	st.sleep = d
	return st
}

// trRedirect makes R the redirect target subscribed to the invalidation
// channel, and K a tracking client with the given options.
func trRedirect(opts string) []p5Step {
	return []p5Step{
		trSaveID(trR),
		p5On(trR, "SUBSCRIBE __redis__:invalidate", 1),
		trWithIDs(trK, "CLIENT TRACKING ON REDIRECT {S} "+opts, 1),
	}
}

func trSteps(parts ...any) []p5Step {
	var out []p5Step
	for _, p := range parts {
		switch v := p.(type) {
		case p5Step:
			out = append(out, v)
		case []p5Step:
			out = append(out, v...)
		}
	}
	return out
}

func TestDiffTracking(t *testing.T) {
	R, K, W := trR, trK, trW
	p5RunCases(t, []p5Case{
		{name: "default-mode", conns: 3, steps: trSteps(trRedirect(""),
			p5Do(K, "GET a"),
			p5Do(K, "MGET b c"),
			p5Do(K, "GET missing"),
			p5Do(W, "SET a 1").then(R, 1),
			p5Do(W, "SET a 2"), // forgotten after one invalidation
			p5Do(W, "DEL b"),   // b did not exist: no change
			p5Do(W, "SET b 1").then(R, 1),
			p5Do(K, "GET b"),
			p5Do(W, "DEL b nothing").then(R, 1),
			p5Do(W, "SET missing 1").then(R, 1),
			p5Do(K, "GET a"),
			p5Do(K, "GET a"),
			p5Do(K, "SET a 3").then(R, 1), // its own write: told too (no NOLOOP)
			p5Do(K, "GET a"),
			p5Do(K, "GET c"),
			p5Do(W, "MSET c 1 a 1").then(R, 2),
			p5Do(K, "HGET h f"),
			p5Do(W, "HSET h f v").then(R, 1),
			p5Do(K, "EXISTS e"),
			p5Do(W, "SET e 1").then(R, 1),
			p5Do(K, "TTL e"),
			p5Do(W, "EXPIRE e 100").then(R, 1),
			p5Do(K, "SELECT 1"),
			p5Do(K, "GET a"), // the table ignores databases
			p5Do(W, "SET a 5").then(R, 1),
			p5Do(K, "GET x"),
			p5Do(W, "MULTI"),
			p5Do(W, "SET x 1"),
			p5Do(W, "DEL x"),
			p5Do(W, "EXEC").then(R, 1),
			p5Do(K, "GET y"),
			p5Do(W, "EVAL \"redis.call('set', KEYS[1], 1) return redis.call('incr', KEYS[1])\" 1 y").then(R, 1),
			p5Do(K, "EVAL \"return redis.call('get', KEYS[1])\" 1 z"),
			p5Do(W, "SET z 1").then(R, 1),
			p5Do(K, "CLIENT GETREDIR").as(p5Shape),
			p5Do(K, "CLIENT TRACKINGINFO").as(p5Shape),
			p5Do(K, "CLIENT TRACKING OFF"),
			p5Do(K, "GET a"),
			p5Do(W, "SET a 6"),
			p5Do(K, "CLIENT GETREDIR"),
			p5Do(K, "CLIENT TRACKINGINFO").as(p5Shape),
		)},
		{name: "bcast-prefix", conns: 3, steps: trSteps(trRedirect("BCAST PREFIX a: PREFIX b:"),
			p5Do(W, "SET a:1 x").then(R, 1),
			p5Do(W, "SET c 1"),
			p5Do(W, "MSET b:1 2 a:3 3 a:2 1 c 2").then(R, 2),
			p5Do(K, "SET a:9 x").then(R, 1),
			p5Do(W, "DEL a:1 a:2 zz").then(R, 1),
			p5Do(K, "CLIENT TRACKINGINFO").as(p5Shape),
			trWithIDs(K, "CLIENT TRACKING ON REDIRECT {S} BCAST PREFIX c", 1), // a prefix more
			p5Do(K, "CLIENT TRACKINGINFO").as(p5Shape),
			p5Do(W, "SET c 3").then(R, 1),
			p5Do(W, "FLUSHALL").then(R, 1), // a flush: a null for every tracking client
		)},
		{name: "bcast-all-noloop", conns: 3, steps: trSteps(trRedirect("BCAST NOLOOP"),
			p5Do(K, "SET k 1"),
			p5Do(W, "SET k 2").then(R, 1),
			p5Do(W, "MSET x 1 y 2").then(R, 1),
			p5Do(K, "CLIENT TRACKINGINFO").as(p5Shape),
		)},
		{name: "noloop", conns: 3, steps: trSteps(trRedirect("NOLOOP"),
			p5Do(K, "GET a"),
			p5Do(K, "SET a 1"),
			p5Do(K, "GET a"),
			p5Do(W, "SET a 2").then(R, 1),
			p5Do(K, "CLIENT TRACKINGINFO").as(p5Shape),
		)},
		{name: "optin", conns: 3, steps: trSteps(trRedirect("OPTIN"),
			p5Do(K, "GET a"),
			p5Do(W, "SET a 1"),
			p5Do(K, "CLIENT CACHING YES"),
			p5Do(K, "CLIENT TRACKINGINFO").as(p5Shape), // CLIENT commands keep CACHING
			p5Do(K, "GET a"),
			p5Do(W, "SET a 2").then(R, 1),
			p5Do(K, "CLIENT CACHING YES"),
			p5Do(K, "PING"),
			p5Do(K, "GET b"), // CACHING was for PING
			p5Do(W, "SET b 1"),
			p5Do(K, "CLIENT CACHING YES"),
			p5Do(K, "MULTI"),
			p5Do(K, "GET c"),
			p5Do(K, "GET d"),
			p5Do(K, "EXEC"),
			p5Do(K, "GET e"),
			p5Do(W, "MSET c 1 d 1 e 1").then(R, 2),
			p5Do(K, "CLIENT CACHING NO"),
			p5Do(K, "CLIENT TRACKING ON OPTOUT"),
		)},
		{name: "optout", conns: 3, steps: trSteps(trRedirect("OPTOUT"),
			p5Do(K, "GET a"),
			p5Do(K, "CLIENT CACHING NO"),
			p5Do(K, "GET b"),
			p5Do(K, "CLIENT TRACKINGINFO").as(p5Shape),
			p5Do(W, "MSET a 1 b 1").then(R, 1),
			p5Do(K, "CLIENT CACHING YES"),
			p5Do(K, "CLIENT TRACKING ON OPTIN"),
		)},
		{name: "flush", conns: 3, steps: trSteps(trRedirect(""),
			p5Do(K, "GET a"),
			p5Do(W, "FLUSHALL").then(R, 1),
			p5Do(W, "SET a 1"), // the flush forgot every key
			p5Do(W, "FLUSHDB").then(R, 1),
			p5Do(K, "FLUSHALL").then(R, 1),
			p5Do(K, "SELECT 3"),
			p5Do(K, "FLUSHDB").then(R, 1),
		)},
		{name: "expiry", conns: 3, steps: trSteps(trRedirect(""),
			// TTLs of 400 ms: the GET right after each SET must find the
			// key on both servers (with 50 ms, a loaded machine sometimes
			// let it expire first on one of them).
			p5Do(W, "SET a 1 PX 400"),
			p5Do(K, "GET a"),
			trAfter(1000*time.Millisecond, p5Recv(R, 1)), // active expiry
			p5Do(W, "SET b 1 PX 400"),
			p5Do(K, "GET b"),
			// Lazy or active, the expiry sends one invalidation, and the
			// read that found b expired is remembered after it.
			trAfter(800*time.Millisecond, p5Do(K, "GET b")).then(R, 1),
			p5Do(W, "SET b 2").then(R, 1),
			p5Do(K, "GET c"),
			p5Do(W, "SET c 1 EX 100").then(R, 1),
			p5Do(K, "GET c"),
			p5Do(W, "PEXPIRE c 10").then(R, 1),
		)},
		{name: "redirect-gone", conns: 3, resp2Only: "in RESP3 the tracker also gets a tracking-redir-broken push naming the client id, which resp3-redirect-gone reads", steps: trSteps(trRedirect(""),
			p5Do(K, "GET a"),
			p5Do(R, "QUIT"),
			trAfter(100*time.Millisecond, p5Do(W, "SET a 1")),
			p5Do(K, "CLIENT TRACKINGINFO").as(p5Shape),
			p5Do(K, "CLIENT GETREDIR").as(p5Shape),
		)},
		{name: "errors", conns: 3, steps: trSteps(
			trSaveID(R),
			p5Do(K, "CLIENT TRACKING"),
			p5Do(K, "CLIENT TRACKING maybe"),
			p5Do(K, "CLIENT TRACKING ON FOO"),
			p5Do(K, "CLIENT TRACKING ON REDIRECT"),
			p5Do(K, "CLIENT TRACKING ON REDIRECT x"),
			p5Do(K, "CLIENT TRACKING ON REDIRECT 0"),
			p5Do(K, "CLIENT TRACKING ON REDIRECT 99999999"),
			trWithIDs(K, "CLIENT TRACKING ON REDIRECT {S} REDIRECT {S}", 1),
			p5Do(K, "CLIENT TRACKING ON PREFIX a"),
			p5Do(K, "CLIENT TRACKING ON BCAST OPTIN"),
			p5Do(K, "CLIENT TRACKING ON BCAST OPTOUT"),
			p5Do(K, "CLIENT TRACKING ON OPTIN OPTOUT"),
			p5Do(K, "CLIENT TRACKING OFF REDIRECT x"),
			p5Do(K, "CLIENT TRACKING OFF PREFIX a"), // options are not checked for OFF
			p5Do(K, "CLIENT TRACKING ON BCAST PREFIX ab PREFIX a"),
			// Redis replies with the error and then +OK here (its
			// collision check lets an overlap between two later prefixes
			// through after replying): two frames.
			p5On(K, "CLIENT TRACKING ON BCAST PREFIX x PREFIX a PREFIX ab", 2),
			p5Do(K, "CLIENT TRACKINGINFO").as(p5Shape),
			p5Do(K, "CLIENT TRACKING ON BCAST PREFIX abc"),
			p5Do(K, "CLIENT TRACKING ON"),
			p5Do(K, "CLIENT TRACKING OFF"),
			p5Do(K, "CLIENT TRACKING ON OPTIN"),
			p5Do(K, "CLIENT TRACKING ON BCAST"),
			p5Do(K, "CLIENT TRACKING ON OPTOUT"),
			p5Do(K, "CLIENT CACHING NO"),
			p5Do(K, "CLIENT CACHING maybe"),
			p5Do(K, "CLIENT CACHING"),
			p5Do(K, "CLIENT CACHING YES YES"),
			p5Do(K, "CLIENT TRACKING OFF"),
			p5Do(K, "CLIENT CACHING YES"),
			p5Do(K, "CLIENT GETREDIR x"),
			p5Do(K, "CLIENT TRACKINGINFO x"),
			p5Do(K, "MULTI"),
			p5Do(K, "CLIENT CACHING YES"),
			p5Do(K, "EXEC"),
		)},
		{name: "reply-off-skip-on", conns: 3, steps: trSteps(
			p5On(K, "CLIENT REPLY SKIP", 0),
			p5On(K, "PING a", 0),
			p5Do(K, "PING b"),
			p5On(K, "CLIENT REPLY OFF", 0),
			p5On(K, "SET k v", 0),
			p5On(K, "CLIENT REPLY SKIP", 0),
			p5On(K, "GET k", 0),
			p5On(K, "NOSUCHCOMMAND", 0),
			p5Do(K, "CLIENT REPLY ON"),
			p5Do(K, "GET k"),
			p5On(K, "CLIENT REPLY SKIP", 0),
			p5Do(K, "CLIENT REPLY ON"), // ON clears the SKIP in force
			p5Do(K, "CLIENT REPLY x"),
			p5Do(K, "CLIENT REPLY"),
			p5On(K, "CLIENT REPLY SKIP", 0),
			p5On(K, "MULTI", 0),
			p5Do(K, "SET a 1"),
			p5Do(K, "EXEC"),
			// Not compared: CLIENT REPLY SKIP inside MULTI, where Redis's
			// EXEC announces one reply more than it sends.
			p5On(K, "CLIENT REPLY OFF", 0),
			p5Do(K, "RESET"), // clears OFF
			p5Do(K, "PING"),
		)},
		{name: "reply-off-pubsub", conns: 3, steps: trSteps(
			// Subscribe confirmations and messages are pushes: they
			// arrive while replies are off.
			p5On(R, "CLIENT REPLY OFF", 0),
			p5On(R, "SUBSCRIBE ch", 1),
			p5Do(W, "PUBLISH ch x").then(R, 1),
			p5On(R, "PING", 0),
			p5On(R, "UNSUBSCRIBE ch", 1),
			p5On(R, "GET a", 0),
			p5Do(R, "CLIENT REPLY ON"),
		)},
		{name: "redirect-to-resp3", conns: 3, steps: trSteps(
			p5Do(R, "HELLO 3").as(p5Shape),
			trRedirect("")[0],
			trRedirect("")[1],
			trRedirect("")[2],
			p5Do(K, "GET a"),
			p5Do(W, "SET a 1").then(R, 1),
			p5Do(W, "FLUSHALL").then(R, 1), // the null is the tracking client's: RESP2's $-1
		)},
		{name: "resp3-self", conns: 3, steps: trSteps(
			p5Do(K, "HELLO 3").as(p5Shape),
			p5Do(K, "CLIENT TRACKING ON"),
			p5Do(K, "GET a"),
			p5Do(W, "SET a 1").then(K, 1),
			p5Do(K, "GET a"),
			p5On(K, "SET a 2", 2), // the reply, then the push
			p5Do(K, "GET a"),
			p5Do(K, "GET b"),
			p5On(K, "MSET a 3 b 3", 3),
			p5Do(K, "GET a"),
			p5Do(K, "MULTI"),
			p5Do(K, "GET a"),
			p5Do(K, "SET a 4"),
			p5Do(K, "GET a"),
			p5On(K, "EXEC", 2),
			p5On(K, "FLUSHALL", 2),
			p5Do(W, "FLUSHDB").then(K, 1),
			p5Do(K, "CLIENT TRACKINGINFO").as(p5Shape),
			// CLIENT REPLY OFF does not hold invalidations back.
			p5Do(K, "GET c"),
			p5On(K, "CLIENT REPLY OFF", 0),
			p5On(K, "SET c 1", 1),
			p5Do(K, "CLIENT REPLY ON"),
			p5Do(K, "CLIENT TRACKING OFF"),
			p5Do(K, "CLIENT TRACKING ON BCAST PREFIX a PREFIX b"),
			p5On(K, "MSET a1 x b2 y c z", 3),
			p5Do(W, "MSET a1 x a2 y").then(K, 1),
			p5Do(K, "CLIENT TRACKING ON BCAST NOLOOP"),
			p5Do(K, "SET a3 x"),
			p5Do(K, "CLIENT TRACKING OFF"),
			p5Do(K, "CLIENT TRACKING ON OPTIN"),
			p5Do(K, "CLIENT CACHING YES"),
			p5Do(K, "MULTI"),
			p5Do(K, "PTTL k"),
			p5Do(K, "GET k"),
			p5Do(K, "EXEC"),
			p5Do(W, "SET k 1").then(K, 1),
		)},
		{name: "resp3-redirect-gone", conns: 3, steps: trSteps(
			trSaveID(R),
			p5Do(K, "HELLO 3").as(p5Shape),
			trWithIDs(K, "CLIENT TRACKING ON REDIRECT {S}", 1),
			p5Do(K, "GET q"),
			p5Do(R, "QUIT"),
			trAfter(100*time.Millisecond, p5Do(W, "SET q 1")).thenAs(K, 1, p5Shape),
			p5Do(K, "CLIENT TRACKINGINFO").as(p5Shape),
			p5Do(K, "GET q"),
			p5Do(W, "SET q 2").thenAs(K, 1, p5Shape),
		)},
	})
}

// TestDiffTrackingConfig compares tracking-table-max-keys in CONFIG.
func TestDiffTrackingConfig(t *testing.T) {
	runDiffCases(t, []diffCase{
		{name: "tracking-table-max-keys", steps: steps(
			"CONFIG GET tracking-table-max-keys",
			"CONFIG SET tracking-table-max-keys -1",
			"CONFIG SET tracking-table-max-keys x",
			"CONFIG SET tracking-table-max-keys 10",
			"CONFIG GET tracking-table-max-keys",
			"CONFIG SET tracking-table-max-keys 1000000",
			"CONFIG GET tracking-*",
		)},
	})
}
