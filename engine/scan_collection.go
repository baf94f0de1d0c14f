package engine

import (
	"container/heap"
	"math"
	"sort"
	"strconv"
)

// HSCAN, SSCAN, ZSCAN: iteration over one collection.

// scanItem is one element a collection SCAN may return: a member, or a
// field or member and its value or score.
type scanItem struct {
	key, val string
	ord      uint64
}

// scanOrd places an element in the iteration order of large collections:
// a hash of its bytes, never 0. A cursor is the ord of the next element to
// return, so, as with Redis's reverse-binary cursors, an element present
// for the whole iteration is returned whatever is added or removed
// meanwhile, with no state kept between calls.
func scanOrd(s string) uint64 {
	h := uint64(14695981039346656037) // FNV-1a
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	h &= math.MaxInt64
	if h == 0 {
		h = 1
	}
	return h
}

// scanOptions are the MATCH and COUNT of a collection SCAN.
type scanOptions struct {
	pattern []byte // nil: everything
	count   int64
}

// parseScanOptions parses MATCH/COUNT from args as scanGenericCommand does
// (TYPE is for the keyspace SCAN only).
func parseScanOptions(args [][]byte) (scanOptions, error) {
	opts := scanOptions{count: 10}
	for i := 0; i < len(args); i += 2 {
		more := i+1 < len(args)
		switch {
		case more && EqualFold(args[i], "count"):
			n, ok := ParseInt(args[i+1])
			if !ok {
				return opts, ErrNotInteger
			}
			if n < 1 {
				return opts, ErrSyntax
			}
			opts.count = n
		case more && EqualFold(args[i], "match"):
			opts.pattern = args[i+1]
			if len(opts.pattern) == 1 && opts.pattern[0] == '*' {
				opts.pattern = nil
			}
		default:
			return opts, ErrSyntax
		}
	}
	return opts, nil
}

// ordHeap is a max-heap on ord, to keep the count smallest ords.
type ordHeap []scanItem

func (h ordHeap) Len() int           { return len(h) }
func (h ordHeap) Less(i, j int) bool { return h[i].ord > h[j].ord }
func (h ordHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *ordHeap) Push(x any)        { *h = append(*h, x.(scanItem)) }
func (h *ordHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// replyCollectionScan answers a collection SCAN. small collections (the
// compact encodings) return everything with cursor 0, as Redis does; large
// ones return the count elements with the smallest ords >= cursor (plus
// any sharing the last ord, so none is skipped) in ord order. withVal says
// whether items are pairs.
func replyCollectionScan(c *Call, cursor uint64, small bool, items []scanItem, withVal bool, opts scanOptions) {
	next := uint64(0)
	if !small {
		k := int(min(opts.count, int64(len(items))))
		h := make(ordHeap, 0, k+1)
		for _, it := range items {
			it.ord = scanOrd(it.key)
			if it.ord < cursor {
				continue
			}
			if len(h) < k {
				heap.Push(&h, it)
			} else if it.ord < h[0].ord {
				heap.Push(&h, it)
				heap.Pop(&h)
			}
		}
		picked := []scanItem(h)
		sort.Slice(picked, func(i, j int) bool { return picked[i].ord < picked[j].ord })
		if len(picked) > 0 {
			last := picked[len(picked)-1].ord
			next = math.MaxUint64
			for _, it := range items {
				o := scanOrd(it.key)
				switch {
				case o == last && !containsKey(picked, it.key):
					picked = append(picked, scanItem{key: it.key, val: it.val, ord: o})
				case o > last && o < next:
					next = o
				}
			}
			if next == math.MaxUint64 {
				next = 0
			}
		}
		items = picked
	}
	out := items[:0:0]
	for _, it := range items {
		if opts.pattern == nil || globString(opts.pattern, it.key, false) {
			out = append(out, it)
		}
	}
	var buf [20]byte
	c.W.Array(2)
	c.W.Bulk(strconv.AppendUint(buf[:0], next, 10))
	n := len(out)
	if withVal {
		n *= 2
	}
	c.W.Array(n)
	for _, it := range out {
		c.W.BulkString(it.key)
		if withVal {
			c.W.BulkString(it.val)
		}
	}
}

func containsKey(items []scanItem, key string) bool {
	for _, it := range items {
		if it.key == key {
			return true
		}
	}
	return false
}
