package engine

import "errors"

// CLIENT TRACKING, CACHING, GETREDIR and TRACKINGINFO (Redis 7.0's
// clientCommand in networking.c); the table and the messages are in
// tracking.go.

// Error replies of this file's commands (errors.go has the shared ones).
var (
	errCachingNoNeedsOptout = errors.New("ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.")
	errCachingNotTracking   = errors.New("ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode enabled")
	errCachingYesNeedsOptin = errors.New("ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.")
	errTrackingBcastOpt     = errors.New("ERR OPTIN and OPTOUT are not compatible with BCAST")
	errTrackingNoRedirect   = errors.New("ERR The client ID you want redirect to does not exist")
	errTrackingOneRedirect  = errors.New("ERR A client can only redirect to a single other client")
	errTrackingOptinOptout  = errors.New("ERR You can't specify both OPTIN mode and OPTOUT mode")
	errTrackingPrefixBcast  = errors.New("ERR PREFIX option requires BCAST mode to be enabled")
	errTrackingSwitchBcast  = errors.New("ERR You can't switch BCAST mode on/off before disabling tracking for this client, and then re-enabling it with a different mode.")
	errTrackingSwitchOpt    = errors.New("ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and then re-enabling it with a different mode.")
)

// cmdClientTracking handles CLIENT TRACKING ON|OFF [REDIRECT id] [BCAST]
// [PREFIX p ...] [OPTIN] [OPTOUT] [NOLOOP], checking in Redis's order.
func cmdClientTracking(c *Call) {
	var opts trackState
	var prefixes []string
	for j := 3; j < len(c.Args); j++ {
		a, more := c.Args[j], j+1 < len(c.Args)
		switch {
		case EqualFold(a, "redirect") && more:
			j++
			if opts.redirect != 0 {
				c.Err(errTrackingOneRedirect)
				return
			}
			id, ok := ParseInt(c.Args[j])
			if !ok {
				c.Err(ErrNotInteger)
				return
			}
			// The target must exist now; it may go away later
			// (tracking-redir-broken).
			if c.E.sessionByID(id) == nil {
				c.Err(errTrackingNoRedirect)
				return
			}
			opts.redirect = id
		case EqualFold(a, "bcast"):
			opts.bcast = true
		case EqualFold(a, "optin"):
			opts.optin = true
		case EqualFold(a, "optout"):
			opts.optout = true
		case EqualFold(a, "noloop"):
			opts.noloop = true
		case EqualFold(a, "prefix") && more:
			j++
			prefixes = append(prefixes, string(c.Args[j]))
		default:
			c.Err(ErrSyntax)
			return
		}
	}
	t := &c.E.tracker
	switch {
	case EqualFold(c.Args[2], "off"):
		t.disable(c.S)
		c.OK()
		return
	case !EqualFold(c.Args[2], "on"):
		c.Err(ErrSyntax)
		return
	}
	st := c.S.track // only this client's goroutine changes it
	var wasBcast, wasOptin, wasOptout bool
	if st != nil {
		t.mu.Lock()
		wasBcast, wasOptin, wasOptout = st.bcast, st.optin, st.optout
		t.mu.Unlock()
	}
	switch {
	case !opts.bcast && len(prefixes) > 0:
		c.Err(errTrackingPrefixBcast)
		return
	case st != nil && wasBcast != opts.bcast:
		c.Err(errTrackingSwitchBcast)
		return
	case opts.bcast && (opts.optin || opts.optout):
		c.Err(errTrackingBcastOpt)
		return
	case opts.optin && opts.optout:
		c.Err(errTrackingOptinOptout)
		return
	case opts.optin && wasOptout || opts.optout && wasOptin:
		c.Err(errTrackingSwitchOpt)
		return
	}
	if opts.bcast {
		msg, goOn := t.prefixCollision(c.S, prefixes)
		if msg != "" {
			c.W.Error(msg)
		}
		if !goOn {
			return
		}
	}
	t.enable(c.S, opts, prefixes)
	c.OK()
}

// cmdClientCaching handles CLIENT CACHING YES|NO: whether the next command
// (or transaction) of an OPTIN / OPTOUT client is tracked.
func cmdClientCaching(c *Call) {
	t := &c.E.tracker
	t.mu.Lock()
	st := c.S.track
	var err error
	switch {
	case st == nil:
		err = errCachingNotTracking
	case EqualFold(c.Args[2], "yes"):
		if !st.optin {
			err = errCachingYesNeedsOptin
		}
	case EqualFold(c.Args[2], "no"):
		if !st.optout {
			err = errCachingNoNeedsOptout
		}
	default:
		err = ErrSyntax
	}
	if err == nil {
		st.caching = true
	}
	t.mu.Unlock()
	if err != nil {
		c.Err(err)
		return
	}
	c.OK()
}

// cmdClientGetredir answers the redirect id of a tracking client (0: none)
// or -1 when tracking is off.
func cmdClientGetredir(c *Call) {
	t := &c.E.tracker
	t.mu.Lock()
	redir := int64(-1)
	if c.S.track != nil {
		redir = c.S.track.redirect
	}
	t.mu.Unlock()
	c.W.Int(redir)
}

// cmdClientTrackinginfo answers a map of flags (a set), redirect and
// prefixes.
func cmdClientTrackinginfo(c *Call) {
	t := &c.E.tracker
	t.mu.Lock()
	flags := []string{"off"}
	redir := int64(-1)
	var prefixes []string
	if st := c.S.track; st != nil {
		flags[0], redir = "on", st.redirect
		prefixes = append(prefixes, st.prefixes...)
		if st.bcast {
			flags = append(flags, "bcast")
		}
		if st.optin {
			flags = append(flags, "optin")
			if st.caching {
				flags = append(flags, "caching-yes")
			}
		}
		if st.optout {
			flags = append(flags, "optout")
			if st.caching {
				flags = append(flags, "caching-no")
			}
		}
		if st.noloop {
			flags = append(flags, "noloop")
		}
		if st.brokenRedir {
			flags = append(flags, "broken_redirect")
		}
	}
	t.mu.Unlock()
	c.W.Map(3)
	c.W.BulkString("flags")
	c.W.Set(len(flags))
	for _, f := range flags {
		c.W.BulkString(f)
	}
	c.W.BulkString("redirect")
	c.W.Int(redir)
	c.W.BulkString("prefixes")
	c.W.Array(len(prefixes))
	for _, p := range prefixes {
		c.W.BulkString(p)
	}
}
