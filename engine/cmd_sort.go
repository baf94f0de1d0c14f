package engine

import (
	"bytes"
	"errors"
	"math"
	"sort"
	"strings"
)

// SORT and SORT_RO, as Redis 7.0's sort.c: the elements of a list, set or
// sorted set, sorted by their own value or by the value of other keys (BY),
// optionally replaced by other keys' values (GET), sliced (LIMIT) and
// stored as a list (STORE).

var (
	errSortScore  = errors.New("ERR One or more scores can't be converted into double")
	errSortByACL  = errors.New("ERR BY option of SORT denied due to insufficient ACL permissions.")
	errSortGetACL = errors.New("ERR GET option of SORT denied due to insufficient ACL permissions.")
	// BY and GET name keys in any slot: cluster mode refuses them.
	errSortByCluster  = errors.New("ERR BY option of SORT denied in Cluster mode.")
	errSortGetCluster = errors.New("ERR GET option of SORT denied in Cluster mode.")
)

func sortCommands() []*Command {
	return []*Command{
		{Name: "sort", Handler: func(c *Call) { sortGeneric(c, false) }, keysProc: sortKeys, keysFirst: true},
		{Name: "sort_ro", Handler: func(c *Call) { sortGeneric(c, true) }, keysProc: sortKeys, keysFirst: true},
	}
}

// sortItem is one element to sort: the element, and what it sorts by
// (score when numeric, cmp when ALPHA with BY; hasCmp is false when the BY
// key is missing).
type sortItem struct {
	elem   string
	score  float64
	cmp    string
	hasCmp bool
}

type sortOpts struct {
	desc, alpha, dontsort bool
	by                    []byte // nil: sort by the element itself
	gets                  [][]byte
	store                 []byte
	start, count          int64
}

// parseSort reads the options as sortCommandGeneric does: left to right,
// the first bad one answers the command.
func parseSort(c *Call, readonly bool) (sortOpts, error) {
	o := sortOpts{count: -1}
	args := c.Args
	for j := 2; j < len(args); j++ {
		left := len(args) - j - 1
		a := args[j]
		switch {
		case EqualFold(a, "asc"):
			o.desc = false
		case EqualFold(a, "desc"):
			o.desc = true
		case EqualFold(a, "alpha"):
			o.alpha = true
		case EqualFold(a, "limit") && left >= 2:
			start, ok1 := ParseInt(args[j+1])
			count, ok2 := ParseInt(args[j+2])
			if !ok1 || !ok2 {
				return o, ErrNotInteger
			}
			o.start, o.count = start, count
			j += 2
		case !readonly && EqualFold(a, "store") && left >= 1:
			o.store = args[j+1]
			j++
		case EqualFold(a, "by") && left >= 1:
			o.by = args[j+1]
			// A constant pattern means "do not sort" (BY nosort); once
			// set, a later BY with a '*' does not undo it, as in Redis.
			if bytes.IndexByte(o.by, '*') < 0 {
				o.dontsort = true
			} else if c.E.cluster.enabled {
				return o, errSortByCluster
			} else if !fullKeyAccess(c) {
				return o, errSortByACL
			}
			j++
		case EqualFold(a, "get") && left >= 1:
			if c.E.cluster.enabled {
				return o, errSortGetCluster
			}
			if !fullKeyAccess(c) {
				return o, errSortGetACL
			}
			o.gets = append(o.gets, args[j+1])
			j++
		default:
			return o, ErrSyntax
		}
	}
	return o, nil
}

