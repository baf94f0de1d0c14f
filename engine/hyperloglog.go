package engine

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// HyperLogLogs as Redis 7.0 keeps them (hyperloglog.c): a string with a
// 16-byte header ("HYLL", encoding, 3 unused bytes, the cached cardinality
// little endian, its top bit set when stale) and 16384 6-bit registers,
// either dense (12288 bytes) or sparse (run-length opcodes). The byte
// layout, the sparse editing rules and the estimator are Redis's, so a GET
// returns the same bytes and PFCOUNT the same numbers.

const (
	hllP              = 14
	hllQ              = 64 - hllP
	hllRegisters      = 1 << hllP
	hllBits           = 6
	hllRegisterMax    = 1<<hllBits - 1
	hllHdrSize        = 16
	hllDenseSize      = hllHdrSize + (hllRegisters*hllBits+7)/8
	hllDense          = 0
	hllSparse         = 1
	hllSparseMaxBytes = 3000 // hll-sparse-max-bytes' default

	hllSparseValMaxValue = 32
	hllSparseValMaxLen   = 4
	hllSparseZeroMaxLen  = 64
	hllSparseXZeroMaxLen = 16384

	hllAlphaInf = 0.721347520444481703680 // 0.5/ln(2)
)

// Sparse opcodes: ZERO 00xxxxxx (1-64 zero registers), XZERO 01xxxxxx
// xxxxxxxx (1-16384 zero registers), VAL 1vvvvvxx (1-4 registers of value
// 1-32).
func hllIsZero(op byte) bool  { return op&0xc0 == 0 }
func hllIsXZero(op byte) bool { return op&0xc0 == 0x40 }
func hllIsVal(op byte) bool   { return op&0x80 != 0 }
func hllZeroLen(op byte) int  { return int(op&0x3f) + 1 }
func hllXZeroLen(b []byte, p int) int {
	return (int(b[p]&0x3f)<<8 | int(b[p+1])) + 1
}
func hllValValue(op byte) int { return int(op>>2&0x1f) + 1 }
func hllValLen(op byte) int   { return int(op&3) + 1 }

func hllValOp(val, n int) byte { return byte((val-1)<<2|(n-1)) | 0x80 }

func hllAppendZeros(b []byte, n int) []byte {
	if n > hllSparseZeroMaxLen {
		return append(b, byte((n-1)>>8)|0x40, byte((n-1)&0xff))
	}
	return append(b, byte(n-1))
}

// murmurHash64A is MurmurHash2, 64-bit version, little-endian reads.
func murmurHash64A(key []byte, seed uint64) uint64 {
	const m = 0xc6a4a7935bd1e995
	const r = 47
	h := seed ^ uint64(len(key))*m
	n := len(key) &^ 7
	for i := 0; i < n; i += 8 {
		k := binary.LittleEndian.Uint64(key[i:])
		k *= m
		k ^= k >> r
		k *= m
		h ^= k
		h *= m
	}
	tail := key[n:]
	if len(tail) > 0 {
		for i := len(tail) - 1; i >= 0; i-- {
			h ^= uint64(tail[i]) << (8 * uint(i))
		}
		h *= m
	}
	h ^= h >> r
	h *= m
	h ^= h >> r
	return h
}

// hllPatLen is the register an element goes to and the length of the
// "000..1" run in the rest of its hash.
func hllPatLen(ele []byte) (index int, count uint8) {
	hash := murmurHash64A(ele, 0xadc83b19)
	index = int(hash & (hllRegisters - 1))
	hash >>= hllP
	hash |= 1 << hllQ
	return index, uint8(bits.TrailingZeros64(hash) + 1)
}

// newHLL is createHLLObject: an empty sparse HLL.
func newHLL() []byte {
	b := make([]byte, hllHdrSize, hllHdrSize+2)
	copy(b, "HYLL")
	b[4] = hllSparse
	return hllAppendZeros(b, hllRegisters)
}

func hllInvalidateCache(b []byte) { b[15] |= 0x80 }

// Dense registers: 6 bits each, little-endian bit order across bytes.
func hllDenseGet(regs []byte, i int) uint8 {
	byt, fb := i*hllBits/8, uint(i*hllBits&7)
	b0 := uint(regs[byt])
	var b1 uint
	if byt+1 < len(regs) {
		b1 = uint(regs[byt+1])
	}
	return uint8((b0>>fb | b1<<(8-fb)) & hllRegisterMax)
}

func hllDenseSetReg(regs []byte, i int, val uint8) {
	byt, fb := i*hllBits/8, uint(i*hllBits&7)
	v := uint(val)
	regs[byt] &^= byte(hllRegisterMax << fb)
	regs[byt] |= byte(v << fb)
	if byt+1 < len(regs) {
		regs[byt+1] &^= byte(hllRegisterMax >> (8 - fb))
		regs[byt+1] |= byte(v >> (8 - fb))
	}
}

