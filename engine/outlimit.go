package engine

import (
	"strconv"
	"strings"
	"sync"

	"github.com/lockredis/lockredis/config"
)

// client-output-buffer-limit: Redis's three classes of clients, each with
// a hard limit, a soft limit and the seconds the soft one may be passed
// (0 everywhere: no limit). The engine keeps the values; resp enforces
// the normal class, pubsub the pubsub class; lockredis has no replicas,
// so the replica class is kept only for CONFIG GET and REWRITE.

// OutputLimit is one class's limit: Hard and Soft in bytes (0: none),
// SoftSeconds how long pending output may stay above Soft.
type OutputLimit struct {
	Hard, Soft, SoftSeconds int64
}

// Output buffer classes, in the order CONFIG GET lists them.
const (
	OutputNormal = iota
	OutputReplica
	OutputPubsub
	numOutputClasses
)

// outputClassNames spell the classes as CONFIG GET does (Redis 7.0 still
// says slave).
var outputClassNames = [numOutputClasses]string{"normal", "slave", "pubsub"}

// defaultOutputLimits are redis-server 7.0's defaults.
var defaultOutputLimits = [numOutputClasses]OutputLimit{
	{},
	{Hard: 256 << 20, Soft: 64 << 20, SoftSeconds: 60},
	{Hard: 32 << 20, Soft: 8 << 20, SoftSeconds: 60},
}

type outputLimits struct {
	mu      sync.RWMutex
	classes [numOutputClasses]OutputLimit
}

// get returns the current limit of a class.
func (o *outputLimits) get(class int) OutputLimit {
	o.mu.RLock()
	defer o.mu.RUnlock()
	return o.classes[class]
}

// outputLimitSet is a parsed value: the classes it names, and their limits.
type outputLimitSet struct {
	named  [numOutputClasses]bool
	limits [numOutputClasses]OutputLimit
}

// parseOutputLimits parses "<class> <hard> <soft> <soft seconds> ..." as
// Redis's setConfigClientOutputBufferLimitOption does, with its errors.
func parseOutputLimits(v string) (outputLimitSet, string) {
	var set outputLimitSet
	f := strings.Fields(v)
	if len(f)%4 != 0 {
		return set, "Wrong number of arguments in buffer limit configuration."
	}
	for i := 0; i < len(f); i += 4 {
		class := -1
		switch strings.ToLower(f[i]) {
		case "normal":
			class = OutputNormal
		case "replica", "slave":
			class = OutputReplica
		case "pubsub":
			class = OutputPubsub
		}
		if class < 0 {
			return set, "Invalid client class specified in buffer limit configuration."
		}
		hard, ok1 := config.ParseMemory(f[i+1])
		soft, ok2 := config.ParseMemory(f[i+2])
		secs, err := strconv.ParseInt(f[i+3], 10, 64)
		if !ok1 || !ok2 || err != nil || secs < 0 {
			return set, "Error in hard, soft or soft_seconds setting in buffer limit configuration."
		}
		set.named[class] = true
		set.limits[class] = OutputLimit{Hard: hard, Soft: soft, SoftSeconds: secs}
	}
	return set, ""
}

func (o *outputLimits) apply(set outputLimitSet) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for c := range set.named {
		if set.named[c] {
			o.classes[c] = set.limits[c]
		}
	}
}

// outputLimitsValue is CONFIG GET's value: every class, in bytes.
func (o *outputLimits) value() string {
	var b []byte
	for c := 0; c < numOutputClasses; c++ {
		l := o.get(c)
		if c > 0 {
			b = append(b, ' ')
		}
		b = append(b, outputClassNames[c]...)
		for _, n := range []int64{l.Hard, l.Soft, l.SoftSeconds} {
			b = append(b, ' ')
			b = strconv.AppendInt(b, n, 10)
		}
	}
	return string(b)
}

// outputLimitsLines are CONFIG REWRITE's lines: one per class, as
// Redis's rewriteConfigClientOutputBufferLimitOption writes them (the
// replica class as "replica"), with memory in Redis's units.
func (o *outputLimits) lines() []string {
	var out []string
	for c := 0; c < numOutputClasses; c++ {
		l := o.get(c)
		name := outputClassNames[c]
		if c == OutputReplica {
			name = "replica"
		}
		out = append(out, "client-output-buffer-limit "+name+" "+config.FormatMemory(l.Hard)+" "+
			config.FormatMemory(l.Soft)+" "+strconv.FormatInt(l.SoftSeconds, 10))
	}
	return out
}
