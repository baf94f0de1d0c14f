package engine

import (
	"fmt"
	"sort"
	"strconv"
)

// GEO commands, as geo.c in Redis 7.0. A geo set is a sorted set whose
// scores are 52-bit geohashes (geohash.go).

func geoCommands() []*Command {
	return []*Command{
		{Name: "geoadd", Handler: cmdGeoadd},
		{Name: "geodist", Handler: cmdGeodist},
		{Name: "geohash", Handler: cmdGeohash},
		{Name: "geopos", Handler: cmdGeopos},
		{Name: "georadius", Handler: func(c *Call) { geoSearch(c, 1, geoFromCoords) }},
		{Name: "georadius_ro", Handler: func(c *Call) { geoSearch(c, 1, geoFromCoords|geoNoStore) }},
		{Name: "georadiusbymember", Handler: func(c *Call) { geoSearch(c, 1, geoFromMember) }},
		{Name: "georadiusbymember_ro", Handler: func(c *Call) { geoSearch(c, 1, geoFromMember|geoNoStore) }},
		{Name: "geosearch", Handler: func(c *Call) { geoSearch(c, 1, geoSearchCmd) }},
		{Name: "geosearchstore", Handler: func(c *Call) { geoSearch(c, 2, geoSearchCmd|geoSearchStore) }},
	}
}

var (
	errGeoUnit          = replyError("ERR unsupported unit provided. please use M, KM, FT, MI")
	errGeoRadius        = replyError("ERR need numeric radius")
	errGeoRadiusNeg     = replyError("ERR radius cannot be negative")
	errGeoWidth         = replyError("ERR need numeric width")
	errGeoHeight        = replyError("ERR need numeric height")
	errGeoBoxNeg        = replyError("ERR height or width cannot be negative")
	errGeoCount         = replyError("ERR COUNT must be > 0")
	errGeoMember        = replyError("ERR could not decode requested zset member")
	errGeoAnyNeedsCount = replyError("ERR the ANY argument requires COUNT argument")
)

// parseLongLat reads a longitude and a latitude (extractLongLatOrReply).
func parseLongLat(args [][]byte) (long, lat float64, err error) {
	var ok bool
	if long, ok = parseScore(args[0]); !ok {
		return 0, 0, ErrNotFloat
	}
	if lat, ok = parseScore(args[1]); !ok {
		return 0, 0, ErrNotFloat
	}
	if long < geoLongMin || long > geoLongMax || lat < geoLatMin || lat > geoLatMax {
		return 0, 0, fmt.Errorf("ERR invalid longitude,latitude pair %s,%s", cFloat6(long), cFloat6(lat))
	}
	return long, lat, nil
}

// parseGeoUnit is extractUnitOrReply: the unit's size in meters.
func parseGeoUnit(u []byte) (float64, error) {
	switch {
	case EqualFold(u, "m"):
		return 1, nil
	case EqualFold(u, "km"):
		return 1000, nil
	case EqualFold(u, "ft"):
		return 0.3048, nil
	case EqualFold(u, "mi"):
		return 1609.34, nil
	}
	return 0, errGeoUnit
}

// cmdGeoadd is GEOADD key [NX|XX] [CH] long lat member...: like Redis, it
// turns the positions into scores and runs ZADD, whose reply, encoding
// rules and "zadd" event it shares.
func cmdGeoadd(c *Call) {
	xx, nx := false, false
	idx := 2
	for ; idx < len(c.Args); idx++ {
		a := c.Args[idx]
		if EqualFold(a, "nx") {
			nx = true
		} else if EqualFold(a, "xx") {
			xx = true
		} else if !EqualFold(a, "ch") {
			break
		}
	}
	if (len(c.Args)-idx)%3 != 0 || (xx && nx) {
		c.Err(ErrSyntax)
		return
	}
	elements := (len(c.Args) - idx) / 3
	zargs := make([][]byte, 0, idx+2*elements)
	zargs = append(zargs, []byte("zadd"))
	zargs = append(zargs, c.Args[1:idx]...)
	for i := 0; i < elements; i++ {
		p := c.Args[idx+3*i:]
		long, lat, err := parseLongLat(p)
		if err != nil {
			c.Err(err)
			return
		}
		zargs = append(zargs, strconv.AppendUint(nil, uint64(geoScore(long, lat)), 10), p[2])
	}
	args := c.Args
	c.Args = zargs
	zaddGeneric(c, false)
	c.Args = args
}

