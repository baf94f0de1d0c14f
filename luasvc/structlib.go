package luasvc

import (
	"encoding/binary"
	"math"

	lua "github.com/yuin/gopher-lua"
)

// struct is Roberto Ierusalimschy's struct library as bundled with Redis
// (pack, unpack, size) on x86-64: native order little endian, long and
// size_t of 8 bytes, int of 4, alignment 1 unless "!" says otherwise.

const (
	structMaxInt   = 32
	structMaxAlign = 8
)

type structHeader struct {
	little bool
	align  int
}

type structFmt struct {
	L   *lua.LState
	fn  string
	s   string
	i   int
	hdr structHeader
}

func (v *vm) structLib() *lua.LTable {
	L := v.L
	t := L.CreateTable(0, 3)
	setFuncs(L, t, map[string]lua.LGFunction{
		"pack":   structPack,
		"unpack": structUnpack,
		"size":   structSize,
	})
	return t
}

func newStructFmt(L *lua.LState, fn string) *structFmt {
	return &structFmt{L: L, fn: fn, s: cString(checkString(L, 1, fn)), hdr: structHeader{little: true, align: 1}}
}

func (f *structFmt) more() bool { return f.i < len(f.s) }

func (f *structFmt) next() byte {
	c := f.s[f.i]
	f.i++
	return c
}

// getnum reads an optional decimal number.
func (f *structFmt) getnum(def int) int {
	if !f.more() || !isDigit(f.s[f.i]) {
		return def
	}
	a := 0
	for f.more() && isDigit(f.s[f.i]) {
		d := int(f.s[f.i] - '0')
		if a > (math.MaxInt32-d)/10 {
			raise(f.L, "integral size overflow")
		}
		a = a*10 + d
		f.i++
	}
	return a
}

func (f *structFmt) optSize(opt byte) int {
	switch opt {
	case 'B', 'b', 'x':
		return 1
	case 'H', 'h':
		return 2
	case 'L', 'l', 'T', 'd':
		return 8
	case 'f':
		return 4
	case 'c':
		return f.getnum(1)
	case 'i', 'I':
		sz := f.getnum(4)
		if sz > structMaxInt {
			raise(f.L, "integral size %d is larger than limit of %d", sz, structMaxInt)
		}
		return sz
	}
	return 0
}

func (f *structFmt) toAlign(pos int, opt byte, size int) int {
	if size == 0 || opt == 'c' {
		return 0
	}
	if size > f.hdr.align {
		size = f.hdr.align
	}
	return (size - (pos & (size - 1))) & (size - 1)
}

func (f *structFmt) control(opt byte) {
	switch opt {
	case ' ':
	case '>':
		f.hdr.little = false
	case '<':
		f.hdr.little = true
	case '!':
		a := f.getnum(structMaxAlign)
		if a <= 0 || a&(a-1) != 0 {
			raise(f.L, "alignment %d is not a power of 2", a)
		}
		f.hdr.align = a
	default:
		argError(f.L, 1, f.fn, "invalid format option '"+string(opt)+"'")
	}
}

func structPack(L *lua.LState) int {
	f := newStructFmt(L, "pack")
	arg := 2
	var b []byte
	for f.more() {
		opt := f.next()
		size := f.optSize(opt)
		pad := f.toAlign(len(b), opt, size)
		for ; pad > 0; pad-- {
			b = append(b, 0)
		}
		switch opt {
		case 'b', 'B', 'h', 'H', 'l', 'L', 'T', 'i', 'I':
			n := checkNumber(L, arg, "pack")
			arg++
			var u uint64
			if n < 0 {
				u = uint64(int64(n))
			} else {
				u = uint64(n)
			}
			b = appendInt(b, u, size, f.hdr.little)
		case 'x':
			b = append(b, 0)
		case 'f':
			bits := math.Float32bits(float32(checkNumber(L, arg, "pack")))
			arg++
			b = appendInt(b, uint64(bits), 4, f.hdr.little)
		case 'd':
			bits := math.Float64bits(checkNumber(L, arg, "pack"))
			arg++
			b = appendInt(b, bits, 8, f.hdr.little)
		case 'c', 's':
			s := checkString(L, arg, "pack")
			arg++
			if size == 0 {
				size = len(s)
			}
			if len(s) < size {
				argError(L, arg, "pack", "string too short")
			}
			b = append(b, s[:size]...)
			if opt == 's' {
				b = append(b, 0)
			}
		default:
			f.control(opt)
		}
		if len(b) > maxStringBytes {
			raise(L, "resulting string too large")
		}
	}
	L.Push(lua.LString(string(b)))
	return 1
}