func sortGeneric(c *Call, readonly bool) {
	o, err := parseSort(c, readonly)
	if err != nil {
		c.Err(err)
		return
	}
	v, ok := lookupRead(c, c.Args[1])
	if ok && v.Type != TypeList && v.Type != TypeSet && v.Type != TypeZSet {
		c.Err(ErrWrongType)
		return
	}
	isSet := ok && v.Type == TypeSet
	// A set's order is its encoding's, so scripts and STORE (which are
	// replicated) get it sorted, as in Redis.
	if o.dontsort && isSet && (o.store != nil || c.S.Kind == KindScript) {
		o.dontsort, o.alpha, o.by = false, true, nil
	}
	var elems []string
	if ok {
		switch v.Type {
		case TypeList:
			elems = decodeList(v.Payload).elems
		case TypeSet:
			s := decodeSet(v.Payload)
			elems = make([]string, s.size())
			for i := range elems {
				elems[i] = s.member(i)
			}
		case TypeZSet:
			z := decodeZset(v.Payload)
			elems = make([]string, len(z.ents))
			for i, e := range z.ents {
				elems[i] = e.member
			}
			sortConvertZset(c.Tx, c.Args[1], v)
		}
	}
	n := int64(len(elems))

	// LIMIT, clamped as Redis clamps it.
	start := min(max(o.start, 0), n)
	count := min(max(o.count, -1), n)
	end := n - 1
	if count >= 0 {
		end = start + count - 1
	}
	if start >= n {
		start, end = n-1, n-2
	}
	end = min(end, n-1)

	items := make([]sortItem, len(elems))
	for i, e := range elems {
		items[i].elem = e
	}
	// Without sorting, lists and sorted sets keep their order, reversed by
	// DESC; a set keeps its own order whatever DESC says.
	if o.dontsort && !isSet && o.desc {
		for i, j := 0, len(items)-1; i < j; i, j = i+1, j-1 {
			items[i], items[j] = items[j], items[i]
		}
	}
	if !o.dontsort {
		badScore := false
		for i := range items {
			it := &items[i]
			by, found := it.elem, true
			if o.by != nil {
				by, found = sortLookup(c, o.by, it.elem)
				if !found {
					continue
				}
			}
			if o.alpha {
				if o.by != nil {
					it.cmp, it.hasCmp = by, true
				}
				continue
			}
			f, consumed, erange := strtod(StringBytes(by))
			it.score = f
			if subnormalDecimal(f, by) {
				erange = true // glibc's strtod: an inexact subnormal is ERANGE
			}
			// strtod reads a C string: an embedded NUL ends it.
			if consumed < len(by) && by[consumed] != 0 || erange || math.IsNaN(f) {
				badScore = true
			}
		}
		if badScore {
			c.Err(errSortScore)
			return
		}
		sortItems(items, o)
	}

	gets := len(o.gets)
	span := int(end - start + 1)
	outLen := span
	if gets > 0 {
		outLen = gets * span
	}
	if span > 0 {
		items = items[start : end+1]
	} else {
		items = nil
	}
	if o.store == nil {
		c.W.Array(outLen)
		for _, it := range items {
			if gets == 0 {
				c.W.BulkString(it.elem)
			}
			for _, g := range o.gets {
				if val, found := sortLookup(c, g, it.elem); found {
					c.W.BulkString(val)
				} else {
					c.W.Null()
				}
			}
		}
		return
	}
	out := &listObj{elems: make([]string, 0, outLen)}
	for _, it := range items {
		if gets == 0 {
			out.elems = append(out.elems, it.elem)
		}
		for _, g := range o.gets {
			val, _ := sortLookup(c, g, it.elem) // a missing one stores ""
			out.elems = append(out.elems, val)
		}
	}
	if outLen > 0 {
		storeList(c.Tx, o.store, out, 0)
		c.Tx.Notify(NotifyList, "sortstore", o.store)
	} else if c.Tx.Delete(o.store) {
		c.Tx.Notify(NotifyGeneric, "del", o.store)
	}
	c.W.Int(int64(outLen))
}

// sortItems is sortCompare: numbers with ties broken bytewise by the
// elements, or ALPHA: by the BY values (a missing one first) or by the
// elements. DESC reverses the comparison. Ties that Redis leaves to qsort
// (equal BY values with ALPHA) keep the elements' order here.
func sortItems(items []sortItem, o sortOpts) {
	cmp := func(a, b *sortItem) int {
		switch {
		case !o.alpha:
			switch {
			case a.score > b.score:
				return 1
			case a.score < b.score:
				return -1
			}
			return compareBytes(a.elem, b.elem)
		case o.by != nil:
			switch {
			case !a.hasCmp || !b.hasCmp:
				if a.hasCmp == b.hasCmp {
					return 0
				}
				if !a.hasCmp {
					return -1
				}
				return 1
			case o.store != nil:
				return compareBytes(a.cmp, b.cmp)
			}
			return collate(a.cmp, b.cmp)
		case o.store != nil:
			return compareBytes(a.elem, b.elem)
		}
		return collate(a.elem, b.elem)
	}
	sort.SliceStable(items, func(i, j int) bool {
		r := cmp(&items[i], &items[j])
		if o.desc {
			r = -r
		}
		return r < 0
	})
}

