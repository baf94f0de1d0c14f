package engine

import (
	"math"
	"strconv"
)

// Geohashes as Redis 7.0 computes them (geohash.c, geohash_helper.c): a
// point is a 52-bit interleaved hash of its longitude and latitude, stored
// as a sorted set score. Every floating-point step follows Redis's order of
// operations, so scores, decoded positions, distances and the boxes a
// search visits are the same bit for bit.

const (
	geoLatMin  = -85.05112878
	geoLatMax  = 85.05112878
	geoLongMin = -180.0
	geoLongMax = 180.0
	geoStepMax = 26 // 52 bits

	earthRadiusMeters = 6372797.560856
	mercatorMax       = 20037726.37
	degToRad          = math.Pi / 180.0 // Redis's D_R
)

// geoBits is a geohash of step*2 bits (GeoHashBits). The zero value (no
// bits, step 0) marks a neighbour a search skips.
type geoBits struct {
	bits uint64
	step uint
}

func (h geoBits) isZero() bool { return h.bits == 0 && h.step == 0 }

// geoRange is one coordinate's [min, max].
type geoRange struct{ min, max float64 }

// geoArea is the box a hash stands for.
type geoArea struct {
	long, lat geoRange
}

var (
	geoLongRange = geoRange{geoLongMin, geoLongMax}
	geoLatRange  = geoRange{geoLatMin, geoLatMax}
)

// interleave64 puts x's bits in the even positions and y's in the odd ones.
func interleave64(xlo, ylo uint32) uint64 {
	b := [...]uint64{0x5555555555555555, 0x3333333333333333, 0x0F0F0F0F0F0F0F0F,
		0x00FF00FF00FF00FF, 0x0000FFFF0000FFFF}
	s := [...]uint{1, 2, 4, 8, 16}
	x, y := uint64(xlo), uint64(ylo)
	for i := 4; i >= 0; i-- {
		x = (x | x<<s[i]) & b[i]
		y = (y | y<<s[i]) & b[i]
	}
	return x | y<<1
}

// deinterleave64 is interleave64's inverse: the even bits in the low half,
// the odd ones in the high half.
func deinterleave64(v uint64) uint64 {
	b := [...]uint64{0x5555555555555555, 0x3333333333333333, 0x0F0F0F0F0F0F0F0F,
		0x00FF00FF00FF00FF, 0x0000FFFF0000FFFF, 0x00000000FFFFFFFF}
	s := [...]uint{0, 1, 2, 4, 8, 16}
	x, y := v, v>>1
	for i := 0; i < 6; i++ {
		x = (x | x>>s[i]) & b[i]
		y = (y | y>>s[i]) & b[i]
	}
	return x | y<<32
}

// geohashEncode is geohashEncode: ok is false outside the WGS84 limits or
// the given ranges.
func geohashEncode(longR, latR geoRange, long, lat float64, step uint) (geoBits, bool) {
	if step > 32 || step == 0 {
		return geoBits{}, false
	}
	if long > geoLongMax || long < geoLongMin || lat > geoLatMax || lat < geoLatMin {
		return geoBits{}, false
	}
	if lat < latR.min || lat > latR.max || long < longR.min || long > longR.max {
		return geoBits{}, false
	}
	latOff := (lat - latR.min) / (latR.max - latR.min)
	longOff := (long - longR.min) / (longR.max - longR.min)
	latOff *= float64(uint64(1) << step)
	longOff *= float64(uint64(1) << step)
	return geoBits{bits: interleave64(uint32(latOff), uint32(longOff)), step: step}, true
}