// hllDenseSet raises register i to count; true when it changed.
func hllDenseSet(regs []byte, i int, count uint8) bool {
	if count > hllDenseGet(regs, i) {
		hllDenseSetReg(regs, i, count)
		return true
	}
	return false
}

// hllSparseToDense converts a sparse HLL, keeping the header's magic and
// cached cardinality; ok is false when the opcodes do not cover exactly
// the 16384 registers.
func hllSparseToDense(b []byte) ([]byte, bool) {
	if b[4] == hllDense {
		return b, true
	}
	d := make([]byte, hllDenseSize)
	copy(d, b[:hllHdrSize])
	d[4] = hllDense
	regs := d[hllHdrSize:]
	idx := 0
	for p := hllHdrSize; p < len(b); {
		op := b[p]
		switch {
		case hllIsZero(op):
			idx += hllZeroLen(op)
			p++
		case hllIsXZero(op):
			if p+1 >= len(b) {
				return nil, false
			}
			idx += hllXZeroLen(b, p)
			p += 2
		default:
			n, v := hllValLen(op), hllValValue(op)
			if n+idx > hllRegisters {
				return nil, false
			}
			for ; n > 0; n-- {
				hllDenseSetReg(regs, idx, uint8(v))
				idx++
			}
			p++
		}
	}
	if idx != hllRegisters {
		return nil, false
	}
	return d, true
}

// hllSparseSet is hllSparseSet: raises register index to count in a sparse
// HLL, splitting the opcode that covers it and merging equal neighbours
// as Redis does, or promoting to dense when count does not fit a VAL
// opcode or the string would pass hll-sparse-max-bytes. It returns the
// (possibly new) string and 1 if changed, 0 if not, -1 if corrupt.
func hllSparseSet(b []byte, index int, count uint8) ([]byte, int) {
	if count > hllSparseValMaxValue {
		return hllPromote(b, index, count)
	}
	end := len(b)
	p, prev := hllHdrSize, -1
	first, span := 0, 0
	for p < end {
		op := b[p]
		oplen := 1
		switch {
		case hllIsZero(op):
			span = hllZeroLen(op)
		case hllIsVal(op):
			span = hllValLen(op)
		default:
			if p+1 >= end {
				return b, -1
			}
			span = hllXZeroLen(b, p)
			oplen = 2
		}
		if index <= first+span-1 {
			break
		}
		prev = p
		p += oplen
		first += span
	}
	if span == 0 || p >= end {
		return b, -1
	}
	op := b[p]
	isZero, isXZero, isVal := hllIsZero(op), hllIsXZero(op), false
	var runlen int
	switch {
	case isZero:
		runlen = hllZeroLen(op)
	case isXZero:
		runlen = hllXZeroLen(b, p)
	default:
		isVal = true
		runlen = hllValLen(op)
	}

	switch {
	case isVal && hllValValue(op) >= int(count):
		return b, 0
	case (isVal || isZero) && runlen == 1:
		b[p] = hllValOp(int(count), 1)
	default:
		last := first + span - 1
		seq := make([]byte, 0, 5)
		if isVal {
			cur := hllValValue(op)
			if index != first {
				seq = append(seq, hllValOp(cur, index-first))
			}
			seq = append(seq, hllValOp(int(count), 1))
			if index != last {
				seq = append(seq, hllValOp(cur, last-index))
			}
		} else {
			if index != first {
				seq = hllAppendZeros(seq, index-first)
			}
			seq = append(seq, hllValOp(int(count), 1))
			if index != last {
				seq = hllAppendZeros(seq, last-index)
			}
		}
		oldlen := 1
		if isXZero {
			oldlen = 2
		}
		delta := len(seq) - oldlen
		if delta > 0 && len(b)+delta > hllSparseMaxBytes {
			return hllPromote(b, index, count)
		}
		nb := make([]byte, 0, len(b)+delta+3)
		nb = append(nb, b[:p]...)
		nb = append(nb, seq...)
		nb = append(nb, b[p+oldlen:]...)
		b = nb
	}

	// Merge adjacent VAL opcodes of the same value, scanning up to five
	// opcodes from the one before the change.
	p = hllHdrSize
	if prev >= 0 {
		p = prev
	}
	for scan := 5; p < len(b) && scan > 0; {
		scan--
		op := b[p]
		if hllIsXZero(op) {
			p += 2
			continue
		}
		if hllIsZero(op) {
			p++
			continue
		}
		if p+1 < len(b) && hllIsVal(b[p+1]) {
			v1, v2 := hllValValue(op), hllValValue(b[p+1])
			if v1 == v2 {
				if n := hllValLen(op) + hllValLen(b[p+1]); n <= hllSparseValMaxLen {
					b[p+1] = hllValOp(v1, n)
					b = append(b[:p], b[p+1:]...)
					continue
				}
			}
		}
		p++
	}
	hllInvalidateCache(b)
	return b, 1
}