// appendInt writes the low size bytes of u (zeros beyond 8 bytes, as the
// C code's 64-bit shifts give).
func appendInt(b []byte, u uint64, size int, little bool) []byte {
	buf := make([]byte, size)
	for i := 0; i < size; i++ {
		var c byte
		if i < 8 {
			c = byte(u >> (8 * i))
		}
		if little {
			buf[i] = c
		} else {
			buf[size-1-i] = c
		}
	}
	return append(b, buf...)
}

func readInt(data string, little, signed bool, size int) float64 {
	var l uint64
	if !little {
		for i := 0; i < size; i++ {
			l = l<<8 | uint64(data[i])
		}
	} else {
		for i := size - 1; i >= 0; i-- {
			l = l<<8 | uint64(data[i])
		}
	}
	if !signed {
		return float64(l)
	}
	if size < 8 {
		mask := ^uint64(0) << (size*8 - 1)
		if l&mask != 0 {
			l |= mask
		}
	}
	return float64(int64(l))
}

func structUnpack(L *lua.LState) int {
	f := newStructFmt(L, "unpack")
	data := checkString(L, 2, "unpack")
	ld := len(data)
	pos := optInt(L, 3, "unpack", 1)
	if pos <= 0 {
		argError(L, 3, "unpack", "offset must be 1 or greater")
	}
	pos--
	n := 0
	for f.more() {
		opt := f.next()
		size := f.optSize(opt)
		pos += f.toAlign(pos, opt, size)
		if !(size <= ld && pos <= ld-size) {
			argError(L, 2, "unpack", "data string too short")
		}
		if n >= maxUnpack {
			raise(L, "stack overflow (too many results)")
		}
		switch opt {
		case 'b', 'B', 'h', 'H', 'l', 'L', 'T', 'i', 'I':
			L.Push(lua.LNumber(readInt(data[pos:], f.hdr.little, isLower(opt), size)))
			n++
		case 'x':
		case 'f':
			var u uint32
			if f.hdr.little {
				u = binary.LittleEndian.Uint32([]byte(data[pos : pos+4]))
			} else {
				u = binary.BigEndian.Uint32([]byte(data[pos : pos+4]))
			}
			L.Push(lua.LNumber(math.Float32frombits(u)))
			n++
		case 'd':
			var u uint64
			if f.hdr.little {
				u = binary.LittleEndian.Uint64([]byte(data[pos : pos+8]))
			} else {
				u = binary.BigEndian.Uint64([]byte(data[pos : pos+8]))
			}
			L.Push(lua.LNumber(math.Float64frombits(u)))
			n++
		case 'c':
			if size == 0 {
				prev, ok := toNumber(L.Get(-1))
				if n == 0 || !ok {
					raise(L, "format 'c0' needs a previous size")
				}
				size = toInt(prev)
				L.Pop(1)
				n--
				if !(size >= 0 && size <= ld && pos <= ld-size) {
					argError(L, 2, "unpack", "data string too short")
				}
			}
			L.Push(lua.LString(data[pos : pos+size]))
			n++
		case 's':
			end := -1
			for k := pos; k < ld; k++ {
				if data[k] == 0 {
					end = k
					break
				}
			}
			if end < 0 {
				raise(L, "unfinished string in data")
			}
			size = end - pos + 1
			L.Push(lua.LString(data[pos:end]))
			n++
		default:
			f.control(opt)
		}
		pos += size
	}
	L.Push(lua.LNumber(pos + 1))
	return n + 1
}

func structSize(L *lua.LState) int {
	f := newStructFmt(L, "size")
	pos := 0
	for f.more() {
		opt := f.next()
		size := f.optSize(opt)
		pos += f.toAlign(pos, opt, size)
		if opt == 's' {
			argError(L, 1, "size", "option 's' has no fixed size")
		} else if opt == 'c' && size == 0 {
			argError(L, 1, "size", "option 'c0' has no fixed size")
		}
		if !isAlpha(opt) && !isDigit(opt) {
			f.control(opt)
		}
		pos += size
	}
	L.Push(lua.LNumber(pos))
	return 1
}