// subnormalDecimal reports a subnormal parsed from decimal text, which is
// inexact in practice (hexadecimal ones can be exact: those pass).
func subnormalDecimal(f float64, text string) bool {
	if f == 0 || math.Abs(f) >= 0x1p-1022 || math.IsNaN(f) {
		return false
	}
	t := strings.TrimLeft(text, " \t\n\v\f\r+-")
	return !(len(t) > 1 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X'))
}

func compareBytes(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// collate is strcoll under the C (or C.UTF-8) locale: a byte comparison
// that stops at the first NUL, as C strings end there.
func collate(a, b string) int {
	if i := indexNUL(a); i >= 0 {
		a = a[:i]
	}
	if i := indexNUL(b); i >= 0 {
		b = b[:i]
	}
	return compareBytes(a, b)
}

func indexNUL(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			return i
		}
	}
	return -1
}

// sortLookup is lookupKeyByPattern: "#" is the element itself; otherwise
// the first '*' of the pattern is replaced by the element and the result
// names a string key, or, with "->field" after the '*', a hash field.
// A pattern without '*', a missing key or field, or a key of another type
// finds nothing.
func sortLookup(c *Call, pattern []byte, elem string) (string, bool) {
	if len(pattern) == 1 && pattern[0] == '#' {
		return elem, true
	}
	star := bytes.IndexByte(pattern, '*')
	if star < 0 {
		return "", false
	}
	keyPat, field := pattern, []byte(nil)
	if f := bytes.Index(pattern[star+1:], []byte("->")); f >= 0 && star+1+f+2 < len(pattern) {
		keyPat, field = pattern[:star+1+f], pattern[star+1+f+2:]
	}
	key := make([]byte, 0, len(keyPat)-1+len(elem))
	key = append(append(append(key, keyPat[:star]...), elem...), keyPat[star+1:]...)
	v, ok := lookupRead(c, key)
	if !ok {
		return "", false
	}
	if field == nil {
		if v.Type != TypeString {
			return "", false
		}
		return v.Payload, true
	}
	if v.Type != TypeHash {
		return "", false
	}
	h := decodeHash(v.Payload)
	h.hideExpired(hashFieldExpiry(v.Payload), c.Tx.Ms)
	return h.get(field)
}

// sortConvertZset: Redis 7.0's SORT converts a listpack sorted set to a
// skiplist for good before sorting it (OBJECT ENCODING and DUMP show it).
// The key is rewritten in place, without counting as a change: Redis does
// not signal it either (WATCH, client tracking). SORT_RO runs in a write
// transaction (write_tx) for this; inside EVAL_RO there is none, and the
// set keeps its encoding.
func sortConvertZset(tx *Tx, key []byte, v Value) {
	if len(v.Payload) == 0 || isLarge(v.Payload) || !tx.Writable() {
		return
	}
	b := []byte(v.Payload)
	b[0] |= encLarge
	v.Payload = b2s(b)
	tx.Rewrite(tx.DB, key, v)
}

// fullKeyAccess is ACLUserCheckCmdWithUnrestrictedKeyAccess: BY and GET
// read keys no key spec names, so they need a user who may read any key.
func fullKeyAccess(c *Call) bool {
	u := c.S.User()
	if u == nil {
		return true
	}
	r := u.load()
	if r.all {
		return true
	}
	var kc keyCache
	for _, s := range r.selectors {
		if res, _ := s.check(c.Cmd, c.Args, &kc); res == aclOK && s.readsEveryKey() {
			return true
		}
	}
	return false
}

// readsEveryKey is ACLSelectorHasUnrestrictedKeyAccess for reads.
func (s *aclSelector) readsEveryKey() bool {
	if s.allKeys {
		return true
	}
	for _, p := range s.keys {
		if p.perm&aclPermRead != 0 && p.pattern == "*" {
			return true
		}
	}
	return false
}

// sortKeys is sortGetKeys: the sorted key, and the key after the last
// STORE (read as Redis reads it: LIMIT skips two arguments, GET and BY
// one, anything else none).
func sortKeys(cmd *Command, args [][]byte) ([]keyRef, bool) {
	if cmd.FullName != "sort" && cmd.FullName != "sort_ro" {
		return nil, false
	}
	keys := []keyRef{{1, []string{"RO", "access"}}}
	if cmd.FullName == "sort_ro" { // sortROGetKeys
		return keys, true
	}
	store := 0
	for i := 2; i < len(args); i++ {
		switch {
		case EqualFold(args[i], "limit"):
			i += 2
		case EqualFold(args[i], "get"), EqualFold(args[i], "by"):
			i++
		case EqualFold(args[i], "store") && i+1 < len(args):
			store = i + 1
		}
	}
	if store > 0 {
		keys = append(keys, keyRef{store, []string{"OW", "update"}})
	}
	return keys, true
}
