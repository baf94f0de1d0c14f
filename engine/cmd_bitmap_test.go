package engine

import (
	"bytes"
	"math"
	"math/bits"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"
)

// The expected replies were checked against redis-server 7.0.15 (the
// differential cases in compat_test/diff_bitmap_test.go run the same
// commands against it).

func TestSetBitGetBit(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("SETBIT", "b", "7", "1"), `(integer) 0`},
		{cmd("GET", "b"), `"\x01"`},
		{cmd("SETBIT", "b", "7", "1"), `(integer) 1`},
		{cmd("SETBIT", "b", "7", "0"), `(integer) 1`},
		{cmd("SETBIT", "b", "17", "1"), `(integer) 0`},
		{cmd("GET", "b"), `"\x00\x00@"`},
		{cmd("GETBIT", "b", "17"), `(integer) 1`},
		{cmd("GETBIT", "b", "16"), `(integer) 0`},
		{cmd("GETBIT", "b", "1000"), `(integer) 0`},
		{cmd("GETBIT", "nokey", "0"), `(integer) 0`},
		{cmd("SETBIT", "z", "0", "0"), `(integer) 0`},
		{cmd("GET", "z"), `"\x00"`},
		{cmd("SETBIT", "b", "-1", "1"), `(error) ERR bit offset is not an integer or out of range`},
		{cmd("SETBIT", "b", "4294967296", "1"), `(error) ERR bit offset is not an integer or out of range`},
		{cmd("SETBIT", "b", "x", "1"), `(error) ERR bit offset is not an integer or out of range`},
		{cmd("SETBIT", "b", "0", "2"), `(error) ERR bit is not an integer or out of range`},
		{cmd("SETBIT", "b", "0", "-1"), `(error) ERR bit is not an integer or out of range`},
		{cmd("GETBIT", "b", "4294967296"), `(error) ERR bit offset is not an integer or out of range`},
		{cmd("GETBIT", "b", "4294967295"), `(integer) 0`},
		{cmd("RPUSH", "l", "x"), `(integer) 1`},
		{cmd("SETBIT", "l", "0", "1"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("SETBIT", "l", "x", "1"), `(error) ERR bit offset is not an integer or out of range`},
		{cmd("GETBIT", "l", "0"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("SET", "s", "12"), `OK`},
		{cmd("GETBIT", "s", "2"), `(integer) 1`},
		{cmd("SETBIT", "s", "6", "1"), `(integer) 0`},
		{cmd("GET", "s"), `"32"`},
		{cmd("OBJECT", "ENCODING", "s"), `"raw"`},
	})
}

// TestBitmapWritesKeepTTLAndToken: SETBIT and BITFIELD change a string in
// place (its TTL and fencing token stay); BITOP replaces the destination
// (its TTL goes, its token stays, as for any write to an existing key).
func TestBitmapWritesKeepTTLAndToken(t *testing.T) {
	te := newTestEngine(t)
	te.do("SET", "k", "v", "EX", "100")
	tok := te.tokenOfKey("k")
	te.run([]step{
		{cmd("SETBIT", "k", "100", "1"), `(integer) 0`},
		{cmd("BITFIELD", "k", "INCRBY", "u8", "0", "1"), `[(integer) 119]`},
		{cmd("TTL", "k"), `(integer) 100`},
	})
	if got := te.tokenOfKey("k"); got != tok {
		t.Errorf("token after SETBIT/BITFIELD: %d, want %d", got, tok)
	}
	te.run([]step{
		{cmd("BITOP", "NOT", "k", "k"), `(integer) 13`},
		{cmd("TTL", "k"), `(integer) -1`},
	})
	if got := te.tokenOfKey("k"); got != tok {
		t.Errorf("token after BITOP: %d, want %d", got, tok)
	}
	te.do("SETBIT", "n", "0", "1")
	if got := te.tokenOfKey("n"); got <= tok {
		t.Errorf("token of a key SETBIT created: %d, want > %d", got, tok)
	}
}

