package keyspace

import (
	"bytes"
	"os"
	"strconv"
)

// offsetsVisible: Linux shows where each descriptor of the process is
// (/proc/self/fdinfo/N, "pos:"), so the load's progress is known.
const offsetsVisible = true

// descriptorFinder finds the descriptor open on a file and reads its
// offset: how far the code reading it (checkAOF, then buntdb) got.
type descriptorFinder struct {
	fd string // the last descriptor found, tried first
}

func (d *descriptorFinder) offset(fi os.FileInfo) (int64, bool) {
	if d.fd != "" {
		if off, ok := fdOffset(d.fd, fi); ok {
			return off, true
		}
		d.fd = ""
	}
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return 0, false
	}
	for _, ent := range ents {
		if off, ok := fdOffset(ent.Name(), fi); ok {
			d.fd = ent.Name()
			return off, true
		}
	}
	return 0, false
}

// fdOffset is the offset of descriptor fd if it is open on fi's file.
func fdOffset(fd string, fi os.FileInfo) (int64, bool) {
	st, err := os.Stat("/proc/self/fd/" + fd)
	if err != nil || !os.SameFile(st, fi) {
		return 0, false
	}
	b, err := os.ReadFile("/proc/self/fdinfo/" + fd)
	if err != nil {
		return 0, false
	}
	_, rest, ok := bytes.Cut(b, []byte("pos:"))
	if !ok {
		return 0, false
	}
	if i := bytes.IndexByte(rest, '\n'); i >= 0 {
		rest = rest[:i]
	}
	off, err := strconv.ParseInt(string(bytes.TrimSpace(rest)), 10, 64)
	return off, err == nil
}
