package engine

// Error replies of this file's commands (errors.go has the shared ones).
var (
	errLCSKeys      = replyError("ERR The specified keys must contain string values")
	errLCSLenAndIdx = replyError("ERR If you want both the length and indexes, please just use IDX.")
	errLCSMemory    = replyError("ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len")
)

// cmdLCS is LCS key1 key2 [LEN] [IDX] [MINMATCHLEN len] [WITHMATCHLEN], as
// lcsCommand in Redis 7.0 (t_string.c). Missing keys are empty strings.
// The table is Redis's own dynamic programming one, walked back the same
// way, so that among several longest common subsequences the same one
// (and the same match ranges) is the answer. Like Redis it refuses a
// table larger than proto-max-bulk-len.
func cmdLCS(c *Call) {
	va, foundA := lookupRead(c, c.Args[1])
	vb, foundB := lookupRead(c, c.Args[2])
	if (foundA && va.Type != TypeString) || (foundB && vb.Type != TypeString) {
		c.Err(errLCSKeys)
		return
	}
	var getLen, getIdx, withMatchLen bool
	var minMatchLen int64
	for j := 3; j < len(c.Args); j++ {
		opt := c.Args[j]
		switch {
		case EqualFold(opt, "idx"):
			getIdx = true
		case EqualFold(opt, "len"):
			getLen = true
		case EqualFold(opt, "withmatchlen"):
			withMatchLen = true
		case EqualFold(opt, "minmatchlen") && j+1 < len(c.Args):
			n, ok := ParseInt(c.Args[j+1])
			if !ok {
				c.Err(ErrNotInteger)
				return
			}
			minMatchLen = max(n, 0)
			j++
		default:
			c.Err(ErrSyntax)
			return
		}
	}
	if getLen && getIdx {
		c.Err(errLCSLenAndIdx)
		return
	}
	// Redis also refuses strings of 4 GB and more ("String too long for
	// LCS"); strings here stop at 512 MB, and the table check below
	// refuses far shorter ones.
	a, b := va.Payload, vb.Payload
	alen, blen := len(a), len(b)
	if uint64(alen+1)*uint64(blen+1)*4 > maxStringLen {
		c.Err(errLCSMemory)
		return
	}

	// lcs[i*(blen+1)+j] is the length of the LCS of a[:i] and b[:j].
	w := blen + 1
	lcs := make([]uint32, (alen+1)*w)
	for i := 1; i <= alen; i++ {
		row, prev := lcs[i*w:(i+1)*w], lcs[(i-1)*w:i*w]
		for j := 1; j <= blen; j++ {
			switch {
			case a[i-1] == b[j-1]:
				row[j] = prev[j-1] + 1
			case prev[j] > row[j-1]:
				row[j] = prev[j]
			default:
				row[j] = row[j-1]
			}
		}
	}
	total := lcs[alen*w+blen]
	if getLen {
		c.W.Int(int64(total))
		return
	}

	// Walk back from the end, building the LCS from its last byte and
	// collecting the ranges of contiguous matches, last ones first.
	type lcsMatch struct{ aStart, aEnd, bStart, bEnd int }
	result := make([]byte, total)
	idx := int(total)
	var matches []lcsMatch
	open := false
	var cur lcsMatch
	for i, j := alen, blen; i > 0 && j > 0; {
		emit := false
		if a[i-1] == b[j-1] {
			result[idx-1] = a[i-1]
			switch {
			case !open:
				cur = lcsMatch{i - 1, i - 1, j - 1, j - 1}
				open = true
			case cur.aStart == i && cur.bStart == j:
				cur.aStart--
				cur.bStart--
			default:
				emit = true
			}
			// The walk ends at the first byte of either string.
			if cur.aStart == 0 || cur.bStart == 0 {
				emit = true
			}
			idx--
			i--
			j--
		} else {
			if lcs[(i-1)*w+j] > lcs[i*w+j-1] {
				i--
			} else {
				j--
			}
			emit = open
		}
		if emit {
			if n := cur.aEnd - cur.aStart + 1; getIdx && (minMatchLen == 0 || int64(n) >= minMatchLen) {
				matches = append(matches, cur)
			}
			open = false
		}
	}
	if !getIdx {
		c.W.Bulk(result)
		return
	}
	c.W.Map(2)
	c.W.BulkString("matches")
	c.W.Array(len(matches))
	for _, m := range matches {
		if withMatchLen {
			c.W.Array(3)
		} else {
			c.W.Array(2)
		}
		c.W.Array(2)
		c.W.Int(int64(m.aStart))
		c.W.Int(int64(m.aEnd))
		c.W.Array(2)
		c.W.Int(int64(m.bStart))
		c.W.Int(int64(m.bEnd))
		if withMatchLen {
			c.W.Int(int64(m.aEnd - m.aStart + 1))
		}
	}
	c.W.BulkString("len")
	c.W.Int(int64(total))
}
