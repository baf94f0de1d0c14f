package compat

// TestDiffPipelinedBatches: lockredis runs the commands of one read as
// batches in one keyspace transaction (engine/batch.go); each pipeline
// here goes to both servers in ONE write, so that both parse it from one
// read, and every reply must match byte for byte, in RESP2 and RESP3:
// reads after writes, refused commands mid-pipeline, commands that do not
// join between ones that do, MULTI, a client blocked on a list the
// pipeline fills (it gets the element before the pipeline's own pop, as
// on Redis), keys that expired before a read that a write then re-creates,
// and the keyspace events a subscriber receives.

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestDiffPipelinedBatches(t *testing.T) {
	lockRounds := make([]string, 0, 64)
	for i := range 16 {
		k := "lock:" + strconv.Itoa(i%5)
		lockRounds = append(lockRounds, "SET "+k+" tok"+strconv.Itoa(i)+" NX PX 30000", "GET "+k)
		if i%3 == 0 {
			lockRounds = append(lockRounds, "DEL "+k)
		}
	}
	for _, tc := range []struct {
		name string
		// setup runs first, one command per write.
		setup []string
		cmds  []string // one write
		// waiter, when set, blocks on another connection first and its
		// reply is compared after the pipeline's.
		waiter string
		// events: a PSUBSCRIBE '__key*__:*' connection listens with
		// notify-keyspace-events KEA and this many messages are compared.
		events int
		lazy   bool // keys expire only when met (newLazyExpiryPair)
		sleep  time.Duration
	}{
		{name: "reads see the writes before them",
			cmds: []string{"SET k v", "GET k", "APPEND k w", "GET k", "INCR n", "INCRBY n 5", "GET n",
				"HSET h f 1 g 2", "HGET h g", "HINCRBY h f 10", "HGETALL h", "RPUSH l a b c", "LRANGE l 0 -1",
				"LPOP l", "SADD s x y", "SCARD s", "DEL k n h", "EXISTS k n h l s", "GET k"}},
		{name: "lock rounds", cmds: lockRounds},
		{name: "refused commands mid-pipeline",
			setup: []string{"SET str x", "RPUSH list a"},
			cmds: []string{"SET a 1", "SET b", "INCR str", "LPOP str", "GET list", "NOSUCHCMD x", "GET a",
				"SET a 2 XX NX", "HSET h", "GET a", "OBJECT ENCODING a", "OBJECT NOSUCH", "INCR a"}},
		{name: "commands that do not join between ones that do",
			cmds: []string{"SET x 1", "INCR x", "PING", "INCR x", "ECHO hi", "GET x", "SELECT 1", "GET x",
				"SET x 9", "SELECT 0", "GET x", "DBSIZE", "INCR x", "CLIENT REPLY SKIP", "INCR x", "GET x"}},
		{name: "MULTI in the pipeline",
			cmds: []string{"SET m 1", "MULTI", "INCR m", "SET m2 x", "EXEC", "GET m", "MULTI", "INCR m",
				"NOSUCH", "EXEC", "GET m", "INCR m"}},
		{name: "a blocked client gets the pushed element first",
			waiter: "BLPOP q 0",
			cmds:   []string{"SET a 1", "LPUSH q x", "LPOP q", "RPUSH q y z", "LPOP q", "GET a", "LRANGE q 0 -1"}},
		{name: "a blocked BRPOPLPUSH chain",
			waiter: "BRPOPLPUSH src dst 0",
			cmds:   []string{"RPUSH src 1 2", "LRANGE src 0 -1", "LRANGE dst 0 -1", "RPOP src", "LLEN dst"}},
		{name: "expired keys read then written", lazy: true,
			setup: []string{"SET k v PX 5", "SET other v PX 5", "SET kept v"},
			sleep: 30 * time.Millisecond,
			cmds:  []string{"GET k", "EXISTS k", "SET k w NX", "GET k", "GET other", "DBSIZE", "GET kept"}},
		{name: "expired keys met by reads only", lazy: true,
			setup: []string{"SET k v PX 5", "SET kept v"},
			sleep: 30 * time.Millisecond,
			cmds:  []string{"GET k", "EXISTS k kept", "STRLEN k", "DBSIZE"}},
		{name: "keyspace events in order", events: 9,
			cmds: []string{"SET e 1", "INCR e", "DEL e", "RPUSH el a", "LPOP el", "HSET eh f v", "EXPIRE eh 100",
				"PERSIST eh", "GET e"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var p *diffPair
			if tc.lazy {
				p = newLazyExpiryPair(t)
			} else {
				p = newDiffPair(t, "")
			}
			forEachProto(t, func(t *testing.T, proto int) {
				p.reset(t)
				frame := make([]byte, 0, 1024)
				for _, c := range tc.cmds {
					frame = append(frame, encodeCommand(splitCommand(c))...)
				}
				var got [2][]string
				var batched int64
				if p.lock != nil {
					batched = p.lock.Engine().Stats.Batched.Load()
				}
				for side, addr := range []string{p.redisAddr, p.lockAddr} {
					ctl := p.redisCtl
					if side == 1 {
						ctl = p.lockCtl
					}
					c := newStepConn(t, addr, proto, "")
					for _, s := range tc.setup {
						got[side] = append(got[side], c.send(encodeCommand(splitCommand(s))))
					}
					time.Sleep(tc.sleep)
					var waiter, events *stepConn
					if tc.waiter != "" {
						waiter = newStepConn(t, addr, proto, "")
						if _, err := waiter.raw.c.Write(encodeCommand(splitCommand(tc.waiter))); err != nil {
							t.Fatal(err)
						}
						deadline := time.Now().Add(5 * time.Second)
						for h4BlockedClients(t, ctl) != 1 {
							if time.Now().After(deadline) {
								t.Fatal("the waiter did not block")
							}
							time.Sleep(2 * time.Millisecond)
						}
					}
					if tc.events > 0 {
						ctl.do(t, "CONFIG", "SET", "notify-keyspace-events", "KEA")
						t.Cleanup(func() { ctl.do(t, "CONFIG", "SET", "notify-keyspace-events", "") })
						events = newStepConn(t, addr, proto, "")
						got[side] = append(got[side], events.send(encodeCommand([]string{"PSUBSCRIBE", "__key*__:*"})))
					}
					c.raw.c.SetDeadline(time.Now().Add(replyTimeout))
					if _, err := c.raw.c.Write(frame); err != nil {
						t.Fatal(err)
					}
					n := len(tc.cmds)
					if strings.Contains(strings.Join(tc.cmds, "\n"), "CLIENT REPLY SKIP") {
						n -= 2 // neither it nor the command after it is answered
					}
					for range n {
						r, err := readReply(c.raw.r)
						got[side] = append(got[side], string(r))
						if err != nil {
							got[side] = append(got[side], "<"+err.Error()+">")
							break
						}
					}
					if waiter != nil {
						waiter.raw.c.SetDeadline(time.Now().Add(replyTimeout))
						r, err := readReply(waiter.raw.r)
						got[side] = append(got[side], "waiter: "+string(r))
						if err != nil {
							got[side] = append(got[side], "<"+err.Error()+">")
						}
					}
					for range tc.events {
						events.raw.c.SetDeadline(time.Now().Add(replyTimeout))
						r, err := readReply(events.raw.r)
						got[side] = append(got[side], "event: "+string(r))
						if err != nil {
							got[side] = append(got[side], "<"+err.Error()+">")
							break
						}
					}
				}
				if p.lock != nil && p.lock.Engine().Stats.Batched.Load() == batched {
					t.Error("lockredis ran no batch: the case tests nothing")
				}
				if len(got[0]) != len(got[1]) {
					t.Fatalf("redis answered %d replies, lockredis %d:\n%q\n%q", len(got[0]), len(got[1]), got[0], got[1])
				}
				for i := range got[0] {
					if got[0][i] != got[1][i] {
						t.Errorf("reply %d:\n\tredis:     %q\n\tlockredis: %q", i+1, got[0][i], got[1][i])
					}
				}
			})
		})
	}
}
