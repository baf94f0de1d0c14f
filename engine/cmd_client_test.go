package engine

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

func TestClientBasics(t *testing.T) {
	te := newTestEngine(t)
	const badName = "(error) ERR Client names cannot contain spaces, newlines or special characters."
	te.run([]step{
		{cmd("CLIENT"), "(error) ERR wrong number of arguments for 'client' command"},
		{cmd("CLIENT", "FOO"), "(error) ERR unknown subcommand 'FOO'. Try CLIENT HELP."},
		{cmd("CLIENT", "NO-TOUCH", "on"), "OK"}, // Redis 7.2
		{cmd("CLIENT", "NO-TOUCH", "OFF"), "OK"},
		{cmd("CLIENT", "NO-TOUCH", "x"), "(error) ERR syntax error"},
		{cmd("CLIENT", "HELP", "x"), "(error) ERR wrong number of arguments for 'client|help' command"},
		{cmd("CLIENT", "GETNAME"), "(nil)"},
		{cmd("CLIENT", "SETNAME"), "(error) ERR wrong number of arguments for 'client|setname' command"},
		{cmd("CLIENT", "SETNAME", "a b"), badName},
		{cmd("CLIENT", "SETNAME", "a\nb"), badName},
		{cmd("CLIENT", "SETNAME", "\xc3\xa9"), badName},
		{cmd("CLIENT", "SETNAME", "abc"), "OK"},
		{cmd("CLIENT", "GETNAME", "x"), "(error) ERR wrong number of arguments for 'client|getname' command"},
		{cmd("client", "getname"), `"abc"`},
		{cmd("CLIENT", "SETNAME", "!~"), "OK"},
		{cmd("CLIENT", "GETNAME"), `"!~"`},
		{cmd("CLIENT", "SETNAME", ""), "OK"}, // clears the name
		{cmd("CLIENT", "GETNAME"), "(nil)"},
		{cmd("CLIENT", "ID"), fmt.Sprintf("(integer) %d", te.s.ID)},
		{cmd("CLIENT", "ID", "x"), "(error) ERR wrong number of arguments for 'client|id' command"},
		{cmd("CLIENT", "NO-EVICT"), "(error) ERR wrong number of arguments for 'client|no-evict' command"},
		{cmd("CLIENT", "NO-EVICT", "on"), "OK"},
		{cmd("CLIENT", "NO-EVICT", "OFF"), "OK"},
		{cmd("CLIENT", "NO-EVICT", "x"), "(error) ERR syntax error"},
		{cmd("CLIENT", "REPLY"), "(error) ERR wrong number of arguments for 'client|reply' command"},
		{cmd("CLIENT", "REPLY", "foo"), "(error) ERR syntax error"},
		{cmd("CLIENT", "REPLY", "ON"), "OK"},
		{cmd("CLIENT", "UNBLOCK", "1", "2", "3"), "(error) ERR unknown subcommand or wrong number of arguments for 'UNBLOCK'. Try CLIENT HELP."},
		{cmd("CLIENT", "UNBLOCK", "abc", "foo"), "(error) ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR"},
		{cmd("CLIENT", "UNBLOCK", "abc", "timeout"), "(error) ERR value is not an integer or out of range"},
		{cmd("CLIENT", "UNBLOCK", "5"), "(integer) 0"},
		{cmd("CLIENT", "UNBLOCK", "5", "ERROR"), "(integer) 0"},
		{cmd("CLIENT", "GETREDIR"), "(integer) -1"},
	})
	help := te.do("CLIENT", "HELP")
	if help.Kind != KindArray || len(help.Elems) != 48 || help.Elems[0].Str != "CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:" {
		t.Errorf("CLIENT HELP: %s", help)
	}
	for _, e := range help.Elems {
		if e.Kind != KindStatus {
			t.Fatalf("CLIENT HELP line %s is not a status", e)
		}
	}
}

