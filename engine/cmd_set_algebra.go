package engine

import (
	"errors"
	"sort"
)

// Set algebra, as sinterGenericCommand and sunionDiffGenericCommand in
// Redis 7.0's t_set.c: SINTER, SINTERCARD, SUNION, SDIFF and their STORE
// forms. A result is built like Redis builds its temporary set (an intset
// until a member is not an integer or there are too many), so its reply
// order is the one SMEMBERS would give for it: ascending integers when
// Redis's result is an intset, lockredis's bytewise order otherwise
// (Redis's own order is then arbitrary).

// Error replies of this file's commands (errors.go has the shared ones).
var (
	errNumkeysTooMany = errors.New("ERR Number of keys can't be greater than number of args")
)

func setAlgebraCommands() []*Command {
	return []*Command{
		{Name: "sinter", Handler: func(c *Call) { sinterGeneric(c, c.Args[1:], nil, false, 0) }},
		{Name: "sinterstore", Handler: func(c *Call) { sinterGeneric(c, c.Args[2:], c.Args[1], false, 0) }},
		{Name: "sintercard", Handler: cmdSintercard},
		{Name: "sunion", Handler: func(c *Call) { sunionDiffGeneric(c, c.Args[1:], nil, false) }},
		{Name: "sunionstore", Handler: func(c *Call) { sunionDiffGeneric(c, c.Args[2:], c.Args[1], false) }},
		{Name: "sdiff", Handler: func(c *Call) { sunionDiffGeneric(c, c.Args[1:], nil, true) }},
		{Name: "sdiffstore", Handler: func(c *Call) { sunionDiffGeneric(c, c.Args[2:], c.Args[1], true) }},
	}
}

// loadSets loads every key (a missing one is nil) in order, failing with
// WRONGTYPE on the first key of another type, as Redis looks them all up
// before doing anything.
func loadSets(tx *Tx, keys [][]byte) ([]*setObj, error) {
	sets := make([]*setObj, len(keys))
	for i, k := range keys {
		s, _, err := loadSet(tx, k, true)
		if err != nil {
			return nil, err
		}
		sets[i] = s
	}
	return sets, nil
}

// setInter returns the members of every set in sets (none nil), walking
// the smallest as Redis does; it stops after limit members when limit > 0.
func setInter(sets []*setObj, limit int64) [][]byte {
	order := append([]*setObj(nil), sets...)
	sort.SliceStable(order, func(i, j int) bool { return order[i].size() < order[j].size() })
	first := order[0]
	var out [][]byte
	for i := 0; i < first.size(); i++ {
		m := StringBytes(first.member(i))
		in := true
		for _, s := range order[1:] {
			if !s.has(m) {
				in = false
				break
			}
		}
		if in {
			out = append(out, m)
			if limit > 0 && int64(len(out)) >= limit {
				break
			}
		}
	}
	return out
}

// resultSet builds a set from members the way Redis fills the intset it
// starts every result with.
func resultSet(members [][]byte) *setObj {
	s := &setObj{intset: true}
	s.addMany(members)
	return s
}

// sinterGeneric is SINTER, SINTERSTORE (dst not nil) and SINTERCARD
// (cardOnly, stopping at limit members when limit > 0). A missing key
// makes the result empty, but only once every key has been type checked.
func sinterGeneric(c *Call, keys [][]byte, dst []byte, cardOnly bool, limit int64) {
	sets, err := loadSets(c.Tx, keys)
	if err != nil {
		c.Err(err)
		return
	}
	var members [][]byte
	empty := false
	for _, s := range sets {
		if s == nil {
			empty = true
			break
		}
	}
	if !empty {
		members = setInter(sets, limit)
	}
	switch {
	case cardOnly:
		c.W.Int(int64(len(members)))
	case dst != nil:
		storeSetResult(c, dst, resultSet(members), "sinterstore")
	case len(members) == 0:
		c.W.Set(0)
	default:
		replySetMembers(c, resultSet(members))
	}
}

// cmdSintercard is SINTERCARD numkeys key [key ...] [LIMIT limit].
func cmdSintercard(c *Call) {
	numkeys, ok := ParseInt(c.Args[1])
	if !ok || numkeys < 1 {
		c.Err(errNumkeysPositive)
		return
	}
	if numkeys > int64(len(c.Args)-2) {
		c.Err(errNumkeysTooMany)
		return
	}
	var limit int64
	for j := 2 + int(numkeys); j < len(c.Args); j++ {
		if EqualFold(c.Args[j], "limit") && j+1 < len(c.Args) {
			j++
			var err error
			if limit, err = parsePositiveCount(c.Args[j], errLimitNegative); err != nil {
				c.Err(err)
				return
			}
			continue
		}
		c.Err(ErrSyntax)
		return
	}
	sinterGeneric(c, c.Args[2:2+numkeys], nil, true, limit)
}

// sunionDiffGeneric is SUNION and SDIFF, and their STORE forms when dst
// is not nil. Missing keys are empty sets.
func sunionDiffGeneric(c *Call, keys [][]byte, dst []byte, diff bool) {
	sets, err := loadSets(c.Tx, keys)
	if err != nil {
		c.Err(err)
		return
	}
	var members [][]byte
	switch {
	case !diff:
		for _, s := range sets {
			if s == nil {
				continue
			}
			for i := 0; i < s.size(); i++ {
				members = append(members, StringBytes(s.member(i)))
			}
		}
	case sets[0] != nil && !sameKeyAfterFirst(keys, sets):
		for i := 0; i < sets[0].size(); i++ {
			m := StringBytes(sets[0].member(i))
			in := false
			for _, s := range sets[1:] {
				if s != nil && s.has(m) {
					in = true
					break
				}
			}
			if !in {
				members = append(members, m)
			}
		}
	}
	res := resultSet(members)
	if dst == nil {
		replySetMembers(c, res)
		return
	}
	event := "sunionstore"
	if diff {
		event = "sdiffstore"
	}
	storeSetResult(c, dst, res, event)
}

// sameKeyAfterFirst reports whether the first key, existing, is named
// again: SDIFF's result is then empty whatever the other sets hold.
func sameKeyAfterFirst(keys [][]byte, sets []*setObj) bool {
	for j := 1; j < len(keys); j++ {
		if sets[j] != nil && string(keys[j]) == string(keys[0]) {
			return true
		}
	}
	return false
}

// storeSetResult writes a STORE command's result to dst (replacing any
// value and its TTL) and replies its size; an empty result deletes dst.
// The events are Redis's: event in the set class, or "del" when an
// existing dst is deleted.
func storeSetResult(c *Call, dst []byte, s *setObj, event string) {
	if s.size() == 0 {
		if c.Tx.Delete(dst) {
			c.Tx.Notify(NotifyGeneric, "del", dst)
		}
		c.W.Int(0)
		return
	}
	storeSet(c.Tx, dst, s, 0)
	c.W.Int(int64(s.size()))
	c.Tx.Notify(NotifySet, event, dst)
}
