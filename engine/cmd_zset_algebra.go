package engine

import (
	"errors"
	"fmt"
	"math"
	"sort"
)

// Sorted set algebra, as zunionInterDiffGenericCommand in Redis 7.0's
// t_zset.c: ZUNION, ZINTER, ZDIFF, ZINTERCARD and the STORE forms, plus
// ZRANGESTORE. Plain sets are accepted as inputs, each member scoring 1.

// Error replies of this file's commands (errors.go has the shared ones).
var (
	errWeightNotFloat = errors.New("ERR weight value is not a float")
)

func zsetAlgebraCommands() []*Command {
	return []*Command{
		{Name: "zunion", Handler: func(c *Call) { zsetAlgebra(c, nil, 1, zopUnion, false) }},
		{Name: "zinter", Handler: func(c *Call) { zsetAlgebra(c, nil, 1, zopInter, false) }},
		{Name: "zdiff", Handler: func(c *Call) { zsetAlgebra(c, nil, 1, zopDiff, false) }},
		{Name: "zintercard", Handler: func(c *Call) { zsetAlgebra(c, nil, 1, zopInter, true) }},
		{Name: "zunionstore", Handler: func(c *Call) { zsetAlgebra(c, c.Args[1], 2, zopUnion, false) }},
		{Name: "zinterstore", Handler: func(c *Call) { zsetAlgebra(c, c.Args[1], 2, zopInter, false) }},
		{Name: "zdiffstore", Handler: func(c *Call) { zsetAlgebra(c, c.Args[1], 2, zopDiff, false) }},
		{Name: "zrangestore", Handler: cmdZrangestore},
	}
}

type zsetOp int

const (
	zopUnion zsetOp = iota
	zopInter
	zopDiff
)

type zaggregate int

const (
	aggrSum zaggregate = iota
	aggrMin
	aggrMax
)

// zsrc is one input of the algebra: a sorted set or a set (nil both when
// the key is missing) and its weight.
type zsrc struct {
	key    string
	z      *zsetObj
	s      *setObj
	weight float64
}

func (o *zsrc) size() int {
	switch {
	case o.z != nil:
		return len(o.z.ents)
	case o.s != nil:
		return o.s.size()
	}
	return 0
}

func (o *zsrc) exists() bool { return o.z != nil || o.s != nil }

// entries returns the input's members with their scores (1 for a set).
func (o *zsrc) entries() []zent {
	if o.z != nil {
		return o.z.ents
	}
	out := make([]zent, o.size())
	for i := range out {
		out[i] = zent{member: o.s.member(i), score: 1}
	}
	return out
}

// finder returns a lookup of a member's score in the input, for n lookups.
func (o *zsrc) finder(n int) func(m string) (float64, bool) {
	switch {
	case o.z != nil:
		idx := o.z.indexer(n)
		return func(m string) (float64, bool) {
			if i := idx(StringBytes(m)); i >= 0 {
				return o.z.ents[i].score, true
			}
			return 0, false
		}
	case o.s != nil:
		return func(m string) (float64, bool) { return 1, o.s.has(StringBytes(m)) }
	}
	return func(string) (float64, bool) { return 0, false }
}

// aggregate is zunionInterAggregate: a SUM of +inf and -inf is 0, and
// MIN/MAX keep the target when val is NaN.
func aggregate(target *float64, val float64, a zaggregate) {
	switch a {
	case aggrSum:
		*target += val
		if math.IsNaN(*target) {
			*target = 0
		}
	case aggrMin:
		if val < *target {
			*target = val
		}
	case aggrMax:
		if val > *target {
			*target = val
		}
	}
}

// loadZsrc loads a sorted set or a set for the algebra.
func loadZsrc(tx *Tx, key []byte) (zsrc, error) {
	src := zsrc{key: string(key), weight: 1}
	z, _, err := loadZset(tx, key, true)
	if err == nil {
		src.z = z
		return src, nil
	}
	if err != ErrWrongType {
		return src, err
	}
	s, _, err := loadSet(tx, key, false)
	if err != nil {
		return src, err
	}
	src.s = s
	return src, nil
}

