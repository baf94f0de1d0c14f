package engine

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

// Expected bytes, decodes and estimates come from redis-server 7.0.15
// (GET, PFDEBUG DECODE and PFCOUNT after the same PFADDs).

// hllDecode is PFDEBUG DECODE's text.
func hllDecode(b []byte) string {
	var out []string
	for p := hllHdrSize; p < len(b); {
		op := b[p]
		switch {
		case hllIsZero(op):
			out = append(out, "z:"+strconv.Itoa(hllZeroLen(op)))
			p++
		case hllIsXZero(op):
			out = append(out, "Z:"+strconv.Itoa(hllXZeroLen(b, p)))
			p += 2
		default:
			out = append(out, "v:"+strconv.Itoa(hllValValue(op))+","+strconv.Itoa(hllValLen(op)))
			p++
		}
	}
	return strings.Join(out, " ")
}

func hllWith(elems ...string) []byte {
	b := newHLL()
	for _, e := range elems {
		b, _ = hllAdd(b, []byte(e))
	}
	hllInvalidateCache(b)
	return b
}

func TestHLLSparseBytes(t *testing.T) {
	tests := []struct {
		elems  []string
		bytes  string
		decode string
	}{
		{nil, "HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x7f\xff", "Z:16384"},
		{[]string{"a", "b", "c"}, "HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80`\xf3\x80P\xb1\x84K\xfb\x80BZ",
			"Z:8436 v:1,1 Z:4274 v:2,1 Z:3068 v:1,1 Z:603"},
		{[]string{"hello", "world", "foo", "bar", "baz"},
			"HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80J\xb5\x88N\xe6\x8cC\x14\x90GJ\x80C\x15\x80X\xe7",
			"Z:2742 v:3,1 Z:3815 v:4,1 Z:789 v:5,1 Z:1867 v:1,1 Z:790 v:1,1 Z:6376"},
	}
	for _, tt := range tests {
		b := hllWith(tt.elems...)
		if string(b) != tt.bytes {
			t.Errorf("%v: bytes %q, want %q", tt.elems, b, tt.bytes)
		}
		if d := hllDecode(b); d != tt.decode {
			t.Errorf("%v: decode %q, want %q", tt.elems, d, tt.decode)
		}
	}
}

// TestHLLSparseSet edits registers directly: splits of XZERO, ZERO and VAL
// runs, in-place raises, and the merge of equal neighbours. These decodes
// follow hllSparseSet's rules by hand (no element set reaches exactly these
// registers); the random differential test compares the bytes with Redis.
func TestHLLSparseSet(t *testing.T) {
	type set struct {
		index int
		count uint8
	}
	tests := []struct {
		sets   []set
		decode string
	}{
		{[]set{{0, 1}}, "v:1,1 Z:16383"},
		{[]set{{16383, 2}}, "Z:16383 v:2,1"},
		{[]set{{100, 3}}, "Z:100 v:3,1 Z:16283"},
		{[]set{{10, 3}, {12, 3}}, "z:10 v:3,1 z:1 v:3,1 Z:16371"},
		{[]set{{10, 3}, {12, 3}, {11, 3}}, "z:10 v:3,3 Z:16371"},
		{[]set{{10, 3}, {11, 3}, {12, 3}, {13, 3}, {14, 3}}, "z:10 v:3,4 v:3,1 Z:16369"},
		{[]set{{10, 3}, {11, 3}, {12, 3}, {11, 5}}, "z:10 v:3,1 v:5,1 v:3,1 Z:16371"},
		{[]set{{10, 3}, {10, 2}}, "z:10 v:3,1 Z:16373"},
		{[]set{{10, 3}, {10, 4}}, "z:10 v:4,1 Z:16373"},
		{[]set{{64, 1}, {0, 2}}, "v:2,1 z:63 v:1,1 Z:16319"},
	}
	for _, tt := range tests {
		b := newHLL()
		for _, s := range tt.sets {
			b, _ = hllSparseSet(b, s.index, s.count)
		}
		if d := hllDecode(b); d != tt.decode {
			t.Errorf("%v: %q, want %q", tt.sets, d, tt.decode)
		}
	}
	// A count past 32 promotes to dense.
	b, r := hllSparseSet(newHLL(), 7, 33)
	if r != 1 || b[4] != hllDense || len(b) != hllDenseSize || hllDenseGet(b[hllHdrSize:], 7) != 33 {
		t.Errorf("promotion: r=%d enc=%d len=%d", r, b[4], len(b))
	}
	// Corrupt: opcodes short of 16384 registers.
	bad := []byte("HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x7f\xfe")
	if _, r := hllSparseSet(bad, 16383, 1); r != -1 {
		t.Errorf("corrupt set returned %d", r)
	}
	if _, ok := hllSparseToDense(bad); ok {
		t.Error("corrupt HLL converted")
	}
}

