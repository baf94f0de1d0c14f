package engine

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
)

// HyperLogLog commands, as hyperloglog.c in Redis 7.0 (hyperloglog.go
// holds the representation).

func hllCommands() []*Command {
	return []*Command{
		{Name: "pfadd", Handler: cmdPfadd},
		{Name: "pfcount", Handler: cmdPfcount},
		{Name: "pfmerge", Handler: cmdPfmerge},
		{Name: "pfdebug", Handler: cmdPfdebug},
		{Name: "pfselftest", Handler: cmdPfselftest},
	}
}

var (
	errHLLWrongType = replyError("WRONGTYPE Key is not a valid HyperLogLog string value.")
	errHLLInvalid   = replyError("INVALIDOBJ Corrupted HLL object detected")
	errHLLNoKey     = replyError("ERR The specified key does not exist")
	errHLLNotSparse = replyError("ERR HLL encoding is not sparse")
)

// loadHLL returns the HLL at key as a private copy, and its value; found is
// false for a missing key. A key of another type or a string that is not
// an HLL is an error.
func loadHLL(tx *Tx, key []byte, read bool) (b []byte, v Value, found bool, err error) {
	v, found, err = lookupTyped(tx, key, TypeString, read)
	if err != nil || !found {
		return nil, v, false, err
	}
	if !isHLL(v.Payload) {
		return nil, v, false, errHLLWrongType
	}
	return []byte(v.Payload), v, true, nil
}

// storeHLL writes the HLL back, keeping the key's TTL; like Redis's
// unshared string it is raw.
func storeHLL(tx *Tx, key []byte, b []byte, v Value) {
	tx.Put(key, Value{Type: TypeString, ExpireAt: v.ExpireAt, Payload: string(b), Enc: EncRaw})
}

func cmdPfadd(c *Call) {
	key := c.Args[1]
	b, v, found, err := loadHLL(c.Tx, key, false)
	if err != nil {
		c.Err(err)
		return
	}
	updated := 0
	if !found {
		b = newHLL()
		updated++
	}
	for _, ele := range c.Args[2:] {
		var r int
		b, r = hllAdd(b, ele)
		switch r {
		case 1:
			updated++
		case -1:
			// Redis edits the value in place: what changed before the
			// corruption was met stays.
			if updated > 0 {
				storeHLL(c.Tx, key, b, v)
			}
			c.Err(errHLLInvalid)
			return
		}
	}
	if updated > 0 {
		hllInvalidateCache(b)
		storeHLL(c.Tx, key, b, v)
		c.Tx.Notify(NotifyString, "pfadd", key)
		c.W.Int(1)
		return
	}
	c.W.Int(0)
}

func cmdPfcount(c *Call) {
	if len(c.Args) > 2 {
		max := make([]uint8, hllRegisters)
		for _, key := range c.Args[1:] {
			b, _, found, err := loadHLL(c.Tx, key, true)
			if err != nil {
				c.Err(err)
				return
			}
			if found && !hllMerge(max, b) {
				c.Err(errHLLInvalid)
				return
			}
		}
		h := hllRawHisto(max)
		c.W.Int(int64(hllCount(&h)))
		return
	}
	key := c.Args[1]
	b, v, found, err := loadHLL(c.Tx, key, true)
	switch {
	case err != nil:
		c.Err(err)
		return
	case !found:
		c.W.Int(0)
		return
	}
	if b[15]&0x80 == 0 {
		c.W.Int(int64(binary.LittleEndian.Uint64(b[8:16])))
		return
	}
	h, invalid := hllHisto(b)
	if invalid {
		c.Err(errHLLInvalid)
		return
	}
	card := hllCount(&h)
	// The cache lives in the value: PFCOUNT writes it back, as Redis does.
	binary.LittleEndian.PutUint64(b[8:16], card)
	storeHLL(c.Tx, key, b, v)
	c.W.Int(int64(card))
}

