package luasvc

import (
	"encoding/binary"
	"math"

	lua "github.com/yuin/gopher-lua"
)

// cmsgpack is lua-cmsgpack 0.4.0 as bundled with Redis: pack, unpack,
// unpack_one, unpack_limit. Tables nest 16 levels deep at most (deeper
// ones pack as nil, which also stops cycles); decoding refuses nesting
// deeper than msgpackMaxDepth, where the C code would exhaust its stack.

const (
	msgpackMaxNesting = 16
	msgpackMaxDepth   = 10000
)

func (v *vm) msgpackLib() *lua.LTable {
	L := v.L
	t := L.CreateTable(0, 8)
	setFuncs(L, t, map[string]lua.LGFunction{
		"pack":   msgpackPack,
		"unpack": func(L *lua.LState) int { return msgpackUnpack(L, "unpack", 0, 0) },
		"unpack_one": func(L *lua.LState) int {
			offset := optInt(L, 2, "unpack_one", 0)
			if L.GetTop() > 1 {
				L.SetTop(1)
			}
			return msgpackUnpack(L, "unpack_one", 1, offset)
		},
		"unpack_limit": func(L *lua.LState) int {
			limit := checkInt(L, 2, "unpack_limit")
			offset := optInt(L, 3, "unpack_limit", 0)
			if L.GetTop() > 1 {
				L.SetTop(1)
			}
			return msgpackUnpack(L, "unpack_limit", limit, offset)
		},
	})
	t.RawSetString("_NAME", lua.LString("cmsgpack"))
	t.RawSetString("_VERSION", lua.LString("lua-cmsgpack 0.4.0"))
	t.RawSetString("_COPYRIGHT", lua.LString("Copyright (C) 2012, Salvatore Sanfilippo"))
	t.RawSetString("_DESCRIPTION", lua.LString("MessagePack C implementation for Lua"))
	return t
}

func msgpackPack(L *lua.LState) int {
	n := L.GetTop()
	if n == 0 {
		argError(L, 0, "pack", "MessagePack pack needs input.")
	}
	var b []byte
	for i := 1; i <= n; i++ {
		b = mpEncode(L, b, L.Get(i), 0)
	}
	L.Push(lua.LString(string(b)))
	return 1
}

func mpHeader(b []byte, n uint64, fix, fixMax byte, c16, c32 byte) []byte {
	switch {
	case n <= uint64(fixMax):
		return append(b, fix|byte(n))
	case n <= 0xffff:
		return append(b, c16, byte(n>>8), byte(n))
	}
	return binary.BigEndian.AppendUint32(append(b, c32), uint32(n))
}

func mpEncode(L *lua.LState, b []byte, val lua.LValue, level int) []byte {
	if len(b) > maxStringBytes {
		raise(L, "resulting string too large")
	}
	switch x := val.(type) {
	case lua.LString:
		n := len(x)
		switch {
		case n < 32:
			b = append(b, 0xa0|byte(n))
		case n <= 0xff:
			b = append(b, 0xd9, byte(n))
		case n <= 0xffff:
			b = append(b, 0xda, byte(n>>8), byte(n))
		default:
			b = binary.BigEndian.AppendUint32(append(b, 0xdb), uint32(n))
		}
		return append(b, x...)
	case lua.LBool:
		if x {
			return append(b, 0xc3)
		}
		return append(b, 0xc2)
	case lua.LNumber:
		f := float64(x)
		if !math.IsInf(f, 0) && !math.IsNaN(f) && f >= -9223372036854775808 && f < 9223372036854775808 && float64(int64(f)) == f {
			return mpInt(b, int64(f))
		}
		if f32 := float32(f); float64(f32) == f {
			return binary.BigEndian.AppendUint32(append(b, 0xca), math.Float32bits(f32))
		}
		return binary.BigEndian.AppendUint64(append(b, 0xcb), math.Float64bits(f))
	case *lua.LTable:
		if level == msgpackMaxNesting {
			return append(b, 0xc0)
		}
		if n, ok := mpArrayLen(x); ok {
			b = mpHeader(b, uint64(n), 0x90, 15, 0xdc, 0xdd)
			for i := 1; i <= n; i++ {
				b = mpEncode(L, b, L.GetTable(x, lua.LNumber(i)), level+1)
			}
			return b
		}
		n := 0
		x.ForEach(func(lua.LValue, lua.LValue) { n++ })
		b = mpHeader(b, uint64(n), 0x80, 15, 0xde, 0xdf)
		k, v := x.Next(lua.LNil)
		for k != lua.LNil {
			b = mpEncode(L, b, k, level+1)
			b = mpEncode(L, b, v, level+1)
			k, v = x.Next(k)
		}
		return b
	}
	return append(b, 0xc0)
}