// zsetAlgebra is zunionInterDiffGenericCommand: numkeys is at
// c.Args[numIdx], dst is nil for the commands that reply.
func zsetAlgebra(c *Call, dst []byte, numIdx int, op zsetOp, cardOnly bool) {
	setnum, ok := ParseInt(c.Args[numIdx])
	if !ok {
		c.Err(ErrNotInteger)
		return
	}
	if setnum < 1 {
		c.Err(fmt.Errorf("ERR at least 1 input key is needed for '%s' command", c.Cmd.FullName))
		return
	}
	if setnum > int64(len(c.Args)-numIdx-1) {
		c.Err(ErrSyntax)
		return
	}
	// The keys are read (and WRONGTYPE reported) before the options.
	srcs := make([]zsrc, setnum)
	j := numIdx + 1
	for i := range srcs {
		src, err := loadZsrc(c.Tx, c.Args[j])
		if err != nil {
			c.Err(err)
			return
		}
		srcs[i] = src
		j++
	}
	agg := aggrSum
	withScores := false
	var limit int64
	for j < len(c.Args) {
		a := c.Args[j]
		remaining := len(c.Args) - j
		switch {
		case op != zopDiff && !cardOnly && remaining >= len(srcs)+1 && EqualFold(a, "weights"):
			j++
			for i := range srcs {
				w, ok := parseScore(c.Args[j])
				if !ok {
					c.Err(errWeightNotFloat)
					return
				}
				srcs[i].weight = w
				j++
			}
		case op != zopDiff && !cardOnly && remaining >= 2 && EqualFold(a, "aggregate"):
			switch v := c.Args[j+1]; {
			case EqualFold(v, "sum"):
				agg = aggrSum
			case EqualFold(v, "min"):
				agg = aggrMin
			case EqualFold(v, "max"):
				agg = aggrMax
			default:
				c.Err(ErrSyntax)
				return
			}
			j += 2
		case dst == nil && !cardOnly && EqualFold(a, "withscores"):
			withScores = true
			j++
		case cardOnly && remaining >= 2 && EqualFold(a, "limit"):
			var err error
			if limit, err = parsePositiveCount(c.Args[j+1], errLimitNegative); err != nil {
				c.Err(err)
				return
			}
			j += 2
		default:
			c.Err(ErrSyntax)
			return
		}
	}
	if op != zopDiff {
		// Smallest first, in a stable order: with SUM the order of the
		// additions can change the last bit of a score.
		sort.SliceStable(srcs, func(a, b int) bool { return srcs[a].size() < srcs[b].size() })
	}
	var res []zent
	switch op {
	case zopInter:
		if cardOnly {
			c.W.Int(zinterCard(srcs, limit))
			return
		}
		res = zinter(srcs, agg)
	case zopUnion:
		res = zunion(srcs, agg)
	case zopDiff:
		res = zdiff(srcs)
	}
	sort.Slice(res, func(a, b int) bool { return zless(res[a], res[b]) })
	if dst == nil {
		replyZrange(c, res, false, withScores)
		return
	}
	event := [...]string{zopUnion: "zunionstore", zopInter: "zinterstore", zopDiff: "zdiffstore"}[op]
	storeZsetResult(c, dst, res, event)
}

// zinter walks the smallest input (srcs is sorted by size) and keeps the
// members every other input has, aggregating weighted scores in input
// order. A weighted score that is NaN (0 × inf) starts as 0.
func zinter(srcs []zsrc, agg zaggregate) []zent {
	if srcs[0].size() == 0 {
		return nil
	}
	first := srcs[0].entries()
	finders := otherFinders(srcs, len(first))
	var out []zent
	for _, e := range first {
		score := srcs[0].weight * e.score
		if math.IsNaN(score) {
			score = 0
		}
		in := true
		for i := 1; i < len(srcs); i++ {
			v, ok := finders[i](e.member)
			if !ok {
				in = false
				break
			}
			aggregate(&score, v*srcs[i].weight, agg)
		}
		if in {
			out = append(out, zent{member: e.member, score: score})
		}
	}
	return out
}