func TestBitCount(t *testing.T) {
	te := newTestEngine(t)
	te.do("SET", "s", "foobar")
	te.run([]step{
		{cmd("BITCOUNT", "s"), `(integer) 26`},
		{cmd("BITCOUNT", "s", "0", "0"), `(integer) 4`},
		{cmd("BITCOUNT", "s", "1", "1"), `(integer) 6`},
		{cmd("BITCOUNT", "s", "1", "1", "BYTE"), `(integer) 6`},
		{cmd("BITCOUNT", "s", "5", "30", "BIT"), `(integer) 17`},
		{cmd("BITCOUNT", "s", "-1", "-2"), `(integer) 0`},
		{cmd("BITCOUNT", "s", "-1", "-2", "FOO"), `(integer) 0`},
		{cmd("BITCOUNT", "s", "1", "2", "FOO"), `(error) ERR syntax error`},
		{cmd("BITCOUNT", "s", "0"), `(error) ERR syntax error`},
		{cmd("BITCOUNT", "s", "a", "1"), `(error) ERR value is not an integer or out of range`},
		{cmd("BITCOUNT", "nokey", "0"), `(integer) 0`},
		{cmd("BITCOUNT", "s", "-100", "100"), `(integer) 26`},
		{cmd("BITCOUNT", "s", "47", "47", "BIT"), `(integer) 0`},
		{cmd("BITCOUNT", "s", "46", "46", "bit"), `(integer) 1`},
	})
}

func TestBitPos(t *testing.T) {
	te := newTestEngine(t)
	te.do("SET", "s", "\xff\xf0\x00")
	te.do("SET", "f", "\xff\xff\xff")
	te.run([]step{
		{cmd("BITPOS", "s", "0"), `(integer) 12`},
		{cmd("BITPOS", "s", "1", "2"), `(integer) -1`},
		{cmd("BITPOS", "s", "0", "7", "15", "BIT"), `(integer) 12`},
		{cmd("BITPOS", "s", "1", "12", "23", "BIT"), `(integer) -1`},
		{cmd("BITPOS", "f", "0"), `(integer) 24`},
		{cmd("BITPOS", "f", "0", "1"), `(integer) 24`},
		{cmd("BITPOS", "f", "0", "1", "-1"), `(integer) -1`},
		{cmd("BITPOS", "f", "0", "3", "20", "BIT"), `(integer) -1`},
		{cmd("BITPOS", "f", "0", "5"), `(integer) -1`},
		{cmd("BITPOS", "nokey", "0"), `(integer) 0`},
		{cmd("BITPOS", "nokey", "1"), `(integer) -1`},
		{cmd("BITPOS", "s", "2"), `(error) ERR The bit argument must be 1 or 0.`},
		{cmd("BITPOS", "s", "1", "0", "1", "BITS"), `(error) ERR syntax error`},
		{cmd("BITPOS", "s", "1", "0", "x", "BITS"), `(error) ERR syntax error`},
	})
}

