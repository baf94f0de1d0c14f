package engine

import (
	"bufio"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// Expected values come from redis-server 7.0.15 (GEOADD then ZSCORE,
// GEOPOS, GEOHASH, GEODIST on the same points).

func TestGeoScoreAndDecode(t *testing.T) {
	tests := []struct {
		long, lat       float64
		score           uint64
		posLong, posLat string
		hash            string
	}{
		{13.361389, 38.115556, 3479099956230698, "13.36138933897018433", "38.11555639549629859", "sqc8b49rny0"},
		{15.087269, 37.502669, 3479447370796909, "15.08726745843887329", "37.50266842333162032", "sqdtr74hyu0"},
	}
	for _, tt := range tests {
		score := geoScore(tt.long, tt.lat)
		if uint64(score) != tt.score {
			t.Errorf("geoScore(%v, %v) = %v, want %v", tt.long, tt.lat, uint64(score), tt.score)
		}
		long, lat, ok := geoDecodeScore(score)
		if !ok || geoHumanFloat(long) != tt.posLong || geoHumanFloat(lat) != tt.posLat {
			t.Errorf("decode %v = %s %s, want %s %s", tt.score, geoHumanFloat(long), geoHumanFloat(lat), tt.posLong, tt.posLat)
		}
		if h := geohashString(long, lat); h != tt.hash {
			t.Errorf("geohash = %s, want %s", h, tt.hash)
		}
	}
	// GEODIST Sicily Palermo Catania km: "166.2742".
	l1, a1, _ := geoDecodeScore(3479099956230698)
	l2, a2, _ := geoDecodeScore(3479447370796909)
	if d := geoFixed4(geoDistance(l1, a1, l2, a2) / 1000); d != "166.2742" {
		t.Errorf("distance = %s", d)
	}
}

func TestGeoInterleave(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 1000; i++ {
		x, y := r.Uint32(), r.Uint32()
		v := interleave64(x, y)
		if got := deinterleave64(v); got != uint64(x)|uint64(y)<<32 {
			t.Fatalf("deinterleave(interleave(%x, %x)) = %x", x, y, got)
		}
		if v&0x5555555555555555 != interleave64(x, 0) {
			t.Fatalf("x bits of %x not in the even positions", x)
		}
	}
}

func TestGeoFormats(t *testing.T) {
	fixed := []struct {
		in   float64
		want string
	}{
		{0, "0.0000"}, {0.00004, "0.0000"}, {0.00006, "0.0001"}, // llrint: ties to even
		{1.5, "1.5000"}, {56.44125787, "56.4413"},
		{123456.789, "123456.7890"}, {0.7750, "0.7750"}, {-2.5, "-2.5000"},
	}
	for _, tt := range fixed {
		if got := geoFixed4(tt.in); got != tt.want {
			t.Errorf("geoFixed4(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
	human := []struct {
		in   float64
		want string
	}{
		{0, "0"}, {math.Copysign(0, -1), "0"}, {1, "1"}, {-180, "-180"}, {0.5, "0.5"},
		{13.361389338970184, "13.36138933897018433"}, {math.Inf(1), "inf"}, {1e-20, "0"},
	}
	for _, tt := range human {
		if got := geoHumanFloat(tt.in); got != tt.want {
			t.Errorf("geoHumanFloat(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
	c6 := []struct {
		in   float64
		want string
	}{{200, "200.000000"}, {math.Inf(1), "inf"}, {math.Inf(-1), "-inf"}, {-0.0000005, "-0.000000"}}
	for _, tt := range c6 {
		if got := cFloat6(tt.in); got != tt.want {
			t.Errorf("cFloat6(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestGeoScoreBits: C's (uint64_t) cast on x86-64.
func TestGeoScoreBits(t *testing.T) {
	tests := []struct {
		in   float64
		want uint64
	}{
		{0, 0}, {5.9, 5}, {-1, math.MaxUint64}, {-1.5, math.MaxUint64}, {1 << 63, 1 << 63},
		{1 << 64, 0}, {math.Inf(1), 0}, {math.Inf(-1), 1 << 63}, {-1e30, 1 << 63},
	}
	for _, tt := range tests {
		if got := geoScoreBits(tt.in); got != tt.want {
			t.Errorf("geoScoreBits(%v) = %x, want %x", tt.in, got, tt.want)
		}
	}
}

// TestGeoPqsort: the partial sort leaves the smallest COUNT distances,
// sorted, in front, whatever the input.
func TestGeoPqsort(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 500; i++ {
		n := 1 + r.IntN(200)
		pts := make([]geoPoint, n)
		for j := range pts {
			pts[j].dist = float64(r.IntN(50)) // many ties
		}
		want := make([]float64, n)
		for j := range pts {
			want[j] = pts[j].dist
		}
		sort.Float64s(want)
		k := 1 + r.IntN(n)
		pqsort(pts, geoCmpAsc, 0, k-1)
		for j := 0; j < k; j++ {
			if pts[j].dist != want[j] {
				t.Fatalf("n=%d k=%d: position %d has %v, want %v", n, k, j, pts[j].dist, want[j])
			}
		}
	}
}

// TestGeoMathCorrectlyRounded checks sin, cos and asin against a 300-bit
// Taylor series.
func TestGeoMathCorrectlyRounded(t *testing.T) {
	series := func(x float64, sin bool) float64 {
		z := new(big.Float).SetPrec(300).SetFloat64(x)
		x2 := new(big.Float).SetPrec(300).Mul(z, z)
		term := new(big.Float).SetPrec(300).SetInt64(1)
		k := int64(0)
		if sin {
			term.Set(z)
			k = 1
		}
		sum := new(big.Float).SetPrec(300).Set(term)
		for ; k < 120; k += 2 {
			term.Mul(term, x2)
			term.Quo(term, new(big.Float).SetInt64((k+1)*(k+2)))
			term.Neg(term)
			sum.Add(sum, term)
		}
		f, _ := sum.Float64()
		return f
	}
	r := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 2000; i++ {
		x := (r.Float64()*2 - 1) * 3.2
		if got, want := geoSin(x), series(x, true); got != want {
			t.Errorf("geoSin(%v) = %v, want %v", x, got, want)
		}
		if got, want := geoCos(x), series(x, false); got != want {
			t.Errorf("geoCos(%v) = %v, want %v", x, got, want)
		}
	}
}

// TestGeoMathMatchesGlibc compares with glibc's results (testdata): they
// agree but for the rare inputs where glibc itself is not correctly
// rounded (about one in a thousand).
func TestGeoMathMatchesGlibc(t *testing.T) {
	f, err := os.Open("testdata/libm_geo.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	parse := func(s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	n, bad := 0, 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		w := strings.Fields(sc.Text())
		x, y := parse(w[0]), parse(w[3])
		for _, ok := range []bool{geoSin(x) == parse(w[1]), geoCos(x) == parse(w[2]), geoAsin(y) == parse(w[4])} {
			n++
			if !ok {
				bad++
			}
		}
	}
	if n < 2000 || bad > n/200 {
		t.Errorf("%d of %d results differ from glibc's", bad, n)
	}
}

// TestGeoSearchAreas: the step of the boxes a search visits (the
// differential tests check which members they yield): step 6 for a
// 200 km radius at latitude 37, step 1 for a huge one, 26 for radius 0,
// two steps coarser past latitude 80.
func TestGeoSearchAreas(t *testing.T) {
	small := geoShape{long: 15, lat: 37, radius: 200, conversion: 1000}
	areas := small.searchAreas()
	if areas[0].step != 6 {
		t.Errorf("step for 200 km = %d, want 6", areas[0].step)
	}
	huge := geoShape{long: 0, lat: 0, radius: 20000, conversion: 1000}
	areas = huge.searchAreas()
	if areas[0].step != 1 {
		t.Errorf("step for 20000 km = %d, want 1", areas[0].step)
	}
	if got := geoEstimateSteps(0, 0); got != 26 {
		t.Errorf("steps for radius 0 = %d", got)
	}
	if a, b := geoEstimateSteps(1000, 0), geoEstimateSteps(1000, 81); a-b != 2 {
		t.Errorf("steps near the poles: %d vs %d", a, b)
	}
}
