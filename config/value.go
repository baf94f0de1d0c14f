package config

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Normalize checks a value as CONFIG SET and the config file check it and
// returns it as CONFIG GET writes it, or why it is invalid, in Redis's
// words. A Custom value is returned as it is: the part that applies it
// checks it. Normalize does not look at Mode (see Refuses).
func (p *Param) Normalize(v string) (norm, why string) {
	switch p.Kind {
	case Int:
		n, ok := parseInt(v)
		if !ok {
			return "", "argument couldn't be parsed into an integer"
		}
		if why := p.bounds(n); why != "" {
			return "", why
		}
		return strconv.FormatInt(p.clamp(n), 10), ""
	case Bool:
		switch {
		case strings.EqualFold(v, "yes"):
			return "yes", ""
		case strings.EqualFold(v, "no"):
			return "no", ""
		}
		return "", "argument must be 'yes' or 'no'"
	case Enum:
		for _, e := range p.Enum {
			if strings.EqualFold(v, e) {
				return e, ""
			}
		}
		return "", p.enumWhy()
	case Flags:
		return p.normalizeFlags(v)
	case Memory:
		n, ok := ParseMemory(v)
		if !ok {
			return "", "argument must be a memory value"
		}
		if why := p.bounds(n); why != "" {
			return "", why
		}
		return strconv.FormatInt(p.clamp(n), 10), ""
	case MemoryPercent:
		if n, ok := ParseMemory(v); ok {
			if why := p.bounds(n); why != "" {
				return "", why
			}
			return strconv.FormatInt(n, 10), ""
		}
		if len(v) > 1 && v[len(v)-1] == '%' {
			if n, ok := parseInt(v[:len(v)-1]); ok && n >= 0 {
				if -n < p.Min {
					return "", "percentage argument must be less or equal to " + strconv.FormatInt(-p.Min, 10)
				}
				return strconv.FormatInt(n, 10) + "%", ""
			}
		}
		return "", "argument must be a memory or percent value"
	case Octal:
		n, err := strconv.ParseInt(v, 8, 64)
		if err != nil {
			return "", "argument couldn't be parsed as an octal number"
		}
		if n < p.Min || n > p.Max {
			return "", "argument must be between " + strconv.FormatInt(p.Min, 8) + " and " +
				strconv.FormatInt(p.Max, 8) + " inclusive"
		}
		return strconv.FormatInt(n, 8), ""
	case Duration:
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return "", "argument must be a positive duration such as 30s or 5m"
		}
		return d.String(), ""
	case Save:
		return normalizeSave(v)
	case Ints:
		f := strings.Fields(v)
		if len(f) != p.Count {
			return "", "wrong number of arguments"
		}
		for i, x := range f {
			n, err := strconv.ParseInt(x, 10, 64)
			if err != nil || n < p.Min || n > p.Max {
				return "", "Invalid " + p.Name + ", elements must be between " +
					strconv.FormatInt(p.Min, 10) + " and " + strconv.FormatInt(p.Max, 10) + "."
			}
			f[i] = strconv.FormatInt(n, 10)
		}
		return strings.Join(f, " "), ""
	case Percentiles:
		f := strings.Fields(v)
		for i, x := range f {
			n, err := strconv.ParseFloat(x, 64)
			if err != nil || math.IsNaN(n) {
				return "", "Invalid " + p.Name + " parameters"
			}
			if n < 0 || n > 100 {
				return "", p.Name + " parameters should sit between [0.0,100.0]"
			}
			f[i] = strings.TrimRight(strings.TrimRight(strconv.FormatFloat(n, 'f', 6, 64), "0"), ".")
		}
		return strings.Join(f, " "), ""
	case Addresses:
		f := SplitAddresses(v)
		if len(f) == 0 {
			return "", "argument must be one or more addresses"
		}
		if len(f) > 16 {
			return "", "Too many bind addresses specified."
		}
		return strings.Join(f, " "), ""
	}
	return v, ""
}

// Refuses says why lockredis refuses a valid, normalized value: a Fixed
// parameter takes its default only. "" when the value is fine.
func (p *Param) Refuses(norm string) string {
	if p.Mode == Fixed && norm != p.Default {
		return p.Why
	}
	return ""
}