func TestBitOp(t *testing.T) {
	te := newTestEngine(t)
	te.do("SET", "a", "\xff\x0f\x55")
	te.do("SET", "b", "\xf0\xf0")
	te.run([]step{
		{cmd("BITOP", "AND", "d", "a", "b"), `(integer) 3`},
		{cmd("GET", "d"), `"\xf0\x00\x00"`},
		{cmd("BITOP", "OR", "d", "a", "b"), `(integer) 3`},
		{cmd("GET", "d"), `"\xff\xffU"`},
		{cmd("BITOP", "XOR", "d", "a", "b"), `(integer) 3`},
		{cmd("GET", "d"), `"\x0f\xffU"`},
		{cmd("BITOP", "NOT", "d", "b"), `(integer) 2`},
		{cmd("GET", "d"), `"\x0f\x0f"`},
		{cmd("BITOP", "AND", "d", "nokey"), `(integer) 0`},
		{cmd("EXISTS", "d"), `(integer) 0`},
		{cmd("BITOP", "NOT", "d", "a", "b"), `(error) ERR BITOP NOT must be called with a single source key.`},
		{cmd("BITOP", "NAND", "d", "a"), `(error) ERR syntax error`},
		{cmd("HSET", "h", "f", "v"), `(integer) 1`},
		{cmd("BITOP", "OR", "d", "a", "h"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("BITOP", "OR", "h", "a"), `(integer) 3`},
		{cmd("TYPE", "h"), `string`},
	})
}

func TestBitField(t *testing.T) {
	te := newTestEngine(t)
	te.run([]step{
		{cmd("BITFIELD", "b", "SET", "i8", "0", "-1", "GET", "u8", "0", "INCRBY", "u4", "#1", "1"), `[(integer) 0 (integer) 255 (integer) 0]`},
		{cmd("GET", "b"), `"\xf0"`},
		{cmd("BITFIELD", "b", "OVERFLOW", "SAT", "INCRBY", "i8", "0", "-200", "OVERFLOW", "FAIL", "INCRBY", "i8", "0", "-1"), `[(integer) -128 (nil)]`},
		{cmd("BITFIELD", "b", "OVERFLOW", "WRAP", "INCRBY", "u2", "0", "5"), `[(integer) 3]`},
		{cmd("BITFIELD", "b", "OVERFLOW", "SAT", "SET", "u8", "0", "-1", "GET", "u8", "0"), `[(integer) 192 (integer) 255]`},
		{cmd("BITFIELD", "f", "OVERFLOW", "FAIL", "SET", "u2", "9", "10"), `[(nil)]`},
		{cmd("GET", "f"), `"\x00\x00"`},
		{cmd("BITFIELD", "nokey", "GET", "i64", "0"), `[(integer) 0]`},
		{cmd("EXISTS", "nokey"), `(integer) 0`},
		{cmd("BITFIELD", "b"), `[]`},
		{cmd("BITFIELD", "b", "GET", "u64", "0"), `(error) ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.`},
		{cmd("BITFIELD", "b", "GET", "u8", "#536870912"), `(error) ERR bit offset is not an integer or out of range`},
		{cmd("BITFIELD", "b", "OVERFLOW", "NONE"), `(error) ERR Invalid OVERFLOW type specified`},
		{cmd("BITFIELD", "b", "GET", "u8"), `(error) ERR syntax error`},
		{cmd("BITFIELD", "b", "SET", "u8", "0", "x"), `(error) ERR value is not an integer or out of range`},
		{cmd("BITFIELD_RO", "b", "GET", "u8", "0"), `[(integer) 255]`},
		{cmd("BITFIELD_RO", "b", "SET", "u8", "0", "1"), `(error) ERR BITFIELD_RO only supports the GET subcommand`},
		{cmd("RPUSH", "l", "x"), `(integer) 1`},
		{cmd("BITFIELD", "l", "GET", "u8", "0"), `(error) WRONGTYPE Operation against a key holding the wrong kind of value`},
		{cmd("BITFIELD_RO", "l", "SET", "u8", "0", "1"), `(error) ERR BITFIELD_RO only supports the GET subcommand`},
	})
}

func TestLCS(t *testing.T) {
	te := newTestEngine(t)
	te.do("MSET", "a", "ohmytext", "b", "mynewtext")
	te.run([]step{
		{cmd("LCS", "a", "b"), `"mytext"`},
		{cmd("LCS", "a", "b", "LEN"), `(integer) 6`},
		{cmd("LCS", "a", "b", "IDX", "MINMATCHLEN", "4", "WITHMATCHLEN"),
			`["matches" [[[(integer) 4 (integer) 7] [(integer) 5 (integer) 8] (integer) 4]] "len" (integer) 6]`},
		{cmd("LCS", "a", "nokey"), `""`},
		{cmd("LCS", "a", "b", "LEN", "IDX"), `(error) ERR If you want both the length and indexes, please just use IDX.`},
		{cmd("LCS", "a", "b", "MINMATCHLEN"), `(error) ERR syntax error`},
		{cmd("RPUSH", "l", "x"), `(integer) 1`},
		{cmd("LCS", "a", "l", "FOO"), `(error) ERR The specified keys must contain string values`},
	})
	te.do("SET", "big", strings.Repeat("x", 12000))
	te.run([]step{
		{cmd("LCS", "big", "big", "LEN"), `(error) ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len`},
	})
}

// bitEvents records keyspace events (keyevent channel only).
type bitEvents struct {
	mu  sync.Mutex
	got []string
}

func (r *bitEvents) Receivers([]byte) int { return 1 }
func (r *bitEvents) Deliver(channel, message []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ev := channel[bytes.LastIndexByte(channel, ':')+1:]
	r.got = append(r.got, string(ev)+" "+string(message))
}

// TestBitmapNotifications: the events and their order are Redis's (checked
// against redis-server 7.0.15 with notify-keyspace-events KEA).
func TestBitmapNotifications(t *testing.T) {
	te := newTestEngine(t)
	rec := &bitEvents{}
	te.SetPublisher(rec)
	te.SetNotifyClasses(NotifyKeyevent | NotifyAll)
	for _, c := range [][]string{
		{"SETBIT", "b", "3", "1"},                                          // setbit
		{"SETBIT", "b", "3", "1"},                                          // unchanged: none
		{"SETBIT", "b", "3", "0"},                                          // setbit
		{"SETBIT", "b", "100", "0"},                                        // grows: setbit
		{"BITOP", "NOT", "d", "b"},                                         // set
		{"BITOP", "AND", "d", "nokey"},                                     // del
		{"BITOP", "AND", "d", "nokey"},                                     // nothing to delete: none
		{"BITFIELD", "b", "SET", "u8", "0", "0"},                           // unchanged: none
		{"BITFIELD", "b", "SET", "u8", "0", "7", "INCRBY", "u8", "0", "1"}, // one setbit
		{"BITFIELD", "f", "OVERFLOW", "FAIL", "SET", "u2", "0", "10"},      // creates f, no event
		{"BITFIELD_RO", "b", "GET", "u8", "0"},
		{"GETBIT", "b", "0"}, {"BITCOUNT", "b"}, {"BITPOS", "b", "1"}, {"LCS", "b", "d"},
	} {
		te.do(c...)
	}
	want := []string{"setbit b", "setbit b", "setbit b", "set d", "del d", "setbit b"}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if strings.Join(rec.got, ",") != strings.Join(want, ",") {
		t.Errorf("events %q, want %q", rec.got, want)
	}
}

// naiveBit is bit i of s, 0 past its end.
func naiveBit(s []byte, i uint64) int {
	if i/8 >= uint64(len(s)) {
		return 0
	}
	return int(s[i/8]>>(7-i%8)) & 1
}

// TestCountAndFindBitsRandom compares countBits, findBit, getBits and
// setBits with bit-by-bit versions on random strings and ranges.
func TestCountAndFindBitsRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 3000; n++ {
		// Runs of 0x00, 0xff or one random byte, so that whole words
		// are skipped too.
		s := make([]byte, 1+r.IntN(100))
		var fill byte
		for i := range s {
			if r.IntN(6) == 0 {
				fill = []byte{0, 0xff, byte(r.Uint32())}[r.IntN(3)]
			}
			s[i] = fill
		}
		total := uint64(len(s)) * 8
		first := r.Uint64N(total)
		last := first + r.Uint64N(total-first)
		count, pos0, pos1 := int64(0), int64(-1), int64(-1)
		for i := first; i <= last; i++ {
			b := naiveBit(s, i)
			count += int64(b)
			if b == 0 && pos0 < 0 {
				pos0 = int64(i)
			}
			if b == 1 && pos1 < 0 {
				pos1 = int64(i)
			}
		}
		if got := countBits(s, first, last); got != count {
			t.Fatalf("countBits(%x, %d, %d) = %d, want %d", s, first, last, got, count)
		}
		if got := findBit(s, first, last, 0); got != pos0 {
			t.Fatalf("findBit(%x, %d, %d, 0) = %d, want %d", s, first, last, got, pos0)
		}
		if got := findBit(s, first, last, 1); got != pos1 {
			t.Fatalf("findBit(%x, %d, %d, 1) = %d, want %d", s, first, last, got, pos1)
		}
		width := 1 + r.IntN(64)
		off := r.Uint64N(total)
		var want uint64
		for i := 0; i < width; i++ {
			want = want<<1 | uint64(naiveBit(s, off+uint64(i)))
		}
		if got := getBits(s, off, width); got != want {
			t.Fatalf("getBits(%x, %d, %d) = %x, want %x", s, off, width, got, want)
		}
		if off+uint64(width) <= total {
			u := r.Uint64()
			before := append([]byte(nil), s...)
			setBits(s, off, width, u)
			for i := uint64(0); i < total; i++ {
				w := naiveBit(before, i)
				if i >= off && i < off+uint64(width) {
					w = int(u>>(uint64(width)-1-(i-off))) & 1
				}
				if naiveBit(s, i) != w {
					t.Fatalf("setBits(%x, %d, %d, %x): bit %d is %d", before, off, width, u, i, naiveBit(s, i))
				}
			}
		}
	}
}

