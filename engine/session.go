package engine

import (
	"time"
)

// Session kinds: where a session's commands come from, which decides the
// rules Dispatch applies to them.
const (
	KindClient = "normal" // a connection (resp/)
	KindScript = "lua"    // a script's redis.call (luasvc/)
	KindEmbed  = "embed"  // the Go API (package lockredis)
)

// NewSession makes a session that is not yet registered.
func NewSession(kind string) *Session {
	now := time.Now()
	s := &Session{Kind: kind, Proto: 2, proto: 2, Created: now, lastActive: now, redir: -1}
	s.Multi.Store(-1)
	return s
}

// User is the session's ACL user, nil for a Go API session.
func (s *Session) User() *User { return s.user.Load() }

// Subscriptions counts the channels, patterns and shard channels the
// session is subscribed to.
func (s *Session) Subscriptions() int32 { return s.Sub.Load() + s.PSub.Load() + s.SSub.Load() }

// SetName sets the CLIENT SETNAME name.
func (s *Session) SetName(n string) {
	s.mu.Lock()
	s.name = n
	s.mu.Unlock()
}

// Name is the CLIENT SETNAME name.
func (s *Session) Name() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.name
}

// SetLib records CLIENT SETINFO values; empty arguments keep the old one.
func (s *Session) SetLib(name, ver *string) {
	s.mu.Lock()
	if name != nil {
		s.libName = *name
	}
	if ver != nil {
		s.libVer = *ver
	}
	s.mu.Unlock()
}

// SetAddrs records the peer and local addresses.
func (s *Session) SetAddrs(addr, laddr string) {
	s.mu.Lock()
	s.addr, s.laddr = addr, laddr
	s.mu.Unlock()
}

// Addr is the peer address.
func (s *Session) Addr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addr
}

// SetFlags sets the CLIENT LIST flags letters ("N", "P", "x"...).
func (s *Session) SetFlags(f string) {
	s.mu.Lock()
	s.flags = f
	s.mu.Unlock()
}

// SelectDB changes the selected database.
func (s *Session) SelectDB(db int) {
	s.DB = db
	s.mu.Lock()
	s.db = db
	s.mu.Unlock()
}

// SetProto changes the protocol version (HELLO).
func (s *Session) SetProto(p int) {
	s.Proto = p
	s.mu.Lock()
	s.proto = p
	s.mu.Unlock()
}

// SharedProto is the protocol version as other goroutines may read it.
func (s *Session) SharedProto() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.proto
}

// SetPush gives the session a way to receive out-of-band frames (client
// tracking invalidations): fn encodes what write writes, in the
// connection's protocol, and queues it in order with its replies, without
// blocking. resp sets it when the connection is detached from redcon.
func (s *Session) SetPush(fn func(write func(Writer))) { s.pushFn.Store(&fn) }

// push sends the frame write writes, if the connection can receive pushes.
func (s *Session) push(write func(Writer)) {
	if fn := s.pushFn.Load(); fn != nil {
		(*fn)(write)
	}
}

// NullWriter is implemented by a writer that can write the null of a given
// protocol whatever its own (resp's Encoder): an invalidation after a
// flush carries the tracking client's null, as in Redis.
type NullWriter interface{ NullOf(proto int) }

// HasAfterReply reports whether RunAfterReply has anything to send.
func (s *Session) HasAfterReply() bool { return len(s.afterReply) > 0 }

// RunAfterReply sends what had to wait for the reply of the command just
// run: the invalidations of the keys it changed itself. The connection
// owner calls it once the reply is queued.
func (s *Session) RunAfterReply() {
	for i, fn := range s.afterReply {
		fn()
		s.afterReply[i] = nil
	}
	s.afterReply = s.afterReply[:0]
}

// DropReply reports whether the reply of the command just run must not be
// sent (CLIENT REPLY OFF, or SKIP given just before it) and moves a SKIP
// on to the next command, as Redis's resetClient. The connection owner
// calls it once per command.
func (s *Session) DropReply() bool {
	drop := s.replyOff || s.replySkip
	s.replySkip, s.replySkipNext = s.replySkipNext, false
	return drop
}

// ReplyMuted reports whether replies are dropped now, for a reply sent in
// pieces while the command runs (EXEC's header before SUBSCRIBE's
// confirmations).
func (s *Session) ReplyMuted() bool { return s.replyOff || s.replySkip }