func TestClientPause(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("CLIENT", "PAUSE"), "(error) ERR wrong number of arguments for 'client|pause' command"},
		{cmd("CLIENT", "PAUSE", "abc"), "(error) ERR timeout is not an integer or out of range"},
		{cmd("CLIENT", "PAUSE", "1.5"), "(error) ERR timeout is not an integer or out of range"},
		{cmd("CLIENT", "PAUSE", "-1"), "(error) ERR timeout is negative"},
		{cmd("CLIENT", "PAUSE", "10", "foo"), "(error) ERR CLIENT PAUSE mode must be WRITE or ALL"},
		{cmd("CLIENT", "PAUSE", "abc", "foo"), "(error) ERR CLIENT PAUSE mode must be WRITE or ALL"},
		{cmd("CLIENT", "PAUSE", "10", "write", "x"), "(error) ERR unknown subcommand or wrong number of arguments for 'PAUSE'. Try CLIENT HELP."},
		{cmd("CLIENT", "PAUSE", "0"), "OK"},
	})
	if te.Paused() {
		t.Error("CLIENT PAUSE 0 paused")
	}
	te.run([]step{{cmd("CLIENT", "PAUSE", "100000", "WRITE"), "OK"}})
	if !te.Paused() {
		t.Error("CLIENT PAUSE did not pause")
	}
	te.run([]step{
		{cmd("CLIENT", "UNPAUSE", "x"), "(error) ERR wrong number of arguments for 'client|unpause' command"},
		{cmd("CLIENT", "UNPAUSE"), "OK"},
	})
	if te.Paused() {
		t.Error("CLIENT UNPAUSE did not unpause")
	}
	te.run([]step{{cmd("CLIENT", "PAUSE", "9223372036854775807", "ALL"), "OK"}})
	if !te.Paused() {
		t.Error("a huge timeout did not pause")
	}
	// As in Redis, a pause ALL holds CLIENT UNPAUSE too: only the timeout
	// (or the Go API) ends it.
	te.Unpause()
}

func TestClientSetinfo(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("CLIENT", "SETINFO", "lib-name"), "(error) ERR wrong number of arguments for 'client|setinfo' command"},
		{cmd("CLIENT", "SETINFO", "lib-name", "go-redis(,go1.26.8)"), "OK"},
		{cmd("CLIENT", "SETINFO", "LIB-VER", "9.7.0"), "OK"},
		{cmd("CLIENT", "SETINFO", "lib-foo", "x"), "(error) ERR Unrecognized option 'lib-foo'"},
		{cmd("CLIENT", "SETINFO", "LIB-NAME", "a b"), "(error) ERR LIB-NAME cannot contain spaces, newlines or special characters."},
		{cmd("CLIENT", "SETINFO", "lib-ver", "1\n"), "(error) ERR lib-ver cannot contain spaces, newlines or special characters."},
	})
	ci := te.s.Info(te.Clock.Now())
	if ci.LibName != "go-redis(,go1.26.8)" || ci.LibVer != "9.7.0" {
		t.Errorf("lib-name %q lib-ver %q", ci.LibName, ci.LibVer)
	}
}

// clientLine matches one CLIENT LIST line with Redis 7.0's fields in order.
var clientLine = regexp.MustCompile(`^id=(\d+) addr=(\S*) laddr=(\S*) fd=-?\d+ name=(\S*) age=\d+ idle=\d+ ` +
	`flags=(\w+) db=(\d+) sub=(\d+) psub=(\d+) ssub=(\d+) multi=(-?\d+) qbuf=\d+ qbuf-free=\d+ argv-mem=\d+ ` +
	`multi-mem=\d+ rbs=\d+ rbp=\d+ obl=\d+ oll=\d+ omem=\d+ tot-mem=\d+ events=r cmd=(\S+) user=default ` +
	`redir=-1 resp=(\d)$`)

// clientLines splits a CLIENT LIST reply into lines, checking the format.
func clientLines(t *testing.T, rep Reply) [][]string {
	t.Helper()
	if rep.Kind != KindVerbatim {
		t.Fatalf("CLIENT LIST/INFO replied %s, want a verbatim string", rep)
	}
	if rep.Str == "" {
		return nil
	}
	if !strings.HasSuffix(rep.Str, "\n") {
		t.Fatalf("%q does not end with a newline", rep.Str)
	}
	var out [][]string
	for _, l := range strings.Split(strings.TrimSuffix(rep.Str, "\n"), "\n") {
		m := clientLine.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("bad client line %q", l)
		}
		out = append(out, m[1:])
	}
	return out
}