// geohashDecode is the box of hash; ok is false for the zero hash.
func geohashDecode(longR, latR geoRange, h geoBits) (geoArea, bool) {
	if h.isZero() {
		return geoArea{}, false
	}
	sep := deinterleave64(h.bits)
	latScale := latR.max - latR.min
	longScale := longR.max - longR.min
	ilato := uint32(sep)
	ilono := uint32(sep >> 32)
	div := float64(uint64(1) << h.step)
	var a geoArea
	// float64(...) keeps Go from fusing a multiply and an add into an
	// FMA (it may on arm64): C rounds each step.
	a.lat.min = latR.min + float64((float64(ilato)*1.0/div)*latScale)
	a.lat.max = latR.min + float64(((float64(ilato)+1)*1.0/div)*latScale)
	a.long.min = longR.min + float64((float64(ilono)*1.0/div)*longScale)
	a.long.max = longR.min + float64(((float64(ilono)+1)*1.0/div)*longScale)
	return a, true
}

// geoDecodeScore is decodeGeohash: the centre of a score's box, clamped to
// the limits.
func geoDecodeScore(score float64) (long, lat float64, ok bool) {
	a, ok := geohashDecode(geoLongRange, geoLatRange, geoBits{bits: geoScoreBits(score), step: geoStepMax})
	if !ok {
		return 0, 0, false
	}
	long = (a.long.min + a.long.max) / 2
	long = math.Max(math.Min(long, geoLongMax), geoLongMin)
	lat = (a.lat.min + a.lat.max) / 2
	lat = math.Max(math.Min(lat, geoLatMax), geoLatMin)
	return long, lat, true
}

// geoScore is the score GEOADD stores for a valid position.
func geoScore(long, lat float64) float64 {
	h, _ := geohashEncode(geoLongRange, geoLatRange, long, lat, geoStepMax)
	return float64(h.align52())
}

func (h geoBits) align52() uint64 { return h.bits << (52 - h.step*2) }

// moveX moves the hash one box east (d > 0) or west (d < 0), wrapping.
func (h *geoBits) moveX(d int) {
	if d == 0 {
		return
	}
	x := h.bits & 0xaaaaaaaaaaaaaaaa
	y := h.bits & 0x5555555555555555
	zz := uint64(0x5555555555555555) >> (64 - h.step*2)
	if d > 0 {
		x += zz + 1
	} else {
		x |= zz
		x -= zz + 1
	}
	x &= 0xaaaaaaaaaaaaaaaa >> (64 - h.step*2)
	h.bits = x | y
}

// moveY moves the hash one box north (d > 0) or south (d < 0), wrapping.
func (h *geoBits) moveY(d int) {
	if d == 0 {
		return
	}
	x := h.bits & 0xaaaaaaaaaaaaaaaa
	y := h.bits & 0x5555555555555555
	zz := uint64(0xaaaaaaaaaaaaaaaa) >> (64 - h.step*2)
	if d > 0 {
		y += zz + 1
	} else {
		y |= zz
		y -= zz + 1
	}
	y &= 0x5555555555555555 >> (64 - h.step*2)
	h.bits = x | y
}

// geoNeighbors are a hash's eight neighbours, in the order a search visits
// them after the hash itself: N, S, E, W, NE, NW, SE, SW.
type geoNeighbors [8]geoBits

const (
	nbNorth = iota
	nbSouth
	nbEast
	nbWest
	nbNorthEast
	nbNorthWest
	nbSouthEast
	nbSouthWest
)

func geohashNeighbors(h geoBits) geoNeighbors {
	moves := [8][2]int{{0, 1}, {0, -1}, {1, 0}, {-1, 0}, {1, 1}, {-1, 1}, {1, -1}, {-1, -1}}
	var n geoNeighbors
	for i, m := range moves {
		n[i] = h
		n[i].moveX(m[0])
		n[i].moveY(m[1])
	}
	return n
}

// geoEstimateSteps is geohashEstimateStepsByRadius.
func geoEstimateSteps(rangeMeters, lat float64) uint {
	if rangeMeters == 0 {
		return 26
	}
	step := 1
	for rangeMeters < mercatorMax {
		rangeMeters *= 2
		step++
	}
	step -= 2
	if lat > 66 || lat < -66 {
		step--
		if lat > 80 || lat < -80 {
			step--
		}
	}
	step = max(1, min(step, 26))
	return uint(step)
}

