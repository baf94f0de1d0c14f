package engine

import ()

// OutputLimit returns the current limit of a class (OutputNormal...).
func (e *Engine) OutputLimit(class int) OutputLimit { return e.outLimits.get(class) }

// SetOutputLimit changes one class's limit, as CONFIG SET does.
func (e *Engine) SetOutputLimit(class int, l OutputLimit) {
	e.outLimits.mu.Lock()
	e.outLimits.classes[class] = l
	e.outLimits.mu.Unlock()
}

// bindOutputLimits binds client-output-buffer-limit: a value names the
// classes it changes; CONFIG GET shows every class, in bytes, and CONFIG
// REWRITE writes one line per class.
func (e *Engine) bindOutputLimits() {
	e.outLimits.classes = defaultOutputLimits
	e.bindParam("client-output-buffer-limit", paramBinding{
		get: e.outLimits.value,
		check: func(v string) (string, string) {
			if _, why := parseOutputLimits(v); why != "" {
				return "", why
			}
			return v, ""
		},
		apply: func(v string) error {
			set, _ := parseOutputLimits(v)
			e.outLimits.apply(set)
			return nil
		},
		rewrite: func() ([]string, bool) { return e.outLimits.lines(), true },
	})
}

// ClientInfoString is a client's CLIENT INFO line without its newline,
// for log lines that describe a client as Redis's do.
func ClientInfoString(ci ClientInfo) string {
	b := appendClientInfo(nil, ci)
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return string(b)
}
