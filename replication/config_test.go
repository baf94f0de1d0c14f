package replication

import (
	"testing"
	"time"
)

// The session timeout defaults to 10 s and must leave a follower time to
// notice a lost leader: at least twice the heartbeat timeout.
func TestConfigSessionTimeout(t *testing.T) {
	base := Config{ID: "1", Bind: "127.0.0.1:7001", Dir: t.TempDir()}
	for _, tc := range []struct {
		name      string
		session   time.Duration
		heartbeat time.Duration
		want      time.Duration
		err       string
	}{
		{name: "default", want: DefaultSessionTimeout},
		{name: "set", session: 3 * time.Second, want: 3 * time.Second},
		{name: "twice the heartbeat", session: 800 * time.Millisecond, want: 800 * time.Millisecond},
		{name: "below twice the default heartbeat", session: 500 * time.Millisecond,
			err: "raft-session-timeout 500ms is below twice the heartbeat timeout (800ms)"},
		{name: "below twice a set heartbeat", session: 1500 * time.Millisecond, heartbeat: time.Second,
			err: "raft-session-timeout 1.5s is below twice the heartbeat timeout (2s)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := base
			c.SessionTimeout, c.HeartbeatTimeout = tc.session, tc.heartbeat
			got, err := c.withDefaults()
			switch {
			case tc.err != "":
				if err == nil || err.Error() != tc.err {
					t.Fatalf("error %v, want %s", err, tc.err)
				}
			case err != nil:
				t.Fatal(err)
			case got.SessionTimeout != tc.want:
				t.Fatalf("session timeout %v, want %v", got.SessionTimeout, tc.want)
			}
		})
	}
}

// The watch runs often enough to act within a twentieth of the timeout,
// within bounds.
func TestSessionWatchEvery(t *testing.T) {
	for _, tc := range []struct{ timeout, want time.Duration }{
		{100 * time.Millisecond, 10 * time.Millisecond},
		{2 * time.Second, 100 * time.Millisecond},
		{10 * time.Second, 250 * time.Millisecond},
	} {
		if got := (Config{SessionTimeout: tc.timeout}).sessionWatchEvery(); got != tc.want {
			t.Errorf("%v: every %v, want %v", tc.timeout, got, tc.want)
		}
	}
}

// The leader takes a node for out while both its reports and Raft's
// heartbeats to it fail, since the later of their last successes.
func TestCutOffFor(t *testing.T) {
	lead := time.Unix(1000, 0)
	at := func(s float64) time.Time { return lead.Add(time.Duration(s * float64(time.Second))) }
	for _, tc := range []struct {
		name        string
		now, report time.Time
		failing     bool
		hbLast      time.Time
		out         time.Duration
		reporting   bool
	}{
		{"healthy", at(10), at(9.95), false, time.Time{}, 0, true},
		{"reports refused, heartbeats fine", at(30), time.Time{}, false, time.Time{}, 0, false},
		{"reports stopped, heartbeats fine", at(30), at(5), false, time.Time{}, 0, true},
		{"both failing", at(30), at(5), true, at(5.02), 24980 * time.Millisecond, true},
		{"heartbeats failing, a later report", at(30), at(8), true, at(5), 22 * time.Second, true},
		{"cut off before its first report", at(30), time.Time{}, true, at(0.5), 29500 * time.Millisecond, false},
		{"failing since before this leadership", at(30), time.Time{}, true, at(-3), 30 * time.Second, false},
	} {
		out, reporting := cutOffFor(tc.now, lead, tc.report, tc.failing, tc.hbLast)
		if out != tc.out || reporting != tc.reporting {
			t.Errorf("%s: %v %v, want %v %v", tc.name, out, reporting, tc.out, tc.reporting)
		}
	}
}

// A raft-session-timeout shorter than the transport's 10 s I/O timeout
// shortens it, so that a silent cut is noticed within the setting.
func TestTransportTimeout(t *testing.T) {
	for _, tc := range []struct{ session, want time.Duration }{
		{0, 10 * time.Second},
		{2 * time.Second, 2 * time.Second},
		{4 * time.Second, 4 * time.Second},
		{10 * time.Second, 10 * time.Second},
		{time.Minute, 10 * time.Second},
	} {
		if got := (Config{SessionTimeout: tc.session}).transportTimeout(); got != tc.want {
			t.Errorf("session timeout %v: transport timeout %v, want %v", tc.session, got, tc.want)
		}
	}
}