// geoMemberPos is longLatFromMember.
func geoMemberPos(z *zsetObj, member []byte) (long, lat float64, ok bool) {
	i := z.find(member)
	if i < 0 {
		return 0, 0, false
	}
	return geoDecodeScore(z.ents[i].score)
}

func cmdGeodist(c *Call) {
	toMeter := 1.0
	if len(c.Args) == 5 {
		var err error
		if toMeter, err = parseGeoUnit(c.Args[4]); err != nil {
			c.Err(err)
			return
		}
	} else if len(c.Args) > 5 {
		c.Err(ErrSyntax)
		return
	}
	z, _, err := loadZset(c.Tx, c.Args[1], true)
	if err != nil {
		c.Err(err)
		return
	}
	if z == nil {
		c.W.Null()
		return
	}
	lon1, lat1, ok1 := geoMemberPos(z, c.Args[2])
	lon2, lat2, ok2 := geoMemberPos(z, c.Args[3])
	if !ok1 || !ok2 {
		c.W.Null()
		return
	}
	c.W.BulkString(geoFixed4(geoDistance(lon1, lat1, lon2, lat2) / toMeter))
}

func cmdGeohash(c *Call) {
	z, _, err := loadZset(c.Tx, c.Args[1], true)
	if err != nil {
		c.Err(err)
		return
	}
	c.W.Array(len(c.Args) - 2)
	for _, m := range c.Args[2:] {
		if z == nil {
			c.W.Null()
			continue
		}
		if long, lat, ok := geoMemberPos(z, m); ok {
			c.W.BulkString(geohashString(long, lat))
		} else {
			c.W.Null()
		}
	}
}

func cmdGeopos(c *Call) {
	z, _, err := loadZset(c.Tx, c.Args[1], true)
	if err != nil {
		c.Err(err)
		return
	}
	c.W.Array(len(c.Args) - 2)
	for _, m := range c.Args[2:] {
		if z == nil {
			c.W.NullArray()
			continue
		}
		if long, lat, ok := geoMemberPos(z, m); ok {
			c.W.Array(2)
			replyHumanDouble(c, long)
			replyHumanDouble(c, lat)
		} else {
			c.W.NullArray()
		}
	}
}

// DoubleTexter is implemented by a Writer that can send a RESP3 double
// with a given text: Redis writes coordinates with 17 decimals
// (addReplyHumanLongDouble), not the shortest text Double writes.
type DoubleTexter interface {
	DoubleText(f float64, text string)
}

// replyHumanDouble is addReplyHumanLongDouble: a bulk string in RESP2, a
// double in RESP3, with ld2string's human text in both.
func replyHumanDouble(c *Call, f float64) {
	text := geoHumanFloat(f)
	if c.S.Proto == 2 {
		c.W.BulkString(text)
		return
	}
	if w, ok := c.W.(DoubleTexter); ok {
		w.DoubleText(f, text)
		return
	}
	c.W.Double(f)
}

// geoSearch flags (georadiusGeneric's).
const (
	geoFromCoords  = 1 << iota // GEORADIUS: long lat radius unit
	geoFromMember              // GEORADIUSBYMEMBER: member radius unit
	geoNoStore                 // the _RO variants: no STORE/STOREDIST
	geoSearchCmd               // GEOSEARCH's FROM.../BY... options
	geoSearchStore             // GEOSEARCHSTORE: dst src, STOREDIST flag
)

// geoPoint is a search hit.
type geoPoint struct {
	long, lat, dist, score float64
	member                 string
}

