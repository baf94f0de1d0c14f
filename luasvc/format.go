package luasvc

import (
	"fmt"
	"math"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// strFormat is Lua 5.1's string.format: C printf conversions (c d i o u x
// X e E f g G q s) with flags "-+ #0", width and precision of at most two
// digits each.
func strFormat(L *lua.LState) int {
	top := L.GetTop()
	format := checkString(L, 1, "format")
	arg := 1
	var b []byte
	for i := 0; i < len(format); {
		c := format[i]
		if c != '%' {
			b = append(b, c)
			i++
			continue
		}
		i++
		if i < len(format) && format[i] == '%' {
			b = append(b, '%')
			i++
			continue
		}
		arg++
		if arg > top {
			argError(L, arg, "format", "no value")
		}
		spec, conv, next := scanFormat(L, format, i)
		i = next
		switch conv {
		case 'c':
			ch := byte(toInt(checkNumber(L, arg, "format")))
			if ch != 0 { // C's sprintf result ends at the NUL
				b = append(b, pad(string(ch), spec)...)
			} else if spec.width > 1 && !spec.minus {
				b = append(b, strings.Repeat(" ", spec.width-1)...)
			}
		case 'd', 'i':
			n := int64(toInt(checkNumber(L, arg, "format")))
			b = append(b, fmt.Sprintf(spec.goFormat('d'), n)...)
		case 'o', 'u', 'x', 'X':
			n := uint64(int64(toInt(checkNumber(L, arg, "format"))))
			verb := conv
			if conv == 'u' {
				verb = 'd'
			}
			b = append(b, fmt.Sprintf(spec.goFormat(verb), n)...)
		case 'e', 'E', 'f', 'g', 'G':
			f := checkNumber(L, arg, "format")
			if math.IsInf(f, 0) || math.IsNaN(f) {
				b = append(b, pad(nonFinite(f, spec, conv), spec)...)
				break
			}
			if !spec.hasPrec {
				spec.hasPrec, spec.prec = true, 6
			}
			b = append(b, fmt.Sprintf(spec.goFormat(conv), f)...)
		case 'q':
			b = appendQuoted(b, checkString(L, arg, "format"))
		case 's':
			s := checkString(L, arg, "format")
			if !spec.hasPrec && len(s) >= 100 {
				b = append(b, s...)
				break
			}
			s = cString(s)
			if spec.hasPrec && len(s) > spec.prec {
				s = s[:spec.prec]
			}
			b = append(b, pad(s, spec)...)
		default:
			raise(L, "invalid option '%%%c' to 'format'", conv)
		}
		if len(b) > maxStringBytes {
			raise(L, "resulting string too large")
		}
	}
	L.Push(lua.LString(string(b)))
	return 1
}

type fmtSpec struct {
	minus, plus, space, hash, zero bool
	width                          int
	hasPrec                        bool
	prec                           int
}

// scanFormat reads flags, width and precision after a '%' at i and
// returns them, the conversion character and the index after it.
func scanFormat(L *lua.LState, f string, i int) (fmtSpec, byte, int) {
	var sp fmtSpec
	start := i
	for i < len(f) && strings.IndexByte("-+ #0", f[i]) >= 0 {
		switch f[i] {
		case '-':
			sp.minus = true
		case '+':
			sp.plus = true
		case ' ':
			sp.space = true
		case '#':
			sp.hash = true
		case '0':
			sp.zero = true
		}
		i++
	}
	if i-start >= len("-+ #0")+1 {
		raise(L, "invalid format (repeated flags)")
	}
	digits := func() int {
		n := 0
		for k := 0; k < 2 && i < len(f) && isDigit(f[i]); k++ {
			n = n*10 + int(f[i]-'0')
			i++
		}
		return n
	}
	sp.width = digits()
	if i < len(f) && f[i] == '.' {
		i++
		sp.hasPrec = true
		sp.prec = digits()
	}
	if i < len(f) && isDigit(f[i]) {
		raise(L, "invalid format (width or precision too long)")
	}
	var conv byte
	if i < len(f) {
		conv = f[i]
	}
	return sp, conv, i + 1
}

// goFormat is the Go fmt verb for a C conversion with these flags.
func (sp fmtSpec) goFormat(verb byte) string {
	var sb strings.Builder
	sb.WriteByte('%')
	if sp.minus {
		sb.WriteByte('-')
	}
	if sp.plus {
		sb.WriteByte('+')
	}
	if sp.space {
		sb.WriteByte(' ')
	}
	if sp.hash {
		sb.WriteByte('#')
	}
	// C ignores '0' with '-', and with a precision for integers.
	if sp.zero && !sp.minus && !(sp.hasPrec && (verb == 'd' || verb == 'o' || verb == 'x' || verb == 'X')) {
		sb.WriteByte('0')
	}
	if sp.width > 0 {
		fmt.Fprintf(&sb, "%d", sp.width)
	}
	if sp.hasPrec {
		fmt.Fprintf(&sb, ".%d", sp.prec)
	}
	sb.WriteByte(verb)
	return sb.String()
}

// pad applies width and the '-' flag to an already converted string (C
// counts bytes, Go's fmt counts runes).
func pad(s string, sp fmtSpec) string {
	if len(s) >= sp.width {
		return s
	}
	fill := strings.Repeat(" ", sp.width-len(s))
	if sp.minus {
		return s + fill
	}
	return fill + s
}

// nonFinite is how glibc prints inf and nan.
func nonFinite(f float64, sp fmtSpec, conv byte) string {
	var s string
	switch {
	case math.IsNaN(f):
		s = "nan"
		if math.Signbit(f) {
			s = "-nan"
		}
	case f > 0:
		s = "inf"
	default:
		s = "-inf"
	}
	if s[0] != '-' {
		if sp.plus {
			s = "+" + s
		} else if sp.space {
			s = " " + s
		}
	}
	if conv == 'E' || conv == 'G' {
		s = strings.ToUpper(s)
	}
	return s
}

// appendQuoted is %q: a string Lua can read back.
func appendQuoted(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\', '\n':
			b = append(b, '\\', c)
		case '\r':
			b = append(b, `\r`...)
		case 0:
			b = append(b, `\000`...)
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}