// geoShape is a search area: a circle of radius, or a width x height box,
// in the unit whose size in meters is conversion, around (long, lat).
type geoShape struct {
	long, lat     float64
	box           bool
	radius        float64
	width, height float64
	conversion    float64
}

// boundingBox is geohashBoundingBox: min long, min lat, max long, max lat.
func (s *geoShape) boundingBox() [4]float64 {
	var height, width float64
	if s.box {
		height = s.conversion * (s.height / 2)
		width = s.conversion * (s.width / 2)
	} else {
		height = s.conversion * s.radius
		width = s.conversion * s.radius
	}
	latDelta := (height / earthRadiusMeters) / degToRad
	longDeltaTop := (width / earthRadiusMeters / geoCos((s.lat+latDelta)*degToRad)) / degToRad
	longDeltaBottom := (width / earthRadiusMeters / geoCos((s.lat-latDelta)*degToRad)) / degToRad
	var b [4]float64
	if s.lat < 0 {
		b[0], b[2] = s.long-longDeltaBottom, s.long+longDeltaBottom
	} else {
		b[0], b[2] = s.long-longDeltaTop, s.long+longDeltaTop
	}
	b[1] = s.lat - latDelta
	b[3] = s.lat + latDelta
	return b
}

// geoSearchAreas is geohashCalculateAreasByShapeWGS84: the hash box around
// the centre and its neighbours (zero where useless), in visiting order.
func (s *geoShape) searchAreas() [9]geoBits {
	bounds := s.boundingBox()
	minLon, minLat, maxLon, maxLat := bounds[0], bounds[1], bounds[2], bounds[3]
	radius := s.radius
	if s.box {
		radius = math.Sqrt(float64((s.width/2)*(s.width/2)) + float64((s.height/2)*(s.height/2)))
	}
	radius *= s.conversion
	steps := geoEstimateSteps(radius, s.lat)
	hash, _ := geohashEncode(geoLongRange, geoLatRange, s.long, s.lat, steps)
	nb := geohashNeighbors(hash)
	area, _ := geohashDecode(geoLongRange, geoLatRange, hash)

	// A step too coarse near the search area's edge: one of the
	// neighbours does not reach past the bounding box.
	north, _ := geohashDecode(geoLongRange, geoLatRange, nb[nbNorth])
	south, _ := geohashDecode(geoLongRange, geoLatRange, nb[nbSouth])
	east, _ := geohashDecode(geoLongRange, geoLatRange, nb[nbEast])
	west, _ := geohashDecode(geoLongRange, geoLatRange, nb[nbWest])
	decrease := north.lat.max < maxLat || south.lat.min > minLat ||
		east.long.max < maxLon || west.long.min > minLon
	if steps > 1 && decrease {
		steps--
		hash, _ = geohashEncode(geoLongRange, geoLatRange, s.long, s.lat, steps)
		nb = geohashNeighbors(hash)
		area, _ = geohashDecode(geoLongRange, geoLatRange, hash)
	}
	if steps >= 2 {
		if area.lat.min < minLat {
			nb[nbSouth], nb[nbSouthWest], nb[nbSouthEast] = geoBits{}, geoBits{}, geoBits{}
		}
		if area.lat.max > maxLat {
			nb[nbNorth], nb[nbNorthEast], nb[nbNorthWest] = geoBits{}, geoBits{}, geoBits{}
		}
		if area.long.min < minLon {
			nb[nbWest], nb[nbSouthWest], nb[nbNorthWest] = geoBits{}, geoBits{}, geoBits{}
		}
		if area.long.max > maxLon {
			nb[nbEast], nb[nbSouthEast], nb[nbNorthEast] = geoBits{}, geoBits{}, geoBits{}
		}
	}
	var out [9]geoBits
	out[0] = hash
	copy(out[1:], nb[:])
	return out
}

