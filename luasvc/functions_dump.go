package luasvc

import (
	"encoding/binary"
	"errors"
	"hash/crc64"
	"strconv"
)

// FUNCTION DUMP's payload, byte for byte as Redis 7.0 writes it
// (functionDumpCommand, rdbSaveFunctions): for every library the opcode
// RDB_OPCODE_FUNCTION2 and its code as an RDB string (LZF-compressed as
// rdbSaveRawString does when that saves room), then the RDB version (10)
// in two little-endian bytes and the CRC64 (Jones) of all that, little-
// endian. FUNCTION RESTORE also reads the 7.0 release candidates' opcode
// (RDB_OPCODE_FUNCTION). The CRC64 and RDB string code here are the
// functions' own; engine/ has its own for DUMP and RESTORE of keys.

const (
	rdbVersion         = 10
	rdbOpcodeFunction2 = 245
	rdbOpcodeFunction  = 246
)

// crcTable is Redis's crc64: Jones polynomial, reflected, initial value 0
// and no final xor (Go's crc64 inverts before and after: undone below).
var crcTable = crc64.MakeTable(0x95ac9329ac4bc9b5)

func redisCRC64(crc uint64, p []byte) uint64 {
	return ^crc64.Update(^crc, crcTable, p)
}

// dumpLibraries is FUNCTION DUMP's payload for set, libraries in name
// order.
func dumpLibraries(set *libSet) []byte {
	var b []byte
	for _, l := range set.sorted() {
		b = append(b, rdbOpcodeFunction2)
		b = appendRDBString(b, l.code)
	}
	b = append(b, rdbVersion&0xff, rdbVersion>>8)
	return binary.LittleEndian.AppendUint64(b, redisCRC64(0, b))
}

// appendRDBString is rdbSaveRawString for a string that is not a number
// (library code starts with "#!"): LZF when it saves at least 4 bytes of
// a string longer than 20 (rdbcompression is on by default), else raw.
func appendRDBString(b []byte, s string) []byte {
	if len(s) > 20 {
		if c := lzfCompress([]byte(s), len(s)-4); c != nil {
			b = append(b, 0xc3) // RDB_ENCVAL<<6 | RDB_ENC_LZF
			b = appendRDBLen(b, uint64(len(c)))
			b = appendRDBLen(b, uint64(len(s)))
			return append(b, c...)
		}
	}
	b = appendRDBLen(b, uint64(len(s)))
	return append(b, s...)
}

// appendRDBLen is rdbSaveLen.
func appendRDBLen(b []byte, n uint64) []byte {
	switch {
	case n < 1<<6:
		return append(b, byte(n))
	case n < 1<<14:
		return append(b, byte(n>>8)|0x40, byte(n))
	case n <= 0xffffffff:
		return binary.BigEndian.AppendUint32(append(b, 0x80), uint32(n))
	}
	return binary.BigEndian.AppendUint64(append(b, 0x81), n)
}

// rdbReader reads RDB strings from a payload.
type rdbReader struct {
	b   []byte
	pos int
}

var errRDBShort = errors.New("short payload")

func (r *rdbReader) byte() (byte, error) {
	if r.pos >= len(r.b) {
		return 0, errRDBShort
	}
	c := r.b[r.pos]
	r.pos++
	return c, nil
}

func (r *rdbReader) take(n uint64) ([]byte, error) {
	if n > uint64(len(r.b)-r.pos) {
		return nil, errRDBShort
	}
	p := r.b[r.pos : r.pos+int(n)]
	r.pos += int(n)
	return p, nil
}

// length is rdbLoadLenByRef: a length, or an encoding (encoded set).
func (r *rdbReader) length() (n uint64, encoded bool, err error) {
	c, err := r.byte()
	if err != nil {
		return 0, false, err
	}
	switch c >> 6 {
	case 0:
		return uint64(c & 0x3f), false, nil
	case 1:
		d, err := r.byte()
		return uint64(c&0x3f)<<8 | uint64(d), false, err
	case 3:
		return uint64(c & 0x3f), true, nil
	}
	switch c {
	case 0x80:
		p, err := r.take(4)
		if err != nil {
			return 0, false, err
		}
		return uint64(binary.BigEndian.Uint32(p)), false, nil
	case 0x81:
		p, err := r.take(8)
		if err != nil {
			return 0, false, err
		}
		return binary.BigEndian.Uint64(p), false, nil
	}
	return 0, false, errors.New("unknown length encoding")
}

