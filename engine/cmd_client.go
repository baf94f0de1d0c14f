package engine

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"time"
)

// CLIENT and its subcommands. Other connections are seen through the
// engine's session registry (Engine.Sessions, Session.Info).

// Error replies of this file's commands (errors.go has the shared ones).
var (
	errClientIDInvalid = errors.New("ERR Invalid client ID")
	errClientIDRange   = errors.New("ERR client-id should be greater than 0")
	errNoSuchClient    = errors.New("ERR No such client")
	errPauseMode       = errors.New("ERR CLIENT PAUSE mode must be WRITE or ALL")
	errUnblockReason   = errors.New("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR")
)

func clientCommands() []*Command {
	return []*Command{{
		Name: "client",
		Subcommands: []*Command{
			{Name: "help", Handler: cmdClientHelp},
			{Name: "setname", Handler: cmdClientSetname},
			{Name: "getname", Handler: cmdClientGetname},
			{Name: "id", Handler: cmdClientID},
			{Name: "info", Handler: cmdClientInfo},
			{Name: "list", Handler: cmdClientList},
			{Name: "kill", Handler: cmdClientKill},
			{Name: "no-evict", Handler: cmdClientNoEvict},
			{Name: "reply", Handler: cmdClientReply},
			{Name: "unblock", Handler: cmdClientUnblock},
			{Name: "pause", Handler: cmdClientPause},
			{Name: "unpause", Handler: cmdClientUnpause},
			{Name: "getredir", Handler: cmdClientGetredir},
			{Name: "tracking", Handler: cmdClientTracking},
			{Name: "caching", Handler: cmdClientCaching},
			{Name: "trackinginfo", Handler: cmdClientTrackinginfo},
			// NO-TOUCH is Redis 7.2's.
			{Name: "no-touch", Handler: cmdClientNoTouch},
			// SETINFO is Redis 7.2's; clients send it at connect time.
			{Name: "setinfo", Handler: cmdClientSetinfo},
		},
	}}
}

var clientHelp = []string{
	"CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"CACHING (YES|NO)",
	"    Enable/disable tracking of the keys for next command in OPTIN/OPTOUT modes.",
	"GETREDIR",
	"    Return the client ID we are redirecting to when tracking is enabled.",
	"GETNAME",
	"    Return the name of the current connection.",
	"ID",
	"    Return the ID of the current connection.",
	"INFO",
	"    Return information about the current client connection.",
	"KILL <ip:port>",
	"    Kill connection made from <ip:port>.",
	"KILL <option> <value> [<option> <value> [...]]",
	"    Kill connections. Options are:",
	"    * ADDR (<ip:port>|<unixsocket>:0)",
	"      Kill connections made from the specified address",
	"    * LADDR (<ip:port>|<unixsocket>:0)",
	"      Kill connections made to specified local address",
	"    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
	"      Kill connections by type.",
	"    * USER <username>",
	"      Kill connections authenticated by <username>.",
	"    * SKIPME (YES|NO)",
	"      Skip killing current connection (default: yes).",
	"LIST [options ...]",
	"    Return information about client connections. Options:",
	"    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
	"      Return clients of specified type.",
	"UNPAUSE",
	"    Stop the current client pause, resuming traffic.",
	"PAUSE <timeout> [WRITE|ALL]",
	"    Suspend all, or just write, clients for <timeout> milliseconds.",
	"REPLY (ON|OFF|SKIP)",
	"    Control the replies sent to the current connection.",
	"SETNAME <name>",
	"    Assign the name <name> to the current connection.",
	"UNBLOCK <clientid> [TIMEOUT|ERROR]",
	"    Unblock the specified blocked client.",
	"TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]",
	"         [OPTIN] [OPTOUT] [NOLOOP]",
	"    Control server assisted client side caching.",
	"TRACKINGINFO",
	"    Report tracking status for the current connection.",
	"NO-EVICT (ON|OFF)",
	"    Protect current client connection from eviction.",
	"HELP",
	"    Prints this help.",
}

func cmdClientHelp(c *Call) { WriteHelp(c.W, clientHelp) }