func cmdPfmerge(c *Call) {
	max := make([]uint8, hllRegisters)
	useDense := false
	for _, key := range c.Args[1:] {
		b, _, found, err := loadHLL(c.Tx, key, true)
		if err != nil {
			c.Err(err)
			return
		}
		if !found {
			continue
		}
		if b[4] == hllDense {
			useDense = true
		}
		if !hllMerge(max, b) {
			c.Err(errHLLInvalid)
			return
		}
	}
	dst := c.Args[1]
	b, v, found, _ := loadHLL(c.Tx, dst, false)
	if !found {
		b, v = newHLL(), Value{}
	}
	if useDense {
		var ok bool
		if b, ok = hllSparseToDense(b); !ok {
			c.Err(errHLLInvalid)
			return
		}
	}
	for i, m := range max {
		if m == 0 {
			continue
		}
		if b[4] == hllDense {
			hllDenseSet(b[hllHdrSize:], i, m)
		} else {
			b, _ = hllSparseSet(b, i, m)
		}
	}
	hllInvalidateCache(b)
	storeHLL(c.Tx, dst, b, v)
	// Redis raises "pfadd" for PFMERGE too: a mass add.
	c.Tx.Notify(NotifyString, "pfadd", dst)
	c.OK()
}

// cmdPfdebug is PFDEBUG GETREG|DECODE|ENCODING|TODENSE key.
func cmdPfdebug(c *Call) {
	sub, key := c.Args[1], c.Args[2]
	b, v, found, err := loadHLL(c.Tx, key, false)
	switch {
	case err != nil:
		c.Err(err)
		return
	case !found:
		c.Err(errHLLNoKey)
		return
	}
	// toDense is the conversion GETREG and TODENSE make in place.
	toDense := func() (bool, bool) {
		if b[4] != hllSparse {
			return false, true
		}
		d, ok := hllSparseToDense(b)
		if !ok {
			c.Err(errHLLInvalid)
			return false, false
		}
		b = d
		storeHLL(c.Tx, key, b, v)
		return true, true
	}
	switch {
	case EqualFold(sub, "getreg"):
		if _, ok := toDense(); !ok {
			return
		}
		regs := b[hllHdrSize:]
		c.W.Array(hllRegisters)
		for i := 0; i < hllRegisters; i++ {
			c.W.Int(int64(hllDenseGet(regs, i)))
		}
	case EqualFold(sub, "decode"):
		if b[4] != hllSparse {
			c.Err(errHLLNotSparse)
			return
		}
		var sb strings.Builder
		for p := hllHdrSize; p < len(b); {
			op := b[p]
			switch {
			case hllIsZero(op):
				fmt.Fprintf(&sb, "z:%d ", hllZeroLen(op))
				p++
			case hllIsXZero(op):
				n := int(op&0x3f)<<8 + 1
				if p+1 < len(b) {
					n = hllXZeroLen(b, p)
				}
				fmt.Fprintf(&sb, "Z:%d ", n)
				p += 2
			default:
				fmt.Fprintf(&sb, "v:%d,%d ", hllValValue(op), hllValLen(op))
				p++
			}
		}
		c.W.BulkString(strings.Trim(sb.String(), " "))
	case EqualFold(sub, "encoding"):
		if b[4] == hllDense {
			c.W.Status("dense")
		} else {
			c.W.Status("sparse")
		}
	case EqualFold(sub, "todense"):
		conv, ok := toDense()
		if !ok {
			return
		}
		if conv {
			c.W.Int(1)
		} else {
			c.W.Int(0)
		}
	default:
		c.Errf("ERR Unknown PFDEBUG subcommand '%s'", sub)
	}
}

// cmdPfselftest checks the representation instead of Redis's long
// randomized run: registers set through the sparse and the dense
// encodings read back alike, and the estimate of a few thousand elements
// stays within Redis's error bound.
func cmdPfselftest(c *Call) {
	sparse, dense := newHLL(), newHLL()
	dense, _ = hllSparseToDense(dense)
	for i := 0; i < 5000; i++ {
		ele := []byte(strconv.Itoa(i))
		sparse, _ = hllAdd(sparse, ele)
		dense, _ = hllAdd(dense, ele)
	}
	conv, ok := hllSparseToDense(sparse)
	if !ok || string(conv[hllHdrSize:]) != string(dense[hllHdrSize:]) {
		c.Errf("ERR TESTFAILED Register error")
		return
	}
	h, _ := hllHisto(dense)
	if est := float64(hllCount(&h)); est < 5000*0.95 || est > 5000*1.05 {
		c.Errf("ERR TESTFAILED Approximation error")
		return
	}
	c.OK()
}
