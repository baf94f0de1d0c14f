package engine

import (
	"bytes"
	"strconv"
	"strings"
)

// parseScanCursor parses a cursor the way Redis does (strtoul, base 10): an
// optional sign, digits, nothing else; "-1" wraps around as in C; an empty
// cursor is 0.
func parseScanCursor(b []byte) (uint64, bool) {
	if len(b) > 0 && isSpace(b[0]) {
		return 0, false
	}
	neg := false
	digits := b
	if len(digits) > 0 && (digits[0] == '+' || digits[0] == '-') {
		neg = digits[0] == '-'
		digits = digits[1:]
		if len(digits) == 0 {
			return 0, false // no conversion: strtoul leaves eptr on the sign
		}
	}
	if len(b) == 0 {
		return 0, true
	}
	var n uint64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if n > (^uint64(0)-d)/10 {
			return 0, false // ERANGE
		}
		n = n*10 + d
	}
	if neg {
		n = -n
	}
	return n, true
}

// cmdScan is SCAN cursor [MATCH pattern] [COUNT count] [TYPE type].
func cmdScan(c *Call) {
	cursor, ok := parseScanCursor(c.Args[1])
	if !ok {
		c.Err(errScanCursor)
		return
	}
	count := int64(scanDefaultCount)
	var pattern, typeName []byte
	usePattern, useType := false, false
	for i := 2; i < len(c.Args); i += 2 {
		opt := c.Args[i]
		more := i+1 < len(c.Args)
		switch {
		case more && EqualFold(opt, "count"):
			n, ok := ParseInt(c.Args[i+1])
			if !ok {
				c.Err(ErrNotInteger)
				return
			}
			if n < 1 {
				c.Err(ErrSyntax)
				return
			}
			count = n
		case more && EqualFold(opt, "match"):
			pattern = c.Args[i+1]
			usePattern = len(pattern) != 1 || pattern[0] != '*'
			if !usePattern {
				pattern = nil
			}
		case more && EqualFold(opt, "type"):
			typeName, useType = c.Args[i+1], true
		default:
			c.Err(ErrSyntax)
			return
		}
	}

	next, found := scanKeys(c, cursor, pattern, count, useType, func(key string, v Value) bool {
		if useType {
			// Redis looks the key up to learn its type: a keyspace hit.
			c.E.Stats.KeyspaceHits.Add(1)
			return EqualFold(typeName, v.Type.Name())
		}
		return true
	})
	var buf [20]byte
	c.W.Array(2)
	c.W.Bulk(strconv.AppendUint(buf[:0], next, 10))
	c.W.Array(len(found))
	for _, k := range found {
		c.W.BulkString(k)
	}
}

// scanKeys is one step of a SCAN-style iteration of the current database
// from cursor: it examines up to count live keys whose names match
// pattern (nil: all), returns those keep accepts and the next cursor (0
// at the end). lookups says keep looks each key up, as SCAN's TYPE does:
// an expired key it meets is then a keyspace miss.
func scanKeys(c *Call, cursor uint64, pattern []byte, count int64, lookups bool, keep func(key string, v Value) bool) (uint64, []string) {
	usePattern := pattern != nil
	db := c.Tx.DB
	prefix := globPrefix(pattern)
	from := prefix
	pos := cursor % scanTagUnit
	skip := uint64(0)
	if cursor != 0 {
		if last, ok := c.E.scans.lookup(cursor, db); ok {
			// Resume just after last: last+"\x00" is its successor. (A
			// cursor made with another MATCH may point before the range.)
			if resume := append([]byte(last), 0); bytes.Compare(resume, prefix) > 0 {
				from = resume
			}
		} else {
			skip = pos
		}
	}

	var found []string
	var last string
	examined := int64(0)
	more := false
	c.Tx.ScanStored(db, from, func(key string, v Value, expired bool) bool {
		if !strings.HasPrefix(key, b2s(prefix)) {
			return false
		}
		if expired {
			// Redis 7.0's SCAN deletes the expired keys it would return
			// but for their expiry: those MATCH lets through. With TYPE
			// it looks them up, a keyspace miss.
			if !usePattern || globString(pattern, key, false) {
				c.Tx.FoundExpired(db, StringBytes(key), v.ExpireAt)
				if lookups {
					c.E.Stats.KeyspaceMisses.Add(1)
					c.Tx.notifyKeyMiss(StringBytes(key))
				}
			}
			return true
		}
		if skip > 0 {
			skip--
			return true
		}
		if examined == count {
			more = true
			return false
		}
		examined++
		last = key
		if usePattern && !globString(pattern, key, false) {
			return true
		}
		if keep(key, v) {
			found = append(found, key)
		}
		return true
	})

	next := uint64(0)
	if more {
		next = c.E.scans.add(pos+uint64(examined), db, last)
	}
	return next, found
}