// str is rdbGenericLoadStringObject.
func (r *rdbReader) str() (string, error) {
	n, encoded, err := r.length()
	if err != nil {
		return "", err
	}
	if !encoded {
		p, err := r.take(n)
		return string(p), err
	}
	switch n {
	case 0, 1, 2: // RDB_ENC_INT8, INT16, INT32
		p, err := r.take(1 << n)
		if err != nil {
			return "", err
		}
		var v int64
		switch n {
		case 0:
			v = int64(int8(p[0]))
		case 1:
			v = int64(int16(binary.LittleEndian.Uint16(p)))
		default:
			v = int64(int32(binary.LittleEndian.Uint32(p)))
		}
		return strconv.FormatInt(v, 10), nil
	case 3: // RDB_ENC_LZF
		clen, _, err := r.length()
		if err != nil {
			return "", err
		}
		ulen, _, err := r.length()
		if err != nil {
			return "", err
		}
		p, err := r.take(clen)
		if err != nil {
			return "", err
		}
		out, ok := lzfDecompress(p, ulen)
		if !ok {
			return "", errors.New("invalid LZF compressed string")
		}
		return string(out), nil
	}
	return "", errors.New("unknown string encoding")
}

// restoreLibraries reads a FUNCTION DUMP payload into a new set, creating
// every library (which runs its code). Under fs.run.
func (v *vm) restoreLibraries(payload []byte) (*libSet, error) {
	n := len(payload)
	if n < 10 {
		return nil, errBadPayload
	}
	footer := payload[n-10:]
	if ver := uint16(footer[1])<<8 | uint16(footer[0]); ver > rdbVersion {
		return nil, errBadPayload
	}
	if redisCRC64(0, payload[:n-8]) != binary.LittleEndian.Uint64(footer[2:]) {
		return nil, errBadPayload
	}
	set := newLibSet()
	r := &rdbReader{b: payload[:n-10]}
	for r.pos < len(r.b) {
		op, _ := r.byte()
		var code string
		switch op {
		case rdbOpcodeFunction2:
			s, err := r.str()
			if err != nil {
				return nil, errors.New("Failed loading library payload")
			}
			code = s
		case rdbOpcodeFunction:
			s, err := r.oldLibrary()
			if err != nil {
				return nil, err
			}
			code = s
		default:
			return nil, errors.New("given type is not a function")
		}
		if _, err := v.createLibrary(code, false, set); err != nil {
			return nil, err
		}
	}
	return set, nil
}

// oldLibrary reads the library format of Redis 7.0's release candidates:
// name, engine, optional description and code, turned into a shebang.
func (r *rdbReader) oldLibrary() (string, error) {
	name, err := r.str()
	if err != nil {
		return "", errors.New("Failed loading library name")
	}
	engineName, err := r.str()
	if err != nil {
		return "", errors.New("Failed loading engine name")
	}
	hasDesc, _, err := r.length()
	if err != nil {
		return "", errors.New("Failed loading library description indicator")
	}
	if hasDesc != 0 {
		if _, err := r.str(); err != nil {
			return "", errors.New("Failed loading library description")
		}
	}
	blob, err := r.str()
	if err != nil {
		return "", errors.New("Failed loading library blob")
	}
	return "#!" + engineName + " name=" + name + "\n" + blob, nil
}

// LZF as Redis's lzf_c.c compresses (HLOG 16, VERY_FAST, hash table
// starting empty), so that payloads are the same bytes as Redis's.
const (
	lzfHLog   = 16
	lzfHSize  = 1 << lzfHLog
	lzfMaxLit = 1 << 5
	lzfMaxOff = 1 << 13
	lzfMaxRef = 1<<8 + 1<<3
)

