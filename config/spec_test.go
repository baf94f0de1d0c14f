package config

import (
	"strings"
	"testing"
)

// TestSpecIsConsistent checks each entry on its own: a default its kind
// accepts as it is, the fields a kind or mode needs, and names as Redis
// spells them.
func TestSpecIsConsistent(t *testing.T) {
	for i := range Params {
		p := &Params[i]
		t.Run(p.Name, func(t *testing.T) {
			for _, n := range p.Names() {
				if n != strings.ToLower(n) || strings.ContainsAny(n, " \t") {
					t.Errorf("name %q: lower case, one word", n)
				}
			}
			if p.Kind != Custom {
				norm, why := p.Normalize(p.Default)
				if why != "" || norm != p.Default {
					t.Errorf("default %q normalizes to %q (%s)", p.Default, norm, why)
				}
			}
			if p.Binary != "" {
				if norm, why := p.Normalize(p.Binary); why != "" || norm != p.Binary {
					t.Errorf("binary default %q normalizes to %q (%s)", p.Binary, norm, why)
				}
			}
			if (p.Mode == Fixed) != (p.Why != "") {
				t.Errorf("a Fixed parameter, and only one, says Why (%q)", p.Why)
			}
			if p.Usage != "" && p.Mode == Kept && p.Name != "save" {
				t.Errorf("--help shows a parameter that has no effect")
			}
			if p.Directive && p.Mode != Fixed {
				t.Errorf("a directive-only parameter is refused unless Default")
			}
			if p.By != ByEngine && p.Mode != Live && p.Mode != Start {
				t.Errorf("only Live and Start parameters are applied by someone")
			}
			switch p.Kind {
			case Enum, Flags:
				if len(p.Enum) == 0 {
					t.Errorf("no Enum")
				}
			case Int, Memory, Octal:
				if p.Min > p.Max {
					t.Errorf("Min %d > Max %d", p.Min, p.Max)
				}
			case Ints:
				if p.Count == 0 {
					t.Errorf("no Count")
				}
			}
			if p.Kind == Addresses || p.Kind == Save || p.Kind == Ints || p.Kind == Percentiles || p.Kind == Flags {
				if !p.Multi {
					t.Errorf("a list kind takes several words on a config line: Multi")
				}
			}
			if p.Repeat && !p.Multi {
				t.Errorf("Repeat without Multi")
			}
			got, ok := Lookup(strings.ToUpper(p.Name))
			if !ok || got != p {
				t.Errorf("Lookup in upper case")
			}
		})
	}
}

func TestNormalize(t *testing.T) {
	for _, tc := range []struct {
		name, value, norm, why string
	}{
		{"timeout", "0", "0", ""},
		{"timeout", "05", "", "argument couldn't be parsed into an integer"},
		{"timeout", "+5", "", "argument couldn't be parsed into an integer"},
		{"timeout", "-1", "", "argument must be between 0 and 2147483647 inclusive"},
		{"slowlog-log-slower-than", "-1", "-1", ""},
		{"appendonly", "YES", "yes", ""},
		{"appendonly", "1", "", "argument must be 'yes' or 'no'"},
		{"appendfsync", "Always", "always", ""},
		{"appendfsync", "sometimes", "", "argument(s) must be one of the following: everysec, always, no"},
		{"maxmemory", "1kb", "1024", ""},
		{"maxmemory", "1k", "1000", ""},
		{"maxmemory", "-1", "", "argument must be a memory value"},
		{"client-query-buffer-limit", "1", "", "argument must be between 1048576 and 9223372036854775807 inclusive"},
		{"maxmemory-clients", "10%", "10%", ""},
		{"maxmemory-clients", "200%", "", "percentage argument must be less or equal to 100"},
		{"maxmemory-clients", "x", "", "argument must be a memory or percent value"},
		{"unixsocketperm", "700", "700", ""},
		{"unixsocketperm", "1000", "", "argument must be between 0 and 777 inclusive"},
		{"unixsocketperm", "9", "", "argument couldn't be parsed as an octal number"},
		{"save", "", "", ""},
		{"save", "900  1 300 10", "900 1 300 10", ""},
		{"save", "0 1", "", "Invalid save parameters"},
		{"save", "1 2 3", "", "Invalid save parameters"},
		{"oom-score-adj-values", "0 200", "", "wrong number of arguments"},
		{"oom-score-adj-values", "0 200 3000", "", "Invalid oom-score-adj-values, elements must be between -2000 and 2000."},
		{"latency-tracking-info-percentiles", "50.0 99.90", "50 99.9", ""},
		{"latency-tracking-info-percentiles", "", "", ""},
		{"latency-tracking-info-percentiles", "101", "", "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]"},
		{"latency-tracking-info-percentiles", "x", "", "Invalid latency-tracking-info-percentiles parameters"},
		{"shutdown-on-sigterm", "NOW nosave", "nosave now", ""},
		{"shutdown-on-sigterm", "default", "default", ""},
		{"shutdown-on-sigterm", "save nosave", "", "shutdown options SAVE and NOSAVE can't be used simultaneously"},
		{"shutdown-on-sigterm", "later", "", "argument(s) must be one of the following: default, save, nosave, now, force"},
		{"bind", "127.0.0.1,::1  -::2", "127.0.0.1 ::1 -::2", ""},
		{"max-lock-ttl", "300s", "5m0s", ""},
		{"max-lock-ttl", "0s", "", "argument must be a positive duration such as 30s or 5m"},
	} {
		p, ok := Lookup(tc.name)
		if !ok {
			t.Fatalf("no %s", tc.name)
		}
		norm, why := p.Normalize(tc.value)
		if norm != tc.norm || why != tc.why {
			t.Errorf("%s %q: %q %q, want %q %q", tc.name, tc.value, norm, why, tc.norm, tc.why)
		}
	}
}

