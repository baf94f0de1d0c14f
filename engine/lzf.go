package engine

import "sync"

// LZF as Redis's lzf_c.c and lzf_d.c (liblzf 3.6 with HLOG 16, VERY_FAST,
// no ULTRA_FAST), so that DUMP and FUNCTION DUMP compress a string to the
// same bytes as redis-server. The compressed format:
//
//	000LLLLL <L+1 bytes>          literal run of 1..32 bytes
//	LLLooooo oooooooo             back reference of L+2 (3..8) bytes, offset o+1
//	111ooooo LLLLLLLL oooooooo    back reference of L+9 bytes, offset o+1
//
// One difference: Redis leaves the hash table uninitialized, so a stale
// slot from an earlier call can, rarely, find a match a clean table does
// not; here the table starts empty every time.

const (
	lzfHlog   = 16
	lzfHsize  = 1 << lzfHlog
	lzfMaxLit = 1 << 5
	lzfMaxOff = 1 << 13
	lzfMaxRef = (1 << 8) + (1 << 3)
)

// lzfTable is a reusable hash table. A slot holds the call's epoch in its
// high half and a position + 1 in its low half: slots of earlier calls are
// empty without clearing 64 k slots for every string.
type lzfTable struct {
	epoch uint64
	slots [lzfHsize]uint64
}

var lzfTables = sync.Pool{New: func() any { return new(lzfTable) }}

// lzfCompress compresses in into at most outLen bytes; nil when it does
// not fit (or in is shorter than 3 bytes, which Redis never compresses).
func lzfCompress(in []byte, outLen int) []byte {
	if len(in) < 3 || outLen <= 0 {
		return nil
	}
	tab := lzfTables.Get().(*lzfTable)
	defer lzfTables.Put(tab)
	tab.epoch++
	if tab.epoch == 1<<32 {
		tab.epoch = 1
		tab.slots = [lzfHsize]uint64{}
	}
	epoch := tab.epoch << 32
	get := func(h uint32) int { // the position in the slot, -1 when empty
		if v := tab.slots[h]; v&^(1<<32-1) == epoch {
			return int(v&(1<<32-1)) - 1
		}
		return -1
	}
	set := func(h uint32, pos int) { tab.slots[h] = epoch | uint64(pos+1) }
	out := make([]byte, outLen+1)
	inEnd := len(in)
	ip, op, lit := 0, 1, 0 // op 0 is the first run's length byte
	idx := func(h uint32) uint32 { return ((h >> (3*8 - lzfHlog)) - h*5) & (lzfHsize - 1) }
	literal := func() { // copies a byte into the run, closing it at lzfMaxLit
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
	hval := uint32(in[0])<<8 | uint32(in[1])
	for ip < inEnd-2 {
		hval = hval<<8 | uint32(in[ip+2])
		h := idx(hval)
		ref := get(h)
		set(h, ip)
		if ref > 0 && ref < ip && ip-ref-1 < lzfMaxOff &&
			in[ref+2] == in[ip+2] && in[ref] == in[ip] && in[ref+1] == in[ip+1] {
			off := ip - ref - 1
			n := 2
			maxlen := min(inEnd-ip-n, lzfMaxRef)
			if op+3+1 >= outLen {
				undo := 0
				if lit == 0 {
					undo = 1
				}
				if op-undo+3+1 >= outLen {
					return nil
				}
			}
			out[op-lit-1] = byte(lit - 1) // stop run
			if lit == 0 {
				op-- // undo run if length is zero
			}
			// The unrolled first 16 comparisons of lzf_c.c stop at the
			// first mismatch without looking at maxlen.
			stopped := false
			if maxlen > 16 {
				for k := 0; k < 16; k++ {
					n++
					if in[ref+n] != in[ip+n] {
						stopped = true
						break
					}
				}
			}
			if !stopped {
				for {
					n++
					if !(n < maxlen && in[ref+n] == in[ip+n]) {
						break
					}
				}
			}
			n -= 2
			ip++
			if n < 7 {
				out[op] = byte(off>>8) + byte(n<<5)
				op++
			} else {
				out[op] = byte(off>>8) + 7<<5
				out[op+1] = byte(n - 7)
				op += 2
			}
			out[op] = byte(off)
			op++
			lit = 0
			op++ // start run
			ip += n + 1
			if ip >= inEnd-2 {
				break
			}
			ip -= 2
			hval = uint32(in[ip])<<8 | uint32(in[ip+1])
			hval = hval<<8 | uint32(in[ip+2])
			set(idx(hval), ip)
			ip++
			hval = hval<<8 | uint32(in[ip+2])
			set(idx(hval), ip)
			ip++
			continue
		}
		if op >= outLen {
			return nil
		}
		literal()
	}
	if op+3 > outLen {
		return nil
	}
	for ip < inEnd {
		literal()
	}
	out[op-lit-1] = byte(lit - 1)
	if lit == 0 {
		op--
	}
	return out[:op]
}

// lzfDecompress expands in into exactly outLen bytes, false when the input
// is malformed or does not expand to outLen bytes.
func lzfDecompress(in []byte, outLen int) ([]byte, bool) {
	out := make([]byte, 0, outLen)
	ip := 0
	for ip < len(in) {
		ctrl := int(in[ip])
		ip++
		if ctrl < 1<<5 {
			ctrl++
			if len(out)+ctrl > outLen || ip+ctrl > len(in) {
				return nil, false
			}
			out = append(out, in[ip:ip+ctrl]...)
			ip += ctrl
			continue
		}
		n := ctrl >> 5
		ref := len(out) - (ctrl&0x1f)<<8 - 1
		if ip >= len(in) {
			return nil, false
		}
		if n == 7 {
			n += int(in[ip])
			ip++
			if ip >= len(in) {
				return nil, false
			}
		}
		ref -= int(in[ip])
		ip++
		if len(out)+n+2 > outLen || ref < 0 {
			return nil, false
		}
		for k := 0; k < n+2; k++ { // byte by byte: the areas may overlap
			out = append(out, out[ref+k])
		}
	}
	return out, len(out) == outLen
}
