package engine

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"unsafe"
)

// ParseInt parses a signed 64-bit integer the way Redis's string2ll does:
// an optional '-', then digits, no leading '+', no leading zeros (but "0"),
// no spaces, no overflow.
func ParseInt(b []byte) (int64, bool) {
	n := len(b)
	if n == 0 || n > 20 {
		return 0, false
	}
	if n == 1 && b[0] == '0' {
		return 0, true
	}
	neg := false
	i := 0
	if b[0] == '-' {
		neg = true
		i = 1
		if n == 1 {
			return 0, false
		}
	}
	if b[i] < '1' || b[i] > '9' {
		return 0, false
	}
	var v uint64
	for ; i < n; i++ {
		c := b[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		if v > (math.MaxUint64-9)/10 {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	if neg {
		if v > 1<<63 {
			return 0, false
		}
		return -int64(v), true
	}
	if v > math.MaxInt64 {
		return 0, false
	}
	return int64(v), true
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// FormatFloat prints a double the way Redis 7.0 prints scores and
// INCRBYFLOAT-free doubles (d2string): integral values in range as
// integers, "inf"/"-inf", otherwise %.17g.
func FormatFloat(f float64) string {
	return string(AppendFloat(nil, f))
}

// AppendFloat appends FormatFloat(f) to b.
func AppendFloat(b []byte, f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return append(b, "inf"...)
	case math.IsInf(f, -1):
		return append(b, "-inf"...)
	case math.IsNaN(f):
		return append(b, "nan"...)
	case f == 0:
		if math.Signbit(f) {
			return append(b, "-0"...)
		}
		return append(b, '0')
	}
	// Redis: if the double is an integer in the range where that is exact,
	// print it as a long long.
	const exactLimit = 1 << 52
	if f > -exactLimit && f < exactLimit && f == math.Trunc(f) {
		return strconv.AppendInt(b, int64(f), 10)
	}
	return AppendG17(b, f)
}

// AppendG17 formats like C's printf("%.17g").
func AppendG17(b []byte, f float64) []byte {
	s := strconv.FormatFloat(f, 'e', 16, 64) // d.dddddddddddddddde±XX
	mant, expPart, _ := strings.Cut(s, "e")
	exp, _ := strconv.Atoi(expPart)
	neg := false
	if mant[0] == '-' {
		neg = true
		mant = mant[1:]
	}
	digits := strings.Replace(mant, ".", "", 1) // 17 significant digits
	if neg {
		b = append(b, '-')
	}
	if exp < -4 || exp >= 17 {
		// exponent form: trailing zeros of the fraction removed
		d := strings.TrimRight(digits[1:], "0")
		b = append(b, digits[0])
		if d != "" {
			b = append(b, '.')
			b = append(b, d...)
		}
		b = append(b, 'e')
		if exp < 0 {
			b = append(b, '-')
			exp = -exp
		} else {
			b = append(b, '+')
		}
		if exp < 10 {
			b = append(b, '0')
		}
		return strconv.AppendInt(b, int64(exp), 10)
	}
	if exp >= 0 {
		intPart := digits[:exp+1]
		frac := strings.TrimRight(digits[exp+1:], "0")
		b = append(b, intPart...)
		if frac != "" {
			b = append(b, '.')
			b = append(b, frac...)
		}
		return b
	}
	b = append(b, "0."...)
	for i := 0; i < -exp-1; i++ {
		b = append(b, '0')
	}
	return append(b, strings.TrimRight(digits, "0")...)
}

// AddLongDouble implements INCRBYFLOAT's arithmetic. Redis parses both
// operands with strtold, adds them as x87 80-bit long doubles and prints the
// sum with "%.17Lf" minus trailing zeros (ld2string, LD_STR_HUMAN). A
// big.Float with a 64-bit mantissa rounds exactly like that hardware, so
// results match redis-server digit for digit ("0.1" + "0.2" is "0.3").
func AddLongDouble(cur, incr []byte) (string, error) {
	a, ok := parseLongDouble(cur)
	if !ok {
		return "", ErrNotFloat
	}
	b, ok := parseLongDouble(incr)
	if !ok {
		return "", ErrNotFloat
	}
	if a.IsInf() || b.IsInf() {
		return "", ErrNaNOrInfinity
	}
	sum := new(big.Float).SetPrec(64).SetMode(big.ToNearestEven).Add(a, b)
	s := sum.Text('f', 17)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(s, "0")
		s = strings.TrimSuffix(s, ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s, nil
}

// parseLongDouble parses like strtold as Redis's string2ld uses it: no
// leading space, no trailing garbage, hex mantissas with or without a 'p'
// exponent, the x87 long double range (so 1e400 is fine), inf allowed, NaN
// and out-of-range values refused.
func parseLongDouble(b []byte) (*big.Float, bool) {
	// string2ld copies into a 5120-byte buffer (MAX_LONG_DOUBLE_CHARS).
	if len(b) == 0 || len(b) >= 5120 || isSpace(b[0]) {
		return nil, false
	}
	s := string(b)
	for i := 0; i < len(s); i++ {
		if s[i] == '_' || isSpace(s[i]) {
			return nil, false
		}
	}
	switch strings.ToLower(strings.TrimLeft(s, "+-")) {
	case "nan":
		return nil, false
	case "inf", "infinity":
		f := new(big.Float).SetInf(s[0] == '-')
		return f, true
	}
	f, _, err := big.ParseFloat(s, 0, 64, big.ToNearestEven)
	if err != nil {
		return nil, false
	}
	if f.IsInf() || f.MantExp(nil) > maxLongDoubleExp || (f.Sign() != 0 && f.MantExp(nil) < minLongDoubleExp) {
		return nil, false // strtold reports ERANGE
	}
	return f, true
}

// Binary exponent range of an x87 long double (normal and subnormal).
const (
	maxLongDoubleExp = 16384
	minLongDoubleExp = -16444
)

// EqualFold reports whether b equals the lower-case ASCII word s, ignoring case.
func EqualFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}

// lower writes the lower-case form of b into buf and returns it.
func lower(buf []byte, b []byte) []byte {
	buf = buf[:0]
	for _, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf = append(buf, c)
	}
	return buf
}

// StringBytes returns the bytes of s without copying. They must not be
// modified: only for parsers and matchers that read.
func StringBytes(s string) []byte {
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// b2s returns a string that shares b's memory. Only for lookups that do not
// keep the string.
func b2s(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}