// mpArrayLen is table_is_an_array: keys exactly 1..n.
func mpArrayLen(t *lua.LTable) (int, bool) {
	count, max := 0, 0.0
	ok := true
	t.ForEach(func(k, _ lua.LValue) {
		n, isNum := k.(lua.LNumber)
		if !ok || !isNum || n <= 0 || float64(int32(n)) != float64(n) {
			ok = false
			return
		}
		if float64(n) > max {
			max = float64(n)
		}
		count++
	})
	return count, ok && int(max) == count
}

func mpInt(b []byte, n int64) []byte {
	switch {
	case n >= 0 && n <= 127:
		return append(b, byte(n))
	case n >= 0 && n <= 0xff:
		return append(b, 0xcc, byte(n))
	case n >= 0 && n <= 0xffff:
		return append(b, 0xcd, byte(n>>8), byte(n))
	case n >= 0 && n <= 0xffffffff:
		return binary.BigEndian.AppendUint32(append(b, 0xce), uint32(n))
	case n >= 0:
		return binary.BigEndian.AppendUint64(append(b, 0xcf), uint64(n))
	case n >= -32:
		return append(b, byte(n))
	case n >= -128:
		return append(b, 0xd0, byte(n))
	case n >= -32768:
		return append(b, 0xd1, byte(n>>8), byte(n))
	case n >= -2147483648:
		return binary.BigEndian.AppendUint32(append(b, 0xd2), uint32(n))
	}
	return binary.BigEndian.AppendUint64(append(b, 0xd3), uint64(n))
}

// mpDecoder reads values from a msgpack stream.
type mpDecoder struct {
	L     *lua.LState
	p     string
	eof   bool // ran out of bytes
	bad   bool // unknown type byte
	depth int
}

func (d *mpDecoder) need(n int) bool {
	if len(d.p) < n {
		d.eof = true
		return false
	}
	return true
}

func msgpackUnpack(L *lua.LState, fname string, limit, offset int) int {
	s := checkString(L, 1, fname)
	all := limit == 0 && offset == 0
	switch {
	case offset < 0 || limit < 0:
		raise(L, "Invalid request to unpack with offset of %d and limit of %d.", offset, len(s))
	case offset > len(s):
		raise(L, "Start offset %d greater than input length %d.", offset, len(s))
	}
	if all {
		limit = math.MaxInt32
	}
	d := mpDecoder{L: L, p: s[offset:]}
	L.SetTop(0)
	cnt := 0
	for ; len(d.p) > 0 && cnt < limit; cnt++ {
		if cnt >= maxUnpack {
			raise(L, "stack overflow (too many return values at once; use unpack_one or unpack_limit instead.)")
		}
		val := d.value()
		switch {
		case d.eof:
			raise(L, "Missing bytes in input.")
		case d.bad:
			raise(L, "Bad data format in input.")
		}
		L.Push(val)
	}
	if !all {
		next := len(s) - len(d.p)
		if len(d.p) == 0 {
			next = -1
		}
		L.Insert(lua.LNumber(next), 1)
		cnt++
	}
	return cnt
}

