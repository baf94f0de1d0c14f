package engine

import (
	"math"
	"math/big"
)

// Correctly rounded sin, cos and asin for the geo commands. Redis calls
// glibc's libm, whose results are the correctly rounded ones (nearly
// always); Go's math package is off by an ulp for a fifth of the inputs,
// which shows in distances, stored STOREDIST scores and radius borders. So
// these evaluate in double-double arithmetic (about 106 bits) and round
// once at the end.

// dd is an unevaluated sum hi + lo with |lo| <= ulp(hi)/2.
type dd struct{ hi, lo float64 }

func twoSum(a, b float64) dd {
	s := a + b
	bb := float64(s - a)
	return dd{s, float64(a-float64(s-bb)) + float64(b-bb)}
}

func quickTwoSum(a, b float64) dd {
	s := a + b
	return dd{s, b - float64(s-a)}
}

func twoProd(a, b float64) dd {
	p := a * b
	return dd{p, math.FMA(a, b, -p)}
}

func (x dd) add(y dd) dd {
	s := twoSum(x.hi, y.hi)
	t := twoSum(x.lo, y.lo)
	s.lo += t.hi
	s = quickTwoSum(s.hi, s.lo)
	s.lo += t.lo
	return quickTwoSum(s.hi, s.lo)
}

func (x dd) neg() dd { return dd{-x.hi, -x.lo} }

func (x dd) mul(y dd) dd {
	p := twoProd(x.hi, y.hi)
	p.lo += float64(x.hi*y.lo) + float64(x.lo*y.hi)
	return quickTwoSum(p.hi, p.lo)
}

func (x dd) mulF(f float64) dd {
	p := twoProd(x.hi, f)
	p.lo += float64(x.lo * f)
	return quickTwoSum(p.hi, p.lo)
}

// pio2 is pi/2 as three doubles, 159 bits in all.
var pio2 = func() [3]float64 {
	const digits = "1.5707963267948966192313216916397514420985846996875529104874722961539082031431044993140174126710585339"
	f, _, _ := big.ParseFloat(digits, 10, 300, big.ToNearestEven)
	var p [3]float64
	for i := range p {
		p[i], _ = f.Float64()
		f.Sub(f, new(big.Float).SetFloat64(p[i]))
	}
	return p
}()

// reduce returns r = x - k*pi/2 in double-double and k mod 4; ok is false
// for arguments too large for this reduction.
func reduce(x float64) (r dd, quadrant int, ok bool) {
	if math.Abs(x) <= math.Pi/4 {
		return dd{x, 0}, 0, true
	}
	k := math.RoundToEven(x / pio2[0])
	if math.Abs(k) > 1<<20 {
		return dd{}, 0, false
	}
	r = twoProd(k, pio2[0]).neg().add(dd{x, 0})
	r = r.add(twoProd(k, pio2[1]).neg())
	r = r.add(dd{-k * pio2[2], 0})
	return r, int(int64(k) & 3), true
}

// invFact[k] is (-1)^k/(2k+1)! and invFactCos[k] (-1)^k/(2k)!, in
// double-double, for the Taylor series (Horner's scheme).
var invFact, invFactCos = func() (s, c [16]dd) {
	f := new(big.Float).SetPrec(300).SetInt64(1)
	for n := int64(1); n <= 33; n++ {
		f.Mul(f, new(big.Float).SetInt64(n))
		inv := new(big.Float).SetPrec(300).Quo(big.NewFloat(1).SetPrec(300), f)
		if n%2 == 0 && n/2 < 16 {
			c[n/2] = ddFromBig(inv, (n/2)%2 == 1)
		} else if n%2 == 1 && n/2 < 16 {
			s[n/2] = ddFromBig(inv, (n/2)%2 == 1)
		}
	}
	c[0] = dd{1, 0}
	return s, c
}()

func ddFromBig(f *big.Float, neg bool) dd {
	hi, _ := f.Float64()
	lo, _ := new(big.Float).Sub(f, new(big.Float).SetFloat64(hi)).Float64()
	if neg {
		return dd{-hi, -lo}
	}
	return dd{hi, lo}
}

// sinSeries and cosSeries are Taylor series for |r| <= ~pi/4, to 2^-106.
func sinSeries(r dd) dd {
	r2 := r.mul(r)
	sum := invFact[15]
	for k := 14; k >= 0; k-- {
		sum = sum.mul(r2).add(invFact[k])
	}
	return sum.mul(r)
}

func cosSeries(r dd) dd {
	r2 := r.mul(r)
	sum := invFactCos[15]
	for k := 14; k >= 0; k-- {
		sum = sum.mul(r2).add(invFactCos[k])
	}
	return sum
}

func sinDD(x float64) (dd, bool) {
	r, q, ok := reduce(x)
	if !ok {
		return dd{}, false
	}
	switch q {
	case 0:
		return sinSeries(r), true
	case 1:
		return cosSeries(r), true
	case 2:
		return sinSeries(r).neg(), true
	}
	return cosSeries(r).neg(), true
}

func cosDD(x float64) (dd, bool) {
	r, q, ok := reduce(x)
	if !ok {
		return dd{}, false
	}
	switch q {
	case 0:
		return cosSeries(r), true
	case 1:
		return sinSeries(r).neg(), true
	case 2:
		return cosSeries(r).neg(), true
	}
	return sinSeries(r), true
}

// geoSin is sin(x) correctly rounded (math.Sin past 2^20*pi/2).
func geoSin(x float64) float64 {
	if x == 0 || math.IsInf(x, 0) || math.IsNaN(x) {
		return math.Sin(x)
	}
	s, ok := sinDD(x)
	if !ok {
		return math.Sin(x)
	}
	return s.hi + s.lo
}

// geoCos is cos(x) correctly rounded (math.Cos past 2^20*pi/2).
func geoCos(x float64) float64 {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return math.Cos(x)
	}
	c, ok := cosDD(x)
	if !ok {
		return math.Cos(x)
	}
	return c.hi + c.lo
}

// geoAsin is asin(y) correctly rounded: Newton steps on sin(z) = y in
// double-double from Go's estimate.
func geoAsin(y float64) float64 {
	if y == 0 || math.Abs(y) >= 1 || math.IsNaN(y) {
		return math.Asin(y)
	}
	// One step squares Go's error (an ulp or two) well past 2^-106,
	// but for the steep end near 1, which takes a second.
	steps := 1
	if y > 0.99 {
		steps = 2
	}
	z := dd{math.Asin(y), 0}
	for i := 0; i < steps; i++ {
		s, _ := sinDD(z.hi)
		c, _ := cosDD(z.hi)
		// sin(z.hi + z.lo) ~ s + c*z.lo
		f := s.add(c.mulF(z.lo)).add(dd{-y, 0})
		z = z.add(dd{-(f.hi + f.lo) / (c.hi + c.lo), 0})
	}
	return z.hi + z.lo
}
