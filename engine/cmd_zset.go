package engine

import (
	"errors"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Sorted set commands, as t_zset.c in Redis 7.0.

// Error replies of this file's commands (errors.go has the shared ones).
var (
	errLimitNeedsBy    = errors.New("ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX")
	errMinMaxFloat     = errors.New("ERR min or max is not a float")
	errMinMaxLex       = errors.New("ERR min or max not valid string range item")
	errScoreNaN        = errors.New("ERR resulting score is not a number (NaN)")
	errWithscoresBylex = errors.New("ERR syntax error, WITHSCORES not supported in combination with BYLEX")
	errZaddGTLTNX      = errors.New("ERR GT, LT, and/or NX options at the same time are not compatible")
	errZaddIncrPairs   = errors.New("ERR INCR option supports a single increment-element pair")
	errZaddXXNX        = errors.New("ERR XX and NX options at the same time are not compatible")
)

func zsetCommands() []*Command {
	return []*Command{
		{Name: "zadd", Handler: cmdZadd},
		{Name: "zincrby", Handler: cmdZincrby},
		{Name: "zscore", Handler: cmdZscore},
		{Name: "zmscore", Handler: cmdZmscore},
		{Name: "zrem", Handler: cmdZrem},
		{Name: "zcard", Handler: cmdZcard},
		{Name: "zcount", Handler: cmdZcount},
		{Name: "zlexcount", Handler: cmdZlexcount},
		{Name: "zrange", Handler: cmdZrange},
		{Name: "zrangebyscore", Handler: cmdZrangebyscore},
		{Name: "zrevrangebyscore", Handler: cmdZrevrangebyscore},
		{Name: "zrevrange", Handler: cmdZrevrange},
		{Name: "zrangebylex", Handler: cmdZrangebylex},
		{Name: "zrevrangebylex", Handler: cmdZrevrangebylex},
		{Name: "zrank", Handler: cmdZrank},
		{Name: "zrevrank", Handler: cmdZrevrank},
		{Name: "zremrangebyscore", Handler: cmdZremrangebyscore},
		{Name: "zremrangebyrank", Handler: cmdZremrangebyrank},
		{Name: "zremrangebylex", Handler: cmdZremrangebylex},
		{Name: "zpopmin", Handler: cmdZpopmin},
		{Name: "zpopmax", Handler: cmdZpopmax},
		{Name: "zrandmember", Handler: cmdZrandmember},
		{Name: "zscan", Handler: cmdZscan},
	}
}

// ---------------------------------------------------------------- floats

// strtod parses the longest prefix of b that C's strtod accepts, after
// leading white space: decimal and hexadecimal numbers, "inf", "infinity"
// and "nan", with an optional sign. n is the number of bytes consumed, 0
// when nothing converts. erange reports an overflow (the value is then
// ±Inf) or an underflow to zero, as strtod's ERANGE.
func strtod(b []byte) (val float64, n int, erange bool) {
	i := 0
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	start := i
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		i++
	}
	neg := start < len(b) && b[start] == '-'
	rest := b[i:]
	if hasPrefixFold(rest, "inf") {
		l := 3
		if hasPrefixFold(rest, "infinity") {
			l = 8
		}
		if neg {
			return math.Inf(-1), i + l, false
		}
		return math.Inf(1), i + l, false
	}
	if hasPrefixFold(rest, "nan") {
		l := 3
		if len(rest) > 3 && rest[3] == '(' {
			for k := 4; k < len(rest); k++ {
				c := rest[k]
				if c == ')' {
					l = k + 1
					break
				}
				if !(c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
					break
				}
			}
		}
		return math.NaN(), i + l, false
	}
	hex := len(rest) > 2 && rest[0] == '0' && (rest[1] == 'x' || rest[1] == 'X') &&
		(isHexDigit(rest[2]) || rest[2] == '.' && len(rest) > 3 && isHexDigit(rest[3]))
	digit := isDigit
	j := 0
	if hex {
		digit = isHexDigit
		j = 2
	}
	mantStart := j
	nonzero := false
	for j < len(rest) && digit(rest[j]) {
		nonzero = nonzero || rest[j] != '0'
		j++
	}
	digits := j - mantStart
	if j < len(rest) && rest[j] == '.' {
		k := j + 1
		for k < len(rest) && digit(rest[k]) {
			nonzero = nonzero || rest[k] != '0'
			k++
		}
		if digits > 0 || k > j+1 {
			digits += k - j - 1
			j = k
		}
	}
	if digits == 0 {
		return 0, 0, false
	}
	expChar := byte('e')
	if hex {
		expChar = 'p'
	}
	hasExp := false
	if j < len(rest) && (rest[j]|0x20) == expChar {
		k := j + 1
		if k < len(rest) && (rest[k] == '+' || rest[k] == '-') {
			k++
		}
		if k < len(rest) && isDigit(rest[k]) {
			for k < len(rest) && isDigit(rest[k]) {
				k++
			}
			j = k
			hasExp = true
		}
	}
	text := string(b[start : i+j])
	if hex && !hasExp {
		text += "p0" // Go wants a binary exponent in hex floats
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil && !math.IsInf(f, 0) {
		return 0, 0, false
	}
	erange = math.IsInf(f, 0) || (f == 0 && nonzero)
	return f, i + j, erange
}

func isDigit(c byte) bool    { return '0' <= c && c <= '9' }
func isHexDigit(c byte) bool { return isDigit(c) || 'a' <= c|0x20 && c|0x20 <= 'f' }

func hasPrefixFold(b []byte, s string) bool {
	return len(b) >= len(s) && EqualFold(b[:len(s)], s)
}

// parseScore parses a score the way getDoubleFromObject (string2d) does:
// the whole argument, no leading space, no NaN, no overflow or underflow
// to zero.
func parseScore(b []byte) (float64, bool) {
	if len(b) == 0 || isSpace(b[0]) {
		return 0, false
	}
	f, n, erange := strtod(b)
	if n != len(b) || math.IsNaN(f) || (erange && (math.IsInf(f, 0) || f == 0)) {
		return 0, false
	}
	return f, true
}

// parseRangeFloat parses one end of a score range as zslParseRange does:
// strtod up to the end of the C string (an embedded NUL ends it), NaN
// refused, overflow accepted as ±inf, and an empty string is 0.
func parseRangeFloat(b []byte) (float64, bool) {
	f, n, _ := strtod(b)
	if n < len(b) && b[n] != 0 {
		return 0, false
	}
	return f, !math.IsNaN(f)
}

// scoreRange is a parsed [min, max] score interval; ex marks open ends.
type scoreRange struct {
	min, max     float64
	minex, maxex bool
}

func parseScoreRange(minArg, maxArg []byte) (scoreRange, error) {
	var r scoreRange
	var ok bool
	if len(minArg) > 0 && minArg[0] == '(' {
		r.minex = true
		minArg = minArg[1:]
	}
	if r.min, ok = parseRangeFloat(minArg); !ok {
		return r, errMinMaxFloat
	}
	if len(maxArg) > 0 && maxArg[0] == '(' {
		r.maxex = true
		maxArg = maxArg[1:]
	}
	if r.max, ok = parseRangeFloat(maxArg); !ok {
		return r, errMinMaxFloat
	}
	return r, nil
}

func (r *scoreRange) gteMin(v float64) bool {
	if r.minex {
		return v > r.min
	}
	return v >= r.min
}

func (r *scoreRange) lteMax(v float64) bool {
	if r.maxex {
		return v < r.max
	}
	return v <= r.max
}

// scoreSpan returns the positions [first, last] of the elements in range,
// ok false when none is (zslFirstInRange, zslLastInRange).
func (z *zsetObj) scoreSpan(r *scoreRange) (first, last int, ok bool) {
	n := len(z.ents)
	if n == 0 || r.min > r.max || (r.min == r.max && (r.minex || r.maxex)) {
		return 0, 0, false
	}
	first = sort.Search(n, func(i int) bool { return r.gteMin(z.ents[i].score) })
	last = sort.Search(n, func(i int) bool { return !r.lteMax(z.ents[i].score) }) - 1
	if first > last {
		return 0, 0, false
	}
	return first, last, true
}

// ------------------------------------------------------------ lex ranges

// lexBound is one end of a lex range: "-" (inf < 0), "+" (inf > 0) or a
// string, open when ex.
type lexBound struct {
	inf int
	s   string
	ex  bool
}

type lexRange struct{ min, max lexBound }

// parseLexBound is zslParseLexRangeItem. Arguments are C strings to it, so
// "+" or "-" followed by a NUL byte still count as infinities.
func parseLexBound(b []byte) (lexBound, bool) {
	if len(b) == 0 {
		return lexBound{}, false
	}
	switch b[0] {
	case '+', '-':
		if len(b) > 1 && b[1] != 0 {
			return lexBound{}, false
		}
		inf := 1
		if b[0] == '-' {
			inf = -1
		}
		return lexBound{inf: inf, ex: true}, true
	case '(':
		return lexBound{s: string(b[1:]), ex: true}, true
	case '[':
		return lexBound{s: string(b[1:])}, true
	}
	return lexBound{}, false
}

func parseLexRange(minArg, maxArg []byte) (lexRange, error) {
	min, ok1 := parseLexBound(minArg)
	max, ok2 := parseLexBound(maxArg)
	if !ok1 || !ok2 {
		return lexRange{}, errMinMaxLex
	}
	return lexRange{min: min, max: max}, nil
}

// cmpLex is sdscmplex: "-" sorts before everything, "+" after.
func cmpLex(a, b lexBound) int {
	if a.inf != 0 && a.inf == b.inf {
		return 0
	}
	if a.inf < 0 || b.inf > 0 {
		return -1
	}
	if a.inf > 0 || b.inf < 0 {
		return 1
	}
	return strings.Compare(a.s, b.s)
}

func (r *lexRange) gteMin(v string) bool {
	c := cmpLex(lexBound{s: v}, r.min)
	if r.min.ex {
		return c > 0
	}
	return c >= 0
}

func (r *lexRange) lteMax(v string) bool {
	c := cmpLex(lexBound{s: v}, r.max)
	if r.max.ex {
		return c < 0
	}
	return c <= 0
}

// lexInRange is zzlIsInLexRange: false when the range is empty or lies
// wholly before the first or after the last member.
func (z *zsetObj) lexInRange(r *lexRange) bool {
	c := cmpLex(r.min, r.max)
	if c > 0 || (c == 0 && (r.min.ex || r.max.ex)) || len(z.ents) == 0 {
		return false
	}
	return r.gteMin(z.ents[len(z.ents)-1].member) && r.lteMax(z.ents[0].member)
}

// lexFirst and lexLast find where a lex range starts (ends), walking as
// Redis's listpack code does: lex ranges assume members sorted, as they
// are when all scores are equal. -1 when nothing is in range.
func (z *zsetObj) lexFirst(r *lexRange) int {
	if !z.lexInRange(r) {
		return -1
	}
	for i, e := range z.ents {
		if r.gteMin(e.member) {
			if r.lteMax(e.member) {
				return i
			}
			return -1
		}
	}
	return -1
}

func (z *zsetObj) lexLast(r *lexRange) int {
	if !z.lexInRange(r) {
		return -1
	}
	for i := len(z.ents) - 1; i >= 0; i-- {
		if m := z.ents[i].member; r.lteMax(m) {
			if r.gteMin(m) {
				return i
			}
			return -1
		}
	}
	return -1
}

// lexSpan returns the positions [first, last] of the run of elements in
// range that starts at the first one.
func (z *zsetObj) lexSpan(r *lexRange) (first, last int, ok bool) {
	first = z.lexFirst(r)
	if first < 0 {
		return 0, 0, false
	}
	last = first
	for last+1 < len(z.ents) && r.lteMax(z.ents[last+1].member) {
		last++
	}
	return first, last, true
}

// ------------------------------------------------------------------ ZADD

// zaddOpts are ZADD's flags.
type zaddOpts struct {
	nx, xx, gt, lt, incr, ch bool
}

func cmdZadd(c *Call)    { zaddGeneric(c, false) }
func cmdZincrby(c *Call) { zaddGeneric(c, true) }

// zaddGeneric is zaddGenericCommand: ZADD, and ZINCRBY as ZADD INCR.
func zaddGeneric(c *Call, incr bool) {
	o := zaddOpts{incr: incr}
	idx := 2
scan:
	for ; idx < len(c.Args); idx++ {
		a := c.Args[idx]
		switch {
		case EqualFold(a, "nx"):
			o.nx = true
		case EqualFold(a, "xx"):
			o.xx = true
		case EqualFold(a, "ch"):
			o.ch = true
		case EqualFold(a, "incr"):
			o.incr = true
		case EqualFold(a, "gt"):
			o.gt = true
		case EqualFold(a, "lt"):
			o.lt = true
		default:
			break scan
		}
	}
	pairs := len(c.Args) - idx
	if pairs%2 != 0 || pairs == 0 {
		c.Err(ErrSyntax)
		return
	}
	pairs /= 2
	switch {
	case o.nx && o.xx:
		c.Err(errZaddXXNX)
		return
	case (o.gt && o.nx) || (o.lt && o.nx) || (o.gt && o.lt):
		c.Err(errZaddGTLTNX)
		return
	case o.incr && pairs > 1:
		c.Err(errZaddIncrPairs)
		return
	}
	scores := make([]float64, pairs)
	for j := range scores {
		f, ok := parseScore(c.Args[idx+2*j])
		if !ok {
			c.Err(ErrNotFloat)
			return
		}
		scores[j] = f
	}
	key := c.Args[1]
	z, exp, err := loadZset(c.Tx, key, false)
	if err != nil {
		c.Err(err)
		return
	}
	if z == nil {
		if o.xx {
			if o.incr {
				c.W.Null()
			} else {
				c.W.Int(0)
			}
			return
		}
		z = &zsetObj{}
	}
	res := z.add(scores, c.Args[idx+1:], o)
	if res.nan {
		c.Err(errScoreNaN)
		return
	}
	if res.added+res.updated > 0 {
		storeZset(c.Tx, key, z, exp)
	}
	switch {
	case !o.incr && o.ch:
		c.W.Int(int64(res.added + res.updated))
	case !o.incr:
		c.W.Int(int64(res.added))
	case res.processed > 0:
		c.W.Double(res.score)
	default:
		c.W.Null()
	}
	if res.added+res.updated > 0 {
		// Redis replies before it raises the event.
		if o.incr {
			c.Tx.Notify(NotifyZset, "zincr", key)
		} else {
			c.Tx.Notify(NotifyZset, "zadd", key)
		}
	}
}

// zaddResult counts what zsetObj.add did.
type zaddResult struct {
	added, updated, processed int
	score                     float64 // the last score set (INCR's reply)
	nan                       bool
}

// add applies score/member pairs (members: member after each score, so
// args[1], args[3]...) one after the other with zsetAdd's rules, then
// rebuilds the order once: O(n + m log m).
func (z *zsetObj) add(scores []float64, args [][]byte, o zaddOpts) zaddResult {
	var res zaddResult
	lookup := z.indexer(len(scores))
	var gone []bool            // existing entries that moved
	var pending []zent         // new and moved entries
	var pendIdx map[string]int // member -> position in pending
	size := len(z.ents)
	for j, score := range scores {
		m := args[2*j]
		p, i := -1, -1
		if pendIdx != nil {
			if k, ok := pendIdx[string(m)]; ok {
				p = k
			}
		}
		if p < 0 {
			if i = lookup(m); i >= 0 && gone != nil && gone[i] {
				i = -1
			}
		}
		if p >= 0 || i >= 0 {
			cur := 0.0
			if p >= 0 {
				cur = pending[p].score
			} else {
				cur = z.ents[i].score
			}
			if o.nx {
				continue
			}
			if o.incr {
				score += cur
				if math.IsNaN(score) {
					res.nan = true
					return res
				}
			}
			if (o.lt && score >= cur) || (o.gt && score <= cur) {
				continue
			}
			res.processed++
			res.score = score
			if score == cur {
				continue
			}
			res.updated++
			stored := score
			if !z.large {
				stored = listpackScore(score)
			}
			if p >= 0 {
				pending[p].score = stored
				continue
			}
			if gone == nil {
				gone = make([]bool, len(z.ents))
			}
			gone[i] = true
			pending = append(pending, zent{member: z.ents[i].member, score: stored})
		} else {
			if o.xx {
				continue
			}
			// zsetAdd converts before inserting the element that would
			// not fit a listpack.
			if !z.large && (size+1 > zsetMaxListpackEntries || len(m) > zsetMaxListpackValue) {
				z.large = true
			}
			stored := score
			if !z.large {
				stored = listpackScore(score)
			}
			res.added++
			res.processed++
			res.score = score
			size++
			pending = append(pending, zent{member: string(m), score: stored})
		}
		if len(scores) > 1 {
			if pendIdx == nil {
				pendIdx = make(map[string]int)
			}
			pendIdx[pending[len(pending)-1].member] = len(pending) - 1
		}
	}
	if len(pending) > 0 {
		z.replace(gone, pending)
	}
	return res
}

// ---------------------------------------------------------- simple reads

func cmdZscore(c *Call) {
	z, _, err := loadZset(c.Tx, c.Args[1], true)
	switch {
	case err != nil:
		c.Err(err)
	case z == nil:
		c.W.Null()
	default:
		if i := z.find(c.Args[2]); i >= 0 {
			c.W.Double(z.ents[i].score)
		} else {
			c.W.Null()
		}
	}
}

func cmdZmscore(c *Call) {
	z, _, err := loadZset(c.Tx, c.Args[1], true)
	if err != nil {
		c.Err(err)
		return
	}
	members := c.Args[2:]
	c.W.Array(len(members))
	if z == nil {
		for range members {
			c.W.Null()
		}
		return
	}
	lookup := z.indexer(len(members))
	for _, m := range members {
		if i := lookup(m); i >= 0 {
			c.W.Double(z.ents[i].score)
		} else {
			c.W.Null()
		}
	}
}

func cmdZcard(c *Call) {
	z, _, err := loadZset(c.Tx, c.Args[1], true)
	switch {
	case err != nil:
		c.Err(err)
	case z == nil:
		c.W.Int(0)
	default:
		c.W.Int(int64(len(z.ents)))
	}
}

func cmdZcount(c *Call) {
	r, err := parseScoreRange(c.Args[2], c.Args[3])
	if err != nil {
		c.Err(err)
		return
	}
	z, _, err := loadZset(c.Tx, c.Args[1], true)
	switch {
	case err != nil:
		c.Err(err)
	case z == nil:
		c.W.Int(0)
	default:
		first, last, ok := z.scoreSpan(&r)
		if !ok {
			c.W.Int(0)
			return
		}
		c.W.Int(int64(last - first + 1))
	}
}

func cmdZlexcount(c *Call) {
	r, err := parseLexRange(c.Args[2], c.Args[3])
	if err != nil {
		c.Err(err)
		return
	}
	z, _, err := loadZset(c.Tx, c.Args[1], true)
	switch {
	case err != nil:
		c.Err(err)
	case z == nil:
		c.W.Int(0)
	default:
		first, last, ok := z.lexSpan(&r)
		if !ok {
			c.W.Int(0)
			return
		}
		c.W.Int(int64(last - first + 1))
	}
}

func zrankGeneric(c *Call, reverse bool) {
	z, _, err := loadZset(c.Tx, c.Args[1], true)
	switch {
	case err != nil:
		c.Err(err)
	case z == nil:
		c.W.Null()
	default:
		i := z.find(c.Args[2])
		switch {
		case i < 0:
			c.W.Null()
		case reverse:
			c.W.Int(int64(len(z.ents) - 1 - i))
		default:
			c.W.Int(int64(i))
		}
	}
}

func cmdZrank(c *Call)    { zrankGeneric(c, false) }
func cmdZrevrank(c *Call) { zrankGeneric(c, true) }

// ---------------------------------------------------------------- ZRANGE

type zrangeKind int

const (
	zrangeAuto zrangeKind = iota
	zrangeRank
	zrangeScore
	zrangeLex
)

type zrangeDir int

const (
	dirAuto zrangeDir = iota
	dirForward
	dirReverse
)

func cmdZrange(c *Call)           { zrangeGeneric(c, zrangeAuto, dirAuto) }
func cmdZrevrange(c *Call)        { zrangeGeneric(c, zrangeRank, dirReverse) }
func cmdZrangebyscore(c *Call)    { zrangeGeneric(c, zrangeScore, dirForward) }
func cmdZrevrangebyscore(c *Call) { zrangeGeneric(c, zrangeScore, dirReverse) }
func cmdZrangebylex(c *Call)      { zrangeGeneric(c, zrangeLex, dirForward) }
func cmdZrevrangebylex(c *Call)   { zrangeGeneric(c, zrangeLex, dirReverse) }

// zrangeGeneric is zrangeGenericCommand for the commands that reply (not
// ZRANGESTORE, which is in cmd_zset_algebra.go).
func zrangeGeneric(c *Call, kind zrangeKind, dir zrangeDir) {
	ents, reverse, withScores, err := zrangeSelect(c, 1, false, kind, dir)
	if err != nil {
		c.Err(err)
		return
	}
	replyZrange(c, ents, reverse, withScores)
}

// zrangeSelect parses a ZRANGE-family request whose source key is at
// c.Args[src] (options, conflicts, range, then the lookup, each with
// Redis's errors in Redis's order) and returns the selected entries in
// forward order; reverse says they are to be walked backwards. store
// (ZRANGESTORE) refuses WITHSCORES. A missing key selects nothing.
func zrangeSelect(c *Call, src int, store bool, kind zrangeKind, dir zrangeDir) (ents []zent, reverse, withScores bool, err error) {
	minArg, maxArg := c.Args[src+1], c.Args[src+2]
	offset, limit := int64(0), int64(-1)
	for j := src + 3; j < len(c.Args); j++ {
		a := c.Args[j]
		left := len(c.Args) - j - 1
		switch {
		case !store && EqualFold(a, "withscores"):
			withScores = true
		case EqualFold(a, "limit") && left >= 2:
			var ok bool
			if offset, ok = ParseInt(c.Args[j+1]); !ok {
				return nil, false, false, ErrNotInteger
			}
			if limit, ok = ParseInt(c.Args[j+2]); !ok {
				return nil, false, false, ErrNotInteger
			}
			j += 2
		case dir == dirAuto && EqualFold(a, "rev"):
			dir = dirReverse
		case kind == zrangeAuto && EqualFold(a, "bylex"):
			kind = zrangeLex
		case kind == zrangeAuto && EqualFold(a, "byscore"):
			kind = zrangeScore
		default:
			return nil, false, false, ErrSyntax
		}
	}
	if kind == zrangeAuto {
		kind = zrangeRank
	}
	reverse = dir == dirReverse
	if limit != -1 && kind == zrangeRank {
		return nil, false, false, errLimitNeedsBy
	}
	if withScores && kind == zrangeLex {
		return nil, false, false, errWithscoresBylex
	}
	if reverse && kind != zrangeRank {
		minArg, maxArg = maxArg, minArg // given as max, min
	}
	var start, end int64
	var sr scoreRange
	var lr lexRange
	switch kind {
	case zrangeRank:
		var ok bool
		if start, end, ok = parseRangeArgs(minArg, maxArg); !ok {
			err = ErrNotInteger
		}
	case zrangeScore:
		sr, err = parseScoreRange(minArg, maxArg)
	case zrangeLex:
		lr, err = parseLexRange(minArg, maxArg)
	}
	if err != nil {
		return nil, false, false, err
	}
	z, _, err := loadZset(c.Tx, c.Args[src], true)
	if err != nil || z == nil {
		return nil, reverse, withScores, err
	}
	var from, to int // positions in forward order
	ok := false
	switch kind {
	case zrangeRank:
		from, to, ok = clampRange(start, end, len(z.ents))
		if ok && reverse {
			from, to = len(z.ents)-1-to, len(z.ents)-1-from
		}
		if ok {
			return z.ents[from : to+1], reverse, withScores, nil
		}
	case zrangeScore:
		from, to, ok = z.scoreSpan(&sr)
	case zrangeLex:
		if reverse {
			// Walk from the last element in range down while >= min.
			if to = z.lexLast(&lr); to >= 0 {
				from, ok = to, true
				for from > 0 && lr.gteMin(z.ents[from-1].member) {
					from--
				}
			}
		} else {
			from, to, ok = z.lexSpan(&lr)
		}
	}
	if !ok {
		return nil, reverse, withScores, nil
	}
	// LIMIT: a negative offset walks past the end (nothing), a negative
	// count means no limit.
	span := int64(to - from + 1)
	if offset < 0 || offset >= span {
		return nil, reverse, withScores, nil
	}
	n := span - offset
	if limit >= 0 && limit < n {
		n = limit
	}
	if reverse {
		to -= int(offset)
		from = to - int(n) + 1
	} else {
		from += int(offset)
		to = from + int(n) - 1
	}
	return z.ents[from : to+1], reverse, withScores, nil
}

// replyZrange writes ents (walked backwards when reverse): RESP2 flat
// [member, score...], RESP3 [[member, score]...] with scores.
func replyZrange(c *Call, ents []zent, reverse, withScores bool) {
	n := len(ents)
	if withScores && c.S.Proto == 2 {
		n *= 2
	}
	c.W.Array(n)
	for k := range ents {
		e := ents[k]
		if reverse {
			e = ents[len(ents)-1-k]
		}
		if withScores && c.S.Proto > 2 {
			c.W.Array(2)
		}
		c.W.BulkString(e.member)
		if withScores {
			c.W.Double(e.score)
		}
	}
}

// ---------------------------------------------------------------- writes

func cmdZrem(c *Call) {
	key := c.Args[1]
	z, exp, err := loadZset(c.Tx, key, false)
	if err != nil {
		c.Err(err)
		return
	}
	if z == nil {
		c.W.Int(0)
		return
	}
	members := c.Args[2:]
	lookup := z.indexer(len(members))
	gone := make([]bool, len(z.ents))
	deleted := 0
	for _, m := range members {
		if i := lookup(m); i >= 0 && !gone[i] {
			gone[i] = true
			deleted++
			if deleted == len(z.ents) {
				break
			}
		}
	}
	if deleted > 0 {
		z.replace(gone, nil)
		storeZset(c.Tx, key, z, exp)
		c.Tx.Notify(NotifyZset, "zrem", key)
		if len(z.ents) == 0 {
			c.Tx.Notify(NotifyGeneric, "del", key)
		}
	}
	c.W.Int(int64(deleted))
}

// zremRange removes ents[from..to] (when ok) and replies the count.
func zremRange(c *Call, key []byte, z *zsetObj, exp int64, from, to int, ok bool) {
	if !ok {
		c.W.Int(0)
		return
	}
	z.removeRange(from, to+1)
	storeZset(c.Tx, key, z, exp)
	// The event is the command's name: zremrangebyrank, ...byscore, ...bylex.
	c.Tx.Notify(NotifyZset, c.Cmd.Name, key)
	if len(z.ents) == 0 {
		c.Tx.Notify(NotifyGeneric, "del", key)
	}
	c.W.Int(int64(to - from + 1))
}

func cmdZremrangebyrank(c *Call) {
	start, end, ok := parseRangeArgs(c.Args[2], c.Args[3])
	if !ok {
		c.Err(ErrNotInteger)
		return
	}
	zremRangeBy(c, func(z *zsetObj) (int, int, bool) { return clampRange(start, end, len(z.ents)) })
}

func cmdZremrangebyscore(c *Call) {
	r, err := parseScoreRange(c.Args[2], c.Args[3])
	if err != nil {
		c.Err(err)
		return
	}
	zremRangeBy(c, func(z *zsetObj) (int, int, bool) { return z.scoreSpan(&r) })
}

func cmdZremrangebylex(c *Call) {
	r, err := parseLexRange(c.Args[2], c.Args[3])
	if err != nil {
		c.Err(err)
		return
	}
	zremRangeBy(c, func(z *zsetObj) (int, int, bool) { return z.lexSpan(&r) })
}

// zremRangeBy removes the members a ZREMRANGEBY* command selects with span
// (its range arguments already parsed, as Redis checks them first).
func zremRangeBy(c *Call, span func(z *zsetObj) (from, to int, ok bool)) {
	key := c.Args[1]
	z, exp, err := loadZset(c.Tx, key, false)
	switch {
	case err != nil:
		c.Err(err)
	case z == nil:
		c.W.Int(0)
	default:
		from, to, ok := span(z)
		zremRange(c, key, z, exp, from, to, ok)
	}
}

// ZMember is a sorted set member and its score.
type ZMember struct {
	Member string
	Score  float64
}

func (z *zsetObj) pop(tx *Tx, key []byte, exp int64, max bool, count int) []ZMember {
	n := min(count, len(z.ents))
	out := make([]ZMember, n)
	for k := range out {
		e := z.ents[k]
		if max {
			e = z.ents[len(z.ents)-1-k]
		}
		out[k] = ZMember{Member: e.member, Score: e.score}
	}
	if max {
		z.ents = z.ents[:len(z.ents)-n]
	} else {
		z.ents = z.ents[n:]
	}
	storeZset(tx, key, z, exp)
	return out
}

func zpopGeneric(c *Call, max bool) {
	if len(c.Args) > 3 {
		c.Err(ErrSyntax)
		return
	}
	count := int64(-1) // no count: a single pop
	if len(c.Args) == 3 {
		var err error
		if count, err = parsePositiveCount(c.Args[2], nil); err != nil {
			c.Err(err)
			return
		}
	}
	key := c.Args[1]
	z, exp, err := loadZset(c.Tx, key, false)
	switch {
	case err != nil:
		c.Err(err)
		return
	case z == nil || count == 0:
		c.W.Array(0)
		return
	}
	nested := c.S.Proto > 2 && count != -1
	if count == -1 {
		count = 1
	}
	popped := z.pop(c.Tx, key, exp, max, int(min(count, int64(len(z.ents)))))
	if nested {
		c.W.Array(len(popped))
	} else {
		c.W.Array(2 * len(popped))
	}
	// Redis raises the event after the reply's header, before the members.
	c.Tx.Notify(NotifyZset, zpopEvent(max), key)
	for _, p := range popped {
		if nested {
			c.W.Array(2)
		}
		c.W.BulkString(p.Member)
		c.W.Double(p.Score)
	}
	if len(z.ents) == 0 {
		c.Tx.Notify(NotifyGeneric, "del", key)
	}
}

// zpopEvent is the keyspace event of a pop from the smallest or (max) the
// largest end.
func zpopEvent(max bool) string {
	if max {
		return "zpopmax"
	}
	return "zpopmin"
}

func cmdZpopmin(c *Call) { zpopGeneric(c, false) }
func cmdZpopmax(c *Call) { zpopGeneric(c, true) }

func cmdZrandmember(c *Call) {
	var count int64
	withScores := false
	if len(c.Args) >= 3 {
		var err error
		if count, err = parseRandCount(c.Args[2]); err != nil {
			c.Err(err)
			return
		}
		if len(c.Args) > 4 || (len(c.Args) == 4 && !EqualFold(c.Args[3], "withscores")) {
			c.Err(ErrSyntax)
			return
		}
		if len(c.Args) == 4 {
			withScores = true
			if count < -math.MaxInt64/2 || count > math.MaxInt64/2 {
				c.Err(errOutOfRange)
				return
			}
		}
	}
	z, _, err := loadZset(c.Tx, c.Args[1], true)
	if err != nil {
		c.Err(err)
		return
	}
	if len(c.Args) == 2 {
		if z == nil {
			c.W.Null()
			return
		}
		c.W.BulkString(z.ents[c.E.randIntN(len(z.ents))].member)
		return
	}
	if z == nil || count == 0 {
		c.W.Array(0)
		return
	}
	replyRandomPairs(c, count, len(z.ents), withScores, func(i int) {
		c.W.BulkString(z.ents[i].member)
		if withScores {
			c.W.Double(z.ents[i].score)
		}
	})
}

func cmdZscan(c *Call) {
	scanCollection(c, loadZset, func(z *zsetObj) ([]scanItem, bool, bool) {
		items := make([]scanItem, len(z.ents))
		for i, e := range z.ents {
			items[i].key = e.member
			if z.large {
				items[i].val = FormatFloat(e.score)
			} else {
				items[i].val = listpackScoreText(e.score)
			}
		}
		return items, !z.large, true
	})
}