func cmdClientSetname(c *Call) {
	if err := validClientName(c.Args[2]); err != nil {
		c.Err(err)
		return
	}
	c.S.SetName(string(c.Args[2]))
	c.OK()
}

func cmdClientGetname(c *Call) {
	if n := c.S.Name(); n != "" {
		c.W.BulkString(n)
		return
	}
	c.W.Null()
}

func cmdClientID(c *Call) { c.W.Int(c.S.ID) }

func cmdClientInfo(c *Call) {
	b := appendClientInfo(nil, c.S.Info(time.Now()))
	c.W.Verbatim("txt", string(append(b, '\n')))
}

// clientType is Redis's client class for CLIENT LIST/KILL TYPE.
type clientType uint8

const (
	clientNormal clientType = iota
	clientReplica
	clientPubSub
	clientMaster
)

// parseClientType parses a TYPE argument; ok is false for unknown names.
func parseClientType(b []byte) (clientType, bool) {
	switch {
	case EqualFold(b, "normal"):
		return clientNormal, true
	case EqualFold(b, "slave"), EqualFold(b, "replica"):
		return clientReplica, true
	case EqualFold(b, "pubsub"):
		return clientPubSub, true
	case EqualFold(b, "master"):
		return clientMaster, true
	}
	return 0, false
}

func typeOf(ci ClientInfo) clientType {
	if ci.Sub+ci.PSub+ci.SSub > 0 {
		return clientPubSub
	}
	return clientNormal
}

// clientFlags renders CLIENT LIST's flags= in Redis's letter order: P
// (subscribed), x (in MULTI), t R B (tracking), the letters the
// connection owner set, r (READONLY), e (no-evict).
func clientFlags(ci ClientInfo) string {
	var b [16]byte
	out := b[:0]
	if typeOf(ci) == clientPubSub {
		out = append(out, 'P')
	}
	if ci.Multi >= 0 {
		out = append(out, 'x')
	}
	out = append(out, ci.TrackFlags...)
	for i := 0; i < len(ci.Flags); i++ {
		f := ci.Flags[i]
		if f != 'N' && f != 'P' && f != 'x' {
			out = append(out, f)
		}
	}
	if ci.ReadOnly {
		out = append(out, 'r')
	}
	if ci.NoEvict {
		out = append(out, 'e')
	}
	if len(out) == 0 {
		return "N"
	}
	return string(out)
}

// replyChunk is Redis's PROTO_REPLY_CHUNK_BYTES: the static reply buffer
// holds that much, what is beyond goes into a list of blocks that size.
const replyChunk = 16 << 10