func TestClientListAndInfo(t *testing.T) {
	te := newTestEngine(t)
	a, b := te.connect(), te.connect()
	a.s.SetAddrs("127.0.0.1:5001", "127.0.0.1:6379")
	b.s.SetAddrs("127.0.0.1:5002", "127.0.0.1:6379")
	a.do("CLIENT", "SETNAME", "alpha")
	a.do("SELECT", "2")
	b.s.Sub.Store(2)
	b.s.Multi.Store(1)
	b.s.Touch("subscribe", te.Clock.Now())

	lines := clientLines(t, te.do("CLIENT", "LIST"))
	if len(lines) != 3 {
		t.Fatalf("CLIENT LIST has %d lines, want 3", len(lines))
	}
	// id addr laddr name flags db sub psub ssub multi cmd resp
	want := [][]string{
		{fmt.Sprint(te.s.ID), "", "", "", "N", "0", "0", "0", "0", "-1", "client|list", "2"},
		{fmt.Sprint(a.s.ID), "127.0.0.1:5001", "127.0.0.1:6379", "alpha", "N", "2", "0", "0", "0", "-1", "select", "2"},
		{fmt.Sprint(b.s.ID), "127.0.0.1:5002", "127.0.0.1:6379", "", "Px", "0", "2", "0", "0", "1", "subscribe", "2"},
	}
	for i := range want {
		if fmt.Sprint(lines[i]) != fmt.Sprint(want[i]) {
			t.Errorf("line %d: got %q, want %q", i, lines[i], want[i])
		}
	}

	info := clientLines(t, a.doReply("CLIENT", "INFO"))
	if len(info) != 1 || info[0][0] != fmt.Sprint(a.s.ID) || info[0][3] != "alpha" {
		t.Errorf("CLIENT INFO: %q", info)
	}

	count := func(args ...string) int { return len(clientLines(t, te.do(args...))) }
	for _, tc := range []struct {
		args []string
		n    int
	}{
		{cmd("CLIENT", "LIST", "TYPE", "normal"), 2},
		{cmd("CLIENT", "LIST", "TYPE", "NORMAL"), 2},
		{cmd("CLIENT", "LIST", "TYPE", "pubsub"), 1},
		{cmd("CLIENT", "LIST", "TYPE", "master"), 0},
		{cmd("CLIENT", "LIST", "TYPE", "replica"), 0},
		{cmd("CLIENT", "LIST", "TYPE", "slave"), 0},
		{cmd("CLIENT", "LIST", "ID", fmt.Sprint(a.s.ID)), 1},
		{cmd("CLIENT", "LIST", "ID", fmt.Sprint(a.s.ID), fmt.Sprint(a.s.ID), "999", fmt.Sprint(b.s.ID)), 3},
		{cmd("CLIENT", "LIST", "ID", "0"), 0},
		{cmd("CLIENT", "LIST", "ID", "-5"), 0},
	} {
		if got := count(tc.args...); got != tc.n {
			t.Errorf("%q: %d lines, want %d", tc.args, got, tc.n)
		}
	}
	te.run([]step{
		{cmd("CLIENT", "LIST", "x"), "(error) ERR syntax error"},
		{cmd("CLIENT", "LIST", "TYPE"), "(error) ERR syntax error"},
		{cmd("CLIENT", "LIST", "TYPE", "foo"), "(error) ERR Unknown client type 'foo'"},
		{cmd("CLIENT", "LIST", "ID"), "(error) ERR syntax error"},
		{cmd("CLIENT", "LIST", "ID", "abc"), "(error) ERR Invalid client ID"},
		{cmd("CLIENT", "LIST", "ID", "9", "1", "abc"), "(error) ERR Invalid client ID"},
		{cmd("CLIENT", "LIST", "TYPE", "normal", "ID", "1"), "(error) ERR syntax error"},
		{cmd("CLIENT", "LIST", "ID", "1", "TYPE", "normal"), "(error) ERR Invalid client ID"},
		{cmd("CLIENT", "INFO", "x"), "(error) ERR wrong number of arguments for 'client|info' command"},
	})
}