func TestHLLDenseRegisters(t *testing.T) {
	regs := make([]byte, hllDenseSize-hllHdrSize)
	for i := 0; i < hllRegisters; i++ {
		hllDenseSetReg(regs, i, uint8(i%64))
	}
	for i := 0; i < hllRegisters; i++ {
		if v := hllDenseGet(regs, i); v != uint8(i%64) {
			t.Fatalf("register %d = %d", i, v)
		}
	}
}

func TestHLLCount(t *testing.T) {
	tests := []struct {
		n        int
		want     uint64
		encoding byte
	}{
		{0, 0, hllSparse}, {1, 1, hllSparse}, {10, 10, hllSparse}, {100, 100, hllSparse},
		{1000, 1001, hllSparse}, {10000, 9988, hllDense}, {100000, 99562, hllDense},
	}
	for _, tt := range tests {
		b := newHLL()
		for i := 1; i <= tt.n; i++ {
			b, _ = hllAdd(b, []byte(strconv.Itoa(i)))
		}
		h, invalid := hllHisto(b)
		if got := hllCount(&h); invalid || got != tt.want || b[4] != tt.encoding {
			t.Errorf("%d elements: count %d (invalid %v, encoding %d), want %d", tt.n, got, invalid, b[4], tt.want)
		}
		// The union path (raw registers) agrees.
		max := make([]uint8, hllRegisters)
		hllMerge(max, b)
		if h := hllRawHisto(max); hllCount(&h) != tt.want {
			t.Errorf("%d elements: merged count %d", tt.n, hllCount(&h))
		}
	}
	if hllSigma(1) != math.Inf(1) || hllTau(0) != 0 || hllTau(1) != 0 {
		t.Error("sigma/tau edges")
	}
}

func TestHLLMurmur(t *testing.T) {
	// Register and run length of "a", "b", "c" per the decode above: a
	// register with value 1 or 2 at 8436, 12711 and 15780.
	seen := map[int]uint8{}
	for _, e := range []string{"a", "b", "c"} {
		i, c := hllPatLen([]byte(e))
		seen[i] = c
	}
	want := map[int]uint8{8436: 1, 12711: 2, 15780: 1}
	for i, c := range want {
		if seen[i] != c {
			t.Errorf("register %d = %d, want %d (%v)", i, seen[i], c, seen)
		}
	}
	// Every tail length goes through the switch.
	for n := 0; n < 17; n++ {
		if murmurHash64A(make([]byte, n), 0xadc83b19) == murmurHash64A(make([]byte, n+1), 0xadc83b19) {
			t.Errorf("length %d and %d hash alike", n, n+1)
		}
	}
}

func TestHLLIsValid(t *testing.T) {
	tests := []struct {
		s  string
		ok bool
	}{
		{string(newHLL()), true},
		{"HYLL", false},
		{"HYLX\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x7f\xff", false},
		{"HYLL\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x7f\xff", false},
		{"HYLL\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x7f\xff", false},
		{"HYLL\x00" + strings.Repeat("\x00", hllDenseSize-5), true},
	}
	for _, tt := range tests {
		if isHLL(tt.s) != tt.ok {
			t.Errorf("isHLL(%q) = %v", tt.s, !tt.ok)
		}
	}
}

// TestHLLCommands: the commands' replies and events.
func TestHLLCommands(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("PFADD", "h", "a", "b", "c"), `(integer) 1`},
		{cmd("PFADD", "h", "a"), `(integer) 0`},
		{cmd("PFCOUNT", "h"), `(integer) 3`},
		{cmd("PFADD", "g", "c", "d"), `(integer) 1`},
		{cmd("PFCOUNT", "h", "g", "nokey"), `(integer) 4`},
		{cmd("PFMERGE", "m", "h", "g"), `OK`},
		{cmd("PFCOUNT", "m"), `(integer) 4`},
		{cmd("PFDEBUG", "ENCODING", "m"), `sparse`},
		{cmd("PFDEBUG", "TODENSE", "m"), `(integer) 1`},
		{cmd("PFDEBUG", "ENCODING", "m"), `dense`},
		{cmd("PFDEBUG", "DECODE", "m"), `(error) ERR HLL encoding is not sparse`},
		{cmd("PFDEBUG", "FOO", "m"), `(error) ERR Unknown PFDEBUG subcommand 'FOO'`},
		{cmd("PFDEBUG", "ENCODING", "nokey"), `(error) ERR The specified key does not exist`},
		{cmd("SET", "s", "foo"), `OK`},
		{cmd("PFADD", "s", "a"), `(error) WRONGTYPE Key is not a valid HyperLogLog string value.`},
		{cmd("PFSELFTEST"), `OK`},
	})
}
