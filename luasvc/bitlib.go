package luasvc

import (
	"math"
	"math/bits"

	lua "github.com/yuin/gopher-lua"
)

// bit is LuaBitOp 1.0 as bundled with Redis: operations on 32-bit
// integers; arguments are numbers (or numeric strings) reduced modulo 2^32
// with round-to-nearest, results are signed.

func (v *vm) bitLib() *lua.LTable {
	L := v.L
	t := L.CreateTable(0, 12)
	fold := func(name string, op func(a, b uint32) uint32) {
		t.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			b := bitArg(L, 1, name)
			for i := L.GetTop(); i > 1; i-- {
				b = op(b, bitArg(L, i, name))
			}
			return bitRet(L, b)
		}))
	}
	fold("band", func(a, b uint32) uint32 { return a & b })
	fold("bor", func(a, b uint32) uint32 { return a | b })
	fold("bxor", func(a, b uint32) uint32 { return a ^ b })
	shift := func(name string, op func(b uint32, n uint) uint32) {
		t.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			b := bitArg(L, 1, name)
			n := uint(bitArg(L, 2, name) & 31)
			return bitRet(L, op(b, n))
		}))
	}
	shift("lshift", func(b uint32, n uint) uint32 { return b << n })
	shift("rshift", func(b uint32, n uint) uint32 { return b >> n })
	shift("arshift", func(b uint32, n uint) uint32 { return uint32(int32(b) >> n) })
	shift("rol", func(b uint32, n uint) uint32 { return bits.RotateLeft32(b, int(n)) })
	shift("ror", func(b uint32, n uint) uint32 { return bits.RotateLeft32(b, -int(n)) })
	setFuncs(L, t, map[string]lua.LGFunction{
		"tobit": func(L *lua.LState) int { return bitRet(L, bitArg(L, 1, "tobit")) },
		"bnot":  func(L *lua.LState) int { return bitRet(L, ^bitArg(L, 1, "bnot")) },
		"bswap": func(L *lua.LState) int { return bitRet(L, bits.ReverseBytes32(bitArg(L, 1, "bswap"))) },
		"tohex": bitToHex,
	})
	return t
}

// bitArg is LuaBitOp's barg: add 2^52+2^51 and keep the low 32 bits of
// the double, which rounds to the nearest integer and wraps.
func bitArg(L *lua.LState, n int, fname string) uint32 {
	f, ok := toNumber(L.Get(n))
	b := uint32(math.Float64bits(f + 6755399441055744.0))
	if b == 0 && !ok {
		typeError(L, n, fname, "number")
	}
	return b
}

func bitRet(L *lua.LState, b uint32) int {
	L.Push(lua.LNumber(int32(b)))
	return 1
}

func bitToHex(L *lua.LState) int {
	b := bitArg(L, 1, "tohex")
	n := int32(8)
	if L.GetTop() >= 2 {
		n = int32(bitArg(L, 2, "tohex"))
	}
	digits := "0123456789abcdef"
	if n < 0 {
		n = -n
		digits = "0123456789ABCDEF"
	}
	if n > 8 || n < 0 { // -MinInt32 overflows
		n = 8
	}
	buf := make([]byte, n)
	for i := n - 1; i >= 0; i-- {
		buf[i] = digits[b&15]
		b >>= 4
	}
	L.Push(lua.LString(string(buf)))
	return 1
}
