package compat

import (
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"time"

	"github.com/anishathalye/porcupine"
)

// The checkers of the fault tests. Each takes a history (and, for the
// counter, the value read once the faults stopped) and returns findings:
// one line of what is wrong plus the operations around it. No finding
// means the history is valid.

// checkCounter judges INCRs of one counter that started at 0:
//   - no acknowledged INCR lost: final >= the number of acknowledged INCRs,
//     and final <= acknowledged + indeterminate (nothing applied twice or
//     from nowhere);
//   - every acknowledged INCR returned a different number, within [1, final];
//   - the numbers follow real time: an INCR acknowledged before another
//     began returned a smaller number.
func checkCounter(ops []op, final int64) []string {
	var acked, indeterminate int64
	var oks []op
	for _, o := range ops {
		if o.f != "incr" {
			continue
		}
		switch o.result {
		case opOK:
			acked++
			oks = append(oks, o)
		case opInfo:
			indeterminate++
		}
	}
	var findings []string
	if final < acked {
		findings = append(findings, fmt.Sprintf("lost acknowledged writes: final value %d < %d acknowledged INCRs (%d indeterminate)", final, acked, indeterminate))
	}
	if final > acked+indeterminate {
		findings = append(findings, fmt.Sprintf("writes from nowhere: final value %d > %d acknowledged + %d indeterminate INCRs", final, acked, indeterminate))
	}
	byValue := map[int64]op{}
	for _, o := range oks {
		v, err := strconv.ParseInt(o.value, 10, 64)
		if err != nil {
			findings = append(findings, fmt.Sprintf("INCR answered a non-integer:\n    %s", o))
			continue
		}
		if v < 1 || v > final {
			findings = append(findings, fmt.Sprintf("INCR answered %d, outside [1, final %d] (its write was lost):\n    %s", v, final, o))
		}
		if prev, dup := byValue[v]; dup {
			findings = append(findings, fmt.Sprintf("two acknowledged INCRs answered %d:\n    %s\n    %s", v, prev, o))
		}
		byValue[v] = o
	}
	// Real-time order: sweep the acknowledged INCRs by start, keeping the
	// largest number among those that ended before.
	byEnd := append([]op(nil), oks...)
	sort.Slice(byEnd, func(i, j int) bool { return byEnd[i].end < byEnd[j].end })
	sort.Slice(oks, func(i, j int) bool { return oks[i].start < oks[j].start })
	var maxBefore int64 = math.MinInt64
	var maxOp op
	e := 0
	for _, o := range oks {
		for e < len(byEnd) && byEnd[e].end < o.start {
			if v, _ := strconv.ParseInt(byEnd[e].value, 10, 64); v > maxBefore {
				maxBefore, maxOp = v, byEnd[e]
			}
			e++
		}
		if v, _ := strconv.ParseInt(o.value, 10, 64); e > 0 && v <= maxBefore {
			findings = append(findings, fmt.Sprintf("INCR answered %d after an INCR that had ended answered %d (not linearizable):\n    %s\n    %s", v, maxBefore, maxOp, o))
		}
	}
	return findings
}

// checkLocks judges a lock workload. Its operations:
//   - "acquire" ok with value = fencing token: a grant;
//   - "cs": a critical section, [start, end] inside the holder's validity
//     (from the grant's acknowledgement to before its TTL, minus drift,
//     counted from the acquire's start), value = the token;
//   - "lost": the holder found, within its validity, that the lock no
//     longer held its owner (the server lost or gave away a live lock).
//
// Findings: two critical sections of one lock overlapping in real time
// (two clients both rightly believing they held it), a "lost", and
// tokens not strictly increasing in grant order (a grant acknowledged
// before another began must have the smaller token).
func checkLocks(ops []op) []string {
	var findings []string
	css := map[string][]op{}
	grants := map[string][]op{}
	for _, o := range ops {
		switch {
		case o.f == "cs":
			css[o.key] = append(css[o.key], o)
		case o.f == "acquire" && o.result == opOK && !o.isNil:
			grants[o.key] = append(grants[o.key], o)
		case o.f == "lost":
			findings = append(findings, fmt.Sprintf("lock %s lost while its holder's validity ran: %s\n%s", o.key, o.err, excerpt(ops, o.start-int64(time.Second), o.end, 20)))
		}
	}
	for _, key := range sortedKeys(css) {
		list := css[key]
		sort.Slice(list, func(i, j int) bool { return list[i].start < list[j].start })
		var latest op // the section seen so far that ends last
		for i, o := range list {
			if i > 0 && o.start < latest.end {
				findings = append(findings, fmt.Sprintf("mutual exclusion violated on %s: two holders at once\n    %s\n    %s\n  operations around:\n%s",
					key, latest, o, excerpt(ops, latest.start, o.end, 30)))
			}
			if i == 0 || o.end > latest.end {
				latest = o
			}
		}
	}
	for _, key := range sortedKeys(grants) {
		list := grants[key]
		byEnd := append([]op(nil), list...)
		sort.Slice(byEnd, func(i, j int) bool { return byEnd[i].end < byEnd[j].end })
		sort.Slice(list, func(i, j int) bool { return list[i].start < list[j].start })
		var maxBefore int64 = math.MinInt64
		var maxOp op
		e := 0
		seen := map[string]op{}
		for _, o := range list {
			for e < len(byEnd) && byEnd[e].end < o.start {
				if v, _ := strconv.ParseInt(byEnd[e].value, 10, 64); v > maxBefore {
					maxBefore, maxOp = v, byEnd[e]
				}
				e++
			}
			v, err := strconv.ParseInt(o.value, 10, 64)
			if err != nil {
				findings = append(findings, fmt.Sprintf("a grant of %s has no integer token:\n    %s", key, o))
				continue
			}
			if e > 0 && v <= maxBefore {
				findings = append(findings, fmt.Sprintf("fencing tokens of %s not increasing in grant order: %d granted after %d\n    %s\n    %s", key, v, maxBefore, maxOp, o))
			}
			if prev, dup := seen[o.value]; dup && prev.arg != o.arg {
				findings = append(findings, fmt.Sprintf("fencing token %s of %s granted to two owners:\n    %s\n    %s", o.value, key, prev, o))
			}
			seen[o.value] = o
		}
	}
	return findings
}