// bounds checks n against Min and Max with Redis's words.
func (p *Param) bounds(n int64) string {
	if n < p.Min || n > p.Max {
		return "argument must be between " + strconv.FormatInt(p.Min, 10) + " and " +
			strconv.FormatInt(p.Max, 10) + " inclusive"
	}
	return ""
}

// clamp brings an accepted value into Clamp.
func (p *Param) clamp(n int64) int64 {
	if p.Clamp == [2]int64{} {
		return n
	}
	n = max(n, p.Clamp[0])
	if p.Clamp[1] != 0 {
		n = min(n, p.Clamp[1])
	}
	return n
}

func (p *Param) enumWhy() string {
	return "argument(s) must be one of the following: " + strings.Join(p.Enum, ", ")
}

// normalizeFlags reads an enum of flags such as shutdown-on-sigterm's
// "nosave now": the words in Redis's order, "default" for none.
func (p *Param) normalizeFlags(v string) (string, string) {
	words := strings.Fields(v)
	if len(words) == 0 {
		return "", p.enumWhy()
	}
	set := make([]bool, len(p.Enum))
	for _, w := range words {
		found := false
		for i, e := range p.Enum {
			if strings.EqualFold(w, e) {
				set[i], found = true, true
			}
		}
		if !found {
			return "", p.enumWhy()
		}
	}
	var out []string
	for i, e := range p.Enum {
		if set[i] && i > 0 { // Enum[0] is the empty set ("default")
			out = append(out, e)
		}
	}
	if slices.Contains(out, "save") && slices.Contains(out, "nosave") {
		return "", "shutdown options SAVE and NOSAVE can't be used simultaneously"
	}
	if len(out) == 0 {
		return p.Enum[0], ""
	}
	return strings.Join(out, " "), ""
}

// normalizeSave reads save's pairs: seconds of at least 1, changes of at
// least 0; "" is no snapshots.
func normalizeSave(v string) (string, string) {
	f := strings.Fields(v)
	if len(f)%2 != 0 {
		return "", "Invalid save parameters"
	}
	for i, x := range f {
		n, err := strconv.ParseInt(x, 10, 64)
		if err != nil || (i%2 == 0 && n < 1) || n < 0 {
			return "", "Invalid save parameters"
		}
		f[i] = strconv.FormatInt(n, 10)
	}
	return strings.Join(f, " "), ""
}

// parseInt reads an integer as Redis's string2ll: no sign but '-', no
// leading zeros, no spaces.
func parseInt(s string) (int64, bool) {
	if s == "0" {
		return 0, true
	}
	d := s
	if len(d) > 0 && d[0] == '-' {
		d = d[1:]
	}
	if len(d) == 0 || d[0] < '1' || d[0] > '9' {
		return 0, false
	}
	for i := 1; i < len(d); i++ {
		if d[i] < '0' || d[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// ParseMemory reads Redis's memory values (memtoull): digits and an
// optional unit b, k, kb, m, mb, g, gb in any case; k is 1000, kb 1024.
func ParseMemory(s string) (int64, bool) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, false
	}
	n, err := strconv.ParseInt(s[:i], 10, 64)
	if err != nil {
		return 0, false
	}
	var mul int64
	switch strings.ToLower(s[i:]) {
	case "", "b":
		mul = 1
	case "k":
		mul = 1000
	case "kb":
		mul = 1 << 10
	case "m":
		mul = 1000 * 1000
	case "mb":
		mul = 1 << 20
	case "g":
		mul = 1000 * 1000 * 1000
	case "gb":
		mul = 1 << 30
	default:
		return 0, false
	}
	if n > math.MaxInt64/mul {
		return 0, false
	}
	return n * mul, true
}

// FormatMemory writes bytes as CONFIG REWRITE does
// (rewriteConfigFormatMemory): in gb, mb or kb when exact.
func FormatMemory(n int64) string {
	switch {
	case n != 0 && n%(1<<30) == 0:
		return strconv.FormatInt(n>>30, 10) + "gb"
	case n != 0 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + "mb"
	case n != 0 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + "kb"
	}
	return strconv.FormatInt(n, 10)
}

// SplitAddresses splits a bind value: space, tab or comma separated.
func SplitAddresses(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' })
}
