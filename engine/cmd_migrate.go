package engine

import (
	"bufio"
	"errors"
	"net"
	"strconv"
	"syscall"
	"time"
)

// MIGRATE host port key|"" destination-db timeout [COPY] [REPLACE]
// [AUTH password] [AUTH2 username password] [KEYS key [key ...]]
// (cluster.c migrateCommand): the keys are sent to another server (a
// redis-server or a lockredis) as RESTORE commands with their DUMP payload
// and remaining TTL, after AUTH and SELECT, and deleted here unless COPY,
// each once the target acknowledged it. The replies are Redis's: OK, NOKEY
// when no key exists, "IOERR error or timeout ..." on a network failure,
// and the target's error as "ERR Target instance replied with error: ...".
//
// Redis blocks the whole server while it talks to the target. lockredis
// does not hold the keyspace that long: a client's MIGRATE reads the
// payloads in one transaction, talks to the target with no lock held, and
// deletes the acknowledged keys in a second transaction, only those whose
// value is still the one sent: a key written meanwhile keeps its newer
// value here (the target has the older one). Inside MULTI or a script,
// which hold the keyspace already, it all runs in their transaction, as in
// Redis.
//
// Each MIGRATE opens its own connection and closes it: there is no cache of
// connections (Redis's migrate_cached_sockets), so SELECT is always sent
// and there is no retry on a stale cached connection.

var (
	errMigrateKeys    = errors.New("ERR When using MIGRATE KEYS option, the key argument must be set to the empty string")
	errMigrateConnect = "IOERR error or timeout connecting to the client"
	errMigrateWrite   = "IOERR error or timeout writing to target instance"
	errMigrateRead    = "IOERR error or timeout reading to target instance"
)

func migrateCommands() []*Command {
	return []*Command{{Name: "migrate", Handler: cmdMigrate, keysProc: migrateKeys}}
}

// migration is one MIGRATE: its options and the keys found.
type migration struct {
	host, port     string
	db             int64
	timeout        time.Duration
	copy, replace  bool
	user, password []byte
	auth           bool // AUTH or AUTH2 given
	asking         bool // cluster mode: RESTORE-ASKING
	keys           []migrateKey
	stream         bool // a key to send is a stream (canDump)
}

// migrateKey is a key to send: the value as read, its payload and TTL.
type migrateKey struct {
	key     []byte
	seen    Value
	payload []byte
	ttl     int64
}

func cmdMigrate(c *Call) {
	m := &migration{host: string(c.Args[1]), port: string(c.Args[2]), asking: c.E.cluster.enabled}
	keys := c.Args[3:4]
	for j := 6; j < len(c.Args); j++ {
		more := len(c.Args) - 1 - j
		a := c.Args[j]
		switch {
		case EqualFold(a, "copy"):
			m.copy = true
		case EqualFold(a, "replace"):
			m.replace = true
		case EqualFold(a, "auth"):
			if more < 1 {
				c.Err(ErrSyntax)
				return
			}
			j++
			m.auth, m.password = true, c.Args[j]
			c.Redact(j)
		case EqualFold(a, "auth2"):
			if more < 2 {
				c.Err(ErrSyntax)
				return
			}
			m.auth, m.user, m.password = true, c.Args[j+1], c.Args[j+2]
			c.Redact(j + 1)
			c.Redact(j + 2)
			j += 2
		case EqualFold(a, "keys"):
			if len(c.Args[3]) != 0 {
				c.Err(errMigrateKeys)
				return
			}
			keys = c.Args[j+1:]
			j = len(c.Args) // the remaining arguments are keys
		default:
			c.Err(ErrSyntax)
			return
		}
	}
	timeout, ok := ParseInt(c.Args[5])
	if !ok {
		c.Err(ErrNotInteger)
		return
	}
	if m.db, ok = ParseInt(c.Args[4]); !ok {
		c.Err(ErrNotInteger)
		return
	}
	if timeout <= 0 {
		timeout = 1000
	}
	m.timeout = time.Duration(min(timeout, int64(time.Duration(1<<62)/time.Millisecond))) * time.Millisecond

	if c.Tx != nil {
		// MULTI or a script: their transaction holds the keyspace.
		m.read(c, c.Tx, keys)
		if m.stream {
			c.Err(errDumpStream)
			return
		}
		if len(m.keys) == 0 {
			c.W.Status("NOKEY")
			return
		}
		acked, reply := m.send()
		m.remove(c.Tx, acked)
		reply(c)
		return
	}
	doAsClient(c, false, func(tx *Tx) {
		c.Tx = tx // for lookupRead's keyspace hits and misses
		m.read(c, tx, keys)
		c.Tx = nil
	})
	if m.stream {
		c.Err(errDumpStream)
		return
	}
	if len(m.keys) == 0 {
		c.W.Status("NOKEY")
		return
	}
	acked, reply := m.send() // no lock held
	if len(acked) > 0 {
		doAsClient(c, true, func(tx *Tx) { m.remove(tx, acked) })
	}
	reply(c)
}

// doAsClient runs fn in a transaction of the calling client, as run does
// for a command: client tracking then knows whose change it sees (NOLOOP,
// invalidations after the reply).
func doAsClient(c *Call, write bool, fn func(tx *Tx)) {
	tx := c.E.getTx()
	tx.client = c.S
	c.E.do(tx, write, c.S.DB, fn)
}

// read finds the keys that exist (Redis's lookupKeyRead) and serializes
// them with their remaining TTL.
func (m *migration) read(c *Call, tx *Tx, keys [][]byte) {
	for _, k := range keys {
		v, ok := lookupRead(c, k)
		if !ok {
			continue
		}
		d, ok := dumpable(v, tx.Ms)
		if !ok {
			continue
		}
		if !canDump(d) {
			m.stream = true
			return
		}
		mk := migrateKey{key: k, seen: v, payload: dumpPayload(d)}
		if v.ExpireAt != 0 {
			mk.ttl = max(v.ExpireAt-tx.Ms, 1)
		}
		m.keys = append(m.keys, mk)
	}
}