func sortedKeys(m map[string][]op) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// The register model for porcupine: one string value per key (absent =
// nil), operations get, set and compare-and-set.

type registerInput struct {
	f        string // "get", "set", "cas"
	key      string
	value    string // set: the value; cas: the expected value
	newValue string // cas: the value to store
}

type registerOutput struct {
	value   string // get: the value read
	isNil   bool   // get: the key was absent
	swapped bool   // cas: the value matched and was replaced
	unknown bool   // the operation is indeterminate: any effect or none
}

// registerState is the value of one key.
type registerState struct {
	value string
	isNil bool
}

var registerModel = porcupine.Model{
	Partition: func(history []porcupine.Operation) [][]porcupine.Operation {
		byKey := map[string][]porcupine.Operation{}
		var keys []string
		for _, o := range history {
			k := o.Input.(registerInput).key
			if _, ok := byKey[k]; !ok {
				keys = append(keys, k)
			}
			byKey[k] = append(byKey[k], o)
		}
		sort.Strings(keys)
		parts := make([][]porcupine.Operation, 0, len(keys))
		for _, k := range keys {
			parts = append(parts, byKey[k])
		}
		return parts
	},
	Init: func() interface{} { return registerState{isNil: true} },
	Step: func(state, input, output interface{}) (bool, interface{}) {
		s, in, out := state.(registerState), input.(registerInput), output.(registerOutput)
		switch in.f {
		case "get":
			return out.isNil == s.isNil && out.value == s.value, s
		case "set":
			return true, registerState{value: in.value}
		case "cas":
			matches := !s.isNil && s.value == in.value
			if out.unknown {
				// Indeterminate: it ran here (as a CAS does) or never, and
				// porcupine may place it after everything, which is never.
				if matches {
					return true, registerState{value: in.newValue}
				}
				return true, s
			}
			if out.swapped != matches {
				return false, s
			}
			if matches {
				return true, registerState{value: in.newValue}
			}
			return true, s
		}
		return false, s
	},
	DescribeOperation: func(input, output interface{}) string {
		in, out := input.(registerInput), output.(registerOutput)
		res := ""
		switch {
		case out.unknown:
			res = "?"
		case in.f == "get" && out.isNil:
			res = "nil"
		case in.f == "get":
			res = strconv.Quote(out.value)
		case in.f == "cas":
			res = strconv.FormatBool(out.swapped)
		default:
			res = "ok"
		}
		switch in.f {
		case "get":
			return fmt.Sprintf("get(%s) -> %s", in.key, res)
		case "set":
			return fmt.Sprintf("set(%s, %q) -> %s", in.key, in.value, res)
		}
		return fmt.Sprintf("cas(%s, %q, %q) -> %s", in.key, in.value, in.newValue, res)
	},
	DescribeState: func(state interface{}) string {
		if s := state.(registerState); !s.isNil {
			return strconv.Quote(s.value)
		}
		return "nil"
	},
}

// registerOperations turns a register history into porcupine's form, the
// way porcupine expects indeterminate operations: a write or CAS of
// unknown outcome never returns (its end is after every other operation),
// so it may take effect at any point after it began, or not at all; a
// read of unknown outcome told nothing and is left out, as is every
// operation that certainly failed.
func registerOperations(ops []op) []porcupine.Operation {
	var out []porcupine.Operation
	for _, o := range ops {
		if o.f != "get" && o.f != "set" && o.f != "cas" {
			continue
		}
		if o.result == opFail || o.result == opInfo && o.f == "get" {
			continue
		}
		in := registerInput{f: o.f, key: o.key, value: o.arg, newValue: o.arg2}
		res := registerOutput{value: o.value, isNil: o.isNil, swapped: o.value == "1"}
		end := o.end
		if o.result == opInfo {
			res = registerOutput{unknown: true}
			end = math.MaxInt64
		}
		out = append(out, porcupine.Operation{ClientId: o.client, Input: in, Call: o.start, Output: res, Return: end})
	}
	return out
}

// checkRegister checks a register history for linearizability. On a
// violation it writes porcupine's visualization (an HTML page) to a
// temporary file and names it in the finding. A check that runs out of
// time is a finding too (the history could not be judged).
func checkRegister(ops []op, timeout time.Duration) []string {
	history := registerOperations(ops)
	res, info := porcupine.CheckOperationsVerbose(registerModel, history, timeout)
	switch res {
	case porcupine.Ok:
		return nil
	case porcupine.Unknown:
		return []string{fmt.Sprintf("linearizability check of %d operations did not finish within %v", len(history), timeout)}
	}
	finding := fmt.Sprintf("register history of %d operations is not linearizable", len(history))
	f, err := os.CreateTemp("", "lockredis-jepsen-register-*.html")
	if err == nil {
		err = porcupine.Visualize(registerModel, info, f)
		f.Close()
	}
	if err != nil {
		finding += fmt.Sprintf(" (visualization not written: %v)", err)
	} else {
		finding += "; porcupine's visualization: " + f.Name()
	}
	return []string{finding}
}
