package engine

import (
	"cmp"
	"slices"
	"strings"
)

// Client-side caching, as Redis 7.0's tracking.c: a tracking client is told
// when keys it may have cached change.
//
// Default mode: the keys a tracking client reads (read-only commands) are
// remembered in a table of key -> client ids; the first change of such a
// key sends one invalidation to each of them and forgets the key. BCAST
// mode: every change of a key under one of the client's prefixes is
// announced, whether it read the key or not.
//
// As in Redis the table ignores databases (a key name is a key name in
// every database), a closed client's ids stay in the table until their key
// changes or is evicted, and a flush invalidates everything at once with a
// null instead of a key list.
//
// Messages leave after the transaction that changed the key commits. The
// ones for the client whose command changed the key wait for that
// command's reply (Redis's tracking_pending_keys); the others go at once.

// trackingChannel is the pub/sub channel of RESP2 invalidations.
const trackingChannel = "__redis__:invalidate"

// DefaultTrackingTableMaxKeys is Redis's tracking-table-max-keys default.
const DefaultTrackingTableMaxKeys = 1000000

func (t *tracker) init(e *Engine) {
	t.e = e
	t.keys = make(map[string]map[int64]struct{})
	t.prefixes = make(map[string]map[*Session]struct{})
	t.maxKeys.Store(DefaultTrackingTableMaxKeys)
}

// active reports whether any client tracks: everything else is skipped
// while none does.
func (t *tracker) active() bool { return t.clients.Load() > 0 }

// enable turns tracking on for s, or changes its options when it is on
// (Redis's enableTracking); prefixes are added to the ones it has.
func (t *tracker) enable(s *Session, opts trackState, prefixes []string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	st := s.track
	if st == nil {
		st = &trackState{}
		s.track = st
		t.clients.Add(1)
	}
	st.bcast, st.optin, st.optout, st.noloop = opts.bcast, opts.optin, opts.optout, opts.noloop
	st.brokenRedir = false
	st.redirect = opts.redirect
	if opts.bcast {
		if len(prefixes) == 0 {
			prefixes = []string{""}
		}
		for _, p := range prefixes {
			if _, dup := slices.BinarySearch(st.prefixes, p); dup {
				continue
			}
			st.prefixes = append(st.prefixes, p)
			m := t.prefixes[p]
			if m == nil {
				m = make(map[*Session]struct{})
				t.prefixes[p] = m
			}
			m[s] = struct{}{}
		}
		slices.Sort(st.prefixes)
	}
	s.setTrackView(st)
}

// disable turns tracking off for s (Redis's disableTracking). Its ids stay
// in the table: they are dropped lazily, when their keys change.
func (t *tracker) disable(s *Session) {
	if s.track == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, p := range s.track.prefixes {
		if m := t.prefixes[p]; m != nil {
			delete(m, s)
			if len(m) == 0 {
				delete(t.prefixes, p)
			}
		}
	}
	s.track = nil
	t.clients.Add(-1)
	s.setTrackView(nil)
}

// prefixCollision returns Redis's error for a new prefix that overlaps one
// the client has or another new one (two prefixes overlap when one starts
// the other), and whether the command must still go on: Redis's
// checkPrefixCollisionsOrReply goes on after an overlap between two new
// prefixes when the first of them is not the first prefix given, so that
// the client gets the error and then +OK. We answer the same.
func (t *tracker) prefixCollision(s *Session, prefixes []string) (msg string, goOn bool) {
	t.mu.Lock()
	var have []string
	if s.track != nil {
		have = s.track.prefixes
	}
	t.mu.Unlock()
	overlap := func(a, b string) bool { return strings.HasPrefix(a, b) || strings.HasPrefix(b, a) }
	for i, p := range prefixes {
		for _, old := range have {
			if overlap(p, old) {
				return "ERR Prefix '" + p + "' overlaps with an existing prefix '" + old +
					"'. Prefixes for a single client must not overlap.", false
			}
		}
		for _, q := range prefixes[i+1:] {
			if overlap(p, q) {
				return "ERR Prefix '" + p + "' overlaps with another provided prefix '" + q +
					"'. Prefixes for a single client must not overlap.", i > 0
			}
		}
	}
	return "", true
}

// remember records that s read keys (Redis's trackingRememberKeys), if s
// tracks in default mode and OPTIN/OPTOUT with CLIENT CACHING let it.
func (t *tracker) remember(s *Session, keys []string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	st := s.track
	if st == nil || st.bcast || st.optin && !st.caching || st.optout && st.caching {
		return
	}
	for _, k := range keys {
		ids := t.keys[k]
		if ids == nil {
			ids = make(map[int64]struct{})
			t.keys[k] = ids
		}
		if _, ok := ids[s.ID]; !ok {
			ids[s.ID] = struct{}{}
			t.items++
		}
	}
}