// remove deletes the keys the target acknowledged, unless COPY, each with
// a "del" event as Redis raises it; a key changed since it was read stays.
func (m *migration) remove(tx *Tx, acked []int) {
	if m.copy {
		return
	}
	for _, i := range acked {
		k := m.keys[i]
		v, ok := tx.Get(k.key)
		if !ok || v.Token != k.seen.Token || v.Type != k.seen.Type ||
			v.ExpireAt != k.seen.ExpireAt || v.Payload != k.seen.Payload {
			continue
		}
		tx.Delete(k.key)
		tx.Notify(NotifyGeneric, "del", k.key)
	}
}

// send talks to the target: it returns the indexes of the keys it
// acknowledged and the reply to give.
func (m *migration) send() (acked []int, reply func(c *Call)) {
	ioErr := func(msg string) func(*Call) { return func(c *Call) { c.W.Error(msg) } }
	conn, err := net.DialTimeout("tcp", net.JoinHostPort(m.host, strconv.Itoa(atoi([]byte(m.port)))), m.timeout)
	if err != nil {
		// Redis connects without blocking and waits until the socket is
		// writable: a refused or reset connection passes that wait and
		// fails at the first write.
		if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EHOSTUNREACH) {
			return nil, ioErr(errMigrateWrite)
		}
		return nil, ioErr(errMigrateConnect)
	}
	defer conn.Close()

	var buf []byte
	if m.auth {
		if m.user != nil {
			buf = appendCommand(buf, []byte("AUTH"), m.user, m.password)
		} else {
			buf = appendCommand(buf, []byte("AUTH"), m.password)
		}
	}
	buf = appendCommand(buf, []byte("SELECT"), strconv.AppendInt(nil, m.db, 10))
	restore := []byte("RESTORE")
	if m.asking {
		restore = []byte("RESTORE-ASKING")
	}
	for _, k := range m.keys {
		args := [][]byte{restore, k.key, strconv.AppendInt(nil, k.ttl, 10), k.payload}
		if m.replace {
			args = append(args, []byte("REPLACE"))
		}
		buf = appendCommand(buf, args...)
	}
	// Written in 64K chunks, each within the timeout, as Redis does.
	for len(buf) > 0 {
		n := min(len(buf), 64<<10)
		conn.SetWriteDeadline(time.Now().Add(m.timeout))
		if _, err := conn.Write(buf[:n]); err != nil {
			return nil, ioErr(errMigrateWrite)
		}
		buf = buf[n:]
	}

	r := bufio.NewReader(conn)
	readLine := func() (string, bool) {
		conn.SetReadDeadline(time.Now().Add(m.timeout))
		line, err := r.ReadString('\n')
		if err != nil {
			return "", false
		}
		line = line[:len(line)-1]
		if len(line) > 0 && line[len(line)-1] == '\r' {
			line = line[:len(line)-1]
		}
		return line, line != ""
	}
	var authReply, selectReply string
	ok := true
	if m.auth {
		authReply, ok = readLine()
	}
	if ok {
		selectReply, ok = readLine()
	}
	if !ok {
		return nil, ioErr(errMigrateRead)
	}
	targetErr := ""
	for i := range m.keys {
		line, ok := readLine()
		if !ok {
			if targetErr == "" {
				return acked, ioErr(errMigrateRead)
			}
			break
		}
		// The first error, AUTH's or SELECT's before RESTORE's, is the
		// one reported; an AUTH or SELECT error fails every key.
		switch {
		case m.auth && authReply[0] == '-':
			line = authReply
		case selectReply[0] == '-':
			line = selectReply
		}
		if line[0] == '-' {
			if targetErr == "" {
				targetErr = line[1:]
			}
			continue
		}
		acked = append(acked, i)
	}
	if targetErr != "" {
		return acked, func(c *Call) { c.W.Error(sanitizeLine("ERR Target instance replied with error: " + targetErr)) }
	}
	return acked, func(c *Call) { c.OK() }
}

// migrateKeys finds MIGRATE's keys as Redis's migrateGetKeys, used when
// the key specs fail (the KEYS spec is incomplete): the key argument, or what follows KEYS, the
// options before it skipped with their values; none when KEYS comes with a
// non-empty key argument (MIGRATE then answers the error).
func migrateKeys(cmd *Command, args [][]byte) ([]keyRef, bool) {
	if cmd.FullName != "migrate" {
		return nil, false
	}
	first, num := 3, 1
	for i := 6; i < len(args); i++ {
		a := args[i]
		if EqualFold(a, "keys") {
			if len(args[3]) > 0 {
				num = 0
			} else {
				first, num = i+1, len(args)-i-1
			}
			break
		}
		switch {
		case EqualFold(a, "auth"):
			i++
		case EqualFold(a, "auth2"):
			i += 2
		}
	}
	keys := make([]keyRef, num)
	for i := range keys {
		keys[i] = keyRef{first + i, []string{"RW", "access", "delete"}}
	}
	return keys, true
}

// appendCommand appends args as a RESP array of bulk strings.
func appendCommand(b []byte, args ...[]byte) []byte {
	b = append(b, '*')
	b = strconv.AppendInt(b, int64(len(args)), 10)
	b = append(b, "\r\n"...)
	for _, a := range args {
		b = append(b, '$')
		b = strconv.AppendInt(b, int64(len(a)), 10)
		b = append(b, "\r\n"...)
		b = append(b, a...)
		b = append(b, "\r\n"...)
	}
	return b
}
