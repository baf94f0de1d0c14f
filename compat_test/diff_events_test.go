package compat

import (
	"strings"
	"testing"
	"time"
)

// runEventCases compares keyspace events, for command families whose
// scripts need several connections and blocked clients (h4 scripts):
// each case runs on both servers with notify-keyspace-events KEA, and a
// subscriber (connection 9) that first sends subscribe must receive the
// same messages in the same order from both. marker is a channel the
// subscriber also listens to; a PUBLISH to it ends a case's stream.
func runEventCases(t *testing.T, cases []h4Case, marker string, subscribe ...[]string) {
	t.Helper()
	p := newDiffPair(t, "")
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			forEachProto(t, func(t *testing.T, proto int) {
				p.reset(t)
				side := func(addr string, admin *rawConn) *h4Side {
					return &h4Side{t: t, addr: addr, proto: proto, admin: admin,
						conns: map[int]*stepConn{}, sent: map[int]bool{}}
				}
				r := eventStream(t, side(p.redisAddr, p.redisCtl), tc.steps, marker, subscribe)
				l := eventStream(t, side(p.lockAddr, p.lockCtl), tc.steps, marker, subscribe)
				if strings.Join(r, "\n") != strings.Join(l, "\n") {
					t.Errorf("events differ\nredis:     %q\nlockredis: %q", r, l)
				}
				if len(r) < 2 {
					t.Errorf("redis-server raised %d events: the script tests nothing", len(r))
				}
			})
		})
	}
}

// eventStream plays script on one server and returns what the subscriber
// received, in order, up to the marker.
func eventStream(t *testing.T, s *h4Side, script []h4Step, marker string, subscribe [][]string) []string {
	t.Helper()
	ctl := s.conn(0)
	ctl.send(encodeCommand([]string{"CONFIG", "SET", "notify-keyspace-events", "KEA"}))
	defer ctl.send(encodeCommand([]string{"CONFIG", "SET", "notify-keyspace-events", ""}))
	sc := s.conn(9)
	confirmations := 0
	for _, cmd := range append([][]string{{"SUBSCRIBE", marker}}, subscribe...) {
		if _, err := sc.raw.c.Write(encodeCommand(cmd)); err != nil {
			t.Fatal(err)
		}
		confirmations += len(cmd) - 1 // one per channel or pattern
	}
	read := func() string {
		sc.raw.c.SetDeadline(time.Now().Add(replyTimeout))
		reply, err := readReply(sc.raw.r)
		if err != nil {
			t.Fatalf("subscriber: %v", err)
		}
		return string(reply)
	}
	for range confirmations {
		read()
	}
	for _, st := range script {
		switch st.op {
		case h4Do:
			s.conn(st.conn).send(encodeCommand(st.st.args))
		case h4Send:
			s.send(st.conn, encodeCommand(st.st.args))
		case h4Recv:
			s.recv(st.conn)
		case h4Blocked:
			if _, ok := s.awaitBlocked(st.n); !ok {
				t.Fatalf("%s: blocked clients never reached %d", s.addr, st.n)
			}
		}
	}
	ctl.send(encodeCommand([]string{"PUBLISH", marker, "end"}))
	var out []string
	for {
		m := read()
		if strings.Contains(m, marker) {
			return out
		}
		out = append(out, m)
	}
}