// appendClientInfo renders one CLIENT LIST line (without its newline) with
// Redis 7.0's fields. The buffer and memory figures are the connection's
// (ConnStats), laid out as Redis lays out its own: replies waiting for the
// socket fill the reply buffer (obl) and then blocks of 16 KB (oll, omem);
// tot-mem adds what getClientMemoryUsage adds. A session without a
// connection reads fd=-1 and 0s, as Redis's clients without a socket.
func appendClientInfo(b []byte, ci ClientInfo) []byte {
	cs := ci.Conn
	obl := min(cs.ReplyPending, max(cs.ReplyBufSize, replyChunk))
	omem := cs.ReplyPending - obl
	oll := (omem + replyChunk - 1) / replyChunk
	totMem := omem + cs.QueryBuf + cs.QueryBufFree + cs.ConnMem + cs.ReplyBufSize +
		cs.ArgvMem + int64(8*cs.ArgvLen) + ci.MultiMem +
		int64(ci.PSub)*24 + int64(ci.Sub+ci.SSub)*32
	events := "r"
	if cs.Writing {
		events = "rw"
	}
	cmd := ci.Cmd
	if cmd == "" {
		cmd = "NULL"
	}
	b = append(b, "id="...)
	b = strconv.AppendInt(b, ci.ID, 10)
	b = append(b, " addr="...)
	b = append(b, ci.Addr...)
	b = append(b, " laddr="...)
	b = append(b, ci.LAddr...)
	b = append(b, " fd="...)
	b = strconv.AppendInt(b, int64(cs.FD), 10)
	b = append(b, " name="...)
	b = append(b, ci.Name...)
	b = append(b, " age="...)
	b = strconv.AppendInt(b, int64(ci.Age/time.Second), 10)
	b = append(b, " idle="...)
	b = strconv.AppendInt(b, int64(ci.Idle/time.Second), 10)
	b = append(b, " flags="...)
	b = append(b, clientFlags(ci)...)
	b = append(b, " db="...)
	b = strconv.AppendInt(b, int64(ci.DB), 10)
	b = append(b, " sub="...)
	b = strconv.AppendInt(b, int64(ci.Sub), 10)
	b = append(b, " psub="...)
	b = strconv.AppendInt(b, int64(ci.PSub), 10)
	b = append(b, " ssub="...)
	b = strconv.AppendInt(b, int64(ci.SSub), 10)
	b = append(b, " multi="...)
	b = strconv.AppendInt(b, int64(ci.Multi), 10)
	for _, f := range []struct {
		name string
		v    int64
	}{
		{" qbuf=", cs.QueryBuf}, {" qbuf-free=", cs.QueryBufFree}, {" argv-mem=", cs.ArgvMem},
		{" multi-mem=", ci.MultiMem}, {" rbs=", cs.ReplyBufSize}, {" rbp=", cs.ReplyBufPeak},
		{" obl=", obl}, {" oll=", oll}, {" omem=", omem}, {" tot-mem=", totMem},
	} {
		b = append(b, f.name...)
		b = strconv.AppendInt(b, f.v, 10)
	}
	b = append(b, " events="...)
	b = append(b, events...)
	b = append(b, " cmd="...)
	b = append(b, cmd...)
	b = append(b, " user="...)
	b = append(b, ci.User...)
	b = append(b, " redir="...)
	b = strconv.AppendInt(b, ci.Redir, 10)
	b = append(b, " resp="...)
	proto := ci.Proto
	if proto == 0 {
		proto = 2
	}
	b = strconv.AppendInt(b, int64(proto), 10)
	return b
}

// cmdClientList handles CLIENT LIST [TYPE type | ID id [id ...]].
func cmdClientList(c *Call) {
	now := time.Now()
	var b []byte
	switch {
	case len(c.Args) == 4 && EqualFold(c.Args[2], "type"):
		t, ok := parseClientType(c.Args[3])
		if !ok {
			c.Errf("ERR Unknown client type '%s'", c.Args[3])
			return
		}
		for _, s := range c.E.Sessions() {
			if ci := s.Info(now); typeOf(ci) == t {
				b = append(appendClientInfo(b, ci), '\n')
			}
		}
	case len(c.Args) > 3 && EqualFold(c.Args[2], "id"):
		// Redis answers in argument order, repeats included, and fails
		// on the first id that is not an integer.
		ids := make([]int64, 0, len(c.Args)-3)
		for _, a := range c.Args[3:] {
			id, ok := ParseInt(a)
			if !ok {
				c.Err(errClientIDInvalid)
				return
			}
			ids = append(ids, id)
		}
		sessions := c.E.Sessions()
		for _, id := range ids {
			for _, s := range sessions {
				if s.ID == id {
					b = append(appendClientInfo(b, s.Info(now)), '\n')
					break
				}
			}
		}
	case len(c.Args) != 2:
		c.Err(ErrSyntax)
		return
	default:
		for _, s := range c.E.Sessions() {
			b = append(appendClientInfo(b, s.Info(now)), '\n')
		}
	}
	c.W.Verbatim("txt", string(b))
}

// killFilter is what CLIENT KILL's options select.
type killFilter struct {
	addr, laddr []byte
	id          int64
	typ         clientType
	anyType     bool
	skipMe      bool
	user        *User
}