// otherFinders is a lookup of a member's score in each input after the
// first (index 0 stays nil), each ready for n lookups.
func otherFinders(srcs []zsrc, n int) []func(string) (float64, bool) {
	finders := make([]func(string) (float64, bool), len(srcs))
	for i := 1; i < len(srcs); i++ {
		finders[i] = srcs[i].finder(n)
	}
	return finders
}

// zinterCard counts ZINTER's result, stopping at limit when limit > 0.
func zinterCard(srcs []zsrc, limit int64) int64 {
	if srcs[0].size() == 0 {
		return 0
	}
	first := srcs[0].entries()
	finders := otherFinders(srcs, len(first))
	var n int64
	for _, e := range first {
		in := true
		for i := 1; i < len(srcs); i++ {
			if _, ok := finders[i](e.member); !ok {
				in = false
				break
			}
		}
		if in {
			n++
			if limit > 0 && n >= limit {
				break
			}
		}
	}
	return n
}

// zunion aggregates every member's weighted scores, inputs taken in order.
func zunion(srcs []zsrc, agg zaggregate) []zent {
	var out []zent
	pos := make(map[string]int)
	for i := range srcs {
		for _, e := range srcs[i].entries() {
			score := srcs[i].weight * e.score
			if math.IsNaN(score) {
				score = 0
			}
			if k, ok := pos[e.member]; ok {
				aggregate(&out[k].score, score, agg)
				continue
			}
			pos[e.member] = len(out)
			out = append(out, zent{member: e.member, score: score})
		}
	}
	return out
}

// zdiff keeps the first input's members (with their scores, unweighted)
// that no other input has; nothing when the first key is named again.
func zdiff(srcs []zsrc) []zent {
	if srcs[0].size() == 0 {
		return nil
	}
	for _, o := range srcs[1:] {
		if o.exists() && o.key == srcs[0].key {
			return nil
		}
	}
	first := srcs[0].entries()
	finders := otherFinders(srcs, len(first))
	var out []zent
	for _, e := range first {
		in := false
		for i := 1; i < len(srcs); i++ {
			if _, ok := finders[i](e.member); ok {
				in = true
				break
			}
		}
		if !in {
			out = append(out, e)
		}
	}
	return out
}

// storeZsetResult writes ents (sorted) to dst, replacing any value and its
// TTL, with the encoding Redis converts its result to
// (zsetConvertToListpackIfNeeded), and replies the count; an empty result
// deletes dst ("del" event when it existed).
func storeZsetResult(c *Call, dst []byte, ents []zent, event string) {
	if len(ents) == 0 {
		if c.Tx.Delete(dst) {
			c.Tx.Notify(NotifyGeneric, "del", dst)
		}
		c.W.Int(0)
		return
	}
	storeZset(c.Tx, dst, zsetOfResult(ents), 0)
	c.W.Int(int64(len(ents)))
	c.Tx.Notify(NotifyZset, event, dst)
}

// zsetOfResult is a sorted set of ents (sorted), in the encoding Redis
// converts a computed result to (zsetConvertToListpackIfNeeded).
func zsetOfResult(ents []zent) *zsetObj {
	z := &zsetObj{large: len(ents) > zsetMaxListpackEntries, ents: ents}
	for _, e := range ents {
		if len(e.member) > zsetMaxListpackValue {
			z.large = true
			break
		}
	}
	if !z.large {
		for i := range z.ents {
			z.ents[i].score = listpackScore(z.ents[i].score)
		}
	}
	return z
}

// cmdZrangestore is ZRANGESTORE dst src min max [BYSCORE|BYLEX] [REV]
// [LIMIT offset count].
func cmdZrangestore(c *Call) {
	ents, _, _, err := zrangeSelect(c, 2, true, zrangeAuto, dirAuto)
	if err != nil {
		c.Err(err)
		return
	}
	// A copy: ents shares the source's slice, and storing rewrites scores.
	storeZsetResult(c, c.Args[1], append([]zent(nil), ents...), "zrangestore")
}