func (d *mpDecoder) value() lua.LValue {
	if !d.need(1) {
		return lua.LNil
	}
	c := d.p[0]
	u := func(n int) (uint64, bool) {
		if !d.need(1 + n) {
			return 0, false
		}
		var x uint64
		for i := 1; i <= n; i++ {
			x = x<<8 | uint64(d.p[i])
		}
		d.p = d.p[1+n:]
		return x, true
	}
	switch {
	case c <= 0x7f:
		d.p = d.p[1:]
		return lua.LNumber(c)
	case c >= 0xe0:
		d.p = d.p[1:]
		return lua.LNumber(int8(c))
	case c&0xe0 == 0xa0:
		return d.raw(1, int(c&0x1f))
	case c&0xf0 == 0x90:
		d.p = d.p[1:]
		return d.array(int(c & 0xf))
	case c&0xf0 == 0x80:
		d.p = d.p[1:]
		return d.hash(int(c & 0xf))
	}
	switch c {
	case 0xc0:
		d.p = d.p[1:]
		return lua.LNil
	case 0xc2, 0xc3:
		d.p = d.p[1:]
		return lua.LBool(c == 0xc3)
	case 0xcc, 0xcd, 0xce, 0xcf:
		if x, ok := u(1 << (c - 0xcc)); ok {
			return lua.LNumber(x)
		}
	case 0xd0:
		if x, ok := u(1); ok {
			return lua.LNumber(int8(x))
		}
	case 0xd1:
		if x, ok := u(2); ok {
			return lua.LNumber(int16(x))
		}
	case 0xd2:
		if x, ok := u(4); ok {
			return lua.LNumber(int32(x))
		}
	case 0xd3:
		if x, ok := u(8); ok {
			return lua.LNumber(int64(x))
		}
	case 0xca:
		if x, ok := u(4); ok {
			return lua.LNumber(math.Float32frombits(uint32(x)))
		}
	case 0xcb:
		if x, ok := u(8); ok {
			return lua.LNumber(math.Float64frombits(x))
		}
	case 0xd9:
		if d.need(2) {
			return d.raw(2, int(d.p[1]))
		}
	case 0xda:
		if d.need(3) {
			return d.raw(3, int(binary.BigEndian.Uint16([]byte(d.p[1:3]))))
		}
	case 0xdb:
		if d.need(5) {
			return d.raw(5, int(binary.BigEndian.Uint32([]byte(d.p[1:5]))))
		}
	case 0xdc:
		if x, ok := u(2); ok {
			return d.array(int(x))
		}
	case 0xdd:
		if x, ok := u(4); ok {
			return d.array(int(x))
		}
	case 0xde:
		if x, ok := u(2); ok {
			return d.hash(int(x))
		}
	case 0xdf:
		if x, ok := u(4); ok {
			return d.hash(int(x))
		}
	default:
		d.bad = true
	}
	return lua.LNil
}

// raw reads a string of n bytes after a header of hdr bytes.
func (d *mpDecoder) raw(hdr, n int) lua.LValue {
	if !d.need(hdr + n) {
		return lua.LNil
	}
	s := d.p[hdr : hdr+n]
	d.p = d.p[hdr+n:]
	return lua.LString(s)
}

func (d *mpDecoder) nest() bool {
	d.depth++
	if d.depth > msgpackMaxDepth {
		d.bad = true
		return false
	}
	return true
}

func (d *mpDecoder) array(n int) lua.LValue {
	if !d.nest() {
		return lua.LNil
	}
	t := d.L.CreateTable(min(n, len(d.p)), 0)
	for i := 1; i <= n; i++ {
		v := d.value()
		if d.eof || d.bad {
			return t
		}
		t.RawSetInt(i, v)
	}
	d.depth--
	return t
}

func (d *mpDecoder) hash(n int) lua.LValue {
	if !d.nest() {
		return lua.LNil
	}
	t := d.L.NewTable()
	for i := 0; i < n; i++ {
		k := d.value()
		if d.eof || d.bad {
			return t
		}
		v := d.value()
		if d.eof || d.bad {
			return t
		}
		d.L.RawSet(t, k, v)
	}
	d.depth--
	return t
}