// doReply is do returning the Reply itself.
func (tc *testConn) doReply(args ...string) Reply {
	bargs := make([][]byte, len(args))
	for i, a := range args {
		bargs[i] = []byte(a)
	}
	var rec Recorder
	tc.te.Dispatch(tc.s, nil, bargs, &rec)
	return rec.Last()
}

func TestClientKill(t *testing.T) {
	te := newTestEngine(t)
	closed := map[int64]int{}
	conns := make([]*testConn, 3)
	for i := range conns {
		c := te.connect()
		c.s.SetAddrs(fmt.Sprintf("127.0.0.1:%d", 5000+i), "127.0.0.1:6379")
		id := c.s.ID
		c.s.Close = func() { closed[id]++ }
		conns[i] = c
	}
	a, b, c := conns[0], conns[1], conns[2]
	c.s.PSub.Store(1)
	id := func(tc *testConn) string { return fmt.Sprint(tc.s.ID) }

	a.run([]step{
		{cmd("CLIENT", "KILL"), "(error) ERR wrong number of arguments for 'client|kill' command"},
		{cmd("CLIENT", "KILL", "1.2.3.4:5"), "(error) ERR No such client"},
		{cmd("CLIENT", "KILL", "ID"), "(error) ERR No such client"}, // old form: "ID" is an address
		{cmd("CLIENT", "KILL", "ID", "99999"), "(integer) 0"},
		{cmd("CLIENT", "KILL", "ID", "abc"), "(error) ERR client-id should be greater than 0"},
		{cmd("CLIENT", "KILL", "ID", "0"), "(error) ERR client-id should be greater than 0"},
		{cmd("CLIENT", "KILL", "ID", "-1"), "(error) ERR client-id should be greater than 0"},
		{cmd("CLIENT", "KILL", "ID", "1", "ID", "abc"), "(error) ERR client-id should be greater than 0"},
		{cmd("CLIENT", "KILL", "ID", "1", "SKIPME"), "(error) ERR syntax error"},
		{cmd("CLIENT", "KILL", "FOO", "bar"), "(error) ERR syntax error"},
		{cmd("CLIENT", "KILL", "MAXAGE", "10"), "(error) ERR syntax error"},
		{cmd("CLIENT", "KILL", "SKIPME", "maybe"), "(error) ERR syntax error"},
		{cmd("CLIENT", "KILL", "TYPE", "foo"), "(error) ERR Unknown client type 'foo'"},
		{cmd("CLIENT", "KILL", "USER", "nouser"), "(error) ERR No such user 'nouser'"},
		{cmd("CLIENT", "KILL", "ADDR", "1.2.3.4:5"), "(integer) 0"},
		{cmd("CLIENT", "KILL", "LADDR", "1.2.3.4:5"), "(integer) 0"},
		// The new form skips the caller by default.
		{cmd("CLIENT", "KILL", "ID", id(a)), "(integer) 0"},
		{cmd("CLIENT", "KILL", "ID", id(b)), "(integer) 1"},
		{cmd("CLIENT", "KILL", "TYPE", "pubsub"), "(integer) 1"},
		{cmd("CLIENT", "KILL", "127.0.0.1:5001"), "OK"},
		{cmd("CLIENT", "KILL", "ADDR", "127.0.0.1:5002", "TYPE", "normal"), "(integer) 0"},
		{cmd("CLIENT", "KILL", "LADDR", "127.0.0.1:6379", "SKIPME", "yes"), "(integer) 2"},
	})
	if closed[b.s.ID] != 3 || closed[c.s.ID] != 2 || closed[a.s.ID] != 0 || a.s.CloseAfterReply {
		t.Errorf("closed %v, caller closing %v", closed, a.s.CloseAfterReply)
	}
	// Killing oneself closes after the reply.
	a.run([]step{{cmd("CLIENT", "KILL", "USER", "default", "SKIPME", "no", "ID", id(a)), "(integer) 1"}})
	if !a.s.CloseAfterReply || closed[a.s.ID] != 0 {
		t.Errorf("self kill: CloseAfterReply %v, Close called %d times", a.s.CloseAfterReply, closed[a.s.ID])
	}
	a.s.CloseAfterReply = false
	a.run([]step{{cmd("CLIENT", "KILL", "127.0.0.1:5000"), "OK"}})
	if !a.s.CloseAfterReply {
		t.Error("the old form kills the caller too")
	}
}