// rememberCall records the keys of a read-only command that ran for s. In
// a read transaction they are recorded when it ends, after the keys it
// found expired were deleted (an invalidation for that deletion must not
// forget the read that found them, as in Redis, where the deletion comes
// first).
func (t *tracker) rememberCall(tx *Tx, s *Session, cmd *Command, args [][]byte) {
	if cmd.Flags.Has(FlagPubSub) {
		return // shard channels are keys in the specs, not cached data
	}
	refs, ok := commandKeys(cmd, args)
	if !ok || len(refs) == 0 {
		return
	}
	keys := make([]string, 0, len(refs))
	for _, r := range refs {
		keys = append(keys, string(args[r.pos]))
	}
	if tx != nil && !tx.Writable() {
		tx.readBy = s
		tx.readKeys = append(tx.readKeys, keys...)
		return
	}
	t.remember(s, keys)
}

// takeKey forgets key and returns the clients to invalidate for it (Redis's
// trackingInvalidateKey): those that read it and still track in default
// mode, except a NOLOOP client whose own command changed it (current).
// t.mu is held.
func (t *tracker) takeKey(key string, current *Session) []*Session {
	ids, ok := t.keys[key]
	if !ok {
		return nil
	}
	delete(t.keys, key)
	t.items -= int64(len(ids))
	var out []*Session
	for id := range ids {
		s := t.e.sessionByID(id)
		if s == nil || s.track == nil || s.track.bcast || s.track.noloop && s == current {
			continue
		}
		out = append(out, s)
	}
	slices.SortFunc(out, bySessionID)
	return out
}

// keyChanged is told by the transaction of every key it sets, deletes or
// expires (not of the keys a flush removes: see flushed).
func (t *tracker) keyChanged(tx *Tx, key string) {
	t.mu.Lock()
	targets := t.takeKey(key, tx.client)
	bcast := t.underPrefix(key)
	t.mu.Unlock()
	for _, s := range targets {
		t.sendAfterCommit(tx, s, func() { t.send(s, []string{key}, false) })
	}
	if bcast {
		if len(tx.bcastKeys) == 0 {
			writer := tx.client
			tx.After(func() { t.broadcast(tx.bcastKeys, writer) })
		}
		tx.bcastKeys = append(tx.bcastKeys, key)
	}
}

// underPrefix reports whether some BCAST prefix starts key. t.mu is held.
func (t *tracker) underPrefix(key string) bool {
	for p := range t.prefixes {
		if strings.HasPrefix(key, p) {
			return true
		}
	}
	return false
}

// flushed is told when a database (or all) is emptied: every tracking
// client gets a null invalidation ("all keys"), and the table is emptied,
// as Redis's trackingInvalidateKeysOnFlush (for FLUSHDB as for FLUSHALL).
func (t *tracker) flushed(tx *Tx) {
	t.mu.Lock()
	clear(t.keys)
	t.items = 0
	var targets []*Session
	for _, s := range t.e.Sessions() {
		if s.track != nil {
			targets = append(targets, s)
		}
	}
	t.mu.Unlock()
	for _, s := range targets {
		t.sendAfterCommit(tx, s, func() { t.send(s, nil, true) })
	}
}

// sendAfterCommit queues send to run once tx commits: at once then, or,
// when s is the client whose command runs, after that command's reply.
func (t *tracker) sendAfterCommit(tx *Tx, s *Session, send func()) {
	if s == tx.client && s.Kind == KindClient {
		tx.After(func() { s.afterReply = append(s.afterReply, send) })
		return
	}
	tx.After(send)
}

// broadcast sends the BCAST invalidations of keys, changed by one
// transaction of writer (nil: the expiry sweeper): for each prefix, in
// order, one message with its keys, sorted and once each, to each client
// registered for it; a NOLOOP client is not told about its own changes.
// The writer's own messages follow its reply, as Redis sends them before
// it sleeps.
func (t *tracker) broadcast(keys []string, writer *Session) {
	keys = slices.Clone(keys)
	slices.Sort(keys)
	keys = slices.Compact(keys)
	t.mu.Lock()
	prefixes := make([]string, 0, len(t.prefixes))
	for p := range t.prefixes {
		prefixes = append(prefixes, p)
	}
	slices.Sort(prefixes)
	type delivery struct {
		s    *Session
		keys []string
	}
	var out []delivery
	for _, p := range prefixes {
		var matched []string
		for _, k := range keys {
			if strings.HasPrefix(k, p) {
				matched = append(matched, k)
			}
		}
		if len(matched) == 0 {
			continue
		}
		clients := make([]*Session, 0, len(t.prefixes[p]))
		for s := range t.prefixes[p] {
			clients = append(clients, s)
		}
		slices.SortFunc(clients, bySessionID)
		for _, s := range clients {
			if s.track.noloop && s == writer {
				continue // every key of this transaction is its own change
			}
			out = append(out, delivery{s, matched})
		}
	}
	t.mu.Unlock()
	for _, d := range out {
		if d.s == writer && d.s.Kind == KindClient {
			d.s.afterReply = append(d.s.afterReply, func() { t.send(d.s, d.keys, false) })
			continue
		}
		t.send(d.s, d.keys, false)
	}
}