// cmdClientKill handles CLIENT KILL addr (old form: may kill the caller,
// answers OK or an error) and CLIENT KILL <option> <value> ... (skips the
// caller unless SKIPME no, answers the number killed).
func cmdClientKill(c *Call) {
	f := killFilter{anyType: true, skipMe: true}
	oldForm := len(c.Args) == 3
	if oldForm {
		f.addr = c.Args[2]
		f.skipMe = false
	} else {
		for i := 2; i < len(c.Args); i += 2 {
			opt := c.Args[i]
			if i+1 >= len(c.Args) {
				c.Err(ErrSyntax)
				return
			}
			val := c.Args[i+1]
			switch {
			case EqualFold(opt, "id"):
				id, ok := ParseInt(val)
				if !ok || id < 1 {
					c.Err(errClientIDRange)
					return
				}
				f.id = id
			case EqualFold(opt, "type"):
				t, ok := parseClientType(val)
				if !ok {
					c.Errf("ERR Unknown client type '%s'", val)
					return
				}
				f.typ, f.anyType = t, false
			case EqualFold(opt, "addr"):
				f.addr = val
			case EqualFold(opt, "laddr"):
				f.laddr = val
			case EqualFold(opt, "user"):
				u := c.E.LookupUser(string(val))
				if u == nil {
					c.Errf("ERR No such user '%s'", val)
					return
				}
				f.user = u
			case EqualFold(opt, "skipme"):
				switch {
				case EqualFold(val, "yes"):
					f.skipMe = true
				case EqualFold(val, "no"):
					f.skipMe = false
				default:
					c.Err(ErrSyntax)
					return
				}
			default:
				c.Err(ErrSyntax)
				return
			}
		}
	}
	now := time.Now()
	killed := 0
	for _, s := range c.E.Sessions() {
		ci := s.Info(now)
		if f.addr != nil && ci.Addr != string(f.addr) ||
			f.laddr != nil && ci.LAddr != string(f.laddr) ||
			!f.anyType && typeOf(ci) != f.typ ||
			f.id != 0 && ci.ID != f.id ||
			f.user != nil && s.user.Load() != f.user ||
			f.skipMe && s == c.S {
			continue
		}
		c.E.logClientKill(ci, c.S)
		if s == c.S {
			c.S.CloseAfterReply = true
		} else if s.Close != nil {
			s.Close()
		}
		killed++
	}
	if !oldForm {
		c.W.Int(int64(killed))
		return
	}
	if killed == 0 {
		c.Err(errNoSuchClient)
		return
	}
	c.OK()
}

// cmdClientNoEvict accepts ON/OFF and shows it in CLIENT LIST (flag e):
// lockredis never evicts clients.
func cmdClientNoEvict(c *Call) {
	switch {
	case EqualFold(c.Args[2], "on"):
		c.S.setNoEvict(true)
	case EqualFold(c.Args[2], "off"):
		c.S.setNoEvict(false)
	default:
		c.Err(ErrSyntax)
		return
	}
	c.OK()
}

// cmdClientNoTouch accepts ON/OFF (Redis 7.2). It changes nothing: lockredis
// keeps no access time per key (OBJECT IDLETIME answers 0), so there is no
// access time a client could leave untouched.
func cmdClientNoTouch(c *Call) {
	if !EqualFold(c.Args[2], "on") && !EqualFold(c.Args[2], "off") {
		c.Err(ErrSyntax)
		return
	}
	c.OK()
}

// cmdClientReply handles CLIENT REPLY ON|OFF|SKIP. OFF and SKIP answer
// nothing; the connection owner drops the replies (Session.DropReply).
// Pushes (pub/sub messages, invalidations) still arrive, as in Redis.
func cmdClientReply(c *Call) {
	s := c.S
	switch {
	case EqualFold(c.Args[2], "on"):
		s.replyOff, s.replySkip = false, false
		c.OK()
	case EqualFold(c.Args[2], "off"):
		s.replyOff = true
	case EqualFold(c.Args[2], "skip"):
		if !s.replyOff {
			s.replySkipNext = true
		}
	default:
		c.Err(ErrSyntax)
	}
}