// geoSearch is georadiusGeneric: GEORADIUS, GEORADIUSBYMEMBER, their _RO
// variants, GEOSEARCH and GEOSEARCHSTORE; src is the source key's index.
func geoSearch(c *Call, src int, flags int) {
	z, _, err := loadZset(c.Tx, c.Args[src], true)
	if err != nil {
		c.Err(err)
		return
	}
	var shape geoShape
	var storeKey []byte
	storeDist := false
	base := 0
	switch {
	case flags&geoFromCoords != 0:
		base = 6
		if shape.long, shape.lat, err = parseLongLat(c.Args[2:]); err == nil {
			shape.radius, shape.conversion, err = parseGeoRadius(c.Args[4:])
		}
	case flags&geoFromMember != 0:
		base = 5
		if z != nil {
			var ok bool
			if shape.long, shape.lat, ok = geoMemberPos(z, c.Args[2]); !ok {
				err = errGeoMember
			} else {
				shape.radius, shape.conversion, err = parseGeoRadius(c.Args[3:])
			}
		}
	default:
		base = 2
		if flags&geoSearchStore != 0 {
			base = 3
			storeKey = c.Args[1]
		}
	}
	if err != nil {
		c.Err(err)
		return
	}

	var withDist, withHash, withCoord, any bool
	var fromMember, fromLoc, byRadius, byBox bool
	sortDir := 0 // 0 none, 1 asc, 2 desc
	var count int64
	rest := c.Args[base:]
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		more := len(rest) - i - 1 // arguments after a
		search := flags&geoSearchCmd != 0
		canStore := flags&geoNoStore == 0 && !search
		switch {
		case EqualFold(a, "withdist"):
			withDist = true
		case EqualFold(a, "withhash"):
			withHash = true
		case EqualFold(a, "withcoord"):
			withCoord = true
		case EqualFold(a, "any"):
			any = true
		case EqualFold(a, "asc"):
			sortDir = 1
		case EqualFold(a, "desc"):
			sortDir = 2
		case EqualFold(a, "count") && more >= 1:
			n, ok := ParseInt(rest[i+1])
			if !ok {
				c.Err(ErrNotInteger)
				return
			}
			if n <= 0 {
				c.Err(errGeoCount)
				return
			}
			count = n
			i++
		case EqualFold(a, "store") && more >= 1 && canStore:
			storeKey, storeDist = rest[i+1], false
			i++
		case EqualFold(a, "storedist") && more >= 1 && canStore:
			storeKey, storeDist = rest[i+1], true
			i++
		case EqualFold(a, "storedist") && search && flags&geoSearchStore != 0:
			storeDist = true
		case EqualFold(a, "frommember") && more >= 1 && search && !fromLoc:
			if z != nil {
				var ok bool
				if shape.long, shape.lat, ok = geoMemberPos(z, rest[i+1]); !ok {
					c.Err(errGeoMember)
					return
				}
			}
			fromMember = true
			i++
		case EqualFold(a, "fromlonlat") && more >= 2 && search && !fromMember:
			if shape.long, shape.lat, err = parseLongLat(rest[i+1:]); err != nil {
				c.Err(err)
				return
			}
			fromLoc = true
			i += 2
		case EqualFold(a, "byradius") && more >= 2 && search && !byBox:
			if shape.radius, shape.conversion, err = parseGeoRadius(rest[i+1:]); err != nil {
				c.Err(err)
				return
			}
			shape.box = false
			byRadius = true
			i += 2
		case EqualFold(a, "bybox") && more >= 3 && search && !byRadius:
			if shape.width, shape.height, shape.conversion, err = parseGeoBox(rest[i+1:]); err != nil {
				c.Err(err)
				return
			}
			shape.box = true
			byBox = true
			i += 3
		default:
			c.Err(ErrSyntax)
			return
		}
	}

	if storeKey != nil && (withDist || withHash || withCoord) {
		what := "STORE option in GEORADIUS"
		if flags&geoSearchStore != 0 {
			what = "GEOSEARCHSTORE"
		}
		c.Errf("ERR %s is not compatible with WITHDIST, WITHHASH and WITHCOORD options", what)
		return
	}
	if flags&geoSearchCmd != 0 && !(fromMember || fromLoc) {
		c.Errf("ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for %s", c.Args[0])
		return
	}
	if flags&geoSearchCmd != 0 && !(byRadius || byBox) {
		c.Errf("ERR exactly one of BYRADIUS and BYBOX can be specified for %s", c.Args[0])
		return
	}
	if any && count == 0 {
		c.Err(errGeoAnyNeedsCount)
		return
	}

	event := "georadiusstore"
	if flags&geoSearchCmd != 0 {
		event = "geosearchstore"
	}
	if z == nil {
		if storeKey != nil {
			storeZsetResult(c, storeKey, nil, event)
		} else {
			c.W.Array(0)
		}
		return
	}
	// COUNT without an order means the closest ones, unless ANY.
	if count != 0 && sortDir == 0 && !any {
		sortDir = 1
	}
	limit := 0
	if any {
		limit = int(count)
	}
	points := z.geoMembersInAreas(&shape, shape.searchAreas(), limit)
	if len(points) == 0 && storeKey == nil {
		c.W.Array(0)
		return
	}
	returned := len(points)
	if count != 0 && int64(returned) > count {
		returned = int(count)
	}
	if sortDir != 0 {
		var less func(a, b *geoPoint) int
		if sortDir == 1 {
			less = geoCmpAsc
		} else {
			less = func(a, b *geoPoint) int { return -geoCmpAsc(a, b) }
		}
		if returned == len(points) {
			// glibc's qsort is a merge sort: stable.
			sort.SliceStable(points, func(i, j int) bool { return less(&points[i], &points[j]) < 0 })
		} else {
			pqsort(points, less, 0, returned-1)
		}
	}
	points = points[:returned]
	for i := range points {
		points[i].dist /= shape.conversion
	}

	if storeKey != nil {
		ents := make([]zent, len(points))
		for i, p := range points {
			ents[i] = zent{member: p.member, score: p.score}
			if storeDist {
				ents[i].score = p.dist
			}
		}
		sort.Slice(ents, func(i, j int) bool { return zless(ents[i], ents[j]) })
		if len(ents) == 0 {
			storeZsetResult(c, storeKey, nil, event) // deletes, "del" event
			return
		}
		// Unlike ZUNIONSTORE's, georadiusGeneric's event comes before
		// its reply (which a RESP3 client subscribed to its own events
		// sees).
		storeZset(c.Tx, storeKey, zsetOfResult(ents), 0)
		c.Tx.Notify(NotifyZset, event, storeKey)
		c.W.Int(int64(len(ents)))
		return
	}
	opts := 0
	for _, on := range []bool{withDist, withCoord, withHash} {
		if on {
			opts++
		}
	}
	c.W.Array(len(points))
	for _, p := range points {
		if opts > 0 {
			c.W.Array(opts + 1)
		}
		c.W.BulkString(p.member)
		if withDist {
			c.W.BulkString(geoFixed4(p.dist))
		}
		if withHash {
			c.W.Int(int64(p.score))
		}
		if withCoord {
			c.W.Array(2)
			replyHumanDouble(c, p.long)
			replyHumanDouble(c, p.lat)
		}
	}
}