// setTrackView copies the tracking mode for CLIENT LIST (st nil: off).
func (s *Session) setTrackView(st *trackState) {
	flags, redir := "", int64(-1)
	if st != nil {
		flags, redir = "t", st.redirect
		if st.brokenRedir {
			flags += "R"
		}
		if st.bcast {
			flags += "B"
		}
	}
	s.mu.Lock()
	s.trackFlags, s.redir = flags, redir
	s.mu.Unlock()
}

// setNoEvict records CLIENT NO-EVICT for CLIENT LIST.
func (s *Session) setNoEvict(on bool) {
	s.mu.Lock()
	s.noEvict = on
	s.mu.Unlock()
}

// Touch records the command being run, for CLIENT LIST cmd= and idle=.
func (s *Session) Touch(cmd string, now time.Time) {
	s.mu.Lock()
	s.lastCmd = cmd
	s.lastActive = now
	s.mu.Unlock()
}

// ClientInfo is a snapshot of a session for CLIENT LIST / CLIENT INFO.
type ClientInfo struct {
	ID                  int64
	Addr, LAddr         string
	Name                string
	LibName, LibVer     string
	Age, Idle           time.Duration
	Flags               string
	DB                  int
	Sub, PSub, SSub     int
	Multi               int
	Cmd                 string
	Proto               int
	LastCmd, ClientKind string
	TrackFlags          string // t, R, B (tracking.go)
	Redir               int64  // redirect of a tracking client, else -1
	NoEvict             bool
	ReadOnly            bool   // READONLY (cluster mode)
	User                string // ACL user; "default" for sessions without one
	Conn                ConnStats
	MultiMem            int64 // multi-mem: the queued commands' bytes
}

// SetConnStats sets how CLIENT LIST reads the connection's figures (fd,
// qbuf, argv-mem, rbs, omem...); f must be safe to call from any
// goroutine. Without it they read as for a client without a socket.
func (s *Session) SetConnStats(f func() ConnStats) { s.connStats.Store(&f) }

// Info snapshots the session for other goroutines.
func (s *Session) Info(now time.Time) ClientInfo {
	conn := ConnStats{FD: -1}
	if f := s.connStats.Load(); f != nil {
		conn = (*f)()
	}
	multiMem := s.multiMem.Load()
	s.mu.Lock()
	defer s.mu.Unlock()
	flags := s.flags
	if flags == "" {
		flags = "N"
	}
	user := "default"
	if u := s.user.Load(); u != nil {
		user = u.name
	}
	return ClientInfo{
		ID: s.ID, Addr: s.addr, LAddr: s.laddr, Name: s.name,
		LibName: s.libName, LibVer: s.libVer,
		Age: now.Sub(s.Created), Idle: now.Sub(s.lastActive),
		Flags: flags, DB: s.db, Sub: int(s.Sub.Load()), PSub: int(s.PSub.Load()),
		SSub: int(s.SSub.Load()), Multi: int(s.Multi.Load()), Cmd: s.lastCmd,
		Proto: s.proto, TrackFlags: s.trackFlags, Redir: s.redir, NoEvict: s.noEvict,
		ReadOnly: s.readOnly, User: user, Conn: conn, MultiMem: multiMem,
	}
}

// InMulti reports whether the session is queuing commands.
func (s *Session) InMulti() bool { return s.multi != nil }

// Queue adds a command to the MULTI queue. args must stay valid until EXEC.
func (s *Session) Queue(cmd *Command, args [][]byte) {
	s.multi.queue = append(s.multi.queue, queuedCommand{cmd, args})
	s.Multi.Store(int32(len(s.multi.queue)))
	// CLIENT LIST's multi-mem, as Redis's mstate.argv_len_sums: the
	// arguments' bytes and a pointer for each.
	n := int64(8 * len(args))
	for _, a := range args {
		n += int64(len(a))
	}
	s.multiMem.Add(n)
}

// QueueHas reports whether a queued command satisfies match.
func (s *Session) QueueHas(match func(*Command) bool) bool {
	if s.multi == nil {
		return false
	}
	for _, q := range s.multi.queue {
		if match(q.cmd) {
			return true
		}
	}
	return false
}

// FailMulti marks the transaction as failed: a command was rejected while
// queuing, so EXEC will answer EXECABORT.
func (s *Session) FailMulti() {
	if s.multi != nil {
		s.multi.failed = true
	}
}

func (s *Session) endMulti() {
	s.multi = nil
	s.Multi.Store(-1)
	s.multiMem.Store(0)
}