// send delivers one invalidation of tracking client s (Redis's
// sendTrackingMessage): keys, or a null for a flush. It goes to the
// REDIRECT client when there is one: as a push in RESP3, as a message on
// __redis__:invalidate when that client is subscribed in RESP2, not at all
// otherwise. Without REDIRECT only a RESP3 client can be told. When the
// redirect client is gone, s is flagged and, in RESP3, told with a
// tracking-redir-broken push.
func (t *tracker) send(s *Session, keys []string, flush bool) {
	t.mu.Lock()
	st := s.track
	if st == nil {
		t.mu.Unlock()
		return
	}
	redirect := st.redirect
	dest := s
	if redirect != 0 {
		dest = t.e.sessionByID(redirect)
		if dest == nil {
			st.brokenRedir = true
			s.setTrackView(st)
		}
	}
	t.mu.Unlock()
	if dest == nil {
		if s.SharedProto() == 3 {
			s.push(func(w Writer) {
				w.Push(2)
				w.BulkString("tracking-redir-broken")
				w.Int(redirect)
			})
		}
		return
	}
	resp3 := dest.SharedProto() == 3
	if !resp3 && (redirect == 0 || dest.Subscriptions() == 0) {
		return // a RESP2 client can only be told as a subscriber
	}
	nullProto := s.SharedProto() // the tracking client's, as in Redis
	dest.push(func(w Writer) {
		if resp3 {
			w.Push(2)
			w.BulkString("invalidate")
		} else {
			w.Push(3) // a pub/sub message: an array in RESP2
			w.BulkString("message")
			w.BulkString(trackingChannel)
		}
		switch nw, ok := w.(NullWriter); {
		case !flush:
			w.Array(len(keys))
			for _, k := range keys {
				w.BulkString(k)
			}
		case ok:
			nw.NullOf(nullProto)
		default:
			w.Null()
		}
	})
}

// limit keeps the table within tracking-table-max-keys (Redis's
// trackingLimitUsedSlots): over it, keys are dropped, each with the
// invalidations a change would send (the clients must stop caching what is
// no longer tracked for them), in random order, at most 100 per round
// more each time a round ends still over the limit. current is the client
// about to run a command (a NOLOOP one is not told, as in Redis).
func (t *tracker) limit(current *Session) {
	max := t.maxKeys.Load()
	if max == 0 || !t.active() {
		return
	}
	type invalidation struct {
		s   *Session
		key string
	}
	var out []invalidation
	t.mu.Lock()
	if int64(len(t.keys)) <= max {
		t.evictRounds = 0
		t.mu.Unlock()
		return
	}
	effort := 100 * (t.evictRounds + 1)
	for key := range t.keys { // map order is random
		if effort == 0 {
			break
		}
		effort--
		for _, s := range t.takeKey(key, current) {
			out = append(out, invalidation{s, key})
		}
		if int64(len(t.keys)) <= max {
			break
		}
	}
	if int64(len(t.keys)) <= max {
		t.evictRounds = 0
	} else {
		t.evictRounds++
	}
	t.mu.Unlock()
	for _, inv := range out {
		t.send(inv.s, []string{inv.key}, false)
	}
}

// commandDone runs after each command of a tracking client: CLIENT
// CACHING applies to the next command only, or to the whole transaction
// when given inside MULTI (Redis's resetClient keeps it after a CLIENT
// command and while in MULTI).
func (t *tracker) commandDone(s *Session, cmd *Command) {
	if s.InMulti() || cmd != nil && cmd.Parent() != nil && cmd.Parent().Name == "client" {
		return
	}
	t.mu.Lock()
	if s.track != nil {
		s.track.caching = false
	}
	t.mu.Unlock()
}

// TrackingStats are INFO's tracking figures: tracking_clients,
// tracking_total_keys, tracking_total_items, tracking_total_prefixes.
func (e *Engine) TrackingStats() (clients, keys, items, prefixes int64) {
	t := &e.tracker
	t.mu.Lock()
	defer t.mu.Unlock()
	return int64(t.clients.Load()), int64(len(t.keys)), t.items, int64(len(t.prefixes))
}

// bindTrackingParams binds tracking-table-max-keys.
func (e *Engine) bindTrackingParams() {
	e.bindParam("tracking-table-max-keys", intParam(&e.tracker.maxKeys))
}

func bySessionID(a, b *Session) int { return cmp.Compare(a.ID, b.ID) }

// sessionByID returns the connected client with id, or nil.
func (e *Engine) sessionByID(id int64) *Session {
	e.clientsMu.Lock()
	defer e.clientsMu.Unlock()
	return e.clients[id]
}