// parseGeoRadius is extractDistanceOrReply: radius unit.
func parseGeoRadius(args [][]byte) (radius, conversion float64, err error) {
	radius, ok := parseScore(args[0])
	if !ok {
		return 0, 0, errGeoRadius
	}
	if radius < 0 {
		return 0, 0, errGeoRadiusNeg
	}
	conversion, err = parseGeoUnit(args[1])
	return radius, conversion, err
}

// parseGeoBox is extractBoxOrReply: width height unit.
func parseGeoBox(args [][]byte) (width, height, conversion float64, err error) {
	width, ok := parseScore(args[0])
	if !ok {
		return 0, 0, 0, errGeoWidth
	}
	if height, ok = parseScore(args[1]); !ok {
		return 0, 0, 0, errGeoHeight
	}
	if height < 0 || width < 0 {
		return 0, 0, 0, errGeoBoxNeg
	}
	conversion, err = parseGeoUnit(args[2])
	return width, height, conversion, err
}

func geoCmpAsc(a, b *geoPoint) int {
	switch {
	case a.dist > b.dist:
		return 1
	case a.dist == b.dist:
		return 0
	}
	return -1
}

// geoMembersInAreas is membersOfAllNeighbors: the members in each box in
// turn, skipping zero boxes and a box equal to the one searched before it
// (huge radii make neighbours repeat); limit > 0 stops at that many hits.
func (z *zsetObj) geoMembersInAreas(shape *geoShape, areas [9]geoBits, limit int) []geoPoint {
	var out []geoPoint
	last := 0
	for i, h := range areas {
		if h.isZero() {
			continue
		}
		// Like Redis, "the previous one" is never the centre box (index 0).
		if last != 0 && h == areas[last] {
			continue
		}
		if len(out) > 0 && limit > 0 && len(out) >= limit {
			break
		}
		out = z.geoMembersInBox(shape, h, out, limit)
		last = i
	}
	return out
}