// contains is geoWithinShape for a decoded point: its distance from the
// centre, and whether it lies in the shape.
func (s *geoShape) contains(long, lat float64) (float64, bool) {
	if !s.box {
		d := geoDistance(s.long, s.lat, long, lat)
		return d, d <= s.radius*s.conversion
	}
	if geoLatDistance(lat, s.lat) > s.height*s.conversion/2 {
		return 0, false
	}
	if geoDistance(long, lat, s.long, lat) > s.width*s.conversion/2 {
		return 0, false
	}
	return geoDistance(s.long, s.lat, long, lat), true
}

func geoLatDistance(lat1, lat2 float64) float64 {
	return earthRadiusMeters * math.Abs(float64(lat2*degToRad)-float64(lat1*degToRad))
}

// geoDistance is geohashGetDistance, the haversine distance in meters.
func geoDistance(lon1, lat1, lon2, lat2 float64) float64 {
	lon1r := float64(lon1 * degToRad)
	lon2r := float64(lon2 * degToRad)
	v := geoSin((lon2r - lon1r) / 2)
	if v == 0.0 {
		return geoLatDistance(lat1, lat2)
	}
	lat1r := float64(lat1 * degToRad)
	lat2r := float64(lat2 * degToRad)
	u := geoSin((lat2r - lat1r) / 2)
	a := float64(u*u) + float64(float64(float64(geoCos(lat1r)*geoCos(lat2r))*v)*v)
	return 2.0 * earthRadiusMeters * geoAsin(math.Sqrt(a))
}

// geohashString is GEOHASH's 11 characters: the position re-encoded with
// the standard latitude range [-90, 90], the last character always '0'.
func geohashString(long, lat float64) string {
	const alphabet = "0123456789bcdefghjkmnpqrstuvwxyz"
	h, _ := geohashEncode(geoRange{-180, 180}, geoRange{-90, 90}, long, lat, 26)
	var buf [11]byte
	for i := 0; i < 10; i++ {
		buf[i] = alphabet[(h.bits>>(52-(uint(i)+1)*5))&0x1f]
	}
	buf[10] = alphabet[0]
	return string(buf[:])
}

// geoFixed4 is fixedpoint_d2string with 4 decimals: distances.
func geoFixed4(d float64) string {
	if d == 0 {
		return "0.0000"
	}
	v := int64(math.RoundToEven(d * 10000))
	neg := v < 0
	u := uint64(v)
	if neg {
		u = -u
	}
	s := strconv.FormatUint(u, 10)
	for len(s) < 5 {
		s = "0" + s
	}
	s = s[:len(s)-4] + "." + s[len(s)-4:]
	if neg {
		s = "-" + s
	}
	return s
}

// geoHumanFloat is ld2string's LD_STR_HUMAN for a double: 17 decimals
// ("%.17Lf"), trailing zeros and dot removed, "-0" made "0".
func geoHumanFloat(f float64) string {
	if math.IsInf(f, 0) {
		if f > 0 {
			return "inf"
		}
		return "-inf"
	}
	b := strconv.AppendFloat(nil, f, 'f', 17, 64)
	l := len(b)
	for b[l-1] == '0' {
		l--
	}
	if b[l-1] == '.' {
		l--
	}
	if l == 2 && b[0] == '-' && b[1] == '0' {
		return "0"
	}
	return string(b[:l])
}

// cFloat6 is C's "%f": six decimals, inf and nan spelled as glibc does.
func cFloat6(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	return strconv.FormatFloat(f, 'f', 6, 64)
}

// geoScoreBits is C's (uint64_t) cast of a score on x86-64, for sets whose
// scores are not all geohashes: negative values wrap, values past 2^64
// become 0.
func geoScoreBits(score float64) uint64 {
	const two63 = 1 << 63
	switch {
	case score >= two63:
		if score >= 2*two63 {
			return 0
		}
		return uint64(int64(score-two63)) ^ (1 << 63)
	case score < -two63 || math.IsNaN(score):
		return 1 << 63
	}
	return uint64(int64(score))
}