// TestClientReply checks which replies the connection owner drops after
// CLIENT REPLY OFF / SKIP / ON (Session.DropReply, as Redis's resetClient).
func TestClientReply(t *testing.T) {
	te := newTestEngine(t)
	type line struct {
		args    []string
		replies int  // replies the command writes
		dropped bool // DropReply's answer after it
	}
	for _, l := range []line{
		{cmd("PING"), 1, false},
		{cmd("CLIENT", "REPLY", "SKIP"), 0, false},
		{cmd("PING"), 1, true},
		{cmd("PING"), 1, false},
		{cmd("CLIENT", "REPLY", "OFF"), 0, true},
		{cmd("PING"), 1, true},
		{cmd("CLIENT", "REPLY", "SKIP"), 0, true}, // no effect while OFF
		{cmd("PING"), 1, true},
		{cmd("CLIENT", "REPLY", "ON"), 1, false},
		{cmd("PING"), 1, false},
		{cmd("CLIENT", "REPLY", "SKIP"), 0, false},
		{cmd("CLIENT", "REPLY", "ON"), 1, false}, // ON clears the SKIP in force
		{cmd("CLIENT", "REPLY", "OFF"), 0, true},
		{cmd("RESET"), 1, false},
	} {
		bargs := make([][]byte, len(l.args))
		for i, a := range l.args {
			bargs[i] = []byte(a)
		}
		var rec Recorder
		te.Dispatch(te.s, nil, bargs, &rec)
		if len(rec.Replies) != l.replies {
			t.Errorf("%q wrote %d replies, want %d", l.args, len(rec.Replies), l.replies)
		}
		if got := te.s.DropReply(); got != l.dropped {
			t.Errorf("%q: DropReply = %v, want %v", l.args, got, l.dropped)
		}
	}
}

// TestClientInfoConnFields: the connection's figures are laid out as
// Redis lays out its own: pending replies fill the reply buffer (obl),
// then 16 KB blocks (oll, omem); tot-mem adds up what
// getClientMemoryUsage adds; events has w while replies wait.
func TestClientInfoConnFields(t *testing.T) {
	field := func(line, name string) string {
		for _, kv := range strings.Fields(line) {
			if k, v, _ := strings.Cut(kv, "="); k == name {
				return v
			}
		}
		return "(none)"
	}
	for _, tc := range []struct {
		name string
		ci   ClientInfo
		want map[string]string
	}{
		{"no connection", ClientInfo{Conn: ConnStats{FD: -1}},
			map[string]string{"fd": "-1", "qbuf": "0", "obl": "0", "oll": "0", "omem": "0", "tot-mem": "0", "events": "r"}},
		{"running", ClientInfo{Conn: ConnStats{FD: 9, QueryBuf: 26, QueryBufFree: 100, ArgvMem: 10, ArgvLen: 2,
			ReplyBufSize: 1024, ReplyBufPeak: 300, ConnMem: 1000}},
			map[string]string{"fd": "9", "qbuf": "26", "qbuf-free": "100", "argv-mem": "10", "rbs": "1024", "rbp": "300",
				"obl": "0", "oll": "0", "omem": "0", "tot-mem": "2176", "events": "r"}},
		{"replies waiting", ClientInfo{MultiMem: 32, Conn: ConnStats{FD: 9, ReplyPending: 40000, Writing: true}},
			map[string]string{"multi-mem": "32", "obl": "16384", "oll": "2", "omem": "23616", "tot-mem": "23648", "events": "rw"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			line := string(appendClientInfo(nil, tc.ci))
			for k, v := range tc.want {
				if got := field(line, k); got != v {
					t.Errorf("%s=%s, want %s in %s", k, got, v, line)
				}
			}
		})
	}
}
