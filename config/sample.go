package config

import "strconv"

// Sample is a valid value of a parameter other than its default, as
// CONFIG GET writes it: what the tests of everything generated from the
// spec (flags, directives, CONFIG SET) give each parameter.
func (p *Param) Sample() string {
	switch p.Kind {
	case Int, Memory, Octal:
		for _, n := range []int64{p.Min, p.Min + 1, p.Max} {
			v := strconv.FormatInt(n, 10)
			if p.Kind == Octal {
				v = strconv.FormatInt(n, 8)
			}
			if norm, _ := p.Normalize(v); norm == v && v != p.Default {
				return v
			}
		}
	case Bool:
		if p.Default == "yes" {
			return "no"
		}
		return "yes"
	case Enum, Flags:
		for _, e := range p.Enum {
			if e != p.Default {
				return e
			}
		}
	case MemoryPercent:
		return "10%"
	case Duration:
		return "1m0s"
	case Save:
		return "900 1"
	case Ints:
		v := ""
		for i := 0; i < p.Count; i++ {
			if i > 0 {
				v += " "
			}
			v += strconv.Itoa(i + 1)
		}
		return v
	case Percentiles:
		return "50"
	case Addresses:
		return "127.0.0.2"
	case Custom:
		return customSamples[p.Name]
	}
	return "x"
}

// customSamples are samples of the Custom parameters, as CONFIG GET
// writes them after a CONFIG SET of the sample.
var customSamples = map[string]string{
	"notify-keyspace-events":     "xE",
	"client-output-buffer-limit": "normal 1048576 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60",
	"restart-fence":              "off",
}