// TestBitfieldOverflow: Redis's overflow rules, including its wrapping
// intermediate arithmetic (a SET of the most negative int64 into i8 counts
// as an overflow above, so SAT stores 127).
func TestBitfieldOverflow(t *testing.T) {
	signed := []struct {
		value, incr int64
		width       int
		overflow    int
		want        int64
		dir         int
	}{
		{100, 27, 8, bfWrap, 0, 0},
		{100, 28, 8, bfWrap, -128, 1},
		{100, 28, 8, bfSat, 127, 1},
		{-100, -29, 8, bfWrap, 127, -1},
		{-100, -29, 8, bfSat, -128, -1},
		{math.MinInt64, 0, 8, bfSat, 127, 1},
		{math.MinInt64, 0, 8, bfWrap, 0, 1},
		{math.MaxInt64, 0, 8, bfSat, 127, 1},
		{math.MaxInt64, 0, 8, bfWrap, -1, 1},
		{math.MaxInt64, 1, 64, bfWrap, math.MinInt64, 1},
		{math.MaxInt64, 1, 64, bfSat, math.MaxInt64, 1},
		{math.MinInt64, -1, 64, bfSat, math.MinInt64, -1},
		{-1, math.MinInt64, 64, bfSat, math.MinInt64, -1},
		{0, math.MinInt64, 64, bfSat, 0, 0},
		{-1, 1, 1, bfWrap, 0, 0},
		{0, 1, 1, bfWrap, -1, 1},
		{-2, 0, 1, bfSat, -1, -1},
	}
	for _, c := range signed {
		got, dir := signedOverflow(c.value, c.incr, c.width, c.overflow)
		if dir != c.dir || (dir != 0 && got != c.want) {
			t.Errorf("signedOverflow(%d, %d, i%d, %d) = %d, %d; want %d, %d", c.value, c.incr, c.width, c.overflow, got, dir, c.want, c.dir)
		}
	}
	unsigned := []struct {
		value    uint64
		incr     int64
		width    int
		overflow int
		want     uint64
		dir      int
	}{
		{200, 55, 8, bfWrap, 0, 0},
		{200, 56, 8, bfWrap, 0, 1},
		{200, 56, 8, bfSat, 255, 1},
		{5, -6, 8, bfWrap, 255, -1},
		{5, -6, 8, bfSat, 0, -1},
		{math.MaxUint64, 0, 8, bfSat, 255, 1}, // SET u8 -1
		{math.MaxUint64, 0, 8, bfWrap, 255, 1},
		{1<<63 - 1, 1, 63, bfWrap, 0, 1},
		{0, math.MinInt64, 63, bfWrap, 0, -1},
		{0, math.MinInt64, 63, bfSat, 0, -1},
	}
	for _, c := range unsigned {
		got, dir := unsignedOverflow(c.value, c.incr, c.width, c.overflow)
		if dir != c.dir || (dir != 0 && got != c.want) {
			t.Errorf("unsignedOverflow(%d, %d, u%d, %d) = %d, %d; want %d, %d", c.value, c.incr, c.width, c.overflow, got, dir, c.want, c.dir)
		}
	}
}