// geoMembersInBox is membersOfGeoHashBox: the members whose scores fall in
// the box's [min, max) score range and in the shape.
func (z *zsetObj) geoMembersInBox(shape *geoShape, h geoBits, out []geoPoint, limit int) []geoPoint {
	from := float64(h.align52())
	h.bits++
	to := float64(h.align52())
	i := sort.Search(len(z.ents), func(i int) bool { return z.ents[i].score >= from })
	for ; i < len(z.ents); i++ {
		e := &z.ents[i]
		if !(e.score < to) {
			break
		}
		long, lat, ok := geoDecodeScore(e.score)
		if ok {
			if d, in := shape.contains(long, lat); in {
				out = append(out, geoPoint{long: long, lat: lat, dist: d, score: e.score, member: e.member})
			}
		}
		if len(out) > 0 && limit > 0 && len(out) >= limit {
			break
		}
	}
	return out
}

// pqsort is Redis's partial quicksort (pqsort.c, Bentley and McIlroy's
// qsort that only recurses into parts overlapping [lo, hi]): with ties,
// which of them lands in the first COUNT places depends on its exact
// moves, so they are the same here.
func pqsort(a []geoPoint, cmp func(x, y *geoPoint) int, lo, hi int) {
	pqsortRange(a, 0, len(a), cmp, lo, hi)
}

func pqsortRange(a []geoPoint, base, n int, cmp func(x, y *geoPoint) int, lo, hi int) {
	swap := func(i, j int) { a[i], a[j] = a[j], a[i] }
	vecswap := func(i, j, k int) {
		for ; k > 0; k-- {
			swap(i, j)
			i++
			j++
		}
	}
	med3 := func(x, y, z int) int {
		if cmp(&a[x], &a[y]) < 0 {
			if cmp(&a[y], &a[z]) < 0 {
				return y
			}
			if cmp(&a[x], &a[z]) < 0 {
				return z
			}
			return x
		}
		if cmp(&a[y], &a[z]) > 0 {
			return y
		}
		if cmp(&a[x], &a[z]) < 0 {
			return x
		}
		return z
	}
	for {
		if n < 7 {
			for pm := base + 1; pm < base+n; pm++ {
				for pl := pm; pl > base && cmp(&a[pl-1], &a[pl]) > 0; pl-- {
					swap(pl, pl-1)
				}
			}
			return
		}
		pm := base + n/2
		if n > 7 {
			pl, pn := base, base+n-1
			if n > 40 {
				d := n / 8
				pl = med3(pl, pl+d, pl+2*d)
				pm = med3(pm-d, pm, pm+d)
				pn = med3(pn-2*d, pn-d, pn)
			}
			pm = med3(pl, pm, pn)
		}
		swap(base, pm)
		pa, pb := base+1, base+1
		pc, pd := base+n-1, base+n-1
		for {
			for pb <= pc {
				r := cmp(&a[pb], &a[base])
				if r > 0 {
					break
				}
				if r == 0 {
					swap(pa, pb)
					pa++
				}
				pb++
			}
			for pb <= pc {
				r := cmp(&a[pc], &a[base])
				if r < 0 {
					break
				}
				if r == 0 {
					swap(pc, pd)
					pd--
				}
				pc--
			}
			if pb > pc {
				break
			}
			swap(pb, pc)
			pb++
			pc--
		}
		pn := base + n
		r := min(pa-base, pb-pa)
		vecswap(base, pb-r, r)
		r = min(pd-pc, pn-pd-1)
		vecswap(pb, pn-r, r)
		overlaps := func(s, cnt int) bool {
			e := s + cnt - 1
			return !((lo < s && hi < s) || (lo > e && hi > e))
		}
		if r := pb - pa; r > 1 && overlaps(base, r) {
			pqsortRange(a, base, r, cmp, lo, hi)
		}
		r = pd - pc
		if r <= 1 {
			return
		}
		base, n = pn-r, r
		if !overlaps(base, n) {
			return
		}
	}
}