// hllPromote converts to dense and sets the register there.
func hllPromote(b []byte, index int, count uint8) ([]byte, int) {
	d, ok := hllSparseToDense(b)
	if !ok {
		return b, -1
	}
	hllDenseSet(d[hllHdrSize:], index, count)
	return d, 1
}

// hllAdd adds an element: 1 if a register changed, 0 if not, -1 if the
// HLL is corrupt.
func hllAdd(b []byte, ele []byte) ([]byte, int) {
	index, count := hllPatLen(ele)
	switch b[4] {
	case hllDense:
		if hllDenseSet(b[hllHdrSize:], index, count) {
			return b, 1
		}
		return b, 0
	case hllSparse:
		return hllSparseSet(b, index, count)
	}
	return b, -1
}

// hllHisto counts registers by value; invalid reports sparse opcodes that
// do not cover exactly the 16384 registers.
func hllHisto(b []byte) (h [64]int, invalid bool) {
	if b[4] == hllDense {
		regs := b[hllHdrSize:]
		for i := 0; i < hllRegisters; i++ {
			h[hllDenseGet(regs, i)]++
		}
		return h, false
	}
	idx := 0
	for p := hllHdrSize; p < len(b); {
		op := b[p]
		switch {
		case hllIsZero(op):
			n := hllZeroLen(op)
			idx += n
			h[0] += n
			p++
		case hllIsXZero(op):
			if p+1 >= len(b) {
				return h, true
			}
			n := hllXZeroLen(b, p)
			idx += n
			h[0] += n
			p += 2
		default:
			n := hllValLen(op)
			idx += n
			h[hllValValue(op)] += n
			p++
		}
	}
	return h, idx != hllRegisters
}

// hllRawHisto counts plain byte registers (PFCOUNT of several keys).
func hllRawHisto(regs []uint8) (h [64]int) {
	for _, r := range regs {
		h[r&63]++
	}
	return h
}

func hllSigma(x float64) float64 {
	if x == 1 {
		return math.Inf(1)
	}
	y, z := 1.0, x
	for {
		x = x * x
		zPrime := z
		z += float64(x * y)
		y += y
		if zPrime == z {
			return z
		}
	}
}

func hllTau(x float64) float64 {
	if x == 0 || x == 1 {
		return 0
	}
	y, z := 1.0, 1-x
	for {
		x = math.Sqrt(x)
		zPrime := z
		y *= 0.5
		t := 1 - x
		z -= float64(float64(t*t) * y)
		if zPrime == z {
			return z / 3
		}
	}
}

// hllCount is Otmar Ertl's estimator, with Redis's order of operations.
func hllCount(h *[64]int) uint64 {
	m := float64(hllRegisters)
	// float64(...) keeps Go from fusing into FMAs (it may on arm64):
	// Redis rounds every step.
	z := float64(m * hllTau((m-float64(h[hllQ+1]))/m))
	for j := hllQ; j >= 1; j-- {
		z += float64(h[j])
		z *= 0.5
	}
	z += float64(m * hllSigma(float64(h[0])/m))
	return uint64(math.Round(hllAlphaInf * m * m / z))
}

// hllMerge raises max[i] to each register of the HLL; false when a sparse
// HLL is corrupt.
func hllMerge(max []uint8, b []byte) bool {
	if b[4] == hllDense {
		regs := b[hllHdrSize:]
		for i := 0; i < hllRegisters; i++ {
			if v := hllDenseGet(regs, i); v > max[i] {
				max[i] = v
			}
		}
		return true
	}
	i := 0
	for p := hllHdrSize; p < len(b); {
		op := b[p]
		switch {
		case hllIsZero(op):
			i += hllZeroLen(op)
			p++
		case hllIsXZero(op):
			if p+1 >= len(b) {
				return false
			}
			i += hllXZeroLen(b, p)
			p += 2
		default:
			n, v := hllValLen(op), uint8(hllValValue(op))
			if n+i > hllRegisters {
				return false
			}
			for ; n > 0; n-- {
				if v > max[i] {
					max[i] = v
				}
				i++
			}
			p++
		}
	}
	return i == hllRegisters
}

// isHLL is isHLLObjectOrReply's test of a string's header.
func isHLL(s string) bool {
	if len(s) < hllHdrSize || s[:4] != "HYLL" || s[4] > hllSparse {
		return false
	}
	return s[4] != hllDense || len(s) == hllDenseSize
}