func lzfIdx(h uint32) uint32 { return ((h >> (3*8 - lzfHLog)) - h*5) & (lzfHSize - 1) }

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// lzfCompress is lzf_compress into at most outLen bytes; nil when the
// result would not fit.
func lzfCompress(in []byte, outLen int) []byte {
	n := len(in)
	if n < 3 || outLen == 0 {
		return nil
	}
	htab := make([]int32, lzfHSize) // position+1, 0: empty
	out := make([]byte, outLen+4)
	ip, op, lit := 0, 1, 0 // op 1: start a run
	hval := uint32(in[0])<<8 | uint32(in[1])
	for ip < n-2 {
		hval = hval<<8 | uint32(in[ip+2])
		slot := lzfIdx(hval)
		ref := int(htab[slot]) - 1
		htab[slot] = int32(ip + 1)
		if ref > 0 && ip-ref-1 < lzfMaxOff &&
			in[ref+2] == in[ip+2] && in[ref] == in[ip] && in[ref+1] == in[ip+1] {
			off := ip - ref - 1
			ln := 2
			maxlen := min(n-ip-ln, lzfMaxRef)
			if op+3+1 >= outLen && op-b2i(lit == 0)+3+1 >= outLen {
				return nil
			}
			out[op-lit-1] = byte(lit - 1) // stop the run
			op -= b2i(lit == 0)           // undo it if empty
			matched := true
			if maxlen > 16 {
				for k := 0; k < 16; k++ {
					ln++
					if in[ref+ln] != in[ip+ln] {
						matched = false
						break
					}
				}
			}
			if matched {
				for {
					ln++
					if !(ln < maxlen && in[ref+ln] == in[ip+ln]) {
						break
					}
				}
			}
			ln -= 2 // octets - 1
			ip++
			if ln < 7 {
				out[op] = byte(off>>8 + ln<<5)
				op++
			} else {
				out[op] = byte(off>>8 + 7<<5)
				out[op+1] = byte(ln - 7)
				op += 2
			}
			out[op] = byte(off)
			op++
			lit = 0
			op++ // start a run
			ip += ln + 1
			if ip >= n-2 {
				break
			}
			ip -= 2
			hval = uint32(in[ip])<<8 | uint32(in[ip+1])
			hval = hval<<8 | uint32(in[ip+2])
			htab[lzfIdx(hval)] = int32(ip + 1)
			ip++
			hval = hval<<8 | uint32(in[ip+2])
			htab[lzfIdx(hval)] = int32(ip + 1)
			ip++
			continue
		}
		if op >= outLen {
			return nil
		}
		lit++
		out[op] = in[ip]
		op++
		ip++
		if lit == lzfMaxLit {
			out[op-lit-1] = byte(lit - 1)
			lit = 0
			op++
		}
	}
	if op+3 > outLen {
		return nil
	}
	for ip < n {
		lit++
		out[op] = in[ip]
		op++
		ip++
		if lit == lzfMaxLit {
			out[op-lit-1] = byte(lit - 1)
			lit = 0
			op++
		}
	}
	out[op-lit-1] = byte(lit - 1)
	op -= b2i(lit == 0)
	if op > outLen {
		return nil
	}
	return out[:op]
}

// lzfDecompress is lzf_decompress into exactly want bytes.
func lzfDecompress(in []byte, want uint64) ([]byte, bool) {
	if want > 1<<32 {
		return nil, false
	}
	out := make([]byte, 0, want)
	for ip := 0; ip < len(in); {
		ctrl := int(in[ip])
		ip++
		if ctrl < 1<<5 {
			ctrl++
			if ip+ctrl > len(in) || uint64(len(out)+ctrl) > want {
				return nil, false
			}
			out = append(out, in[ip:ip+ctrl]...)
			ip += ctrl
			continue
		}
		ln := ctrl >> 5
		ref := len(out) - (ctrl&0x1f)<<8 - 1
		if ln == 7 {
			if ip >= len(in) {
				return nil, false
			}
			ln += int(in[ip])
			ip++
		}
		if ip >= len(in) {
			return nil, false
		}
		ref -= int(in[ip])
		ip++
		ln += 2
		if ref < 0 || uint64(len(out)+ln) > want {
			return nil, false
		}
		for i := 0; i < ln; i++ {
			out = append(out, out[ref+i])
		}
	}
	return out, uint64(len(out)) == want
}