func TestSettings(t *testing.T) {
	s := NewSettings()
	for _, line := range [][]string{
		{"lua-time-limit", "100"},
		{"save", "900", "1"},
		{"SAVE", "300", "10"},
		{"client-output-buffer-limit", "normal", "1mb", "0", "0"},
		{"client-output-buffer-limit", "pubsub", "1mb", "0", "0"},
		{"port", "7000"},
		{"port", "7001"},
	} {
		if err := s.Set(line[0], line[1:]); err != nil {
			t.Fatalf("%v: %v", line, err)
		}
	}
	for name, want := range map[string]string{
		"busy-reply-threshold":       "100",
		"lua-time-limit":             "100",
		"save":                       "900 1 300 10",
		"client-output-buffer-limit": "normal 1mb 0 0 pubsub 1mb 0 0",
		"port":                       "7001",
		"timeout":                    "0",
	} {
		if got := s.Value(name); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
	if err := s.Set("save", []string{""}); err != nil || s.Value("save") != "" {
		t.Errorf(`save "" starts over: %q %v`, s.Value("save"), err)
	}
	for _, tc := range []struct {
		line []string
		err  string
	}{
		{[]string{"no-such", "1"}, "Bad directive or wrong number of arguments"},
		{[]string{"port", "1", "2"}, `wrong number of arguments for "port"`},
		{[]string{"port"}, `wrong number of arguments for "port"`},
		{[]string{"port", "x"}, `port: argument couldn't be parsed into an integer, got "x"`},
		{[]string{"replicaof", "127.0.0.1", "6380"}, `replicaof is not supported: lockredis has no replication, got "127.0.0.1 6380"`},
		{[]string{"include", "/etc/other.conf"}, `include is not supported: lockredis reads one config file, got "/etc/other.conf"`},
	} {
		if err := s.Set(tc.line[0], tc.line[1:]); err == nil || err.Error() != tc.err {
			t.Errorf("%v: %v, want %s", tc.line, err, tc.err)
		}
	}
	if _, err := FromMap(map[string]string{"lua-time-limit": "1", "busy-reply-threshold": "2"}); err == nil {
		t.Errorf("a parameter and its alias both given")
	}
}

// TestSample: every parameter has a valid sample other than its default.
func TestSample(t *testing.T) {
	for i := range Params {
		p := &Params[i]
		v := p.Sample()
		if v == p.Default {
			t.Errorf("%s: sample %q is the default", p.Name, v)
		}
		if p.Kind == Custom {
			if v == "" {
				t.Errorf("%s: no sample", p.Name)
			}
			continue
		}
		if norm, why := p.Normalize(v); why != "" || norm != v {
			t.Errorf("%s: sample %q normalizes to %q (%s)", p.Name, v, norm, why)
		}
	}
}

func TestParseMemory(t *testing.T) {
	for in, want := range map[string]int64{
		"0": 0, "100": 100, "1b": 1, "1k": 1000, "1kb": 1024, "1KB": 1024, "2m": 2000000, "2mb": 2 << 20,
		"1g": 1000000000, "1Gb": 1 << 30,
	} {
		if got, ok := ParseMemory(in); !ok || got != want {
			t.Errorf("ParseMemory(%q) = %d, %v; want %d", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "k", "1x", "-1", "1.5m", "99999999999999999999", "9999999999999gb"} {
		if _, ok := ParseMemory(in); ok {
			t.Errorf("ParseMemory(%q) accepted", in)
		}
	}
}

// TestRaftSessionTimeout: the session timeout of a replicated group's
// node (docs/replication.md) is a positive Go duration, 10 s unless set,
// fixed once started and answered by CONFIG GET only by its exact name.
func TestRaftSessionTimeout(t *testing.T) {
	p, ok := Lookup("raft-session-timeout")
	if !ok {
		t.Fatal("no raft-session-timeout")
	}
	if p.Kind != Duration || p.Default != "10s" || p.Mode != Start || !p.Immutable || !p.Hidden || !p.Own {
		t.Errorf("raft-session-timeout: %+v", *p)
	}
	for _, tc := range []struct{ value, norm, why string }{
		{"10s", "10s", ""},
		{"1500ms", "1.5s", ""},
		{"2m", "2m0s", ""},
		{"0s", "", "argument must be a positive duration such as 30s or 5m"},
		{"-1s", "", "argument must be a positive duration such as 30s or 5m"},
		{"10", "", "argument must be a positive duration such as 30s or 5m"},
	} {
		norm, why := p.Normalize(tc.value)
		if norm != tc.norm || why != tc.why {
			t.Errorf("%q: %q %q, want %q %q", tc.value, norm, why, tc.norm, tc.why)
		}
	}
	s := NewSettings()
	if got := s.Value("raft-session-timeout"); got != "10s" {
		t.Errorf("default: %q", got)
	}
	if err := s.Set("raft-session-timeout", []string{"3s"}); err != nil || s.Value("raft-session-timeout") != "3s" {
		t.Errorf("set 3s: %q %v", s.Value("raft-session-timeout"), err)
	}
}