// TestBitCountLinear: BITCOUNT and BITPOS on a 1 MB string are linear
// (a word at a time): sixty of them take milliseconds, and still well
// under the bound with the race detector on a loaded machine; anything
// quadratic in the length would take hours.
func TestBitCountLinear(t *testing.T) {
	te := newTestEngine(t)
	big := bytes.Repeat([]byte{0xff}, 1<<20)
	big[len(big)-1] = 0x5a
	te.do("SET", "big", string(big))
	want := int64((1<<20-1)*8 + bits.OnesCount8(0x5a))
	start := time.Now()
	for i := 0; i < 20; i++ {
		if r := te.do("BITCOUNT", "big"); r.Int != want {
			t.Fatalf("BITCOUNT big: %s, want %d", r, want)
		}
		if r := te.do("BITCOUNT", "big", "3", "-1", "BIT"); r.Int != want-3 {
			t.Fatalf("BITCOUNT big 3 -1 BIT: %s, want %d", r, want-3)
		}
		if r := te.do("BITPOS", "big", "0"); r.Int != (1<<20-1)*8 {
			t.Fatalf("BITPOS big 0: %s", r)
		}
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("60 BITCOUNT/BITPOS on 1 MB took %v", d)
	}
}

func BenchmarkBitCount1MB(b *testing.B) {
	s := bytes.Repeat([]byte{0xa5}, 1<<20)
	b.SetBytes(int64(len(s)))
	for i := 0; i < b.N; i++ {
		countBits(s, 3, uint64(len(s))*8-2)
	}
}
