package replication

import (
	"encoding/binary"
	"errors"
)

// The Raft log entry format (docs/replication.md). Every entry is
//
//	kind    1 byte
//	time    8 bytes, big endian: the leader's replicated clock when it
//	        made the entry, unix nanoseconds
//	term    uvarint: the leader's term when it made the entry
//	origin  uvarint length + bytes: the leader's node id
//	body    the rest, by kind
//
// kindChanges' body is one or more committed write transactions' physical
// changes (changes.go); kindAnnounce's is a node's id and client address
// (a new leader's first entry announces itself; followers ask the leader
// to announce them); kindTick has none: it moves the replicated clock
// while no write does; kindSeed's is a whole keyspace in the snapshot
// stream's format (keyspace.Store.WriteSnapshot), a standalone node's
// append-only file seeding a new group (seed.go).
const (
	kindChanges  byte = 1
	kindAnnounce byte = 2
	kindTick     byte = 3
	kindSeed     byte = 4
)

// entry is a decoded log entry.
type entry struct {
	kind   byte
	time   int64
	term   uint64
	origin string
	body   []byte
}

var errBadEntry = errors.New("replication: malformed log entry")

func (e *entry) encode(dst []byte) []byte {
	dst = append(dst, e.kind)
	dst = binary.BigEndian.AppendUint64(dst, uint64(e.time))
	dst = binary.AppendUvarint(dst, e.term)
	dst = appendString(dst, e.origin)
	return append(dst, e.body...)
}

func decodeEntry(b []byte) (entry, error) {
	var e entry
	if len(b) < 9 {
		return e, errBadEntry
	}
	e.kind, e.time = b[0], int64(binary.BigEndian.Uint64(b[1:9]))
	b = b[9:]
	term, n := binary.Uvarint(b)
	if n <= 0 {
		return e, errBadEntry
	}
	e.term, b = term, b[n:]
	origin, b, ok := readString(b)
	if !ok {
		return e, errBadEntry
	}
	e.origin, e.body = origin, b
	return e, nil
}

func appendString(dst []byte, s string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

func readString(b []byte) (string, []byte, bool) {
	l, n := binary.Uvarint(b)
	if n <= 0 || uint64(len(b)-n) < l {
		return "", nil, false
	}
	return string(b[n : n+int(l)]), b[n+int(l):], true
}

// announce is kindAnnounce's body: which node serves clients where.
type announce struct {
	id, addr string
}

func (a announce) encode() []byte { return appendString(appendString(nil, a.id), a.addr) }

func decodeAnnounce(b []byte) (announce, error) {
	id, b, ok := readString(b)
	if !ok {
		return announce{}, errBadEntry
	}
	addr, _, ok := readString(b)
	if !ok {
		return announce{}, errBadEntry
	}
	return announce{id: id, addr: addr}, nil
}