// cmdClientUnblock ends the blocked command of a client (BLPOP, XREAD
// BLOCK, LOCK.ACQUIRE ... WAIT...): it answers its timeout reply, or with
// ERROR the UNBLOCKED error. 1 if the client was blocked, else 0.
func cmdClientUnblock(c *Call) {
	if len(c.Args) > 4 {
		subcommandSyntaxError(c)
		return
	}
	if len(c.Args) == 4 && !EqualFold(c.Args[3], "timeout") && !EqualFold(c.Args[3], "error") {
		c.Err(errUnblockReason)
		return
	}
	id, ok := ParseInt(c.Args[2])
	if !ok {
		c.Err(ErrNotInteger)
		return
	}
	withError := len(c.Args) == 4 && EqualFold(c.Args[3], "error")
	if c.E.unblockClient(c.Tx, id, withError) {
		c.W.Int(1)
		return
	}
	c.W.Int(0)
}

// subcommandSyntaxError is Redis's reply for a subcommand given too many
// arguments where its arity cannot tell.
func subcommandSyntaxError(c *Call) {
	c.Errf("ERR unknown subcommand or wrong number of arguments for '%s'. Try %s HELP.",
		truncateArg(string(c.Args[1])), strings.ToUpper(c.Cmd.Parent().Name))
}

// cmdClientPause handles CLIENT PAUSE timeout [WRITE|ALL]: commands (or
// only writes) of every client wait until timeout milliseconds pass or
// CLIENT UNPAUSE. A timeout of 0 pauses nothing, as in Redis.
func cmdClientPause(c *Call) {
	if len(c.Args) > 4 {
		subcommandSyntaxError(c)
		return
	}
	writeOnly := false
	if len(c.Args) == 4 {
		switch {
		case EqualFold(c.Args[3], "write"):
			writeOnly = true
		case EqualFold(c.Args[3], "all"):
		default:
			c.Err(errPauseMode)
			return
		}
	}
	ms, ok := parseMsTimeout(c, c.Args[2])
	if !ok {
		return
	}
	if ms > 0 {
		c.E.Pause(time.Duration(min(ms, math.MaxInt64/int64(time.Millisecond)))*time.Millisecond, writeOnly)
	}
	c.OK()
}

func cmdClientUnpause(c *Call) {
	c.E.Unpause()
	c.OK()
}

// cmdClientSetinfo handles CLIENT SETINFO LIB-NAME|LIB-VER value as Redis
// 7.2 does.
func cmdClientSetinfo(c *Call) {
	attr, val := c.Args[2], c.Args[3]
	isName := EqualFold(attr, "lib-name")
	if !isName && !EqualFold(attr, "lib-ver") {
		c.Errf("ERR Unrecognized option '%s'", attr)
		return
	}
	if validClientName(val) != nil {
		c.Errf("ERR %s cannot contain spaces, newlines or special characters.", attr)
		return
	}
	v := string(val)
	if isName {
		c.S.SetLib(&v, nil)
	} else {
		c.S.SetLib(nil, &v)
	}
	c.OK()
}

var errClientName = errors.New("ERR Client names cannot contain spaces, newlines or special characters.")

// validClientName checks a CLIENT SETNAME / HELLO SETNAME name: printable
// ASCII without spaces.
func validClientName(name []byte) error {
	for _, b := range name {
		if b < '!' || b > '~' {
			return errClientName
		}
	}
	return nil
}

// parseMsTimeout parses a timeout in milliseconds (WAIT, WAITAOF, CLIENT
// PAUSE), replying Redis's error when it is invalid.
func parseMsTimeout(c *Call, arg []byte) (int64, bool) {
	ms, ok := ParseInt(arg)
	if !ok {
		c.Err(errTimeoutNotInteger)
		return 0, false
	}
	if ms < 0 {
		c.Err(ErrTimeoutNegative)
		return 0, false
	}
	return ms, true
}

// logClientKill logs a connection CLIENT KILL closes, naming it the way
// CLIENT LIST does and the client that asked. (Redis 7.0 logs nothing
// here; the line follows its log format.)
func (e *Engine) logClientKill(killed ClientInfo, by *Session) {
	e.Logf("notice", "Client id=%d addr=%s laddr=%s name=%s killed by CLIENT KILL from id=%d addr=%s",
		killed.ID, killed.Addr, killed.LAddr, killed.Name, by.ID, peerID(by))
}
